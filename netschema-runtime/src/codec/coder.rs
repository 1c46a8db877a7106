//! A 32-bit binary range coder with direct bits and a minimal flush.
//!
//! The encoder keeps the low end of the interval in 33 bits (the top bit is a pending carry)
//! and a 32-bit range that is renormalised to at least 2^24, so a byte leaves the coder
//! whenever the range drops below that. A run of `0xFF` bytes that a later carry may still
//! increment is held back as a count, the classic LZMA scheme; the always-zero byte that
//! LZMA writes first is never written.
//!
//! Ending a packet costs at most one byte: [`Encoder::finish`] picks the value in the final
//! interval with the most trailing zero bytes, writes only what precedes them, and trims
//! trailing zeros. The [`Decoder`] reads zeros past the end of its input, which restores them.
//! So no length field is needed: the datagram's length is enough.
//!
//! [`BinaryCoder`] abstracts "code one decision", so one description of a model drives
//! encoding, decoding and cost measurement alike (see [`crate::codec::residual`]).

use crate::codec::prob::{BitModel, COST_FRAC_BITS, PROB_BITS, bit_cost};
use crate::{Error, Result};

/// The range is renormalised whenever it drops below this.
const TOP: u32 = 1 << 24;
/// Most zero bytes [`Encoder::finish`] leaves off the end of a stream: a decoder that has read
/// more than this many bytes past the end of its input is reading something that was never
/// sent ([`Decoder::exhausted`]).
pub const MAX_TRIMMED: usize = 4;
/// Largest number of direct bits coded in one step.
const MAX_DIRECT_STEP: u32 = 16;

/// Something that codes binary decisions and equiprobable bits: the encoder, the decoder, or
/// a cost meter.
///
/// Each method takes the value the encoder wants to code and returns the value actually
/// coded: the encoder and the meter return their argument, the decoder ignores it and returns
/// what it read. A model written once against this trait therefore encodes, decodes and
/// measures with the same code path.
pub trait BinaryCoder {
    /// Codes `bit` with `model` and updates the model.
    fn bit<M: BitModel>(&mut self, model: &mut M, bit: bool) -> bool;

    /// Codes the low `n` bits of `value` (`n <= 32`) as equiprobable bits.
    fn direct(&mut self, value: u32, n: u32) -> u32;
}

/// The range encoder, writing into a caller-provided slice.
#[derive(Debug)]
pub struct Encoder<'a> {
    buf: &'a mut [u8],
    /// Bytes produced so far, including any zero bytes that fell past the end of `buf`.
    pos: usize,
    low: u64,
    range: u32,
    cache: u8,
    /// Bytes held back: the cache plus a run of `0xFF`; 0 before the first byte is known.
    pending: u64,
    overflow: bool,
}

impl<'a> Encoder<'a> {
    /// Starts encoding into `buf`.
    pub fn new(buf: &'a mut [u8]) -> Self {
        Encoder { buf, pos: 0, low: 0, range: u32::MAX, cache: 0, pending: 0, overflow: false }
    }

    /// True once the output no longer fits the buffer; [`Encoder::finish`] will then fail.
    #[inline]
    pub fn overflowed(&self) -> bool {
        self.overflow
    }

    /// An upper bound on the bytes [`Encoder::finish`] would return if called now.
    #[inline]
    pub fn len_bound(&self) -> usize {
        self.pos + self.pending as usize + 1
    }

    /// Information coded so far, in whole bits (to within one bit).
    #[inline]
    pub fn bits(&self) -> u64 {
        (self.pos as u64 + self.pending) * 8 + u64::from(self.range.leading_zeros()) + 1
    }

    /// The coder's state now, for [`Encoder::rewind`].
    #[inline]
    pub fn mark(&self) -> Mark {
        Mark {
            pos: self.pos,
            low: self.low,
            range: self.range,
            cache: self.cache,
            pending: self.pending,
            overflow: self.overflow,
        }
    }

    /// Returns to the state of `mark` (taken from this encoder), forgetting everything coded
    /// since: bytes already written past it are overwritten by what is coded next.
    #[inline]
    pub fn rewind(&mut self, mark: Mark) {
        let Mark { pos, low, range, cache, pending, overflow } = mark;
        (self.pos, self.low, self.range, self.cache) = (pos, low, range, cache);
        (self.pending, self.overflow) = (pending, overflow);
    }

    #[inline(always)]
    fn put(&mut self, byte: u8) {
        match self.buf.get_mut(self.pos) {
            Some(slot) => *slot = byte,
            None => self.overflow |= byte != 0,
        }
        self.pos += 1;
    }

