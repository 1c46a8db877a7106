//! The netschema schema compiler: the `.netidl` language, validation and Rust code generation.
