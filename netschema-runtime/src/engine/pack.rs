//! Packing a packet into a byte budget: which entities to try, in what order, and whether what
//! has been coded still leaves room to end the packet.
//!
//! Before the entities are coded the encoder ranks every candidate — entities entering and
//! kept entities with an update group due — by class of urgency, then by priority: must-have
//! entities (the client's own and essential ones) and kept entities whose held values would
//! be [`FORCE_AGE`] frames old first, then entering ones, then the rest. If the estimated cost of
//! every candidate fits, all are tried; otherwise the best ranked whose estimates fit the room
//! form the core, and the next ones, up to an eighth more, fill what the core leaves. The
//! packet is coded in handle order, so the room the core's later members need is kept in
//! reserve while earlier entities are coded, and the encoder's rollback packs to the byte (see
//! [`crate::engine::packet`]). Estimates are each handle's last cost, scaled by how the
//! estimates of recent packets compared with what their entities cost.

use crate::engine::bitset::{put_bit, test_bit};
use crate::engine::frame::WINDOW;
use crate::engine::packet::CHECK_BITS;
use crate::schema::{Class, Schema};

/// A kept entity whose held values are this many frames old at the new frame is tried
/// before anything else: no entity starves, and its values are refreshed long before the
/// server's archive ([`ARCHIVE`](crate::engine::frame::ARCHIVE) frames) forgets the frame
/// they came from.
pub const FORCE_AGE: u32 = WINDOW + 8;

/// Whether an entity whose held values are `staleness` frames old at a packet whose baseline
/// is `distance` frames back must be sent now: at [`FORCE_AGE`], plus what the baseline's
/// distance takes past the window (under a long round trip every held value is at least the
/// distance old, and the archive keeps the frames to match).
#[inline]
pub(crate) fn forced(staleness: u32, distance: u32) -> bool {
    staleness >= FORCE_AGE + distance.saturating_sub(WINDOW - 1)
}

/// How urgent a candidate is, most urgent last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Rank {
    /// An update of a kept entity.
    Update = 1,
    /// An entity entering the client's view.
    Enter = 2,
    /// An update that must not wait any longer (see [`FORCE_AGE`]), a must-have entity's
    /// update or entry, or the entry of an entity a packet in flight brought in (which the
    /// client may show, and would lose again).
    Forced = 3,
}

/// One candidate for a packet.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate {
    /// Its handle.
    pub h: u32,
    /// How urgent it is.
    pub rank: Rank,
    /// Its priority: how long it has waited, times its groups' priorities and the client's
    /// weight for it.
    pub priority: u32,
    /// Whether it enters (else it is a kept entity's update).
    pub enters: bool,
}

/// The encoder's byte budget for one packet and its plan.
#[derive(Debug)]
pub(crate) struct Budget<'s> {
    /// Bytes the packet may take.
    bytes: usize,
    /// Due kept handles not yet coded: each needs at least a "held" flag.
    due_kept: u32,
    /// Candidates of the packet, and how many of them were sent.
    candidates: u32,
    sent_count: u32,
    /// Below this length any entity fits, whatever it costs and whatever follows: no need to
    /// prepare for undoing it.
    safe: usize,
    /// Whether every candidate is selected.
    all: bool,
    /// Whether a packet that holds no kept entity may be tried (see
    /// [`Budget::complete_hint`]).
    may_complete: bool,
    /// Whether an entity was coded and then taken back.
    rolled_back: bool,
    /// The length a packet needed for the first entity taken back before any was sent that
    /// would not have fitted even with no room kept for others: what the budget lacks if the
    /// packet ends up carrying none.
    shortfall: Option<usize>,
    /// Handles selected for this packet, one bit each (unless `all`).
    selected: &'s mut [u64],
    /// Handles sent in this packet, one bit each.
    sent: &'s mut [u64],
    /// The core of the selection, not coded yet, one bit each: the best ranked candidates
    /// whose estimated cost fits the room. The rest of the selection only fills what the core
    /// leaves.
    core: &'s mut [u64],
    /// Estimated bits of the core not coded yet, forced members and the others: room what is
    /// coded before them must leave them, wherever they come in the packet. A forced entity
    /// only leaves room for the forced ones.
    reserve: [u64; 2],
    /// Whether the entity being coded is forced.
    forced: bool,
    /// Estimated and actual bits of what was sent, for calibrating the estimates.
    estimated: u64,
    actual: u64,
    /// The scale of the estimates, in 1/256.
    scale: u32,
    /// Estimated cost of each handle's next update or entry, in bits.
    cost: &'s mut [u16],
}