    #[inline(always)]
    fn shift_low(&mut self) {
        // With nothing pending, the top byte must become the cache even if it is 0xFF: there
        // is no cache byte yet for a run of 0xFF to follow (no carry can reach a first 0xFF).
        if (self.low as u32) < 0xFF00_0000 || self.low >> 32 != 0 || self.pending == 0 {
            let carry = (self.low >> 32) as u8;
            // The very first call has nothing pending: the byte LZMA would write here is
            // always zero, and is skipped.
            if self.pending > 0 {
                self.put(self.cache.wrapping_add(carry));
                for _ in 1..self.pending {
                    self.put(0xFFu8.wrapping_add(carry));
                }
            }
            self.pending = 0;
            self.cache = (self.low >> 24) as u8;
        }
        self.pending += 1;
        self.low = (self.low & 0x00FF_FFFF) << 8;
    }

    #[inline(always)]
    fn normalise(&mut self) {
        while self.range < TOP {
            self.range <<= 8;
            self.shift_low();
        }
    }

    /// Ends the stream and returns the number of bytes of `buf` that make up the packet.
    ///
    /// Fails with [`Error::BufferFull`] if the packet does not fit. Nothing is ever written
    /// past the end of the buffer.
    pub fn finish(mut self) -> Result<usize> {
        // Choose the value in [low, low + range) with the most trailing zero bytes. Since
        // range >= 2^24, a multiple of 2^24 always lies in the interval.
        let end = self.low + u64::from(self.range);
        for shift in [32u32, 24] {
            let mask = (1u64 << shift) - 1;
            let candidate = (self.low + mask) & !mask;
            if candidate < end {
                self.low = candidate;
                break;
            }
        }
        for _ in 0..5 {
            self.shift_low();
        }
        let mut len = self.pos.min(self.buf.len());
        // Zero bytes at the end need not be sent (the decoder reads zeros past the end), but
        // at most [`MAX_TRIMMED`] of them, so that a decoder can refuse input it has run past.
        let mut trimmed = self.pos - len;
        if self.overflow || trimmed > MAX_TRIMMED {
            return Err(Error::BufferFull);
        }
        while len > 0 && self.buf[len - 1] == 0 && trimmed < MAX_TRIMMED {
            len -= 1;
            trimmed += 1;
        }
        Ok(len)
    }
}

impl BinaryCoder for Encoder<'_> {
    #[inline(always)]
    fn bit<M: BitModel>(&mut self, model: &mut M, bit: bool) -> bool {
        let bound = (self.range >> PROB_BITS) * model.p0();
        if bit {
            self.low += u64::from(bound);
            self.range -= bound;
        } else {
            self.range = bound;
        }
        model.update(bit);
        self.normalise();
        bit
    }

    #[inline(always)]
    fn direct(&mut self, value: u32, n: u32) -> u32 {
        let n = n.min(32);
        let mut left = n;
        while left > 0 {
            let step = left.min(MAX_DIRECT_STEP);
            left -= step;
            let chunk = (value >> left) & ((1u32 << step) - 1);
            self.range >>= step;
            self.low += u64::from(self.range) * u64::from(chunk);
            self.normalise();
        }
        if n == 32 { value } else { value & ((1u32 << n) - 1) }
    }
}

/// A saved [`Encoder`] state (see [`Encoder::mark`]).
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    pos: usize,
    low: u64,
    range: u32,
    cache: u8,
    pending: u64,
    overflow: bool,
}

/// The range decoder. Reads zeros past the end of its input and never fails: a corrupted
/// packet decodes to garbage, which the layers above detect with their own checks.
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
    range: u32,
    code: u32,
}

