//! The packet body, described once for both ends.
//!
//! A packet for frame `n` against baseline `b` holds, after the header:
//! 1. the history: up to three more acknowledged frames before `b` that predictors may use;
//! 2. a "hold all" flag: if set, frame `n` is frame `b` as it stands, and nothing follows but
//!    the check value (the packet a byte budget too small for anything else still allows);
//! 3. for every handle present at `b`, in ascending order, whether it is kept;
//! 4. the entities entering, each behind a "one more" flag: its handle (as a gap from the
//!    previous one), class, the age of its handle, whether it is the client's own, and its
//!    values against the zero predictor or one of the last few entities of its class entering
//!    in the packet (see [`Model::code_entry`] and `engine::entering`);
//! 5. for every kept handle with an update group due (see [`due_groups`]), in ascending
//!    order, a "held" flag; an entity not held sends an "unchanged" flag (every due field
//!    equals its prediction), else each due field's residual against the prediction of its
//!    cheapest candidate. Fields of groups not due, and held entities, keep the values the
//!    client holds at `b`;
//! 6. a check value over every handle and value of frame `n` that the packet sets: 16 bits
//!    with a baseline, 32 without.
//!
//! Encoder and decoder run the same walk ([`code_body`]) through a [`Coder`]; a [`Side`]
//! supplies what only one end knows (the encoder's targets, sets and packing decisions) and
//! stores what the decoder learns. The encoder packs to its byte budget as it goes: before an
//! entity that might not fit it marks the coder and saves the models the entity touches, and
//! if the entity overflows, rewinds and holds it (see [`crate::engine::pack`]).

use core::ops::Range;

use crate::blend::quat_at;
use crate::codec::coder::{BinaryCoder, Decoder, Encoder, Mark, Metered};
use crate::codec::prob::{BitModel, COST_FRAC_BITS, bit_cost};
use crate::engine::ack::{fnv, mix32};
use crate::engine::entering::Entered;
use crate::engine::frame::{ARCHIVE, MAX_REACH, NO_FRAME, REACH, WINDOW, age, span, to_wire};
use crate::engine::pack::{self, Budget};
use crate::engine::probe::{Part, Probe};
use crate::model::contract::{Attached, Rows};
use crate::model::predict::{EVENLY_SPACED, MAX_SAMPLES, Predictor, PredictorTable};
use crate::model::{COUNT_SLOTS, History, Model, ModelLayout, Prediction, neighbour};
use crate::schema::{Class, Coding, Field, KeySlot, MAX_SLOT_STRIDE, Schema};
use crate::{Error, Result};

/// Bits of the frame number in the header of a packet without baseline: all of them, so that
/// a client numbers frames as its server does however long it heard nothing (a packet with a
/// baseline names a frame the client holds, numbered alike).
pub(crate) const FRAME_BITS: u32 = 32;
/// Bits of the baseline's name (its frame number shifted right by the reach that stored it)
/// sent to name it. The client holds one frame per name modulo [`WINDOW`] (5 bits); the two
/// bits more reject a packet delayed by up to three spans whose baseline the client has
/// replaced since.
pub(crate) const BASE_ID_BITS: u32 = WINDOW.trailing_zeros() + 2;
const _: () = assert!(WINDOW.is_power_of_two());
/// Bits of the check value at the end of a packet with a baseline.
pub(crate) const CHECK_BITS: u32 = 16;
/// Bits of the check value at the end of a packet without baseline. Such a packet is what a
/// client that holds nothing accepts, whatever its frame, so its check must not pass by chance
/// even under a flood of random datagrams; it codes every visible entity anyway, so the two
/// bytes more are little.
pub(crate) const COLD_CHECK_BITS: u32 = 32;

/// Bits of the check value of the packet for `refs`.
#[inline]
pub(crate) fn check_bits(refs: &Refs) -> u32 {
    if refs.base().is_some() { CHECK_BITS } else { COLD_CHECK_BITS }
}

// Flags of the packet-structure model.
const FLAG_KEPT: usize = 0;
const FLAG_MORE_HISTORY: usize = 1;
/// After the three history flags.
const FLAG_OWN: usize = 4;
const FLAG_HOLD_ALL: usize = 5;
pub(crate) const FLAG_HELD: usize = 6;
const FLAG_MORE_ENTERING: usize = 7;
// Integers of the packet-structure model.
/// 0: every kept entity with a group due is sent (no "held" flags); 1: some may be held.
const COUNT_MODE: usize = 0;
const COUNT_HANDLE_GAP: usize = 1;
const COUNT_HANDLE_AGE: usize = 2;
const COUNT_HISTORY_GAP: usize = 3;
const COUNT_CLASS: usize = 4;
const COUNT_DISTANCE: usize = 5;
const _: () = assert!(COUNT_DISTANCE < COUNT_SLOTS);

/// What a packet's decoding depends on besides its bytes: the frames it refers to and the
/// session it belongs to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Refs {
    /// The session both ends were given (see `Peer::set_session`); 0 if none.
    pub session: u64,
    /// The frame the packet carries.
    pub frame: u32,
    /// History frames, newest first; `history[0]` is the baseline. Empty without baseline.
    pub history: [u32; MAX_SAMPLES],
    /// Number of history frames.
    pub len: usize,
    /// Frames from each history frame to `frame`.
    pub offsets: [u32; MAX_SAMPLES],
    /// Predictor vectors for the history's offsets.
    pub table: PredictorTable,
    /// Under the batched policy, the first frame of the batch whose model the packet starts
    /// from; [`NO_FRAME`] for cold models, and under the per-frame policy.
    pub model: u32,
    /// The packet's reach (see [`crate::engine::frame::span`]): with a baseline, the one its
    /// distance and the baseline's reach give (`reach_after`); without, the one the header
    /// sends. 0 until the caller sets it.
    pub reach: u32,
}

