//! Adaptive binary probabilities and their ideal costs.
//!
//! A model holds the probability that the next bit is 0, in units of 2^-15
//! ([`PROB_ONE`] is certainty). Every update moves it towards the bit seen by a power-of-two
//! fraction of the distance (a shift), so the model forgets exponentially and never reaches 0
//! or 1. All arithmetic is integer, so encoder and decoder evolve bit-identically.
//!
//! Costs are ideal code lengths `-log2(p)` in fixed point with [`COST_FRAC_BITS`] fractional
//! bits, read from a table built at compile time by integer arithmetic.

/// Number of bits of probability precision.
pub const PROB_BITS: u32 = 15;
/// Probability 1.0 in model units.
pub const PROB_ONE: u32 = 1 << PROB_BITS;
/// Fractional bits of a cost: a cost of `1 << COST_FRAC_BITS` is one bit.
pub const COST_FRAC_BITS: u32 = 8;
/// One bit, in cost units.
pub const COST_ONE_BIT: u32 = 1 << COST_FRAC_BITS;

/// An adaptive estimate of the probability that a bit is 0.
///
/// Implementors must keep [`BitModel::p0`] within `1..PROB_ONE` so that both outcomes
/// stay codable.
pub trait BitModel: Copy {
    /// Probability of a 0 bit, in units of 2^-15.
    fn p0(&self) -> u32;
    /// Moves the estimate towards `bit`.
    fn update(&mut self, bit: bool);
}

/// A probability with a single adaptation rate of 2^-[`Prob::RATE`] per observation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prob(u16);

impl Prob {
    /// Shift of the update: the model forgets over about 2^RATE observations.
    pub const RATE: u32 = 5;
    /// Even odds.
    pub const HALF: Prob = Prob((PROB_ONE / 2) as u16);

    /// A model starting at probability `p0 / 2^15` for a 0 bit, clamped into the codable range.
    pub const fn new(p0: u32) -> Self {
        let p = if p0 < 32 {
            32
        } else if p0 > PROB_ONE - 32 {
            PROB_ONE - 32
        } else {
            p0
        };
        Prob(p as u16)
    }

    /// The probability whose [`BitModel::p0`] is `p0`, as a model stores it (clamped into
    /// `1..PROB_ONE`, the codable range).
    pub(crate) fn from_p0(p0: u32) -> Self {
        Prob(p0.clamp(1, PROB_ONE - 1) as u16)
    }

    /// Moves this probability, the mean of `count − 1` others, to the mean of those and `x`
    /// (see [`Count::mean_in`]); it stays between its value and `x`, so in the codable range.
    pub fn mean_in(&mut self, x: Prob, count: &Count) {
        self.0 = count.mean_in(i64::from(self.0), i64::from(x.0)) as u16;
    }
}

/// A number of values averaged, for running means with one rounding rule on every platform.
/// Dividing by it multiplies by a reciprocal where that is exact (small counts and
/// differences, as of probabilities), which is several times faster than dividing.
#[derive(Clone, Copy, Debug)]
pub struct Count {
    k: i64,
    /// ⌈2^32 / k⌉.
    recip: u64,
}

impl Count {
    /// `count` values (0 counts as 1).
    pub fn new(count: u32) -> Count {
        let k = u64::from(count.max(1));
        Count { k: k as i64, recip: (1u64 << 32).div_ceil(k) }
    }

    /// `⌊d / count⌋`. With `count ≤ 255` and `|d| < 2^17`, the reciprocal's excess (below
    /// `count / 2^32`) times `|d|` stays under `1 / count`, so the product floors exactly.
    fn floor_div(&self, d: i64) -> i64 {
        let k = self.k;
        if k > 255 || d.unsigned_abs() >= 1 << 17 {
            return d.div_euclid(k);
        }
        let down = |n: i64| ((n as u64 * self.recip) >> 32) as i64;
        if d >= 0 { down(d) } else { -down(k - 1 - d) }
    }

    /// `a + ⌊(x − a) / count⌋`: the running mean of `count` values whose first `count − 1`
    /// averaged `a`.
    pub fn mean_in(&self, a: i64, x: i64) -> i64 {
        a + self.floor_div(x - a)
    }
}

impl Default for Prob {
    fn default() -> Self {
        Prob::HALF
    }
}

/// Moves `p` towards 0 or [`PROB_ONE`] by `1/2^rate` of the distance.
#[inline(always)]
const fn shift_update(p: u16, bit: bool, rate: u32) -> u16 {
    if bit { p - (p >> rate) } else { p + (((PROB_ONE as u16) - p) >> rate) }
}

impl BitModel for Prob {
    #[inline(always)]
    fn p0(&self) -> u32 {
        u32::from(self.0)
    }

    #[inline(always)]
    fn update(&mut self, bit: bool) {
        self.0 = shift_update(self.0, bit, Self::RATE);
    }
}

/// Two probabilities adapting at different rates, averaged: quick after a change of regime,
/// precise when the statistics are stable. Use it for fields whose statistics drift.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TwoRateProb {
    fast: u16,
    slow: u16,
}

