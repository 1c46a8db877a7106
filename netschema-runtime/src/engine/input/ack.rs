//! The input receiver's acknowledgement: the newest input datagram it decoded, with a proof.

use crate::engine::ack::{fnv, mix32};
use crate::engine::frame::from_wire;
use crate::{Error, Result};

/// What an [`InputReceiver`](crate::engine::input::InputReceiver) sends back: the low 16
/// bits of the newest input datagram it decoded and keeps, and a proof that it decoded it (a
/// hash of that datagram's number and check value, which only a receiver of the datagram
/// knows). The sender codes its next datagrams against that one.
///
/// Acks are idempotent: the sender keeps the newest it accepted, so loss, duplication and
/// reordering are harmless. Six bytes on their own; a server's state packet can carry the
/// same fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct InputAck {
    /// Low 16 bits of the newest datagram decoded.
    pub latest: u16,
    /// Proof of its receipt: a hash of the datagram's number and check value.
    pub proof: u32,
}

impl InputAck {
    /// Bytes of an ack on the wire.
    pub const LEN: usize = 6;

    /// The ack of a receiver whose newest datagram is `seq`, of check value `check`.
    pub(crate) fn proven(seq: u32, check: u32) -> InputAck {
        let proof = mix32(fnv(fnv(0x811c_9dc5, seq), check));
        InputAck { latest: seq as u16, proof }
    }

    /// The full sequence number this ack names, given the newest datagram sent.
    pub(crate) fn seq(&self, newest_sent: u32) -> u32 {
        from_wire(newest_sent, self.latest)
    }

    /// Writes the ack into `buf`: `latest` then `proof`, little-endian. Returns its length.
    pub fn write(&self, buf: &mut [u8]) -> Result<usize> {
        let out = buf.get_mut(..Self::LEN).ok_or(Error::BufferFull)?;
        out[..2].copy_from_slice(&self.latest.to_le_bytes());
        out[2..].copy_from_slice(&self.proof.to_le_bytes());
        Ok(Self::LEN)
    }

    /// Reads an ack written by [`InputAck::write`] from the start of `buf`.
    pub fn read(buf: &[u8]) -> Result<InputAck> {
        let b = buf.get(..Self::LEN).ok_or(Error::UnexpectedEnd)?;
        Ok(InputAck {
            latest: u16::from_le_bytes([b[0], b[1]]),
            proof: u32::from_le_bytes([b[2], b[3], b[4], b[5]]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_round_trip() {
        let ack = InputAck::proven(70_000, 0xbeef);
        let mut buf = [0u8; InputAck::LEN];
        assert_eq!(ack.write(&mut buf), Ok(6));
        assert_eq!(InputAck::read(&buf), Ok(ack));
        assert_eq!(InputAck::read(&buf[..5]), Err(Error::UnexpectedEnd));
        assert_eq!(ack.write(&mut buf[..5]), Err(Error::BufferFull));
        assert_eq!(ack.seq(70_010), 70_000);
        assert_ne!(InputAck::proven(70_000, 0xbeee).proof, ack.proof);
    }
}
