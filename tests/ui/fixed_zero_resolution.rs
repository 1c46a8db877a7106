use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(fixed(0.0, 1.0, res = 0.0))]
    x: f32,
}

fn main() {}