impl Refs {
    /// References for `frame` with the given history (newest first, baseline first).
    pub(crate) fn new(session: u64, frame: u32, history: &[u32]) -> Refs {
        let mut refs = Refs {
            session,
            frame,
            history: [0; MAX_SAMPLES],
            len: 0,
            offsets: [0; MAX_SAMPLES],
            table: PredictorTable::new(&[]),
            model: NO_FRAME,
            reach: 0,
        };
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

    /// Frames from the baseline to the packet's frame (0 without baseline).
    pub(crate) fn distance(&self) -> u32 {
        self.base().map_or(0, |b| age(self.frame, b))
    }

    fn update_table(&mut self) {
        let mut offsets = [0u32; MAX_SAMPLES];
        for (o, &t) in offsets.iter_mut().zip(&self.history[..self.len]) {
            *o = age(self.frame, t);
        }
        self.offsets = offsets;
        self.table = if offsets[..self.len] == [1, 2, 3, 4][..self.len] {
            EVENLY_SPACED
        } else {
            PredictorTable::new(&offsets[..self.len])
        };
    }
}

/// Whether values the client holds from `lag` frames before history frame `t` can still serve
/// the packet for `frame`: the server's archive keeps the last [`ARCHIVE`] frames.
#[inline]
pub(crate) fn in_window(frame: u32, t: u32, lag: u8) -> bool {
    age(frame, t) + u32::from(lag) < ARCHIVE
}

/// The update groups of `class` due in a packet: bit `g` is set when what the client holds of
/// group `g` is at least its interval old. `staleness(g)` is how old it is at the new frame.
#[inline]
pub(crate) fn due_groups(class: &Class, mut staleness: impl FnMut(usize) -> u32) -> u32 {
    if class.groups.is_empty() {
        // One group sent every frame.
        return 1;
    }
    (0..class.group_count()).fold(0, |due, g| {
        due | (u32::from(staleness(g) >= u32::from(class.group(g).interval)) << g)
    })
}

/// The mask of every update group of `class`.
#[inline]
fn all_groups(class: &Class) -> u32 {
    u32::MAX >> (32 - class.group_count().min(32))
}

/// Writes a handle's lags at the new frame into `lags` (one per group of the schema): 0 for
/// the groups in `due`, sent in this packet, and for those past the class's `groups`; for the
/// others, held, how old their values are (`staleness(g)`). `lags` may run over several
/// handles when `groups` is `usize::MAX` and `due` is 0. Returns the largest lag written.
#[inline]
pub(crate) fn write_lags(
    lags: &mut [u8],
    groups: usize,
    due: u32,
    staleness: impl Fn(usize) -> u32,
) -> u8 {
    if let ([lag], true) = (&mut *lags, due & 1 != 0) {
        // One group, sent: the common case.
        *lag = 0;
        return 0;
    }
    let mut largest = 0;
    for (g, lag) in lags.iter_mut().enumerate() {
        *lag = if g >= groups || (g < 32 && due >> g & 1 != 0) {
            0
        } else {
            staleness(g).min(u32::from(u8::MAX)) as u8
        };
        largest = largest.max(*lag);
    }
    largest
}

/// The coders a packet is walked with: the encoder can mark its state and rewind to it.
pub(crate) trait Coder: BinaryCoder {
    /// The encoder's mark (nothing on the decoder).
    fn mark(&self) -> Option<Mark>;
    /// Rewinds to `mark` (never called on the decoder).
    fn rewind(&mut self, mark: Option<Mark>);
    /// An upper bound on the packet's length if it ended now (0 on the decoder).
    fn len_bound(&self) -> usize;
    /// Information coded so far, in bits (0 on the decoder).
    fn bits(&self) -> u64;
    /// Decoder: whether it has read past anything that was sent (see
    /// [`Decoder::exhausted`]); checked at every handle so that a short packet cannot make
    /// the decoder work through a long one of zeros.
    fn exhausted(&self) -> bool;
}

impl Coder for Encoder<'_> {
    fn mark(&self) -> Option<Mark> {
        Some(Encoder::mark(self))
    }

    fn rewind(&mut self, mark: Option<Mark>) {
        if let Some(m) = mark {
            Encoder::rewind(self, m);
        }
    }

    fn len_bound(&self) -> usize {
        Encoder::len_bound(self)
    }

    fn bits(&self) -> u64 {
        Encoder::bits(self)
    }

    fn exhausted(&self) -> bool {
        false
    }
}

impl Coder for Decoder<'_> {
    fn mark(&self) -> Option<Mark> {
        None
    }

    fn rewind(&mut self, _: Option<Mark>) {}

    fn len_bound(&self) -> usize {
        0
    }

    fn bits(&self) -> u64 {
        0
    }

    fn exhausted(&self) -> bool {
        Decoder::exhausted(self)
    }
}

/// History samples of up to [`CHUNK`] consecutive fields of one entity, newest first; past
/// the entity's history they are left over from earlier entities, and only ever multiplied by
/// zero weights.
pub(crate) type Samples = [[i32; MAX_SAMPLES]; CHUNK];

