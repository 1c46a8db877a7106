//! Frame rows as a client keeps them: each value as its distance from its field's minimum, in
//! the fewest bits that hold the field's span (0 to 32), one field after another from the low
//! bits of the row's first byte up, little-endian; the bits past the last value are zero up to
//! the class mark ([`ClassMark`]), past the longest class's values: which class the row holds,
//! if any. A cube (two 18-bit, a 14-bit and three 9-bit values, a bool and a 2-bit index, and a
//! 1-bit mark) takes 11 bytes.

use crate::engine::packet::CHUNK;
use crate::schema::{Field, Schema};

/// Bits a value of `field` takes in a row: those of its largest distance from its minimum.
#[inline(always)]
const fn bits(field: &Field) -> u32 {
    32 - field.max.abs_diff(field.min).leading_zeros()
}

/// Bits of the values of `fields`.
fn total_bits(fields: &[Field]) -> usize {
    fields.iter().map(|f| bits(f) as usize).sum()
}

/// Bytes of a row of `fields`.
pub(super) fn len(fields: &[Field]) -> usize {
    total_bits(fields).div_ceil(8)
}

/// Bytes a handle takes in a frame slot: the longest class's values and the class mark.
pub(super) fn stride(schema: &Schema) -> usize {
    let mark = ClassMark::of(schema);
    (mark.start() + mark.bits()).div_ceil(8)
}

/// Where a row says which class it holds: the class plus one (0: no entity) in the fewest bits
/// that hold the schema's class count, past the values of its longest class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ClassMark {
    /// The byte of its row it starts in, and its shift there.
    at: u32,
    shift: u32,
    /// The mask of its bits (its width).
    mask: u32,
}

impl ClassMark {
    /// The class mark of the rows of `schema`.
    pub(super) fn of(schema: &Schema) -> ClassMark {
        let at = schema.classes.iter().map(|c| total_bits(c.fields)).max().unwrap_or(0);
        // At most 16 bits (a schema has fewer than 2^16 classes): with its shift, a word.
        let bits = u32::BITS - (schema.classes.len() as u32).leading_zeros();
        let mask = if bits == 0 { 0 } else { u32::MAX >> (u32::BITS - bits) };
        ClassMark { at: (at / 8) as u32, shift: (at % 8) as u32, mask }
    }

    /// Bits of the mark.
    fn bits(self) -> usize {
        (u32::BITS - self.mask.leading_zeros()) as usize
    }

    /// The class the row starting at byte `row` of `rows` holds, if any (a row past the end
    /// holds none). The mark is read with the bytes after it, which its mask leaves out.
    #[inline(always)]
    pub(super) fn get(self, rows: &[u8], row: usize) -> Option<usize> {
        let at = row + self.at as usize;
        let word = match rows.get(at..at + 4) {
            Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
            _ => rows.iter().skip(at).take(4).rev().fold(0, |w, &b| w << 8 | u32::from(b)),
        };
        ((word >> self.shift & self.mask) as usize).checked_sub(1)
    }

    /// Marks the row starting at byte `row` of `rows` as holding `class`, or nothing, leaving
    /// every other bit as it was.
    #[inline(always)]
    pub(super) fn set(self, rows: &mut [u8], row: usize, class: Option<usize>) {
        let at = row + self.at as usize;
        let mask = self.mask << self.shift;
        let bits = (class.map_or(0, |c| c as u32 + 1) & self.mask) << self.shift;
        if let Some(word) = rows.get_mut(at..at + 4).and_then(|b| <&mut [u8; 4]>::try_from(b).ok())
        {
            *word = ((u32::from_le_bytes(*word) & !mask) | bits).to_le_bytes();
            return;
        }
        for (i, byte) in rows.iter_mut().skip(at).take(4).enumerate() {
            let m = (mask >> (8 * i)) as u8;
            *byte = (*byte & !m) | (bits >> (8 * i)) as u8;
        }
    }

    /// The first bit of the mark: where the values' tail ends.
    #[inline(always)]
    fn start(self) -> usize {
        self.at as usize * 8 + self.shift as usize
    }
}

/// Where the value of field `f` of `fields` starts in a row, in bits.
#[inline]
fn offset(fields: &[Field], f: usize) -> usize {
    total_bits(&fields[..f.min(fields.len())])
}

/// The eight bytes of `row` from `at` as one word (bytes past its end read as zero).
#[inline(always)]
fn load(row: &[u8], at: usize) -> u64 {
    match row.get(at..at + 8).and_then(|b| <[u8; 8]>::try_from(b).ok()) {
        Some(b) => u64::from_le_bytes(b),
        None => {
            let (mut b, tail) = ([0; 8], row.get(at..).unwrap_or(&[]));
            let n = tail.len().min(8);
            b[..n].copy_from_slice(&tail[..n]);
            u64::from_le_bytes(b)
        }
    }
}

/// Where a field's value lies in a row: the byte it starts in, its shift within the eight bytes
/// from there, the mask of its bits (its width), and the field's minimum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Place {
    at: u32,
    shift: u32,
    mask: u32,
    min: i32,
}

impl Place {
    /// No value: reads as 0, writes nothing.
    const NONE: Place = Place { at: 0, shift: 0, mask: 0, min: 0 };

