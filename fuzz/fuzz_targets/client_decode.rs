//! Feeds a sequence of datagrams (each prefixed by a length byte) to one client: decoding
//! must never panic, and a rejected datagram must leave the view unchanged.
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
            assert_eq!(before, after);
        }
        let _ = client.events().count();
        let _ = client.ack();
    }
});
