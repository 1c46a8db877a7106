use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(angle(bits = 40))]
    heading: f32,
}

fn main() {}
