use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(float(0.0, 1.0))]
    x: f32,
}

fn main() {}
