//! Helpers shared by the runtime's integration tests, its codec benchmark and the workspace's
//! `stream` example (both include this file by path): a tiny seeded PRNG, the synthetic
//! residual streams they code, and a coder wrapper that adds up the ideal cost of what passes
//! through it.
#![allow(dead_code)] // Each includer uses a different subset.

use netschema_runtime::codec::coder::BinaryCoder;
use netschema_runtime::codec::prob::{BitModel, PROB_ONE};

/// splitmix64 (Steele, Lea and Flood): a deterministic, seedable generator, good enough to
/// drive tests and small enough to need no dependency.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator whose whole sequence is fixed by `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`n > 0`), by multiply-shift; the bias is below 2^-32 for the small
    /// `n` used here.
    pub(crate) fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }

    /// A value in `lo..=hi`.
    pub(crate) fn range_inclusive(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `num / den`.
    pub(crate) fn chance(&mut self, num: u32, den: u32) -> bool {
        self.below(den) < num
    }
}

/// The skewed residual distribution of the design's measurements: 70 % zeros; otherwise a
/// magnitude `1 + G` with `G` geometric of mean 6 (so the mean magnitude is 7) and an
/// equiprobable sign.
pub(crate) fn skewed_residual(rng: &mut SplitMix64) -> i32 {
    if rng.chance(7, 10) {
        return 0;
    }
    let mut magnitude = 1;
    while rng.chance(6, 7) {
        magnitude += 1;
    }
    if rng.chance(1, 2) { -magnitude } else { magnitude }
}

/// `n` residuals from [`skewed_residual`], seeded.
pub(crate) fn skewed_stream(seed: u64, n: usize) -> Vec<i32> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| skewed_residual(&mut rng)).collect()
}

/// Wraps a [`BinaryCoder`] and adds up, in `f64`, the ideal cost in bits of every decision
/// (`-log2 p` of the outcome actually coded, with `p` the model's probability at that
/// moment) and of every direct bit (one bit each).
#[derive(Debug)]
pub(crate) struct Metered<C> {
    /// The wrapped coder.
    pub(crate) inner: C,
    /// Ideal cost so far, in bits.
    pub(crate) ideal_bits: f64,
}

impl<C> Metered<C> {
    /// Starts metering `inner` from zero.
    pub(crate) fn new(inner: C) -> Self {
        Metered { inner, ideal_bits: 0.0 }
    }
}

/// `-log2(p / 2^15)` in `f64`.
pub(crate) fn neg_log2_prob(p: u32) -> f64 {
    -(f64::from(p) / f64::from(PROB_ONE)).log2()
}

impl<C: BinaryCoder> BinaryCoder for Metered<C> {
    fn bit<M: BitModel>(&mut self, model: &mut M, bit: bool) -> bool {
        let p0 = model.p0();
        let coded = self.inner.bit(model, bit);
        self.ideal_bits += neg_log2_prob(if coded { PROB_ONE - p0 } else { p0 });
        coded
    }

    fn direct(&mut self, value: u32, n: u32) -> u32 {
        self.ideal_bits += f64::from(n.min(32));
        self.inner.direct(value, n)
    }
}
