//! The list of techniques, by name.

use super::Technique;
use super::bytes::{Bitcode, ByteDiff, Compression, PredictionDiff};
use super::fiedler::Fiedler;
use super::netschema::Netschema;

/// Names of every technique, in table order.
pub const NAMES: [&str; 7] = ["BC", "BD-Z6", "BD-Z9", "BD-zstd", "PD-Z6", "fiedler", "netschema"];

/// The technique called `name` (one of [`NAMES`]).
pub fn by_name(name: &str) -> Option<Box<dyn Technique>> {
    Some(match name {
        "BC" => Box::new(Bitcode),
        "BD-Z6" => Box::new(ByteDiff { compression: Compression::Zlib(6) }),
        "BD-Z9" => Box::new(ByteDiff { compression: Compression::Zlib(9) }),
        "BD-zstd" => Box::new(ByteDiff { compression: Compression::Zstd(3) }),
        "PD-Z6" => Box::new(PredictionDiff { compression: Compression::Zlib(6) }),
        "fiedler" => Box::new(Fiedler),
        "netschema" => Box::new(Netschema),
        _ => return None,
    })
}

/// Every technique, in table order (`fiedler` refuses schemas other than the cubes').
pub fn all() -> Vec<Box<dyn Technique>> {
    NAMES.iter().filter_map(|n| by_name(n)).collect()
}
