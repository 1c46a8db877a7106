//! The bit layout of `Q3` on hand-computed frames (untrained: every byte's code is itself).

use super::Quake3;
use crate::tests::check_layout;

#[test]
fn against_the_baseline_a_delta_frame_and_a_removal() {
    // Sequence (4 bytes, little endian); svc_snapshot, delta frame, flags, area bytes; the
    // entities; the end marker 1023 (its 2 low bits raw, least significant first, then its
    // byte 255); svc_EOF; Quake III's extra byte.
    let frames = [
        // Frame 0: no delta frame; slot 0 equals its baseline (the first frame): number, not
        // removed, no delta.
        "00000000 00000000 00000000 00000000 \
         00000111 00000000 00000000 00000000 \
         00 00000000 0 0 \
         11 11111111 00001000 00",
        // Frame 1 against frame 0: number, not removed, delta, last changed field 1, x
        // changed, not zero, 9 in 10 bits (raw 1, 0, then the byte 2).
        "00000001 00000000 00000000 00000000 \
         00000111 00000001 00000000 00000000 \
         00 00000000 0 1 00000001 1 1 10 00000010 \
         11 11111111 00001000 0000",
        // Frame 2 against frame 1: slot 0 removed.
        "00000010 00000000 00000000 00000000 \
         00000111 00000001 00000000 00000000 \
         00 00000000 1 \
         11 11111111 00001000 0",
    ];
    let rows = [Some([5, 1]), Some([9, 1]), None];
    check_layout(&Quake3, &frames, &rows);
}
