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
//! (SVG; default `target/bench.svg`), `--record DIR` (write each scenario's schema and trace,
//! `DIR/<scenario>.netidl` and `DIR/<scenario>.jsonl`, for `netschema profile`).
//!
//! Each scenario records its quantised snapshots once (what one client sees each frame), then
//! every technique of `netschema_idl::compare` replays them over the same simulated link; each
//! decoded frame is checked against its input. The schemas are `examples/bench/schemas/*.netidl`;
//! until the code generator lands the runtime descriptors are written by hand next to each
//! scenario, and the bench checks at start-up that they equal the descriptors built from the
//! `.netidl` files at run time (`netschema_idl::runtime`).
//!
//! A recorded trace holds natural values (`docs/trace-format.md`) that quantise back to exactly
//! the snapshots the bench replays; for the RTS battle it holds the whole world and what each of
//! the four players sees (client `0` is the bench's).

mod cubes;
mod particles;
mod rts;
mod save;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use netschema_idl::compare::report::{self, ScenarioReport};
use netschema_idl::compare::trace::TraceFrame;
use netschema_idl::compare::{self, RunConfig, Setup, Snapshot, Technique, techniques};
use netschema_idl::runtime::RuntimeSchema;
use netschema_runtime::schema::Schema;

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
    /// For a scenario with several clients, when asked for: every entity of each frame and what
    /// each client sees (client `0` sees `snapshots`).
    pub(crate) world: Option<Vec<TraceFrame>>,
}

/// The scenarios, in the order they run.
const SCENARIOS: [&str; 3] = ["particles", "cubes", "rts"];

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
    record: Option<PathBuf>,
}

const USAGE: &str = "usage: bench [--scenario particles|cubes|rts|all] [--frames N] [--latency F] \
                     [--loss P] [--technique NAME]... [--seed S] [--json FILE] [--plot FILE] \
                     [--record DIR]";

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        scenarios: SCENARIOS.map(String::from).to_vec(),
        frames: 1200,
        latency: 6,
        loss: 0.05,
        seed: 1,
        techniques: techniques::NAMES.iter().map(|s| s.to_string()).collect(),
        json: None,
        plot: Some(PathBuf::from("target/bench.svg")),
        record: None,
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
            "--latency" => o.latency = compare::parse_latency(&value("a number of frames")?)?,
            "--loss" => {
                let v = value("a probability")?;
                o.loss = compare::parse_loss(&v)
                    .ok_or_else(|| format!("bad loss `{v}` (0.05 or 5%)"))?;
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
            "--record" => o.record = Some(PathBuf::from(value("a folder")?)),
            "-h" | "--help" => return Err(String::new()),
            _ => return Err(format!("unknown argument `{arg}`")),
        }
    }
    if !chosen_techniques.is_empty() {
        o.techniques = chosen_techniques;
    }
    Ok(o)
}

/// The `.netidl` source and the hand-written descriptors of scenario `name`.
fn schema_of(name: &str) -> Option<(&'static str, &'static Schema)> {
    match name {
        "particles" => Some((particles::NETIDL, &particles::SCHEMA)),
        "cubes" => Some((cubes::NETIDL, &cubes::SCHEMA)),
        "rts" => Some((rts::NETIDL, &rts::SCHEMA)),
        _ => None,
    }
}

/// The schema of scenario `name` built from its `.netidl` file at run time, checked to equal
/// the hand-written descriptors the scenario quantises with.
fn runtime_schema(name: &str) -> Result<RuntimeSchema, String> {
    let (netidl, hand) = schema_of(name).ok_or_else(|| format!("unknown scenario `{name}`"))?;
    let file = format!("{name}.netidl");
    let ir = netschema_idl::parse_str(&file, netidl).map_err(|e| e.to_string())?;
    let runtime = RuntimeSchema::new(&ir).map_err(|e| format!("{file}: {e}"))?;
    if runtime.schema != hand {
        return Err(format!(
            "{file}: the hand-written descriptors differ from the file's\n  file: {:?}\n  hand: {hand:?}",
            runtime.schema
        ));
    }
    Ok(runtime)
}

/// Simulates scenario `name`; with `world`, a scenario with several clients also records the
/// whole world and every client's view.
fn simulate(name: &str, frames: usize, seed: u64, world: bool) -> Result<Recording, String> {
    Ok(match name {
        "particles" => particles::record(frames, seed),
        "cubes" => cubes::record(frames, seed),
        "rts" => rts::record(frames, seed, world),
        _ => return Err(format!("unknown scenario `{name}`")),
    })
}

/// Simulates scenario `name` after checking its schema, and saves its trace into `save_to`.
fn record(
    name: &str,
    frames: usize,
    seed: u64,
    save_to: Option<&Path>,
) -> Result<Recording, String> {
    let t = Instant::now();
    eprint!("{name}: simulating {frames} frames...");
    let runtime = runtime_schema(name)?;
    let rec = simulate(name, frames, seed, save_to.is_some())?;
    for s in &rec.snapshots {
        s.validate(rec.schema).map_err(|e| format!("{name}: {e}"))?;
    }
    let mean = rec.snapshots.iter().map(|s| s.len()).sum::<usize>() as f64 / frames as f64;
    eprintln!(" {:.1} s, {mean:.0} entities per snapshot on average", t.elapsed().as_secs_f64());
    if let Some(dir) = save_to {
        let netidl = schema_of(name).map_or("", |(netidl, _)| netidl);
        let written = save::save(dir, &rec, &runtime, netidl)?;
        eprintln!("wrote {}", written.display());
    }
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
    let config = RunConfig::new(o.latency, o.loss, o.seed);
    let chosen: Vec<Box<dyn Technique>> =
        o.techniques.iter().filter_map(|name| techniques::by_name(name)).collect();
    let mut reports = Vec::new();
    for name in &o.scenarios {
        let rec = match record(name, o.frames, o.seed, o.record.as_deref()) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        let setup = Setup { schema: rec.schema, capacity: rec.capacity };
        let results = match compare::run_all(name, &chosen, &setup, &rec.snapshots, &config) {
            Ok(results) => results,
            Err(e) => {
                eprintln!("{name}: {e}");
                return ExitCode::FAILURE;
            }
        };
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
    if let Err(e) = report::write_files(o.json.as_deref(), o.plot.as_deref(), &reports) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    eprintln!("done in {:.1} s", start.elapsed().as_secs_f64());
    let failed = report::unverified(&reports);
    if !failed.is_empty() {
        eprintln!("error: decoded frames differ from their input: {}", failed.join(", "));
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
