//! Learned statistics: one [`Model`] per scalar field plus a few for the packet's structure.
//!
//! A model set is part of a frame's state: the packet for frame `n` is coded starting from a
//! copy of the models stored with its baseline, and the result is stored with `n` on both
//! ends, so a lost packet only means its models are never used as a starting point.

use crate::codec::coder::{BinaryCoder, CostMeter, Metered};
use crate::codec::prob::{BitModel, Count, PROB_ONE, Prob};
use crate::codec::residual::ResidualModel;
use crate::model::motion::{self, SIGNS};
use crate::model::predict::{MAX_SAMPLES, Predictor, PredictorTable};
use crate::schema::{Class, Coding, Field, MAX_CANDIDATES, Schema};

/// On every `LEARN_PERIOD`-th value of a field, the running costs of all its candidates are
/// updated and the non-chosen candidates' models learn (both ends apply this identically);
/// the chosen candidate's model learns from every value it codes.
pub const LEARN_PERIOD: u32 = 32;
/// The running cost of a candidate is an average over roughly `2^COST_DECAY` observations.
pub const COST_DECAY: u32 = 4;
/// A candidate counts as tied with the cheapest if it costs at most this much more per value
/// (an eighth of a bit, in cost units) plus a sixteenth of the cheapest cost; ties go to the
/// earlier candidate, so a simpler predictor keeps its place unless another is clearly better.
pub const TIE_MARGIN: i32 = 32;

/// Activity contexts of a candidate's zero flag.
pub const CONTEXTS: usize = 4;

/// Neighbour contexts of a candidate's zero flag: whether the entity's previous field coded in
/// the same update missed its prediction ([`neighbour`]).
pub(crate) const NEIGHBOURS: usize = 2;

/// The neighbour context `value` of `field`, coded against `prediction`, gives the next field
/// of its entity: whether its coded residual is nonzero, which for a field without tolerance
/// (values and predictions are in range) is whether it differs from the prediction. Fields of
/// an entity move together: a position whose `x` missed its prediction often misses in `y`
/// too. (Telling small misses from large ones measured no better.)
#[inline(always)]
pub(crate) fn neighbour(field: &Field, value: i32, prediction: i32) -> usize {
    let missed = match field.coding {
        Coding::Numeric(_) if field.tolerance > 0 => field.coded_residual(value, prediction) != 0,
        _ => value != prediction,
    };
    usize::from(missed)
}

/// A candidate as a model runs it: a predictor, and whether it is the least-squares fit
/// through every history sample ([`PredictorTable::fitted`]) rather than the exact
/// polynomial through the samples it needs.
#[derive(Clone, Copy, Debug)]
struct Variant {
    predictor: Predictor,
    fit: bool,
}

impl Variant {
    /// Candidate `i` of a field with `candidates`: the listed ones first, then, while there is
    /// room among [`MAX_CANDIDATES`], the fits of the listed line and parabola.
    #[inline(always)]
    fn of(candidates: &[Predictor], i: usize) -> Option<Variant> {
        if let Some(&predictor) = candidates.get(i) {
            return Some(Variant { predictor, fit: false });
        }
        let mut fits =
            candidates.iter().filter(|p| matches!(p, Predictor::Linear | Predictor::Quadratic));
        let predictor = *fits.nth(i.checked_sub(candidates.len())?)?;
        (i < MAX_CANDIDATES).then_some(Variant { predictor, fit: true })
    }

    /// The order of the variant's activity context: the samples its polynomial needs.
    #[inline(always)]
    fn order(self) -> usize {
        self.predictor.samples()
    }

    /// History samples the variant needs: one more for a fit.
    #[inline(always)]
    fn samples(self) -> usize {
        self.predictor.samples() + usize::from(self.fit)
    }

    /// The prediction of the variant from `history`, if it has enough samples (and, for a
    /// contract, if the contract predicted).
    #[inline(always)]
    fn value(self, field: &Field, history: &History<'_>) -> Option<i32> {
        if self.fit {
            let v = history.table.fitted(self.predictor, history.len)?;
            Some(v.predict_padded(field, history.samples))
        } else {
            history.value_of(field, self.predictor)
        }
    }
}

/// Every candidate a model of a field with `candidates` runs ([`Variant::of`]), in order.
#[inline(always)]
fn variants(candidates: &[Predictor]) -> impl Iterator<Item = Variant> + '_ {
    (0..MAX_CANDIDATES).map_while(|i| Variant::of(candidates, i))
}

/// Candidates the model of a field with `candidates` runs: the listed ones and the fits after
/// them ([`fitted_candidates`]).
pub(crate) fn runs(candidates: &[Predictor]) -> usize {
    let fits = candidates.iter().filter(|p| matches!(p, Predictor::Linear | Predictor::Quadratic));
    let listed = candidates.len().min(MAX_CANDIDATES);
    listed + fits.count().min(MAX_CANDIDATES - listed)
}

/// The predictors whose least-squares fits ([`PredictorTable::fitted`]) the model of a field
/// with `candidates` runs after them, in order: its candidates `candidates.len()..` (the
/// indices [`Model::preferred`] and the probe report).
pub fn fitted_candidates(candidates: &[Predictor]) -> impl Iterator<Item = Predictor> + '_ {
    variants(candidates).skip(candidates.len()).map(|v| v.predictor)
}

