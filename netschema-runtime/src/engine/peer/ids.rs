//! The entities the game has marked for one client — visible, own, essential or weighted —
//! in an open-addressed table keyed by entity id. Its length follows how many entities the
//! client may be interested in at once, never the world's entity count, so a client of a
//! world of 100,000 ids that sees a thousand costs what a client of a thousand costs.
//!
//! Linear probing from a multiplicative hash of the id, deletion by shifting later entries
//! back (no tombstones), so lookups stay short however long the table lives.

use crate::engine::MAX_HANDLES;

/// One entry of a peer's id table ([`PeerStorage::ids`](super::PeerStorage::ids)): an entity
/// id, the handle the client knows it by, the game's weight and marks. Opaque; the default is
/// an empty entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed(2))]
pub struct IdSlot {
    id: u32,
    /// At most [`MAX_HANDLES`] handles: [`NONE`] names none.
    handle: u16,
    weight: u16,
    flags: u8,
}

/// The handle of an entry without one.
const NONE: u16 = u16::MAX;
const _: () = assert!(MAX_HANDLES <= NONE as usize, "every handle but NONE fits");

/// The id of an empty entry.
const EMPTY: u32 = u32::MAX;

impl Default for IdSlot {
    fn default() -> Self {
        IdSlot { id: EMPTY, handle: NONE, weight: 0, flags: 0 }
    }
}

/// Marks of an entry: shown to the client ([`super::Peer::set_visible`]).
pub(super) const VISIBLE: u8 = 1;
/// Marks of an entry: the client's own ([`super::Peer::set_own`]).
pub(super) const OWN: u8 = 2;
/// Marks of an entry: essential to the client ([`super::Peer::set_essential`]).
pub(super) const ESSENTIAL: u8 = 4;

/// Entries of a table for `interest` entities: a load of at most two thirds.
pub(crate) fn table_len(interest: usize) -> usize {
    interest.saturating_add(interest / 2).saturating_add(4)
}

impl IdSlot {
    /// The entity's id.
    #[inline]
    pub(super) fn id(&self) -> usize {
        self.id as usize
    }

    /// The handle the client knows the entity by, if any.
    #[inline]
    pub(super) fn handle(&self) -> Option<usize> {
        let handle = self.handle;
        (handle != NONE).then_some(usize::from(handle))
    }

    /// Whether the entry carries `mark`.
    #[inline]
    pub(super) fn has(&self, mark: u8) -> bool {
        self.flags & mark != 0
    }

    /// The game's weight of the entity.
    #[inline]
    pub(super) fn weight(&self) -> u16 {
        self.weight
    }

    fn is_empty(&self) -> bool {
        self.id == EMPTY
    }
}

/// Where probing for `id` starts in a table of `n` entries.
#[inline]
fn home(n: usize, id: u32) -> usize {
    let hash = id.wrapping_mul(0x9e37_79b9);
    ((u64::from(hash) * n as u64) >> 32) as usize
}

/// The entry after `i` in a table of `n`, wrapping.
#[inline]
fn next(i: usize, n: usize) -> usize {
    if i + 1 == n { 0 } else { i + 1 }
}

/// The first empty entry of `slots` from `id`'s home on: where `id` goes (`slots` has one).
fn vacancy(slots: &[IdSlot], id: u32) -> usize {
    let n = slots.len();
    let mut i = home(n, id);
    while !slots[i].is_empty() {
        i = next(i, n);
    }
    i
}

/// The index of `id`'s entry in `slots`, if it has one.
#[inline]
pub(super) fn find(slots: &[IdSlot], id: usize) -> Option<usize> {
    let id = u32::try_from(id).ok().filter(|&id| id != EMPTY)?;
    let n = slots.len();
    let mut i = home(n, id);
    for _ in 0..n {
        let slot = &slots[i];
        if slot.id == id {
            return Some(i);
        }
        if slot.is_empty() {
            return None;
        }
        i = next(i, n);
    }
    None
}

/// The entry of `id` in `slots`, if it has one.
#[inline]
pub(super) fn get(slots: &[IdSlot], id: usize) -> Option<&IdSlot> {
    find(slots, id).map(|i| &slots[i])
}

/// Whether `id` is marked visible in `slots`.
pub(crate) fn visible(slots: &[IdSlot], id: usize) -> bool {
    get(slots, id).is_some_and(|e| e.has(VISIBLE))
}

