//! The framing of the owned layer: one datagram each way per tick carries what the game
//! would otherwise send apart.
//!
//! An *up* frame (client to server) carries the client's state [`Ack`], the render times of
//! the inputs it carries (the `sight` module's views part) and its input datagram; a *down* frame (server to client) carries the server's [`Timing`] report, its
//! [`InputAck`] and the state packet. A frame is a kind byte, its high nibble naming the
//! direction and its low nibble the parts present, then the parts in the order below:
//!
//! ```text
//! up:   0xA0 | parts   parts: 1 ack, 2 inputs, 4 views
//!       [ack: length n (1 byte, 1..=15), then Ack::write's n bytes]
//!       [views: the render times of inputs, as the `sight` module lays them out]
//!       [inputs: the rest, at least 1 byte: an input datagram]
//! down: 0xB0 | parts   parts: 1 timing, 2 input ack, 4 arrival, 8 packet
//!       [timing: frame, u32]
//!       [input ack: InputAck::write's 6 bytes]
//!       [arrival (needs timing): newest − frame (i16), frame − at (u8), target (u8),
//!        error (i16)]
//!       [packet: the rest, at least 1 byte: a state packet]
//! ```
//!
//! Integers are little-endian. Reading checks the whole frame before it is used: a kind byte
//! of the other direction or with unknown parts, an ack whose bytes do not read back as
//! exactly `n`, an arrival without timing, an empty last part or bytes after the parts are
//! [`Error::Corrupt`], a frame cut short [`Error::UnexpectedEnd`].

use super::sight;
use crate::engine::input::{Arrival, InputAck, Timing};
use crate::{Ack, Error, Result};

const UP: u8 = 0xa0;
const DOWN: u8 = 0xb0;
const UP_ACK: u8 = 1;
const UP_INPUTS: u8 = 2;
const UP_VIEWS: u8 = 4;
const DOWN_TIMING: u8 = 1;
const DOWN_INPUT_ACK: u8 = 2;
const DOWN_ARRIVAL: u8 = 4;
const DOWN_PACKET: u8 = 8;
/// Bytes of an arrival.
const ARRIVAL_LEN: usize = 6;

/// The most bytes a server's frame adds before its state packet: a buffer this much longer
/// than the packet's byte budget holds both.
pub const DOWN_HEADER: usize = 1 + 4 + InputAck::LEN + ARRIVAL_LEN;
/// The most bytes a client's frame adds before its input datagram: its ack and the render
/// times of [`CARRIED`](crate::engine::input::CARRIED) inputs.
pub const UP_HEADER: usize = 2 + Ack::MAX_LEN + sight::MAX_LEN;

/// The parts of an up frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Up<'a> {
    pub ack: Option<Ack>,
    pub views: Option<&'a [u8]>,
    pub inputs: Option<&'a [u8]>,
}

/// The parts of a down frame before its packet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Down {
    pub timing: Option<Timing>,
    pub input_ack: Option<InputAck>,
}

/// Reads frames part by part: every read is checked against the bytes left.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let (part, rest) = self.0.split_at_checked(n).ok_or(Error::UnexpectedEnd)?;
        self.0 = rest;
        Ok(part)
    }

    fn word(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The kind byte's parts, if it names `direction` and no part outside `known`.
    fn kind(&mut self, direction: u8, known: u8) -> Result<u8> {
        let kind = self.take(1)?[0];
        match kind & 0xf0 == direction && kind & 0x0f & !known == 0 {
            true => Ok(kind & 0x0f),
            false => Err(Error::Corrupt),
        }
    }

    /// The rest as the last part if `present` (at least a byte), else nothing may remain.
    fn last(self, present: bool) -> Result<Option<&'a [u8]>> {
        match (present, self.0.is_empty()) {
            (true, false) => Ok(Some(self.0)),
            (false, true) => Ok(None),
            _ => Err(Error::Corrupt),
        }
    }
}

