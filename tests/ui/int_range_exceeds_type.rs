use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(int(0, 1000))]
    hp: u8,
    #[netschema(int(-1, 10))]
    ammo: u16,
    #[netschema(int(0, 300))]
    fits: [i16; 2],
    #[netschema(int(0, 300))]
    bytes: [u8; 2],
}

fn main() {}
