//! Learned statistics: one [`Model`] per scalar field plus a few for the packet's structure.
//!
//! A model set is part of a frame's state: the packet for frame `n` is coded starting from a
//! copy of the models stored with its baseline, and the result is stored with `n` on both
//! ends, so a lost packet only means its models are never used as a starting point.

use crate::codec::coder::{BinaryCoder, CostMeter, Metered};
use crate::codec::prob::{BitModel, Prob, mean_in};
use crate::codec::residual::ResidualModel;
use crate::model::predict::{MAX_SAMPLES, Predictor, PredictorTable};
use crate::schema::{Coding, Field, MAX_CANDIDATES, Schema};

/// On every `LEARN_PERIOD`-th value of a field, the running costs of all its candidates are
/// updated and the non-chosen candidates' models learn (both ends apply this identically);
/// the chosen candidate's model learns from every value it codes.
pub const LEARN_PERIOD: u32 = 64;
/// The running cost of a candidate is an average over roughly `2^COST_DECAY` observations.
pub const COST_DECAY: u32 = 4;
/// A candidate counts as tied with the cheapest if it costs at most this much more per value
/// (an eighth of a bit, in cost units) plus a sixteenth of the cheapest cost; ties go to the
/// earlier candidate, so a simpler predictor keeps its place unless another is clearly better.
pub const TIE_MARGIN: i32 = 32;

/// Activity contexts of a candidate's zero flag.
pub const CONTEXTS: usize = 4;

/// The activity context of a value predicted by a predictor of `order` samples: how wrong
/// the same order was one step back, measured by the entity's finite difference of that
/// order (the newest sample against what the older ones extrapolate, taking the samples as
/// evenly spaced; with gaps in the history it is a rougher measure, which measured better than
/// exact gapped extrapolation). 0: exact, 1: off by under 8 steps, 2: under 64, 3: more, or
/// too little history to tell.
#[inline(always)]
fn activity(field: &Field, history: &History<'_>, order: usize) -> usize {
    if order == 0 || history.len <= order {
        return CONTEXTS - 1;
    }
    let s = &history.samples;
    let d = |a: usize, b: usize| {
        if field.wraps {
            i64::from(field.residual(s[a], s[b]))
        } else {
            i64::from(s[a]) - i64::from(s[b])
        }
    };
    let miss = match order {
        1 => d(0, 1),
        2 => d(0, 1) - d(1, 2),
        _ => d(0, 1) - 2 * d(1, 2) + d(2, 3),
    }
    .unsigned_abs();
    usize::from(miss != 0) + usize::from(miss >= 8) + usize::from(miss >= 64)
}

/// Statistics of one scalar field (or, for the slots described in [`ModelLayout`], of one
/// part of the packet structure): 484 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Model {
    /// One residual model per candidate predictor, in the field's candidate order.
    residuals: [ResidualModel; MAX_CANDIDATES],
    /// Running average of each candidate's ideal cost per value, in cost units.
    costs: [i32; MAX_CANDIDATES],
    /// Each candidate's zero flag per activity context (see [`activity`]); the rest of its
    /// residual is coded with its residual model.
    zero: [[Prob; CONTEXTS]; MAX_CANDIDATES],
    /// Residuals of the zero predictor, used while an entity has no history.
    entry: ResidualModel,
    /// Binary decisions: transition flags of categorical fields, entity and packet flags.
    flags: [Prob; 8],
    /// Values seen, for scheduling the learning of losing candidates.
    tick: u32,
    /// The candidate [`Model::refresh_choice`] picks for each history length `0..=MAX_SAMPLES`
    /// ([`NO_CHOICE`] if none is usable), kept in step with `costs`.
    choice: [u8; MAX_SAMPLES + 1],
}

/// Marks a history length for which no candidate is usable.
const NO_CHOICE: u8 = u8::MAX;

impl Default for Model {
    fn default() -> Self {
        Model {
            residuals: [ResidualModel::default(); MAX_CANDIDATES],
            costs: [0; MAX_CANDIDATES],
            zero: [[Prob::HALF; CONTEXTS]; MAX_CANDIDATES],
            entry: ResidualModel::default(),
            flags: [Prob::HALF; 8],
            tick: 0,
            choice: [NO_CHOICE; MAX_SAMPLES + 1],
        }
    }
}

#[inline]
fn average_in(avg: &mut i32, cost: u32) {
    let cost = cost.min(i32::MAX as u32 >> 1) as i32;
    *avg += (cost - *avg) >> COST_DECAY;
}

/// The prediction chosen for one numeric field of one entity, before its residual is coded.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Prediction {
    /// Index of the chosen candidate, or `None` when none had enough history.
    pub candidate: Option<u8>,
    /// The predicted raw value.
    pub value: i32,
}

