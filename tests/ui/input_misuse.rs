use netschema::{Input, Ref, Snapshot};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Ship {
    #[netschema(int(0, 100))]
    hp: u8,
}

#[derive(Input)]
struct Idle {}

#[derive(Input)]
#[netschema(every = 2)]
struct Scheduled {
    fire: bool,
}

#[derive(Input)]
struct Clauses {
    #[netschema(vec2(fixed(-1, 1, res = 1 / 127)), tolerance = 0.05)]
    dir: [f32; 2],
    #[netschema(angle(bits = 16), group = "slow")]
    yaw: f32,
    #[netschema(bool, timeline(step))]
    fire: bool,
    #[netschema(int(0, 9), predict(hold, hold))]
    slot: u8,
}

#[derive(Input)]
struct Target {
    ship: Ref<Ship>,
}

#[derive(Input)]
struct Pad {
    #[netschema(vec2(fixed(-1, 1, res = 1 / 127)))]
    sticks: [[f32; 2]; 2],
    buttons: [bool; 13],
}

#[derive(Input)]
enum Button {
    Fire,
}

#[derive(Input)]
struct Tuple(bool);

fn main() {}
