//! The client's keyframe records: applied once a packet is accepted, and shown in the rows it
//! hands out (see `engine::keys`).

use super::Client;
use crate::engine::keys::Store;
use crate::engine::world::NO_CLASS;

impl Client<'_> {
    /// Applies the keyframe records the packet just accepted applied, then writes every
    /// handle's timeline fields into the tables of values it hands out
    /// ([`ClientStorage::view`](super::ClientStorage::view)): from the store if it holds the
    /// slots of the handle's entity, else empty.
    pub(super) fn apply_keys(&mut self) {
        if self.store.keys.is_empty() {
            return;
        }
        let mut store = Store::new(self.schema, self.store.keys);
        for record in self.state.records.applied_keys() {
            store.apply(self.schema, record.bytes);
        }
        let Some(slot) = self.state.slots.find(self.state.newest) else { return };
        let (hs, n) = (self.state.handles as usize, self.schema.max_fields);
        let classes = &self.store.classes[slot * hs..(slot + 1) * hs];
        for (h, (&class, &born)) in classes.iter().zip(&*self.store.born).enumerate() {
            let Some(c) = self.schema.classes.get(usize::from(class)).filter(|_| class != NO_CLASS)
            else {
                continue;
            };
            let held = store.held(h as u32, usize::from(class), born);
            for table in [self.state.shown, 2] {
                let at = (table * hs + h) * n;
                let Some(row) = self.store.view.get_mut(at..at + c.fields.len()) else { continue };
                for (f, (v, field)) in row.iter_mut().zip(c.fields).enumerate() {
                    if c.is_key(f) {
                        *v = held.and_then(|k| k.get(f)).copied().unwrap_or(field.empty());
                    }
                }
            }
        }
    }
}
