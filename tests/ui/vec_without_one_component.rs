use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(vec2(bits = 8))]
    aim: [f32; 2],
}

fn main() {}