/// Writes parts one after another into a buffer, refusing with [`Error::BufferFull`] what
/// does not fit.
struct Writer<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl Writer<'_> {
    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        let end = self.len + bytes.len();
        self.buf.get_mut(self.len..end).ok_or(Error::BufferFull)?.copy_from_slice(bytes);
        self.len = end;
        Ok(())
    }
}

impl<'a> Up<'a> {
    /// Reads an up frame (see the module documentation).
    pub(crate) fn read(frame: &'a [u8]) -> Result<Self> {
        let mut r = Reader(frame);
        let parts = r.kind(UP, UP_ACK | UP_INPUTS | UP_VIEWS)?;
        let mut ack = None;
        if parts & UP_ACK != 0 {
            let n = usize::from(r.take(1)?[0]);
            let bytes = r.take(n)?;
            let read = Ack::read(bytes)?;
            if read.write(&mut [0; Ack::MAX_LEN]) != Ok(n) {
                return Err(Error::Corrupt);
            }
            ack = Some(read);
        }
        let mut views = None;
        if parts & UP_VIEWS != 0 {
            let (part, rest) = sight::split(r.0)?;
            (views, r.0) = (Some(part), rest);
        }
        Ok(Up { ack, views, inputs: r.last(parts & UP_INPUTS != 0)? })
    }

    /// Writes the frame's kind byte and ack into `buf`, then `inputs` writes the views part
    /// and the input datagram into what follows and returns their lengths (0: none). Returns
    /// the frame's length.
    pub(crate) fn write(
        ack: Option<&Ack>,
        buf: &mut [u8],
        inputs: impl FnOnce(&mut [u8]) -> Result<(usize, usize)>,
    ) -> Result<usize> {
        let mut w = Writer { buf, len: 1 };
        if let Some(ack) = ack {
            let mut bytes = [0; Ack::MAX_LEN];
            let n = ack.write(&mut bytes)?;
            w.put(&[n as u8])?;
            w.put(&bytes[..n])?;
        }
        let at = w.len;
        let (v, n) = inputs(w.buf.get_mut(at..).ok_or(Error::BufferFull)?)?;
        let parts = (u8::from(ack.is_some()) * UP_ACK)
            | (u8::from(n > 0) * UP_INPUTS)
            | (u8::from(v > 0) * UP_VIEWS);
        w.buf[0] = UP | parts;
        Ok(at + v + n)
    }
}

impl Down {
    /// Reads a down frame (see the module documentation): its parts and its packet.
    pub(crate) fn read(frame: &[u8]) -> Result<(Self, Option<&[u8]>)> {
        let mut r = Reader(frame);
        let known = DOWN_TIMING | DOWN_INPUT_ACK | DOWN_ARRIVAL | DOWN_PACKET;
        let parts = r.kind(DOWN, known)?;
        if parts & DOWN_ARRIVAL != 0 && parts & DOWN_TIMING == 0 {
            return Err(Error::Corrupt);
        }
        let mut timing = match parts & DOWN_TIMING {
            0 => None,
            _ => Some(Timing { frame: r.word()?, arrival: None }),
        };
        let input_ack = match parts & DOWN_INPUT_ACK {
            0 => None,
            _ => Some(InputAck::read(r.take(InputAck::LEN)?)?),
        };
        if let Some(t) = timing.as_mut().filter(|_| parts & DOWN_ARRIVAL != 0) {
            let b = r.take(ARRIVAL_LEN)?;
            let ahead = i16::from_le_bytes([b[0], b[1]]);
            t.arrival = Some(Arrival {
                newest: t.frame.wrapping_add_signed(i32::from(ahead)),
                at: t.frame.wrapping_sub(u32::from(b[2])),
                target: u32::from(b[3]),
                error: i32::from(i16::from_le_bytes([b[4], b[5]])),
            });
        }
        let packet = r.last(parts & DOWN_PACKET != 0)?;
        Ok((Down { timing, input_ack }, packet))
    }

