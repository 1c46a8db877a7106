use netschema::{Input, SnapshotStruct};

/// A stick with a tolerance: fine in a class, not in an input.
#[derive(Clone, Copy, Debug, PartialEq, SnapshotStruct)]
struct Stick {
    #[netschema(fixed(-1, 1, res = 1 / 127), tolerance = 0.05)]
    x: f32,
}

/// Twelve buttons.
#[derive(Clone, Copy, Debug, PartialEq, SnapshotStruct)]
struct Buttons {
    pressed: [bool; 12],
}

/// The derive cannot see through the structs an input holds: the compiler checks them.
#[derive(Clone, Copy, Debug, PartialEq, Input)]
struct Loose {
    stick: Stick,
}

#[derive(Clone, Copy, Debug, PartialEq, Input)]
struct Pad {
    left: Buttons,
    right: Buttons,
}

fn main() {}
