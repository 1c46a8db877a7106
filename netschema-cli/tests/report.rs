//! `netschema profile --report`: the page renders in headless Chromium with every section, no
//! console error, and the shape its data gives it.
//!
//! Chromium is found as `$CHROMIUM` or `chromium` on the `PATH`. Without it the test says why
//! and passes, unless `NETSCHEMA_REQUIRE_CHROMIUM` is set (CI sets it after installing
//! Chromium). `NETSCHEMA_REPORT_FILE=page.html` checks that page too (CI's report of a
//! recorded benchmark trace).

use std::path::{Path, PathBuf};
use std::process::Command;

use netschema_lab::html::{self, PARAMETERS, SECTIONS};

fn data(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/profile").join(file)
}

/// The Chromium to run, or why there is none.
fn chromium() -> Result<PathBuf, String> {
    let path =
        std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("chromium"), PathBuf::from);
    match Command::new(&path).arg("--version").output() {
        Ok(out) if out.status.success() => Ok(path),
        Ok(out) => Err(format!("`{} --version` failed: {:?}", path.display(), out.status)),
        Err(e) => Err(format!("cannot run `{}`: {e}", path.display())),
    }
}

/// What headless Chromium makes of `page`: the DOM after loading, and the console's errors.
fn render(chromium: &Path, page: &Path) -> (String, Vec<String>) {
    let profile = tempdir("chromium-profile");
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.canonicalize().expect("page exists").display()))
        .output()
        .expect("chromium runs");
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    // Console messages are logged as `…:CONSOLE(line)] "message", source: … (line)`; content
    // security policy violations (a fetch the page must not make) among them.
    let errors = log
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Content Security Policy"))
        .map(str::to_owned)
        .collect();
    (String::from_utf8_lossy(&out.stdout).into_owned(), errors)
}

fn tempdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Asserts that `page` renders with every section and without console errors, and that the
/// browser's DOM has the shape the data gives it (technique table rows, predictor legend).
fn check(chromium: &Path, page: &Path) {
    let (dom, errors) = render(chromium, page);
    assert!(errors.is_empty(), "{}: console errors:\n{}", page.display(), errors.join("\n"));
    for section in SECTIONS.iter().chain([&PARAMETERS]) {
        assert!(
            dom.contains(&format!("<section class=\"{section}\">")),
            "{}: {section}",
            page.display()
        );
    }
    assert!(dom.contains("<svg"), "{}: charts", page.display());
    let flaws = html::flaws(&dom);
    assert!(flaws.is_empty(), "{}: {}", page.display(), flaws.join("\n"));
}

#[test]
fn the_report_renders_without_console_errors() {
    let chromium = match chromium() {
        Ok(path) => path,
        Err(why) if std::env::var_os("NETSCHEMA_REQUIRE_CHROMIUM").is_none() => {
            eprintln!("skipped: no headless Chromium ({why})");
            return;
        }
        Err(why) => panic!("NETSCHEMA_REQUIRE_CHROMIUM is set, but {why}"),
    };
    let dir = tempdir("pages");
    let page = dir.join("dots.html");
    let out = Command::new(env!("CARGO_BIN_EXE_netschema"))
        .args(["profile", "--latency", "2", "--client", "1", "--schema"])
        .arg(data("dots.netidl"))
        .arg("--trace")
        .arg(data("dots.jsonl"))
        .arg("--report")
        .arg(&page)
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    check(&chromium, &page);

    // The check sees a page that tries to load something.
    let text = std::fs::read_to_string(&page).unwrap();
    let bad = dir.join("fetches.html");
    std::fs::write(&bad, text.replace("</h1>", "</h1><img src=\"blocked.png\">")).unwrap();
    let (_, errors) = render(&chromium, &bad);
    assert!(!errors.is_empty(), "a blocked fetch is a console error");
    // It sees a row short of a cell in the browser's DOM too.
    let short = dir.join("short.html");
    std::fs::write(&short, text.replacen("<td>yes</td>", "", 1)).unwrap();
    let (dom, _) = render(&chromium, &short);
    assert_eq!(html::flaws(&dom).len(), 1, "{:?}", html::flaws(&dom));

    if let Some(other) = std::env::var_os("NETSCHEMA_REPORT_FILE") {
        check(&chromium, Path::new(&other));
    }
}
