use netschema::{Protocol, Snapshot};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Ball {
    #[netschema(int(0, 10))]
    x: i32,
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(rate = 0)]
enum Zero {
    Ball(Ball),
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(rate = 60, rate = 30)]
enum Twice {
    Ball(Ball),
}

fn main() {}