/// Statistics of one scalar field (or, for the slots described in [`ModelLayout`], of one
/// part of the packet structure): 592 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Model {
    /// One residual model per candidate predictor, in the field's candidate order.
    residuals: [ResidualModel; MAX_CANDIDATES],
    /// Running average of each candidate's ideal cost per value, in cost units.
    costs: [i32; MAX_CANDIDATES],
    /// Each candidate's zero flag per activity context (see [`motion::activity`]) and
    /// neighbour context (see [`neighbour`]); the rest of its residual is coded with its
    /// residual model, but for the sign where the history gives it a context.
    zero: [[Prob; CONTEXTS * NEIGHBOURS]; MAX_CANDIDATES],
    /// Each candidate's sign, relative to the history's newest step, per sign context (see
    /// [`motion::sign`]).
    signs: [[Prob; SIGNS]; MAX_CANDIDATES],
    /// Residuals of the zero predictor, used while an entity has no history.
    entry: ResidualModel,
    /// Residuals of an entering entity's value against the same field of an earlier entity of
    /// its class entering in the packet (see [`Model::code_entry`]).
    step: ResidualModel,
    /// Residuals of a young entity's values against its entry, scaled by the entry's age
    /// (see [`Model::code_young`]).
    young: ResidualModel,
    /// Running average of how much more a value costs against an earlier entering entity than
    /// against the zero predictor, in cost units (negative: the earlier entity is the better
    /// predictor).
    step_lead: i32,
    /// Running average of how much more a young value costs coded scaled by its entry's age
    /// than plain (negative: scaled is the cheaper; see [`Model::code_young`]).
    young_lead: i32,
    /// Binary decisions: transition flags of categorical fields, entity and packet flags.
    flags: [Prob; Model::FLAGS],
    /// Values seen, for scheduling the learning of losing candidates.
    tick: u32,
    /// The candidate [`Model::refresh_choice`] picks for each history length `0..=MAX_SAMPLES`
    /// ([`NO_CHOICE`] if none is usable), kept in step with `costs`.
    choice: [u8; MAX_SAMPLES + 1],
}

/// Integers [`Model::code_count`] keeps.
pub(crate) const COUNT_SLOTS: usize = MAX_CANDIDATES + 2;

/// Magnitude classes a stored packet model keeps of its counts (see [`Model::store_counts`]):
/// every count a packet codes is below `2^16` (handle gaps and classes, ages and distances in
/// frames), and one that is not costs a little more to code, as the model of its larger
/// classes restarts from even odds, on both ends alike.
const COUNT_CLASSES: u32 = 16;

/// Words of a stored model's choice of candidate for each history length, two to a word.
const CHOICE_WORDS: usize = (MAX_SAMPLES + 2) / 2;

/// What a stored model keeps (see [`Model::store`]); every other part stays as
/// [`Model::default`] has it. Numeric and categorical fields use different parts, and a
/// field's residuals never reach past its raw width in magnitude classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Kept {
    /// Candidates whose residual models are kept (the first `used`).
    pub used: usize,
    /// Magnitude classes kept of each residual model (the candidates', the step's, the
    /// entry's and the young entities').
    pub classes: u32,
    /// Whether the prediction state is kept: the candidates' running costs and zero flags,
    /// the value count and the choice of candidate (a numeric field's).
    pub predicts: bool,
    /// Whether the flags are kept (a categorical field's transition flags).
    pub flags: bool,
}

impl Kept {
    /// Every part of a model.
    pub(crate) const WHOLE: Kept =
        Kept { used: MAX_CANDIDATES, classes: u32::BITS, predicts: true, flags: true };

    /// What a model of `field` uses: for a numeric field the parts of the candidates its
    /// model runs (see [`runs`]), for a categorical field its transition residuals (over
    /// more than two values) and flags; in either, residuals of the field's raw width.
    pub(crate) fn of(field: &Field) -> Kept {
        let classes = field.raw_bits();
        match field.coding {
            Coding::Numeric(candidates) => {
                Kept { used: runs(candidates), classes, predicts: true, flags: false }
            }
            Coding::Categorical => {
                Kept { used: usize::from(field.span() > 2), classes, predicts: false, flags: true }
            }
        }
    }
}

/// The low bits of a young residual's magnitude coded directly for an entry `age` frames old
/// (see [`Model::code_young`]): ⌊log2(age · √2)⌋, so 0 at one frame, 1 at two, 2 at three to
/// five, 3 at six to eleven, 4 at twelve to twenty-two (a young entity's entry is at most 32
/// frames old; ages past 2^16 count as 2^16).
fn young_shift(age: u32) -> u32 {
    let twice_squared = 2 * u64::from(age.clamp(1, 1 << 16)).pow(2);
    (u64::BITS - 1 - twice_squared.leading_zeros()) / 2
}

/// Probabilities of one residual model.
const RESIDUAL_PROBS: usize = 33;

/// Probabilities in a model: the residual models' (candidates', entry's, step's and young
/// entities'), the zero flags' and the flags'.
const PROBS: usize = (MAX_CANDIDATES + 3) * RESIDUAL_PROBS
    + MAX_CANDIDATES * (CONTEXTS * NEIGHBOURS + SIGNS)
    + Model::FLAGS;

/// The first bytes of a prior (see [`ModelLayout::write_prior`]).
const PRIOR_MAGIC: &[u8; 4] = b"nsp6";
/// Bytes before a prior's models: magic, schema hash, model count.
const PRIOR_HEADER: usize = 16;

/// Marks a history length for which no candidate is usable.
const NO_CHOICE: u8 = u8::MAX;

