//! Frame numbers: 32-bit on each end, 16-bit on the wire, the window of frames in flight and
//! the server's archive.

/// Frames a packet may reach back: its baseline and history lie fewer than `WINDOW` frames
/// before it, and acks cover the newest frame plus the `WINDOW` before it.
pub const WINDOW: u32 = 32;
/// Frames the server's world archive keeps: what a client holds of an entity may have come
/// from any of them (an entity can wait under a byte budget for this long, less a window).
pub const ARCHIVE: u32 = 128;
const _: () = assert!(ARCHIVE >= 2 * WINDOW && ARCHIVE <= u8::MAX as u32);

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
    fn wire_round_trip_across_wrap() {
        for reference in [0u32, 1, 65_535, 65_536, 70_000, u32::MAX - 3] {
            for delta in [-100i32, -1, 0, 1, 5, 31, 1000] {
                let frame = reference.wrapping_add(delta as u32);
                assert_eq!(from_wire(reference, to_wire(frame)), frame);
            }
        }
    }
}
