//! One entity, value by value: an update's unchanged flag and residuals against the
//! cheapest candidate prediction, or an entry's values against earlier entries.

use super::body::HeldRun;
use super::chunk::{CHUNK, Chunk, Hist, Motion, Tables};
use super::{Check, Refs, Side, all_groups};

use crate::codec::coder::{BinaryCoder, Metered};
use crate::engine::entering::Entered;
use crate::engine::probe::{Part, Probe};
use crate::model::predict::{Predictor, PredictorTable};
use crate::model::{History, Model, ModelLayout, Prediction, neighbour};
use crate::schema::{Class, Coding, Field, Schema};
use crate::{Error, Result};

/// What a value is coded against.
#[derive(Clone, Copy)]
enum Against<'h> {
    /// Prediction `p` from the entity's history.
    History(&'h History<'h>, Prediction),
    /// Nothing: the value enters; the same field of an earlier entering entity of its class
    /// in the packet, if any (see [`Model::code_entry`] and [`Entered::previous`]).
    Entry(Option<i32>),
}

/// Codes one value of `field` with its `model`.
#[inline(always)]
fn code_value<C: BinaryCoder>(
    coder: &mut C,
    field: &Field,
    model: &mut Model,
    against: Against<'_>,
    target: i32,
) -> i32 {
    match (against, field.coding) {
        (Against::Entry(previous), _) => model.code_entry(coder, field, previous, target),
        (Against::History(history, p), Coding::Numeric(c)) => {
            model.code_numeric(coder, field, c, history, p, target)
        }
        (Against::History(history, _), Coding::Categorical) => {
            let previous = (history.len > 0).then_some(history.samples[0]);
            model.code_categorical(coder, field, previous, target)
        }
    }
}

/// [`code_value`], metered when probe type `P` listens: returns the value and its ideal cost
/// (0 when not metered).
#[inline(always)]
fn code_probed<P: Probe, C: BinaryCoder>(
    coder: &mut C,
    field: &Field,
    model: &mut Model,
    against: Against<'_>,
    target: i32,
) -> (i32, u32) {
    if P::LISTENS {
        let mut meter = Metered::new(coder);
        let value = code_value(&mut meter, field, model, against, target);
        (value, meter.cost)
    } else {
        (code_value(coder, field, model, against, target), 0)
    }
}

/// Whether prediction `p` of `field` needs no correction for truth `truth`: it equals it, or
/// is within the field's tolerance (see [`Field::coded_residual`]).
#[inline(always)]
pub(super) fn predicts(field: &Field, p: i32, truth: i32) -> bool {
    p == truth || (field.tolerance > 0 && field.coded_residual(truth, p) == 0)
}

/// The common arguments of the walk.
pub(super) struct Walk<'a, 'p, P> {
    pub(super) probe: &'p mut P,
    pub(super) schema: &'a Schema,
    pub(super) refs: &'a Refs,
    pub(super) check: Check,
    /// Whether the last kept entity updated so far was not "unchanged": moving entities come
    /// in runs of neighbouring handles, so it is a context of the next one's flag.
    pub(super) moved: bool,
    pub(super) chunk: Chunk,
    pub(super) tables: Tables,
    /// What the next entering entity of each class is predicted from.
    pub(super) entered: Entered,
    /// The classes (of the first 64) whose every prediction from a constant history is that
    /// constant, whatever their models choose ([`keeps_still`]).
    pub(super) keeps_still: u64,
    /// The cost of holding every due kept handle not yet coded (the encoder's reserve).
    pub(super) held: HeldRun,
    /// The most the links of the entities entered so far can cost, coded after the list of
    /// entering entities ([`Walk::entered_links`]): the encoder's reserve for them.
    pub(super) pending_links: u64,
    /// The handles of the packet's peer or client.
    pub(super) handles: u32,
}

/// The classes of `schema` (of the first 64, one bit each) none of whose fields lists the
/// zero predictor or the contract: every candidate, and the fallback, predicts a constant
/// history as that constant.
pub(super) fn keeps_still(schema: &Schema) -> u64 {
    let constant = |f: &Field| match f.coding {
        Coding::Numeric(candidates) => {
            !candidates.iter().any(|p| matches!(p, Predictor::Zero | Predictor::Contract))
        }
        Coding::Categorical => true,
    };
    let classes = schema.classes.iter().take(64).enumerate();
    classes.filter(|(_, c)| c.fields.iter().all(constant)).fold(0, |m, (i, _)| m | 1 << i)
}

