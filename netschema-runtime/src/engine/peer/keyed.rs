//! The peer's keyframe records: before each packet, what changed in the timelines of the
//! entities the client has handles for is queued (see `engine::keys`).

use super::{NO_HANDLE, Peer};
use crate::engine::keys::Shadow;
use crate::engine::world::World;

impl Peer<'_> {
    /// Queues the keyframe records that bring the client's timelines up to the world's, for
    /// every handle given, each short enough for a packet of `budget` bytes to carry. When the
    /// record queue is full the rest wait for the next packet
    /// ([`PeerStats::keys_waiting`](super::PeerStats::keys_waiting)).
    pub(super) fn queue_keys(&mut self, world: &World<'_>, budget: usize) {
        let mut shadow = Shadow::new(self.schema, self.store.keys, Shadow::cap(budget));
        let Some(frame) = world.frame().filter(|_| shadow.is_used()) else { return };
        let outbox = &mut self.state.records;
        let entities = self.store.handle_entity.iter().zip(&*self.store.since);
        let mut synced = Ok(());
        for (h, (&id, &birth)) in entities.enumerate() {
            let Some(class) = world.class_now(id as usize).filter(|_| id != NO_HANDLE) else {
                continue;
            };
            let of = (class, &self.schema.classes[class], self.schema.classes.len());
            synced = shadow.sync((outbox, world), (h as u32, id, birth, frame), of);
            if synced.is_err() {
                break;
            }
        }
        if synced.and_then(|()| shadow.flush(outbox, world)).is_err() {
            self.state.stats.keys_waiting += 1;
        }
    }
}
