//! The walk over every handle of a packet ([`code_body`]): hold-all, kept flags, entering
//! entities and updates, with the encoder's marks and rollbacks under the byte budget.

use super::chunk::{Chunk, Tables};
use super::links;
use super::walk::{self, Walk};
use super::{
    CHECK_BITS, COUNT_CLASS, COUNT_HANDLE_AGE, COUNT_HANDLE_GAP, COUNT_MODE, Check, Coder,
    FLAG_HELD, FLAG_HOLD_ALL, FLAG_KEPT, FLAG_MORE_ENTERING, FLAG_OWN, FLAG_WHOLE, MAX_FLAG_BITS,
    Refs, Side, check_bits, due_groups,
};

use crate::codec::coder::{Mark, Metered};
use crate::codec::prob::{BitModel, COST_FRAC_BITS, Prob, bit_cost};
use crate::engine::entering::Entered;
use crate::engine::pack::{self, Budget};
use crate::engine::probe::{Part, Probe};
use crate::engine::young::YOUNG_REACH;
use crate::model::{Model, ModelLayout};
use crate::schema::{Class, Schema};
use crate::{Error, Result};

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
    copy_span(saved, models, span, ModelLayout::links(walk.schema));
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
    copy_span(models, saved, attempt.span, ModelLayout::links(walk.schema));
    coder.rewind(attempt.mark);
    walk.check = attempt.check;
    walk.moved = attempt.moved;
    walk.probe.rewind(attempt.probe);
}

/// Copies into `to` from `from` the models coding an entity touches: the packet model, those
/// of `span` (see [`class_span`]) and the links model at `links`, if any.
fn copy_span(to: &mut [Model], from: &[Model], span: (usize, usize), links: Option<usize>) {
    if let (Some(to), Some(from)) = (to.get_mut(..span.1 + 1), from.get(..span.1 + 1)) {
        to[0] = from[0];
        to[span.0..].copy_from_slice(&from[span.0..]);
    }
    if let Some(l) = links
        && let (Some(to), Some(from)) = (to.get_mut(l), from.get(l))
    {
        *to = *from;
    }
}

/// Models touched by coding an entity of `class`: the packet model (index 0) and the class's
/// models, as the range `span.0..=span.1`.
fn class_span(schema: &Schema, class: usize) -> (usize, usize) {
    let start = ModelLayout::class_base(schema, class);
    let fields = schema.classes.get(class).map_or(0, |c| c.fields.len());
    (start, start + fields)
}

/// Flags of a run of "held" flags whose costs [`HeldRun`] sums one by one; the rest cost at
/// most as much as the last of them each (the cost only falls as the flag keeps saying held).
const HELD_RUN: usize = 64;

/// The ideal cost of a run of "held" flags from one state of the flag's model, remembered for
/// the last state asked: near the budget every entity asks, mostly from the same state (the
/// flag settles while nearly every entity is sent).
pub(super) struct HeldRun {
    /// The state the sums are for.
    from: Option<Prob>,
    /// Cost units of the first `i` flags of the run, `i` = 0..=[`HELD_RUN`].
    sums: [u64; HELD_RUN + 1],
    /// Cost units of the flag after them.
    next: u64,
}

impl HeldRun {
    pub(super) const EMPTY: HeldRun = HeldRun { from: None, sums: [0; HELD_RUN + 1], next: 0 };

    /// Ideal cost, in bits, of holding every due kept handle not yet coded, from the packet
    /// model's state now: what the encoder keeps in reserve to be able to end the packet.
    fn bits(&mut self, models: &[Model], budget: &Budget<'_>) -> u64 {
        let from = models[ModelLayout::PACKET].flag(FLAG_HELD);
        if self.from != Some(from) {
            let mut p = from;
            for i in 0..HELD_RUN {
                self.sums[i + 1] = self.sums[i] + u64::from(bit_cost(&p, true));
                p.update(true);
            }
            (self.from, self.next) = (Some(from), u64::from(bit_cost(&p, true)));
        }
        let m = budget.due_kept() as usize;
        let units = match m.checked_sub(HELD_RUN) {
            None => self.sums[m],
            Some(rest) => self.sums[HELD_RUN] + self.next * rest as u64,
        };
        units.div_ceil(1 << COST_FRAC_BITS)
    }
}