/// What one end of the walk knows and keeps. Rows it hands out live as long as the side
/// (`'s`), independently of the borrow of the side itself.
pub(crate) trait Side<'s> {
    /// True for the encoder: hints are real and packing decisions are made.
    const ENCODER: bool;
    /// Number of handles.
    fn handles(&self) -> u32;
    /// Whether handle `h` is present at the baseline.
    fn base_present(&self, h: u32) -> bool;
    /// Class of handle `h` at the baseline.
    fn base_class(&self, h: u32) -> usize;
    /// How old, at the new frame, the values of group `g` of `h` held at the baseline are.
    fn staleness(&self, h: u32, g: usize) -> u32;
    /// Whether `h` has been started in the new frame.
    fn present(&self, h: u32) -> bool;
    /// Encoder: whether `h`'s entity is must-have (the client's own or essential), ranked
    /// ahead of everything under a byte budget; false on the decoder.
    fn must_have(&self, h: u32) -> bool;
    /// Encoder: whether `h` is kept from the baseline.
    fn keep_hint(&self, h: u32) -> bool;
    /// Encoder: the next entering handle to try, its class, the age of its handle and whether
    /// it is the client's own; `None` when no more are wanted.
    fn next_enter_hint(&mut self) -> Option<(u32, usize, u32, bool)>;
    /// Encoder: decides what to try to send, once the kept handles are known, `len` bytes
    /// into the packet.
    fn plan(&mut self, len: usize);
    /// Encoder: the byte budget and the plan (`None` on the decoder).
    fn packer(&mut self) -> Option<&mut Budget<'s>>;
    /// Starts handle `h` in the new frame: kept from the baseline (`age` is `None`, `own` is
    /// ignored) or entering with a handle that is `age` frames old, own or not. The decoder
    /// rejects a handle that is already present.
    fn begin(&mut self, h: u32, class: usize, age: Option<u32>, own: bool) -> Result<()>;
    /// Encoder: forgets an entering `h` that did not fit.
    fn unbegin(&mut self, h: u32);
    /// How many of the history frames (from the newest) hold the same entity at `h` with
    /// values still in the server's window.
    fn history_len(&self, h: u32, class: &Class) -> usize;
    /// The frames the values of `h`'s default update group at the first `k` history frames
    /// came from (history frame minus lag), or `None` when they are the history frames
    /// themselves (nothing held).
    fn sources(&self, h: u32, k: usize) -> Option<[u32; MAX_SAMPLES]>;
    /// Fills `samples` with the values of fields `lo..` (at most [`CHUNK`]) of `h`, of
    /// `class`, at the first `k` history frames.
    fn samples(&self, h: u32, k: usize, lo: usize, class: &Class, samples: &mut Samples);
    /// Encoder: the values to send for `h` (empty on the decoder).
    fn target_row(&self, h: u32) -> &'s [i32];
    /// Records the value of field `f` of `h` at the new frame: `coded` in this packet or kept
    /// from the baseline; `tolerant` is the field's index among its class's fields with a
    /// tolerance.
    fn store(&mut self, h: u32, f: usize, value: i32, coded: bool, tolerant: Option<usize>);
    /// Records which groups of `h` were sent in this packet (`due`; the others are kept).
    fn sent_groups(&mut self, h: u32, class: &Class, due: u32);
    /// Keeps every value of `h` from the baseline.
    fn hold(&mut self, h: u32, class: &Class);
    /// Makes the new frame the baseline as it stands.
    fn hold_all(&mut self);
}

/// Running check value over the handles and values of a frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Check(u32);

impl Check {
    /// A check value started over what the header says: the schema, the session, the frame
    /// (whole: both ends number frames alike) and the history frames (as their wire numbers),
    /// so that a header damaged in transit fails the check like a damaged body, and a packet
    /// of another session like a damaged one.
    fn header(schema: &Schema, refs: &Refs) -> Self {
        let mut check = Check(0x811c_9dc5);
        check.add(schema.hash as u32);
        check.add((schema.hash >> 32) as u32);
        if refs.session != 0 {
            check.add(refs.session as u32);
            check.add((refs.session >> 32) as u32);
        }
        check.add(refs.frame);
        for &t in &refs.history[..refs.len] {
            check.add(u32::from(to_wire(t)));
        }
        if refs.model != NO_FRAME {
            check.add(refs.model);
        }
        check.add(refs.reach);
        check
    }

    #[inline(always)]
    fn add(&mut self, v: u32) {
        self.0 = fnv(self.0, v);
    }

    /// The value sent in `bits` ([`CHECK_BITS`] or [`COLD_CHECK_BITS`]): the hash folded to
    /// 16 bits, or mixed so that every bit depends on every input.
    pub(crate) fn value(&self, bits: u32) -> u32 {
        if bits < 32 {
            return (self.0 ^ (self.0 >> bits)) & ((1 << bits) - 1);
        }
        mix32(self.0)
    }
}

/// Bits of the bit length of a batched packet's model age (see [`code_model`]).
const MODEL_CLASS_BITS: u32 = 5;

/// Codes, in a batched packet's header, which model it starts from (`model`): the bit length
/// of its age `reference − model` in [`MODEL_CLASS_BITS`] direct bits (0: cold models), then
/// the age's bits below the leading one. `reference` is the baseline, or without one the
/// packet's frame. The encoder names models less than 2^31 frames old (see `Book::in_use`).
/// The decoder fills `model`.
pub(crate) fn code_model<C: BinaryCoder>(
    coder: &mut C,
    model: &mut u32,
    reference: u32,
) -> Result<()> {
    let age = match *model {
        NO_FRAME => 0,
        m => age(reference, m) & (u32::MAX >> 1),
    };
    let class = coder.direct(32 - age.leading_zeros(), MODEL_CLASS_BITS);
    *model = match class {
        0 => NO_FRAME,
        c => {
            let top = 1u32 << (c - 1);
            let m = reference.wrapping_sub(top + coder.direct(age.wrapping_sub(top), c - 1));
            if m == NO_FRAME {
                return Err(Error::Corrupt);
            }
            m
        }
    };
    Ok(())
}

/// Bits of a packet without baseline's reach.
const REACH_BITS: u32 = 2;
const _: () = assert!(MAX_REACH < 1 << REACH_BITS);

