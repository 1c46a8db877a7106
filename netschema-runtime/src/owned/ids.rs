//! The game's own entity ids mapped onto the world's dense slots.

use core::hash::{BuildHasherDefault, Hasher};
use std::collections::HashMap;
use std::vec::Vec;

/// Hashes ids with one multiplication. The ids come from the game (and the server), not from
/// the network, so the cheap hash needs no protection against chosen collisions.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0 ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map keyed by ids, hashed with [`IdHasher`].
pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// Maps sparse `u64` ids onto slots `0..capacity`, reusing freed slots (amortised O(1)).
///
/// A freed slot may be handed out again in the same frame: the world records the new entity
/// as spawned there, so clients see the old one leave and the new one enter.
#[derive(Debug, Default)]
pub(crate) struct Ids {
    slot_of: IdMap<u64, u32>,
    id_of: Vec<Option<u64>>,
    free: Vec<u32>,
    capacity: usize,
}

impl Ids {
    /// A map onto `capacity` slots.
    pub(crate) fn new(capacity: usize) -> Ids {
        Ids {
            slot_of: IdMap::with_capacity_and_hasher(capacity, Default::default()),
            id_of: Vec::with_capacity(capacity),
            free: Vec::new(),
            capacity,
        }
    }

    /// The slot of `id`, if it has one.
    pub(crate) fn get(&self, id: u64) -> Option<usize> {
        self.slot_of.get(&id).map(|&s| s as usize)
    }

    /// The slot of `id`, giving it a free one if it has none; `None` when every slot is
    /// taken.
    pub(crate) fn insert(&mut self, id: u64) -> Option<usize> {
        if let Some(slot) = self.get(id) {
            return Some(slot);
        }
        let slot = match self.free.pop() {
            Some(s) => s as usize,
            None if self.id_of.len() < self.capacity => {
                self.id_of.push(None);
                self.id_of.len() - 1
            }
            None => return None,
        };
        self.id_of[slot] = Some(id);
        self.slot_of.insert(id, slot as u32);
        Some(slot)
    }

    /// Frees the slot of `id` and returns it, if it had one.
    pub(crate) fn remove(&mut self, id: u64) -> Option<usize> {
        let slot = self.slot_of.remove(&id)? as usize;
        self.id_of[slot] = None;
        self.free.push(slot as u32);
        Some(slot)
    }

    /// The id in `slot`, if any.
    pub(crate) fn id_of(&self, slot: usize) -> Option<u64> {
        self.id_of.get(slot).copied().flatten()
    }

    /// Ids in use.
    pub(crate) fn len(&self) -> usize {
        self.slot_of.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_ids_share_dense_slots() {
        let mut ids = Ids::new(2);
        assert_eq!(ids.insert(u64::MAX), Some(0));
        assert_eq!(ids.insert(7), Some(1));
        assert_eq!(ids.insert(7), Some(1));
        assert_eq!(ids.insert(8), None);
        assert_eq!(ids.remove(u64::MAX), Some(0));
        assert_eq!(ids.remove(u64::MAX), None);
        assert_eq!(ids.insert(8), Some(0));
        assert_eq!((ids.get(8), ids.get(7), ids.len()), (Some(0), Some(1), 2));
    }
}
