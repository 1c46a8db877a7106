use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {}

fn main() {}
