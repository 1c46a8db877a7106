//! Acknowledgements: the client's record of which frames it holds, with a proof that it
//! decoded them.

use crate::engine::frame::{WINDOW, from_wire, to_wire};
use crate::{Error, Result};

/// What a client sends back: the newest frame it holds, a bitfield of the [`WINDOW`]
/// frames before it (bit `i` set: it holds frame `latest - 1 - i`), and a proof that it holds
/// them: a hash of the check values of those frames, which only a receiver of their packets
/// knows. Now and then it also carries a digest of the client's view of `latest`, which the
/// server compares with its record of what the client holds; and, rarely, which of the frames
/// it names should have kept their models and did not, so that the server takes them as
/// baselines but never as model frames.
///
/// A restart request ([`Ack::restart`]) names no frame: it carries the hashes of the last two
/// datagrams the client received, which prove it receives the server's packets.
///
/// Acks are idempotent: the server may receive them lost, late, duplicated or reordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Ack {
    /// Low 16 bits of the newest frame held.
    pub latest: u16,
    /// Frames held before `latest`.
    pub bits: u32,
    /// Proof of receipt of every frame named (see [`Ack::proven`]); 0 for [`Ack::from_frames`].
    pub proof: u32,
    /// Digest of the client's view of frame `latest`
    /// ([`Client::view_digest`](crate::Client::view_digest)), in one ack in [`VIEW_EVERY`].
    pub view: Option<u32>,
    /// Frames named whose models the client did not keep although their packets kept them
    /// (its pool was full): bit 0 for `latest`, bit `i` for `latest - i`. Usually 0.
    pub unkept: u32,
    /// A restart request: the hashes ([`datagram_hash`]) of the last two datagrams the client
    /// received. The other fields are then 0 and unused.
    pub restart: Option<[u32; 2]>,
}

/// The client puts a digest of its view in the ack of every frame that is a multiple of this.
pub const VIEW_EVERY: u32 = 16;

/// What a peer made of an ack ([`Peer::receive_ack`](crate::Peer::receive_ack)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckOutcome {
    /// Its frames now count as held by the client.
    Accepted,
    /// It names frames the peer no longer keeps, or none it sent, or sent before the client
    /// last restarted: ignored, as a late ack is.
    Stale,
    /// It names frames never sent, or its proof does not match what was sent: the client
    /// claims frames it cannot hold. Ignored, and counted
    /// ([`PeerStats::refused_acks`](crate::engine::peer::PeerStats::refused_acks)).
    Refused,
    /// The client holds nothing and asks to start over ([`Ack::restart`]), or the view it
    /// reported differs from what the server records it holds: the next packet is coded from
    /// scratch.
    Restart,
}

/// Running hash of the frames an ack names and their check values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Proof(u32);

impl Proof {
    pub(crate) fn new() -> Self {
        Proof(0x811c_9dc5)
    }

    /// Adds `frame`, whose packet had check value `check`.
    pub(crate) fn add(&mut self, frame: u32, check: u16) {
        self.0 = fnv(fnv(self.0, u32::from(to_wire(frame))), u32::from(check));
    }

    /// The proof sent: the hash mixed so that every bit depends on every input.
    pub(crate) fn value(&self) -> u32 {
        mix32(self.0)
    }
}

/// One step of the 32-bit FNV-1a hash over a word, which check values, ack proofs and view
/// digests are built with.
#[inline(always)]
pub(crate) const fn fnv(h: u32, v: u32) -> u32 {
    (h ^ v).wrapping_mul(0x0100_0193)
}

