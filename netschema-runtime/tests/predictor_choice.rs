//! Learned predictor choice settles on the right predictor, and visibility keeps clients apart.

mod support;

use netschema_runtime::model::predict::Predictor;
use netschema_runtime::owned::{ClientBuffers, PeerBuffers, WorldBuffers};
use netschema_runtime::schema::{Class, Field, Schema};
use netschema_runtime::{Ack, World};
use support::{Rng, SCHEMA, session};

const CANDIDATES: &[Predictor] = &[Predictor::Hold, Predictor::Linear, Predictor::Quadratic];
static MOTION: [Field; 3] = [
    Field::numeric("constant", -1_000_000, 1_000_000, false, CANDIDATES),
    Field::numeric("velocity", -1_000_000, 1_000_000, false, CANDIDATES),
    Field::numeric("acceleration", -1_000_000, 1_000_000, false, CANDIDATES),
];
static MOTION_CLASSES: [Class; 1] = [Class::new("body", &MOTION)];
static LEARNED: Schema = Schema::new("learned", &MOTION_CLASSES);

const HOLD_ONLY: &[Predictor] = &[Predictor::Hold];
static HOLD_FIELDS: [Field; 3] = [
    Field::numeric("constant", -1_000_000, 1_000_000, false, HOLD_ONLY),
    Field::numeric("velocity", -1_000_000, 1_000_000, false, HOLD_ONLY),
    Field::numeric("acceleration", -1_000_000, 1_000_000, false, HOLD_ONLY),
];
static HOLD_CLASSES: [Class; 1] = [Class::new("body", &HOLD_FIELDS)];
static HOLD: Schema = Schema::new("hold", &HOLD_CLASSES);

const BODIES: usize = 100;

fn motion(id: usize, t: i32) -> [i32; 3] {
    let id = id as i32;
    [id * 37 - 500, id * 11 + (id % 7 - 3) * t, -40_000 + (id % 5 + 1) * t * t]
}

/// Replicates the bodies over a perfect link for `frames` frames; returns the mean packet
/// size over the last 50 frames and the candidate each field prefers at the end.
fn replicate(schema: &Schema, frames: i32) -> (f64, [Option<usize>; 3]) {
    let (mut world, mut peer, mut client) = session(schema, BODIES, BODIES);
    for id in 0..BODIES {
        peer.set_visible(id, true).unwrap();
    }
    let mut buf = [0u8; 8192];
    let mut tail = 0usize;
    for t in 0..frames {
        world.begin_frame();
        for id in 0..BODIES {
            world.set(id, 0, &motion(id, t)).unwrap();
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        client.decode(&buf[..len]).unwrap();
        peer.receive_ack(&client.ack().unwrap());
        if t >= frames - 50 {
            tail += len;
        }
    }
    let frame = world.frame().unwrap();
    let preferred = core::array::from_fn(|f| peer.field_model(frame, 0, f).unwrap().preferred());
    (tail as f64 / 50.0, preferred)
}

#[test]
fn choice_settles_on_the_generating_polynomial() {
    let (learned_bytes, preferred) = replicate(&LEARNED, 300);
    assert_eq!(preferred, [Some(0), Some(1), Some(2)], "hold, linear, quadratic");
    let (hold_bytes, _) = replicate(&HOLD, 300);
    assert!(
        learned_bytes * 10.0 < hold_bytes,
        "learned choice should cost far less than hold alone: {learned_bytes} vs {hold_bytes}"
    );
}

/// Two clients with disjoint visible sets: packets for one do not depend on the other's
/// entities at all, whether everything fits the packets or a small byte budget defers most.
#[test]
fn clients_learn_nothing_about_hidden_entities() {
    let schema = &SCHEMA;
    const N: usize = 64;
    let packets_for_a = |hidden_seed: u64, budget: usize| -> Vec<Vec<u8>> {
        let mut wb = WorldBuffers::new(schema, N);
        let mut world: World<'_> = wb.world(schema, N).unwrap();
        let mut pa = PeerBuffers::new(schema, N, N);
        let mut a = pa.peer(schema, N, N).unwrap();
        let mut ca = ClientBuffers::new(schema, N);
        let mut client_a = ca.client(schema, N).unwrap();
        let mut pbuf = PeerBuffers::new(schema, N, N);
        let mut b = pbuf.peer(schema, N, N).unwrap();
        for id in 0..N {
            a.set_visible(id, id % 2 == 0).unwrap();
            b.set_visible(id, id % 2 == 1).unwrap();
        }
        let mut rng = Rng(hidden_seed);
        let mut out = Vec::new();
        let mut buf = vec![0u8; budget];
        for t in 0..100 {
            world.begin_frame();
            for id in 0..N {
                if id % 2 == 0 {
                    world.set(id, 0, &[1000 + t * id as i32, 2000, (t * 3) % 1024, 1, 0]).unwrap();
                } else if rng.chance(0.9) {
                    let row = [rng.below(65_536) as i32, rng.below(65_536) as i32, 5, 2, 1];
                    world.set(id, 0, &row).unwrap();
                } else {
                    world.remove(id);
                }
            }
            let len = a.encode(&world, &mut buf).unwrap();
            out.push(buf[..len].to_vec());
            client_a.decode(&buf[..len]).unwrap();
            a.receive_ack(&client_a.ack().unwrap());
            let len_b = b.encode(&world, &mut buf).unwrap();
            assert!(len_b > 0);
            b.receive_ack(&Ack::default());
            if budget > 1000 {
                assert_eq!(client_a.view().count(), N / 2);
            }
        }
        out
    };
    for budget in [4096, 40] {
        assert_eq!(packets_for_a(1, budget), packets_for_a(2, budget));
    }
}

/// The client reports entities appearing, changing and disappearing.
#[test]
fn client_events_follow_the_view() {
    use netschema_runtime::Event;
    let schema = &SCHEMA;
    let (mut world, mut peer, mut client) = session(schema, 4, 4);
    let mut buf = [0u8; 256];
    let mut step = |world: &mut World<'_>, peer: &mut netschema_runtime::Peer<'_>| {
        let len = peer.encode(world, &mut buf).unwrap();
        client.decode(&buf[..len]).unwrap();
        peer.receive_ack(&client.ack().unwrap());
        client.events().collect::<Vec<_>>()
    };
    peer.set_visible(0, true).unwrap();
    peer.set_visible(1, true).unwrap();
    world.begin_frame();
    world.set(0, 0, &[10, 20, 30, 1, 0]).unwrap();
    world.set(1, 1, &[5, 1]).unwrap();
    let h0 = 0;
    assert_eq!(
        step(&mut world, &mut peer),
        [Event::Created { handle: 0, class: 0 }, Event::Created { handle: 1, class: 1 }]
    );
    world.begin_frame();
    world.set(0, 0, &[11, 20, 30, 1, 0]).unwrap();
    assert_eq!(step(&mut world, &mut peer), [Event::Updated { handle: h0 }]);
    world.begin_frame();
    peer.set_visible(1, false).unwrap();
    assert_eq!(step(&mut world, &mut peer), [Event::Removed { handle: 1 }]);
    world.begin_frame();
    assert_eq!(step(&mut world, &mut peer), []);
    assert_eq!(client.get(0).map(|(c, r)| (c, r.to_vec())), Some((0, vec![11, 20, 30, 1, 0])));
}
