use netschema::SnapshotEnum;

#[derive(Clone, Copy, SnapshotEnum)]
enum Mood {
    Calm,
    Angry(u8),
}

#[derive(Clone, Copy, SnapshotEnum)]
enum Never {}

fn main() {}
