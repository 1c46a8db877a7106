use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(crate = "::netschema", int(0, 1))]
    hp: i32,
}

fn main() {}
