use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(int(0, 3))]
    target: Option<Option<u8>>,
}

fn main() {}
