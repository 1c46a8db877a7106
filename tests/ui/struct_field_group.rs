use netschema::SnapshotStruct;

#[derive(SnapshotStruct)]
struct Stats {
    #[netschema(int(0, 200), group = "slow")]
    health: u8,
    #[netschema(angle(bits = 8), timeline(linear))]
    heading: f32,
}

fn main() {}