/// Whether `bits` more and then holding every due kept handle not yet coded still fit the
/// budget: first at the dearest a flag can be, which settles it cheaply far from the budget,
/// then at the held flag's adaptive cost (`held`).
fn fits_with_tail(
    budget: &Budget<'_>,
    len_bound: usize,
    bits: u64,
    (models, held): (&[Model], &mut HeldRun),
) -> bool {
    budget.fits(len_bound, bits + u64::from(budget.due_kept()) * MAX_FLAG_BITS)
        || budget.fits(len_bound, bits + held.bits(models, budget))
}

/// Codes the body of a packet (everything between the record section and the check value)
/// and returns the check value of the frame, which covers `records`, the digest of the
/// packet's record section. `saved` is the encoder's room for models it may have to restore
/// (empty on the decoder); `hold_all` is the encoder's choice of a packet that holds
/// everything.
#[allow(clippy::too_many_arguments)]
pub(crate) fn code_body<'s, C: Coder, S: Side<'s>, P: Probe>(
    coder: &mut C,
    side: &mut S,
    probe: &mut P,
    schema: &Schema,
    models: &mut [Model],
    saved: &mut [Model],
    refs: &Refs,
    (records, hold_all): (u32, bool),
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
        keeps_still: walk::keeps_still(schema),
        held: HeldRun::EMPTY,
        pending_links: 0,
        handles: side.handles(),
    };
    walk.check.add(records);
    let based = refs.base().is_some();
    if based && walk.hold_all(coder, side, models, hold_all) {
        return Ok(walk.check.value(CHECK_BITS));
    }
    if based {
        walk.kept(coder, side, models)?;
    }
    side.plan(coder.len_bound());
    let complete = based && walk.complete(coder, side, models)?;
    walk.check.add(u32::from(complete));
    walk.entering(coder, side, models, saved)?;
    walk.entered_links(coder, side, models)?;
    if based {
        for h in 0..side.handles() {
            if side.kept(h) {
                walk.kept_update(coder, side, models, saved, complete, h)?;
            }
        }
    }
    side.finish();
    Ok(walk.check.value(check_bits(refs)))
}

/// The parts of the body, in packet order. Each is inlined into [`code_body`].
impl<P: Probe> Walk<'_, '_, P> {
    /// The "hold all" flag, and if set the frame as the baseline holds it: whether it was set.
    #[inline(always)]
    fn hold_all<'s, C: Coder, S: Side<'s>>(
        &mut self,
        coder: &mut C,
        side: &mut S,
        models: &mut [Model],
        hold_all: bool,
    ) -> bool {
        let packet = &mut models[ModelLayout::PACKET];
        if !structure!(self.probe, Part::Header, coder => packet.code_flag(coder, FLAG_HOLD_ALL, hold_all))
        {
            return false;
        }
        self.check.add(u32::MAX);
        side.hold_all();
        for h in (0..side.handles()).filter(|&h| side.base_present(h)) {
            self.check.add(h);
        }
        true
    }

    /// Whether each handle present at the baseline is kept (else it leaves).
    #[inline(always)]
    fn kept<'s, C: Coder, S: Side<'s>>(
        &mut self,
        coder: &mut C,
        side: &mut S,
        models: &mut [Model],
    ) -> Result<()> {
        for h in 0..side.handles() {
            if !side.base_present(h) {
                continue;
            }
            if coder.exhausted() {
                return Err(Error::UnexpectedEnd);
            }
            let hint = side.keep_hint(h);
            let packet = &mut models[ModelLayout::PACKET];
            if structure!(self.probe, Part::Kept, coder => packet.code_flag(coder, FLAG_KEPT, hint))
            {
                side.begin(h, side.base_class(h), None, false)?;
            }
        }
        Ok(())
    }

