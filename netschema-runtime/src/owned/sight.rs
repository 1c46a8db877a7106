//! What a client rendered when it pushed each input: the render time of its
//! [`Interpolator`](super::Interpolator), sent beside the inputs so that the server can rewind
//! to it ([`Server::seen_by`](super::Server::seen_by)).
//!
//! The client keeps the render time of each of its last [`CARRIED`] inputs; every up frame
//! whose input datagram carries inputs with render times carries theirs too, in its views
//! part, so a lost frame loses no more of them than of the inputs. The server keeps them by
//! tick for the last [`ARCHIVE`] ticks. The part:
//!
//! ```text
//! newest tick (u32), count n (u8, 1..=32), then n views, newest first, each:
//!   back (u8):   the newest tick less this view's tick, increasing from one view to the next
//!   ahead (i16): this view's tick less its render frame
//!   past (u16):  how far past the render frame, in 1/65536 of a frame
//!   newest (u8): the newest frame the interpolator had less the render frame
//! ```
//!
//! Integers are little-endian. A part of no view, of more than [`CARRIED`], whose backs do not
//! increase, or cut short is malformed; a render time whose numbers do not fit their widths
//! is not sent.

use std::vec;
use std::vec::Vec;

use crate::engine::frame::ARCHIVE;
use crate::engine::input::CARRIED;
use crate::{Error, Result};

/// A render time exactly as an [`Interpolator`](super::Interpolator) keeps it
/// ([`Interpolator::render_time`](super::Interpolator::render_time)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderTime {
    /// The frame at or before the render time, numbered as on the server.
    pub frame: u32,
    /// How far past `frame`, in 1/65536 of a frame.
    pub past: u16,
    /// The newest frame the interpolator had recorded: the entities it showed are those of
    /// that frame's view.
    pub newest: u32,
}

/// Bytes before the views.
const HEAD: usize = 5;
/// Bytes of one view.
const VIEW: usize = 6;
/// The longest views part.
pub(crate) const MAX_LEN: usize = HEAD + VIEW * CARRIED;

impl RenderTime {
    /// The bytes of this render time as the view of `tick`, `back` ticks before the part's
    /// newest, if its numbers fit.
    fn bytes(&self, tick: u32, back: u32) -> Option<[u8; VIEW]> {
        let back = u8::try_from(back).ok()?;
        let ahead = i16::try_from(tick.wrapping_sub(self.frame) as i32).ok()?;
        let newest = u8::try_from(self.newest.wrapping_sub(self.frame)).ok()?;
        let ([a0, a1], [p0, p1]) = (ahead.to_le_bytes(), self.past.to_le_bytes());
        Some([back, a0, a1, p0, p1, newest])
    }

    /// The view of the tick `newest` less its first byte.
    fn read(newest: u32, b: &[u8]) -> (u32, RenderTime) {
        let tick = newest.wrapping_sub(u32::from(b[0]));
        let frame = tick.wrapping_sub(i16::from_le_bytes([b[1], b[2]]) as i32 as u32);
        let past = u16::from_le_bytes([b[3], b[4]]);
        (tick, RenderTime { frame, past, newest: frame.wrapping_add(u32::from(b[5])) })
    }
}

/// The client's record: the render time given with each of its last [`CARRIED`] inputs.
#[derive(Clone, Debug)]
pub(crate) struct Views {
    /// Tick and render time of each input, by push count modulo [`CARRIED`].
    ring: [(u32, Option<RenderTime>); CARRIED],
    count: usize,
    /// What the next inputs pushed are rendered at.
    current: Option<RenderTime>,
}

impl Views {
    pub(crate) fn new() -> Self {
        Views { ring: [(0, None); CARRIED], count: 0, current: None }
    }

    /// Sets the render time of the inputs pushed from now on.
    pub(crate) fn set(&mut self, time: Option<RenderTime>) {
        self.current = time;
    }

    /// Notes that the input of `tick` was pushed, at the current render time.
    pub(crate) fn pushed(&mut self, tick: u32) {
        self.ring[self.count % CARRIED] = (tick, self.current);
        self.count += 1;
    }

    /// Whether any input kept has a render time.
    pub(crate) fn any(&self) -> bool {
        self.ring.iter().any(|(_, t)| t.is_some())
    }

