//! The encoder's probe reports every coded value without changing the packet.

mod support;

use netschema_runtime::codec::prob::COST_ONE_BIT;
use netschema_runtime::engine::probe::{Part, Probe};
use netschema_runtime::owned::{PeerBuffers, WorldBuffers};
use support::{Rng, SCHEMA};

/// Adds up what the probe is told.
#[derive(Default)]
struct Tally {
    values: usize,
    unpredicted: usize,
    cost: u64,
    /// Cost of the structure, per part in [`Part::ALL`] order.
    parts: [u64; Part::ALL.len()],
}

impl Probe for Tally {
    fn field(
        &mut self,
        class: usize,
        field: usize,
        cost: u32,
        candidate: Option<u8>,
        unchanged: bool,
    ) {
        self.values += 1;
        self.unpredicted += usize::from(candidate.is_none());
        assert!(!unchanged || cost == 0, "an unchanged value costs nothing by itself");
        assert!(field < SCHEMA.classes[class].fields.len());
        self.cost += u64::from(cost);
    }

    fn structure(&mut self, part: Part, cost: u32) {
        self.parts[part.index()] += u64::from(cost);
    }
}

#[test]
fn probed_packets_equal_plain_ones_and_costs_add_up() {
    const IDS: usize = 60;
    let mut wb = WorldBuffers::new(&SCHEMA, IDS);
    let mut world = wb.world(&SCHEMA, IDS).unwrap();
    // Enough handles that a respawned entity never waits for one.
    const HANDLES: usize = 4 * IDS;
    let (mut plain_b, mut probed_b) =
        (PeerBuffers::new(&SCHEMA, HANDLES, IDS), PeerBuffers::new(&SCHEMA, HANDLES, IDS));
    let mut plain = plain_b.peer(&SCHEMA, HANDLES, IDS).unwrap();
    let mut probed = probed_b.peer(&SCHEMA, HANDLES, IDS).unwrap();
    for id in 0..IDS {
        plain.set_visible(id, true).unwrap();
        probed.set_visible(id, true).unwrap();
    }
    let mut rng = Rng(11);
    let (mut a, mut b) = ([0u8; 4096], [0u8; 4096]);
    for t in 0..200i32 {
        world.begin_frame();
        for id in 0..IDS {
            if rng.chance(0.02) {
                world.remove(id);
                continue;
            }
            let class = id % SCHEMA.classes.len();
            let row: Vec<i32> = SCHEMA.classes[class]
                .fields
                .iter()
                .enumerate()
                .map(|(f, field)| field.clamp(i64::from(id as i32 * 7 + f as i32 * t)))
                .collect();
            world.set(id, class, &row).unwrap();
        }
        let mut tally = Tally::default();
        let len = plain.encode(&world, &mut a).unwrap();
        let probed_len = probed.encode_probed(&world, &mut b, &mut tally).unwrap();
        assert_eq!(&a[..len], &b[..probed_len], "frame {t}: the probe changed the packet");
        // One report per value of every entity in the packet.
        let rows: usize = (0..IDS)
            .filter_map(|id| world.get(world.frame().unwrap(), id))
            .map(|(_, row)| row.len())
            .sum();
        assert_eq!(tally.values, rows, "frame {t}");
        if t == 0 {
            assert_eq!(tally.unpredicted, rows, "a cold start predicts nothing");
        }
        // The ideal costs of the values and the structure make up the packet, but for the
        // coder's termination (at most a byte, or less when zero bytes at the end are trimmed)
        // and rounding.
        let bits = (tally.cost + tally.parts.iter().sum::<u64>()) / u64::from(COST_ONE_BIT);
        let sent = len as u64 * 8;
        assert!(bits.abs_diff(sent) <= 16, "frame {t}: {bits} bits for {sent}");
        // 32 bits without a baseline (until the first ack, after frame 2), 16 with one.
        let check = if t <= 2 { 32 } else { 16 };
        assert_eq!(tally.parts[Part::Check.index()], check * u64::from(COST_ONE_BIT), "frame {t}");
        if t > 0 && t % 2 == 0 {
            let ack = plain.ack_of(world.frame().unwrap(), |_| true).unwrap();
            plain.receive_ack(&ack);
            probed.receive_ack(&ack);
        }
    }
}

/// Listens, so that the encoder takes no short way.
struct Listener;

impl Probe for Listener {
    fn field(&mut self, _: usize, _: usize, _: u32, _: Option<u8>, _: bool) {}
    fn structure(&mut self, _: Part, _: u32) {}
}

