use netschema::Snapshot;

#[derive(Clone, Copy)]
enum Mood {
    Calm,
    Angry,
}

#[derive(Snapshot)]
struct Unit {
    mood: Mood,
}

fn main() {}
