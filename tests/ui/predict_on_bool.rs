use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(predict(hold))]
    alive: bool,
}

fn main() {}
