use netschema::{Snapshot, SnapshotStruct};

#[derive(SnapshotStruct)]
struct Flags {
    alive: bool,
    #[netschema(int(0, 9), predict(hold))]
    level: u8,
}

#[derive(SnapshotStruct)]
struct Aim {
    #[netschema(fixed(0.0, 1.0, res = 1 / 100))]
    dir: f32,
}

#[derive(Snapshot)]
struct Unit {
    #[netschema(predict(linear))]
    flags: Flags,
    #[netschema(tolerance = 2)]
    aim: Option<Aim>,
}

fn main() {}
