//! Acknowledgements: the client's record of which frames it holds.

use crate::engine::frame::{WINDOW, from_wire, to_wire};
use crate::{Error, Result};

/// What a client sends back: the newest frame it holds and a bitfield of the [`WINDOW`]
/// frames before it (bit `i` set: it holds frame `latest - 1 - i`).
///
/// Acks are idempotent: the server may receive them lost, late, duplicated or reordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Ack {
    /// Low 16 bits of the newest frame held.
    pub latest: u16,
    /// Frames held before `latest`.
    pub bits: u32,
}

impl Ack {
    /// Bytes of an ack on the wire.
    pub const WIRE_LEN: usize = 6;

    /// Writes the ack into `buf` and returns its length.
    pub fn write(&self, buf: &mut [u8]) -> Result<usize> {
        let out = buf.get_mut(..Self::WIRE_LEN).ok_or(Error::BufferFull)?;
        out[..2].copy_from_slice(&self.latest.to_le_bytes());
        out[2..].copy_from_slice(&self.bits.to_le_bytes());
        Ok(Self::WIRE_LEN)
    }

    /// Reads an ack written by [`Ack::write`].
    pub fn read(buf: &[u8]) -> Result<Ack> {
        let b = buf.get(..Self::WIRE_LEN).ok_or(Error::UnexpectedEnd)?;
        Ok(Ack {
            latest: u16::from_le_bytes([b[0], b[1]]),
            bits: u32::from_le_bytes([b[2], b[3], b[4], b[5]]),
        })
    }

    /// Builds an ack from the newest frame held and a predicate for the older ones.
    pub fn from_frames(latest: u32, mut holds: impl FnMut(u32) -> bool) -> Ack {
        let mut bits = 0;
        for i in 0..WINDOW {
            if holds(latest.wrapping_sub(1 + i)) {
                bits |= 1 << i;
            }
        }
        Ack { latest: to_wire(latest), bits }
    }

    /// The full frame numbers this ack covers, given the newest frame the server has sent:
    /// frames after `newest_sent` are not reported.
    pub fn frames(&self, newest_sent: u32) -> impl Iterator<Item = u32> + use<> {
        let latest = from_wire(newest_sent, self.latest);
        let ahead = latest.wrapping_sub(newest_sent) as i32 > 0;
        let bits = self.bits;
        core::iter::once(latest)
            .chain(
                (0..WINDOW)
                    .filter(move |i| bits >> i & 1 != 0)
                    .map(move |i| latest.wrapping_sub(1 + i)),
            )
            .filter(move |_| !ahead)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_round_trip() {
        let ack = Ack { latest: 0xfffe, bits: 0x8000_0005 };
        let mut buf = [0u8; 6];
        assert_eq!(ack.write(&mut buf), Ok(6));
        assert_eq!(Ack::read(&buf), Ok(ack));
        assert_eq!(Ack::read(&buf[..5]), Err(Error::UnexpectedEnd));
    }

    #[test]
    fn frames_unwrap_and_ignore_the_future() {
        let ack = Ack::from_frames(65_540, |f| f == 65_538 || f == 65_508);
        let got: std::vec::Vec<u32> = ack.frames(65_541).collect();
        assert_eq!(got, [65_540, 65_538, 65_508]);
        assert_eq!(ack.frames(65_530).count(), 0, "an ack from the future is ignored");
    }
}
