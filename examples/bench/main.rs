//! Compares netschema with the obvious alternatives on three deterministic, seeded scenarios.
//!
//! ```text
//! cargo run --release --example bench                          # everything, defaults
//! cargo run --release --example bench -- --scenario cubes --frames 1200 --latency 6 --loss 5%
//! cargo run --release --example bench -- --json target/bench.json --plot target/bench.svg
//! ```
//!
//! Options: `--scenario particles|cubes|rts|all` (default all), `--frames N` (default 1200,
//! twenty seconds at 60 Hz), `--latency F` one-way latency in frames (default 6), `--loss P` loss
//! probability of every datagram, packets and acks alike, as `0.05` or `5%` (default 5 %),
//! `--technique NAME` (repeatable; default all), `--seed S`, `--json FILE`, `--plot FILE`
//! (SVG; default `target/bench.svg`).
//!
//! Each scenario records its quantised snapshots once (what one client sees each frame), then
//! every technique of `netschema_idl::compare` replays them over the same simulated link; each
//! decoded frame is checked against its input. The schemas are `examples/bench/schemas/*.netidl`;
//! until the code generator lands the runtime descriptors are written by hand next to each
//! scenario, and the bench checks them at start-up against the flattening of the `.netidl` files.

mod cubes;
mod particles;
mod rts;

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use netschema_idl::ScalarKind;
use netschema_idl::compare::report::{self, ScenarioReport};
use netschema_idl::compare::{self, RunConfig, Setup, Snapshot, techniques};
use netschema_runtime::schema::{Coding, Schema};

/// The snapshots one client sees during a scenario.
pub(crate) struct Recording {
    /// Scenario name.
    pub(crate) name: &'static str,
    /// Frames per second.
    pub(crate) rate_hz: f64,
    /// The schema.
    pub(crate) schema: &'static Schema,
    /// Most entities in any snapshot.
    pub(crate) capacity: usize,
    /// One snapshot per frame.
    pub(crate) snapshots: Vec<Snapshot>,
}

/// Command-line options.
struct Options {
    scenarios: Vec<String>,
    frames: usize,
    latency: u32,
    loss: f64,
    seed: u64,
    techniques: Vec<String>,
    json: Option<PathBuf>,
    plot: Option<PathBuf>,
}

const USAGE: &str = "usage: bench [--scenario particles|cubes|rts|all] [--frames N] [--latency F] \
                     [--loss P] [--technique NAME]... [--seed S] [--json FILE] [--plot FILE]";

fn parse_loss(s: &str) -> Option<f64> {
    let v = match s.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().ok()? / 100.0,
        None => s.parse::<f64>().ok()?,
    };
    (0.0..1.0).contains(&v).then_some(v)
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        scenarios: vec!["particles".into(), "cubes".into(), "rts".into()],
        frames: 1200,
        latency: 6,
        loss: 0.05,
        seed: 1,
        techniques: techniques::NAMES.iter().map(|s| s.to_string()).collect(),
        json: None,
        plot: Some(PathBuf::from("target/bench.svg")),
    };
    let mut chosen_techniques = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |what: &str| args.next().ok_or_else(|| format!("{arg} needs {what}"));
        match arg.as_str() {
            "--scenario" => {
                let v = value("a scenario")?;
                o.scenarios = match v.as_str() {
                    "all" => o.scenarios.clone(),
                    "particles" | "cubes" | "rts" => vec![v],
                    _ => return Err(format!("unknown scenario `{v}`")),
                };
            }
            "--frames" => {
                let v = value("a number")?;
                o.frames = v.parse().map_err(|_| format!("bad frame count `{v}`"))?;
                if o.frames < 2 {
                    return Err("--frames must be at least 2".into());
                }
            }
            "--latency" => {
                let v = value("a number of frames")?;
                o.latency = v.parse().map_err(|_| format!("bad latency `{v}`"))?;
                if o.latency > 15 {
                    return Err("--latency must be at most 15 frames (acks cover 32 frames)".into());
                }
            }
            "--loss" => {
                let v = value("a probability")?;
                o.loss = parse_loss(&v).ok_or_else(|| format!("bad loss `{v}` (0.05 or 5%)"))?;
            }
            "--seed" => {
                let v = value("a number")?;
                o.seed = v.parse().map_err(|_| format!("bad seed `{v}`"))?;
            }
            "--technique" => {
                let v = value("a technique name")?;
                if !techniques::NAMES.contains(&v.as_str()) {
                    return Err(format!(
                        "unknown technique `{v}` (one of {:?})",
                        techniques::NAMES
                    ));
                }
                chosen_techniques.push(v);
            }
            "--json" => o.json = Some(PathBuf::from(value("a file")?)),
            "--plot" => o.plot = Some(PathBuf::from(value("a file")?)),
            "-h" | "--help" => return Err(String::new()),
            _ => return Err(format!("unknown argument `{arg}`")),
        }
    }
    if !chosen_techniques.is_empty() {
        o.techniques = chosen_techniques;
    }
    Ok(o)
}

