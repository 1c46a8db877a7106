//! `#[derive(Snapshot)]` takes enum fields whatever their Rust names: the names the schema
//! language reserves, the struct's own name (from another module) and non-ASCII names only
//! key the type inside the derive.

use netschema::{Snapshot, SnapshotEnum};

#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, SnapshotEnum)]
enum vec2 {
    A,
    B,
}

mod other {
    #[derive(Clone, Copy, Debug, PartialEq, netschema::SnapshotEnum)]
    pub(crate) enum Unit {
        A,
        B,
        C,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, SnapshotEnum)]
enum Étape {
    Un,
    Deux,
}

#[derive(Debug, PartialEq, Snapshot)]
struct Unit {
    reserved: vec2,
    same_name: other::Unit,
    non_ascii: [Étape; 2],
}

#[test]
fn enum_fields_with_any_rust_name_round_trip() {
    let unit =
        Unit {
            reserved: vec2::B, same_name: other::Unit::C, non_ascii: [Étape::Deux, Étape::Un]
        };
    let mut raw = [0; 4];
    unit.quantise(&mut raw);
    assert_eq!(raw, [1, 2, 1, 0]);
    assert_eq!(Unit::dequantise(&raw), unit);
    let names: Vec<&str> = Unit::CLASS.fields.iter().map(|f| f.name).collect();
    assert_eq!(names, ["reserved", "same_name", "non_ascii[0]", "non_ascii[1]"]);
}
