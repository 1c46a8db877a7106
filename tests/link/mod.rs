//! What the tests of inputs and rewind share: a seeded generator of one-way delays over a
//! lossy link, and the events of their simulated clocks.
#![allow(dead_code, unreachable_pub)]

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
