//! Frame rows as a client keeps them: each value as its distance from its field's minimum, in
//! the fewest whole bytes that hold the field's span (0 to 4), little-endian, one field after
//! another. A row of five 15-bit and 8-bit values takes 7 bytes rather than 20.

use crate::engine::packet::CHUNK;
use crate::schema::{Field, Schema};

/// Bytes a value of `field` takes in a row: those of its largest distance from its minimum.
#[inline(always)]
const fn width(field: &Field) -> usize {
    let most = field.max.abs_diff(field.min);
    if most == 0 {
        0
    } else if most < 1 << 8 {
        1
    } else if most < 1 << 16 {
        2
    } else if most < 1 << 24 {
        3
    } else {
        4
    }
}

/// Bytes of a row of `fields`.
pub(super) fn len(fields: &[Field]) -> usize {
    fields.iter().map(width).sum()
}

/// Bytes of the longest row of a class of `schema`: what a handle takes in a frame slot.
pub(super) fn stride(schema: &Schema) -> usize {
    schema.classes.iter().map(|c| len(c.fields)).max().unwrap_or(0)
}

/// Where the value of field `f` of `fields` starts in a row.
#[inline]
fn offset(fields: &[Field], f: usize) -> usize {
    fields.iter().take(f).map(width).sum()
}

/// Where a field's value lies in a row: where it starts, the mask of its bits in the four bytes
/// from there (its width), and the field's minimum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Place {
    at: u32,
    mask: u32,
    min: i32,
}

impl Place {
    /// No value: reads as 0, writes nothing.
    const NONE: Place = Place { at: 0, mask: 0, min: 0 };

    /// The place of field `f` of `fields`.
    pub(super) fn of(fields: &[Field], f: usize) -> Place {
        fields.get(f).map_or(Place::NONE, |field| Place::at(field, offset(fields, f)))
    }

    /// The place of a value of `field` starting at byte `at` of a row.
    fn at(field: &Field, at: usize) -> Place {
        let mask = match width(field) {
            0 => 0,
            w => u32::MAX >> (32 - 8 * w),
        };
        Place { at: at as u32, mask, min: field.min }
    }

    /// The value at this place in `row` (bytes past its end read as zero).
    #[inline(always)]
    pub(super) fn get(self, row: &[u8]) -> i32 {
        let at = self.at as usize;
        let word = match row.get(at..at + 4).and_then(|b| <[u8; 4]>::try_from(b).ok()) {
            Some(b) => u32::from_le_bytes(b),
            None => {
                let (mut b, tail) = ([0; 4], row.get(at..).unwrap_or(&[]));
                b[..tail.len().min(4)].copy_from_slice(&tail[..tail.len().min(4)]);
                u32::from_le_bytes(b)
            }
        };
        self.min.wrapping_add((word & self.mask) as i32)
    }

    /// Writes `value`, in the field's range, at this place in `row` (what fits of it).
    #[inline(always)]
    pub(super) fn put(self, value: i32, row: &mut [u8]) {
        let (at, above) = (self.at as usize, value.wrapping_sub(self.min) as u32);
        match row.get_mut(at..at + 4).and_then(|b| <&mut [u8; 4]>::try_from(b).ok()) {
            Some(b) => {
                let kept = u32::from_le_bytes(*b) & !self.mask;
                *b = (kept | (above & self.mask)).to_le_bytes();
            }
            None => {
                let tail = row.get_mut(at..).unwrap_or(&mut []);
                let n = tail.len().min((32 - self.mask.leading_zeros()) as usize / 8);
                tail[..n].copy_from_slice(&above.to_le_bytes()[..n]);
            }
        }
    }
}

/// Where the values of the first [`CHUNK`] fields of a class lie in its rows: worked out once a
/// packet, so that reading or writing a value is a load and a mask.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    /// The class's fields.
    pub(super) fields: &'static [Field],
    /// The places of the first [`CHUNK`].
    places: [Place; CHUNK],
    /// Bytes of the class's values in a row.
    pub(super) len: usize,
}

impl Layout {
    /// The layout of no class.
    pub(super) const EMPTY: Layout = Layout { fields: &[], places: [Place::NONE; CHUNK], len: 0 };

    /// The layout of a class of `fields`.
    pub(super) fn new(fields: &'static [Field]) -> Layout {
        let (mut places, mut at) = ([Place::NONE; CHUNK], 0);
        for (place, field) in places.iter_mut().zip(fields) {
            *place = Place::at(field, at);
            at += width(field);
        }
        Layout { fields, places, len: len(fields) }
    }

    /// Where the value of field `f` lies in a row.
    #[inline(always)]
    pub(super) fn place(&self, f: usize) -> Place {
        match self.places.get(f) {
            Some(&place) => place,
            None => Place::of(self.fields, f),
        }
    }
}

/// The value of field `f` of `fields` in `row`.
pub(super) fn value(fields: &[Field], row: &[u8], f: usize) -> Option<i32> {
    fields.get(f)?;
    Some(Place::of(fields, f).get(row))
}

/// Writes the values of `row`, of `fields`, into `out`.
pub(super) fn unpack(fields: &[Field], row: &[u8], out: &mut [i32]) {
    let mut at = 0;
    for (field, o) in fields.iter().zip(out) {
        *o = Place::at(field, at).get(row);
        at += width(field);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::predict::Predictor;

    const HOLD: [Predictor; 1] = [Predictor::Hold];
    const FIELDS: [Field; 6] = [
        Field::numeric("one", 7, 7, false, &HOLD),
        Field::categorical("on", 2),
        Field::numeric("short", -1000, 1000, false, &HOLD),
        Field::numeric("wide", -300_000, 300_000, true, &HOLD),
        Field::numeric("all", i32::MIN, i32::MAX, true, &HOLD),
        Field::categorical("kind", 256),
    ];

    /// Every value, at each end of its range, reads back as written, in the fewest bytes, and
    /// writing one leaves the others as they were.
    #[test]
    fn values_read_back_at_their_widths() {
        assert_eq!(FIELDS.map(|f| width(&f)), [0, 1, 2, 3, 4, 1]);
        assert_eq!(len(&FIELDS), 11);
        let layout = Layout::new(&FIELDS);
        for pick in [0, 1] {
            let values = FIELDS.map(|f| if pick == 0 { f.min } else { f.max });
            let mut row = [0xAAu8; 11];
            for (f, &v) in values.iter().enumerate() {
                assert_eq!(layout.place(f), Place::of(&FIELDS, f));
                layout.place(f).put(v, &mut row);
            }
            let mut back = [0; 6];
            unpack(&FIELDS, &row, &mut back);
            assert_eq!(back, values);
            assert_eq!(value(&FIELDS, &row, 3), Some(values[3]));
        }
        // "wide" starts at byte 3: a row of 5 bytes holds two of its three.
        let wide = Place::of(&FIELDS, 3);
        let mut short = [0u8; 5];
        wide.put(FIELDS[3].min + 0x30201, &mut short);
        assert_eq!(short, [0, 0, 0, 1, 2], "a value past the end is cut short");
        assert_eq!(wide.get(&short), FIELDS[3].min + 0x201, "bytes past the end read as 0");
        assert_eq!(layout.place(20), Place::NONE);
    }
}
