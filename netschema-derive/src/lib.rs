//! `#[derive(Snapshot)]` for netschema.