/// Checks hand-written descriptors against the `.netidl` file they stand for: same scalar
/// paths, number of raw values, wrapping and coding.
fn check_schema(file: &str, text: &str, schema: &Schema) -> Result<(), String> {
    let ir = netschema_idl::parse_str(file, text).map_err(|e| e.to_string())?;
    if ir.classes.len() != schema.classes.len() {
        return Err(format!(
            "{file}: {} classes in the file, {} by hand",
            ir.classes.len(),
            schema.classes.len()
        ));
    }
    for (class, hand) in ir.classes.iter().zip(schema.classes) {
        let scalars = ir.flatten(class);
        let paths: Vec<String> = scalars.iter().map(|s| s.path.clone()).collect();
        let hand_paths: Vec<&str> = hand.fields.iter().map(|f| f.name).collect();
        if paths != hand_paths {
            return Err(format!(
                "{file}: class {} flattens to {paths:?}, by hand {hand_paths:?}",
                hand.name
            ));
        }
        for (s, f) in scalars.iter().zip(hand.fields) {
            let numeric = !s.kind.is_transition_coded();
            if numeric != matches!(f.coding, Coding::Numeric(_)) {
                return Err(format!("{file}: {} coded differently by hand", f.name));
            }
            if s.kind.cardinality() != Some(f.span()) {
                return Err(format!(
                    "{file}: {} has {:?} values, by hand {}",
                    f.name,
                    s.kind.cardinality(),
                    f.span()
                ));
            }
            if matches!(s.kind, ScalarKind::Angle { .. }) != f.wraps {
                return Err(format!("{file}: {} wraps differently by hand", f.name));
            }
        }
    }
    Ok(())
}

fn record(name: &str, frames: usize, seed: u64) -> Result<Recording, String> {
    let t = Instant::now();
    eprint!("{name}: simulating {frames} frames...");
    let rec = match name {
        "particles" => {
            check_schema("particles.netidl", particles::NETIDL, &particles::SCHEMA)?;
            particles::record(frames, seed)
        }
        "cubes" => {
            check_schema("cubes.netidl", cubes::NETIDL, &cubes::SCHEMA)?;
            cubes::record(frames, seed)
        }
        "rts" => {
            check_schema("rts.netidl", rts::NETIDL, &rts::SCHEMA)?;
            rts::record(frames, seed)
        }
        _ => return Err(format!("unknown scenario `{name}`")),
    };
    for s in &rec.snapshots {
        s.validate(rec.schema).map_err(|e| format!("{name}: {e}"))?;
    }
    let mean = rec.snapshots.iter().map(|s| s.len()).sum::<usize>() as f64 / frames as f64;
    eprintln!(" {:.1} s, {mean:.0} entities per snapshot on average", t.elapsed().as_secs_f64());
    Ok(rec)
}

fn main() -> ExitCode {
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("error: {e}");
            }
            eprintln!("{USAGE}");
            return if e.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(2) };
        }
    };
    let start = Instant::now();
    let config = RunConfig {
        latency: o.latency,
        loss: o.loss,
        seed: o.seed,
        warmup: 2 * o.latency as usize + 10,
    };
    let mut reports = Vec::new();
    for name in &o.scenarios {
        let rec = match record(name, o.frames, o.seed) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        let setup = Setup { schema: rec.schema, capacity: rec.capacity };
        let mut results = Vec::new();
        for tname in &o.techniques {
            let Some(technique) = techniques::by_name(tname) else { continue };
            let step = (o.frames / 20).max(1);
            let terminal = std::io::stderr().is_terminal();
            let t = Instant::now();
            let outcome =
                compare::run(technique.as_ref(), &setup, &rec.snapshots, &config, |done| {
                    if terminal && (done % step == 0 || done == o.frames) {
                        eprint!("\r{name}: {tname:<10} {done:>6}/{}", o.frames);
                        let _ = std::io::stderr().flush();
                    }
                });
            if !terminal && outcome.is_ok() {
                eprintln!(
                    "{name}: {tname:<10} {} frames in {:.1} s",
                    o.frames,
                    t.elapsed().as_secs_f64()
                );
            }
            match outcome {
                Ok(r) => results.push(r),
                Err(compare::Error::Unsupported(_)) => {}
                Err(e) => {
                    eprintln!("\n{name}: {tname} failed: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        if std::io::stderr().is_terminal() {
            eprint!("\r{:60}\r", "");
        }
        let report = ScenarioReport {
            scenario: rec.name.to_string(),
            frames: o.frames,
            rate_hz: rec.rate_hz,
            latency: o.latency,
            loss: o.loss,
            results,
            fields: None,
        };
        println!("{}", report.table());
        reports.push(report);
    }
    if let Some(path) = &o.json {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = report::write_json(path, &reports) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("wrote {}", path.display());
    }
    if let Some(path) = &o.plot {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = report::write_plot(path, &reports) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("wrote {}", path.display());
    }
    eprintln!("done in {:.1} s", start.elapsed().as_secs_f64());
    let failed: Vec<String> = reports
        .iter()
        .flat_map(|r| {
            r.results
                .iter()
                .filter(|t| !t.verified())
                .map(move |t| format!("{}/{}", r.scenario, t.name))
        })
        .collect();
    if !failed.is_empty() {
        eprintln!("error: decoded frames differ from their input: {}", failed.join(", "));
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