impl TwoRateProb {
    /// Shift of the fast half.
    pub const FAST_RATE: u32 = 4;
    /// Shift of the slow half.
    pub const SLOW_RATE: u32 = 7;
    /// Even odds.
    pub const HALF: TwoRateProb =
        TwoRateProb { fast: (PROB_ONE / 2) as u16, slow: (PROB_ONE / 2) as u16 };
}

impl Default for TwoRateProb {
    fn default() -> Self {
        TwoRateProb::HALF
    }
}

impl BitModel for TwoRateProb {
    #[inline(always)]
    fn p0(&self) -> u32 {
        (u32::from(self.fast) + u32::from(self.slow)) >> 1
    }

    #[inline(always)]
    fn update(&mut self, bit: bool) {
        self.fast = shift_update(self.fast, bit, Self::FAST_RATE);
        self.slow = shift_update(self.slow, bit, Self::SLOW_RATE);
    }
}

/// log2 of the cost table's size: probabilities are looked up at 2^-11 resolution.
const COST_TABLE_BITS: u32 = 11;
const COST_TABLE_SHIFT: u32 = PROB_BITS - COST_TABLE_BITS;

/// `-log2(x / 2^32)` for `x` in `1..=2^32`, in cost units, by integer arithmetic only.
const fn neg_log2_q32(x: u64) -> u32 {
    // Normalise x into [2^32, 2^33) as a Q32 mantissa in [1, 2), counting the integer part.
    let mut m = x;
    let mut int_part: u32 = 0;
    while m < (1u64 << 32) {
        m <<= 1;
        int_part += 1;
    }
    // log2(x/2^32) = log2(m/2^32) - int_part; extract the fraction of log2(m/2^32) bit by bit.
    let mut frac: u32 = 0;
    let mut i = 0;
    while i < COST_FRAC_BITS + 4 {
        m = (m >> 16) * (m >> 16); // square in Q32, keeping 16 bits of each factor
        frac <<= 1;
        if m >= (1u64 << 33) {
            m >>= 1;
            frac |= 1;
        }
        i += 1;
    }
    // cost = int_part - frac / 2^(FRAC+4), rounded to COST_FRAC_BITS.
    let scaled = ((int_part as u64) << (COST_FRAC_BITS + 4)) - frac as u64;
    ((scaled + 8) >> 4) as u32
}

const fn build_cost_table() -> [u16; 1 << COST_TABLE_BITS] {
    let mut table = [0u16; 1 << COST_TABLE_BITS];
    let mut i = 0;
    while i < table.len() {
        // Centre of the bucket of probabilities that share entry i.
        let p = ((i as u64) << COST_TABLE_SHIFT) + (1 << (COST_TABLE_SHIFT - 1));
        table[i] = neg_log2_q32(p << (32 - PROB_BITS)) as u16;
        i += 1;
    }
    table
}

/// `COST_TABLE[p >> 4]` is `-log2(p / 2^15)` in cost units.
static COST_TABLE: [u16; 1 << COST_TABLE_BITS] = build_cost_table();

/// Ideal cost, in cost units, of coding a bit whose probability is `p / 2^15`.
#[inline(always)]
pub fn cost_of_probability(p: u32) -> u32 {
    u32::from(COST_TABLE[(p >> COST_TABLE_SHIFT) as usize & ((1 << COST_TABLE_BITS) - 1)])
}

/// Ideal cost, in cost units, of coding `bit` with `model`.
#[inline(always)]
pub fn bit_cost<M: BitModel>(model: &M, bit: bool) -> u32 {
    let p0 = model.p0();
    cost_of_probability(if bit { PROB_ONE - p0 } else { p0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_divide_as_floor_division() {
        for k in 1..=300u32 {
            let count = Count::new(k);
            for d in (-140_000i64..140_000).step_by(97).chain(-300..300) {
                assert_eq!(count.floor_div(d), d.div_euclid(i64::from(k)), "{d} / {k}");
            }
        }
    }

    #[test]
    fn cost_table_matches_log2() {
        for p in (32..PROB_ONE - 32).step_by(97) {
            let ideal = -((p as f64) / PROB_ONE as f64).log2() * COST_ONE_BIT as f64;
            let got = cost_of_probability(p) as f64;
            // Table resolution: 16 probability units per entry, so allow the slope times 16.
            let slope = COST_ONE_BIT as f64 / (p as f64 * core::f64::consts::LN_2);
            assert!((got - ideal).abs() <= 1.0 + 16.0 * slope, "p={p} got={got} ideal={ideal}");
        }
        assert_eq!(cost_of_probability(PROB_ONE / 2), COST_ONE_BIT);
    }

    #[test]
    fn models_stay_codable() {
        let mut a = Prob::HALF;
        let mut b = TwoRateProb::HALF;
        for _ in 0..10_000 {
            a.update(true);
            b.update(true);
        }
        assert!(a.p0() >= 1 && b.p0() >= 1);
        for _ in 0..10_000 {
            a.update(false);
            b.update(false);
        }
        assert!(a.p0() < PROB_ONE && b.p0() < PROB_ONE);
    }
}
