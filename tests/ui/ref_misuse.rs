use netschema::{Protocol, Ref, Snapshot, SnapshotStruct};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Ship {
    #[netschema(int(0, 100))]
    hp: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Orphan {
    #[netschema(int(0, 100))]
    hp: u8,
    owner: Ref<Ship>,
}

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
#[netschema(protocol = "Game", group(name = "slow", every = 4))]
struct Clauses {
    #[netschema(int(0, 100))]
    hp: u8,
    #[netschema(predict(hold), tolerance = 1, group = "slow")]
    leader: Ref<Ship>,
    #[netschema(int(0, 3))]
    kind: Ref<Ship>,
}

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
#[netschema(protocol = "Game")]
struct Nested {
    #[netschema(int(0, 100))]
    hp: u8,
    ships: [Ref<Ship>; 2],
    flagship: Option<Ref<Ship>>,
}

#[derive(Clone, Copy, Debug, PartialEq, SnapshotStruct)]
struct Crew {
    captain: Ref<Ship>,
}

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
#[netschema(protocol = "Game")]
struct Swarm {
    #[netschema(int(0, 100))]
    hp: u8,
    r0: Ref<Ship>, r1: Ref<Ship>, r2: Ref<Ship>, r3: Ref<Ship>, r4: Ref<Ship>, r5: Ref<Ship>,
    r6: Ref<Ship>, r7: Ref<Ship>, r8: Ref<Ship>, r9: Ref<Ship>, r10: Ref<Ship>, r11: Ref<Ship>,
    r12: Ref<Ship>, r13: Ref<Ship>, r14: Ref<Ship>, r15: Ref<Ship>, r16: Ref<Ship>,
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
enum Game {
    Ship(Ship),
}

fn main() {}
