//! A seeded loss shim in front of a socket: drops, delays, reorders, duplicates and damages
//! datagrams as a bad network would, reproducibly, without privileges.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::Duration;

/// What the shim does to datagrams; probabilities are in [0, 1].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Impairment {
    /// Dropped.
    pub(crate) loss: f64,
    /// Least delay of a datagram.
    pub(crate) delay: Duration,
    /// Extra delay, uniform in [0, jitter): datagrams overtake each other.
    pub(crate) jitter: Duration,
    /// Held back by another `delay` on top, so that later datagrams overtake it.
    pub(crate) reorder: f64,
    /// Sent twice.
    pub(crate) duplicate: f64,
    /// One random bit flipped.
    pub(crate) corrupt: f64,
}

/// Datagrams in flight at most; the shim drops beyond, as a full router queue does.
const QUEUE: usize = 4096;

/// The shim: datagrams wait in it until they are due.
#[derive(Debug)]
pub(crate) struct Shim {
    impairment: Impairment,
    rng: u64,
    /// Datagrams in flight: when they are due, where to, and their bytes.
    queue: VecDeque<(Duration, SocketAddr, Vec<u8>)>,
}

impl Shim {
    /// A shim that does `impairment`, its choices drawn from `seed`.
    pub(crate) fn new(impairment: Impairment, seed: u64) -> Self {
        Shim { impairment, rng: seed, queue: VecDeque::new() }
    }

    /// A number in [0, 1) (splitmix64).
    fn draw(&mut self) -> f64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Takes a datagram sent to `to` at `now`: drops it, or queues it (maybe twice, maybe
    /// damaged) until it is due.
    pub(crate) fn send(&mut self, now: Duration, to: SocketAddr, datagram: &[u8]) {
        let i = self.impairment;
        if self.draw() < i.loss {
            return;
        }
        let copies = if self.draw() < i.duplicate { 2 } else { 1 };
        for _ in 0..copies {
            let mut bytes = datagram.to_vec();
            if self.draw() < i.corrupt && !bytes.is_empty() {
                let bit = (self.draw() * (bytes.len() * 8) as f64) as usize;
                bytes[bit / 8] ^= 1 << (bit % 8);
            }
            let mut due = now + i.delay + i.jitter.mul_f64(self.draw());
            if self.draw() < i.reorder {
                due += i.delay.max(Duration::from_millis(5));
            }
            if self.queue.len() < QUEUE {
                let at = self.queue.partition_point(|(t, _, _)| *t <= due);
                self.queue.insert(at, (due, to, bytes));
            }
        }
    }

    /// Takes the next datagram due at `now`, if any.
    pub(crate) fn due(&mut self, now: Duration) -> Option<(SocketAddr, Vec<u8>)> {
        if self.queue.front().is_some_and(|(t, _, _)| *t <= now) {
            self.queue.pop_front().map(|(_, to, bytes)| (to, bytes))
        } else {
            None
        }
    }
}
