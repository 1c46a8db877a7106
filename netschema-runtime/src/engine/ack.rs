//! Acknowledgements: the client's record of which frames it holds, with a proof that it
//! decoded them.

use crate::engine::frame::{WINDOW, from_wire, to_wire};
use crate::{Error, Result};

/// What a client sends back: the newest frame it holds, a bitfield of the [`WINDOW`]
/// frames before it (bit `i` set: it holds frame `latest - 1 - i`), and a proof that it holds
/// them: a hash of the check values of those frames, which only a receiver of their packets
/// knows.
///
/// Acks are idempotent: the server may receive them lost, late, duplicated or reordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Ack {
    /// Low 16 bits of the newest frame held.
    pub latest: u16,
    /// Frames held before `latest`.
    pub bits: u32,
    /// Proof of receipt of every frame named (see [`Ack::proven`]); 0 for [`Ack::from_frames`].
    pub proof: u16,
}

/// What a peer made of an ack ([`Peer::receive_ack`](crate::Peer::receive_ack)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckOutcome {
    /// Its frames now count as held by the client.
    Accepted,
    /// It names frames the peer no longer keeps, or none it sent: ignored, as a late ack is.
    Stale,
    /// It names frames never sent, or its proof does not match what was sent: the client
    /// claims frames it cannot hold. Ignored, and counted
    /// ([`PeerStats::refused_acks`](crate::engine::peer::PeerStats::refused_acks)).
    Refused,
    /// The client holds nothing and asks to start over ([`Ack::restart`]): the next packet is
    /// coded from scratch.
    Restart,
}

/// The proof of [`Ack::restart`]. An honest ack of frame 0 alone with this very proof would
/// restart the session too, one time in 65,536, which costs a cold packet.
const RESTART: u16 = 0x5e57;

/// Running hash of the frames an ack names and their check values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Proof(u32);

impl Proof {
    pub(crate) fn new() -> Self {
        Proof(0x811c_9dc5)
    }

    /// Adds `frame`, whose packet had check value `check`.
    pub(crate) fn add(&mut self, frame: u32, check: u16) {
        for v in [u32::from(to_wire(frame)), u32::from(check)] {
            self.0 = (self.0 ^ v).wrapping_mul(0x0100_0193);
        }
    }

    /// The proof sent: the hash folded to 16 bits.
    pub(crate) fn value(&self) -> u16 {
        (self.0 ^ (self.0 >> 16)) as u16
    }
}

impl Ack {
    /// Bytes of an ack on the wire.
    pub const WIRE_LEN: usize = 8;

    /// Writes the ack into `buf` and returns its length.
    pub fn write(&self, buf: &mut [u8]) -> Result<usize> {
        let out = buf.get_mut(..Self::WIRE_LEN).ok_or(Error::BufferFull)?;
        out[..2].copy_from_slice(&self.latest.to_le_bytes());
        out[2..6].copy_from_slice(&self.bits.to_le_bytes());
        out[6..].copy_from_slice(&self.proof.to_le_bytes());
        Ok(Self::WIRE_LEN)
    }

    /// Reads an ack written by [`Ack::write`].
    pub fn read(buf: &[u8]) -> Result<Ack> {
        let b = buf.get(..Self::WIRE_LEN).ok_or(Error::UnexpectedEnd)?;
        Ok(Ack {
            latest: u16::from_le_bytes([b[0], b[1]]),
            bits: u32::from_le_bytes([b[2], b[3], b[4], b[5]]),
            proof: u16::from_le_bytes([b[6], b[7]]),
        })
    }

    /// Builds an ack without proof from the newest frame held and a predicate for the older
    /// ones (for techniques that take acks on trust; a netschema peer refuses it).
    pub fn from_frames(latest: u32, mut holds: impl FnMut(u32) -> bool) -> Ack {
        Ack::proven(latest, |f| (f == latest || holds(f)).then_some(0)).with_proof(0)
    }

    /// Builds the ack of a holder of `latest` and of each older frame `f` for which `check(f)`
    /// gives the check value of its packet (`check(latest)` must give one); its proof hashes
    /// them all.
    pub fn proven(latest: u32, mut check: impl FnMut(u32) -> Option<u16>) -> Ack {
        let mut proof = Proof::new();
        proof.add(latest, check(latest).unwrap_or(0));
        let mut bits = 0;
        for i in 0..WINDOW {
            let frame = latest.wrapping_sub(1 + i);
            if let Some(c) = check(frame) {
                bits |= 1 << i;
                proof.add(frame, c);
            }
        }
        Ack { latest: to_wire(latest), bits, proof: proof.value() }
    }

    /// The ack of a client that holds nothing and asks its server to start over: the next
    /// packet is coded from scratch ([`Client::restart`](crate::Client::restart)).
    pub const fn restart() -> Ack {
        Ack { latest: 0, bits: 0, proof: RESTART }
    }

    /// Whether this is [`Ack::restart`].
    pub fn is_restart(&self) -> bool {
        *self == Ack::restart()
    }

    /// This ack with proof `proof`.
    fn with_proof(mut self, proof: u16) -> Ack {
        self.proof = proof;
        self
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
        let ack = Ack { latest: 0xfffe, bits: 0x8000_0005, proof: 0xbeef };
        let mut buf = [0u8; 8];
        assert_eq!(ack.write(&mut buf), Ok(8));
        assert_eq!(Ack::read(&buf), Ok(ack));
        assert_eq!(Ack::read(&buf[..7]), Err(Error::UnexpectedEnd));
    }

    #[test]
    fn frames_unwrap_and_ignore_the_future() {
        let ack = Ack::from_frames(65_540, |f| f == 65_538 || f == 65_508);
        let got: std::vec::Vec<u32> = ack.frames(65_541).collect();
        assert_eq!(got, [65_540, 65_538, 65_508]);
        assert_eq!(ack.frames(65_530).count(), 0, "an ack from the future is ignored");
    }
}
