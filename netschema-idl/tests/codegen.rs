//! Golden tests of the code generator: `tests/codegen/<name>.netidl` → `<name>.rs`.
//!
//! `NETSCHEMA_BLESS=1 cargo test -p netschema-idl --test codegen` rewrites the expected files.

use std::path::Path;

use netschema_idl::codegen::{self, Options};

fn check(name: &str, options: &Options) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/codegen");
    let loaded = netschema_idl::load(dir.join(format!("{name}.netidl"))).unwrap();
    let got = codegen::generate_file(&loaded.schema, options);
    let golden = dir.join(format!("{name}.rs"));
    if std::env::var_os("NETSCHEMA_BLESS").is_some() {
        std::fs::write(&golden, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&golden).unwrap_or_default();
    assert!(
        got == want,
        "generated code for `{name}` differs from {}; rerun with NETSCHEMA_BLESS=1 to update.\n\n{got}",
        golden.display()
    );
}

#[test]
fn small_schema() {
    check("small", &Options::new());
}

#[test]
fn crate_path_is_used_everywhere() {
    let path = Options::parse_crate_path("crate::net").unwrap();
    let schema =
        netschema_idl::parse_str("t.netidl", "enum E { a } class C { e: E; x: int(0, 1); }")
            .unwrap();
    let text = codegen::generate_file(&schema, &Options::new().crate_path(path));
    assert!(!text.contains("netschema::"), "{text}");
    assert!(text.contains("crate::net::schema::Field::numeric"), "{text}");
    assert!(text.starts_with(codegen::HEADER));
    assert!(!text.contains("#!["), "generated files have no inner attributes");
}

/// A prior given to the generator (`Options::prior`, `Config::prior`) is embedded after the
/// schema's policy, so `SCHEMA` starts every connection from it.
#[test]
fn a_prior_is_embedded() {
    let schema = netschema_idl::parse_str(
        "warm.netidl",
        "models batched(batch = 4, kept = 2);\nclass A { x: int(0, 9); }",
    )
    .unwrap();
    let text = codegen::generate_file(&schema, &Options::new().prior("/priors/warm.prior"));
    let flat: String = text.split_whitespace().collect();
    assert!(
        flat.contains(
            ".with_policy(::netschema::model::ModelPolicy::Batched{batch:4,kept:2,})\
             .with_prior(include_bytes!(\"/priors/warm.prior\"));"
        ),
        "{text}"
    );
}

#[test]
fn references() {
    check("refs", &Options::new());
}

#[test]
fn inputs() {
    check("inputs", &Options::new());
}

#[test]
fn events() {
    check("events", &Options::new());
}

#[test]
fn lists() {
    check("lists", &Options::new());
}
