//! Feeds a sequence of datagrams (each prefixed by a length byte) to a client, and again to a
//! client of a schema with a timeline (whose keyframes travel as records): decoding must never
//! panic, and a rejected datagram must leave the view unchanged (or, when it is the one that
//! makes the client restart, empty).
#![no_main]

use libfuzzer_sys::fuzz_target;
use netschema_fuzz::{CLIENT_HANDLES, CLIENT_SCHEMA, TIMELINE_SCHEMA};
use netschema_runtime::owned::ClientBuffers;
use netschema_runtime::schema::Schema;

/// Feeds the datagrams of `data` to a client of `schema`.
fn decode_all(schema: &'static Schema, data: &[u8]) {
    let mut buffers = ClientBuffers::new(schema, CLIENT_HANDLES);
    let mut client = buffers.client(schema, CLIENT_HANDLES).expect("a valid schema");
    let mut rest = data;
    while let Some((&len, tail)) = rest.split_first() {
        let (packet, next) = tail.split_at(usize::from(len).min(tail.len()));
        rest = next;
        let before: Vec<_> = client.view().map(|(h, c, r)| (h, c, r.to_vec())).collect();
        if client.decode(packet).is_err() {
            let after: Vec<_> = client.view().map(|(h, c, r)| (h, c, r.to_vec())).collect();
            // Unless it was the refusal that made the client give up and ask to start over
            // (`RESTART_AFTER` in a row), a refused datagram changes nothing.
            if client.ack().is_some_and(|a| a.is_restart()) {
                assert!(after.is_empty());
            } else {
                assert_eq!(before, after);
            }
        }
        let _ = client.events().count();
        let _ = client.records().count();
        let _ = client.ack();
    }
}

fuzz_target!(|data: &[u8]| {
    decode_all(&CLIENT_SCHEMA, data);
    // The same datagrams against a schema with a timeline: keyframe records from any bytes.
    decode_all(&TIMELINE_SCHEMA, data);
});
