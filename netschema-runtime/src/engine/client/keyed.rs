//! The client's keyframe records: applied once a packet is accepted, and shown in the rows it
//! hands out (see `engine::keys`).

use super::Client;
use crate::engine::keys::Store;

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
        let (hs, n, stride) =
            (self.state.handles as usize, self.schema.max_fields, self.state.stride);
        let rows = self.store.rows.get(slot * hs * stride..).unwrap_or(&[]);
        for (h, &born) in self.store.born.iter().enumerate().take(hs) {
            let class = self.state.mark.get(rows, h * stride);
            let Some((class, c)) = class.and_then(|c| Some((c, self.schema.classes.get(c)?)))
            else {
                continue;
            };
            let held = store.held(h as u32, class, born);
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
