//! The peer's keyframe records: before each packet, what changed in the timelines of the
//! entities the client has handles for is queued (see `engine::keys`).

use super::{NO_HANDLE, Peer};
use crate::engine::keys::Shadow;
use crate::engine::world::World;

impl Peer<'_> {
    /// Queues the keyframe records that bring the client's timelines up to the world's, for
    /// every handle given. When the record queue is full the rest wait for the next packet
    /// ([`PeerStats::keys_waiting`](super::PeerStats::keys_waiting)).
    pub(super) fn queue_keys(&mut self, world: &World<'_>) {
        let mut shadow = Shadow::new(self.schema, self.store.keys);
        if !shadow.is_used() {
            return;
        }
        for (h, (&id, &birth)) in self.store.handle_entity.iter().zip(&*self.store.since).enumerate()
        {
            let Some(class) = world.class_now(id as usize).filter(|_| id != NO_HANDLE) else {
                continue;
            };
            let c = &self.schema.classes[class];
            let now = world.keys(id as usize, c.fields.len());
            let named = (h as u32, id, birth);
            if shadow.sync(&mut self.state.records, named, (class, c), now).is_err() {
                self.state.stats.keys_waiting += 1;
                return;
            }
        }
    }
}