    /// The place of field `f` of `fields`.
    pub(super) fn of(fields: &[Field], f: usize) -> Place {
        fields.get(f).map_or(Place::NONE, |field| Place::at(field, offset(fields, f)))
    }

    /// The place of a value of `field` starting at bit `at` of a row.
    fn at(field: &Field, at: usize) -> Place {
        let mask = match bits(field) {
            0 => 0,
            b => u32::MAX >> (32 - b),
        };
        Place { at: (at / 8) as u32, shift: (at % 8) as u32, mask, min: field.min }
    }

    /// The value at this place in `row` (bits past its end read as zero).
    #[inline(always)]
    pub(super) fn get(self, row: &[u8]) -> i32 {
        let word = load(row, self.at as usize);
        self.min.wrapping_add(((word >> self.shift) as u32 & self.mask) as i32)
    }

    /// Writes `value`, in the field's range, at this place in `row` (what fits of it), leaving
    /// the other bits as they were.
    #[inline(always)]
    pub(super) fn put(self, value: i32, row: &mut [u8]) {
        let at = self.at as usize;
        let mask = u64::from(self.mask) << self.shift;
        let bits = u64::from(value.wrapping_sub(self.min) as u32 & self.mask) << self.shift;
        match row.get_mut(at..at + 8).and_then(|b| <&mut [u8; 8]>::try_from(b).ok()) {
            Some(b) => *b = ((u64::from_le_bytes(*b) & !mask) | bits).to_le_bytes(),
            None => {
                let tail = row.get_mut(at..).unwrap_or(&mut []);
                for (i, byte) in tail.iter_mut().take(8).enumerate() {
                    let m = (mask >> (8 * i)) as u8;
                    *byte = (*byte & !m) | (bits >> (8 * i)) as u8;
                }
            }
        }
    }
}

/// Where the values of the first [`CHUNK`] fields of a class lie in its rows: worked out once a
/// packet, so that reading or writing a value is a load, a shift and a mask.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    /// The class's fields.
    pub(super) fields: &'static [Field],
    /// The places of the first [`CHUNK`].
    places: [Place; CHUNK],
    /// Bits of the class's values in a row.
    bits: usize,
}

impl Layout {
    /// The layout of no class.
    pub(super) const EMPTY: Layout = Layout { fields: &[], places: [Place::NONE; CHUNK], bits: 0 };

    /// The layout of a class of `fields`.
    pub(super) fn new(fields: &'static [Field]) -> Layout {
        let (mut places, mut at) = ([Place::NONE; CHUNK], 0);
        for (place, field) in places.iter_mut().zip(fields) {
            *place = Place::at(field, at);
            at += bits(field) as usize;
        }
        Layout { fields, places, bits: total_bits(fields) }
    }

    /// Where the value of field `f` lies in a row.
    #[inline(always)]
    pub(super) fn place(&self, f: usize) -> Place {
        match self.places.get(f) {
            Some(&place) => place,
            None => Place::of(self.fields, f),
        }
    }

    /// Clears the bits of `row` past the class's values up to the class `mark`, so that whole
    /// rows compare.
    #[inline]
    pub(super) fn clear_tail(&self, row: &mut [u8], mark: ClassMark) {
        let (mut bit, end) = (self.bits, mark.start());
        while bit < end {
            let (byte, low) = (bit / 8, bit % 8);
            let high = (end - byte * 8).min(8);
            let keep = !(((1u16 << high) - (1u16 << low)) as u8);
            if let Some(b) = row.get_mut(byte) {
                *b &= keep;
            }
            bit = byte * 8 + 8;
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
        at += bits(field) as usize;
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

    /// Every value, at each end of its range, reads back as written, in the fewest bits, and
    /// writing one leaves the others, and the bits past the row's values, as they were.
    #[test]
    fn values_read_back_at_their_widths() {
        assert_eq!(FIELDS.map(|f| bits(&f)), [0, 1, 11, 20, 32, 8]);
        assert_eq!(len(&FIELDS), 9);
        let layout = Layout::new(&FIELDS);
        for pick in [0, 1] {
            let values = FIELDS.map(|f| if pick == 0 { f.min } else { f.max });
            let mut row = [0xAAu8; 11];
            for (f, &v) in values.iter().enumerate() {
                assert_eq!(layout.place(f), Place::of(&FIELDS, f));
                layout.place(f).put(v, &mut row);
            }
            // A mark at byte 10: the tail is cleared up to it.
            let mark = ClassMark { at: 10, shift: 0, mask: 1 };
            layout.clear_tail(&mut row, mark);
            assert_eq!(row[9..], [0, 0xAA], "the tail is cleared up to the class mark");
            let mut back = [0; 6];
            unpack(&FIELDS, &row, &mut back);
            assert_eq!(back, values);
            assert_eq!(value(&FIELDS, &row, 3), Some(values[3]));
        }
        // "wide" starts at bit 12 (byte 1, bit 4): a row of 3 bytes holds 12 of its 20 bits.
        let wide = Place::of(&FIELDS, 3);
        let mut short = [0xFFu8; 3];
        wide.put(FIELDS[3].min + 0x30201, &mut short);
        assert_eq!(short, [0xFF, 0x1F, 0x20], "a value past the end is cut short");
        assert_eq!(wide.get(&short), FIELDS[3].min + 0x201, "bits past the end read as 0");
        assert_eq!(layout.place(20), Place::NONE);
    }
}
