//! The visible set onto the client's handles: releasing, giving and (for must-have
//! entities) taking handles at each frame. The work per frame follows the handles and the
//! entities the game marked for the client, not the world.

use super::ids::{self, ESSENTIAL, Ids, OWN, VISIBLE};
use super::{NO_HANDLE, Peer};
use crate::engine::bitset::{put_bit, test_bit, words};
use crate::engine::frame::{NO_FRAME, age};
use crate::engine::pack;
use crate::engine::packet::{Refs, in_window};
use crate::engine::world::World;

impl Peer<'_> {
    /// Brings handles in line with the visible set at `frame`: releases the handles of
    /// entities no longer visible, respawned, re-marked, or held so long that the world no
    /// longer has the frame their values came from, and gives new handles to newly visible
    /// entities, which then wait to enter: must-have entities first (own or essential, taking
    /// a handle from another entity if none is free), then the others, by id.
    pub(super) fn assign_handles(&mut self, world: &World<'_>, frame: u32, refs: &Refs) {
        // Values held at the baseline can have left the window only if its lags are large.
        let base = refs
            .base()
            .and_then(|b| Some((b, self.state.slots.find(b)?)))
            .filter(|&(b, p)| !in_window(frame, b, self.state.slots.max_lag(p)));
        // Nothing to do when the last pass left every visible entity with a handle and
        // neither the marks nor the world's entities changed since (nor, here, may values the
        // client holds have left the world's window): the pass would release and give nothing.
        let settled = self.state.settled;
        if base.is_none()
            && !self.state.loose
            && settled != NO_FRAME
            && !world.members_changed_since(settled)
        {
            return;
        }
        let deferred = self.state.stats.deferred;
        for h in 0..self.state.handles as usize {
            if self.store.handle_entity[h] != NO_HANDLE && !self.keeps(world, frame, base, h) {
                self.release(h);
            }
        }
        // The handles free to give, lowest first, in scratch room the packet's plan uses later:
        // found once per frame rather than searched for every entity that needs one. A handle
        // released is free at once: the client sees its entity leave and the next one enter in
        // the same packet (see `EncoderSide::keep_hint`).
        let s = &mut self.store;
        let free = &mut s.scratch.marks[..words(self.state.handles as usize)];
        free.fill(0);
        for (h, &e) in s.handle_entity.iter().enumerate() {
            put_bit(free, h, e == NO_HANDLE);
        }
        // Entries nothing keeps any more: weights set on entities neither marked nor held.
        if core::mem::take(&mut self.state.loose) {
            let mut ids = Ids { slots: s.ids };
            let mut i = 0;
            while i < ids.slots.len() {
                if !ids.prune(i, &mut self.state.marked) {
                    i += 1;
                }
            }
        }
        // Visible entities without a handle, by id: must-have ones first when there are any,
        // which is rare.
        self.state.starved = None;
        let mut wanted = self.wanting(world, frame, false);
        if wanted.musts > 0 {
            let musts = self.wanting(world, frame, true);
            self.give_wanted(world, frame, true, musts);
            wanted = self.wanting(world, frame, false);
        }
        self.give_wanted(world, frame, false, wanted);
        self.state.stats.starved += u64::from(self.state.starved.is_some());
        let all_served = self.state.starved.is_none() && self.state.stats.deferred == deferred;
        self.state.settled = if all_served { frame } else { NO_FRAME };
    }

    /// Whether handle `h` keeps its entity at `frame`: it is still visible, was not respawned
    /// or re-marked since the handle was given, and its values at the baseline `base` (when they
    /// may have left the window) are still in the world.
    fn keeps(&self, world: &World<'_>, frame: u32, base: Option<(u32, usize)>, h: usize) -> bool {
        let w = words(self.state.handles as usize);
        let id = self.store.handle_entity[h] as usize;
        let Some(entry) = ids::get(self.store.ids, id).filter(|e| e.has(VISIBLE)) else {
            return false;
        };
        let Some((class, _)) = world.get(frame, id) else { return false };
        let respawned = age(world.spawned(id), self.store.since[h]) as i32 > 0;
        let stale = base.is_some_and(|(b, p)| {
            let groups = self.schema.classes[class].group_count();
            test_bit(&self.store.presence[p * w..(p + 1) * w], h)
                && age(b, self.store.since[h]) as i32 >= 0
                && !self.base_in_window(p, b, frame, h, groups)
        });
        !respawned && !stale && test_bit(self.store.handle_own, h) == entry.has(OWN)
    }

    /// Puts in scratch room (which the packet's plan uses later), smallest first, the ids of
    /// the visible entities in the world without a handle that are must-have (`must`) or not,
    /// as many as could be served: must-have ones may take handles from others, the others
    /// only get free ones.
    fn wanting(&mut self, world: &World<'_>, frame: u32, must: bool) -> Wanted {
        let handles = self.state.handles as usize;
        let free =
            self.store.scratch.marks[..words(handles)].iter().map(|b| b.count_ones() as usize);
        let limit = if must { handles } else { free.sum() };
        let mut wanted = Wanted { len: 0, left_out: 0, first_left: usize::MAX, musts: 0 };
        for e in self.store.ids.iter() {
            if !e.has(VISIBLE) || e.handle().is_some() || world.get(frame, e.id()).is_none() {
                continue;
            }
            let is_must = e.has(OWN) || e.has(ESSENTIAL);
            wanted.musts += usize::from(is_must);
            if is_must != must {
                continue;
            }
            let key = e.id() as u64;
            if let Some(out) = keep_smallest(self.store.scratch.order, &mut wanted.len, limit, key)
            {
                wanted.left_out += 1;
                wanted.first_left = wanted.first_left.min(out as usize);
            }
        }
        self.store.scratch.order[..wanted.len].sort_unstable();
        wanted
    }

    /// Gives handles to the entities [`Peer::wanting`] found, in order: free handles, and for
    /// must-have ones (`must`) handles taken from others.
    fn give_wanted(&mut self, world: &World<'_>, frame: u32, must: bool, wanted: Wanted) {
        let handles = self.state.handles as usize;
        let w = words(handles);
        let mut word = 0;
        for k in 0..wanted.len {
            let id = self.store.scratch.order[k] as usize;
            let free = &self.store.scratch.marks[..w];
            while word < w && free[word] == 0 {
                word += 1;
            }
            let found = free.get(word).map(|&bits| word * 64 + bits.trailing_zeros() as usize);
            match found.filter(|&h| h < handles) {
                Some(h) => self.give(id, h, world, frame),
                None if must => match self.evict() {
                    Some(h) => self.give(id, h, world, frame),
                    None => _ = self.state.starved.get_or_insert(id),
                },
                None => self.state.stats.deferred += 1,
            }
        }
        if !must {
            self.state.stats.deferred += wanted.left_out;
        } else if wanted.left_out > 0 {
            _ = self.state.starved.get_or_insert(wanted.first_left);
        }
    }

    /// Releases handle `h`: the client sees its entity leave.
    pub(super) fn release(&mut self, h: usize) {
        let id = core::mem::replace(&mut self.store.handle_entity[h], NO_HANDLE);
        let mut ids = Ids { slots: self.store.ids };
        if let Some(i) = ids.find(id as usize) {
            ids.set_handle(i, None);
            ids.prune(i, &mut self.state.marked);
        }
    }

    /// Gives free handle `h` to entity `id` at `frame`.
    pub(super) fn give(&mut self, id: usize, h: usize, world: &World<'_>, frame: u32) {
        let mut ids = Ids { slots: self.store.ids };
        let Some(i) = ids.find(id) else { return };
        ids.set_handle(i, Some(h));
        let entry = ids.slots[i];
        let class = world.get(frame, id).map_or(0, |(c, _)| c);
        let s = &mut self.store;
        put_bit(&mut s.scratch.marks[..words(self.state.handles as usize)], h, false);
        s.handle_entity[h] = id as u32;
        self.give_since(h, frame);
        let s = &mut self.store;
        s.cost[h] = pack::entry_estimate_bits(&self.schema.classes[class]);
        // Not sent yet: a frame before it was given (see `EncoderSide::entry_in_flight`).
        s.sent_at[h] = frame.wrapping_sub(1);
        s.weights[h] = entry.weight();
        put_bit(s.handle_own, h, entry.has(OWN));
        put_bit(s.handle_essential, h, entry.has(ESSENTIAL));
        put_bit(s.entries, h, false);
    }

    /// Takes a handle from an entity that is not must-have, for a must-have one that found
    /// none free: the one the game weighs least (the highest handle among equals). Returns
    /// the handle, now free, or `None` if every handle serves a must-have entity.
    fn evict(&mut self) -> Option<usize> {
        let s = &self.store;
        let must = |h: usize| test_bit(s.handle_own, h) || test_bit(s.handle_essential, h);
        let h = (0..self.state.handles as usize)
            .filter(|&h| s.handle_entity[h] != NO_HANDLE && !must(h))
            .min_by_key(|&h| (s.weights[h], core::cmp::Reverse(h)))?;
        self.release(h);
        put_bit(&mut self.store.scratch.marks[..words(self.state.handles as usize)], h, true);
        self.state.stats.evicted += 1;
        Some(h)
    }
}

