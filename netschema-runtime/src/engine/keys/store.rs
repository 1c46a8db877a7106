//! The client's side: per handle, the timeline slots of the entity born at one frame, as the
//! keyframe records applied so far set them.

use super::record::{apply, head, slots};
use crate::engine::frame::age;
use crate::schema::Schema;

/// Words before a handle's values in the store: the entity's birth frame and class (-1: none).
const HEAD: usize = 2;

/// The client's store of timeline slots: per handle, the entity they are of and the values of
/// its timeline fields (the other fields unused).
pub(crate) struct Store<'a> {
    keys: &'a mut [i32],
    width: usize,
}

impl<'a> Store<'a> {
    /// Length of the storage of a store of `schema` for `handles` handles: none without
    /// timelines.
    pub(crate) fn len(schema: &Schema, handles: usize) -> usize {
        match schema.has_keys() {
            true => handles.saturating_mul(HEAD + schema.max_fields),
            false => 0,
        }
    }

    /// The store in `keys` (of [`Store::len`]) for `schema`.
    pub(crate) fn new(schema: &Schema, keys: &'a mut [i32]) -> Store<'a> {
        Store { keys, width: HEAD + schema.max_fields }
    }

    /// Every handle of no entity.
    pub(crate) fn clear(&mut self) {
        self.keys.chunks_exact_mut(self.width).for_each(|k| k[1] = -1);
    }

    /// Applies keyframe record `bytes` of `schema` (checked when it was staged; a damaged one
    /// changes nothing past its damage). A record of an entity born before the one whose slots
    /// the handle holds is of an entity gone, and is dropped; one born later, or of another
    /// class, starts the handle's slots over from empty.
    pub(crate) fn apply(&mut self, schema: &Schema, bytes: &[u8]) {
        let Ok(r) = head(schema, bytes) else { return };
        let Some(row) = self.keys.chunks_exact_mut(self.width).nth(r.handle as usize) else {
            return;
        };
        let (named, held) = row.split_at_mut(HEAD);
        let (birth, class) = (named[0] as u32, named[1]);
        if class >= 0 && birth != r.birth && (age(birth, r.birth) as i32) > 0 {
            return;
        }
        let c = &schema.classes[r.class];
        if class != r.class as i32 || birth != r.birth {
            named.copy_from_slice(&[r.birth as i32, r.class as i32]);
            c.empty_row(held);
        }
        let _ = slots(c, bytes, r.at, |f, flag, steps| apply(c, held, (f, flag, steps)));
    }

    /// The timeline fields of the entity of `class` born at `born` under handle `h`, at their
    /// field indices, if the store holds its slots.
    pub(crate) fn held(&self, h: u32, class: usize, born: u32) -> Option<&[i32]> {
        let row = self.keys.chunks_exact(self.width).nth(h as usize)?;
        let (named, held) = row.split_at(HEAD);
        (named == [born as i32, class as i32]).then_some(held)
    }
}