    /// Writes the frame into `buf`: its parts, then `packet` writes the state packet into
    /// what follows and returns its length (0: none). Returns the frame's length. An arrival
    /// whose fields do not fit their widths is left out.
    pub(crate) fn write(
        &self,
        buf: &mut [u8],
        packet: impl FnOnce(&mut [u8]) -> Result<usize>,
    ) -> Result<usize> {
        let mut w = Writer { buf, len: 1 };
        let mut parts = 0;
        if let Some(t) = self.timing {
            w.put(&t.frame.to_le_bytes())?;
            parts |= DOWN_TIMING;
        }
        if let Some(ack) = self.input_ack {
            let mut bytes = [0; InputAck::LEN];
            ack.write(&mut bytes)?;
            w.put(&bytes)?;
            parts |= DOWN_INPUT_ACK;
        }
        if let Some(bytes) = self.timing.and_then(|t| arrival_bytes(t.frame, t.arrival?)) {
            w.put(&bytes)?;
            parts |= DOWN_ARRIVAL;
        }
        let at = w.len;
        let n = packet(w.buf.get_mut(at..).ok_or(Error::BufferFull)?)?;
        parts |= u8::from(n > 0) * DOWN_PACKET;
        w.buf[0] = DOWN | parts;
        Ok(at + n)
    }
}

/// The bytes of `arrival` reported at `frame`, if its fields fit their widths.
fn arrival_bytes(frame: u32, arrival: Arrival) -> Option<[u8; ARRIVAL_LEN]> {
    let ahead = i16::try_from(arrival.newest.wrapping_sub(frame) as i32).ok()?;
    let age = u8::try_from(frame.wrapping_sub(arrival.at)).ok()?;
    let target = u8::try_from(arrival.target).ok()?;
    let error = arrival.error.clamp(i16::MIN.into(), i16::MAX.into()) as i16;
    let [a0, a1] = ahead.to_le_bytes();
    let [e0, e1] = error.to_le_bytes();
    Some([a0, a1, age, target, e0, e1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_malformed_ones_are_refused() {
        let ack = Ack { latest: 7, bits: 3, proof: 9, view: Some(1), unkept: 2, restart: None };
        let mut buf = [0u8; 64];
        let n = Up::write(Some(&ack), &mut buf, |b| {
            b[..3].copy_from_slice(&[1, 2, 3]);
            Ok((0, 3))
        })
        .unwrap();
        let up = Up { ack: Some(ack), views: None, inputs: Some(&[1, 2, 3][..]) };
        assert_eq!(Up::read(&buf[..n]), Ok(up));
        let n = Up::write(None, &mut buf, |_| Ok((0, 0))).unwrap();
        assert_eq!((n, Up::read(&buf[..n])), (1, Ok(Up::default())));

        let arrival = Arrival { newest: 1003, at: 998, target: 3, error: -5 };
        let down = Down {
            timing: Some(Timing { frame: 1000, arrival: Some(arrival) }),
            input_ack: Some(InputAck { latest: 4, proof: 5 }),
        };
        let n = down
            .write(&mut buf, |b| {
                b[0] = 42;
                Ok(1)
            })
            .unwrap();
        assert_eq!(n, DOWN_HEADER + 1);
        assert_eq!(Down::read(&buf[..n]), Ok((down, Some(&[42][..]))));
        for bad in [&[][..], &[0xa0], &[0xb0, 0], &[0xb4, 0, 0, 0, 0, 0, 0], &[0xb1, 1, 2]] {
            assert!(Down::read(bad).is_err(), "{bad:?}");
        }
        assert_eq!(Up::read(&[0xa2]), Err(Error::Corrupt), "an empty input datagram");
        assert_eq!(Up::read(&[0xa1, 12, 0]), Err(Error::UnexpectedEnd));
        assert_eq!(down.write(&mut buf[..5], |_| Ok(0)), Err(Error::BufferFull));
    }
}