/// Entities still for a while take a short way through the encoder (no samples gathered,
/// nothing predicted) that a listening probe turns off, and through the decoder when its
/// record shows them still: both encoders must write the same packets, and the client decode
/// every frame it accepts exactly, whatever the predictors chosen (the crates' hit points
/// may be predicted as 0), the history (packets and acks lost, duplicated, reordered) and the
/// changes (moving, stopping, a value set and set back within one frame, respawns).
#[test]
fn still_entities_take_a_short_way_to_the_same_packet() {
    use netschema_runtime::owned::ClientBuffers;
    use std::collections::BTreeMap;
    use support::{Link, View, YoungLog, ack_bytes, frame_view, record};

    for schema in [&SCHEMA, &support::SPINNING] {
        const IDS: usize = 90;
        let mut wb = WorldBuffers::new(schema, IDS);
        let mut world = wb.world(schema, IDS).unwrap();
        const HANDLES: usize = 2 * IDS;
        let (mut plain_b, mut probed_b) =
            (PeerBuffers::new(schema, HANDLES, IDS), PeerBuffers::new(schema, HANDLES, IDS));
        let mut plain = plain_b.peer(schema, HANDLES, IDS).unwrap();
        let mut probed = probed_b.peer(schema, HANDLES, IDS).unwrap();
        let mut cb = ClientBuffers::new(schema, HANDLES);
        let mut client = cb.client(schema, HANDLES).unwrap();
        for id in 0..IDS {
            plain.set_visible(id, true).unwrap();
            probed.set_visible(id, true).unwrap();
        }
        let mut rng = Rng(23);
        let (mut down, mut up) = (Link::new((1, 6), 0.1), Link::new((1, 6), 0.1));
        (down.duplicate, up.duplicate) = (0.05, 0.05);
        let mut rows: Vec<Vec<i32>> = (0..IDS)
            .map(|id| {
                let fields = schema.classes[id % schema.classes.len()].fields;
                fields.iter().map(|f| f.clamp(rng.below(1 << 16) as i64)).collect()
            })
            .collect();
        let mut moving = [false; IDS];
        let mut sent: BTreeMap<u32, View> = BTreeMap::new();
        let mut young = YoungLog::default();
        let (mut a, mut b) = ([0u8; 4096], [0u8; 4096]);
        let mut accepted = 0;
        for t in 0..400 {
            world.begin_frame();
            for id in 0..IDS {
                let class = id % schema.classes.len();
                if rng.chance(0.005) {
                    world.remove(id);
                    continue;
                }
                if rng.chance(0.05) {
                    moving[id] = !moving[id];
                }
                let fields = schema.classes[class].fields;
                if moving[id] {
                    let f = rng.below(fields.len() as u64) as usize;
                    let step = rng.below(5) as i64 - 2;
                    rows[id][f] = fields[f].clamp(i64::from(rows[id][f]) + step);
                }
                if rng.chance(0.01) {
                    // Set to something else and back again: counts as a change.
                    let other: Vec<i32> = rows[id]
                        .iter()
                        .zip(fields)
                        .map(|(&v, f)| f.clamp(i64::from(v ^ 1)))
                        .collect();
                    world.set(id, class, &other).unwrap();
                }
                world.set(id, class, &rows[id]).unwrap();
            }
            let frame = world.frame().unwrap();
            let len = plain.encode(&world, &mut a).unwrap();
            let probed_len = probed.encode_probed(&world, &mut b, &mut Listener).unwrap();
            assert_eq!(&a[..len], &b[..probed_len], "frame {t}: the short way changed the packet");
            sent.insert(frame, record(schema, &world, &plain));
            young.sent(&plain, frame);
            down.send(&mut rng, t, &a[..len]);
            for packet in down.receive(t) {
                if let Ok(decoded) = client.decode(&packet) {
                    accepted += 1;
                    let want = young.decoded(decoded, &sent[&decoded]);
                    assert_eq!(frame_view(&client), want, "frame {decoded}");
                }
                if let Some(ack) = client.ack() {
                    up.send(&mut rng, t, &ack_bytes(ack));
                }
            }
            for bytes in up.receive(t) {
                let ack = netschema_runtime::Ack::read(&bytes).unwrap();
                // Both peers hear the same acks, so they keep writing the same packets.
                assert_eq!(plain.receive_ack(&ack), probed.receive_ack(&ack));
            }
        }
        assert!(accepted > 150, "{accepted} packets accepted");
    }
}
