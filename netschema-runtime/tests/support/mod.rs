//! Shared pieces of the engine tests: a seeded PRNG, a small schema, a moving world and a
//! lossy link.
#![allow(dead_code, unreachable_pub)]

use netschema_runtime::Ack;
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::{Class, Field, Schema};
use std::collections::BTreeMap;

/// splitmix64.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

const MOVING: &[Predictor] = &[Predictor::Hold, Predictor::Linear, Predictor::Quadratic];
static BALL_FIELDS: [Field; 5] = [
    Field::numeric("x", 0, 65_535, false, MOVING),
    Field::numeric("y", 0, 65_535, false, MOVING),
    Field::numeric("heading", 0, 1023, true, &[Predictor::Hold, Predictor::Linear]),
    Field::categorical("mood", 4),
    Field::categorical("lit", 2),
];
static CRATE_FIELDS: [Field; 2] = [
    Field::numeric("hp", -100, 100, false, &[Predictor::Zero, Predictor::Hold]),
    Field::categorical("open", 2),
];
static CLASSES: [Class; 2] = [Class::new("ball", &BALL_FIELDS), Class::new("crate", &CRATE_FIELDS)];
pub static SCHEMA: Schema = Schema::new("test", &CLASSES);

/// A one-way link that delays, loses, duplicates, reorders and corrupts datagrams.
pub struct Link {
    pub latency: (u32, u32),
    pub loss: f64,
    pub duplicate: f64,
    pub corrupt: f64,
    queue: BTreeMap<(u32, u64), Vec<u8>>,
    seq: u64,
}

impl Link {
    pub fn new(latency: (u32, u32), loss: f64) -> Self {
        Link { latency, loss, duplicate: 0.0, corrupt: 0.0, queue: BTreeMap::new(), seq: 0 }
    }
    pub fn send(&mut self, rng: &mut Rng, now: u32, bytes: &[u8]) {
        let copies = if rng.chance(self.duplicate) { 2 } else { 1 };
        for _ in 0..copies {
            if rng.chance(self.loss) {
                continue;
            }
            let mut b = bytes.to_vec();
            if !b.is_empty() && rng.chance(self.corrupt) {
                let i = rng.below(b.len() as u64) as usize;
                b[i] ^= 1 << rng.below(8);
            }
            let span = u64::from(self.latency.1 - self.latency.0) + 1;
            let at = now + self.latency.0 + rng.below(span) as u32;
            self.seq += 1;
            self.queue.insert((at, self.seq), b);
        }
    }
    pub fn receive(&mut self, now: u32) -> Vec<Vec<u8>> {
        let later = self.queue.split_off(&(now + 1, 0));
        let due = std::mem::replace(&mut self.queue, later);
        due.into_values().collect()
    }
}

/// Encodes an ack for the link.
pub fn ack_bytes(ack: Ack) -> Vec<u8> {
    let mut b = [0u8; Ack::WIRE_LEN];
    ack.write(&mut b).unwrap();
    b.to_vec()
}
