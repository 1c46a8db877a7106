//! The packet body, described once for both ends.
//!
//! A packet for frame `n` against baseline `b` holds, after the header:
//! 1. the history: up to three more acknowledged frames before `b` that predictors may use;
//! 2. for every handle present at `b`, in ascending order, whether it is still present, and
//!    if so its update: an "unchanged" flag (every field equals its prediction), else each
//!    field's residual against the prediction of its cheapest candidate;
//! 3. the entities entering: their count, then for each its handle (as a gap from the
//!    previous one), class, the age of its handle, whether it is the client's own, and its
//!    values against the zero predictor;
//! 4. a 16-bit check value over every handle and value of frame `n`.
//!
//! Encoder and decoder run the same walk ([`code_body`]) through [`BinaryCoder`]; a
//! [`Side`] supplies what only one end knows (the encoder's targets and sets) and stores what
//! the decoder learns.

use crate::codec::coder::{BinaryCoder, Metered};
use crate::engine::frame::{WINDOW, age};
use crate::engine::probe::Probe;
use crate::model::predict::{EVENLY_SPACED, MAX_SAMPLES, PredictorTable};
use crate::model::{History, Model, ModelLayout, Prediction};
use crate::schema::{Coding, Field, Schema};
use crate::{Error, Result};

/// Bits of the frame number in the header of a packet without baseline.
pub(crate) const FRAME_BITS: u32 = 16;
/// Bits of the baseline distance in the header (0: no baseline).
pub(crate) const BASE_BITS: u32 = 5;
const _: () = assert!(WINDOW == 1 << BASE_BITS);
/// Bits of the baseline's frame number sent to name it. The client holds one frame per
/// residue modulo [`WINDOW`]; the two bits more reject a packet delayed by up to three windows
/// whose baseline the client has replaced since.
pub(crate) const BASE_ID_BITS: u32 = BASE_BITS + 2;
/// Bits of the check value at the end of the packet.
pub(crate) const CHECK_BITS: u32 = 16;

// Slots of the packet-structure model.
const FLAG_KEPT: usize = 0;
const FLAG_MORE_HISTORY: usize = 1;
/// After the three history flags.
const FLAG_OWN: usize = 4;
const COUNT_ENTERED: usize = 0;
const COUNT_HANDLE_GAP: usize = 1;
const COUNT_HANDLE_AGE: usize = 2;
const COUNT_HISTORY_GAP: usize = 3;
const COUNT_CLASS: usize = 4;

/// The frames a packet refers to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Refs {
    /// The frame the packet carries.
    pub frame: u32,
    /// History frames, newest first; `history[0]` is the baseline. Empty without baseline.
    pub history: [u32; MAX_SAMPLES],
    /// Number of history frames.
    pub len: usize,
    /// Predictor vectors for the history's offsets.
    pub table: PredictorTable,
}

impl Refs {
    /// References for `frame` with the given history (newest first, baseline first).
    pub(crate) fn new(frame: u32, history: &[u32]) -> Refs {
        let mut refs =
            Refs { frame, history: [0; MAX_SAMPLES], len: 0, table: PredictorTable::new(&[]) };
        for &t in history.iter().take(MAX_SAMPLES) {
            refs.history[refs.len] = t;
            refs.len += 1;
        }
        refs.update_table();
        refs
    }

    /// The baseline frame, if any.
    pub(crate) fn base(&self) -> Option<u32> {
        (self.len > 0).then_some(self.history[0])
    }

    fn update_table(&mut self) {
        let mut offsets = [0u32; MAX_SAMPLES];
        for (o, &t) in offsets.iter_mut().zip(&self.history[..self.len]) {
            *o = age(self.frame, t);
        }
        self.table = if offsets[..self.len] == [1, 2, 3, 4][..self.len] {
            EVENLY_SPACED
        } else {
            PredictorTable::new(&offsets[..self.len])
        };
    }
}

