//! The list of techniques, by name.

use super::Technique;
use super::bytes::{Bitcode, ByteDiff, Compression, PredictionDiff};
use super::fiedler::Fiedler;
use super::n4e::N4e;
use super::naia::Naia;
use super::netschema::Netschema;
use super::q3::Quake3;

/// Names of every technique, in table order.
pub const NAMES: [&str; 11] = [
    "BC",
    "BD-Z6",
    "BD-Z9",
    "BD-zstd",
    "PD-Z6",
    "fiedler",
    "N4E",
    "Q3",
    "naia",
    "naia-zd",
    "netschema",
];

/// One line on each technique of [`NAMES`], in the same order: what it sends and its source.
pub const LEGEND: [(&str, &str); 11] = [
    ("BC", "bitcode of every quantised snapshot, whole (no delta)"),
    ("BD-Z6", "bytes XOR the acked baseline's, then zlib level 6 (Orsten 2011 \"BD Z6\")"),
    ("BD-Z9", "the same, zlib level 9"),
    ("BD-zstd", "the same, zstd level 3"),
    ("PD-Z6", "prediction residuals as plain integers, then zlib level 6 (Orsten 2011)"),
    ("fiedler", "Fiedler's (2015) bit-packing: the cube demo's own layout, generalised elsewhere"),
    (
        "N4E",
        "Unity Netcode for Entities 1.x: change masks, 3-baseline extrapolation, Huffman buckets",
    ),
    (
        "Q3",
        "Quake III Arena: changed fields against the acked frame, bytes Huffman-coded (trained)",
    ),
    ("naia", "naia 0.25: per-field dirty masks, changed fields whole at their quantised width"),
    ("naia-zd", "naia 0.25 with zstd level 3 and a dictionary trained offline"),
    ("netschema", "this library: learned prediction and adaptive range coding"),
];

/// The techniques of [`NAMES`] whose static tables are trained offline on
/// [`Setup::training`](super::Setup::training) snapshots.
pub const TRAINED: [&str; 2] = ["Q3", "naia-zd"];

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
        "N4E" => Box::new(N4e),
        "Q3" => Box::new(Quake3),
        "naia" => Box::new(Naia { compressed: false }),
        "naia-zd" => Box::new(Naia { compressed: true }),
        "netschema" => Box::new(Netschema::default()),
        _ => return None,
    })
}

/// Every technique, in table order.
pub fn all() -> Vec<Box<dyn Technique>> {
    NAMES.iter().filter_map(|n| by_name(n)).collect()
}
