use netschema::Snapshot;

#[derive(Snapshot)]
#[netschema(every = 2, group(name = "slow", every = 8, priority = 2))]
struct Unit {
    #[netschema(int(0, 100), group = "slwo")]
    hp: i32,
    #[netschema(group = "rare")]
    alive: bool,
}

fn main() {}