/// What one end of the walk knows and keeps. Rows it hands out live as long as the side
/// (`'s`), independently of the borrow of the side itself.
pub(crate) trait Side<'s> {
    /// True for the encoder: hints are real and the unchanged flag is computed.
    const ENCODER: bool;
    /// Number of handles.
    fn handles(&self) -> u32;
    /// Whether handle `h` is present at the baseline.
    fn base_present(&self, h: u32) -> bool;
    /// Class of handle `h` at the baseline.
    fn base_class(&self, h: u32) -> usize;
    /// Encoder: whether `h` is still present at the new frame.
    fn keep_hint(&self, h: u32) -> bool;
    /// Encoder: how many handles enter.
    fn enter_count_hint(&self) -> u32;
    /// Encoder: the next entering handle, its class, the age of its handle and whether it is
    /// the client's own.
    fn next_enter_hint(&mut self) -> (u32, usize, u32, bool);
    /// Starts handle `h` in the new frame: kept from the baseline (`age` is `None`, `own` is
    /// ignored) or entering with a handle that is `age` frames old, own or not. The decoder
    /// rejects a handle that is already present.
    fn begin(&mut self, h: u32, class: usize, age: Option<u32>, own: bool) -> Result<()>;
    /// How many of the history frames (from the newest) hold the same entity at `h`.
    fn history_len(&self, h: u32) -> usize;
    /// Raw values of `h` at the first `k` history frames (newest first); the rest are empty.
    fn history_rows(&self, h: u32, k: usize) -> [&'s [i32]; MAX_SAMPLES];
    /// Encoder: the values to send for `h` (empty on the decoder).
    fn target_row(&self, h: u32) -> &'s [i32];
    /// Records the value of `field` of `h` at the new frame.
    fn store(&mut self, h: u32, field: usize, value: i32);
}

/// Running check value over the handles and values of a frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Check(u32);

impl Check {
    fn new() -> Self {
        Check(0x811c_9dc5)
    }

    #[inline(always)]
    fn add(&mut self, v: u32) {
        self.0 = (self.0 ^ v).wrapping_mul(0x0100_0193);
    }

    /// The value sent: the hash folded to [`CHECK_BITS`].
    pub(crate) fn value(&self) -> u32 {
        (self.0 ^ (self.0 >> CHECK_BITS)) & ((1 << CHECK_BITS) - 1)
    }
}

/// Codes the history list: which acknowledged frames before the baseline predictors use.
/// The decoder fills `refs` and rejects frames outside the window.
pub(crate) fn code_history<C: BinaryCoder>(
    coder: &mut C,
    packet: &mut Model,
    refs: &mut Refs,
) -> Result<()> {
    if refs.len == 0 {
        return Ok(());
    }
    let mut len = 1;
    while len < MAX_SAMPLES {
        let more = packet.code_flag(coder, FLAG_MORE_HISTORY + len - 1, len < refs.len);
        if !more {
            break;
        }
        let prev = refs.history[len - 1];
        let gap = packet.code_count(
            coder,
            COUNT_HISTORY_GAP,
            age(prev, refs.history[len]).wrapping_sub(1) as i32,
        );
        let t = prev.wrapping_sub(gap as u32).wrapping_sub(1);
        if gap < 0 || age(refs.frame, t) >= WINDOW {
            return Err(Error::Corrupt);
        }
        refs.history[len] = t;
        len += 1;
    }
    refs.len = len;
    refs.update_table();
    Ok(())
}

/// Fields of an entity handled together: their samples and predictions live on the stack.
const CHUNK: usize = 16;

/// Samples and predictions of up to [`CHUNK`] consecutive fields of one entity.
struct Chunk {
    /// History samples per field, newest first; past the entity's history they are left over
    /// from earlier entities, and only ever multiplied by zero weights.
    samples: [[i32; MAX_SAMPLES]; CHUNK],
    /// Prediction per field.
    predicted: [Prediction; CHUNK],
}

impl Chunk {
    const EMPTY: Chunk = Chunk {
        samples: [[0; MAX_SAMPLES]; CHUNK],
        predicted: [Prediction { candidate: None, value: 0 }; CHUNK],
    };

