use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    hp: u8,
    speed: f32,
}

fn main() {}
