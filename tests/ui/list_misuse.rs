use netschema::{List, Snapshot};

const LEN: usize = 4;

#[derive(Snapshot)]
struct Bag {
    #[netschema(int(0, 9))]
    empty: List<u8, 0>,
    huge: List<bool, 5000>,
    nested: List<List<bool, 2>, 3>,
    #[netschema(int(0, 9))]
    named: List<u8, LEN>,
    #[netschema(int(0, 9))]
    unmarked: List<f32, 2>,
}

fn main() {}
