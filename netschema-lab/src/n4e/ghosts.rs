//! The server's ghosts for one connection: ghost ids, the ECS chunks that hold them, and the
//! despawns the client has not acknowledged.
//!
//! Entities of a ghost type live in chunks of at most [`CHUNK_CAPACITY`]; a new one is
//! appended to the first chunk with room, and a removed one is replaced by its chunk's last
//! entity (swap-back), as Unity's ECS stores archetypes. Ghost ids start at 1; the id of a
//! despawned ghost is reused, oldest first, once the client has acknowledged the despawn.

use std::collections::{HashMap, VecDeque};

use super::super::Snapshot;

/// Entities per chunk: ECS's largest chunk capacity.
pub(super) const CHUNK_CAPACITY: usize = 128;

/// One ghost.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ghost {
    /// Its ghost id on the wire.
    pub(super) id: u32,
    /// Its ghost type (the snapshot's class).
    pub(super) class: u16,
    /// The frame it became relevant to the client.
    pub(super) spawn_tick: u32,
    /// Index of its entity in the snapshot being encoded.
    pub(super) row: usize,
}

impl Ghost {
    /// What names this ghost for its whole life: its id and spawn tick.
    pub(super) fn key(&self) -> (u32, u32) {
        (self.id, self.spawn_tick)
    }
}

/// Ghost ids, chunks and pending despawns.
#[derive(Debug, Default)]
pub(super) struct Ghosts {
    /// The ghost of each snapshot id present.
    by_entity: HashMap<u32, Ghost>,
    /// Per ghost type, chunks of snapshot ids in chunk order.
    chunks: Vec<Vec<Vec<u32>>>,
    /// Ghost ids free for reuse, oldest first.
    free: VecDeque<u32>,
    /// The next never-used ghost id.
    next: u32,
    /// Despawned ghost ids and the first frame that carried each despawn.
    despawns: Vec<(u32, u32)>,
}

impl Ghosts {
    /// No ghosts, for a schema of `classes` ghost types.
    pub(super) fn new(classes: usize) -> Self {
        Ghosts { chunks: vec![Vec::new(); classes], next: 1, ..Ghosts::default() }
    }

    /// Brings the ghosts in line with `s` at `frame`: entities gone are removed and their
    /// despawns queued, new ones get a ghost id and a chunk slot.
    pub(super) fn update(&mut self, frame: u32, s: &Snapshot) {
        let present: HashMap<u32, (usize, u16)> =
            (0..s.len()).map(|i| (s.ids[i], (i, s.classes[i]))).collect();
        let mut gone: Vec<u32> = self
            .by_entity
            .iter()
            .filter(|(e, g)| present.get(e).is_none_or(|&(_, c)| c != g.class))
            .map(|(&e, _)| e)
            .collect();
        gone.sort_unstable();
        for e in gone {
            if let Some(g) = self.by_entity.remove(&e) {
                for chunk in &mut self.chunks[usize::from(g.class)] {
                    if let Some(at) = chunk.iter().position(|&x| x == e) {
                        chunk.swap_remove(at);
                    }
                }
                self.despawns.push((g.id, frame));
            }
        }
        for (i, (&e, &class)) in s.ids.iter().zip(&s.classes).enumerate() {
            match self.by_entity.get_mut(&e) {
                Some(g) => g.row = i,
                None => {
                    let id = self.free.pop_front().unwrap_or_else(|| {
                        self.next += 1;
                        self.next - 1
                    });
                    let chunks = &mut self.chunks[usize::from(class)];
                    match chunks.iter_mut().find(|c| c.len() < CHUNK_CAPACITY) {
                        Some(chunk) => chunk.push(e),
                        None => chunks.push(vec![e]),
                    }
                    self.by_entity.insert(e, Ghost { id, class, spawn_tick: frame, row: i });
                }
            }
        }
    }

    /// Forgets the despawns carried by an acknowledged packet (every packet from a despawn's
    /// first one on carries it) and frees their ghost ids.
    pub(super) fn acknowledged(&mut self, newest_acked: u32) {
        let free = &mut self.free;
        self.despawns.retain(|&(id, since)| {
            let done = (newest_acked.wrapping_sub(since) as i32) >= 0;
            if done {
                free.push_back(id);
            }
            !done
        });
    }

    /// The ghost of snapshot id `entity`.
    pub(super) fn get(&self, entity: u32) -> Option<&Ghost> {
        self.by_entity.get(&entity)
    }

    /// Per ghost type, its non-empty chunks of snapshot ids.
    pub(super) fn chunks(&self) -> impl Iterator<Item = (u16, &[u32])> {
        self.chunks.iter().enumerate().flat_map(|(class, chunks)| {
            chunks.iter().filter(|c| !c.is_empty()).map(move |c| (class as u16, c.as_slice()))
        })
    }

    /// Ghost ids whose despawn the client has not acknowledged, ascending.
    pub(super) fn despawns(&self) -> Vec<u32> {
        let mut ids: Vec<u32> = self.despawns.iter().map(|&(id, _)| id).collect();
        ids.sort_unstable();
        ids
    }

    /// Ghosts present.
    pub(super) fn len(&self) -> usize {
        self.by_entity.len()
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
    fn swap_back_and_id_reuse_after_the_despawn_is_acked() {
        let mut g = Ghosts::new(1);
        g.update(0, &snapshot(&[10, 11, 12]));
        assert_eq!(g.get(12).map(|g| g.id), Some(3));
        g.update(1, &snapshot(&[11, 12, 13]));
        // 10 left: 12 moved into its slot, 13 was appended; its despawn is pending.
        let chunks: Vec<&[u32]> = g.chunks().map(|(_, c)| c).collect();
        assert_eq!(chunks, [&[12, 11, 13][..]]);
        assert_eq!(g.despawns(), [1]);
        assert_eq!(g.get(13).map(|g| g.id), Some(4));
        g.acknowledged(0);
        assert_eq!(g.despawns(), [1], "frame 0 did not carry the despawn");
        g.acknowledged(1);
        assert!(g.despawns().is_empty());
        g.update(2, &snapshot(&[11, 12, 13, 14]));
        assert_eq!(g.get(14).map(|g| (g.id, g.spawn_tick)), Some((1, 2)));
    }
}