    /// Loads the samples of `fields` (the fields from `lo` on, at most [`CHUNK`] used) from
    /// the entity's `k` history `rows` and predicts each field with its model.
    #[inline(always)]
    fn fill(
        &mut self,
        rows: &[&[i32]; MAX_SAMPLES],
        k: usize,
        lo: usize,
        fields: &[Field],
        models: &[Model],
        table: &PredictorTable,
    ) {
        let n = fields.len().min(CHUNK);
        for (j, row) in rows.iter().enumerate().take(k) {
            let part = row.get(lo..).unwrap_or(&[]);
            for (s, &v) in self.samples[..n].iter_mut().zip(part) {
                s[j] = v;
            }
        }
        for f in 0..n.min(models.len()) {
            let (field, samples) = (&fields[f], &self.samples[f]);
            self.predicted[f] = match field.coding {
                Coding::Numeric(c) => {
                    models[f].predict(field, c, &History { table, samples: *samples, len: k })
                }
                Coding::Categorical => Prediction { candidate: None, value: samples[0] },
            };
        }
    }

    /// Whether the first `targets.len()` predictions equal `targets`.
    #[inline(always)]
    fn predicts(&self, targets: &[i32]) -> bool {
        targets.len() <= CHUNK && self.predicted.iter().zip(targets).all(|(p, &t)| p.value == t)
    }
}

