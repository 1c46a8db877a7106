//! Packing a packet into a byte budget: which entities to try, in what order, and whether what
//! has been coded still leaves room to end the packet.
//!
//! Before the entities are coded the encoder ranks every candidate — entities entering and
//! kept entities with an update group due — by class of urgency, then by accumulated
//! priority: entities whose held values are about to fall out of the window of frames in
//! flight first ([`FORCE_AGE`]), then entering ones, then the rest. If the estimated cost of
//! every candidate fits, all are tried; otherwise the best ranked are selected until their
//! estimated cost exceeds the room by an eighth, and the encoder's rollback trims the excess
//! to the byte (see [`crate::engine::packet`]).

use crate::engine::bitset::{put_bit, test_bit};
use crate::engine::frame::WINDOW;
use crate::engine::packet::CHECK_BITS;
use crate::schema::{Class, Schema};

/// A kept entity whose held values are this many frames old at the new frame is tried
/// before anything else, so that it is refreshed before the server's archive forgets the frame
/// its values came from.
pub const FORCE_AGE: u32 = WINDOW - 8;

/// How urgent a candidate is, most urgent last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Rank {
    /// An update of a kept entity.
    Update = 1,
    /// An entity entering the client's view.
    Enter = 2,
    /// An update that must not wait any longer (see [`FORCE_AGE`]).
    Forced = 3,
}

/// One candidate for a packet.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate {
    /// Its handle.
    pub h: u32,
    /// How urgent it is.
    pub rank: Rank,
    /// Its accumulated priority.
    pub priority: u32,
}

/// The encoder's byte budget for one packet and its plan.
#[derive(Debug)]
pub(crate) struct Budget<'s> {
    /// Bytes the packet may take.
    bytes: usize,
    /// Due kept handles not yet coded: each needs at least a "held" flag.
    due_kept: u32,
    /// Below this length any entity fits, whatever it costs and whatever follows: no need to
    /// prepare for undoing it.
    safe: usize,
    /// Whether every candidate is selected.
    all: bool,
    /// Whether an entity was coded and then taken back.
    rolled_back: bool,
    /// Handles selected for this packet, one bit each (unless `all`).
    selected: &'s mut [u64],
    /// Handles sent in this packet, one bit each.
    sent: &'s mut [u64],
    /// Estimated cost of each handle's next update or entry, in bits.
    cost: &'s mut [u16],
}

impl<'s> Budget<'s> {
    /// A budget of `bytes` over the per-handle scratch of a peer; nothing selected yet.
    pub(crate) fn new(
        bytes: usize,
        selected: &'s mut [u64],
        sent: &'s mut [u64],
        cost: &'s mut [u16],
    ) -> Self {
        selected.fill(0);
        sent.fill(0);
        Budget { bytes, due_kept: 0, safe: 0, all: false, rolled_back: false, selected, sent, cost }
    }

    /// Selects what to try, `len` bytes into the packet. `worst` is the most bits one entity
    /// of the schema can take; `live` says which handles have an entity, a superset of the
    /// candidates, which is enough when all of them fit; otherwise `candidates` (a function
    /// listing them, called twice) are ranked, in `order`, scratch room for one key per
    /// handle.
    pub(crate) fn select(
        &mut self,
        len: usize,
        worst: u64,
        live: impl Fn(usize) -> bool,
        candidates: impl Fn(&mut dyn FnMut(Candidate)),
        order: &mut [u64],
    ) {
        let (total, count) = self
            .cost
            .iter()
            .enumerate()
            .filter(|&(h, _)| live(h))
            .fold((0u64, 0u32), |(t, n), (_, &c)| (t + u64::from(c), n + 1));
        self.all = self.room(len, worst, count) >= total;
        if self.all {
            return;
        }
        let (mut total, mut due_kept) = (0u64, 0u32);
        candidates(&mut |c| {
            total += u64::from(self.cost.get(c.h as usize).copied().unwrap_or(0));
            due_kept += u32::from(c.rank != Rank::Enter);
        });
        let room = self.room(len, worst, due_kept);
        self.all = room >= total;
        if self.all {
            return;
        }
        let mut n = 0;
        candidates(&mut |c| {
            if let Some(slot) = order.get_mut(n) {
                let priority = u64::from(c.priority.min((1 << 30) - 1));
                *slot = (c.rank as u64) << 62 | priority << 32 | u64::from(c.h);
                n += 1;
            }
        });
        let order = &mut order[..n];
        order.sort_unstable_by(|a, b| b.cmp(a));
        let (mut taken, wanted) = (0u64, room + room / 8);
        for &key in order.iter() {
            if taken >= wanted {
                break;
            }
            let h = key as u32;
            put_bit(self.selected, h as usize, true);
            taken += u64::from(self.cost.get(h as usize).copied().unwrap_or(0));
        }
    }

