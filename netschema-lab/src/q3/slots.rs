//! Quake III's entity numbers (`G_Spawn`): a new entity takes the lowest free slot that was
//! not freed in the last second (after the first two seconds, when any free slot will do),
//! else opens a new slot; when every slot is open and none qualifies, it takes the lowest free
//! slot anyway (the forced pass `G_Spawn`'s comment intends). Seconds are counted at 60 frames.

use std::collections::HashMap;

use super::super::Snapshot;

/// Frames during which a freed slot is not reused (one second).
const REUSE_DELAY: u32 = 60;

/// Frames at the start when freed slots are reused at once (two seconds).
const RELAXED_START: u32 = 120;

/// The slot of every entity present.
#[derive(Debug)]
pub(super) struct Slots {
    slot_of: HashMap<u32, u32>,
    /// Per open slot: `None` in use, else the frame it was freed.
    free_since: Vec<Option<u32>>,
    /// Most slots that may be opened.
    max: u32,
}

impl Slots {
    /// No slots open; at most `max` may be.
    pub(super) fn new(max: u32) -> Self {
        Slots { slot_of: HashMap::new(), free_since: Vec::new(), max }
    }

    /// Frees the slots of entities gone from `s` and gives new ones a slot, in id order.
    pub(super) fn update(&mut self, frame: u32, s: &Snapshot) -> Result<(), String> {
        let mut gone: Vec<u32> =
            self.slot_of.keys().filter(|id| s.ids.binary_search(id).is_err()).copied().collect();
        gone.sort_unstable();
        for id in gone {
            if let Some(slot) = self.slot_of.remove(&id) {
                self.free_since[slot as usize] = Some(frame);
            }
        }
        for &id in &s.ids {
            if !self.slot_of.contains_key(&id) {
                let slot = self.allocate(frame)?;
                self.slot_of.insert(id, slot);
            }
        }
        Ok(())
    }

    fn allocate(&mut self, frame: u32) -> Result<u32, String> {
        let usable = |freed: u32| freed <= RELAXED_START || frame - freed >= REUSE_DELAY;
        let found = self.free_since.iter().position(|f| f.is_some_and(usable));
        let slot = match found {
            Some(slot) => slot,
            None if (self.free_since.len() as u32) < self.max => {
                self.free_since.push(None);
                self.free_since.len() - 1
            }
            None => self
                .free_since
                .iter()
                .position(Option::is_some)
                .ok_or_else(|| format!("more than {} entities", self.max))?,
        };
        self.free_since[slot] = None;
        Ok(slot as u32)
    }

    /// The slot of entity `id`.
    pub(super) fn get(&self, id: u32) -> Option<u32> {
        self.slot_of.get(&id).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(ids: &[u32]) -> Snapshot {
        let mut s = Snapshot::new();
        for &id in ids {
            s.push(id, 0, &[]);
        }
        s
    }

    #[test]
    fn freed_slots_wait_a_second_unless_every_slot_is_open() {
        let mut slots = Slots::new(3);
        slots.update(200, &snapshot(&[1, 2])).unwrap();
        slots.update(201, &snapshot(&[2, 3])).unwrap();
        assert_eq!(slots.get(3), Some(2), "slot 0 was freed a frame ago");
        slots.update(202, &snapshot(&[2, 3, 4])).unwrap();
        assert_eq!(slots.get(4), Some(0), "every slot is open: the forced pass");
        slots.update(300, &snapshot(&[3, 4])).unwrap();
        slots.update(400, &snapshot(&[3, 4, 5])).unwrap();
        assert_eq!(slots.get(5), Some(1), "freed 100 frames ago");
        assert!(slots.update(401, &snapshot(&[3, 4, 5, 6])).is_err());
    }
}
