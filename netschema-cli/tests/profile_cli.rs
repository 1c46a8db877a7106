//! `netschema profile` on a tiny schema and trace (`tests/profile/`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn data(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/profile").join(file)
}

fn netschema(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_netschema")).args(args).output().expect("runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn profiles_a_trace() {
    let json = Path::new(env!("CARGO_TARGET_TMPDIR")).join("profile-cli/dots.json");
    let (schema, trace) = (data("dots.netidl"), data("dots.jsonl"));
    let out = netschema(&[
        "profile",
        "--schema",
        schema.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
        "--latency",
        "2",
        "--loss",
        "10%",
        "--client",
        "1",
        "--train",
        trace.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("profiling 60 frames seen by client `1` (of 2)"), "{stderr}");
    assert!(stdout.contains("dots: 60 frames at 30 Hz, latency 2 frames, loss 10.0 %"), "{stdout}");
    for technique in ["BC", "BD-Z6", "BD-Z9", "BD-zstd", "PD-Z6", "fiedler", "N4E", "Q3", "naia"] {
        let row = format!("{technique} ");
        assert!(stdout.lines().any(|l| l.starts_with(&row) && l.ends_with("yes")), "{stdout}");
    }
    assert!(stdout.lines().any(|l| l.starts_with("naia-zd ") && l.ends_with("yes")), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("netschema ") && l.ends_with("yes")), "{stdout}");
    assert!(stdout.contains("netschema / best other technique ("), "{stdout}");
    assert!(stdout.contains("per field (netschema"), "{stdout}");
    for row in ["Dot.pos.x", "Dot.pos.y", "Dot.mood", "Dot.spin.largest", "Dot.spin.c2", "Dot.hp"] {
        assert!(stdout.lines().any(|l| l.starts_with(row)), "{row}: {stdout}");
    }
    assert!(stdout.lines().any(|l| l.starts_with("Dot.hp") && l.contains(" hold ")), "{stdout}");
    assert!(stdout.contains("transition model"), "{stdout}");
    // Brand's break-even beside the fitted keyframe rate, per field.
    assert!(stdout.contains("keyframes (Brand 2019, §4.5.1"), "{stdout}");
    let pos = stdout.lines().filter(|l| l.starts_with("Dot.pos.x")).nth(1).unwrap_or_default();
    assert!(pos.contains("cheaper") || pos.contains("dearer"), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("(structure)")), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("total")), "{stdout}");
    let json = std::fs::read_to_string(json).unwrap();
    assert!(json.contains("\"scenario\": \"dots\""), "{json}");
    assert!(json.contains("\"fields\": {"), "{json}");
}

