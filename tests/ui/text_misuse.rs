use netschema::{Blob, Event, Input, Protocol, Snapshot, SnapshotStruct, Text};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Ship {
    #[netschema(int(0, 100))]
    hp: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Event)]
struct Kinds {
    #[netschema(int(0, 9))]
    line: Text<8>,
    empty: Blob<0>,
    huge: Text<300>,
    lines: [Text<8>; 2],
    maybe: Option<Text<8>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Event)]
struct Shout {
    a: Text<200>,
    b: Text<100>,
}

#[derive(Clone, Copy, Debug, PartialEq, Input)]
struct Chat {
    line: Text<32>,
}

#[derive(Clone, Copy, Debug, PartialEq, SnapshotStruct)]
struct Card {
    title: Text<8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
enum Game {
    Ship(Ship),
}

fn main() {}
