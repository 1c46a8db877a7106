use netschema::{Event, Protocol, Ref, Snapshot};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Unit {
    #[netschema(int(0, 100))]
    hp: u8,
}

/// An event needs a field.
#[derive(Clone, Copy, Debug, PartialEq, Event)]
struct Empty {}

/// A reference resolves its target in the protocol, which the event must name.
#[derive(Clone, Copy, Debug, PartialEq, Event)]
struct Unnamed {
    target: Ref<Unit>,
}

/// A misspelled kind.
#[derive(Clone, Copy, Debug, PartialEq, Event)]
struct Typo {
    #[netschema(innt(0, 3))]
    kind: u8,
}

/// Update groups belong to classes: the compiler refuses the event.
#[derive(Clone, Copy, Debug, PartialEq, Event)]
#[netschema(group(name = "slow", every = 4))]
struct Grouped {
    #[netschema(int(0, 3), group = "slow")]
    kind: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Event)]
struct Hit {
    #[netschema(int(0, 255))]
    damage: u8,
}

/// Each event is listed once.
#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(events(Hit, Hit))]
enum Game {
    Unit(Unit),
}

fn main() {}
