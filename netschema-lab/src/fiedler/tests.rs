//! The bit layout of the generalised `fiedler` on hand-computed frames.

use super::Fiedler;
use crate::tests::check_layout;

#[test]
fn a_new_entity_a_delta_and_a_departure() {
    // One entity: 66 slots, 7-bit indices.
    // Frame (16), baseline distance (5), slots in use (7), the changed slots (1 slot: as
    // changed bits, cheaper than a count and an index).
    let frames = [
        // Frame 0, no baseline: slot 0 is new, sent whole (x in 10 bits, on in 1).
        "0000000000000000 00000 0000001 1 1 \
         0000000101 1",
        // Frame 1 against frame 0: still there; x's widths (small 1, large 4); x changed, as a
        // delta, not small: 4 + 8 in 4 bits; on unchanged.
        "0000000000000001 00001 0000001 1 1 \
         1 \
         0000 00011 \
         1 1 0 1100 0",
        // Frame 2 against frame 1: slot 0 gone.
        "0000000000000010 00001 0000001 1 1 \
         0",
    ];
    let rows = [Some([5, 1]), Some([9, 1]), None];
    check_layout(&Fiedler, &frames, &rows);
}
