//! Encoding, decoding and taking acks allocate nothing, under a byte budget or not, whatever
//! the model policy: the storage is the caller's, set up once.

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
            let counted = allocation_counter::measure(|| {
                let len = peer.encode(&world, &mut buf).unwrap();
                if frame % 7 != 3 {
                    client.decode(&buf[..len]).unwrap();
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
