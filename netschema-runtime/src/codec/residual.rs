//! The residual model: how an integer prediction error is coded.
//!
//! A residual `e` is coded as a zero flag; then a sign; then the magnitude class `c` (the
//! bit length of `|e|`, so class 1 is 1, class 2 is 2–3, class 3 is 4–7, …, class 32 is 2^31)
//! in truncated unary over classes 1–[`UNARY_CLASSES`] with an adaptive probability per
//! position, escaping to a 4-level bit-tree for the classes above; then the `c - 1` offset
//! bits inside the class as direct bits. Any `i32` is representable.
//!
//! The same description drives encoding, decoding, cost measurement and plain learning,
//! through [`BinaryCoder`].

use crate::codec::coder::{BinaryCoder, CostMeter, Learner};
use crate::codec::prob::{BitModel, Count, PROB_BITS, PROB_ONE, Prob};

/// Classes coded in unary before escaping to the bit-tree.
pub const UNARY_CLASSES: u32 = 16;
/// Depth of the escape bit-tree (it covers `2^ESCAPE_BITS` classes).
const ESCAPE_BITS: u32 = 4;
const ESCAPE_NODES: usize = (1 << ESCAPE_BITS) - 1;

/// Adaptive statistics of one integer residual stream: 33 probabilities, 66 bytes with
/// [`Prob`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ResidualModel<M: BitModel = Prob> {
    zero: M,
    sign: M,
    unary: [M; UNARY_CLASSES as usize],
    escape: [M; ESCAPE_NODES],
}

impl<M: BitModel + Default> Default for ResidualModel<M> {
    fn default() -> Self {
        let half = M::default();
        ResidualModel {
            zero: half,
            sign: half,
            unary: [half; UNARY_CLASSES as usize],
            escape: [half; ESCAPE_NODES],
        }
    }
}

impl<M: BitModel> ResidualModel<M> {
    /// Codes `e` through `coder` (the encoder codes `e`; the decoder ignores it) and returns
    /// the residual actually coded. Updates the model.
    #[inline]
    pub fn code<C: BinaryCoder>(&mut self, coder: &mut C, e: i32) -> i32 {
        if !coder.bit(&mut self.zero, e != 0) {
            return 0;
        }
        self.code_nonzero(coder, e)
    }

    /// Codes `e` as [`ResidualModel::code`] does, but with the magnitude less one split at
    /// bit `shift`: the part above through the model (as the magnitude of a residual one
    /// that much smaller), the `shift` bits below directly. For residuals that grow with a
    /// known scale, such as a distance travelled over a known time, the model then learns one
    /// distribution for every scale.
    #[inline]
    pub fn code_scaled<C: BinaryCoder>(&mut self, coder: &mut C, e: i32, shift: u32) -> i32 {
        if !coder.bit(&mut self.zero, e != 0) {
            return 0;
        }
        // The decoder's `e` is any value: every step wraps rather than overflows.
        let shift = shift.min(30);
        let below = e.unsigned_abs().wrapping_sub(1);
        let above = (below >> shift).wrapping_add(1) as i32;
        let above = self.code_nonzero(coder, if e < 0 { above.wrapping_neg() } else { above });
        let low = if shift > 0 { coder.direct(below & ((1 << shift) - 1), shift) } else { 0 };
        let high = above.unsigned_abs().wrapping_sub(1).wrapping_shl(shift);
        let magnitude = (high | low).wrapping_add(1) as i32;
        if above < 0 { magnitude.wrapping_neg() } else { magnitude }
    }

    /// Codes a residual known to be nonzero (its zero flag coded elsewhere, e.g. in a context
    /// the caller chooses): sign, class and offset. Returns the residual coded.
    #[inline]
    pub fn code_nonzero<C: BinaryCoder>(&mut self, coder: &mut C, e: i32) -> i32 {
        self.code_nonzero_in(coder, e, None)
    }