/// Codes one value of `field` against prediction `p` (from `history`) with its `model`.
#[inline(always)]
fn code_value<C: BinaryCoder>(
    coder: &mut C,
    field: &Field,
    model: &mut Model,
    history: &History<'_>,
    p: Prediction,
    target: i32,
) -> i32 {
    match field.coding {
        Coding::Numeric(c) => model.code_numeric(coder, field, c, history, p, target),
        Coding::Categorical => {
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
    history: &History<'_>,
    p: Prediction,
    target: i32,
) -> (i32, u32) {
    if P::LISTENS {
        let mut meter = Metered::new(coder);
        let value = code_value(&mut meter, field, model, history, p, target);
        (value, meter.cost)
    } else {
        (code_value(coder, field, model, history, p, target), 0)
    }
}

/// Codes one entity present at both the baseline and the new frame.
#[allow(clippy::too_many_arguments)]
fn code_update<'s, C: BinaryCoder, S: Side<'s>, P: Probe>(
    coder: &mut C,
    side: &mut S,
    probe: &mut P,
    schema: &Schema,
    models: &mut [Model],
    refs: &Refs,
    chunk: &mut Chunk,
    class: usize,
    h: u32,
    check: &mut Check,
) -> Result<()> {
    let fields = schema.classes.get(class).ok_or(Error::Corrupt)?.fields;
    let n = fields.len();
    let k = side.history_len(h).clamp(1, refs.len);
    let start = ModelLayout::class_base(schema, class);
    let (entity, field_models) = models
        .get_mut(start..start + 1 + n)
        .ok_or(Error::Corrupt)?
        .split_first_mut()
        .ok_or(Error::Corrupt)?;
    let rows = side.history_rows(h, k);
    let targets = side.target_row(h);
    let targets = targets.get(..n).unwrap_or(&[]);
    let table = &refs.table;

    // The context: did the entity stay still between its two newest samples?
    let still = k >= 2 && rows[0].iter().zip(rows[1]).take(n).all(|(a, b)| a == b);
    chunk.fill(&rows, k, 0, fields, field_models, table);
    // On the encoder: does every field equal its prediction?
    let mut exact = S::ENCODER && targets.len() == n;
    if exact {
        exact = chunk.predicts(&targets[..n.min(CHUNK)]);
        let mut lo = CHUNK;
        while exact && lo < n {
            let mut later = Chunk::EMPTY;
            later.fill(&rows, k, lo, &fields[lo..], &field_models[lo..], table);
            exact = later.predicts(&targets[lo..n.min(lo + CHUNK)]);
            lo += CHUNK;
        }
    }
    let unchanged = entity.code_flag(coder, usize::from(still), exact);

    let mut lo = 0;
    while lo < n {
        if lo > 0 {
            chunk.fill(&rows, k, lo, &fields[lo..], &field_models[lo..], table);
        }
        let hi = (lo + CHUNK).min(n);
        for f in lo..hi {
            let (field, model) = (&fields[f], &mut field_models[f]);
            let (p, samples) = (chunk.predicted[f - lo], &chunk.samples[f - lo]);
            let value = if unchanged {
                probe.field(class, f, 0, p.candidate, true);
                p.value
            } else {
                let history = History { table, samples: *samples, len: k };
                let target = targets.get(f).copied().unwrap_or(0);
                let (value, cost) = code_probed::<P, _>(coder, field, model, &history, p, target);
                probe.field(class, f, cost, p.candidate, false);
                value
            };
            side.store(h, f, value);
            check.add(value as u32);
        }
        lo = hi;
    }
    Ok(())
}

/// Codes one entering entity's values against the zero predictor.
#[allow(clippy::too_many_arguments)]
fn code_entry<'s, C: BinaryCoder, S: Side<'s>, P: Probe>(
    coder: &mut C,
    side: &mut S,
    probe: &mut P,
    schema: &Schema,
    models: &mut [Model],
    class: usize,
    h: u32,
    check: &mut Check,
) -> Result<()> {
    let fields = schema.classes.get(class).ok_or(Error::Corrupt)?.fields;
    let start = ModelLayout::class_base(schema, class) + 1;
    let field_models = models.get_mut(start..start + fields.len()).ok_or(Error::Corrupt)?;
    let targets = side.target_row(h);
    for (f, (field, model)) in fields.iter().zip(field_models.iter_mut()).enumerate() {
        let target = targets.get(f).copied().unwrap_or(0);
        let p = Prediction { candidate: None, value: field.clamp(0) };
        let (value, cost) = code_probed::<P, _>(coder, field, model, &NO_HISTORY, p, target);
        probe.field(class, f, cost, None, false);
        side.store(h, f, value);
        check.add(value as u32);
    }
    Ok(())
}

/// The history of an entity that has none.
const NO_HISTORY: History<'static> =
    History { table: &PredictorTable::new(&[]), samples: [0; MAX_SAMPLES], len: 0 };

/// Codes the body of a packet (everything between the header and the check value) and
/// returns the check value of the frame.
pub(crate) fn code_body<'s, C: BinaryCoder, S: Side<'s>, P: Probe>(
    coder: &mut C,
    side: &mut S,
    probe: &mut P,
    schema: &Schema,
    models: &mut [Model],
    refs: &Refs,
) -> Result<u32> {
    let mut check = Check::new();
    let handles = side.handles();
    // Reused by every entity: entries past an entity's history or fields hold stale values,
    // which only ever meet zero weights.
    let mut chunk = Chunk::EMPTY;
    if refs.base().is_some() {
        for h in 0..handles {
            if !side.base_present(h) {
                continue;
            }
            let hint = side.keep_hint(h);
            if models[ModelLayout::PACKET].code_flag(coder, FLAG_KEPT, hint) {
                let class = side.base_class(h);
                side.begin(h, class, None, false)?;
                check.add(h);
                code_update(
                    coder, side, probe, schema, models, refs, &mut chunk, class, h, &mut check,
                )?;
            }
        }
    }

    let hint = side.enter_count_hint();
    let count = models[ModelLayout::PACKET].code_count(coder, COUNT_ENTERED, hint as i32);
    if count < 0 || count as u32 > handles {
        return Err(Error::Corrupt);
    }
    let mut next = 0u32;
    for _ in 0..count {
        let (hint_h, hint_class, hint_age, hint_own) =
            if S::ENCODER { side.next_enter_hint() } else { (0, 0, 0, false) };
        let packet = &mut models[ModelLayout::PACKET];
        let gap = packet.code_count(coder, COUNT_HANDLE_GAP, hint_h.wrapping_sub(next) as i32);
        let class = if schema.classes.len() > 1 {
            packet.code_count(coder, COUNT_CLASS, hint_class as i32)
        } else {
            0
        };
        let handle_age = packet.code_count(coder, COUNT_HANDLE_AGE, hint_age as i32);
        let own = packet.code_flag(coder, FLAG_OWN, hint_own);
        let h = next.wrapping_add(gap as u32);
        if gap < 0
            || h >= handles
            || class < 0
            || class as usize >= schema.classes.len()
            || handle_age < 0
        {
            return Err(Error::Corrupt);
        }
        side.begin(h, class as usize, Some(handle_age as u32), own)?;
        check.add(h);
        check.add(u32::from(own));
        code_entry(coder, side, probe, schema, models, class as usize, h, &mut check)?;
        next = h + 1;
    }
    Ok(check.value())
}
