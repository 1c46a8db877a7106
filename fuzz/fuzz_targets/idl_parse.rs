//! Parses arbitrary text as a `.netidl` schema: never panics; accepted schemas flatten.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(schema) = netschema_idl::parse_str("fuzz.netidl", text) {
        for class in &schema.classes {
            let _ = schema.flatten(class);
        }
    }
});
