use netschema::{Protocol, Ref, Snapshot};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Ship {
    #[netschema(int(0, 100))]
    hp: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Rock {
    #[netschema(int(0, 100))]
    size: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
#[netschema(protocol = "Game")]
struct Shot {
    #[netschema(int(0, 100))]
    fuel: u8,
    owner: Ref<Rock>,
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
enum Game {
    Ship(Ship),
    Shot(Shot),
}

fn main() {}
