//! Reads arbitrary bytes as a trace of a fixed schema: never panics, and whatever reads writes
//! back and reads again to the same frames, times included (format 2: `time` or `tick` per
//! frame, empty frames, entities that change class).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use netschema_fuzz::TRACE_SCHEMA;
use netschema_lab::descriptors::RuntimeSchema;
use netschema_lab::trace::{Trace, TraceWriter};

fn schema() -> &'static RuntimeSchema {
    static SCHEMA_CELL: OnceLock<RuntimeSchema> = OnceLock::new();
    SCHEMA_CELL.get_or_init(|| {
        let ir = netschema_idl::parse_str("fuzz.netidl", TRACE_SCHEMA).expect("valid schema");
        RuntimeSchema::new(&ir).expect("runtime schema")
    })
}

fuzz_target!(|data: &[u8]| {
    let schema = schema();
    let Ok(trace) = Trace::read(schema, data, |_, _| {}) else { return };
    let rate = trace.header.as_ref().and_then(|h| h.rate_hz);
    let mut writer = TraceWriter::new(schema, Vec::new(), rate).expect("in memory");
    for f in &trace.frames {
        writer.write(&f.world, f.clients.as_deref(), f.time).expect("frames read are writable");
    }
    let text = writer.finish().expect("in memory");
    let again = Trace::read(schema, &text[..], |_, _| {}).expect("written traces read");
    assert_eq!(again.frames.len(), trace.frames.len());
    for (a, b) in again.frames.iter().zip(&trace.frames) {
        assert_eq!((&a.world, &a.clients, a.time), (&b.world, &b.clients, b.time));
    }
});
