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
//!
//! This module owns the packet's constants, references and check value and the two traits
//! its ends implement; the rest is in one module per job: `header` (model, reach, distance
//! and history in the header), `chunk` (an entity's samples and predictions, a chunk of
//! fields at a time), `walk` (one entity's update or entry, value by value) and `body` (the
//! walk over every handle, with the encoder's attempts under the budget).

use crate::Result;
use crate::codec::coder::{BinaryCoder, Decoder, Encoder, Mark};
use crate::engine::ack::{fnv, mix32};
use crate::engine::frame::{ARCHIVE, NO_FRAME, WINDOW, age, to_wire};
use crate::engine::pack::Budget;
use crate::model::COUNT_SLOTS;
use crate::model::predict::{MAX_SAMPLES, PredictorTable};
use crate::schema::{Class, Schema};

/// Evaluates `$body` with `$coder` (a coder variable) metered, binding its ideal cost to
/// `$cost` for `$report`, when the probe type `P` in scope listens.
macro_rules! metered {
    ($coder:ident => $body:expr, |$cost:ident| $report:expr) => {{
        if P::LISTENS {
            let mut meter = Metered::new(&mut *$coder);
            let value = {
                let $coder = &mut meter;
                $body
            };
            let $cost = meter.cost;
            $report;
            value
        } else {
            $body
        }
    }};
}

/// Codes `body` with `coder`, reporting its ideal cost to `probe` as structure part `part`.
macro_rules! structure {
    ($probe:expr, $part:expr, $coder:ident => $body:expr) => {
        metered!($coder => $body, |cost| $probe.structure($part, cost))
    };
}

mod body;
mod chunk;
mod header;
pub(crate) mod links;
mod walk;

pub(crate) use body::code_body;
pub(crate) use chunk::CHUNK;
pub(crate) use header::{
    code_cold_reach, code_distance, code_history, code_packet_model, history_target,
};

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

/// Most bits one structural flag can cost (its probability never leaves `[2^-10, 1 - 2^-10]`).
pub(crate) const MAX_FLAG_BITS: u64 = 10;

