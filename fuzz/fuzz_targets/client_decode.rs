//! Feeds a sequence of datagrams (each prefixed by a length byte) to one client: decoding
//! must never panic, and a rejected datagram must leave the view unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::owned::ClientBuffers;
use netschema_runtime::schema::{Class, Field, Schema};

const MOVING: &[Predictor] = &[Predictor::Hold, Predictor::Linear, Predictor::Cubic];
static BALL: [Field; 4] = [
    Field::numeric("x", 0, 65_535, false, MOVING),
    Field::numeric("a", 0, 1023, true, &[Predictor::Zero, Predictor::Hold]),
    Field::categorical("mood", 5),
    Field::categorical("lit", 2),
];
static BOX: [Field; 1] = [Field::numeric("hp", i32::MIN, i32::MAX, false, MOVING)];
static CLASSES: [Class; 2] = [Class::new("ball", &BALL), Class::new("box", &BOX)];
static SCHEMA: Schema = Schema::new("fuzz", &CLASSES);

fuzz_target!(|data: &[u8]| {
    let mut buffers = ClientBuffers::new(&SCHEMA, 16);
    let Ok(mut client) = buffers.client(&SCHEMA, 16) else { return };
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
