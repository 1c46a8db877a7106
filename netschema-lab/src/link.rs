//! A simulated one-way datagram link: fixed latency, independent seeded losses.
//!
//! Time is counted in frames of the run's nominal rate: frame `i` of an evenly spaced run
//! happens at `i`, and a recorded trace with times places its frames where they happened.

use std::collections::VecDeque;

/// splitmix64: a small, fast, seeded generator (the same on every platform).
#[derive(Clone, Debug)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform value in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform value in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// A uniform integer in `0..n` (0 if `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

/// How far past its due time a datagram may be asked for and still count as due: absorbs
/// the float error of times read from a trace (in frames).
const DUE_SLACK: f64 = 1e-6;

/// A one-way link: a datagram sent at time `t` arrives at `t + latency`, unless it is lost
/// (independently, with probability `loss`). Datagrams arrive in the order sent. Times are in
/// frames (see the module documentation).
#[derive(Clone, Debug)]
pub struct Link {
    latency: u32,
    loss: f64,
    rng: Rng,
    queue: VecDeque<(f64, Vec<u8>)>,
}

impl Link {
    /// A link with the given one-way latency (frames), loss probability and loss seed.
    pub fn new(latency: u32, loss: f64, seed: u64) -> Self {
        Link { latency, loss, rng: Rng(seed), queue: VecDeque::new() }
    }

    /// Sends a datagram at time `now`.
    pub fn send(&mut self, now: f64, bytes: &[u8]) {
        if !self.rng.chance(self.loss) {
            self.queue.push_back((now + f64::from(self.latency), bytes.to_vec()));
        }
    }

    /// The datagrams due by time `now`, in the order sent.
    pub fn receive(&mut self, now: f64) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while self.queue.front().is_some_and(|(at, _)| *at <= now + DUE_SLACK) {
            if let Some((_, b)) = self.queue.pop_front() {
                out.push(b);
            }
        }
        out
    }
}
