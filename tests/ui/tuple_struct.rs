use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit(#[netschema(int(0, 1))] i32);

fn main() {}
