use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(quat(bits = 9))]
    rot: [f32; 3],
}

fn main() {}