/// A 32-bit finaliser: every output bit depends on every input bit.
pub(crate) const fn mix32(mut h: u32) -> u32 {
    h = (h ^ (h >> 16)).wrapping_mul(0x85eb_ca6b);
    h = (h ^ (h >> 13)).wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// The hash of a datagram's bytes, salted with the session (see
/// [`Peer::set_session`](crate::Peer::set_session)), that a restart request proves receipt
/// with: the server keeps it for every packet it sent in the last 64 frames.
pub fn datagram_hash(session: u64, bytes: &[u8]) -> u32 {
    let mut h = 0x9e37_79b9_7f4a_7c15u64 ^ session;
    let mut chunks = bytes.chunks_exact(8);
    let mut step = |w: u64| {
        h = (h ^ w).wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 29;
    };
    for chunk in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        step(u64::from_le_bytes(w));
    }
    let mut w = [0u8; 8];
    w[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    step(u64::from_le_bytes(w));
    step(bytes.len() as u64);
    mix32((h ^ (h >> 32)) as u32)
}

/// Running digest of a client's view of a frame: every entity it holds there, by ascending
/// handle, with its class and values.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ViewDigest(u32);

impl ViewDigest {
    pub(crate) fn new() -> Self {
        ViewDigest(0x811c_9dc5)
    }

    fn add(&mut self, v: u32) {
        self.0 = fnv(self.0, v);
    }

    /// Starts the entity at handle `h` of `class`; its values follow ([`ViewDigest::value_of`]).
    pub(crate) fn entity(&mut self, h: u32, class: usize) {
        self.add(h);
        self.add(class as u32);
    }

    /// Adds the next value of the current entity.
    pub(crate) fn value_of(&mut self, v: i32) {
        self.add(v as u32);
    }

    /// The digest sent.
    pub(crate) fn value(&self) -> u32 {
        mix32(self.0)
    }
}

/// Flag bits of an ack's first byte.
const FLAG_RESTART: u8 = 1;
const FLAG_VIEW: u8 = 2;
const FLAG_UNKEPT: u8 = 4;

impl Ack {
    /// The most bytes an ack takes on the wire.
    pub const MAX_LEN: usize = 19;

    /// Writes the ack into `buf` and returns its length: a flag byte, then for a restart
    /// request its two hashes, else `latest`, `bits`, `proof`, the view digest if any and
    /// `unkept` if not 0, all little-endian.
    pub fn write(&self, buf: &mut [u8]) -> Result<usize> {
        let mut out = [0u8; Self::MAX_LEN];
        let len = if let Some([a, b]) = self.restart {
            out[0] = FLAG_RESTART;
            out[1..5].copy_from_slice(&a.to_le_bytes());
            out[5..9].copy_from_slice(&b.to_le_bytes());
            9
        } else {
            out[1..3].copy_from_slice(&self.latest.to_le_bytes());
            out[3..7].copy_from_slice(&self.bits.to_le_bytes());
            out[7..11].copy_from_slice(&self.proof.to_le_bytes());
            let mut len = 11;
            for (flag, word) in [(FLAG_VIEW, self.view), (FLAG_UNKEPT, Some(self.unkept))] {
                if let Some(w) = word.filter(|&w| flag == FLAG_VIEW || w != 0) {
                    out[0] |= flag;
                    out[len..len + 4].copy_from_slice(&w.to_le_bytes());
                    len += 4;
                }
            }
            len
        };
        buf.get_mut(..len).ok_or(Error::BufferFull)?.copy_from_slice(&out[..len]);
        Ok(len)
    }

    /// Reads an ack written by [`Ack::write`] from the start of `buf`; unknown flags are
    /// [`Error::Corrupt`].
    pub fn read(buf: &[u8]) -> Result<Ack> {
        let word = |at: usize| -> Result<u32> {
            let b = buf.get(at..at + 4).ok_or(Error::UnexpectedEnd)?;
            Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let flags = *buf.first().ok_or(Error::UnexpectedEnd)?;
        match flags {
            FLAG_RESTART => Ok(Ack { restart: Some([word(1)?, word(5)?]), ..Ack::default() }),
            f if f & !(FLAG_VIEW | FLAG_UNKEPT) == 0 => {
                let b = buf.get(1..3).ok_or(Error::UnexpectedEnd)?;
                let view = (f & FLAG_VIEW != 0).then(|| word(11)).transpose()?;
                let at = 11 + 4 * usize::from(view.is_some());
                let unkept = if f & FLAG_UNKEPT != 0 { word(at)? } else { 0 };
                if f & FLAG_UNKEPT != 0 && unkept == 0 {
                    return Err(Error::Corrupt);
                }
                Ok(Ack {
                    latest: u16::from_le_bytes([b[0], b[1]]),
                    bits: word(3)?,
                    proof: word(7)?,
                    view,
                    unkept,
                    restart: None,
                })
            }
            _ => Err(Error::Corrupt),
        }
    }

    /// Builds an ack without proof from the newest frame held and a predicate for the older
    /// ones (for techniques that take acks on trust; a netschema peer refuses it).
    pub fn from_frames(latest: u32, mut holds: impl FnMut(u32) -> bool) -> Ack {
        Ack { proof: 0, ..Ack::proven(latest, |f| (f == latest || holds(f)).then_some(0)) }
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
        let latest = to_wire(latest);
        Ack { latest, bits, proof: proof.value(), view: None, unkept: 0, restart: None }
    }

    /// The request of a client that holds nothing and asks its server to start over
    /// ([`Client::restart`](crate::Client::restart)): `seen` are the hashes of the last two
    /// datagrams it received ([`datagram_hash`]). The server restarts only if one of them is
    /// a packet it sent since the last restart.
    pub const fn restart(seen: [u32; 2]) -> Ack {
        Ack { latest: 0, bits: 0, proof: 0, view: None, unkept: 0, restart: Some(seen) }
    }

    /// Whether this is a restart request ([`Ack::restart`]).
    pub fn is_restart(&self) -> bool {
        self.restart.is_some()
    }

    /// The full frame numbers this ack covers, given the newest frame the server has sent:
    /// frames after `newest_sent` are not reported, nor any for a restart request.
    pub fn frames(&self, newest_sent: u32) -> impl Iterator<Item = u32> + use<> {
        let latest = from_wire(newest_sent, self.latest);
        let ahead = latest.wrapping_sub(newest_sent) as i32 > 0 || self.restart.is_some();
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
        let plain = Ack { latest: 0xfffe, bits: 0x8000_0005, proof: 0xdead_beef, ..Ack::default() };
        let viewed = Ack { view: Some(0x1234_5678), ..plain };
        let unkept = Ack { unkept: 0x11, ..plain };
        let both = Ack { unkept: 0x8000_0000, ..viewed };
        let restart = Ack::restart([7, 0xffff_ffff]);
        for (ack, len) in [(plain, 11), (viewed, 15), (unkept, 15), (both, 19), (restart, 9)] {
            let mut buf = [0u8; Ack::MAX_LEN];
            assert_eq!(ack.write(&mut buf), Ok(len));
            assert_eq!(Ack::read(&buf[..len]), Ok(ack));
            assert_eq!(Ack::read(&buf[..len - 1]), Err(Error::UnexpectedEnd));
            assert_eq!(ack.write(&mut buf[..len - 1]), Err(Error::BufferFull));
        }
        assert_eq!(Ack::read(&[8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), Err(Error::Corrupt));
        // A frame field that names no frame is not written that way.
        let empty = [4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(Ack::read(&empty), Err(Error::Corrupt));
    }

    #[test]
    fn frames_unwrap_and_ignore_the_future() {
        let ack = Ack::from_frames(65_540, |f| f == 65_538 || f == 65_508);
        let got: std::vec::Vec<u32> = ack.frames(65_541).collect();
        assert_eq!(got, [65_540, 65_538, 65_508]);
        assert_eq!(ack.frames(65_530).count(), 0, "an ack from the future is ignored");
    }
}