impl<'a> Decoder<'a> {
    /// Starts decoding `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        let mut d = Decoder { buf, pos: 0, range: u32::MAX, code: 0 };
        for _ in 0..4 {
            d.code = (d.code << 8) | u32::from(d.next_byte());
        }
        d
    }

    #[inline(always)]
    fn next_byte(&mut self) -> u8 {
        let b = self.buf.get(self.pos).copied().unwrap_or(0);
        self.pos = self.pos.saturating_add(1);
        b
    }

    #[inline(always)]
    fn normalise(&mut self) {
        while self.range < TOP {
            self.range <<= 8;
            self.code = (self.code << 8) | u32::from(self.next_byte());
        }
    }

    /// Bytes consumed beyond the end of the input (the coder's look-ahead reads up to four).
    pub fn bytes_past_end(&self) -> usize {
        self.pos.saturating_sub(self.buf.len())
    }

    /// Whether the decoder has read further past the end of its input than any finished
    /// stream reaches ([`MAX_TRIMMED`] bytes): what it decodes now was never sent, so a caller
    /// can stop, and the work a packet causes stays bounded by its length.
    #[inline]
    pub fn exhausted(&self) -> bool {
        self.bytes_past_end() > MAX_TRIMMED
    }

    /// Whether the input is exactly the stream [`Encoder::finish`] writes for the decisions
    /// decoded so far, byte for byte: nothing appended, nothing changed that decodes alike.
    ///
    /// The decisions fix the final interval `[low, low + range)`, and the encoder ends on the
    /// one value in it it picks (the most trailing zero bytes, see [`Encoder::finish`]), then
    /// trims at most [`MAX_TRIMMED`] trailing zeros. The decoder holds `range` and the offset
    /// of the value read from `low`, and has read the value's four lowest bytes last (its
    /// look-ahead), so it knows `low`'s lowest 32 bits, which is all the encoder's choice
    /// depends on: it checks that the value read is the one the encoder would pick and that
    /// the input ends where the encoder's trimmed output ends. Any other input, whatever it
    /// decodes to, is not an encoder's stream.
    pub fn at_end(&self) -> bool {
        let byte = |i: usize| self.buf.get(i).copied().unwrap_or(0);
        let Some(first) = self.pos.checked_sub(4) else {
            return false;
        };
        let read = (first..self.pos).fold(0u32, |v, i| (v << 8) | u32::from(byte(i)));
        let low = read.wrapping_sub(self.code);
        let picked = if low.wrapping_neg() < self.range {
            0
        } else {
            low.wrapping_add(low.wrapping_neg() & (TOP - 1))
        };
        let zeros =
            (1..=MAX_TRIMMED.min(self.pos)).take_while(|&k| byte(self.pos - k) == 0).count();
        read == picked && self.buf.len() == self.pos - zeros
    }
}

impl BinaryCoder for Decoder<'_> {
    #[inline(always)]
    fn bit<M: BitModel>(&mut self, model: &mut M, _bit: bool) -> bool {
        let bound = (self.range >> PROB_BITS) * model.p0();
        let bit = self.code >= bound;
        if bit {
            self.code -= bound;
            self.range -= bound;
        } else {
            self.range = bound;
        }
        model.update(bit);
        self.normalise();
        bit
    }

    #[inline]
    fn direct(&mut self, _value: u32, n: u32) -> u32 {
        let mut left = n.min(32);
        let mut value = 0u32;
        while left > 0 {
            let step = left.min(MAX_DIRECT_STEP);
            left -= step;
            self.range >>= step;
            let max = (1u32 << step) - 1;
            let chunk = (self.code / self.range).min(max);
            self.code -= chunk * self.range;
            value = (value << step) | chunk;
            self.normalise();
        }
        value
    }
}

/// A [`BinaryCoder`] that writes nothing and adds up the ideal cost of what it is given, in
/// cost units (see [`crate::codec::prob`]). Models are updated as if the bits had been coded.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CostMeter {
    /// Accumulated cost.
    pub cost: u32,
}

impl BinaryCoder for CostMeter {
    #[inline(always)]
    fn bit<M: BitModel>(&mut self, model: &mut M, bit: bool) -> bool {
        self.cost = self.cost.saturating_add(bit_cost(model, bit));
        model.update(bit);
        bit
    }

    #[inline(always)]
    fn direct(&mut self, value: u32, n: u32) -> u32 {
        self.cost = self.cost.saturating_add(n.min(32) << COST_FRAC_BITS);
        value
    }
}

/// A [`BinaryCoder`] wrapper that codes through another coder and adds up the ideal cost of
/// what passes through, in cost units.
pub(crate) struct Metered<'c, C> {
    inner: &'c mut C,
    /// Accumulated cost.
    pub(crate) cost: u32,
}

impl<'c, C> Metered<'c, C> {
    /// Starts metering what is coded through `inner`.
    pub(crate) fn new(inner: &'c mut C) -> Self {
        Metered { inner, cost: 0 }
    }
}

impl<C: BinaryCoder> BinaryCoder for Metered<'_, C> {
    #[inline(always)]
    fn bit<M: BitModel>(&mut self, model: &mut M, bit: bool) -> bool {
        // The cost of the bit actually coded is only known after decoding it.
        let before = *model;
        let coded = self.inner.bit(model, bit);
        self.cost = self.cost.saturating_add(bit_cost(&before, coded));
        coded
    }

    #[inline(always)]
    fn direct(&mut self, value: u32, n: u32) -> u32 {
        self.cost = self.cost.saturating_add(n.min(32) << COST_FRAC_BITS);
        self.inner.direct(value, n)
    }
}

/// A [`BinaryCoder`] that only updates models, for learning from values that are not coded.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Learner;

