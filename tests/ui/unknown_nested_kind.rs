use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(vec3(fixd(-1.0, 1.0, res = 0.5)))]
    pos: [f32; 3],
    #[netschema(vec2(7))]
    vel: [f32; 2],
    #[netschema(int(100, 0))]
    hp: i32,
}

fn main() {}
