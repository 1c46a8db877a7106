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