impl BinaryCoder for Learner {
    #[inline(always)]
    fn bit<M: BitModel>(&mut self, model: &mut M, bit: bool) -> bool {
        model.update(bit);
        bit
    }

    #[inline(always)]
    fn direct(&mut self, value: u32, _n: u32) -> u32 {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::prob::Prob;

    #[test]
    fn empty_stream_is_empty() {
        let mut buf = [0u8; 8];
        assert_eq!(Encoder::new(&mut buf).finish(), Ok(0));
    }

    #[test]
    fn bits_and_direct_round_trip() {
        let mut buf = [0u8; 1024];
        let mut enc = Encoder::new(&mut buf);
        let mut m = Prob::HALF;
        for i in 0..200u32 {
            enc.bit(&mut m, i % 7 == 0);
            enc.direct(i.wrapping_mul(2654435761), i % 33);
        }
        let len = enc.finish().unwrap();
        let mut dec = Decoder::new(&buf[..len]);
        let mut m = Prob::HALF;
        for i in 0..200u32 {
            assert_eq!(dec.bit(&mut m, false), i % 7 == 0);
            let n = i % 33;
            let v = i.wrapping_mul(2654435761);
            let want = if n == 32 { v } else { v & ((1 << n) - 1) };
            assert_eq!(dec.direct(0, n), want, "i={i}");
        }
    }

    /// Only the encoder's own stream decodes to its decisions and ends: bytes appended (zeros
    /// or not), a byte dropped, or any single bit flipped either change what is decoded or are
    /// refused by [`Decoder::at_end`].
    #[test]
    fn only_the_encoders_stream_decodes_alike_and_ends() {
        let symbols = |n: u32| (0..n).map(|i| (i % 5 == 0, i.wrapping_mul(0x9e37_79b9), i % 13));
        let decode = |input: &[u8], n: u32| {
            let mut dec = Decoder::new(input);
            let mut m = Prob::HALF;
            let values: Vec<(bool, u32)> = symbols(n)
                .map(|(_, _, bits)| (dec.bit(&mut m, false), dec.direct(0, bits)))
                .collect();
            (values, dec.at_end())
        };
        let mut buf = [0u8; 256];
        let (mut variants, mut missed) = (0u32, Vec::new());
        for n in 0..160u32 {
            let mut enc = Encoder::new(&mut buf);
            let mut m = Prob::HALF;
            for (bit, value, bits) in symbols(n) {
                enc.bit(&mut m, bit);
                enc.direct(value, bits);
            }
            let len = enc.finish().unwrap();
            let stream = &buf[..len];
            let (honest, at_end) = decode(stream, n);
            assert!(at_end, "{n} symbols: the stream itself is refused");
            let mut others: Vec<Vec<u8>> = Vec::new();
            for extra in 1..=5 {
                for fill in [0u8, 1, 0x80, 0xFF] {
                    others.push([stream, &[fill; 5][..extra]].concat());
                }
            }
            others.push(stream[..len.saturating_sub(1)].to_vec());
            for bit in 0..len * 8 {
                let mut flipped = stream.to_vec();
                flipped[bit / 8] ^= 1 << (bit % 8);
                others.push(flipped);
            }
            for other in others.iter().filter(|o| o.as_slice() != stream) {
                variants += 1;
                if decode(other, n) == (honest.clone(), true) {
                    missed.push((n, other.clone()));
                }
            }
        }
        assert!(variants > 20_000, "{variants} variants");
        assert!(missed.is_empty(), "accepted as the same stream: {missed:?}");
    }

    #[test]
    fn rewind_forgets_what_was_coded_since_the_mark() {
        let (mut a, mut b) = ([0u8; 64], [0u8; 64]);
        let mut m = Prob::HALF;
        let mut enc = Encoder::new(&mut a);
        enc.direct(0xBEEF, 16);
        let (mark, saved) = (enc.mark(), m);
        for i in 0..40 {
            enc.bit(&mut m, i % 3 == 0);
        }
        enc.rewind(mark);
        m = saved;
        enc.bit(&mut m, true);
        let len = enc.finish().unwrap();
        let mut plain = Encoder::new(&mut b);
        let mut m = Prob::HALF;
        plain.direct(0xBEEF, 16);
        plain.bit(&mut m, true);
        assert_eq!(plain.finish().unwrap(), len);
        assert_eq!(a[..len], b[..len]);
    }

    #[test]
    fn overflow_is_reported_not_written() {
        let mut buf = [0u8; 4];
        let mut enc = Encoder::new(&mut buf);
        for i in 0..100u32 {
            enc.direct(i | 1, 16);
        }
        assert!(enc.overflowed());
        assert_eq!(enc.finish(), Err(Error::BufferFull));
    }
}