impl Default for Model {
    fn default() -> Self {
        Model {
            residuals: [ResidualModel::default(); MAX_CANDIDATES],
            costs: [0; MAX_CANDIDATES],
            zero: [[Prob::HALF; CONTEXTS * NEIGHBOURS]; MAX_CANDIDATES],
            signs: [[Prob::HALF; SIGNS]; MAX_CANDIDATES],
            entry: ResidualModel::default(),
            step: ResidualModel::default(),
            young: ResidualModel::default(),
            step_lead: 0,
            young_lead: 0,
            flags: [Prob::HALF; Model::FLAGS],
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
    pub samples: &'t [i32; MAX_SAMPLES],
    /// Number of history samples.
    pub len: usize,
    /// The contract's prediction of the field, if the schema has a contract and it ran.
    pub contract: Option<i32>,
    /// The neighbour context of the value (see [`neighbour`]).
    pub neighbour: usize,
}

impl History<'_> {
    /// The prediction of candidate `p`, if the history allows it.
    #[inline(always)]
    fn value_of(&self, field: &Field, p: Predictor) -> Option<i32> {
        match self.table.get(p) {
            // Hold's vector weighs the newest sample alone: no dot product needed.
            Some(_) if p == Predictor::Hold => Some(field.clamp(i64::from(self.samples[0]))),
            Some(v) => Some(v.predict_padded(field, self.samples)),
            None if p == Predictor::Contract => self.contract,
            None => None,
        }
    }
}

/// The running cost a candidate is charged when it cannot predict a value its order allows
/// (a contract missing or failed): 32 bits, in cost units.
const UNAVAILABLE_COST: u32 = 32 << crate::codec::prob::COST_FRAC_BITS;

impl Model {
    /// A cold model for a field with these candidate predictors.
    pub fn for_candidates(candidates: &[Predictor]) -> Model {
        let mut m = Model::default();
        m.refresh_choice(candidates);
        m
    }

    /// A cold model for `field`: its candidates', with the zero predictor's residual model
    /// expecting values spread evenly over the field's range (see [`ResidualModel::spread`]),
    /// so that an entering value costs about its raw bits from the start.
    pub fn for_field(field: &Field) -> Model {
        let (candidates, zero) = match field.coding {
            Coding::Numeric(candidates) => (candidates, field.clamp(0)),
            Coding::Categorical => (&[][..], field.min),
        };
        let mut m = Model::for_candidates(candidates);
        let below = (i64::from(zero) - i64::from(field.min)) as u64;
        let above = (i64::from(field.max) - i64::from(zero)) as u64;
        let bits = 64 - below.max(above).leading_zeros();
        // The share of values below the zero prediction, if they were spread evenly.
        let negative =
            (u128::from(below) * u128::from(PROB_ONE) / u128::from(below + above).max(1)) as u32;
        m.entry = ResidualModel::spread(bits, negative).within(field.raw_bits());
        m
    }

    /// Recomputes the choice for every history length from the running costs: among the
    /// candidates that length allows, the first within the tie margin of the cheapest.
    #[allow(clippy::needless_range_loop)] // plain indexing unrolls best
    fn refresh_choice(&mut self, candidates: &[Predictor]) {
        // Samples each candidate needs; past the last candidate, more than any history has.
        let mut needs = [usize::MAX; MAX_CANDIDATES];
        for (need, v) in needs.iter_mut().zip(variants(candidates)) {
            *need = v.samples();
        }
        for k in 0..=MAX_SAMPLES {
            let mut min = i32::MAX;
            for i in 0..MAX_CANDIDATES {
                if needs[i] <= k && self.costs[i] < min {
                    min = self.costs[i];
                }
            }
            let limit = min.saturating_add(TIE_MARGIN + (min >> 4));
            self.choice[k] = (0..MAX_CANDIDATES)
                .find(|&i| needs[i] <= k && self.costs[i] <= limit)
                .map_or(NO_CHOICE, |i| i as u8);
        }
    }

    /// Picks the candidate with the lowest running cost among those the history allows
    /// (near-ties, see [`TIE_MARGIN`], go to the earlier candidate) and computes its
    /// prediction; if that candidate cannot predict (a contract missing or failed), the first
    /// one that can. With no usable candidate the newest sample is held (or 0 without history).
    #[inline(always)]
    pub(crate) fn predict(
        &self,
        field: &Field,
        candidates: &[Predictor],
        history: &History<'_>,
    ) -> Prediction {
        let choice = self.choice[history.len.min(MAX_SAMPLES)];
        match Variant::of(candidates, usize::from(choice)).and_then(|v| v.value(field, history)) {
            Some(value) => Prediction { candidate: Some(choice), value },
            None => Self::fallback(field, candidates, history),
        }
    }

    /// Whether [`Model::predict`] from `k` samples that all hold one value (with predictor
    /// vectors `table`) predicts that value: the candidate it picks for `k` samples is a
    /// polynomial that can predict from them, whose prediction is the newest sample plus a
    /// weighted sum of differences from it, here all 0.
    #[inline(always)]
    pub(crate) fn predicts_still(
        &self,
        candidates: &[Predictor],
        table: &PredictorTable,
        k: usize,
    ) -> bool {
        let choice = self.choice[k.min(MAX_SAMPLES)];
        Variant::of(candidates, usize::from(choice)).is_some_and(|v| match v.predictor {
            Predictor::Zero | Predictor::Contract => false,
            p if v.fit => table.fitted(p, k).is_some(),
            p => table.get(p).is_some(),
        })
    }

    /// The prediction of the first candidate that can predict from `history`, else of none.
    #[inline(never)]
    #[cold]
    fn fallback(field: &Field, candidates: &[Predictor], history: &History<'_>) -> Prediction {
        let usable = |(i, v): (usize, Variant)| {
            let value = (v.samples() <= history.len).then(|| v.value(field, history))?;
            Some(Prediction { candidate: Some(i as u8), value: value? })
        };
        variants(candidates).enumerate().find_map(usable).unwrap_or(Prediction {
            candidate: None,
            value: if history.len > 0 { history.samples[0] } else { field.clamp(0) },
        })
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
            let order = Variant::of(candidates, chosen).map_or(0, Variant::order);
            let e = self.code_residual(coder, field, history, chosen, order, residual);
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
        let order = Variant::of(candidates, chosen).map_or(0, Variant::order);
        let mut meter = Metered::new(coder);
        let e = self.code_residual(&mut meter, field, history, chosen, order, residual);
        let value = field.decoded_value(predicted, e);
        average_in(&mut self.costs[chosen.min(MAX_CANDIDATES - 1)], meter.cost);
        for (i, variant) in variants(candidates).enumerate() {
            if i == chosen || variant.samples() > history.len {
                continue;
            }
            match variant.value(field, history) {
                Some(predicted) => {
                    let r = field.coded_residual(value, predicted);
                    let mut meter = CostMeter::default();
                    self.code_residual(&mut meter, field, history, i, variant.order(), r);
                    average_in(&mut self.costs[i], meter.cost);
                }
                None if variant.predictor == Predictor::Contract => {
                    average_in(&mut self.costs[i], UNAVAILABLE_COST);
                }
                None => {}
            }
        }
        self.refresh_choice(candidates);
        value
    }

