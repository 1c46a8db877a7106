//! Checked-in generated code: each test schema's `tests/generated/` file must be what the
//! compiler generates from `tests/schemas/` today (`NETSCHEMA_BLESS=1` rewrites it).

use std::path::Path;

use netschema_idl::Diagnostics;

/// Asserts that `tests/generated/{name}.rs` is the code generated from
/// `tests/schemas/{name}.netidl`, rewriting it first when `NETSCHEMA_BLESS` is set; returns
/// the schema's precision warnings.
pub(crate) fn assert_generated_is_current(name: &str) -> Diagnostics {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let loaded = netschema_idl::load(root.join(format!("schemas/{name}.netidl"))).unwrap();
    let options = netschema_idl::codegen::Options::new();
    let text = netschema_idl::codegen::generate_file(&loaded.schema, &options);
    let path = root.join(format!("generated/{name}.rs"));
    if std::env::var_os("NETSCHEMA_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap();
    assert!(committed == text, "tests/generated/{name}.rs is stale: rerun with NETSCHEMA_BLESS=1");
    loaded.warnings
}
