//! The server's side of young entities (see [`crate::engine::young`]): the frames a young
//! entity may be coded against, the entries it is coded against, and the young handles of a
//! frame resolved when an ack first names that frame.

use super::Peer;
use super::acks::before_restart;
use crate::engine::bitset::{put_bit, test_bit, words};
use crate::engine::frame::{NO_FRAME, WINDOW, age};
use crate::engine::slots::SLOTS;
use crate::engine::young::YOUNG_REACH;

impl Peer<'_> {
    /// The frames before `frame` (whose packet has reach `reach`) whose packets the client may
    /// hold when it decodes it, bit `i` for the frame `i + 1` before: sent since the last
    /// restart, not in the slot `frame` takes over, and, if no newer than the newest frame the
    /// client has acknowledged, named by an ack.
    pub(super) fn referable(&self, frame: u32, reach: u32) -> u64 {
        let (slots, latest, named) = (&self.state.slots, self.state.acked_latest, self.state.named);
        // The frame whose slot `frame` takes over leaves the client as it decodes `frame`.
        let replaced = slots.replaced(frame, reach);
        (0..YOUNG_REACH).fold(0, |mask, i| {
            let f = frame.wrapping_sub(1 + i);
            let held = slots.find(f).filter(|&p| p != replaced).is_some_and(|p| {
                named >> p & 1 != 0 || latest == NO_FRAME || (age(f, latest) as i32) > 0
            });
            if held && !before_restart(self.state.floor, f) { mask | 1 << i } else { mask }
        })
    }

    /// The young entities of `frame` (handle, and the frame of the entry each is coded
    /// against) until an ack resolves them: the client holds each in that frame only if it
    /// holds the entry's frame too. For tests and simulations that check what the client
    /// decodes against this peer's record.
    pub fn young_entities(&self, frame: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let w = words(self.state.handles as usize);
        let p = self.state.slots.find(frame);
        let young = p.map_or(&[][..], |p| &self.store.young[p * w..(p + 1) * w]);
        let handles = young.iter().enumerate().flat_map(|(word, &bits)| {
            (0..64).filter(move |i| bits >> i & 1 != 0).map(move |i| (word * 64 + i) as u32)
        });
        handles.map(|h| (h, self.store.since[h as usize]))
    }

    /// Notes the entities that came in whole in the packet of `frame`, the frame their
    /// handles were given, among those it `sent`: the entries later packets code them young
    /// against.
    pub(super) fn note_entries(&mut self, frame: u32, sent: &[u64]) {
        for (word, &bits) in sent.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let h = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if self.store.since.get(h) == Some(&frame) {
                    put_bit(self.store.entries, h, true);
                }
            }
        }
    }

    /// Whether the client holds, or will never hold, the packet of `frame`: `Some(true)` if
    /// a proven ack named it, `Some(false)` if the newest covered it without naming it (the
    /// client decodes frames in order, so it never will), `None` if it cannot be told.
    fn fate(&self, frame: u32) -> Option<bool> {
        let state = &self.state;
        let q = state.slots.find(frame)?;
        if state.named >> q & 1 != 0 {
            return Some(true);
        }
        // An ack names every frame the client holds among the 32 before its newest (older ones
        // only if their models are kept).
        let latest = state.acked_latest;
        let covered = latest != NO_FRAME && age(latest, frame) < WINDOW;
        covered.then_some(false)
    }

    /// Makes `frame` the one handle `h` was given its entity at. The handle keeps the frame it
    /// was given its entity before at, which the young packets of that entity not yet resolved
    /// were coded against; those of the entity before that are resolved now (those whose entry
    /// the client holds stay, those whose entry it will never hold leave the frames' records)
    /// or, if that cannot be told yet, their frames are never taken as held.
    pub(super) fn give_since(&mut self, h: usize, frame: u32) {
        let w = words(self.state.handles as usize);
        let before = self.store.since_before[h];
        let fate = self.fate(before);
        let spare = self.state.slots.spare();
        for p in (0..SLOTS).filter(|&p| p != spare) {
            let young = &mut self.store.young[p * w..(p + 1) * w];
            // Of the entity before the current one: the current one was not given it yet.
            let previous = (age(self.state.slots.frame_of(p), self.store.since[h]) as i32) <= 0;
            if !test_bit(young, h) || !previous {
                continue;
            }
            put_bit(young, h, false);
            match fate {
                Some(true) => {}
                Some(false) => put_bit(&mut self.store.presence[p * w..(p + 1) * w], h, false),
                None => self.state.unresolvable |= 1 << p,
            }
        }
        self.store.since_before[h] = core::mem::replace(&mut self.store.since[h], frame);
    }

    /// Resolves the young handles of frame `frame`, in slot `p`, which an ack whose newest
    /// frame is `latest` and that `names` frames is the first to name: those whose entry it
    /// names or an earlier ack did stay in the record of the frame, the others leave it.
    /// Returns false, changing nothing, if that cannot be told: an entry older than the ack's
    /// window and not known held, or a young handle given another entity while its entry's
    /// fate was unknown ([`Peer::give_since`]). The frame is then not taken as held.
    pub(super) fn resolve_young(
        &mut self,
        p: usize,
        frame: u32,
        latest: u32,
        names: impl Fn(u32) -> bool,
    ) -> bool {
        if self.state.unresolvable >> p & 1 != 0 {
            return false;
        }
        let w = words(self.state.handles as usize);
        let (slots, named) = (&self.state.slots, self.state.named);
        let held = |e: u32| names(e) || slots.find(e).is_some_and(|q| named >> q & 1 != 0);
        // The frame the handle was given the entity it had at `frame`: its current one's, or
        // the one's before.
        let (since, before) = (&*self.store.since, &*self.store.since_before);
        let given = |h: usize| {
            [since[h], before[h]].into_iter().find(|&e| e != NO_FRAME && (age(frame, e) as i32) > 0)
        };
        let young = &self.store.young[p * w..(p + 1) * w];
        for (word, &bits) in young.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let entry = given(word * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
                if entry.is_none_or(|e| !held(e) && age(latest, e) >= WINDOW) {
                    return false;
                }
            }
        }
        for word in 0..w {
            let mut bits = core::mem::take(&mut self.store.young[p * w + word]);
            while bits != 0 {
                let h = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if !given(h).is_some_and(held) {
                    put_bit(&mut self.store.presence[p * w..(p + 1) * w], h, false);
                }
            }
        }
        true
    }
}
