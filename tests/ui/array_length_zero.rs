use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    flags: [bool; 0],
}

fn main() {}