    /// Codes a nonzero residual as [`ResidualModel::code_nonzero`] does, but, given
    /// `Some((sign, negative))`, its sign with `sign`, the statistics of a context the caller
    /// chooses, as whether it differs from the expected sign (`negative`), so that a residual
    /// expected negative codes a likely 0 as one expected positive does.
    #[inline]
    pub fn code_nonzero_in<C: BinaryCoder>(
        &mut self,
        coder: &mut C,
        e: i32,
        sign: Option<(&mut M, bool)>,
    ) -> i32 {
        let magnitude = e.unsigned_abs();
        let (sign, flip) = sign.unwrap_or((&mut self.sign, false));
        let negative = coder.bit(sign, (e < 0) != flip) != flip;
        let class_in = 32 - magnitude.leading_zeros();
        let mut class = 1;
        while class <= UNARY_CLASSES
            && coder.bit(&mut self.unary[class as usize - 1], class_in > class)
        {
            class += 1;
        }
        if class > UNARY_CLASSES {
            let escaped = class_in.wrapping_sub(UNARY_CLASSES + 1);
            let mut node = 1usize;
            for level in (0..ESCAPE_BITS).rev() {
                let bit = coder.bit(&mut self.escape[node - 1], (escaped >> level) & 1 != 0);
                node = (node << 1) | usize::from(bit);
            }
            class = UNARY_CLASSES + 1 + (node - (1 << ESCAPE_BITS)) as u32;
        }
        let base = 1u32 << (class - 1);
        // Class 1, the commonest, has no offset bits.
        let offset =
            if class > 1 { coder.direct(magnitude.wrapping_sub(base), class - 1) } else { 0 };
        let magnitude = base.wrapping_add(offset) as i32;
        if negative { magnitude.wrapping_neg() } else { magnitude }
    }

    /// Ideal cost of coding `e` now, in cost units, without changing the model.
    #[inline]
    pub fn cost(&self, e: i32) -> u32 {
        let mut copy = *self;
        copy.observe(e)
    }

    /// Returns the ideal cost of `e` (as [`ResidualModel::cost`]) and then learns from it.
    #[inline]
    pub fn observe(&mut self, e: i32) -> u32 {
        let mut meter = CostMeter::default();
        self.code(&mut meter, e);
        meter.cost
    }

    /// Probabilities [`ResidualModel::store`] writes for residuals of at most `classes`
    /// magnitude classes.
    pub(crate) const fn used_probs(classes: u32) -> usize {
        let unary = if classes < UNARY_CLASSES { classes } else { UNARY_CLASSES };
        2 + unary as usize + if classes > UNARY_CLASSES { ESCAPE_NODES } else { 0 }
    }

    /// This model with the probabilities that residuals of at most `classes` magnitude
    /// classes never touch (see [`ResidualModel::used`]) at their starting values.
    pub(crate) fn within(mut self, classes: u32) -> Self
    where
        M: Default,
    {
        let (unary, escape) = Self::used(classes);
        self.unary[unary..].fill(M::default());
        self.escape[escape..].fill(M::default());
        self
    }

    /// The probabilities coding residuals of at most `classes` magnitude classes touches: the
    /// zero and sign flags, the unary positions up to `classes`, and the escape tree only past
    /// [`UNARY_CLASSES`] (the others keep their starting values).
    fn used(classes: u32) -> (usize, usize) {
        let unary = classes.min(UNARY_CLASSES) as usize;
        (unary, if classes > UNARY_CLASSES { ESCAPE_NODES } else { 0 })
    }
}

impl ResidualModel<Prob> {
    /// Writes the probabilities a residual of at most `classes` magnitude classes touches
    /// (see [`ResidualModel::used_probs`]) into the start of `out`; returns how many.
    #[inline]
    pub(crate) fn store(&self, classes: u32, out: &mut [u16]) -> usize {
        let (unary, escape) = Self::used(classes);
        let Some(out) = out.get_mut(..2 + unary + escape) else { return 0 };
        let (flags, rest) = out.split_at_mut(2);
        flags[0] = self.zero.p0() as u16;
        flags[1] = self.sign.p0() as u16;
        let (u, e) = rest.split_at_mut(unary);
        for (o, p) in u.iter_mut().zip(&self.unary) {
            *o = p.p0() as u16;
        }
        for (o, p) in e.iter_mut().zip(&self.escape) {
            *o = p.p0() as u16;
        }
        out.len()
    }

