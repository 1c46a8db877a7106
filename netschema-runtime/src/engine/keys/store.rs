//! The client's side: per handle, the timeline slots of the entity born at one frame, as the
//! keyframe records applied so far set them.

use super::record::{Item, apply, read};
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
    /// changes nothing past its damage). A block of an entity born before the one whose slots
    /// the handle holds is of an entity gone, and is dropped; one born later, or of another
    /// class, starts the handle's slots over from empty. A block without birth is of the entity
    /// the handle holds slots of (and is dropped if it holds none of its class).
    pub(crate) fn apply(&mut self, schema: &Schema, bytes: &[u8]) {
        let (keys, width) = (&mut *self.keys, self.width);
        // The row and class the block being read applies to, if any.
        let mut target = None;
        let _ = read(schema, bytes, |item| match item {
            Item::Block(b) => {
                let row = keys.chunks_exact_mut(width).nth(b.handle as usize);
                target = row.and_then(|row| {
                    let (named, held) = row.split_at_mut(HEAD);
                    let (birth, class) = (named[0] as u32, named[1]);
                    let c = &schema.classes[b.class];
                    let same = class == b.class as i32;
                    match b.birth {
                        None if same => {}
                        None => return None,
                        Some(new) if class >= 0 && (age(birth, new) as i32) > 0 => return None,
                        Some(new) if same && new == birth => {}
                        Some(new) => {
                            named.copy_from_slice(&[new as i32, b.class as i32]);
                            c.empty_row(held);
                        }
                    }
                    Some((b.handle, c))
                });
            }
            Item::Slot(f, flag, steps) => {
                let Some((h, c)) = target else { return };
                if let Some(row) = keys.chunks_exact_mut(width).nth(h as usize) {
                    apply(c, &mut row[HEAD..], (f, flag, steps));
                }
            }
        });
    }

    /// The timeline fields of the entity of `class` born at `born` under handle `h`, at their
    /// field indices, if the store holds its slots.
    pub(crate) fn held(&self, h: u32, class: usize, born: u32) -> Option<&[i32]> {
        let row = self.keys.chunks_exact(self.width).nth(h as usize)?;
        let (named, held) = row.split_at(HEAD);
        (named == [born as i32, class as i32]).then_some(held)
    }
}
