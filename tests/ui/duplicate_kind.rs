use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(int(0, 1), int(0, 2))]
    hp: i32,
}

fn main() {}
