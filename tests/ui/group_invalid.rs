use netschema::Snapshot;

#[derive(Snapshot)]
#[netschema(every = 0, priority = 2, priority = 3)]
#[netschema(group(name = "slow", every = 17), group(every = 2), group(name = "slow"))]
struct Unit {
    #[netschema(int(0, 100), group = slow, tolerance(1))]
    hp: i32,
}

fn main() {}
