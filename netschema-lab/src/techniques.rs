//! The list of techniques, by name.

use super::Technique;
use super::bytes::{Bitcode, ByteDiff, Compression, PredictionDiff};
use super::fiedler::Fiedler;
use super::netschema::Netschema;

/// Names of every technique, in table order.
pub const NAMES: [&str; 7] = ["BC", "BD-Z6", "BD-Z9", "BD-zstd", "PD-Z6", "fiedler", "netschema"];

/// One line on each technique of [`NAMES`], in the same order: what it sends and its source.
pub const LEGEND: [(&str, &str); 7] = [
    ("BC", "bitcode of every quantised snapshot, whole (no delta)"),
    ("BD-Z6", "bytes XOR the acked baseline's, then zlib level 6 (Orsten 2011 \"BD Z6\")"),
    ("BD-Z9", "the same, zlib level 9"),
    ("BD-zstd", "the same, zstd level 3"),
    ("PD-Z6", "prediction residuals as plain integers, then zlib level 6 (Orsten 2011)"),
    ("fiedler", "Fiedler's (2015) hand bit-packing of the cube demo (the cubes schema only)"),
    ("netschema", "this library: learned prediction and adaptive range coding"),
];

/// [`LEGEND`] as indented lines, for `--help` texts.
pub fn legend() -> String {
    LEGEND.iter().map(|(name, what)| format!("  {name:<10} {what}\n")).collect()
}

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
