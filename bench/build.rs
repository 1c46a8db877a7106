//! Compiles the scenarios' schemas (`schemas/*.netidl`) into `$OUT_DIR/<scenario>.rs`, with
//! `f64` fields since the simulations compute in double precision.

use netschema_idl::codegen::Float;

fn main() -> Result<(), netschema_idl::Error> {
    netschema_idl::Config::new().float(Float::F64).compile(&[
        "schemas/particles.netidl",
        "schemas/cubes.netidl",
        "schemas/rts.netidl",
        "schemas/arena.netidl",
        "schemas/waypoints.netidl",
        "schemas/waypoints_timeline.netidl",
    ])
}
