//! Feeds a sequence of datagrams (each prefixed by a length byte) to one client: decoding
//! must never panic, and a rejected datagram must leave the view unchanged (or, when it is
//! the one that makes the client restart, empty).
#![no_main]

use libfuzzer_sys::fuzz_target;
use netschema_fuzz::{CLIENT_HANDLES, CLIENT_SCHEMA as SCHEMA};
use netschema_runtime::owned::ClientBuffers;

fuzz_target!(|data: &[u8]| {
    let mut buffers = ClientBuffers::new(&SCHEMA, CLIENT_HANDLES);
    let Ok(mut client) = buffers.client(&SCHEMA, CLIENT_HANDLES) else { return };
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
        let _ = client.ack();
    }
});