/// What the predictors of one field of one entity may use.
#[derive(Clone, Copy, Debug)]
pub(crate) struct History<'t> {
    /// The packet's predictor vectors.
    pub table: &'t PredictorTable,
    /// The field's values at the history frames, newest first; entries past `len` are
    /// unspecified and only ever meet zero weights.
    pub samples: [i32; MAX_SAMPLES],
    /// Number of history samples.
    pub len: usize,
}

impl Model {
    /// A cold model for a field with these candidate predictors.
    pub fn for_candidates(candidates: &[Predictor]) -> Model {
        let mut m = Model::default();
        m.refresh_choice(candidates);
        m
    }

    /// Recomputes the choice for every history length from the running costs: among the
    /// candidates that length allows, the first within the tie margin of the cheapest.
    #[allow(clippy::needless_range_loop)] // plain indexing unrolls best
    fn refresh_choice(&mut self, candidates: &[Predictor]) {
        let n = candidates.len().min(MAX_CANDIDATES);
        let mut needs = [usize::MAX; MAX_CANDIDATES];
        for (need, p) in needs.iter_mut().zip(candidates) {
            *need = p.samples();
        }
        for k in 0..=MAX_SAMPLES {
            let mut min = i32::MAX;
            for i in 0..n {
                if needs[i] <= k && self.costs[i] < min {
                    min = self.costs[i];
                }
            }
            let limit = min.saturating_add(TIE_MARGIN + (min >> 4));
            self.choice[k] = (0..n)
                .find(|&i| needs[i] <= k && self.costs[i] <= limit)
                .map_or(NO_CHOICE, |i| i as u8);
        }
    }

    /// Picks the candidate with the lowest running cost among those the history allows
    /// (near-ties, see [`TIE_MARGIN`], go to the earlier candidate) and computes its
    /// prediction. With no usable candidate the newest sample is held (or 0 without history).
    #[inline(always)]
    pub(crate) fn predict(
        &self,
        field: &Field,
        candidates: &[Predictor],
        history: &History<'_>,
    ) -> Prediction {
        let choice = self.choice[history.len.min(MAX_SAMPLES)];
        match candidates.get(usize::from(choice)).and_then(|&p| history.table.get(p)) {
            Some(v) => Prediction {
                candidate: Some(choice),
                value: v.predict_padded(field, &history.samples),
            },
            None => Prediction {
                candidate: None,
                value: if history.len > 0 { history.samples[0] } else { field.clamp(0) },
            },
        }
    }

    /// Codes the residual of `target` against `prediction`, learns from it, and returns the
    /// value coded (the decoder passes any `target`).
    #[inline(always)]
    pub(crate) fn code_numeric<C: BinaryCoder>(
        &mut self,
        coder: &mut C,
        field: &Field,
        candidates: &[Predictor],
        history: &History<'_>,
        prediction: Prediction,
        target: i32,
    ) -> i32 {
        let residual = field.coded_residual(target, prediction.value);
        let Some(chosen) = prediction.candidate.map(usize::from) else {
            let e = self.entry.code(coder, residual);
            return field.decoded_value(prediction.value, e);
        };
        self.tick = self.tick.wrapping_add(1);
        if !self.tick.is_multiple_of(LEARN_PERIOD) {
            let e = self.code_residual(coder, field, candidates, history, chosen, residual);
            return field.decoded_value(prediction.value, e);
        }
        self.code_and_compare(coder, field, candidates, history, prediction.value, chosen, residual)
    }