impl<'s> Budget<'s> {
    /// A budget of `bytes` over the per-handle scratch of a peer (`marks`, the cost estimates
    /// and their `scale` in 1/256); nothing selected yet.
    pub(crate) fn new(
        bytes: usize,
        marks: [&'s mut [u64]; 3],
        cost: &'s mut [u16],
        scale: u32,
    ) -> Self {
        let [selected, sent, core] = marks;
        selected.fill(0);
        sent.fill(0);
        core.fill(0);
        Budget {
            bytes,
            due_kept: 0,
            candidates: 0,
            sent_count: 0,
            safe: 0,
            all: false,
            may_complete: true,
            rolled_back: false,
            shortfall: None,
            selected,
            sent,
            core,
            reserve: [0; 2],
            forced: false,
            estimated: 0,
            actual: 0,
            scale,
            cost,
        }
    }

    /// Selects what to try, `len` bytes into the packet. `worst` is the most bits one entity
    /// of the schema can take; `live` says which handles have an entity, a superset of the
    /// candidates, which is enough when all of them fit; otherwise `candidates` (a function
    /// listing them) are ranked, in `order`, scratch room for one key per handle.
    pub(crate) fn select(
        &mut self,
        len: usize,
        worst: u64,
        live: impl Fn(usize) -> bool,
        candidates: impl FnOnce(&mut dyn FnMut(Candidate)),
        order: &mut [u64],
    ) {
        let (total, count) = self
            .cost
            .iter()
            .enumerate()
            .filter(|&(h, _)| live(h))
            .fold((0u64, 0u32), |(t, n), (_, &c)| (t + u64::from(c), n + 1));
        let total = (total * u64::from(self.scale)).div_ceil(256);
        self.all = self.room(len, worst, count) >= total;
        self.candidates = count;
        if self.all {
            return;
        }
        // One pass: their estimated costs, and their ranking keys in case not all fit.
        let (mut total, mut due_kept, mut count, mut n) = (0u64, 0u32, 0u32, 0);
        candidates(&mut |c| {
            total += self.estimate(c.h);
            due_kept += u32::from(!c.enters);
            count += 1;
            if let Some(slot) = order.get_mut(n) {
                let priority = u64::from(c.priority.min((1 << 30) - 1));
                // Among equals the lower handle first, as the packet codes them: when more are
                // tried than fit, the ones left out are the last ranked.
                *slot = (c.rank as u64) << 62 | priority << 32 | u64::from(!c.h);
                n += 1;
            }
        });
        self.candidates = count;
        let room = self.room(len, worst, due_kept);
        self.all = room >= total;
        if self.all {
            return;
        }
        let order = &mut order[..n];
        order.sort_unstable_by(|a, b| b.cmp(a));
        let (mut taken, wanted) = (0u64, room + room / 8);
        for &key in order.iter() {
            if taken >= wanted {
                break;
            }
            let h = !(key as u32);
            let cost = self.estimate(h);
            put_bit(self.selected, h as usize, true);
            if taken + cost <= room {
                put_bit(self.core, h as usize, true);
                self.reserve[usize::from(key >> 62 != Rank::Forced as u64)] += cost;
            }
            taken += cost;
        }
        let reserve = self.reserve[0] + self.reserve[1];
        self.safe = self.safe.saturating_sub(reserve.div_ceil(8) as usize);
    }

    /// The estimated cost of `h`'s next update or entry, in bits: its last cost, scaled by
    /// how the estimates compared with the costs lately.
    #[inline]
    fn estimate(&self, h: u32) -> u64 {
        let cost = u64::from(self.cost.get(h as usize).copied().unwrap_or(0));
        (cost * u64::from(self.scale)).div_ceil(256)
    }

    /// Whether `h` is in the core of the selection and not coded yet (never when every
    /// candidate is selected).
    #[inline]
    pub(crate) fn in_core(&self, h: u32) -> bool {
        !self.all && test_bit(self.core, h as usize)
    }

    /// Handle `h`, [`Rank::Forced`] or not, is being coded: if it is in the core, the room
    /// kept for it is its own now.
    #[inline]
    pub(crate) fn release(&mut self, h: u32, forced: bool) {
        self.forced = forced;
        if self.in_core(h) {
            put_bit(self.core, h as usize, false);
            let cost = self.estimate(h);
            let r = &mut self.reserve[usize::from(!forced)];
            *r = r.saturating_sub(cost);
        }
    }

    /// The scale of the estimates to use for the next packet: moved a quarter of the way
    /// towards how this packet's costs compared with their estimates (1/256 units, kept
    /// within 1/4..=16).
    pub(crate) fn next_scale(&self) -> u32 {
        if self.estimated == 0 {
            return self.scale;
        }
        let seen = (self.actual * 256 / self.estimated).clamp(64, 4096) as u32;
        (self.scale * 3 + seen) / 4
    }

    /// Records that `due_kept` kept handles may need a "held" flag (`worst` bits is the most
    /// one entity can take) and returns the room left for entities `len` bytes into the
    /// packet, in bits, after the check value and an eighth of a bit per "held" flag (cheap
    /// while most are sent; the packing itself reserves their exact cost).
    fn room(&mut self, len: usize, worst: u64, due_kept: u32) -> u64 {
        self.due_kept = due_kept;
        let reserve = (worst + u64::from(due_kept + 2) * 10 + u64::from(CHECK_BITS)).div_ceil(8);
        self.safe = self.bytes.saturating_sub(reserve as usize + 2);
        (self.bytes.saturating_sub(len + 3) as u64 * 8).saturating_sub(u64::from(due_kept) / 8)
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
    /// the room kept for the core of the selection, the check value and the coder's flush.
    #[inline]
    pub(crate) fn fits(&self, len_bound: usize, tail_bits: u64) -> bool {
        let reserve = self.reserve[0] + if self.forced { 0 } else { self.reserve[1] };
        let tail = tail_bits + reserve + u64::from(CHECK_BITS);
        len_bound as u64 + tail.div_ceil(8) < self.bytes as u64
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

    /// Records that `h` was coded in `bits` and then taken back: its estimate becomes what the
    /// attempt cost. An entity that grew dearer while it waited (a forced one, coded late in
    /// the packet) is then kept the room it needs in the next packet, instead of being rolled
    /// back packet after packet by what comes before it.
    /// `len_bound` is the packet's length with the attempt, and `tail_bits` what had to follow
    /// it (see [`Budget::fits`]).
    #[inline]
    pub(crate) fn rolled_back(&mut self, h: u32, bits: u64, len_bound: usize, tail_bits: u64) {
        self.rolled_back = true;
        self.record(h, bits);
        // Past the budget even with no room kept for anything else: no packet carries it.
        let needed = len_bound + (tail_bits + u64::from(CHECK_BITS)).div_ceil(8) as usize + 1;
        if self.sent_count == 0 && self.shortfall.is_none() && needed > self.bytes {
            self.shortfall = Some(needed);
        }
    }

    /// The length a packet needed to carry an entity, if it carries none although one was
    /// tried: the budget cannot carry any.
    pub(crate) fn shortfall(&self) -> Option<usize> {
        self.shortfall.filter(|_| self.sent_count == 0)
    }

    /// Whether the packet should say that no kept entity is held (saving a flag each): when
    /// every candidate is selected, unless an attempt at that already failed.
    pub(crate) fn complete_hint(&self) -> bool {
        self.all && self.may_complete
    }

    /// This budget for a second attempt after one that held nothing did not fit.
    pub(crate) fn without_complete(mut self) -> Self {
        self.may_complete = false;
        self
    }

    /// Candidates that were not sent (0 when all were selected and none taken back).
    pub(crate) fn waited(&self) -> u32 {
        match self.all && !self.rolled_back {
            true => 0,
            false => self.candidates.saturating_sub(self.sent_count),
        }
    }

    /// Records that `h` was sent at a cost of `bits`.
    #[inline]
    pub(crate) fn sent(&mut self, h: u32, bits: u64) {
        self.estimated += self.estimate(h);
        self.actual += bits;
        self.sent_count += 1;
        put_bit(self.sent, h as usize, true);
        self.record(h, bits);
    }

    /// Makes `bits` the estimate of `h`'s next update or entry.
    fn record(&mut self, h: u32, bits: u64) {
        if let Some(c) = self.cost.get_mut(h as usize) {
            *c = bits.min(u64::from(u16::MAX)) as u16;
        }
    }
}

/// The most bits one entity of any class of `schema` can take.
pub(crate) fn schema_bound_bits(schema: &Schema, handles: u32) -> u64 {
    let bound =
        |c: &Class| entity_bound_bits(c) + crate::engine::packet::links::bound_bits(c, handles);
    schema.classes.iter().map(bound).max().unwrap_or(0)
}

/// An upper bound on the bits coding the values of one entity of `class` can take (its links
/// aside, see `packet::links::bound_bits`): every adaptive decision of a value costs at most
/// 10 bits, and a value takes at most its raw bits plus six of them.
pub(crate) fn entity_bound_bits(class: &Class) -> u64 {
    class.fields.iter().map(|f| 11 * u64::from(f.raw_bits()) + 60).sum::<u64>() + 60
}

/// The estimated cost of an entity of `class` entering: its raw bits and a byte.
pub(crate) fn entry_estimate_bits(class: &Class) -> u16 {
    let bits = class.fields.iter().map(|f| u64::from(f.raw_bits())).sum::<u64>() + 8;
    bits.min(u64::from(u16::MAX)) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entity that grew dearer while it waited and did not fit is kept, in the next packet,
    /// the room its attempt took rather than what its last update cost.
    #[test]
    fn a_rolled_back_attempt_becomes_the_estimate() {
        let (mut selected, mut sent, mut core) = ([0u64; 1], [0u64; 1], [0u64; 1]);
        let mut cost = [60u16; 64];
        cost[9] = 8;
        {
            let marks = [&mut selected[..], &mut sent[..], &mut core[..]];
            let mut budget = Budget::new(60, marks, &mut cost, 256);
            budget.rolled_back(9, 130, 0, 0);
            assert_eq!(budget.estimate(9), 130);
        }
        assert_eq!(cost[9], 130, "the estimate is the peer's, kept for the next packet");
    }
}