/// Codes, in a packet without baseline, its reach (`reach`, at most [`MAX_REACH`]) in
/// [`REACH_BITS`] direct bits: the server's round trip decides it, as there is no baseline
/// distance to give it. Returns the reach; the decoder rejects one past [`MAX_REACH`].
pub(crate) fn code_cold_reach<C: BinaryCoder>(coder: &mut C, reach: u32) -> Result<u32> {
    match coder.direct(reach, REACH_BITS) {
        r if r <= MAX_REACH => Ok(r),
        _ => Err(Error::Corrupt),
    }
}

/// Codes, in a packet with a baseline, the baseline's distance from the packet's frame
/// (`distance`, 1 to `REACH − 1` on the encoder) as its difference from `before`, the
/// baseline distance of the packet that made the baseline (0 if it had none), which both ends
/// hold: the distance follows the round trip, so it mostly repeats. Returns the distance; the
/// decoder rejects one outside the window.
pub(crate) fn code_distance<C: BinaryCoder>(
    coder: &mut C,
    packet: &mut Model,
    distance: u32,
    before: u32,
) -> Result<u32> {
    let d = packet.code_count(coder, COUNT_DISTANCE, distance.wrapping_sub(before) as i32);
    match before.checked_add_signed(d) {
        Some(d) if d > 0 && d < REACH => Ok(d),
        _ => Err(Error::Corrupt),
    }
}

/// The frame history sample `len` (1 or more) is picked near: `len + 1` times the baseline's
/// distance back from the packet's frame, within the span of the packet's `reach` and before
/// sample `len − 1`, which is `previous` frames back. `None` when no frame is left between
/// that one and the span's end. The server picks the acknowledged frame nearest it (see
/// `Peer::references`).
#[inline]
pub(crate) fn history_target(distance: u32, len: usize, previous: u32, reach: u32) -> Option<u32> {
    let end = span(reach);
    (previous + 1 < end).then(|| (distance * (len as u32 + 1)).clamp(previous + 1, end - 1))
}

/// Codes the history list: which acknowledged frames before the baseline predictors use. Each
/// is coded behind a "more" flag (none once the window is used up) as its distance from
/// [`history_target`]. The decoder fills `refs` and rejects frames outside the span.
pub(crate) fn code_history<C: BinaryCoder>(
    coder: &mut C,
    packet: &mut Model,
    refs: &mut Refs,
) -> Result<()> {
    if refs.len == 0 {
        return Ok(());
    }
    let distance = refs.distance();
    let mut len = 1;
    while len < MAX_SAMPLES {
        let previous = age(refs.frame, refs.history[len - 1]);
        let Some(target) = history_target(distance, len, previous, refs.reach) else {
            break;
        };
        if !packet.code_flag(coder, FLAG_MORE_HISTORY + len - 1, len < refs.len) {
            break;
        }
        let back = age(refs.frame, refs.history[len]);
        let off = packet.code_count(coder, COUNT_HISTORY_GAP, back.wrapping_sub(target) as i32);
        let back = target.wrapping_add(off as u32);
        if back <= previous || back >= span(refs.reach) {
            return Err(Error::Corrupt);
        }
        refs.history[len] = refs.frame.wrapping_sub(back);
        len += 1;
    }
    refs.len = len;
    refs.update_table();
    Ok(())
}

/// Evaluates `$body` with `$coder` (a coder variable) metered, and reports its cost to
/// `$probe` as structure part `$part`, when the probe type `P` in scope listens.
macro_rules! structure {
    ($probe:expr, $part:expr, $coder:ident => $body:expr) => {{
        if P::LISTENS {
            let mut meter = Metered::new(&mut *$coder);
            let value = {
                let $coder = &mut meter;
                $body
            };
            $probe.structure($part, meter.cost);
            value
        } else {
            $body
        }
    }};
}

/// Fields of an entity handled together: their samples and predictions live on the stack.
pub(crate) const CHUNK: usize = 16;
const _: () = assert!(MAX_SLOT_STRIDE as usize <= CHUNK, "a keyframe slot fits in a chunk");

/// The history an entity's prediction uses: the first `fetched` history frames, of which the
/// samples at `picks` (one per distinct frame its values came from, so that a value held over
/// several frames counts once, at its true age, `offsets` frames before the packet's) with
/// predictor vectors `table`.
#[derive(Clone, Copy)]
struct Hist<'t> {
    fetched: usize,
    picks: Option<([u8; MAX_SAMPLES], usize)>,
    offsets: [u32; MAX_SAMPLES],
    table: &'t PredictorTable,
}

impl Hist<'_> {
    /// Samples the predictors see.
    #[inline(always)]
    fn len(&self) -> usize {
        self.picks.map_or(self.fetched, |(_, len)| len)
    }
}

/// Predictor tables for the offsets of held histories, the last few kept: entities held
/// alike share them.
struct Tables {
    keys: [([u32; MAX_SAMPLES], usize); TABLES],
    tables: [PredictorTable; TABLES],
    used: usize,
    next: usize,
}

/// Predictor tables [`Tables`] keeps.
const TABLES: usize = 4;

impl Tables {
    const EMPTY: Tables = Tables {
        keys: [([0; MAX_SAMPLES], 0); TABLES],
        tables: [EVENLY_SPACED; TABLES],
        used: 0,
        next: 0,
    };

    /// The table for `offsets` (newest first, distinct).
    fn get(&mut self, offsets: [u32; MAX_SAMPLES], len: usize) -> &PredictorTable {
        let key = (offsets, len);
        if let Some(i) = self.keys[..self.used].iter().position(|k| *k == key) {
            return &self.tables[i];
        }
        let i = self.next;
        self.keys[i] = key;
        self.tables[i] = PredictorTable::new(&offsets[..len]);
        self.next = (i + 1) % TABLES;
        self.used = (self.used + 1).min(TABLES);
        &self.tables[i]
    }
}

