use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(fixed(0.0, 1.0, bits = 8))]
    x: i32,
    #[netschema(int(0, 3))]
    y: f32,
}

fn main() {}