impl<P: Probe> Walk<'_, '_, P> {
    /// Codes the update of kept entity `h` of `class` with `k` history samples, sending the
    /// fields of the groups in `due`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn update<'s, C: BinaryCoder, S: Side<'s>>(
        &mut self,
        coder: &mut C,
        side: &mut S,
        models: &mut [Model],
        class: usize,
        h: u32,
        k: usize,
        due: u32,
    ) -> Result<()> {
        let c = self.schema.classes.get(class).ok_or(Error::Corrupt)?;
        let fields = c.fields;
        let n = fields.len();
        let start = ModelLayout::class_base(self.schema, class);
        let (entity, field_models) = models
            .get_mut(start..start + 1 + n)
            .ok_or(Error::Corrupt)?
            .split_first_mut()
            .ok_or(Error::Corrupt)?;
        let targets = side.target_row(h);
        let targets = targets.get(..n).unwrap_or(&[]);
        let hist = Hist::new(side.sources(h, k), k, self.refs, &mut self.tables);
        let (k, table) = (hist.len(), hist.table);
        let contract = self.schema.contract.as_ref();
        let chunk = &mut self.chunk;
        // Without tolerances and with every group due, every field is coded exactly: the
        // common case, kept free of the per-field tests below.
        let simple = self.schema.max_tolerant == 0 && due == all_groups(c);
        let is_due = |f: &Field| simple || due >> f.group & 1 != 0;

        // An entity still since the oldest sample (as the world shows on the encoder, as the
        // client's record of it shows on the decoder): every sample is one row, which every
        // field's prediction may keep, so its flag's context is known without them.
        let mut flag = None;
        if !P::LISTENS && simple && hist.picks.is_none() && side.still(h, k, c) {
            let constant = class < 64 && self.keeps_still >> class & 1 != 0;
            let of = (c, constant, &mut *entity, &*field_models);
            match code_still(coder, side, (&mut self.check, &mut self.moved), of, h, k, table) {
                Still::Unchanged => {
                    side.sent_groups(h, c, due);
                    return Ok(());
                }
                Still::Moved => flag = Some(false),
                Still::Unknown => {}
            }
        }

        // The context: how many fields changed between the entity's two newest samples (none,
        // one, more, or no two samples)? Counted over the first chunk of fields only.
        chunk.fill(side, h, &hist, 0, (class, c), contract, field_models);
        let unchanged = match flag {
            Some(unchanged) => unchanged,
            None => {
                let (motion, exact) = chunk.judge(
                    &*side,
                    h,
                    &hist,
                    (class, c),
                    contract,
                    field_models,
                    targets,
                    simple,
                    due,
                );
                let context = motion.context(self.moved);
                let unchanged = structure!(self.probe, Part::Unchanged, coder => entity.code_flag(coder, context, exact));
                self.moved = !unchanged;
                unchanged
            }
        };

        if unchanged && simple && n <= CHUNK {
            // Every field as predicted: the still entity's short way.
            for (f, p) in chunk.predicted[..n].iter().enumerate() {
                self.probe.field(class, f, 0, p.candidate, true);
                side.store(h, f, p.value, true, None);
                self.check.add(p.value as u32);
            }
            side.sent_groups(h, c, due);
            return Ok(());
        }
        let mut lo = 0;
        let mut tolerant = 0;
        // How far the previous field coded missed its prediction (see [`neighbour`]).
        let mut near = 0;
        while lo < n {
            if lo > 0 || n > CHUNK {
                chunk.fill(side, h, &hist, lo, (class, c), contract, &field_models[lo..]);
            }
            let hi = (lo + CHUNK).min(n);
            for f in lo..hi {
                let (field, model) = (&fields[f], &mut field_models[f]);
                let (p, samples) = (chunk.predicted[f - lo], &chunk.samples[f - lo]);
                let tol = (!simple && field.tolerance > 0).then(|| {
                    tolerant += 1;
                    tolerant - 1
                });
                let coded = is_due(field);
                let value = if !coded {
                    samples[0]
                } else if unchanged {
                    self.probe.field(class, f, 0, p.candidate, true);
                    p.value
                } else {
                    let contract = chunk.contract_of(f - lo);
                    let history = History { table, samples, len: k, contract, neighbour: near };
                    let target = targets.get(f).copied().unwrap_or(0);
                    let against = Against::History(&history, p);
                    let (value, cost) = code_probed::<P, _>(coder, field, model, against, target);
                    self.probe.field(class, f, cost, p.candidate, false);
                    near = neighbour(field, value, p.value);
                    if field.coding == Coding::Categorical {
                        let models = &field_models[lo..];
                        chunk.rebase_quat(&fields[lo..], f - lo, value, &hist, models);
                    }
                    value
                };
                side.store(h, f, value, coded, tol);
                self.check.add(value as u32);
            }
            lo = hi;
        }
        side.sent_groups(h, c, due);
        Ok(())
    }

    /// Codes one entering entity's values (see [`Against::Entry`]); the caller commits them
    /// to [`Walk::entered`] if the entity stays in the packet.
    #[inline(always)]
    pub(super) fn entry<'s, C: BinaryCoder, S: Side<'s>>(
        &mut self,
        coder: &mut C,
        side: &mut S,
        models: &mut [Model],
        class: usize,
        h: u32,
    ) -> Result<()> {
        let c = self.schema.classes.get(class).ok_or(Error::Corrupt)?;
        let start = ModelLayout::class_base(self.schema, class) + 1;
        let field_models = models.get_mut(start..start + c.fields.len()).ok_or(Error::Corrupt)?;
        let targets = side.target_row(h);
        self.entered.begin(class);
        let mut tolerant = 0;
        for (f, (field, model)) in c.fields.iter().zip(field_models.iter_mut()).enumerate() {
            let target = targets.get(f).copied().unwrap_or(0);
            let against = Against::Entry(self.entered.previous(f));
            let (value, cost) = code_probed::<P, _>(coder, field, model, against, target);
            self.probe.field(class, f, cost, None, false);
            self.entered.set(f, field, value);
            let tol = (field.tolerance > 0).then(|| {
                tolerant += 1;
                tolerant - 1
            });
            side.store(h, f, value, true, tol);
            self.check.add(value as u32);
        }
        side.sent_groups(h, c, u32::MAX);
        Ok(())
    }

    /// Codes the values of young entity `h` of `class` against those its entry brought in at
    /// frame `entry` (see [`crate::engine::young`]); returns whether this end holds them (the
    /// decoder may not: it reads the residuals all the same, and stores nothing). The check
    /// value takes the residuals, which both ends know.
    #[inline(always)]
    pub(super) fn young<'s, C: BinaryCoder, S: Side<'s>>(
        &mut self,
        coder: &mut C,
        side: &mut S,
        models: &mut [Model],
        (class, h): (usize, u32),
        entry: u32,
    ) -> Result<bool> {
        let c = self.schema.classes.get(class).ok_or(Error::Corrupt)?;
        let start = ModelLayout::class_base(self.schema, class) + 1;
        let field_models = models.get_mut(start..start + c.fields.len()).ok_or(Error::Corrupt)?;
        let targets = side.target_row(h);
        let held = side.young(h, class, entry);
        let age = self.refs.frame.wrapping_sub(entry);
        for (f, (field, model)) in c.fields.iter().zip(field_models.iter_mut()).enumerate() {
            let target = targets.get(f).copied().unwrap_or(0);
            let base = held.then(|| side.entry_value(h, f));
            let ((value, residual), cost) = if P::LISTENS {
                let mut meter = Metered::new(&mut *coder);
                let coded = model.code_young(&mut meter, field, (base, age), target);
                (coded, meter.cost)
            } else {
                (model.code_young(coder, field, (base, age), target), 0)
            };
            self.probe.field(class, f, cost, None, false);
            self.check.add(residual as u32);
            // No young entity's class has a field with a tolerance (`Side::young_hint`).
            if let Some(value) = value {
                side.store(h, f, value, true, None);
            }
        }
        if held {
            side.sent_groups(h, c, u32::MAX);
        }
        Ok(held)
    }
}