/// History samples below which the contract is not run: its candidate needs this many.
const CONTRACT_SAMPLES: usize = Predictor::Contract.samples();

/// Samples and predictions of up to [`CHUNK`] consecutive fields of one entity.
struct Chunk {
    samples: Samples,
    /// Prediction per field.
    predicted: [Prediction; CHUNK],
    /// The contract's prediction per field, if `contracted`.
    contract: [i32; CHUNK],
    /// Whether the schema's contract predicted these fields: the first chunk of a class of at
    /// most [`CHUNK`] fields, if the contract did not fail.
    contracted: bool,
}

impl Chunk {
    const EMPTY: Chunk = Chunk {
        samples: [[0; MAX_SAMPLES]; CHUNK],
        predicted: [Prediction { candidate: None, value: 0 }; CHUNK],
        contract: [0; CHUNK],
        contracted: false,
    };

    /// The contract's prediction of field `f` of the chunk, if any.
    #[inline(always)]
    fn contract_of(&self, f: usize) -> Option<i32> {
        self.contracted.then(|| self.contract[f % CHUNK])
    }

    /// Loads the samples of the fields of `class` from `lo` on (at most [`CHUNK`]) of `h`
    /// from its history `hist`, runs the schema's `contract` (with the class's index) on a
    /// class that fits one chunk, and predicts each field with its model (`models`, from `lo`
    /// on).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn fill<'s, S: Side<'s>>(
        &mut self,
        side: &S,
        h: u32,
        hist: &Hist<'_>,
        lo: usize,
        class: (usize, &Class),
        contract: Option<&Attached>,
        models: &[Model],
    ) {
        let (index, class) = class;
        side.samples(h, hist.fetched, lo, class, &mut self.samples);
        let fields = class.fields.get(lo..).unwrap_or(&[]);
        let n = fields.len().min(CHUNK);
        if let Some((picks, len)) = hist.picks {
            for s in &mut self.samples[..n] {
                for m in 0..len {
                    s[m] = s[usize::from(picks[m]) % MAX_SAMPLES];
                }
            }
        }
        self.contracted = false;
        let k = hist.len();
        if let Some(a) =
            contract.filter(|_| lo == 0 && fields.len() <= CHUNK && k >= CONTRACT_SAMPLES)
        {
            let rows = Rows::new(&self.samples[..n], &hist.offsets[..k]);
            self.contracted = a.run(index, fields, &rows, &mut self.contract[..n]);
        }
        self.predict(fields, 0..n.min(models.len()), hist, models);
    }

    /// Predicts fields `range` of the chunk (of `fields`, the chunk's) from their samples with
    /// their models (`models`, the chunk's).
    #[inline(always)]
    fn predict(
        &mut self,
        fields: &[Field],
        range: Range<usize>,
        hist: &Hist<'_>,
        models: &[Model],
    ) {
        let (table, k) = (hist.table, hist.len());
        for f in range {
            let (Some(field), Some(model)) = (fields.get(f), models.get(f)) else {
                return;
            };
            let samples = &self.samples[f % CHUNK];
            let contract = self.contract_of(f);
            self.predicted[f % CHUNK] = match field.coding {
                Coding::Numeric(c) => {
                    let history = History { table, samples, len: k, contract, neighbour: 0 };
                    model.predict(field, c, &history)
                }
                Coding::Categorical => Prediction { candidate: None, value: samples[0] },
            };
        }
    }

    /// After field `i` of the chunk (of `fields`, the chunk's) is coded as `value`: if it is
    /// the index of a quaternion whose components are in the chunk, re-expresses every history
    /// sample of another index in the basis of `value` ([`QuatQuant::rebase`]) and predicts
    /// the components again, so they are coded against the rotation the history holds rather
    /// than against components of another basis.
    #[inline(never)]
    fn rebase_quat(
        &mut self,
        fields: &[Field],
        i: usize,
        value: i32,
        hist: &Hist<'_>,
        models: &[Model],
    ) {
        let Some(quant) = quat_at(fields, i).filter(|_| i + 4 <= CHUNK) else {
            return;
        };
        let k = hist.len();
        let rows = &mut self.samples[i..i + 4];
        if rows[0][..k].iter().all(|&index| index == value) {
            return;
        }
        for m in 0..k {
            let raw = quant.rebase([rows[0][m], rows[1][m], rows[2][m], rows[3][m]], value);
            for (row, r) in rows.iter_mut().zip(raw) {
                row[m] = r;
            }
        }
        self.predict(fields, i + 1..i + 4, hist, models);
    }
}

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
fn predicts(field: &Field, p: i32, truth: i32) -> bool {
    p == truth || (field.tolerance > 0 && field.coded_residual(truth, p) == 0)
}

/// The common arguments of the walk.
struct Walk<'a, 'p, P> {
    probe: &'p mut P,
    schema: &'a Schema,
    refs: &'a Refs,
    check: Check,
    /// Whether the last kept entity updated so far was not "unchanged": moving entities come
    /// in runs of neighbouring handles, so it is a context of the next one's flag.
    moved: bool,
    chunk: Chunk,
    tables: Tables,
    /// What the next entering entity of each class is predicted from.
    entered: Entered,
}