    /// Reads what [`ResidualModel::store`] wrote from the start of `words`; returns how many
    /// it read.
    #[inline]
    pub(crate) fn load(&mut self, classes: u32, words: &[u16]) -> usize {
        let (unary, escape) = Self::used(classes);
        let Some(words) = words.get(..2 + unary + escape) else { return 0 };
        let p = |w: &u16| Prob::from_p0(u32::from(*w));
        self.zero = p(&words[0]);
        self.sign = p(&words[1]);
        let (u, e) = words[2..].split_at(unary);
        for (m, w) in self.unary.iter_mut().zip(u) {
            *m = p(w);
        }
        for (m, w) in self.escape.iter_mut().zip(e) {
            *m = p(w);
        }
        words.len()
    }
}

impl<M: BitModel> ResidualModel<M> {
    /// Calls `f` with every probability of the model, in a fixed order.
    pub fn for_each_prob(&self, mut f: impl FnMut(u32)) {
        f(self.zero.p0());
        f(self.sign.p0());
        self.unary.iter().chain(self.escape.iter()).for_each(|m| f(m.p0()));
    }

    /// Learns from `e` without measuring or coding it.
    #[inline]
    pub fn learn(&mut self, e: i32) {
        self.code(&mut Learner, e);
    }
}

impl ResidualModel<Prob> {
    /// A model expecting residuals spread evenly over magnitudes below `2^bits`, negative with
    /// probability `negative / 2^15`: each then costs about `bits` bits from the start (a model
    /// at even odds costs about twice as many until it has learned).
    pub fn spread(bits: u32, negative: u32) -> ResidualModel {
        let mut m = ResidualModel {
            zero: Prob::new(PROB_ONE >> bits.min(PROB_BITS)),
            sign: Prob::new(PROB_ONE.saturating_sub(negative)),
            ..ResidualModel::default()
        };
        // Reaching class `c`, the residual stops there with probability 2^(c-1) / (2^bits -
        // 2^(c-1)), the share of class `c` among the magnitudes from `c` on.
        for (c, p) in (1..).zip(&mut m.unary) {
            let rest = bits.saturating_sub(c).min(PROB_BITS);
            *p = Prob::new(PROB_ONE / ((2 << rest) - 1));
        }
        m
    }

    /// Moves every probability to its running mean with `other`'s (see [`Prob::mean_in`]).
    pub fn mean_in(&mut self, other: &ResidualModel, count: &Count) {
        self.zero.mean_in(other.zero, count);
        self.sign.mean_in(other.sign, count);
        for (p, &o) in self.unary.iter_mut().zip(&other.unary) {
            p.mean_in(o, count);
        }
        for (p, &o) in self.escape.iter_mut().zip(&other.escape) {
            p.mean_in(o, count);
        }
    }