    /// Codes residual `e` of candidate `i`: its zero flag in the activity context of the
    /// candidate's `order` ([`Variant::order`]) and the history's neighbour context, then the
    /// rest with the candidate's residual model.
    #[inline(always)]
    fn code_residual<C: BinaryCoder>(
        &mut self,
        coder: &mut C,
        field: &Field,
        history: &History<'_>,
        i: usize,
        order: usize,
        e: i32,
    ) -> i32 {
        let i = i.min(MAX_CANDIDATES - 1);
        let context = motion::activity(field, history, order) + CONTEXTS * history.neighbour;
        let zero = &mut self.zero[i][context % (CONTEXTS * NEIGHBOURS)];
        if !coder.bit(zero, e != 0) {
            return 0;
        }
        let residual = &mut self.residuals[i];
        let signs = &mut self.signs[i];
        let sign = motion::sign(field, history);
        let sign = sign.map(|(c, negative)| (&mut signs[c % SIGNS], negative));
        residual.code_nonzero_in(coder, e, sign)
    }

    /// Codes a value of an entering entity, which has no history: against the zero predictor
    /// (the field's minimum for a categorical field), or against `previous`, the same field of
    /// an earlier entity of the class entering in the packet, when that has lately cost less
    /// (by more than [`TIE_MARGIN`]). Given a `previous`, both residual models learn from the
    /// value and their difference in cost is averaged in. Returns the value coded.
    #[inline]
    pub(crate) fn code_entry<C: BinaryCoder>(
        &mut self,
        coder: &mut C,
        field: &Field,
        previous: Option<i32>,
        target: i32,
    ) -> i32 {
        let zero = match field.coding {
            Coding::Numeric(_) => field.clamp(0),
            Coding::Categorical => field.min,
        };
        let Some(previous) = previous else {
            let e = self.entry.code(coder, field.coded_residual(target, zero));
            return field.decoded_value(zero, e);
        };
        let by_step = self.step_lead < -TIE_MARGIN;
        let ((chosen, base), (other, other_base)) = if by_step {
            ((&mut self.step, previous), (&mut self.entry, zero))
        } else {
            ((&mut self.entry, zero), (&mut self.step, previous))
        };
        let mut meter = Metered::new(coder);
        let value =
            field.decoded_value(base, chosen.code(&mut meter, field.coded_residual(target, base)));
        let cost = meter.cost;
        let other_cost = other.observe(field.coded_residual(value, other_base));
        let (step, zero) = if by_step { (cost, other_cost) } else { (other_cost, cost) };
        let lead = (i64::from(step) - i64::from(zero)).clamp(-(1 << 24), 1 << 24) as i32;
        self.step_lead += (lead - self.step_lead) >> COST_DECAY;
        value
    }

    /// Codes the value of a *young* entity (one entering again, see `engine::young`) against
    /// `entry`, its value in the packet that brought it in `age` frames before. The residual
    /// is coded plain, with the step's residual model, or scaled by the age with a model of
    /// its own ([`young_shift`]: what a moving entity travelled since grows with it), whichever
    /// the running costs favour (`young_lead`); the other measures it and learns it. The
    /// residual does not depend on `entry`, so a decoder that does not hold it still reads it
    /// (and learns it) and gives the value `None`.
    #[inline]
    pub(crate) fn code_young<C: BinaryCoder>(
        &mut self,
        coder: &mut C,
        field: &Field,
        (entry, age): (Option<i32>, u32),
        target: i32,
    ) -> (Option<i32>, i32) {
        let residual = field.coded_residual(target, entry.unwrap_or(target));
        let shift = young_shift(age);
        let scaled = self.young_lead < -TIE_MARGIN;
        let mut meter = Metered::new(coder);
        let e = if scaled {
            self.young.code_scaled(&mut meter, residual, shift)
        } else {
            self.step.code(&mut meter, residual)
        };
        let cost = meter.cost;
        let other = if scaled {
            self.step.observe(e)
        } else {
            let mut meter = CostMeter::default();
            self.young.code_scaled(&mut meter, e, shift);
            meter.cost
        };
        let (scaled, plain) = if scaled { (cost, other) } else { (other, cost) };
        let lead = (i64::from(scaled) - i64::from(plain)).clamp(-(1 << 24), 1 << 24) as i32;
        self.young_lead += (lead - self.young_lead) >> COST_DECAY;
        (entry.map(|entry| field.decoded_value(entry, e)), e)
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
        let context = above.clamp(0, Self::FLAG_WORDS as i64 - 1) as usize;
        if !coder.bit(&mut self.flags[context], target != prev) {
            return prev;
        }
        if field.span() == 2 {
            return field.reconstruct(prev, 1);
        }
        let e = self.residuals[0].code(coder, field.residual(target, prev));
        field.reconstruct(prev, e)
    }

    /// Codes one of the packet-structure integers kept in residual model `slot` (0..7: the
    /// candidates' residual models, then the entry's and the step's, which the packet-structure
    /// model has no other use for).
    #[inline]
    pub(crate) fn code_count<C: BinaryCoder>(
        &mut self,
        coder: &mut C,
        slot: usize,
        value: i32,
    ) -> i32 {
        let model = match slot % COUNT_SLOTS {
            i if i < MAX_CANDIDATES => &mut self.residuals[i],
            MAX_CANDIDATES => &mut self.entry,
            _ => &mut self.step,
        };
        model.code(coder, value)
    }

