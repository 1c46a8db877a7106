use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(quat(bits = 1))]
    rot: [f32; 4],
}

fn main() {}
