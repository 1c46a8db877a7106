use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(fixed(0, 64, res = 1 / 256), tolerance = 1)]
    x: f32,
    #[netschema(int(0, 100), tolerance = 0.5)]
    hp: i32,
}

fn main() {}
