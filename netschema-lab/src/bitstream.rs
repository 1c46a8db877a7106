//! Growable bit I/O for the peer encodings, most significant bit first.
//!
//! The runtime's [`netschema_runtime::codec::bits`] writes into a caller's fixed slice; the peers
//! here build packets of unknown size, so [`Writer`] grows a `Vec<u8>` and [`Reader`]
//! reports a read past the end as [`Error::Decode`].

use super::Error;

/// Appends bits to a byte vector.
#[derive(Clone, Debug, Default)]
pub(crate) struct Writer {
    bytes: Vec<u8>,
    bits: usize,
}

impl Writer {
    /// An empty writer.
    pub(crate) fn new() -> Self {
        Writer::default()
    }

    /// Appends the low `n` bits of `value` (at most 32), most significant first.
    pub(crate) fn put(&mut self, value: u32, n: u32) {
        debug_assert!(n <= 32 && (n == 32 || value >> n == 0), "{value} does not fit {n} bits");
        for i in (0..n).rev() {
            self.bit(value >> i & 1 == 1);
        }
    }

    /// Appends one bit.
    pub(crate) fn bit(&mut self, on: bool) {
        if self.bits.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if on {
            self.bytes[self.bits / 8] |= 0x80 >> (self.bits % 8);
        }
        self.bits += 1;
    }

    /// Appends every bit of `other`.
    pub(crate) fn append(&mut self, other: &Writer) {
        for i in 0..other.bits {
            self.bit(other.bytes[i / 8] & (0x80 >> (i % 8)) != 0);
        }
    }

    /// Bits written so far.
    pub(crate) fn len(&self) -> usize {
        self.bits
    }

    /// The bytes written, the last one padded with zero bits.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// Reads bits written by [`Writer`].
#[derive(Clone, Debug)]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    /// Reads `bytes` from its first bit.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, at: 0 }
    }

    /// Reads `n` bits (at most 32) as an unsigned value, most significant first.
    pub(crate) fn get(&mut self, n: u32) -> Result<u32, Error> {
        let mut v = 0u32;
        for _ in 0..n {
            v = v << 1 | u32::from(self.bit()?);
        }
        Ok(v)
    }

    /// Reads one bit.
    pub(crate) fn bit(&mut self) -> Result<bool, Error> {
        let byte =
            self.bytes.get(self.at / 8).ok_or_else(|| Error::Decode("packet ends early".into()))?;
        let on = byte & (0x80 >> (self.at % 8)) != 0;
        self.at += 1;
        Ok(on)
    }

    /// Bits read so far.
    pub(crate) fn position(&self) -> usize {
        self.at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_round_trip_most_significant_first() {
        let mut w = Writer::new();
        w.put(0b101, 3);
        w.put(0xabcd_ef01, 32);
        w.bit(true);
        assert_eq!(w.len(), 36);
        assert_eq!(w.bytes()[0], 0b1011_0101);
        let mut r = Reader::new(w.bytes());
        assert_eq!(r.get(3).unwrap(), 0b101);
        assert_eq!(r.get(32).unwrap(), 0xabcd_ef01);
        assert!(r.bit().unwrap());
        assert_eq!(r.position(), 36);
        assert_eq!(r.get(4).unwrap(), 0, "padding");
        assert!(r.bit().is_err());
    }
}
