//! Frame numbers: 32-bit on each end, 16-bit on the wire, the window of frame slots, the
//! reach that stretches it over long round trips, and the server's archive.

/// Frame slots each end keeps: a packet of reach 0 stores its frame in the slot of its number
/// modulo `WINDOW` and reaches back fewer than `WINDOW` frames; acks cover the newest frame
/// plus the `WINDOW` before it.
pub const WINDOW: u32 = 32;
/// The largest reach: a packet of reach `r` stores its frame in the slot of its number
/// shifted right by `r`, so its slots keep one frame in `2^r` for [`span`]`(r)` frames, and
/// baselines a round trip of up to that many frames old stay held.
pub const MAX_REACH: u32 = 2;
/// Frames a packet may reach back at most: its baseline and history lie fewer than `REACH`
/// frames before it.
pub const REACH: u32 = span(MAX_REACH);
/// Frames the server's world archive keeps: what a client holds of an entity may have come
/// from any of them (an entity can wait under a byte budget for this long, less a window).
pub const ARCHIVE: u32 = 128;
const _: () = assert!(ARCHIVE >= 2 * WINDOW && ARCHIVE <= u8::MAX as u32 && REACH <= ARCHIVE);
/// Frames of slack a reach leaves between a baseline's distance and its span.
const REACH_SLACK: u32 = 8;

/// Frames the slots keep under reach `reach`: a frame stored with it is replaced no sooner.
#[inline]
pub const fn span(reach: u32) -> u32 {
    WINDOW << reach
}

/// The reach of a packet whose baseline is `distance` frames back and was made by a packet of
/// reach `base_reach`. Normally the least reach whose span is at least `distance` plus 8, so
/// that the packet's own frame stays held for a round trip like the one the distance shows;
/// but the baseline's reach is kept while `distance` plus 16 still exceeds the span one below
/// it, so that a round trip near a span's end does not switch the reach, and where frames are
/// kept, at every packet. Both ends derive it from what the header names.
#[inline]
pub const fn reach_after(distance: u32, base_reach: u32) -> u32 {
    let mut reach = 0;
    while reach < MAX_REACH && distance.saturating_add(REACH_SLACK) > span(reach) {
        reach += 1;
    }
    let keep = base_reach > reach
        && base_reach <= MAX_REACH
        && distance.saturating_add(2 * REACH_SLACK) > span(base_reach - 1);
    if keep { base_reach } else { reach }
}

/// Marks an empty frame slot.
pub(crate) const NO_FRAME: u32 = u32::MAX;

/// The low 16 bits of a frame number, as sent on the wire.
#[inline]
pub const fn to_wire(frame: u32) -> u16 {
    frame as u16
}

/// The full frame number nearest to `reference` whose low 16 bits are `wire`.
#[inline]
pub const fn from_wire(reference: u32, wire: u16) -> u32 {
    let diff = wire.wrapping_sub(reference as u16) as i16;
    reference.wrapping_add(diff as i32 as u32)
}

/// `a - b` for frame numbers, wrapping.
#[inline]
pub(crate) const fn age(a: u32, b: u32) -> u32 {
    a.wrapping_sub(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reach_follows_the_distance() {
        let up = |d| reach_after(d, 0);
        assert_eq!([1, 24, 25, 56, 57, 127].map(up), [0, 0, 1, 1, 2, 2]);
        // Down only once the distance is well inside the span below.
        assert_eq!([16, 17, 24, 25].map(|d| reach_after(d, 1)), [0, 1, 1, 1]);
        assert_eq!([48, 49].map(|d| reach_after(d, 2)), [1, 2]);
        assert_eq!(reach_after(10, 2), 0);
        assert_eq!(REACH, 128);
    }

    #[test]
    fn wire_round_trip_across_wrap() {
        for reference in [0u32, 1, 65_535, 65_536, 70_000, u32::MAX - 3] {
            for delta in [-100i32, -1, 0, 1, 5, 31, 1000] {
                let frame = reference.wrapping_add(delta as u32);
                assert_eq!(from_wire(reference, to_wire(frame)), frame);
            }
        }
    }
}