    /// Whether every kept entity with a group due is sent: no "held" flags then.
    #[inline(always)]
    fn complete<'s, C: Coder, S: Side<'s>>(
        &mut self,
        coder: &mut C,
        side: &mut S,
        models: &mut [Model],
    ) -> Result<bool> {
        let hint = side.packer().is_some_and(|b| b.complete_hint());
        let packet = &mut models[ModelLayout::PACKET];
        let mode = i32::from(!hint);
        match structure!(self.probe, Part::Header, coder => packet.code_count(coder, COUNT_MODE, mode))
        {
            0 => Ok(true),
            1 => Ok(false),
            _ => Err(Error::Corrupt),
        }
    }

    /// The entities entering, each behind a "one more" flag: handle, class, handle age, own
    /// flag and values.
    #[inline(always)]
    fn entering<'s, C: Coder, S: Side<'s>>(
        &mut self,
        coder: &mut C,
        side: &mut S,
        models: &mut [Model],
        saved: &mut [Model],
    ) -> Result<()> {
        let handles = side.handles();
        // The lowest handle the next entering entity may have, and the previous one's handle age:
        // entities spawned together take neighbouring handles and share an age.
        let (mut next, mut previous_age) = (0u32, 0i32);
        loop {
            let hint = side.next_enter_hint();
            let (hint_h, hint_class, hint_age, hint_own) = hint.unwrap_or((0, 0, 0, false));
            let mut attempt = None;
            let must = hint.is_some() && side.forced_entry(hint_h);
            let hint_young = hint.is_some() && side.young_hint(hint_h, hint_age);
            if let (Some(b), Some(c)) = (side.packer(), self.schema.classes.get(hint_class))
                && hint.is_some()
            {
                b.release(hint_h, must);
                // Its flag, the flag ending the list and whether it enters whole.
                attempt = self.attempt(coder, b, models, saved, (hint_class, c), 3);
            }
            if coder.exhausted() {
                return Err(Error::UnexpectedEnd);
            }
            let packet = &mut models[ModelLayout::PACKET];
            let Some((gap, class, handle_age, own)) = structure!(self.probe, Part::Entering, coder => {
                packet.code_flag(coder, FLAG_MORE_ENTERING, hint.is_some()).then(|| {
                    let gap = hint_h.wrapping_sub(next) as i32;
                    let gap = packet.code_count(coder, COUNT_HANDLE_GAP, gap);
                    let class = if self.schema.classes.len() > 1 {
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
                || class as usize >= self.schema.classes.len()
                || handle_age < 0
            {
                return Err(Error::Corrupt);
            }
            // An entity whose handle is older than the packet may be young.
            let young = (1..=YOUNG_REACH).contains(&(handle_age as u32))
                && structure!(self.probe, Part::Entering, coder => {
                    let packet = &mut models[ModelLayout::PACKET];
                    !packet.code_flag(coder, FLAG_WHOLE, !hint_young)
                });
            side.begin(h, class as usize, Some(handle_age as u32), own)?;
            self.check.add(h);
            self.check.add(u32::from(own));
            self.check.add(class as u32);
            self.check.add(handle_age as u32);
            self.check.add(u32::from(young));
            let start = coder.bits();
            if young {
                let entry = self.refs.frame.wrapping_sub(handle_age as u32);
                self.young(coder, side, models, (class as usize, h), entry)?;
            } else {
                self.entry(coder, side, models, class as usize, h)?;
            }
            let links = self
                .schema
                .classes
                .get(class as usize)
                .map_or(0, |c| links::bound_bits(c, handles));
            self.pending_links += links;
            if let Some(b) = side.packer()
                && self.settle(coder, b, models, saved, attempt, (h, start), 1)
            {
                self.pending_links -= links;
                side.unbegin(h);
                continue;
            }
            if !young {
                self.entered.commit();
            }
            (next, previous_age) = (h + 1, handle_age);
        }
        Ok(())
    }

    /// The update of kept handle `h`: its "held" flag unless the packet is `complete`, then
    /// its values, rolled back and held if it overflows the budget.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn kept_update<'s, C: Coder, S: Side<'s>>(
        &mut self,
        coder: &mut C,
        side: &mut S,
        models: &mut [Model],
        saved: &mut [Model],
        complete: bool,
        h: u32,
    ) -> Result<()> {
        if coder.exhausted() {
            return Err(Error::UnexpectedEnd);
        }
        let class = side.base_class(h);
        let c = self.schema.classes.get(class).ok_or(Error::Corrupt)?;
        let due = due_groups(c, |g| side.staleness(h, g));
        if due == 0 {
            side.hold(h, c);
            self.check.add(h);
            return Ok(());
        }
        let k = side.history_len(h, c).min(self.refs.len);
        if k == 0 {
            return Err(Error::Corrupt);
        }
        let mut attempt = None;
        let mut want = true;
        if complete {
            let start = coder.bits();
            self.check.add(h);
            self.update(coder, side, models, class, h, k, due)?;
            if !c.links.is_empty() {
                self.links(coder, side, models, (class, h), true)?;
            }
            if let Some(b) = side.packer() {
                // Nothing may be held: an entity that does not fit fails the attempt.
                let len = coder.len_bound();
                if !b.far(len) && !b.fits(len, 0) {
                    return Err(Error::BufferFull);
                }
                b.sent(h, coder.bits() - start);
            }
            return Ok(());
        }
        // Whether `h` is forced matters only if it is in the core of the selection.
        let core = side.packer().is_some_and(|b| b.in_core(h));
        let forced = core && {
            let oldest = (0..c.group_count()).map(|g| side.staleness(h, g)).max().unwrap_or(0);
            pack::forced(oldest, self.refs.distance()) || side.must_have(h)
        };
        if let Some(b) = side.packer() {
            b.next_due_kept();
            b.release(h, forced);
            want = b.selected(h);
            if want {
                // Its held flag.
                attempt = self.attempt(coder, b, models, saved, (class, c), 1);
            }
        }
        self.check.add(h);
        let packet = &mut models[ModelLayout::PACKET];
        if structure!(self.probe, Part::Held, coder => packet.code_flag(coder, FLAG_HELD, !want)) {
            side.hold(h, c);
            return Ok(());
        }
        let start = coder.bits();
        self.update(coder, side, models, class, h, k, due)?;
        if !c.links.is_empty() {
            self.links(coder, side, models, (class, h), true)?;
        }
        if let Some(b) = side.packer()
            && self.settle(coder, b, models, saved, attempt, (h, start), 0)
        {
            self.check.add(h);
            let packet = &mut models[ModelLayout::PACKET];
            structure!(self.probe, Part::Held, coder => packet.code_flag(coder, FLAG_HELD, true));
            side.hold(h, c);
        }
        Ok(())
    }

    /// Before coding an entity of `class` near the end of the budget `b`: saves what it
    /// touches if the packet might not fit it at worst, `flags` flags after it and every held
    /// flag.
    #[inline(always)]
    fn attempt<C: Coder>(
        &mut self,
        coder: &C,
        b: &Budget<'_>,
        models: &[Model],
        saved: &mut [Model],
        (class, c): (usize, &Class),
        flags: u64,
    ) -> Option<Attempt> {
        let len = coder.len_bound();
        // The links of the entities entered so far are coded after the list: room for them
        // counts as written.
        if b.far(len + self.pending_links.div_ceil(8) as usize) {
            return None;
        }
        let links = links::bound_bits(c, self.handles);
        let tail = pack::entity_bound_bits(c) + links + flags * MAX_FLAG_BITS + self.pending_links;
        let fits = fits_with_tail(b, len, tail, (models, &mut self.held));
        (!fits).then(|| save(coder, self, models, saved, class))
    }

    /// After coding entity `h` from bit `start`: if it was attempted and the packet no longer
    /// fits with `flags` flags after it and every held flag, rolls it back and returns true;
    /// else counts it as sent.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn settle<C: Coder>(
        &mut self,
        coder: &mut C,
        b: &mut Budget<'_>,
        models: &mut [Model],
        saved: &[Model],
        attempt: Option<Attempt>,
        (h, start): (u32, u64),
        flags: u64,
    ) -> bool {
        if let Some(attempt) = attempt {
            let len = coder.len_bound();
            let tail = flags * MAX_FLAG_BITS + self.held.bits(models, b) + self.pending_links;
            if !b.fits(len, tail) {
                b.rolled_back(h, coder.bits() - start, len, tail);
                restore(coder, self, models, saved, attempt);
                return true;
            }
        }
        b.sent(h, coder.bits() - start);
        false
    }
}