impl<P: Probe> Walk<'_, '_, P> {
    /// Codes the update of kept entity `h` of `class` with `k` history samples, sending the
    /// fields of the groups in `due`.
    #[allow(clippy::too_many_arguments)]
    fn update<'s, C: BinaryCoder, S: Side<'s>>(
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
        let hist = match side.sources(h, k) {
            None => {
                let (offsets, table) = (self.refs.offsets, &self.refs.table);
                Hist { fetched: k, picks: None, offsets, table }
            }
            Some(sources) => {
                let (mut picks, mut offsets, mut len) = ([0u8; MAX_SAMPLES], [0; MAX_SAMPLES], 0);
                for (j, &s) in sources.iter().enumerate().take(k) {
                    if !sources[..j].contains(&s) {
                        (picks[len], offsets[len]) = (j as u8, age(self.refs.frame, s));
                        len += 1;
                    }
                }
                let table = self.tables.get(offsets, len);
                Hist { fetched: k, picks: Some((picks, len)), offsets, table }
            }
        };
        let (k, table) = (hist.len(), hist.table);
        let contract = self.schema.contract.as_ref();
        let chunk = &mut self.chunk;
        // Without tolerances and with every group due, every field is coded exactly: the
        // common case, kept free of the per-field tests below.
        let simple = self.schema.max_tolerant == 0 && due == all_groups(c);
        let is_due = |f: &Field| simple || due >> f.group & 1 != 0;

        // The context: how many fields changed between the entity's two newest samples (none,
        // one, more, or no two samples)? Counted over the first chunk of fields only.
        chunk.fill(side, h, &hist, 0, (class, c), contract, field_models);
        let changed = chunk.samples[..n.min(CHUNK)].iter().filter(|s| s[0] != s[1]).count();
        let motion = if k >= 2 { changed.min(2) } else { 3 };
        // On the encoder: does every due field equal (within tolerance) its prediction?
        let mut exact = S::ENCODER && targets.len() == n;
        let mut lo = 0;
        while exact && lo < n {
            if lo > 0 {
                chunk.fill(side, h, &hist, lo, (class, c), contract, &field_models[lo..]);
            }
            let hi = (lo + CHUNK).min(n);
            exact = if simple {
                let (predicted, targets) = (&chunk.predicted[..hi - lo], &targets[lo..hi]);
                predicted.iter().zip(targets).all(|(p, &t)| p.value == t)
            } else {
                (lo..hi).all(|f| {
                    let p = chunk.predicted[f - lo].value;
                    !is_due(&fields[f]) || predicts(&fields[f], p, targets[f])
                })
            };
            lo = hi;
        }
        let context = motion + 4 * usize::from(self.moved);
        let unchanged = structure!(self.probe, Part::Unchanged, coder => entity.code_flag(coder, context, exact));
        self.moved = !unchanged;

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
        let mut recent: Recent = [0; CHUNK];
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
                    let renewal = field.slot.and_then(|slot| {
                        let baseline = |at: usize| match at.checked_sub(lo) {
                            Some(i) if i < CHUNK => chunk.samples[i][0],
                            _ => baseline_value(&*side, h, at, c),
                        };
                        renewed(f, slot, &recent, baseline).map(|v| field.clamp(i64::from(v)))
                    });
                    let contract = chunk.contract_of(f - lo);
                    let history = History { table, samples, len: k, contract, neighbour: near };
                    let target = targets.get(f).copied().unwrap_or(0);
                    let against = match renewal {
                        // A new keyframe: coded as a step from the one before, as an entry.
                        Some(previous) => Against::Entry(Some(previous)),
                        None => Against::History(&history, p),
                    };
                    let (value, cost) = code_probed::<P, _>(coder, field, model, against, target);
                    let candidate = if renewal.is_some() { None } else { p.candidate };
                    self.probe.field(class, f, cost, candidate, false);
                    near = neighbour(field, value, p.value);
                    if field.coding == Coding::Categorical {
                        let models = &field_models[lo..];
                        chunk.rebase_quat(&fields[lo..], f - lo, value, &hist, models);
                    }
                    value
                };
                side.store(h, f, value, coded, tol);
                self.check.add(value as u32);
                recent[f % CHUNK] = value;
            }
            lo = hi;
        }
        side.sent_groups(h, c, due);
        Ok(())
    }

    /// Codes one entering entity's values (see [`Against::Entry`]); the caller commits them
    /// to [`Walk::entered`] if the entity stays in the packet.
    fn entry<'s, C: BinaryCoder, S: Side<'s>>(
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
}

/// The values an update coded last, at their field index modulo [`CHUNK`]: a keyframe's frame
/// or value finds its slot's flag and the slot before it there (a slot is at most [`CHUNK`]
/// fields).
type Recent = [i32; CHUNK];

/// The prediction of keyframe field `f` in `slot` when the slot holds a new keyframe, that is
/// when the slot's flag, coded before it, is not 0 and differs from the one the client holds
/// (`baseline(i)`: field `i` at the baseline): the same field in the slot before, as coded in
/// this update, or for slot 0 the last slot's at the baseline. `None` when the slot keeps its
/// keyframe (or is empty), which is then predicted as any field is.
#[inline]
fn renewed(
    f: usize,
    slot: KeySlot,
    recent: &Recent,
    baseline: impl Fn(usize) -> i32,
) -> Option<i32> {
    let flag = slot.flag_field(f);
    let now = recent[flag % CHUNK];
    if now == 0 || now == baseline(flag) {
        return None;
    }
    let previous = slot.previous_field(f);
    Some(if previous < f { recent[previous % CHUNK] } else { baseline(previous) })
}

/// Field `f` of `h` (of `class`) at the baseline.
fn baseline_value<'s, S: Side<'s>>(side: &S, h: u32, f: usize, class: &Class) -> i32 {
    let mut samples = [[0; MAX_SAMPLES]; CHUNK];
    side.samples(h, 1, f, class, &mut samples);
    samples[0][0]
}

/// What an attempt to code one entity must restore if it is rolled back.
struct Attempt {
    mark: Option<Mark>,
    check: Check,
    moved: bool,
    probe: usize,
    /// The models saved (see [`class_span`]).
    span: (usize, usize),
}