    /// Codes a structural flag kept in flag `slot` (below [`Model::FLAGS`]; the packet
    /// model's and the links model's below [`Model::FLAG_WORDS`]).
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
    pub fn mean_in(&mut self, other: &Model, count: &Count, candidates: &[Predictor]) {
        for (r, o) in self.residuals.iter_mut().zip(&other.residuals) {
            r.mean_in(o, count);
        }
        self.entry.mean_in(&other.entry, count);
        self.step.mean_in(&other.step, count);
        self.young.mean_in(&other.young, count);
        for (z, o) in self.zero.iter_mut().zip(&other.zero) {
            for (p, &o) in z.iter_mut().zip(o) {
                p.mean_in(o, count);
            }
        }
        for (s, o) in self.signs.iter_mut().zip(&other.signs) {
            for (p, &o) in s.iter_mut().zip(o) {
                p.mean_in(o, count);
            }
        }
        for (p, &o) in self.flags.iter_mut().zip(&other.flags) {
            p.mean_in(o, count);
        }
        for (c, &o) in self.costs.iter_mut().zip(&other.costs) {
            *c = count.mean_in(i64::from(*c), i64::from(o)) as i32;
        }
        self.step_lead =
            count.mean_in(i64::from(self.step_lead), i64::from(other.step_lead)) as i32;
        self.young_lead =
            count.mean_in(i64::from(self.young_lead), i64::from(other.young_lead)) as i32;
        self.tick = count.mean_in(i64::from(self.tick), i64::from(other.tick)) as u32;
        self.refresh_choice(candidates);
    }

    /// Every probability of the model, in a fixed order.
    fn probs_mut(&mut self) -> impl Iterator<Item = &mut Prob> {
        let residuals = self.residuals.iter_mut();
        let residuals = residuals.chain([&mut self.entry, &mut self.step, &mut self.young]);
        residuals
            .flat_map(ResidualModel::probs_mut)
            .chain(self.zero.iter_mut().flatten())
            .chain(self.signs.iter_mut().flatten())
            .chain(&mut self.flags)
    }

    /// Bytes of a model written by [`Model::write`].
    pub const BYTES: usize = PROBS * 2 + (MAX_CANDIDATES + 2) * 4 + 4;

    /// Writes the model's probabilities, running costs and value count into `out` (at least
    /// [`Model::BYTES`] long), little endian; the choice of predictor is derived from the costs.
    pub fn write(&self, out: &mut [u8]) {
        let mut copy = *self;
        let probs = copy.probs_mut().flat_map(|p| (p.p0() as u16).to_le_bytes());
        let leads = [&self.step_lead, &self.young_lead];
        let costs = self.costs.iter().chain(leads).flat_map(|c| c.to_le_bytes());
        for (o, b) in out.iter_mut().zip(probs.chain(costs).chain(self.tick.to_le_bytes())) {
            *o = b;
        }
    }

