//! Encoding, decoding and taking acks allocate nothing, under a byte budget or not, whatever
//! the model policy, with records in flight: the storage is the caller's, set up once.

mod support;

use netschema_runtime::Ack;
use support::*;

#[test]
fn encode_decode_and_acks_allocate_nothing() {
    const ENTITIES: usize = 300;
    const HANDLES: usize = 256;
    for (schema, budget) in [(&SCHEMA, 64 * 1024), (&SCHEMA, 300), (&BATCHED_SMALL, 300)] {
        let (mut world, mut peer, mut client) = session(schema, ENTITIES, HANDLES);
        let mut sim = Sim::new(3, ENTITIES);
        let mut buf = vec![0u8; budget];
        let mut ack_bytes = [0u8; Ack::MAX_LEN];
        for id in 0..ENTITIES {
            peer.set_visible(id, id % 4 != 0).unwrap();
        }
        for frame in 0..200u32 {
            sim.step(&mut world);
            let record = [frame as u8; 24];
            let counted = allocation_counter::measure(|| {
                // The queue may be full while acks are lost: a typed refusal, no allocation.
                let _ = peer.queue_record(&record[..frame as usize % 25]);
                let len = peer.encode(&world, &mut buf).unwrap();
                if frame % 7 != 3 {
                    client.decode(&buf[..len]).unwrap();
                    let _ = client.records().map(|r| r.bytes.len()).sum::<usize>();
                    let ack = client.ack().unwrap();
                    ack.write(&mut ack_bytes).unwrap();
                    peer.receive_ack(&Ack::read(&ack_bytes).unwrap());
                }
                let _ = client.view().count() + client.events().count();
            });
            assert_eq!(
                counted.count_total, 0,
                "{:?}, budget {budget}, frame {frame}",
                schema.policy
            );
        }
    }
}

#[test]
fn the_input_stream_allocates_nothing() {
    use netschema_runtime::engine::input::{InputReceiver, InputSender, InputStorage};
    use netschema_runtime::model::Model;
    use netschema_runtime::model::predict::Predictor;
    use netschema_runtime::schema::{Class, Field, Schema};
    static FIELDS: [Field; 3] = [
        Field::numeric("dir", -127, 127, false, &[Predictor::Hold, Predictor::Linear]),
        Field::numeric("yaw", 0, 65_535, true, &[Predictor::Hold, Predictor::Linear]),
        Field::categorical("fire", 2),
    ];
    static CLASSES: [Class; 1] = [Class::new("Move", &FIELDS)];
    static MOVE: Schema = Schema::new("Move", &CLASSES);
    let (models, words) = InputStorage::sizes(&MOVE);
    let (mut m1, mut w1) = (vec![Model::default(); models], vec![0u16; words]);
    let (mut m2, mut w2) = (vec![Model::default(); models], vec![0u16; words]);
    let mut sender =
        InputSender::new(&MOVE, InputStorage { models: &mut m1, stored: &mut w1 }).unwrap();
    let mut receiver =
        InputReceiver::new(&MOVE, InputStorage { models: &mut m2, stored: &mut w2 }).unwrap();
    let mut buf = [0u8; 512];
    for tick in 0..300u32 {
        let counted = allocation_counter::measure(|| {
            let values = [(tick % 200) as i32 - 100, (tick * 97 % 65_536) as i32, 0];
            sender.push(tick, &values).unwrap();
            let len = sender.encode(&mut buf).unwrap();
            if tick % 5 != 2 {
                receiver.receive(&buf[..len]).unwrap();
                if tick % 3 == 0 {
                    sender.receive_ack(&receiver.ack().unwrap());
                }
            }
            let _ = receiver.take_next();
        });
        assert_eq!(counted.count_total, 0, "tick {tick}");
    }
}