/// What [`code_still`] made of an entity.
enum Still {
    /// Not known to keep its values: nothing coded.
    Unknown,
    /// Coded "unchanged", its values stored.
    Unchanged,
    /// Its "unchanged" flag decoded false: the rest of the update follows.
    Moved,
}

/// Codes the "unchanged" flag of entity `h` of `class` (with its entity and field models)
/// whose `k` history samples are one row ([`Side::still`]), if every field's prediction from
/// them (with predictor vectors `table`) is that row, as it is whatever the models choose if
/// the class is `constant` ([`keeps_still`]); if unchanged, stores the row and adds it to
/// `check`. Keeps `moved` (see [`Walk::moved`]). Gathers no samples and predicts nothing.
#[inline(never)]
fn code_still<'s, C: BinaryCoder, S: Side<'s>>(
    coder: &mut C,
    side: &mut S,
    (check, moved): (&mut Check, &mut bool),
    (class, constant, entity, models): (&Class, bool, &mut Model, &[Model]),
    h: u32,
    k: usize,
    table: &PredictorTable,
) -> Still {
    let fields = class.fields;
    let keeps = constant
        || fields.iter().zip(models).all(|(f, m)| match f.coding {
            Coding::Numeric(candidates) => m.predicts_still(candidates, table, k),
            Coding::Categorical => true,
        });
    if !keeps || fields.len() > CHUNK {
        return Still::Unknown;
    }
    // On the encoder the new values are the row too: it is unchanged.
    let unchanged = entity.code_flag(coder, Motion::still(k).context(*moved), true);
    *moved = !unchanged;
    if !unchanged {
        return Still::Moved;
    }
    side.keep_still(h, class, check);
    Still::Unchanged
}