    /// Writes the views part of the inputs of ticks `first..=last` into `buf` and returns its
    /// length: 0, and nothing written, if none of them has a render time.
    pub(crate) fn write(&self, (first, last): (u32, u32), buf: &mut [u8]) -> Result<usize> {
        let mut n = 0;
        for k in 0..self.count.min(CARRIED) {
            let (tick, time) = self.ring[(self.count - 1 - k) % CARRIED];
            if tick.wrapping_sub(first) > last.wrapping_sub(first) {
                continue;
            }
            let Some(bytes) = time.and_then(|t| t.bytes(tick, last.wrapping_sub(tick))) else {
                continue;
            };
            let at = HEAD + n * VIEW;
            buf.get_mut(at..at + VIEW).ok_or(Error::BufferFull)?.copy_from_slice(&bytes);
            n += 1;
        }
        if n > 0 {
            buf[..4].copy_from_slice(&last.to_le_bytes());
            buf[4] = n as u8;
        }
        Ok(if n > 0 { HEAD + n * VIEW } else { 0 })
    }
}

/// Splits a views part off the start of `bytes`: the part, checked, and what follows it.
pub(crate) fn split(bytes: &[u8]) -> Result<(&[u8], &[u8])> {
    let n = usize::from(*bytes.get(4).ok_or(Error::UnexpectedEnd)?);
    if n == 0 || n > CARRIED {
        return Err(Error::Corrupt);
    }
    let (part, rest) = bytes.split_at_checked(HEAD + n * VIEW).ok_or(Error::UnexpectedEnd)?;
    let backs = part[HEAD..].chunks_exact(VIEW).map(|v| v[0]);
    if backs.clone().zip(backs.skip(1)).any(|(a, b)| a >= b) {
        return Err(Error::Corrupt);
    }
    Ok((part, rest))
}

/// The views of a part [`split`] checked: tick and render time of each.
fn views(part: &[u8]) -> impl Iterator<Item = (u32, RenderTime)> + '_ {
    let newest = u32::from_le_bytes([part[0], part[1], part[2], part[3]]);
    part[HEAD..].chunks_exact(VIEW).map(move |v| RenderTime::read(newest, v))
}

/// The server's record of one client's render times, by tick, for the last [`ARCHIVE`] ticks.
#[derive(Clone, Debug)]
pub(crate) struct Record {
    ring: Vec<Option<(u32, RenderTime)>>,
}

impl Record {
    pub(crate) fn new() -> Self {
        Record { ring: vec![None; ARCHIVE as usize] }
    }

    /// Takes the views of a part [`split`] checked; an older tick never replaces a newer one.
    pub(crate) fn take(&mut self, part: &[u8]) {
        for (tick, time) in views(part) {
            let slot = &mut self.ring[(tick % ARCHIVE) as usize];
            if slot.is_none_or(|(t, _)| tick.wrapping_sub(t) as i32 >= 0) {
                *slot = Some((tick, time));
            }
        }
    }

    /// The render time of the input of `tick`, if it arrived and is kept.
    pub(crate) fn get(&self, tick: u32) -> Option<RenderTime> {
        self.ring[(tick % ARCHIVE) as usize].filter(|&(t, _)| t == tick).map(|(_, time)| time)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_round_trip_by_tick_and_malformed_parts_are_refused() {
        let mut views = Views::new();
        let time = |frame| RenderTime { frame, past: 999, newest: frame + 3 };
        for tick in 100..110 {
            views.set((tick % 3 != 0).then(|| time(tick - 8)));
            views.pushed(tick);
        }
        let mut buf = [0u8; MAX_LEN];
        let n = views.write((104, 108), &mut buf).unwrap();
        assert_eq!(n, HEAD + 3 * VIEW, "105 and 108 have no render time, 109 is not carried");
        let (part, rest) = split(&buf[..n + 2]).unwrap();
        assert_eq!((part.len(), rest.len()), (n, 2));
        let mut seen = Record::new();
        seen.take(part);
        assert_eq!((seen.get(104), seen.get(107)), (Some(time(96)), Some(time(99))));
        assert_eq!((seen.get(105), seen.get(109), seen.get(107 + ARCHIVE)), (None, None, None));
        assert_eq!(views.write((105, 105), &mut buf), Ok(0));
        for bad in [&[0u8, 0, 0, 0, 0][..], &[1, 0, 0, 0, 33], &[1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0]] {
            assert!(split(bad).is_err(), "{bad:?}");
        }
        buf[HEAD + VIEW] = 0;
        assert_eq!(split(&buf[..n]), Err(Error::Corrupt), "backs must increase");
    }
}