// Flags of the packet-structure model.
const FLAG_KEPT: usize = 0;
const FLAG_MORE_HISTORY: usize = 1;
/// After the three history flags.
const FLAG_OWN: usize = 4;
/// Whether an entering entity that may be young (see [`young`](super::young)) enters whole:
/// as rare as an own one, it shares the own flag's probability.
const FLAG_WHOLE: usize = FLAG_OWN;
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
    /// The model the packet starts from: per frame its model frame (see
    /// `models::MODEL_STRIDE`), batched the first frame of the batch it was built from;
    /// [`NO_FRAME`] for cold models.
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
    #[inline]
    pub(crate) fn base(&self) -> Option<u32> {
        (self.len > 0).then_some(self.history[0])
    }

    /// Frames from the baseline to the packet's frame (0 without baseline).
    #[inline]
    pub(crate) fn distance(&self) -> u32 {
        self.base().map_or(0, |b| age(self.frame, b))
    }

    fn update_table(&mut self) {
        let mut offsets = [0u32; MAX_SAMPLES];
        for (o, &t) in offsets.iter_mut().zip(&self.history[..self.len]) {
            *o = age(self.frame, t);
        }
        self.offsets = offsets;
        self.table = PredictorTable::new(&offsets[..self.len]);
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
    /// Class of handle `h` in the new frame, once it has been started there.
    fn new_class(&self, h: u32) -> usize;
    /// How old, at the new frame, the values of group `g` of `h` held at the baseline are.
    fn staleness(&self, h: u32, g: usize) -> u32;
    /// Whether `h` has been started in the new frame.
    fn present(&self, h: u32) -> bool;
    /// Whether `h` is kept from the baseline: present at both under the same entity (a
    /// handle may leave and enter with another entity in one packet).
    fn kept(&self, h: u32) -> bool;
    /// Encoder: whether `h`'s entity is must-have (the client's own or essential), ranked
    /// ahead of everything under a byte budget; false on the decoder.
    fn must_have(&self, h: u32) -> bool;
    /// Encoder: whether entering `h` ranks with the forced updates: must-have, or brought in
    /// by a packet in flight; false on the decoder.
    fn forced_entry(&self, h: u32) -> bool;
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
    /// Encoder: whether entering `h`, whose handle is `age` frames old, is coded *young*:
    /// against the values the packet of its handle's first frame brought in, which the client
    /// may hold (see [`young`](super::young)); false on the decoder.
    fn young_hint(&self, h: u32, age: u32) -> bool;
    /// Marks begun entering `h`, of class index `class`, young, its entry brought in at
    /// frame `entry`: returns whether this end holds the values of that entry (the encoder
    /// always). A decoder that does not keeps the handle until the walk ends, then drops it
    /// ([`Side::finish`]).
    fn young(&mut self, h: u32, class: usize, entry: u32) -> bool;
    /// The value of field `f` of young `h` in its entry, once [`Side::young`] said it is held.
    fn entry_value(&self, h: u32, f: usize) -> i32;
    /// Ends the walk: a decoder drops the young handles whose entries it does not hold.
    fn finish(&mut self);
    /// How many of the history frames (from the newest) hold the same entity at `h` with
    /// values still in the server's window.
    fn history_len(&self, h: u32, class: &Class) -> usize;
    /// The frames the values of `h`'s default update group at the first `k` history frames
    /// came from (history frame minus lag), or `None` when they are the history frames
    /// themselves (nothing held).
    fn sources(&self, h: u32, k: usize) -> Option<[u32; MAX_SAMPLES]>;
    /// Whether the values of `h` (of `class`) at the first `k` history frames are one row:
    /// the encoder knows it from the world, and then the new frame's values are that row too;
    /// the decoder from its record of when each entity last changed. Asked only for an update
    /// that codes every field exactly and holds nothing from earlier frames at those frames
    /// ([`Side::sources`] is `None`), so the frames are what the client holds.
    fn still(&self, h: u32, k: usize, class: &Class) -> bool;
    /// Records, for `h` of `class` (of at most [`CHUNK`] fields), the row [`Side::still`]
    /// vouches for as its values at the new frame — the values to send on the encoder, the
    /// baseline's on the decoder — and adds them to `check`.
    fn keep_still(&mut self, h: u32, class: &Class, check: &mut Check);
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
    /// Keeps every value of `h` from the baseline, and its links as [`links::held`] has them.
    fn hold(&mut self, h: u32, class: &Class);
    /// The target of link `r` of kept handle `h` at the baseline: the handle the client holds
    /// it under, plus 1 (0: none).
    fn base_link(&self, h: u32, r: usize) -> u32;
    /// Encoder: the target link `r` of `h` names in the new frame, if the client holds it
    /// there so far (present under a handle given before now in the walk), as its handle
    /// plus 1, else 0; 0 on the decoder.
    fn link_truth(&self, h: u32, r: usize) -> u32;
    /// Records link `r` of `h` at the new frame (a handle plus 1, 0 for none).
    fn set_link(&mut self, h: u32, r: usize, target: u32);
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
    #[inline]
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

    /// Folds `v` in.
    #[inline(always)]
    pub(crate) fn add(&mut self, v: u32) {
        self.0 = fnv(self.0, v);
    }

    /// The value sent in `bits` ([`CHECK_BITS`] or [`COLD_CHECK_BITS`]): the hash folded to
    /// 16 bits, or mixed so that every bit depends on every input.
    #[inline]
    pub(crate) fn value(&self, bits: u32) -> u32 {
        if bits < 32 {
            return (self.0 ^ (self.0 >> bits)) & ((1 << bits) - 1);
        }
        mix32(self.0)
    }
}
