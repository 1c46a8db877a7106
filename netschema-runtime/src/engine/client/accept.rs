//! What an accepted packet leaves: its frame made the current one, the births and steady
//! frames of its handles recorded, its models committed, and the tables of values handed out
//! turned.

use super::{Base, Client, Reader, lineage, row};
use crate::engine::bitset::test_bit;
use crate::engine::frame::{NO_FRAME, WINDOW, age};
use crate::engine::lags;
use crate::engine::packet::Refs;
use crate::engine::world::NO_CLASS;

impl Client<'_> {
    /// Makes the frame of the packet for `refs`, decoded into slot `spare` with check value
    /// `check` and largest lag `max_lag`, against the baseline `base` (frame and slot), the
    /// current one.
    pub(super) fn accept(
        &mut self,
        refs: &Refs,
        (spare, check, max_lag): (usize, u16, u8),
        base: Base,
    ) {
        let frame = refs.frame;
        self.state.previous = (self.state.newest != NO_FRAME)
            .then(|| self.state.slots.find(self.state.newest))
            .flatten();
        if age(frame, self.state.newest) >= WINDOW {
            self.state.previous = None;
        }
        self.state.checks[spare] = check;
        self.note_births(spare, frame, base);
        let newest = self.state.slots.find(self.state.newest).map(|p| (self.state.newest, p));
        // Within the window, so that ages tell entities apart.
        let near = self.state.newest != NO_FRAME && age(frame, self.state.newest) < WINDOW;
        self.note_steady(spare, frame, newest.filter(|_| near));
        self.note_sends(spare, frame, base.map(|(_, p)| (p, refs.distance())));
        self.state.slots.commit(frame, max_lag, refs.distance(), refs.reach);
        let (models, stored) = (&mut *self.store.models, &mut *self.store.stored);
        let slots = self.state.slots;
        let held = |f: u32| slots.find(f).is_some();
        let (sets, sent) = ((models, &mut [][..]), (frame, refs.model, refs.distance()));
        self.state.book.commit(self.schema, sets, stored, sent, spare, held);
        self.state.newest = frame;
        self.show(spare);
    }

    /// Makes the table the new current frame, in slot `new`, was decoded into the current one
    /// ([`ClientStorage::view`](super::ClientStorage::view)), and writes into the third the
    /// newest values of every handle whose frame holds older ones than another frame the
    /// client has.
    fn show(&mut self, new: usize) {
        self.state.shown = 1 - self.state.shown;
        if self.state.slots.max_lag(new) == 0 {
            return;
        }
        let (hs, n) = (self.state.handles as usize, self.schema.max_fields);
        let s = &mut self.store;
        let (_, newest) = s.view.split_at_mut(2 * hs * n);
        let reader = Reader {
            schema: self.schema,
            rows: s.rows,
            view: &[],
            present: s.present,
            ages: s.ages,
            born: s.born,
            own: s.own,
            sends: s.sends,
            chains: s.chains,
            links: s.links,
            state: &self.state,
        };
        for h in 0..hs as u32 {
            let p = reader.freshest(new, h);
            let Some((class, packed)) = reader.packed(p, h).filter(|_| p != new) else { continue };
            let fields = self.schema.classes.get(class).map_or(&[][..], |c| c.fields);
            let at = h as usize * n;
            row::unpack(fields, packed, newest.get_mut(at..at + n).unwrap_or(&mut []));
        }
    }

    /// Records which update groups of every handle the packet for `frame`, decoded into slot
    /// `new` against the baseline in slot `base` (and its distance) if any, sent, and the new
    /// frame's chain of baselines; cuts every slot's chain to the frames the ring holds now
    /// (see `engine::lags`), so that the chains read as they are until the next packet.
    fn note_sends(&mut self, new: usize, frame: u32, base: Option<(usize, u32)>) {
        let s = &mut self.store;
        let bit = lags::bit(frame);
        for (i, sends) in s.sends.iter_mut().enumerate() {
            *sends = if test_bit(s.sent, i) { *sends | bit } else { *sends & !bit };
        }
        let base = base.map(|(p, distance)| (s.chains.get(p).copied().unwrap_or(1), distance));
        let slots = &self.state.slots;
        for (p, chain) in s.chains.iter_mut().enumerate() {
            *chain = match slots.frame_of(p) {
                _ if p == new => lags::chain(base),
                NO_FRAME => 0,
                t => lags::cut(*chain, t, frame),
            };
        }
    }

    /// Records, for every handle in the new current frame `frame` decoded into slot `new`,
    /// from which frame every frame held shows its values: as before if the newest frame
    /// before it, `previous` (frame and slot), shows the same entity with the same values,
    /// else from this frame on. Runs after [`Client::note_births`], whose ages tell the
    /// entity.
    fn note_steady(&mut self, new: usize, frame: u32, previous: Option<(u32, usize)>) {
        let (hs, stride) = (self.state.handles as usize, self.state.stride);
        let s = &mut self.store;
        let row = |slot: usize, h: usize| s.rows.get((slot * hs + h) * stride..).unwrap_or(&[]);
        // The new frame's classes, as the packet left them.
        let present = |h: usize| s.classes.get(hs + h).is_some_and(|&c| c != NO_CLASS);
        let Some((before, p)) = previous else {
            for (h, steady) in s.steady.iter_mut().enumerate().take(hs) {
                if present(h) {
                    *steady = frame;
                }
            }
            return;
        };
        // Whole rows compare, their classes with them: their tails past their class's values
        // are zero.
        let ages = &s.ages;
        for (h, steady) in s.steady.iter_mut().enumerate().take(hs) {
            let (now, old) = (row(new, h), row(p, h));
            // Most moving entities differ in their first value's low byte.
            if !present(h) || now.first() != old.first() {
                *steady = frame;
                continue;
            }
            let same = now.get(..stride) == old.get(..stride);
            if !same || !lineage::same(before, frame, ages[new * hs + h]) {
                *steady = frame;
            }
        }
    }

    /// Records the birth of every handle's entity in the new current frame `frame`, decoded
    /// into slot `new` against baseline `base` (frame and slot): an age under
    /// [`lineage::OLD`] gives it exactly; an older entity kept from the baseline is the one
    /// the handle named before, and one that entered in this packet was born as it said.
    fn note_births(&mut self, new: usize, frame: u32, base: Base) {
        let hs = self.state.handles as usize;
        let s = &mut self.store;
        // The baseline's and the new frame's classes, as the packet read and left them.
        let (base_classes, classes) = s.classes.split_at(hs);
        let ages = &s.ages[new * hs..(new + 1) * hs];
        let b = base.map_or(frame, |(b, _)| b);
        let entries = classes.iter().zip(ages).zip(s.born.iter_mut().zip(s.entered.iter()));
        for (h, ((&class, &years), (born, &entered))) in entries.enumerate() {
            if class == NO_CLASS {
                continue;
            }
            let kept = || {
                base_classes.get(h).is_some_and(|&c| c != NO_CLASS)
                    && lineage::same(b, frame, years)
            };
            if years < lineage::OLD {
                *born = frame.wrapping_sub(u32::from(years));
            } else if !kept() {
                *born = entered;
            }
        }
    }
}
