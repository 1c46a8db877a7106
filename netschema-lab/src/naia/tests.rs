//! The bit layout of `naia` on hand-computed frames.

use super::Naia;
use crate::tests::check_layout;

#[test]
fn a_spawn_an_update_and_a_despawn() {
    // Data packet, packet index and tick (16 bits each, least significant first), no messages;
    // the updates; the entity commands. Integers go least significant bit first; an entity is
    // host, not static, its id as a 7-bit chunk after a "more" bit; one class: no kind bits.
    let frames = [
        // Frame 0: no update; the spawn (message 0, type 1, one component: x = 5, on = 1).
        "1 0000000000000000 0000000000000000 0 \
         0 \
         1 0000000000000000 1000 1 0 0 0000000 10000000 1010000000 1 0",
        // Frame 1 (the spawn acknowledged): x changed to 9, on did not.
        "1 1000000000000000 1000000000000000 0 \
         1 1 0 0 0000000 1 1 1001000000 0 0 0 \
         0",
        // Frame 2: the despawn (message 1).
        "1 0100000000000000 0100000000000000 0 \
         0 \
         1 1000000000000000 0100 1 0 0 0000000 0",
    ];
    let rows = [Some([5, 1]), Some([9, 1]), None];
    check_layout(&Naia { compressed: false }, &frames, &rows);
}
