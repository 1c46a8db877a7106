use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(vec2(bool))]
    flags: [bool; 2],
}

fn main() {}
