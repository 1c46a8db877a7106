//! The command line's conventions: `--help` and `--version` everywhere, exit codes (0 ok,
//! 1 findings, 2 usage), errors that name the bad argument, completions, `check
//! --deny-warnings` and `fmt --check`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn netschema(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_netschema")).args(args).output().expect("runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A scratch file `name` holding `contents`.
fn scratch(name: &str, contents: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

const COMMANDS: [&str; 6] = ["check", "fmt", "gen", "inspect", "profile", "completions"];

#[test]
fn every_command_has_help_and_version() {
    for command in COMMANDS {
        let out = netschema(&[command, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{command} --help");
        assert!(text(&out.stdout).contains("Usage: netschema"), "{command}: {}", text(&out.stdout));
        let out = netschema(&[command, "--version"]);
        assert_eq!(out.status.code(), Some(0), "{command} --version");
        assert_eq!(
            text(&out.stdout).trim(),
            format!("netschema-{command} {}", env!("CARGO_PKG_VERSION"))
        );
    }
    let out = netschema(&["--help"]);
    for command in COMMANDS {
        assert!(text(&out.stdout).contains(command), "{}", text(&out.stdout));
    }
    assert!(text(&out.stdout).contains("Exit status"), "{}", text(&out.stdout));
    let out = netschema(&["profile", "--help"]);
    assert!(text(&out.stdout).contains("bytes_mean"), "the columns: {}", text(&out.stdout));
}

#[test]
fn usage_errors_exit_with_2_and_name_the_argument() {
    let out = netschema(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("'frobnicate'"), "{}", text(&out.stderr));
    let out = netschema(&["check", "--colour", "x.netidl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("'--colour'"), "{}", text(&out.stderr));
    let out = netschema(&["profile", "--schema", "s", "--trace", "t", "--latency", "99"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("'--latency <F>'"), "{}", text(&out.stderr));
    let out = netschema(&["profile", "--schema", "s", "--trace", "t", "--technique", "gzip"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("BD-Z6"), "lists the techniques: {}", text(&out.stderr));
    let out = netschema(&["gen", "x.netidl", "-o", "-", "--crate", "not a path"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("'--crate <PATH>'"), "{}", text(&out.stderr));
    assert_eq!(netschema(&["check"]).status.code(), Some(2));
}

#[test]
fn completions_on_request() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = netschema(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        assert!(text(&out.stdout).contains("deny-warnings"), "{shell}");
    }
    assert_eq!(netschema(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn check_reports_errors_and_warnings() {
    let good = scratch("good.netidl", "class A { x: fixed(0, 1, bits = 8); }\n");
    let warned = scratch("warned.netidl", "class A { x: fixed(-1, 1, bits = 8); }\n");
    let bad = scratch("bad.netidl", "clas A { x: fixd(0, 1, bits = 8); }\n");
    let out = netschema(&["check", good.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("ok (0 enums, 1 classes, 1 scalar fields)"));

    let out = netschema(&["check", warned.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("1 scalar fields, 1 warning)"), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("warning: zero is not exactly representable"));
    let out = netschema(&["check", "--deny-warnings", warned.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let out = netschema(&["inspect", "--deny-warnings", warned.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("class A"), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("`res = 1/127` has as many bits"));

    let out = netschema(&["check", good.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("did you mean `class`?") && stderr.contains("did you mean `fixed`?"));
    assert!(stderr.contains("aborting due to 2 previous errors"), "{stderr}");
    let out = netschema(&["check", "missing.netidl"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("cannot read schema file `missing.netidl`"));
}

#[test]
fn fmt_rewrites_or_checks() {
    let messy =
        "enum Mood{calm,angry,}\nclass A{ // the only class\n  x:fixed( 0,1,bits=8 );m:Mood;}\n";
    let tidy = "enum Mood { calm, angry }\n\nclass A { // the only class\n    x: fixed(0, 1, bits = 8);\n    m: Mood;\n}\n";
    let path = scratch("messy.netidl", messy);
    let out = netschema(&["fmt", "--check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let diff = text(&out.stdout);
    assert!(diff.contains("\n-enum Mood{calm,angry,}\n"), "{diff}");
    assert!(diff.contains("\n+enum Mood { calm, angry }\n"), "{diff}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), messy, "--check changes nothing");

    let out = netschema(&["fmt", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), tidy);
    let out = netschema(&["fmt", "--check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "");

    let broken = scratch("broken.netidl", "class A { x: int(0, 1) }\n");
    let out = netschema(&["fmt", broken.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("expected `;`"), "{}", text(&out.stderr));
}

#[test]
fn inspect_shows_tolerances_and_groups() {
    let schema = "class U(priority = 3) {\n    group slow(every = 4);\n    hp: int(0, 100) tolerance(2) group(slow);\n    x: angle(bits = 8) tolerance(0.05);\n}\n";
    let path = scratch("groups.netidl", schema);
    let out = netschema(&["inspect", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(
            "update groups: default (every 1 frame, priority 3), slow (every 4 frames, priority 1)"
        ),
        "{stdout}"
    );
    // The cells of the row of `field`, one space apart.
    let row = |field: &str| {
        let line = stdout.lines().find(|l| l.trim_start().starts_with(field)).unwrap();
        line.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    assert!(row("hp ").ends_with("2 (2 steps) slow"), "{stdout}");
    // 0.05 rad is 2 steps of 2π/256.
    assert!(row("x ").ends_with("4.908739e-2 rad (2 steps) -"), "{stdout}");
}

#[test]
fn inputs_are_checked_inspected_and_formatted() {
    let messy =
        "class Ship{x:int(0,9);}\ninput Move{ dir:vec2<fixed(-1,1,res=1/127)>;\n  fire:bool;}\n";
    let tidy = "class Ship {\n    x: int(0, 9);\n}\n\ninput Move {\n    dir: vec2<fixed(-1, 1, res = 1/127)>;\n    fire: bool;\n}\n";
    let path = scratch("inputs.netidl", messy);
    let out = netschema(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("ok (0 enums, 1 classes, 1 scalar fields, 1 inputs)"));

    let out = netschema(&["inspect", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let header = stdout.lines().find(|l| l.starts_with("input Move")).expect(&stdout);
    assert!(header.starts_with("input Move (3 scalar fields), input schema hash 0x"), "{stdout}");
    assert!(stdout.contains("  17 bits per input written plainly"), "{stdout}");
    let fire = stdout.lines().find(|l| l.trim_start().starts_with("fire ")).expect(&stdout);
    assert!(fire.contains("transition model"), "{stdout}");

    let out = netschema(&["fmt", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), tidy);

    let inputs_only = scratch("moves.netidl", "input Move { fire: bool; }\n");
    let out = netschema(&["inspect", inputs_only.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("schema `moves`, no classes"), "{}", text(&out.stdout));

    let bad = scratch("empty_input.netidl", "input Move {}\n");
    let out = netschema(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("input `Move` has no fields"), "{}", text(&out.stderr));
}

/// `inspect` prints the hashes generated code computes: the state schema's and each input
/// schema's, as the handshake compares them (`tests/input_equivalence.rs` pins the same).
#[test]
fn inspect_prints_the_hashes_generated_code_has() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/schemas/inputs.netidl");
    let out = netschema(&["inspect", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("input Act (15 scalar fields), input schema hash 0xd4d3d57d11b94bfb"));
}
