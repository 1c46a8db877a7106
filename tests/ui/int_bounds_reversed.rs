use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(int(10, 0))]
    hp: i32,
}

fn main() {}
