use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(int(0, 10), predict(hold, linear, hold))]
    hp: i32,
}

fn main() {}
