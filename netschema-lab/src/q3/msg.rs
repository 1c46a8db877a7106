//! Quake III's message bits (`MSG_WriteBits` and `MSG_ReadBits` on a non-out-of-band message):
//! of each value written, the low `bits % 8` bits go out raw, least significant first, and
//! each remaining whole byte, low byte first, through the static Huffman code built from the
//! trained byte table (`msg_hData`).

use super::super::Error;
use super::super::bitstream::{Reader, Writer};
use super::super::huffman::Code;

/// Writes values into a message, optionally counting the bytes that go through the Huffman
/// code (to train a table).
pub(super) struct MsgWriter<'a> {
    code: &'a Code,
    counts: Option<&'a mut [u64]>,
    out: Writer,
}

impl<'a> MsgWriter<'a> {
    /// A message coded with `code`, counting its Huffman-coded bytes into `counts`.
    pub(super) fn new(code: &'a Code, counts: Option<&'a mut [u64]>) -> Self {
        MsgWriter { code, counts, out: Writer::new() }
    }

    /// `MSG_WriteBits(value, bits)`, `bits` at most 32 (`value` is truncated to them).
    pub(super) fn bits(&mut self, value: u32, bits: u32) {
        let mut v = if bits < 32 { value & ((1 << bits) - 1) } else { value };
        for _ in 0..bits % 8 {
            self.out.bit(v & 1 == 1);
            v >>= 1;
        }
        for _ in 0..bits / 8 {
            let byte = (v & 0xff) as usize;
            self.code.put(&mut self.out, byte);
            if let Some(counts) = self.counts.as_deref_mut() {
                counts[byte] += 1;
            }
            v >>= 8;
        }
    }

    /// The message's bytes as Quake III sizes them: its bits rounded down to bytes, plus one
    /// (`msg->cursize = (msg->bit >> 3) + 1`).
    pub(super) fn finish(self, out: &mut Vec<u8>) {
        let whole = self.out.len() / 8 + 1;
        out.extend_from_slice(self.out.bytes());
        out.resize(out.len() + whole - self.out.bytes().len(), 0);
    }
}

/// Reads values written by [`MsgWriter`].
pub(super) struct MsgReader<'a> {
    code: &'a Code,
    bits: Reader<'a>,
}

impl<'a> MsgReader<'a> {
    /// Reads `bytes` coded with `code`.
    pub(super) fn new(code: &'a Code, bytes: &'a [u8]) -> Self {
        MsgReader { code, bits: Reader::new(bytes) }
    }

    /// `MSG_ReadBits(bits)`.
    pub(super) fn bits(&mut self, bits: u32) -> Result<u32, Error> {
        let mut v = 0u32;
        let frac = bits % 8;
        for i in 0..frac {
            v |= u32::from(self.bits.bit()?) << i;
        }
        for k in 0..bits / 8 {
            v |= (self.code.get(&mut self.bits)? as u32) << (frac + 8 * k);
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_raw_bytes_coded() {
        let mut lengths = vec![9u8; 256];
        lengths[0] = 1;
        let code = Code::from_lengths(&lengths);
        let mut counts = vec![0u64; 256];
        let mut w = MsgWriter::new(&code, Some(&mut counts));
        // 10 bits: 2 raw (low bits 0b11, least significant first) then the byte 0 (code "0").
        w.bits(0b00_0000_0011, 10);
        w.bits(0x1234_5678, 32);
        let mut out = Vec::new();
        w.finish(&mut out);
        assert_eq!(out[0] >> 5, 0b110);
        assert_eq!((counts[0], counts[0x78], counts[0x12]), (1, 1, 1));
        let mut r = MsgReader::new(&code, &out);
        assert_eq!(r.bits(10).unwrap(), 3);
        assert_eq!(r.bits(32).unwrap(), 0x1234_5678);
    }

    #[test]
    fn a_message_is_its_bits_rounded_down_plus_one_byte() {
        let code = Code::from_lengths(&[8; 256]);
        for (bits, bytes) in [(39, 5), (32, 5), (31, 4)] {
            let mut w = MsgWriter::new(&code, None);
            w.bits(0, bits.min(32));
            if bits > 32 {
                w.bits(0, bits - 32);
            }
            let mut out = Vec::new();
            w.finish(&mut out);
            assert_eq!(out.len(), bytes, "{bits} bits");
        }
    }
}
