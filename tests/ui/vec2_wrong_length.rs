use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(vec2(fixed(0.0, 1.0, bits = 8)))]
    pos: [f32; 3],
}

fn main() {}