    /// The learning step of [`Model::code_numeric`]: codes `residual` with candidate
    /// `chosen` while measuring it, then updates every usable candidate's running cost (and
    /// the other candidates' residual models), and the choice.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn code_and_compare<C: BinaryCoder>(
        &mut self,
        coder: &mut C,
        field: &Field,
        candidates: &[Predictor],
        history: &History<'_>,
        predicted: i32,
        chosen: usize,
        residual: i32,
    ) -> i32 {
        let mut meter = Metered::new(coder);
        let e = self.code_residual(&mut meter, field, candidates, history, chosen, residual);
        let value = field.decoded_value(predicted, e);
        average_in(&mut self.costs[chosen.min(MAX_CANDIDATES - 1)], meter.cost);
        for (i, p) in candidates.iter().enumerate().take(MAX_CANDIDATES) {
            if i == chosen || p.samples() > history.len {
                continue;
            }
            if let Some(v) = history.table.get(*p) {
                let r = field.coded_residual(value, v.predict_padded(field, &history.samples));
                let mut meter = CostMeter::default();
                self.code_residual(&mut meter, field, candidates, history, i, r);
                average_in(&mut self.costs[i], meter.cost);
            }
        }
        self.refresh_choice(candidates);
        value
    }

    /// Codes residual `e` of candidate `i`: its zero flag in the activity context of the
    /// candidate's order, then the rest with the candidate's residual model.
    #[inline(always)]
    fn code_residual<C: BinaryCoder>(
        &mut self,
        coder: &mut C,
        field: &Field,
        candidates: &[Predictor],
        history: &History<'_>,
        i: usize,
        e: i32,
    ) -> i32 {
        let i = i.min(MAX_CANDIDATES - 1);
        let order = candidates.get(i).map_or(0, |p| p.samples());
        let zero = &mut self.zero[i][activity(field, history, order)];
        if !coder.bit(zero, e != 0) {
            return 0;
        }
        self.residuals[i].code_nonzero(coder, e)
    }

    /// Codes a categorical value: whether it differs from `previous`, and if so which value
    /// it is; with no previous value the value itself.
    #[inline]
    pub(crate) fn code_categorical<C: BinaryCoder>(
        &mut self,
        coder: &mut C,
        field: &Field,
        previous: Option<i32>,
        target: i32,
    ) -> i32 {
        let Some(prev) = previous else {
            let e = self.entry.code(coder, field.residual(target, field.min));
            return field.reconstruct(field.min, e);
        };
        let above = i64::from(prev) - i64::from(field.min);
        let context = above.clamp(0, self.flags.len() as i64 - 1) as usize;
        if !coder.bit(&mut self.flags[context], target != prev) {
            return prev;
        }
        if field.span() == 2 {
            return field.reconstruct(prev, 1);
        }
        let e = self.residuals[0].code(coder, field.residual(target, prev));
        field.reconstruct(prev, e)
    }

    /// Codes one of the packet-structure integers kept in residual model `slot` (0..5).
    #[inline]
    pub(crate) fn code_count<C: BinaryCoder>(
        &mut self,
        coder: &mut C,
        slot: usize,
        value: i32,
    ) -> i32 {
        self.residuals[slot % MAX_CANDIDATES].code(coder, value)
    }

    /// Codes a structural flag kept in flag `slot` (0..8).
    #[inline]
    pub(crate) fn code_flag<C: BinaryCoder>(
        &mut self,
        coder: &mut C,
        slot: usize,
        bit: bool,
    ) -> bool {
        let n = self.flags.len();
        coder.bit(&mut self.flags[slot % n], bit)
    }

    /// The probability state of structural flag `slot` (see [`Model::code_flag`]).
    #[inline]
    pub(crate) fn flag(&self, slot: usize) -> Prob {
        self.flags[slot % self.flags.len()]
    }

    /// Moves this model, the mean of `count − 1` models, to the mean of those and `other`:
    /// every probability, running cost and the value count (see [`Prob::mean_in`]); the
    /// choice of predictor then follows the mean costs. The batched policy
    /// ([`ModelPolicy::Batched`](crate::model::ModelPolicy::Batched)) builds a batch's model so.
    pub fn mean_in(&mut self, other: &Model, count: u32, candidates: &[Predictor]) {
        for (r, o) in self.residuals.iter_mut().zip(&other.residuals) {
            r.mean_in(o, count);
        }
        self.entry.mean_in(&other.entry, count);
        for (z, &o) in self.zero.iter_mut().flatten().zip(other.zero.iter().flatten()) {
            z.mean_in(o, count);
        }
        for (f, &o) in self.flags.iter_mut().zip(&other.flags) {
            f.mean_in(o, count);
        }
        for (c, &o) in self.costs.iter_mut().zip(&other.costs) {
            *c = mean_in(i64::from(*c), i64::from(o), count) as i32;
        }
        self.tick = mean_in(i64::from(self.tick), i64::from(other.tick), count) as u32;
        self.refresh_choice(candidates);
    }

    /// The candidate a field with full history would use now, as an index into its
    /// candidate list.
    pub fn preferred(&self) -> Option<usize> {
        let choice = self.choice[MAX_SAMPLES];
        (choice != NO_CHOICE).then_some(usize::from(choice))
    }

    /// Running average cost of each candidate, in cost units per value.
    pub fn candidate_costs(&self) -> [i32; MAX_CANDIDATES] {
        self.costs
    }

    /// Folds the model into a 64-bit digest (for checking that two ends are in step).
    pub fn digest(&self, mut h: u64) -> u64 {
        let mut mix = |v: u64| h = (h ^ v).wrapping_mul(0x0000_0100_0000_01b3);
        let mut probs = |m: &ResidualModel| m.for_each_prob(|p| mix(u64::from(p)));
        for r in &self.residuals {
            probs(r);
        }
        probs(&self.entry);
        for z in self.zero.iter().flatten() {
            mix(u64::from(z.p0()));
        }
        for c in self.costs {
            mix(c as u32 as u64);
        }
        for f in &self.flags {
            mix(u64::from(f.p0()));
        }
        mix(u64::from(self.tick));
        for c in self.choice {
            mix(u64::from(c));
        }
        h
    }
}

