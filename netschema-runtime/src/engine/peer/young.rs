//! The server's side of young entities (see [`crate::engine::young`]): the frames a young
//! entity may be coded against, the entries it is coded against, and the young handles of a
//! frame resolved when an ack first names that frame.

use super::Peer;
use super::acks::before_restart;
use crate::engine::bitset::{put_bit, words};
use crate::engine::frame::{NO_FRAME, WINDOW, age};
use crate::engine::young::YOUNG_REACH;

impl Peer<'_> {
    /// The frames before `frame` (whose packet has reach `reach`) whose packets the client may
    /// hold when it decodes it, bit `i` for the frame `i + 1` before: sent since the last
    /// restart, not in the slot `frame` takes over, and, if no newer than the newest frame the
    /// client has acknowledged, acknowledged too.
    pub(super) fn referable(&self, frame: u32, reach: u32) -> u64 {
        let (slots, latest) = (&self.state.slots, self.state.acked_latest);
        // The frame whose slot `frame` takes over leaves the client as it decodes `frame`.
        let replaced = slots.replaced(frame, reach);
        (0..YOUNG_REACH).fold(0, |mask, i| {
            let f = frame.wrapping_sub(1 + i);
            let held = slots.find(f).filter(|&p| p != replaced).is_some_and(|p| {
                self.state.acked[p] || latest == NO_FRAME || (age(f, latest) as i32) > 0
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

    /// Resolves the young handles of frame `frame`, in slot `p`, which an ack whose newest
    /// frame is `latest` and that `names` frames is the first to name: those whose entry it
    /// names or an earlier ack did stay in the record of the frame, the others leave it.
    /// Returns false, changing nothing, if that cannot be told: an entry older than the ack's
    /// window and not known held, or a handle given another entity since the frame. The
    /// frame is then not taken as held.
    pub(super) fn resolve_young(
        &mut self,
        p: usize,
        frame: u32,
        latest: u32,
        names: impl Fn(u32) -> bool,
    ) -> bool {
        let w = words(self.state.handles as usize);
        let young = &self.store.young[p * w..(p + 1) * w];
        if young.iter().all(|&bits| bits == 0) {
            return true;
        }
        let (slots, acked) = (&self.state.slots, &self.state.acked);
        let held = |e: u32| names(e) || slots.find(e).is_some_and(|q| acked[q]);
        // The frame the handle was given the entity it had at `frame`: its current one's, or
        // the one's before (a young entity that left and whose handle was given again).
        let (since, before) = (&*self.store.since, &*self.store.since_before);
        let given = |e: u32| (age(frame, e) as i32) > 0;
        let entry_of = |h: usize| match (since[h], before[h]) {
            (e, _) if given(e) => Some(e),
            (_, e) if given(e) => Some(e),
            _ => None,
        };
        for (word, &bits) in young.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let h = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let Some(e) = entry_of(h) else { return false };
                if !held(e) && age(latest, e) > WINDOW {
                    return false;
                }
            }
        }
        for word in 0..w {
            let mut bits = self.store.young[p * w + word];
            while bits != 0 {
                let h = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if !entry_of(h).is_some_and(held) {
                    put_bit(&mut self.store.presence[p * w..(p + 1) * w], h, false);
                }
            }
            self.store.young[p * w + word] = 0;
        }
        true
    }
}
