//! Compile-fail tests of `#[derive(Snapshot)]`, `#[derive(SnapshotStruct)]`, `#[derive(SnapshotEnum)]`, `#[derive(Event)]` and
//! `#[derive(Protocol)]`: every mistake is reported at the offending tokens; the cases in
//! `tests/ui/pass` compile and run. `TRYBUILD=overwrite cargo test --test ui` rewrites the
//! expected `tests/ui/*.stderr` (the messages are those of the pinned toolchain).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