/// Where each model lives in a model set of one frame.
///
/// A set holds, in order: one packet-structure model, then for each class one entity-level
/// model (its flags hold the "entity unchanged" decision) followed by one model per field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelLayout {
    /// Models per frame.
    pub len: usize,
}

impl ModelLayout {
    /// The layout for `schema`.
    pub const fn new(schema: &Schema) -> ModelLayout {
        ModelLayout { len: 1 + schema.classes.len() + schema.total_fields }
    }

    /// Index of the packet-structure model.
    pub const PACKET: usize = 0;

    /// Resets `models` (one frame's set, `len` long) to the cold state of `schema`.
    pub fn reset(schema: &Schema, models: &mut [Model]) {
        let mut slots = models.iter_mut();
        if let Some(packet) = slots.next() {
            *packet = Model::default();
        }
        for class in schema.classes {
            if let Some(entity) = slots.next() {
                *entity = Model::default();
            }
            for (field, model) in class.fields.iter().zip(slots.by_ref()) {
                *model = match field.coding {
                    Coding::Numeric(candidates) => Model::for_candidates(candidates),
                    Coding::Categorical => Model::default(),
                };
            }
        }
    }

    /// Moves `acc` (a set, the mean of `count − 1` sets) to the mean of those and `set` (see
    /// [`Model::mean_in`]).
    pub fn mean_in(schema: &Schema, acc: &mut [Model], set: &[Model], count: u32) {
        let mut pairs = acc.iter_mut().zip(set);
        if let Some((a, s)) = pairs.next() {
            a.mean_in(s, count, &[]);
        }
        for class in schema.classes {
            if let Some((a, s)) = pairs.next() {
                a.mean_in(s, count, &[]);
            }
            for (field, (a, s)) in class.fields.iter().zip(pairs.by_ref()) {
                let candidates = match field.coding {
                    Coding::Numeric(candidates) => candidates,
                    Coding::Categorical => &[],
                };
                a.mean_in(s, count, candidates);
            }
        }
    }

    /// Index of the entity-level model of `class`; its fields follow it.
    pub fn class_base(schema: &Schema, class: usize) -> usize {
        1 + class + schema.model_offset(class)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_size_is_as_documented() {
        // docs/protocol.md and the per-client memory figures rely on this.
        assert_eq!(core::mem::size_of::<Model>(), 484);
    }

    #[test]
    fn activity_measures_how_wrong_the_order_was_one_step_back() {
        const F: Field = Field::numeric("f", -1000, 1000, false, &[Predictor::Hold]);
        const A: Field = Field::numeric("a", 0, 1023, true, &[Predictor::Hold]);
        let table = crate::model::predict::EVENLY_SPACED;
        let h = |samples: [i32; MAX_SAMPLES], len| History { table: &table, samples, len };
        // Constant velocity 10: hold missed by 10, linear and quadratic were exact.
        let line = h([40, 30, 20, 10], 4);
        assert_eq!(activity(&F, &line, 1), 2);
        assert_eq!(activity(&F, &line, 2), 0);
        assert_eq!(activity(&F, &line, 3), 0);
        // Constant acceleration 2: linear missed by 2, quadratic was exact.
        let parabola = h([12, 6, 2, 0], 4);
        assert_eq!(activity(&F, &parabola, 2), 1);
        assert_eq!(activity(&F, &parabola, 3), 0);
        // Not enough history for the order, or no prediction: the widest context.
        assert_eq!(activity(&F, &h([5, 5, 0, 0], 2), 2), CONTEXTS - 1);
        assert_eq!(activity(&F, &line, 0), CONTEXTS - 1);
        // Wrapping fields measure across the seam.
        assert_eq!(activity(&A, &h([3, 1020, 1013, 1006], 4), 2), 0);
    }

    #[test]
    fn cold_choice_prefers_the_first_usable_candidate() {
        let m = Model::for_candidates(&[Predictor::Linear, Predictor::Hold]);
        assert_eq!(m.choice[0], NO_CHOICE);
        assert_eq!(m.choice[1], 1, "only hold is usable with one sample");
        assert_eq!(m.choice[2], 0);
        assert_eq!(m.preferred(), Some(0));
    }
}