/// Copies the entries of `from` into `to`, a longer, empty table.
#[cfg(feature = "std")]
pub(crate) fn rehash(from: &[IdSlot], to: &mut [IdSlot]) {
    for e in from.iter().filter(|e| !e.is_empty()) {
        to[vacancy(to, e.id)] = *e;
    }
}

/// A peer's id table over its storage, to change.
pub(super) struct Ids<'t> {
    pub(super) slots: &'t mut [IdSlot],
}

impl Ids<'_> {
    /// The index of `id`'s entry, if it has one.
    #[inline]
    pub(super) fn find(&self, id: usize) -> Option<usize> {
        find(self.slots, id)
    }

    /// The index of `id`'s entry, made (unmarked, without handle, weighing `weight`) if it has
    /// none and `len`, the entries in use, is under `limit`; `None` if the table may take no
    /// more or `id` cannot be a key.
    pub(super) fn entry(
        &mut self,
        id: usize,
        len: &mut u32,
        limit: usize,
        weight: u16,
    ) -> Option<usize> {
        if let Some(i) = self.find(id) {
            return Some(i);
        }
        let id = u32::try_from(id).ok().filter(|&id| id != EMPTY)?;
        if *len as usize >= limit || *len as usize >= self.slots.len() {
            return None;
        }
        let i = vacancy(self.slots, id);
        self.slots[i] = IdSlot { id, handle: NONE, weight, flags: 0 };
        *len += 1;
        Some(i)
    }

    /// Sets or clears `mark` on entry `i`; returns whether that changed it.
    #[inline]
    pub(super) fn mark(&mut self, i: usize, mark: u8, on: bool) -> bool {
        let flags = &mut self.slots[i].flags;
        let was = *flags;
        *flags = if on { *flags | mark } else { *flags & !mark };
        *flags != was
    }

    /// Sets entry `i`'s weight.
    #[inline]
    pub(super) fn set_weight(&mut self, i: usize, weight: u16) {
        self.slots[i].weight = weight;
    }

    /// Sets entry `i`'s handle (`None`: it has none).
    #[inline]
    pub(super) fn set_handle(&mut self, i: usize, handle: Option<usize>) {
        // A handle is below `MAX_HANDLES`: it fits.
        self.slots[i].handle = handle.map_or(NONE, |h| h as u16);
    }

    /// Removes entry `i` if nothing keeps it: no mark and no handle (its weight is then
    /// forgotten). Returns whether it did; later entries may have moved into `i`.
    pub(super) fn prune(&mut self, i: usize, len: &mut u32) -> bool {
        let slot = self.slots[i];
        if slot.is_empty() || slot.flags != 0 || slot.handle != NONE {
            return false;
        }
        // Shift back each later entry of the run that may sit at the hole: one whose home is
        // not between the hole and itself.
        let n = self.slots.len();
        let mut hole = i;
        let mut j = i;
        loop {
            j = next(j, n);
            let next = self.slots[j];
            if next.is_empty() {
                break;
            }
            let start = home(n, next.id);
            let (from_home, from_hole) = ((j + n - start) % n, (j + n - hole) % n);
            if from_home >= from_hole {
                self.slots[hole] = next;
                hole = j;
            }
        }
        self.slots[hole] = IdSlot::default();
        *len -= 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_found_after_any_removals() {
        // Ids that collide in a small table, inserted and pruned in a scrambled order.
        let mut slots = [IdSlot::default(); 64];
        assert_eq!(table_len(40), slots.len());
        let mut ids = Ids { slots: &mut slots };
        let mut len = 0;
        let keys: [usize; 40] = core::array::from_fn(|k| k * 7919 % 1013);
        for &k in &keys {
            let i = ids.entry(k, &mut len, 40, 16).unwrap();
            ids.mark(i, VISIBLE, true);
        }
        assert_eq!(ids.entry(5000, &mut len, 40, 16), None, "the limit holds");
        for &k in keys.iter().step_by(3) {
            let i = ids.find(k).unwrap();
            ids.mark(i, VISIBLE, false);
            assert!(ids.prune(i, &mut len));
        }
        for (n, &k) in keys.iter().enumerate() {
            assert_eq!(ids.find(k).is_some(), n % 3 != 0, "id {k}");
        }
        assert_eq!(len as usize, keys.len() - keys.len().div_ceil(3));
        let i = ids.find(keys[1]).unwrap();
        ids.set_handle(i, Some(3));
        ids.mark(i, VISIBLE, false);
        assert!(!ids.prune(i, &mut len), "a held entity keeps its entry");
        assert_eq!(get(ids.slots, keys[1]).and_then(IdSlot::handle), Some(3));
    }
}
