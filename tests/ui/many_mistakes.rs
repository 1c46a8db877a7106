use netschema::Snapshot;

#[derive(Snapshot)]
struct Unit {
    #[netschema(int(5, 5))]
    hp: i32,
    #[netschema(angle(bits = 0), predict(cubic, cubic))]
    heading: f32,
    #[netschema(fixed(-1.0, 1.0, res = -0.5))]
    speed: f32,
    #[netschema(predict(hold))]
    alive: bool,
}

fn main() {}
