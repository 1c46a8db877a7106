//! What the tests of inputs, rewind, records and events share: a seeded generator of one-way
//! delays over a lossy link, the events of their simulated clocks, and datagrams in flight by
//! frame.
#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;

/// splitmix64, drawing one-way delays.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A one-way delay of 50 ± 20 ms in microseconds, or `None` for a datagram lost (one in
    /// `lose_one_in`).
    pub fn delay(&mut self, lose_one_in: u64) -> Option<u64> {
        (!self.next().is_multiple_of(lose_one_in)).then(|| 30_000 + self.next() % 40_001)
    }
}

/// What happens next on the simulated clocks.
pub enum Event {
    ClientTick,
    ServerTick,
    ToServer(Vec<u8>),
    ToClient(Vec<u8>),
}

/// Microseconds per frame at 60 Hz.
pub const FRAME_US: u64 = 16_667;

/// Datagrams in flight one way, by the frame they arrive at.
#[derive(Default)]
pub struct Wire(BTreeMap<(u32, u64), Vec<u8>>, u64);

impl Wire {
    pub fn send(&mut self, rng: &mut Rng, now: u32, datagram: &[u8]) {
        let copies = if rng.next().is_multiple_of(10) { 2 } else { 1 };
        for _ in 0..copies {
            if let Some(us) = rng.delay(5) {
                self.1 += 1;
                self.0.insert((now + (us / FRAME_US) as u32, self.1), datagram.to_vec());
            }
        }
    }

    pub fn receive(&mut self, now: u32) -> Vec<Vec<u8>> {
        let later = self.0.split_off(&(now + 1, 0));
        std::mem::replace(&mut self.0, later).into_values().collect()
    }
}
