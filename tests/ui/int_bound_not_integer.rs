use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(int(0, 1.5))]
    hp: i32,
}

fn main() {}
