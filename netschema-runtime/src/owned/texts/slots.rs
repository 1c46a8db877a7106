//! Fixed rows of text fields: per row, room for the most text fields of any class of the
//! schema, each as long as the longest text field; allocated once.

use std::vec;
use std::vec::Vec;

use crate::schema::Schema;

/// Rows of text fields, each field's bytes and length.
#[derive(Debug, Default)]
pub(crate) struct TextSlots {
    /// Text fields per row.
    per_row: usize,
    /// Bytes per field.
    width: usize,
    bytes: Vec<u8>,
    lens: Vec<u8>,
}

impl TextSlots {
    /// `rows` rows for the text fields of `schema` (none if it has none).
    pub(crate) fn new(schema: &Schema, rows: usize) -> TextSlots {
        let per_row = schema.classes.iter().map(|c| c.texts.len()).max().unwrap_or(0);
        let width = schema.classes.iter().flat_map(|c| c.texts).map(|t| t.max).max();
        let width = usize::from(width.unwrap_or(0));
        let fields = if per_row == 0 { 0 } else { rows * per_row };
        TextSlots { per_row, width, bytes: vec![0; fields * width], lens: vec![0; fields] }
    }

    /// The index of field `text` of row `row`, if there is one.
    fn at(&self, row: usize, text: usize) -> Option<usize> {
        let at = row.checked_mul(self.per_row)? + text;
        (text < self.per_row && at < self.lens.len()).then_some(at)
    }

    /// The bytes of field `text` of row `row` (empty past the rows).
    pub(crate) fn get(&self, row: usize, text: usize) -> &[u8] {
        match self.at(row, text) {
            Some(at) => &self.bytes[at * self.width..][..usize::from(self.lens[at])],
            None => &[],
        }
    }

    /// Sets field `text` of row `row` to `bytes` (cut to the width); whether it changed.
    pub(crate) fn set(&mut self, row: usize, text: usize, bytes: &[u8]) -> bool {
        let Some(at) = self.at(row, text) else { return false };
        let bytes = &bytes[..bytes.len().min(self.width)];
        if self.get(row, text) == bytes {
            return false;
        }
        self.bytes[at * self.width..][..bytes.len()].copy_from_slice(bytes);
        self.lens[at] = bytes.len() as u8;
        true
    }

    /// Empties every field of row `row`.
    pub(crate) fn clear(&mut self, row: usize) {
        for text in 0..self.per_row {
            self.set(row, text, &[]);
        }
    }
}
