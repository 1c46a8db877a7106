use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit<T> {
    #[netschema(int(0, 1))]
    hp: T,
}

fn main() {}
