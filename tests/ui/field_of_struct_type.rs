use netschema::Snapshot;

#[derive(Clone, Copy)]
struct Velocity {
    x: f32,
    y: f32,
}

#[derive(Snapshot)]
struct Unit {
    #[netschema(int(0, 100))]
    hp: u8,
    velocity: Velocity,
}

fn main() {}
