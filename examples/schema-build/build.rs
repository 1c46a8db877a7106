//! Compiles `schema/game.netidl` (and its imports) into `$OUT_DIR/game.rs`.

fn main() -> Result<(), netschema_idl::Error> {
    netschema_idl::Config::new().compile(&["schema/game.netidl"])
}