    /// Every probability of the model, in a fixed order (that of
    /// [`ResidualModel::for_each_prob`]).
    pub(crate) fn probs_mut(&mut self) -> impl Iterator<Item = &mut Prob> {
        [&mut self.zero, &mut self.sign].into_iter().chain(&mut self.unary).chain(&mut self.escape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::coder::{Decoder, Encoder};
    use crate::codec::prob::COST_ONE_BIT;

    #[test]
    fn extremes_round_trip() {
        let values =
            [0, 1, -1, 2, -3, 65535, -65536, i32::MAX, i32::MIN, i32::MIN + 1, 1 << 16, 1 << 20];
        let mut buf = [0u8; 256];
        let mut enc = Encoder::new(&mut buf);
        let mut model = ResidualModel::<Prob>::default();
        for &v in &values {
            assert_eq!(model.code(&mut enc, v), v);
        }
        let len = enc.finish().unwrap();
        let mut dec = Decoder::new(&buf[..len]);
        let mut model = ResidualModel::<Prob>::default();
        for &v in &values {
            assert_eq!(model.code(&mut dec, 0), v);
        }
    }

    #[test]
    fn scaled_residuals_round_trip_and_cost_alike_at_every_scale() {
        let values = [0, 1, -1, 2, -3, 4, 65535, -65536, i32::MAX, i32::MIN, i32::MIN + 1];
        let mut buf = [0u8; 512];
        let mut enc = Encoder::new(&mut buf);
        let mut model = ResidualModel::<Prob>::default();
        for shift in [0, 1, 3, 30, 31] {
            for &v in &values {
                assert_eq!(model.code_scaled(&mut enc, v, shift), v, "{v} << {shift}");
            }
        }
        let len = enc.finish().unwrap();
        // The decoder's residual argument is ignored, whatever it is.
        let mut dec = Decoder::new(&buf[..len]);
        let mut model = ResidualModel::<Prob>::default();
        for shift in [0, 1, 3, 30, 31] {
            for &v in &values {
                assert_eq!(model.code_scaled(&mut dec, i32::MIN, shift), v);
            }
        }
        // Residuals that grow with their scale cost what the unscaled ones do, once the
        // model has learnt them: the shifted-out bits are what the scale adds.
        let mut model = ResidualModel::<Prob>::default();
        let cost = |model: &mut ResidualModel, e: i32, shift: u32| {
            let mut meter = CostMeter::default();
            model.code_scaled(&mut meter, e, shift);
            meter.cost
        };
        for i in 0..400 {
            let shift = i % 4;
            cost(&mut model, (5 + i as i32 % 3) << shift, shift);
        }
        let (near, far) = (cost(&mut model.clone(), 6, 0), cost(&mut model.clone(), 6 << 3, 3));
        assert_eq!(far - near, 3 * COST_ONE_BIT, "{near} {far}");
    }

    #[test]
    fn a_sign_in_context_round_trips_and_learns_the_expected_sign() {
        let values = [5, -5, 300, -1, 1, -70000, 9];
        let mut buf = [0u8; 256];
        let mut enc = Encoder::new(&mut buf);
        let (mut model, mut sign) = (ResidualModel::<Prob>::default(), Prob::HALF);
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(model.code_nonzero_in(&mut enc, v, Some((&mut sign, i % 2 == 1))), v);
        }
        let len = enc.finish().unwrap();
        let mut dec = Decoder::new(&buf[..len]);
        let (mut model, mut sign) = (ResidualModel::<Prob>::default(), Prob::HALF);
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(model.code_nonzero_in(&mut dec, 0, Some((&mut sign, i % 2 == 1))), v);
        }
        // Residuals whose sign is always the expected one make the context's sign cheap,
        // whichever sign that is.
        let (mut model, mut sign) = (ResidualModel::<Prob>::default(), Prob::HALF);
        for i in 0..200 {
            let e = if i % 2 == 0 { 3 } else { -3 };
            model.code_nonzero_in(&mut crate::codec::coder::Learner, e, Some((&mut sign, e < 0)));
        }
        assert!(crate::codec::prob::bit_cost(&sign, false) < crate::codec::prob::COST_ONE_BIT / 8);
    }

    #[test]
    fn a_spread_model_codes_an_even_spread_at_about_its_bits_from_the_start() {
        // Every 97th magnitude below 2^12, non-negative: 12 bits each at most, where a
        // model at even odds pays about 24 for the largest.
        let m = ResidualModel::spread(12, 0);
        let values = (0..4096).step_by(97);
        let mean = values.clone().map(|e| m.cost(e)).sum::<u32>() / values.count() as u32;
        assert!(mean <= 12 * crate::codec::prob::COST_ONE_BIT, "{mean}");
        assert!(
            ResidualModel::<Prob>::default().cost(4000) > 20 * crate::codec::prob::COST_ONE_BIT
        );
        // Signed: half the values negative cost a bit more each.
        let signed = ResidualModel::spread(12, PROB_ONE / 2);
        assert!(signed.cost(-3000) <= 13 * crate::codec::prob::COST_ONE_BIT);
    }

    #[test]
    fn cost_does_not_learn() {
        let model = ResidualModel::<Prob>::default();
        let before = model;
        let c = model.cost(5);
        assert_eq!(model, before);
        // Zero flag, sign, three unary decisions (class 3) at even odds, and two offset bits.
        assert_eq!(c, 7 * crate::codec::prob::COST_ONE_BIT);
    }
}