/// What [`Peer::wanting`] found.
struct Wanted {
    /// Ids in scratch room.
    len: usize,
    /// Ids left out, as more than could be served.
    left_out: u64,
    /// The smallest id left out.
    first_left: usize,
    /// Must-have entities wanting a handle.
    musts: usize,
}

/// Keeps the `limit` smallest keys pushed in the max-heap `heap[..*len]`; returns the key this
/// push left out (the new one or the largest before it), if any.
fn keep_smallest(heap: &mut [u64], len: &mut usize, limit: usize, key: u64) -> Option<u64> {
    let limit = limit.min(heap.len());
    if *len < limit {
        // Sift up.
        let mut i = *len;
        heap[i] = key;
        *len += 1;
        while i > 0 && heap[(i - 1) / 2] < heap[i] {
            heap.swap(i, (i - 1) / 2);
            i = (i - 1) / 2;
        }
        return None;
    }
    if *len == 0 || key >= heap[0] {
        return Some(key);
    }
    let out = core::mem::replace(&mut heap[0], key);
    // Sift down.
    let mut i = 0;
    loop {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        let mut top = i;
        if l < *len && heap[l] > heap[top] {
            top = l;
        }
        if r < *len && heap[r] > heap[top] {
            top = r;
        }
        if top == i {
            break;
        }
        heap.swap(i, top);
        i = top;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::keep_smallest;

    #[test]
    fn the_smallest_keys_are_kept() {
        let mut heap = [0u64; 8];
        let mut len = 0;
        let mut out = 0;
        for k in 0..40u64 {
            let key = k * 17 % 41;
            out += u64::from(keep_smallest(&mut heap, &mut len, 5, key).is_some());
        }
        heap[..len].sort_unstable();
        // 17k mod 41 for k < 40 is every value 0..41 but one (17·40 mod 41 = 24).
        assert_eq!(&heap[..len], &[0, 1, 2, 3, 4]);
        assert_eq!(out, 35);
    }
}
