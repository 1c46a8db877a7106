//! Bit-level writer and reader over caller-provided slices.
//!
//! Bits are packed most significant first: the first bit written is the top bit of byte 0.
//! Both ends keep a 64-bit accumulator so that a value of up to 32 bits costs one shift and
//! one or two byte moves. Neither side allocates or panics: a value wider than its bit count, a
//! full buffer and a read past the end are reported as [`Error`]s.

use crate::{Error, Result};

/// Rejects bit counts over 32 and values that do not fit in `bits` bits.
#[inline]
fn check_width(value: u32, bits: u32) -> Result<()> {
    if bits > 32 {
        return Err(Error::InvalidBitCount { bits });
    }
    if bits < 32 && value >> bits != 0 {
        return Err(Error::ValueTooWide { bits });
    }
    Ok(())
}

/// Writes values of 0 to 32 bits into a byte slice.
#[derive(Debug)]
pub struct BitWriter<'a> {
    buf: &'a mut [u8],
    pos: usize,
    acc: u64,
    pending: u32,
}

impl<'a> BitWriter<'a> {
    /// Starts writing at the beginning of `buf`.
    pub fn new(buf: &'a mut [u8]) -> Self {
        BitWriter { buf, pos: 0, acc: 0, pending: 0 }
    }

    /// Appends the low `bits` bits of `value`, most significant first.
    ///
    /// Fails with [`Error::ValueTooWide`] if `value` has bits set above `bits`, with
    /// [`Error::InvalidBitCount`] if `bits > 32`, and with [`Error::BufferFull`] if the slice
    /// cannot hold the result; on failure nothing is appended.
    #[inline]
    pub fn write(&mut self, value: u32, bits: u32) -> Result<()> {
        check_width(value, bits)?;
        let total = self.pending + bits;
        if self.pos + total.div_ceil(8) as usize > self.buf.len() {
            return Err(Error::BufferFull);
        }
        self.acc = (self.acc << bits) | u64::from(value);
        self.pending = total;
        while self.pending >= 8 {
            self.pending -= 8;
            self.buf[self.pos] = (self.acc >> self.pending) as u8;
            self.pos += 1;
        }
        Ok(())
    }

    /// Appends one bit.
    #[inline]
    pub fn write_bit(&mut self, bit: bool) -> Result<()> {
        self.write(u32::from(bit), 1)
    }

    /// Number of bits written so far.
    pub fn bit_len(&self) -> usize {
        self.pos * 8 + self.pending as usize
    }

    /// Pads the last partial byte with zero bits and returns the number of bytes used.
    pub fn finish(self) -> Result<usize> {
        if self.pending == 0 {
            return Ok(self.pos);
        }
        let byte = self.buf.get_mut(self.pos).ok_or(Error::BufferFull)?;
        *byte = (self.acc << (8 - self.pending)) as u8;
        Ok(self.pos + 1)
    }
}

/// Reads values of 0 to 32 bits from a byte slice written by [`BitWriter`].
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    buf: &'a [u8],
    pos: usize,
    acc: u64,
    avail: u32,
}

impl<'a> BitReader<'a> {
    /// Starts reading at the beginning of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        BitReader { buf, pos: 0, acc: 0, avail: 0 }
    }

    /// Reads `bits` bits as an unsigned value, most significant first.
    ///
    /// Fails with [`Error::UnexpectedEnd`] if fewer than `bits` bits remain and with
    /// [`Error::InvalidBitCount`] if `bits > 32`; on failure nothing is consumed.
    #[inline]
    pub fn read(&mut self, bits: u32) -> Result<u32> {
        if bits > 32 {
            return Err(Error::InvalidBitCount { bits });
        }
        if self.avail < bits {
            let needed = (bits - self.avail).div_ceil(8) as usize;
            if self.buf.len() - self.pos < needed {
                return Err(Error::UnexpectedEnd);
            }
            while self.avail <= 56 && self.pos < self.buf.len() {
                self.acc = (self.acc << 8) | u64::from(self.buf[self.pos]);
                self.pos += 1;
                self.avail += 8;
            }
        }
        self.avail -= bits;
        let mask = if bits == 32 { u64::from(u32::MAX) } else { (1u64 << bits) - 1 };
        Ok(((self.acc >> self.avail) & mask) as u32)
    }

    /// Reads one bit.
    #[inline]
    pub fn read_bit(&mut self) -> Result<bool> {
        Ok(self.read(1)? == 1)
    }

    /// Number of bits not yet read.
    pub fn remaining_bits(&self) -> usize {
        (self.buf.len() - self.pos) * 8 + self.avail as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_mixed_widths() {
        let mut buf = [0u8; 16];
        let mut w = BitWriter::new(&mut buf);
        let items = [(1u32, 1u32), (0, 0), (0x1ff, 9), (u32::MAX, 32), (5, 3), (0, 7)];
        for &(v, n) in &items {
            w.write(v, n).unwrap();
        }
        let len = w.finish().unwrap();
        assert_eq!(len, 7);
        let mut r = BitReader::new(&buf[..len]);
        for &(v, n) in &items {
            assert_eq!(r.read(n).unwrap(), v);
        }
    }

    #[test]
    fn errors_are_typed() {
        let mut buf = [0u8; 1];
        let mut w = BitWriter::new(&mut buf);
        assert_eq!(w.write(4, 2), Err(Error::ValueTooWide { bits: 2 }));
        assert_eq!(w.write(0, 33), Err(Error::InvalidBitCount { bits: 33 }));
        w.write(0xff, 8).unwrap();
        assert_eq!(w.write(1, 1), Err(Error::BufferFull));
        let mut r = BitReader::new(&buf);
        assert_eq!(r.read(9), Err(Error::UnexpectedEnd));
        assert_eq!(r.read(8), Ok(0xff));
        assert_eq!(r.read(1), Err(Error::UnexpectedEnd));
    }
}
