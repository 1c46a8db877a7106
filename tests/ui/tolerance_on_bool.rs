use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(tolerance = 1)]
    alive: bool,
}

fn main() {}