    /// The model [`Model::write`] wrote into `bytes` (at least [`Model::BYTES`] long, else
    /// `None`), for a field with these candidates. Probabilities out of the codable range are
    /// clamped into it.
    pub fn read(bytes: &[u8], candidates: &[Predictor]) -> Option<Model> {
        let bytes = bytes.get(..Self::BYTES)?;
        let mut m = Model::default();
        let (probs, rest) = bytes.split_at(PROBS * 2);
        for (p, b) in m.probs_mut().zip(probs.chunks_exact(2)) {
            *p = Prob::from_p0(u32::from(u16::from_le_bytes([b[0], b[1]])));
        }
        let (costs, tick) = rest.split_at((MAX_CANDIDATES + 2) * 4);
        let slots = m.costs.iter_mut().chain([&mut m.step_lead, &mut m.young_lead]);
        for (c, b) in slots.zip(costs.chunks_exact(4)) {
            *c = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        m.tick = u32::from_le_bytes([tick[0], tick[1], tick[2], tick[3]]);
        m.refresh_choice(candidates);
        Some(m)
    }

    /// Words [`Model::store`] gives a model keeping `kept`.
    pub(crate) const fn stored_words(kept: Kept) -> usize {
        let residual = ResidualModel::<Prob>::used_probs(kept.classes);
        let used = if kept.used < MAX_CANDIDATES { kept.used } else { MAX_CANDIDATES };
        let predicts = if kept.predicts {
            used * (2 + CONTEXTS * NEIGHBOURS + SIGNS) + 2 + CHOICE_WORDS
        } else {
            0
        };
        let flags = if kept.flags { Self::FLAG_WORDS } else { 0 };
        predicts + 4 + (used + 3) * residual + flags
    }

    /// Writes into the start of `out` the [`Model::stored_words`]`(kept)` words holding the
    /// parts of the model `kept` names, which are all a field of that kind may hold other
    /// than [`Model::default`]'s (see [`Kept`]). Probabilities as they are, 32-bit integers
    /// low half first. Returns how many words it wrote (0 if `out` is too short).
    pub(crate) fn store(&self, kept: Kept, out: &mut [u16]) -> usize {
        let used = kept.used.min(MAX_CANDIDATES);
        let Some(out) = out.get_mut(..Self::stored_words(kept)) else { return 0 };
        let mut at = 0;
        let int = |out: &mut [u16], at: &mut usize, v: u32| {
            out[*at] = v as u16;
            out[*at + 1] = (v >> 16) as u16;
            *at += 2;
        };
        if kept.predicts {
            for &c in &self.costs[..used] {
                int(out, &mut at, c as u32);
            }
            int(out, &mut at, self.tick);
            for pair in self.choice.chunks(2) {
                out[at] = u16::from(pair[0]) | u16::from(pair.get(1).copied().unwrap_or(0)) << 8;
                at += 1;
            }
            let zero =
                out[at..at + used * CONTEXTS * NEIGHBOURS].chunks_exact_mut(CONTEXTS * NEIGHBOURS);
            for (o, z) in zero.zip(&self.zero) {
                for (o, p) in o.iter_mut().zip(z) {
                    *o = p.p0() as u16;
                }
            }
            at += used * CONTEXTS * NEIGHBOURS;
            let signs = out[at..at + used * SIGNS].chunks_exact_mut(SIGNS);
            for (o, s) in signs.zip(&self.signs) {
                for (o, p) in o.iter_mut().zip(s) {
                    *o = p.p0() as u16;
                }
            }
            at += used * SIGNS;
        }
        int(out, &mut at, self.step_lead as u32);
        int(out, &mut at, self.young_lead as u32);
        for r in self.residuals[..used].iter().chain([&self.step, &self.entry, &self.young]) {
            at += r.store(kept.classes, &mut out[at..]);
        }
        if kept.flags {
            self.store_flags(Self::FLAG_WORDS, &mut out[at..]);
        }
        out.len()
    }

    /// Makes this model the one [`Model::store`] wrote into the start of `words` keeping
    /// `kept`: [`Model::default`] with them laid over it.
    pub(crate) fn load(&mut self, kept: Kept, words: &[u16]) {
        let used = kept.used.min(MAX_CANDIDATES);
        *self = Model::default();
        let m = self;
        let Some(words) = words.get(..Self::stored_words(kept)) else { return };
        let int = |at: usize| u32::from(words[at]) | u32::from(words[at + 1]) << 16;
        let p = |w: &u16| Prob::from_p0(u32::from(*w));
        let mut at = 0;
        if kept.predicts {
            for c in &mut m.costs[..used] {
                *c = int(at) as i32;
                at += 2;
            }
            m.tick = int(at);
            at += 2;
            for pair in m.choice.chunks_mut(2) {
                let [low, high] = words[at].to_le_bytes();
                pair[0] = low;
                if let Some(c) = pair.get_mut(1) {
                    *c = high;
                }
                at += 1;
            }
            let zero =
                words[at..at + used * CONTEXTS * NEIGHBOURS].chunks_exact(CONTEXTS * NEIGHBOURS);
            for (z, w) in m.zero.iter_mut().zip(zero) {
                for (z, w) in z.iter_mut().zip(w) {
                    *z = p(w);
                }
            }
            at += used * CONTEXTS * NEIGHBOURS;
            for (s, w) in m.signs.iter_mut().zip(words[at..at + used * SIGNS].chunks_exact(SIGNS)) {
                for (s, w) in s.iter_mut().zip(w) {
                    *s = p(w);
                }
            }
            at += used * SIGNS;
        }
        m.step_lead = int(at) as i32;
        m.young_lead = int(at + 2) as i32;
        at += 4;
        let (head, _) = m.residuals.split_at_mut(used);
        for r in head.iter_mut().chain([&mut m.step, &mut m.entry, &mut m.young]) {
            at += r.load(kept.classes, &words[at..]);
        }
        if kept.flags {
            m.set_flags(Self::FLAG_WORDS, &words[at..]);
        }
    }

    /// Flags of a model: an entity model's "unchanged" flag takes all of them, one per
    /// context (see `engine::packet::walk`).
    pub(crate) const FLAGS: usize = 32;

    /// The flags the other models use, first of [`Model::FLAGS`]: a categorical field's
    /// transitions (one per previous value, the last for the rest), the packet model's and the
    /// links model's flags.
    pub(crate) const FLAG_WORDS: usize = 8;

    /// Writes the first `n` of the model's flags (at most [`Model::FLAGS`]), as they are, into
    /// the start of `out`. Returns how many words it wrote (0 if `out` is too short).
    pub(crate) fn store_flags(&self, n: usize, out: &mut [u16]) -> usize {
        let n = n.min(Self::FLAGS);
        let Some(out) = out.get_mut(..n) else { return 0 };
        for (o, p) in out.iter_mut().zip(&self.flags) {
            *o = p.p0() as u16;
        }
        n
    }

    /// Makes this model the one [`Model::store_flags`] wrote (`n` of them) into the start of
    /// `words`: [`Model::default`] with those flags.
    pub(crate) fn load_flags(&mut self, n: usize, words: &[u16]) {
        *self = Model::default();
        self.set_flags(n, words);
    }

    /// Sets the first `n` flags to those [`Model::store_flags`] wrote into the start of
    /// `words`.
    fn set_flags(&mut self, n: usize, words: &[u16]) {
        let words = words.get(..n.min(Self::FLAGS)).unwrap_or(&[]);
        for (f, w) in self.flags.iter_mut().zip(words) {
            *f = Prob::from_p0(u32::from(*w));
        }
    }

    /// Words [`Model::store_counts`] writes.
    pub(crate) const COUNT_WORDS: usize =
        COUNT_SLOTS * ResidualModel::<Prob>::used_probs(COUNT_CLASSES) + Self::FLAG_WORDS;

    /// Writes the residual models [`Model::code_count`] uses (the step's too) and the flags,
    /// as they are, into the start of `out`: all the packet model uses. Returns how many words
    /// it wrote (0 if `out` is too short).
    pub(crate) fn store_counts(&self, out: &mut [u16]) -> usize {
        let Some(out) = out.get_mut(..Self::COUNT_WORDS) else { return 0 };
        let mut at = 0;
        for r in self.residuals.iter().chain([&self.entry, &self.step]) {
            at += r.store(COUNT_CLASSES, &mut out[at..]);
        }
        at + self.store_flags(Self::FLAG_WORDS, &mut out[at..])
    }

    /// Makes this model the one [`Model::store_counts`] wrote into the start of `words`:
    /// [`Model::default`] with those residual models and flags.
    pub(crate) fn load_counts(&mut self, words: &[u16]) {
        let words = words.get(..Self::COUNT_WORDS).unwrap_or(&[]);
        let flags = words.len().saturating_sub(Self::FLAG_WORDS);
        self.load_flags(Self::FLAG_WORDS, &words[flags..]);
        let mut at = 0;
        for r in self.residuals.iter_mut().chain([&mut self.entry, &mut self.step]) {
            at += r.load(COUNT_CLASSES, words.get(at..).unwrap_or(&[]));
        }
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
    pub fn digest(&self, h: u64) -> u64 {
        let mut fold = Fold { h, word: 0, n: 0 };
        let mut probs = |m: &ResidualModel| m.for_each_prob(|p| fold.add(p as u16));
        for r in &self.residuals {
            probs(r);
        }
        probs(&self.entry);
        probs(&self.step);
        probs(&self.young);
        for z in self.zero.iter().flatten().chain(self.signs.iter().flatten()).chain(&self.flags) {
            fold.add(z.p0() as u16);
        }
        let leads = [self.step_lead, self.young_lead];
        let costs = self.costs.into_iter().chain(leads).map(|c| c as u32);
        for v in costs.chain([self.tick]) {
            fold.add(v as u16);
            fold.add((v >> 16) as u16);
        }
        for c in self.choice {
            fold.add(u16::from(c));
        }
        fold.finish()
    }
}

/// A running FNV-style hash taking 16-bit values four to a multiply (a digest is taken of
/// every batched packet's models, so it should be quick).
struct Fold {
    h: u64,
    word: u64,
    n: u32,
}

impl Fold {
    #[inline(always)]
    fn add(&mut self, v: u16) {
        self.word = self.word << 16 | u64::from(v);
        self.n += 1;
        if self.n == 4 {
            self.h = (self.h ^ self.word).wrapping_mul(0x0000_0100_0000_01b3);
            (self.word, self.n) = (0, 0);
        }
    }

    fn finish(self) -> u64 {
        (self.h ^ self.word ^ u64::from(self.n) << 62).wrapping_mul(0x0000_0100_0000_01b3)
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
        let links = (schema.max_links > 0) as usize;
        ModelLayout { len: 1 + schema.classes.len() + schema.total_fields + links }
    }

    /// Index of the packet-structure model.
    pub const PACKET: usize = 0;

    /// Index of the model of links' decisions and targets, last in the set, if any class of
    /// `schema` has links.
    pub const fn links(schema: &Schema) -> Option<usize> {
        if schema.max_links > 0 { Some(ModelLayout::new(schema).len - 1) } else { None }
    }

    /// The field of every model of a set of `schema`, in layout order (none for the packet,
    /// entity and links models).
    fn fields(schema: &Schema) -> impl Iterator<Item = Option<&'static Field>> + '_ {
        let class = |c: &'static Class| core::iter::once(None).chain(c.fields.iter().map(Some));
        let links = core::iter::repeat_n(None, usize::from(schema.max_links > 0));
        core::iter::once(None).chain(schema.classes.iter().flat_map(class)).chain(links)
    }

    /// The candidate predictors of every model of a set of `schema`, in layout order (none
    /// for the packet, entity and categorical models).
    fn candidates(schema: &Schema) -> impl Iterator<Item = &'static [Predictor]> + '_ {
        Self::fields(schema).map(|f| match f.map(|f| f.coding) {
            Some(Coding::Numeric(candidates)) => candidates,
            _ => &[],
        })
    }

    /// Resets `models` (one frame's set, `len` long) to the starting state of `schema`: its
    /// prior ([`Schema::with_prior`]) if it has one, else cold models.
    pub fn reset(schema: &Schema, models: &mut [Model]) {
        let prior = schema.prior.and_then(|p| p.get(PRIOR_HEADER..));
        let mut stored = prior.unwrap_or(&[]).chunks_exact(Model::BYTES);
        let fields = Self::fields(schema).zip(Self::candidates(schema));
        for (model, (field, candidates)) in models.iter_mut().zip(fields) {
            *model = match (stored.next(), field) {
                (Some(bytes), _) => Model::read(bytes, candidates).unwrap_or_default(),
                (None, Some(field)) => Model::for_field(field),
                (None, None) => Model::for_candidates(candidates),
            };
        }
    }

    /// Moves `acc` (a set, the mean of `count − 1` sets) to the mean of those and `set` (see
    /// [`Model::mean_in`]).
    pub fn mean_in(schema: &Schema, acc: &mut [Model], set: &[Model], count: u32) {
        let count = Count::new(count);
        for ((a, s), candidates) in acc.iter_mut().zip(set).zip(Self::candidates(schema)) {
            a.mean_in(s, &count, candidates);
        }
    }

    /// Bytes of a prior of `schema` ([`ModelLayout::write_prior`]).
    pub fn prior_len(schema: &Schema) -> usize {
        PRIOR_HEADER + ModelLayout::new(schema).len * Model::BYTES
    }

    /// Writes `models` (a set of `schema`, as learned) into `out` (at least
    /// [`ModelLayout::prior_len`] long) as a prior for `schema`: the magic `nsp6`, the schema's
    /// hash (u64) and model count (u32), then each model ([`Model::write`]). Returns the length.
    pub fn write_prior(schema: &Schema, models: &[Model], out: &mut [u8]) -> Option<usize> {
        let len = Self::prior_len(schema);
        let out = out.get_mut(..len)?;
        let count = ModelLayout::new(schema).len;
        if models.len() < count {
            return None;
        }
        out[..4].copy_from_slice(PRIOR_MAGIC);
        out[4..12].copy_from_slice(&schema.hash.to_le_bytes());
        out[12..16].copy_from_slice(&(count as u32).to_le_bytes());
        for (m, chunk) in models.iter().zip(out[PRIOR_HEADER..].chunks_exact_mut(Model::BYTES)) {
            m.write(chunk);
        }
        Some(len)
    }

    /// Whether `prior` is a prior for a schema of hash `hash` and this layout's length.
    pub fn fits_prior(&self, prior: &[u8], hash: u64) -> bool {
        prior.len() == PRIOR_HEADER + self.len * Model::BYTES
            && prior.get(..4) == Some(&PRIOR_MAGIC[..])
            && prior.get(4..12) == Some(&hash.to_le_bytes()[..])
            && prior.get(12..16) == Some(&(self.len as u32).to_le_bytes()[..])
    }

    /// Index of the entity-level model of `class`; its fields follow it.
    pub fn class_base(schema: &Schema, class: usize) -> usize {
        1 + class + schema.model_offset(class)
    }
}

/// Test helper: codes `n` values of numeric `field` (of `candidates`) into `model`, value `i`
/// being `target(i)` after the history `i, i − 3, i − 6, i − 9`, so that it learns.
#[cfg(test)]
pub(crate) fn learn_a_line(
    model: &mut Model,
    field: &Field,
    candidates: &[Predictor],
    n: i32,
    target: impl Fn(i32) -> i32,
) {
    let table = crate::model::predict::EVENLY_SPACED;
    let mut meter = CostMeter::default();
    for i in 0..n {
        let history = History {
            table: &table,
            samples: &[i, i - 3, i - 6, i - 9],
            len: 4,
            contract: None,
            neighbour: 0,
        };
        let p = model.predict(field, candidates, &history);
        model.code_numeric(&mut meter, field, candidates, &history, p, target(i));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::prob::COST_ONE_BIT;

    #[test]
    fn model_size_is_as_documented() {
        // docs/protocol.md and the per-client memory figures rely on this.
        assert_eq!(core::mem::size_of::<Model>(), 752);
        assert_eq!(Model::BYTES, 744, "a prior's model, docs/protocol.md");
    }

    #[test]
    fn young_residuals_are_scaled_by_the_log_of_the_entry_age_times_root_two() {
        let shifts: [u32; 24] = core::array::from_fn(|a| young_shift(a as u32));
        let expected = [0, 0, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5];
        assert_eq!(shifts, expected);
        assert_eq!(young_shift(u32::MAX), 16);
    }

    #[test]
    fn a_model_reads_back_what_it_wrote() {
        const C: [Predictor; 2] = [Predictor::Linear, Predictor::Hold];
        const F: Field = Field::numeric("f", -1000, 1000, false, &C);
        let mut m = Model::for_candidates(&C);
        learn_a_line(&mut m, &F, &C, 300, |i| i + 3 + i % 5);
        let mut bytes = [0u8; Model::BYTES];
        m.write(&mut bytes);
        assert_eq!(Model::read(&bytes, &C), Some(m));
        assert_eq!(Model::read(&bytes[1..], &C), None);
    }

    /// Codes entering values `(previous, value)` with a fresh model through an encoder and a
    /// decoder; checks that both decode the same values and end with the same model, and
    /// returns the model and the ideal cost of the second half, in bits per value.
    fn entries(values: &[(Option<i32>, i32)]) -> (Model, f64) {
        const F: Field = Field::numeric("f", 0, 65_535, false, &[Predictor::Hold]);
        let mut buf = [0u8; 4096];
        let mut enc = crate::codec::coder::Encoder::new(&mut buf);
        let (mut m, mut cost) = (Model::for_candidates(&[Predictor::Hold]), 0);
        for (i, &(previous, v)) in values.iter().enumerate() {
            let mut meter = Metered::new(&mut enc);
            assert_eq!(m.code_entry(&mut meter, &F, previous, v), v);
            cost += if i >= values.len() / 2 { meter.cost } else { 0 };
        }
        let len = enc.finish().unwrap();
        let mut dec = crate::codec::coder::Decoder::new(&buf[..len]);
        let mut d = Model::for_candidates(&[Predictor::Hold]);
        for &(previous, v) in values {
            assert_eq!(d.code_entry(&mut dec, &F, previous, 0), v);
        }
        assert_eq!(d, m);
        let per_value = f64::from(cost) / f64::from(COST_ONE_BIT) / (values.len() / 2) as f64;
        (m, per_value)
    }

    #[test]
    fn entering_values_follow_the_previous_entry_when_it_predicts_better() {
        let mut x = 12_345u32;
        let mut next = || {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 8) as i32 & 0xffff
        };
        // Alike entities: each within 8 of the one before.
        let mut v = 30_000;
        let alike: Vec<_> = (0..200)
            .map(|i| {
                let previous = (i % 10 != 0).then_some(v);
                v += next() % 17 - 8;
                (previous, v)
            })
            .collect();
        let (m, bits) = entries(&alike);
        assert!(m.step_lead < -TIE_MARGIN, "lead {}", m.step_lead);
        assert!(bits < 7.0, "{bits:.2} bits per alike value");
        // Unrelated entities: the zero predictor keeps coding them, at about their 16 bits.
        let unrelated: Vec<_> = (0..200).map(|_| (Some(next()), next())).collect();
        let (m, bits) = entries(&unrelated);
        assert!(m.step_lead >= -TIE_MARGIN, "lead {}", m.step_lead);
        assert!(bits < 17.5, "{bits:.2} bits per unrelated value");
    }

    #[test]
    fn fits_follow_the_listed_candidates_while_there_is_room() {
        use Predictor::*;
        let fitted = |c: &[Predictor]| fitted_candidates(c).collect::<Vec<_>>();
        assert_eq!(fitted(&[Hold, Linear, Quadratic]), [Linear, Quadratic]);
        assert_eq!(fitted(&[Hold, Linear]), [Linear]);
        assert_eq!(fitted(&[Zero, Hold, Linear, Quadratic]), [Linear]);
        assert!(fitted(&[Zero, Hold, Linear, Quadratic, Cubic]).is_empty());
        assert!(fitted(&[Hold]).is_empty());
        // A fit needs one sample more than its polynomial; more candidates than the model
        // holds are ignored, not a panic.
        let m = Model::for_candidates(&[Hold, Linear]);
        assert_eq!(m.choice[..4], [NO_CHOICE, 0, 0, 0]);
        let _ = Model::for_candidates(&[Hold, Hold, Hold, Hold, Hold, Hold, Linear]);
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