    /// Records that `due_kept` kept handles may need a "held" flag (`worst` bits is the most
    /// one entity can take) and returns the room left for entities `len` bytes into the
    /// packet, in bits, after the check value and a bit per held flag.
    fn room(&mut self, len: usize, worst: u64, due_kept: u32) -> u64 {
        self.due_kept = due_kept;
        let reserve = (worst + u64::from(due_kept + 2) * 10 + u64::from(CHECK_BITS)).div_ceil(8);
        self.safe = self.bytes.saturating_sub(reserve as usize + 2);
        (self.bytes.saturating_sub(len + 3) as u64 * 8).saturating_sub(due_kept.into())
    }

    /// Whether handle `h` was selected.
    #[inline]
    pub(crate) fn selected(&self, h: u32) -> bool {
        self.all || test_bit(self.selected, h as usize)
    }

    /// Whether a packet `len_bound` bytes long so far is far enough from the budget that the
    /// next entity certainly fits, and everything after it can still be held.
    #[inline]
    pub(crate) fn far(&self, len_bound: usize) -> bool {
        len_bound < self.safe
    }

    /// Whether a packet `len_bound` bytes long so far still fits with `tail_bits` more bits,
    /// the check value and the coder's flush.
    #[inline]
    pub(crate) fn fits(&self, len_bound: usize, tail_bits: u64) -> bool {
        len_bound as u64 + (tail_bits + u64::from(CHECK_BITS)).div_ceil(8) < self.bytes as u64
    }

    /// Due kept handles not yet coded.
    #[inline]
    pub(crate) fn due_kept(&self) -> u32 {
        self.due_kept
    }

    /// Counts one due kept handle as coded.
    #[inline]
    pub(crate) fn next_due_kept(&mut self) {
        self.due_kept = self.due_kept.saturating_sub(1);
    }

    /// Records that an entity was coded and then taken back.
    #[inline]
    pub(crate) fn rolled_back(&mut self) {
        self.rolled_back = true;
    }

    /// Whether every candidate was selected and none taken back: everything was sent.
    #[inline]
    pub(crate) fn complete(&self) -> bool {
        self.all && !self.rolled_back
    }

    /// Records that `h` was sent at a cost of `bits`.
    #[inline]
    pub(crate) fn sent(&mut self, h: u32, bits: u64) {
        put_bit(self.sent, h as usize, true);
        if let Some(c) = self.cost.get_mut(h as usize) {
            *c = bits.min(u64::from(u16::MAX)) as u16;
        }
    }
}
/// Raw bits of a field's range.
fn raw_bits(span: u64) -> u64 {
    u64::from(64 - span.saturating_sub(1).leading_zeros())
}

/// The most bits one entity of any class of `schema` can take.
pub(crate) fn schema_bound_bits(schema: &Schema) -> u64 {
    schema.classes.iter().map(entity_bound_bits).max().unwrap_or(0)
}

/// An upper bound on the bits coding one entity of `class` can take: every adaptive decision
/// of a value costs at most 10 bits, and a value takes at most its raw bits plus six of them.
pub(crate) fn entity_bound_bits(class: &Class) -> u64 {
    class.fields.iter().map(|f| 11 * raw_bits(f.span()) + 60).sum::<u64>() + 60
}

/// The estimated cost of an entity of `class` entering: its raw bits and a byte.
pub(crate) fn entry_estimate_bits(class: &Class) -> u16 {
    let bits = class.fields.iter().map(|f| raw_bits(f.span())).sum::<u64>() + 8;
    bits.min(u64::from(u16::MAX)) as u16
}
