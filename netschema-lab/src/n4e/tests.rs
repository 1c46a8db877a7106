//! The bit layout of `N4E` on hand-computed frames.

use super::N4e;
use crate::tests::check_layout;

#[test]
fn a_spawn_a_delta_and_a_despawn() {
    let frames = [
        // Frame 0, ghost 1 new for the client, x = 5 and on against zeros.
        "00000001 00000000000000000000000000000000 \
         00 010 0000000000000000 0000000000000001 \
         00 010 0 \
         00 00 00 010 \
         00 \
         010 \
         1011 1001 \
         100 01 \
         1010 001 1",
        // Frame 1 against frame 0 (1 tick back): x 5 → 9, mask 0b01 against 0b11.
        "00000001 00000000000000000000000000000001 \
         00 010 0000000000000000 0000000000000001 \
         00 010 0 \
         010 00 00 010 \
         00 \
         1011 0011 \
         100 00 \
         100 11",
        // Frame 2: the dot is gone, ghost 1 despawned.
        "00000001 00000000000000000000000000000010 \
         00 00 0000000000000001 0000000000000000 \
         00",
    ];
    // Run header (ticks since each baseline, run length), ghost id against 1, spawn tick
    // against frame − 1 (new ghosts only), size in bits (5 + 8, then 5 + 5) as −size, change
    // mask against the baseline's, then the prediction minus each changed value (x) or the raw
    // bit (on).
    let rows = [Some([5, 1]), Some([9, 1]), None];
    check_layout(&N4e, &frames, &rows);
}
