//! The client's side of text fields: per handle, the texts of the entity born at a frame, as
//! the text records of its record stream set them.

use std::vec;
use std::vec::Vec;

use super::slots::TextSlots;
use super::{has_texts, read};
use crate::engine::frame::age;
use crate::schema::Schema;

/// The texts a client holds, per handle.
#[derive(Debug, Default)]
pub(crate) struct HeldTexts {
    slots: TextSlots,
    /// Per handle, the birth frame of the entity its texts are of, if any.
    births: Vec<Option<u32>>,
}

impl HeldTexts {
    /// For a client of `schema` holding `handles` handles (nothing to keep if it has no text
    /// fields).
    pub(crate) fn new(schema: &Schema, handles: usize) -> HeldTexts {
        let rows = if has_texts(schema) { handles } else { 0 };
        HeldTexts { slots: TextSlots::new(schema, rows), births: vec![None; rows] }
    }

    /// Applies the text records among `records`, in order; other records are left alone, and
    /// damaged text records are dropped. A record of an entity born before the one whose texts
    /// the handle holds is of an entity gone; one born later starts the handle's texts over.
    pub(crate) fn apply<'r>(&mut self, schema: &Schema, records: impl Iterator<Item = &'r [u8]>) {
        if self.births.is_empty() {
            return;
        }
        for bytes in records {
            let Some(Ok(r)) = read(schema, bytes) else { continue };
            let Some(held) = self.births.get_mut(r.handle as usize) else { continue };
            match *held {
                Some(birth) if birth == r.birth => {}
                Some(birth) if (age(birth, r.birth) as i32) > 0 => continue,
                _ => {
                    *held = Some(r.birth);
                    self.slots.clear(r.handle as usize);
                }
            }
            self.slots.set(r.handle as usize, r.text, r.bytes);
        }
    }

    /// Calls `set` with each of `count` text fields of the entity under `handle`, born at
    /// `born`, that this client holds a text of.
    pub(crate) fn fill(
        &self,
        handle: u32,
        born: u32,
        count: usize,
        mut set: impl FnMut(usize, &[u8]),
    ) {
        if self.births.get(handle as usize).copied().flatten() != Some(born) {
            return;
        }
        for t in 0..count {
            let bytes = self.slots.get(handle as usize, t);
            if !bytes.is_empty() {
                set(t, bytes);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::owned::texts::{TextRecord, write};
    use crate::schema::{Class, TextField};

    static TEXTS: [TextField; 2] = [TextField::string("name", 8), TextField::bytes("tag", 4)];
    static CLASSES: [Class; 1] = [Class::new("c", &[]).with_texts(&TEXTS)];
    const SCHEMA: Schema = Schema::new("s", &CLASSES);

    fn record(birth: u32, text: usize, bytes: &[u8]) -> Vec<u8> {
        let mut buf = [0u8; 64];
        let n = write(&SCHEMA, &TextRecord { handle: 1, birth, text, bytes }, &mut buf).unwrap();
        buf[..n].to_vec()
    }

    fn shown(held: &HeldTexts, born: u32) -> Vec<(usize, Vec<u8>)> {
        let mut out = Vec::new();
        held.fill(1, born, 2, |t, b| out.push((t, b.to_vec())));
        out
    }

    #[test]
    fn texts_reach_only_the_entity_born_when_they_say() {
        let mut held = HeldTexts::new(&SCHEMA, 2);
        let records = [record(5, 0, b"ada"), record(5, 1, b"x"), record(5, 0, b"bob")];
        held.apply(&SCHEMA, records.iter().map(Vec::as_slice));
        assert_eq!(shown(&held, 5), [(0, b"bob".to_vec()), (1, b"x".to_vec())]);
        assert_eq!(shown(&held, 4), [], "another entity under the handle");
        // An entity gone: dropped. One born later: the handle's texts start over.
        let records = [record(3, 0, b"old"), record(9, 1, b"y"), record(u32::MAX, 0, b"w")];
        held.apply(&SCHEMA, records.iter().map(Vec::as_slice));
        assert_eq!(shown(&held, 5), []);
        assert_eq!(shown(&held, 9), [(1, b"y".to_vec())]);
        // Damaged records and other records are left alone.
        held.apply(&SCHEMA, [&[1u8, 2][..], &[0, 1, 9, 0, 3, b'a']].into_iter());
        assert_eq!(shown(&held, 9), [(1, b"y".to_vec())]);
    }
}
