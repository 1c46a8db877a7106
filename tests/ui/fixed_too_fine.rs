use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(fixed(0, 1e6, res = 1e-6))]
    x: f32,
}

fn main() {}
