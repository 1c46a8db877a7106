use netschema::SnapshotStruct;

#[derive(SnapshotStruct)]
struct Node {
    #[netschema(int(0, 9))]
    value: u8,
    next: Option<Node>,
}

fn main() {}
