//! The visible set onto the client's handles: releasing, giving and (for must-have
//! entities) taking handles at each frame.

use super::{NO_HANDLE, Peer};
use crate::engine::bitset::{put_bit, test_bit, words};
use crate::engine::frame::age;
use crate::engine::pack;
use crate::engine::packet::{Refs, in_window};
use crate::engine::world::World;

impl Peer<'_> {
    /// Whether entity `id` must have a handle before any other: the client's own or essential.
    #[inline]
    pub(super) fn must_have(&self, id: usize) -> bool {
        test_bit(self.store.owned, id) || test_bit(self.store.essential, id)
    }

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
        let w = words(self.state.handles as usize);
        // The handles free to give, lowest first, in scratch room the packet's plan uses later:
        // found once per frame rather than searched for every entity that needs one. A handle
        // released is free at once: the client sees its entity leave and the next one enter in
        // the same packet (see `EncoderSide::keep_hint`).
        let s = &mut self.store;
        let free = &mut s.marks[..w];
        free.fill(0);
        for (h, &e) in s.handle_entity.iter().enumerate() {
            put_bit(free, h, e == NO_HANDLE);
        }
        self.state.starved = None;
        let mut pass = Pass { frame, base, word: 0 };
        // Must-have entities first, from the bits of their marks.
        for i in 0..words(self.state.entities) {
            let mut bits = self.store.owned[i] | self.store.essential[i];
            while bits != 0 {
                let id = i * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                self.update_handle(world, &mut pass, id, true);
            }
        }
        for id in 0..self.state.entities {
            if !self.must_have(id) {
                self.update_handle(world, &mut pass, id, false);
            }
        }
        self.state.stats.starved += u64::from(self.state.starved.is_some());
    }

    /// Brings entity `id`'s handle in line with the visible set (see
    /// [`Peer::assign_handles`]); `must` says whether it is must-have.
    #[inline(always)]
    fn update_handle(&mut self, world: &World<'_>, pass: &mut Pass, id: usize, must: bool) {
        let (frame, w) = (pass.frame, words(self.state.handles as usize));
        let entity = world.get(frame, id);
        let visible = test_bit(self.store.visible, id) && entity.is_some();
        let handle = self.store.entity_handle[id];
        if handle != NO_HANDLE {
            let h = handle as usize;
            let respawned = age(world.spawned(id), self.store.since[h]) as i32 > 0;
            let stale = entity.zip(pass.base).is_some_and(|((class, _), (b, p))| {
                let groups = self.schema.classes[class].group_count();
                test_bit(&self.store.presence[p * w..(p + 1) * w], h)
                    && age(b, self.store.since[h]) as i32 >= 0
                    && !self.base_in_window(p, b, frame, h, groups)
            });
            let own = test_bit(self.store.owned, id);
            if !visible || respawned || stale || test_bit(self.store.handle_own, h) != own {
                self.release(id);
                // Free for the entities after this one in the pass.
                put_bit(&mut self.store.marks[..w], h, true);
                pass.word = pass.word.min(h / 64);
            } else {
                return;
            }
        }
        if !visible {
            return;
        }
        let free = &self.store.marks[..w];
        while pass.word < w && free[pass.word] == 0 {
            pass.word += 1;
        }
        let found =
            free.get(pass.word).map(|&bits| pass.word * 64 + bits.trailing_zeros() as usize);
        match found.filter(|&h| h < self.state.handles as usize) {
            Some(h) => self.give(id, h, world, frame),
            None if must => match self.evict() {
                Some(h) => self.give(id, h, world, frame),
                None => _ = self.state.starved.get_or_insert(id),
            },
            None => self.state.stats.deferred += 1,
        }
    }

    /// Releases the handle of entity `id`: the client sees the entity leave.
    pub(super) fn release(&mut self, id: usize) {
        let h = self.store.entity_handle[id] as usize;
        self.store.handle_entity[h] = NO_HANDLE;
        self.store.entity_handle[id] = NO_HANDLE;
    }

    /// Gives free handle `h` to entity `id` at `frame`.
    pub(super) fn give(&mut self, id: usize, h: usize, world: &World<'_>, frame: u32) {
        let own = test_bit(self.store.owned, id);
        let class = world.get(frame, id).map_or(0, |(c, _)| c);
        let s = &mut self.store;
        put_bit(&mut s.marks[..words(self.state.handles as usize)], h, false);
        s.handle_entity[h] = id as u32;
        s.since[h] = frame;
        s.cost[h] = pack::entry_estimate_bits(&self.schema.classes[class]);
        s.sent_at[h] = frame;
        put_bit(s.handle_own, h, own);
        s.entity_handle[id] = h as u32;
    }

    /// Takes a handle from an entity that is not must-have, for a must-have one that found
    /// none free: the one the game weighs least (the highest handle among equals). Returns
    /// the handle, now free, or `None` if every handle serves a must-have entity.
    fn evict(&mut self) -> Option<usize> {
        let (h, id) = (0..self.state.handles as usize)
            .filter_map(|h| {
                let id = self.store.handle_entity[h];
                (id != NO_HANDLE && !self.must_have(id as usize)).then_some((h, id as usize))
            })
            .min_by_key(|&(h, id)| (self.store.weights[id], core::cmp::Reverse(h)))?;
        self.release(id);
        self.state.stats.evicted += 1;
        Some(h)
    }
}

/// What one [`Peer::assign_handles`] carries from entity to entity.
struct Pass {
    frame: u32,
    /// The baseline and its slot, when values held there may have left the window.
    base: Option<(u32, usize)>,
    /// The first word of the free handles that may have a bit set.
    word: usize,
}