#[test]
fn profiles_every_client() {
    let (schema, trace) = (data("dots.netidl"), data("dots.jsonl"));
    let (schema, trace) = (schema.to_str().unwrap(), trace.to_str().unwrap());
    let out = netschema(&["profile", "--schema", schema, "--trace", trace, "--all-clients"]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for client in ["0", "1"] {
        let title = format!("dots (client {client}): 60 frames at 30 Hz");
        assert!(stdout.contains(&title), "{stdout}");
    }
    assert_eq!(stdout.matches("per field (netschema").count(), 2, "{stdout}");
    let out = netschema(&[
        "profile",
        "--schema",
        schema,
        "--trace",
        trace,
        "--all-clients",
        "--client",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn reads_gzip_compressed_traces() {
    use std::io::Write as _;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("profile-cli");
    std::fs::create_dir_all(&dir).unwrap();
    let gz = dir.join("dots.jsonl.gz");
    let mut encoder =
        flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), Default::default());
    encoder.write_all(&std::fs::read(data("dots.jsonl")).unwrap()).unwrap();
    encoder.finish().unwrap();
    let schema = data("dots.netidl");
    let plain = netschema(&[
        "profile",
        "--schema",
        schema.to_str().unwrap(),
        "--trace",
        data("dots.jsonl").to_str().unwrap(),
    ]);
    let packed = netschema(&[
        "profile",
        "--schema",
        schema.to_str().unwrap(),
        "--trace",
        gz.to_str().unwrap(),
    ]);
    assert!(packed.status.success(), "{}", text(&packed.stderr));
    assert!(text(&packed.stderr).contains("read 60 frames"), "{}", text(&packed.stderr));
    // The same frames give the same bytes per frame (the timing columns differ).
    let sizes = |out: &Output| -> Vec<String> {
        text(&out.stdout)
            .lines()
            .filter(|l| (l.starts_with("netschema ") || l.starts_with("BC ")) && l.ends_with("yes"))
            .map(|l| l.split_whitespace().take(4).collect::<Vec<_>>().join(" "))
            .collect()
    };
    assert_eq!(sizes(&packed), sizes(&plain));
    assert_eq!(sizes(&plain).len(), 2, "{}", text(&plain.stdout));
}

#[test]
fn reports_bad_traces_by_line() {
    let bad = Path::new(env!("CARGO_TARGET_TMPDIR")).join("profile-cli/bad.jsonl");
    std::fs::create_dir_all(bad.parent().unwrap()).unwrap();
    std::fs::write(&bad, "{\"entities\": []}\n{\"entities\": [{\"id\": 1, \"class\": \"Dog\"}]}\n")
        .unwrap();
    let schema = data("dots.netidl");
    let out = netschema(&[
        "profile",
        "--schema",
        schema.to_str().unwrap(),
        "--trace",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("bad.jsonl: line 2: unknown class `Dog`"),
        "{}",
        text(&out.stderr)
    );

    let out = netschema(&["profile", "--schema", schema.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--trace <FILE.jsonl>"), "{}", text(&out.stderr));
    let out = netschema(&["profile", "--trace", "x", "--schema", "y", "--loss", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("'--loss <P>'"), "{}", text(&out.stderr));
}

#[test]
fn a_budget_and_tolerances_show_what_the_client_holds() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("profile-cli/tolerant");
    std::fs::create_dir_all(&dir).unwrap();
    let schema = dir.join("dots.netidl");
    let source = std::fs::read_to_string(data("dots.netidl")).unwrap();
    let tolerant = source.replace("predict(hold);", "predict(hold) tolerance(3);");
    assert_ne!(tolerant, source);
    std::fs::write(&schema, tolerant).unwrap();
    let out = netschema(&[
        "profile",
        "--schema",
        schema.to_str().unwrap(),
        "--trace",
        data("dots.jsonl").to_str().unwrap(),
        "--technique",
        "netschema",
        "--budget",
        "40",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.lines().any(|l| l.starts_with("netschema ") && l.ends_with("yes")), "{stdout}");
    assert!(stdout.contains("netschema: what the client holds"), "{stdout}");
    assert!(stdout.contains("staleness_mean staleness_p99 error_mean error_max"), "{stdout}");
    let header = stdout.lines().find(|l| l.starts_with("field ")).unwrap();
    assert!(header.contains(" tolerance "), "{stdout}");
    let hp = stdout.lines().find(|l| l.starts_with("Dot.hp ")).unwrap();
    assert!(hp.contains(" 3  hold"), "{stdout}");

    let out = netschema(&["profile", "--schema", "s", "--trace", "t", "--budget", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("bad budget `0`"), "{}", text(&out.stderr));
}

/// `netschema train` writes a prior from a trace; `profile --prior` starts netschema from it
/// (fewer bytes over the first frames than cold), for the policy it was trained for only.
#[test]
fn a_trained_prior_starts_netschema_warm() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("profile-cli");
    std::fs::create_dir_all(&dir).unwrap();
    let (schema, trace) = (data("dots.netidl"), data("dots.jsonl"));
    let (schema, trace) = (schema.to_str().unwrap(), trace.to_str().unwrap());
    for policy in ["per-frame", "batched:4:4"] {
        let prior = dir.join(format!("dots-{policy}.prior"));
        let prior = prior.to_str().unwrap();
        let out = netschema(&[
            "train", "--schema", schema, "--trace", trace, "--policy", policy, "-o", prior,
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains(&format!("models {policy}")), "{}", text(&out.stderr));
        let start = |prior: Option<&str>| {
            let mut args = vec!["profile", "--schema", schema, "--trace", trace];
            args.extend(["--technique", "netschema", "--policy", policy]);
            args.extend(prior.map(|p| ["--prior", p]).into_iter().flatten());
            let out = netschema(&args);
            let stdout = text(&out.stdout);
            assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
            let row = stdout.lines().find(|l| l.starts_with("netschema ")).unwrap().to_owned();
            let columns: Vec<&str> = row.split_whitespace().collect();
            assert_eq!(columns.last(), Some(&"yes"), "{row}");
            columns[columns.len() - 3].parse::<usize>().unwrap()
        };
        let (cold, warm) = (start(None), start(Some(prior)));
        assert!(warm < cold, "{policy}: {warm} bytes from the prior, {cold} cold");
    }
    let prior = dir.join("dots-per-frame.prior");
    let args = ["--technique", "netschema", "--policy", "batched", "--prior"];
    let mut all = vec!["profile", "--schema", schema, "--trace", trace];
    all.extend(args);
    all.push(prior.to_str().unwrap());
    let out = netschema(&all);
    assert!(!out.status.success(), "a prior for another policy is refused");
}

#[test]
fn profiles_a_trace_with_references() {
    let (schema, trace) = (data("ships.netidl"), data("ships.jsonl"));
    let args = ["profile", "--schema", schema.to_str().unwrap(), "--trace"];
    let out = netschema(&[&args[..], &[trace.to_str().unwrap(), "--client", "a"]].concat());
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // Every technique replays the ships' references (the others as id fields) and verifies.
    for technique in ["BC", "fiedler", "N4E", "Q3", "naia", "netschema"] {
        let row = format!("{technique} ");
        assert!(stdout.lines().any(|l| l.starts_with(&row) && l.ends_with("yes")), "{stdout}");
    }
    // Each reference has a row of its own, predicted as held.
    let target = stdout.lines().find(|l| l.starts_with("Ship.target ")).unwrap_or_default();
    assert!(target.contains("hold 100%"), "{stdout}");
}