/// Saves what coding an entity of `class` touches, when the encoder is near its budget.
fn save<C: Coder, P: Probe>(
    coder: &C,
    walk: &Walk<'_, '_, P>,
    models: &[Model],
    saved: &mut [Model],
    class: usize,
) -> Attempt {
    let span = class_span(walk.schema, class);
    if let (Some(to), Some(from)) = (saved.get_mut(..span.1 + 1), models.get(..span.1 + 1)) {
        to[0] = from[0];
        to[span.0..].copy_from_slice(&from[span.0..]);
    }
    let (check, moved) = (walk.check, walk.moved);
    Attempt { mark: coder.mark(), check, moved, probe: walk.probe.mark(), span }
}

/// Undoes an attempt saved by [`save`].
fn restore<C: Coder, P: Probe>(
    coder: &mut C,
    walk: &mut Walk<'_, '_, P>,
    models: &mut [Model],
    saved: &[Model],
    attempt: Attempt,
) {
    let span = attempt.span;
    if let (Some(to), Some(from)) = (models.get_mut(..span.1 + 1), saved.get(..span.1 + 1)) {
        to[0] = from[0];
        to[span.0..].copy_from_slice(&from[span.0..]);
    }
    coder.rewind(attempt.mark);
    walk.check = attempt.check;
    walk.moved = attempt.moved;
    walk.probe.rewind(attempt.probe);
}

/// Models touched by coding an entity of `class`: the packet model (index 0) and the class's
/// models, as the range `span.0..=span.1`.
fn class_span(schema: &Schema, class: usize) -> (usize, usize) {
    let start = ModelLayout::class_base(schema, class);
    let fields = schema.classes.get(class).map_or(0, |c| c.fields.len());
    (start, start + fields)
}

/// Most bits one structural flag can cost (its probability never leaves `[2^-10, 1 - 2^-10]`).
const MAX_FLAG_BITS: u64 = 10;

/// Ideal cost, in bits, of holding every due kept handle not yet coded, from the packet
/// model's state now: what the encoder keeps in reserve to be able to end the packet.
fn held_tail_bits(models: &[Model], budget: &Budget<'_>) -> u64 {
    let m = budget.due_kept();
    let mut p = models[ModelLayout::PACKET].flag(FLAG_HELD);
    let mut units = 0u64;
    for i in 0..m {
        let cost = bit_cost(&p, true);
        if i >= 64 {
            // The cost only falls as the flag keeps saying "held": bound the rest by this one.
            units += u64::from(cost) * u64::from(m - i);
            break;
        }
        units += u64::from(cost);
        p.update(true);
    }
    units.div_ceil(1 << COST_FRAC_BITS)
}

/// Whether `bits` more and then holding every due kept handle not yet coded still fit the
/// budget: first at the dearest a flag can be, which settles it cheaply far from the budget,
/// then at the held flag's adaptive cost.
fn fits_with_tail(budget: &Budget<'_>, len_bound: usize, bits: u64, models: &[Model]) -> bool {
    budget.fits(len_bound, bits + u64::from(budget.due_kept()) * MAX_FLAG_BITS)
        || budget.fits(len_bound, bits + held_tail_bits(models, budget))
}

