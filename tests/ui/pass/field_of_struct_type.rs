use netschema::{Snapshot, SnapshotEnum, SnapshotStruct};

#[derive(Clone, Copy, SnapshotEnum)]
enum Mood {
    Calm,
    Angry,
}

#[derive(SnapshotStruct)]
struct Velocity {
    #[netschema(fixed(-10.0, 10.0, res = 1 / 64))]
    x: f32,
    #[netschema(fixed(-10.0, 10.0, res = 1 / 64))]
    y: f32,
}

#[derive(SnapshotStruct)]
struct Body {
    velocity: Velocity,
    mood: Option<Mood>,
}

#[derive(Snapshot)]
struct Unit {
    #[netschema(int(0, 100))]
    hp: u8,
    #[netschema(predict(hold), tolerance = 0.5)]
    velocity: Velocity,
    bodies: [Body; 2],
    spare: Option<Velocity>,
}

fn main() {
    let names: Vec<&str> = Unit::CLASS.fields.iter().map(|f| f.name).collect();
    assert_eq!(names[..3], ["hp", "velocity.x", "velocity.y"]);
    assert_eq!(names[3..5], ["bodies[0].velocity.x", "bodies[0].velocity.y"]);
    assert_eq!(names[5..7], ["bodies[0].mood.present", "bodies[0].mood.value"]);
    assert_eq!(names[11..], ["spare.present", "spare.value.x", "spare.value.y"]);
}
