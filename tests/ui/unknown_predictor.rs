use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(int(0, 10), predict(hold, exponential))]
    hp: i32,
}

fn main() {}