/// Codes the body of a packet (everything between the header and the check value) and
/// returns the check value of the frame. `saved` is the encoder's room for models it may
/// have to restore (empty on the decoder); `hold_all` is the encoder's choice of a packet that
/// holds everything.
#[allow(clippy::too_many_arguments)]
pub(crate) fn code_body<'s, C: Coder, S: Side<'s>, P: Probe>(
    coder: &mut C,
    side: &mut S,
    probe: &mut P,
    schema: &Schema,
    models: &mut [Model],
    saved: &mut [Model],
    refs: &Refs,
    hold_all: bool,
) -> Result<u32> {
    let mut walk = Walk {
        probe,
        schema,
        refs,
        check: Check::header(schema, refs),
        moved: false,
        chunk: Chunk::EMPTY,
        tables: Tables::EMPTY,
        entered: Entered::EMPTY,
    };
    let handles = side.handles();
    let based = refs.base().is_some();
    let packet = &mut models[ModelLayout::PACKET];
    if based
        && structure!(walk.probe, Part::Header, coder => packet.code_flag(coder, FLAG_HOLD_ALL, hold_all))
    {
        walk.check.add(u32::MAX);
        side.hold_all();
        for h in (0..handles).filter(|&h| side.base_present(h)) {
            walk.check.add(h);
        }
        return Ok(walk.check.value(CHECK_BITS));
    }

    // Kept and leaving handles.
    if based {
        for h in 0..handles {
            if !side.base_present(h) {
                continue;
            }
            if coder.exhausted() {
                return Err(Error::UnexpectedEnd);
            }
            let hint = side.keep_hint(h);
            let packet = &mut models[ModelLayout::PACKET];
            if structure!(walk.probe, Part::Kept, coder => packet.code_flag(coder, FLAG_KEPT, hint))
            {
                side.begin(h, side.base_class(h), None, false)?;
            }
        }
    }
    side.plan(coder.len_bound());
    // Whether every kept entity with a group due is sent: no "held" flags then.
    let complete = based
        && {
            let hint = side.packer().is_some_and(|b| b.complete_hint());
            let packet = &mut models[ModelLayout::PACKET];
            let mode = i32::from(!hint);
            match structure!(walk.probe, Part::Header, coder => packet.code_count(coder, COUNT_MODE, mode))
            {
                0 => true,
                1 => false,
                _ => return Err(Error::Corrupt),
            }
        };
    walk.check.add(u32::from(complete));

    // Entering handles.
    // The lowest handle the next entering entity may have, and the previous one's handle age:
    // entities spawned together take neighbouring handles and share an age.
    let (mut next, mut previous_age) = (0u32, 0i32);
    loop {
        let hint = side.next_enter_hint();
        let (hint_h, hint_class, hint_age, hint_own) = hint.unwrap_or((0, 0, 0, false));
        let mut attempt = None;
        let must = hint.is_some() && side.must_have(hint_h);
        if let (Some(b), Some(c)) = (side.packer(), schema.classes.get(hint_class)) {
            // Room for the entity at worst, the flag ending the list and every held flag.
            let len = coder.len_bound();
            if hint.is_some() {
                b.release(hint_h, must);
            }
            if hint.is_some() && !b.far(len) {
                let tail = pack::entity_bound_bits(c) + 2 * MAX_FLAG_BITS;
                if !fits_with_tail(b, len, tail, models) {
                    attempt = Some(save(coder, &walk, models, saved, hint_class));
                }
            }
        }
        if coder.exhausted() {
            return Err(Error::UnexpectedEnd);
        }
        let packet = &mut models[ModelLayout::PACKET];
        let Some((gap, class, handle_age, own)) = structure!(walk.probe, Part::Entering, coder => {
            packet.code_flag(coder, FLAG_MORE_ENTERING, hint.is_some()).then(|| {
                let gap = hint_h.wrapping_sub(next) as i32;
                let gap = packet.code_count(coder, COUNT_HANDLE_GAP, gap);
                let class = if schema.classes.len() > 1 {
                    packet.code_count(coder, COUNT_CLASS, hint_class as i32)
                } else {
                    0
                };
                let step = (hint_age as i32).wrapping_sub(previous_age);
                let handle_age =
                    previous_age.wrapping_add(packet.code_count(coder, COUNT_HANDLE_AGE, step));
                (gap, class, handle_age, packet.code_flag(coder, FLAG_OWN, hint_own))
            })
        }) else {
            break;
        };
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
        walk.check.add(h);
        walk.check.add(u32::from(own));
        walk.check.add(class as u32);
        walk.check.add(handle_age as u32);
        let start = coder.bits();
        walk.entry(coder, side, models, class as usize, h)?;
        if let Some(b) = side.packer() {
            let len = coder.len_bound();
            let tail = MAX_FLAG_BITS + held_tail_bits(models, b);
            if let Some(attempt) = attempt.filter(|_| !b.fits(len, tail)) {
                b.rolled_back(h, coder.bits() - start, len, tail);
                restore(coder, &mut walk, models, saved, attempt);
                side.unbegin(h);
                continue;
            }
            b.sent(h, coder.bits() - start);
        }
        walk.entered.commit();
        (next, previous_age) = (h + 1, handle_age);
    }

    // Updates of kept handles.
    if based {
        for h in 0..handles {
            if !side.base_present(h) || !side.present(h) {
                continue;
            }
            if coder.exhausted() {
                return Err(Error::UnexpectedEnd);
            }
            let class = side.base_class(h);
            let c = schema.classes.get(class).ok_or(Error::Corrupt)?;
            let due = due_groups(c, |g| side.staleness(h, g));
            if due == 0 {
                side.hold(h, c);
                walk.check.add(h);
                continue;
            }
            let k = side.history_len(h, c).min(refs.len);
            if k == 0 {
                return Err(Error::Corrupt);
            }
            let mut attempt = None;
            let mut want = true;
            if complete {
                let start = coder.bits();
                walk.check.add(h);
                walk.update(coder, side, models, class, h, k, due)?;
                if let Some(b) = side.packer() {
                    // Nothing may be held: an entity that does not fit fails the attempt.
                    let len = coder.len_bound();
                    if !b.far(len) && !b.fits(len, 0) {
                        return Err(Error::BufferFull);
                    }
                    b.sent(h, coder.bits() - start);
                }
                continue;
            }
            // Whether `h` is forced matters only if it is in the core of the selection.
            let core = side.packer().is_some_and(|b| b.in_core(h));
            let forced = core && {
                let oldest = (0..c.group_count()).map(|g| side.staleness(h, g)).max().unwrap_or(0);
                pack::forced(oldest, refs.distance()) || side.must_have(h)
            };
            if let Some(b) = side.packer() {
                b.next_due_kept();
                b.release(h, forced);
                want = b.selected(h);
                let len = coder.len_bound();
                if want && !b.far(len) {
                    let tail = pack::entity_bound_bits(c) + MAX_FLAG_BITS;
                    if !fits_with_tail(b, len, tail, models) {
                        attempt = Some(save(coder, &walk, models, saved, class));
                    }
                }
            }
            walk.check.add(h);
            let packet = &mut models[ModelLayout::PACKET];
            if structure!(walk.probe, Part::Held, coder => packet.code_flag(coder, FLAG_HELD, !want))
            {
                side.hold(h, c);
                continue;
            }
            let start = coder.bits();
            walk.update(coder, side, models, class, h, k, due)?;
            if let Some(b) = side.packer() {
                let len = coder.len_bound();
                let tail = held_tail_bits(models, b);
                if let Some(attempt) = attempt.filter(|_| !b.fits(len, tail)) {
                    b.rolled_back(h, coder.bits() - start, len, tail);
                    restore(coder, &mut walk, models, saved, attempt);
                    walk.check.add(h);
                    let packet = &mut models[ModelLayout::PACKET];
                    structure!(walk.probe, Part::Held, coder => packet.code_flag(coder, FLAG_HELD, true));
                    side.hold(h, c);
                    continue;
                }
                b.sent(h, coder.bits() - start);
            }
        }
    }
    Ok(walk.check.value(check_bits(refs)))
}
