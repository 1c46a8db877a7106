//! Unity's `StreamCompressionModel` with its default model: a value falls into one of 16
//! power-of-two buckets; the bucket is written with a static Huffman code (2 to 6 bits) and
//! the position in the bucket as raw bits. Signed values are zigzag-interleaved first
//! (0, −1, 1, −2, …), as `DataStreamWriter.WritePackedInt` does.

use super::super::Error;
use super::super::bitstream::{Reader, Writer};
use super::super::huffman::Code;

/// Raw bits after each bucket's code.
const BUCKET_SIZES: [u32; 16] = [0, 0, 1, 2, 3, 4, 6, 8, 10, 12, 15, 18, 21, 24, 27, 32];

/// The first value of each bucket.
const BUCKET_OFFSETS: [u32; 16] =
    [0, 1, 2, 4, 8, 16, 32, 96, 352, 1376, 5472, 38240, 300384, 2397536, 19174752, 153392480];

/// The default model's code length of each bucket (one context).
const CODE_LENGTHS: [u8; 16] = [2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 6, 6];

/// The packed-integer coder of `DataStreamWriter` with the default compression model.
#[derive(Clone, Debug)]
pub(super) struct Packed {
    code: Code,
}

/// The bucket holding `v`: the last one starting at or below it.
fn bucket(v: u32) -> usize {
    BUCKET_OFFSETS.iter().rposition(|&o| o <= v).unwrap_or(0)
}

/// `v` interleaved so that small magnitudes of either sign become small unsigned values.
fn zigzag(v: i32) -> u32 {
    ((v >> 31) ^ (v << 1)) as u32
}

fn unzigzag(u: u32) -> i32 {
    (u >> 1) as i32 ^ -((u & 1) as i32)
}

impl Packed {
    /// The default model's code.
    pub(super) fn new() -> Self {
        Packed { code: Code::from_lengths(&CODE_LENGTHS) }
    }

    /// Writes `v` (`WritePackedUInt`).
    pub(super) fn put_uint(&self, w: &mut Writer, v: u32) {
        let b = bucket(v);
        self.code.put(w, b);
        w.put(v - BUCKET_OFFSETS[b], BUCKET_SIZES[b]);
    }

    /// Writes `v` interleaved (`WritePackedInt`; `WritePackedIntDelta(value, baseline)` is
    /// `WritePackedInt(baseline - value)`).
    pub(super) fn put_int(&self, w: &mut Writer, v: i32) {
        self.put_uint(w, zigzag(v));
    }

    /// Bits [`Packed::put_int`] writes for `v` (`GetDeltaCompressedSizeInBits`).
    pub(super) fn int_bits(&self, v: i32) -> u32 {
        let b = bucket(zigzag(v));
        self.code.length(b) + BUCKET_SIZES[b]
    }

    /// Reads what [`Packed::put_uint`] wrote.
    pub(super) fn get_uint(&self, r: &mut Reader<'_>) -> Result<u32, Error> {
        let b = self.code.get(r)?;
        BUCKET_OFFSETS[b]
            .checked_add(r.get(BUCKET_SIZES[b])?)
            .ok_or_else(|| Error::Decode("packed value out of range".into()))
    }

    /// Reads what [`Packed::put_int`] wrote.
    pub(super) fn get_int(&self, r: &mut Reader<'_>) -> Result<i32, Error> {
        Ok(unzigzag(self.get_uint(r)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_and_sizes_follow_the_default_model() {
        let p = Packed::new();
        // 0 → bucket 0 (2 bits); −1 → 1 → bucket 1 (3 bits); 5 → 10 → bucket 4 (4 + 3 bits);
        // 100 → 200 → bucket 7 (5 + 8 bits).
        assert_eq!([0, -1, 5, 100].map(|v| p.int_bits(v)), [2, 3, 7, 13]);
        let values = [0, 1, -1, 2, 31, -32, 1000, -70_000, i32::MAX, i32::MIN];
        let mut w = Writer::new();
        for v in values {
            p.put_int(&mut w, v);
        }
        let mut r = Reader::new(w.bytes());
        for v in values {
            assert_eq!(p.get_int(&mut r).unwrap(), v);
        }
        // Unity's documented sizes: 0.123 at Quantization 10 / 100 / 1000 is sent as 1 / 12 /
        // 123, costing 3 / 7 / 13 bits.
        let uint_bits = |v: u32| p.code.length(bucket(v)) + BUCKET_SIZES[bucket(v)];
        assert_eq!([1, 12, 123].map(uint_bits), [3, 7, 13]);
    }
}
