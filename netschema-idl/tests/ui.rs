//! Golden-file tests of the diagnostics: every `tests/ui/*.netidl` must fail to compile, or
//! compile with warnings, with exactly the rendered output in the `.stderr` file next to it.
//! Files under `tests/ui/imports/` are only reached through imports.
//!
//! Run with `NETSCHEMA_BLESS=1` to (re)write the `.stderr` files from the current output.

use std::fs;
use std::path::{Path, PathBuf};

fn cases() -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = fs::read_dir("tests/ui")
        .expect("tests/ui exists")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "netidl"))
        .collect();
    cases.sort();
    cases
}

/// The rendered errors or warnings, with path separators made `/` so the files match on every
/// platform.
fn render(case: &Path) -> String {
    let text = match netschema_idl::load(case) {
        Ok(loaded) if loaded.warnings.is_empty() => String::from(NOTHING),
        Ok(loaded) => loaded.warnings.to_string(),
        Err(err) => err.to_string(),
    };
    text.replace('\\', "/")
}

/// The output of a case without errors or warnings.
const NOTHING: &str = "(compiled without errors or warnings)\n";

#[test]
fn ui() {
    let bless = std::env::var_os("NETSCHEMA_BLESS").is_some_and(|v| v != "0");
    let cases = cases();
    assert!(cases.len() >= 25, "expected at least 25 golden cases, found {}", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let actual = render(case);
        let expected_path = case.with_extension("stderr");
        if bless {
            fs::write(&expected_path, &actual).expect("write .stderr");
            continue;
        }
        let expected = fs::read_to_string(&expected_path).unwrap_or_default().replace("\r\n", "\n");
        if actual != expected {
            failures.push(format!(
                "--- {} (expected)\n{expected}\n+++ actual\n{actual}",
                expected_path.display()
            ));
        }
        if actual == NOTHING {
            failures.push(format!("{}: a ui case must have errors or warnings", case.display()));
        }
    }
    // No stale expectations.
    for entry in fs::read_dir("tests/ui").expect("tests/ui exists") {
        let path = entry.expect("readable directory entry").path();
        if path.extension().is_some_and(|e| e == "stderr")
            && !path.with_extension("netidl").exists()
        {
            failures.push(format!("{}: no matching .netidl", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} ui mismatch(es); run with NETSCHEMA_BLESS=1 to accept:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}
