//! Compares netschema with the obvious alternatives on four deterministic, seeded scenarios.
//!
//! ```text
//! cargo run --release -p netschema-bench                          # everything, defaults
//! cargo run --release -p netschema-bench -- --scenario cubes --frames 1200 --latency 6 --loss 5%
//! cargo run --release -p netschema-bench -- --json target/bench.json --plot target/bench.svg
//! cargo run --release -p netschema-bench -- --help                # options, techniques, columns
//! ```
//!
//! `--help` prints the options, the technique legend and the meaning of each column.
//!
//! `--budget BYTES` gives netschema's packets a byte budget and `--tolerance PATH=STEPS` adds
//! `netschema-tol`, netschema with those tolerances, beside exact netschema; either prints a
//! second table of how stale and how far from the input what netschema's client holds gets.
//!
//! Each scenario records its quantised snapshots once (what one client sees each frame), then
//! every technique of `netschema_lab` replays them over the same simulated link; each
//! decoded frame is checked against its input. Techniques whose static tables are trained
//! offline (Q3's Huffman table, naia-zd's zstd dictionary) train them on the same scenario
//! recorded with the next seed. The schemas are `schemas/*.netidl`, compiled by
//! `build.rs` into typed structs and descriptors that each scenario includes with
//! `netschema::include_schema!`, as a game would.
//!
//! A recorded trace holds natural values (`docs/trace-format.md`) that quantise back to exactly
//! the snapshots the bench replays; for the RTS battle and the arena it holds the whole world
//! and what each player sees (client `0` is the bench's), and the arena's frame times.

mod arena;
mod cubes;
mod fleet;
mod particles;
mod rts;
mod save;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use netschema::model::ModelPolicy;
use netschema::model::contract::Contract;
use netschema::schema::Schema;
use netschema_lab::descriptors::{
    RuntimeSchema, ToleranceOverride, with_contract, with_tolerances,
};
use netschema_lab::fleet::FleetConfig;
use netschema_lab::netschema::Netschema;
use netschema_lab::report::{self, ScenarioReport};
use netschema_lab::trace::TraceFrame;
use netschema_lab::{Event, RunConfig, Setup, Snapshot, Technique, techniques};

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
    /// The events each frame sends the client of `snapshots` (none for most scenarios).
    pub(crate) events: Vec<Vec<Event>>,
    /// For a scenario with several clients, when asked for: every entity of each frame and what
    /// each client sees (client `0` sees `snapshots`).
    pub(crate) world: Option<Vec<TraceFrame>>,
}

/// Where a run of the arena plots one player's yaw and speed.
const ARENA_PLOT: &str = "target/bench/arena-player.svg";

/// The scenarios, in the order they run.
const SCENARIOS: [&str; 4] = ["particles", "cubes", "rts", "arena"];

/// Command-line options.
struct Options {
    scenarios: Vec<String>,
    frames: usize,
    latency: u32,
    loss: f64,
    seed: u64,
    techniques: Vec<String>,
    budget: Option<usize>,
    policy: Option<ModelPolicy>,
    prior: Option<&'static [u8]>,
    tolerances: Vec<ToleranceOverride>,
    json: Option<PathBuf>,
    plot: PathBuf,
    record: Option<PathBuf>,
    clients: Option<usize>,
    threads: Vec<usize>,
    arena: arena::Config,
}

const USAGE: &str = "usage: netschema-bench [--scenario particles|cubes|rts|arena|all] \
                     [--frames N] [--latency F] [--loss P] [--technique NAME]... \
                     [--budget BYTES] [--policy POLICY] [--prior FILE] \
                     [--tolerance PATH=STEPS]... [--seed S] [--players N] [--rate HZ] [--events] \
                     [--json FILE] [--plot FILE] [--record DIR] [--clients N [--threads T]...]";

/// The `--help` text: usage, options, the technique legend and the table's columns.
fn help() -> String {
    format!(
        "{USAGE}

Replays four seeded scenarios through netschema, the techniques it replaces and the encodings
of three engines over one simulated lossy link (packets and acks alike), checks every decoded
frame against its input, and prints a table per scenario.

options:
  --scenario NAME   particles, cubes, rts, arena or all (default all)
  --frames N        frames per scenario (default 1200: twenty seconds at 60 Hz, forty in the
                    arena at 30 Hz)
  --latency F       one-way latency in frames (default 6, at most 60)
  --loss P          loss probability of every datagram, 0.05 or 5% (default 5%)
  --technique NAME  only this technique (repeatable; default all but netschema-contract)
  --budget BYTES    netschema's packets have at most BYTES bytes (1200: a usual datagram);
                    entities that do not fit wait, as the client holds them
  --policy POLICY   how netschema keeps its models in step: per-frame (default; a model set
                    per frame in flight), batched (seed 004: models built from batches of
                    10 packets the client received whole, 7 kept) or batched:B:K;
                    server_bytes and client_bytes show what it costs per client
  --prior FILE      netschema starts every connection from this prior (`netschema train`
                    on a trace of the one --scenario, for the same policy) instead of cold
  --tolerance PATH=STEPS
                    also run netschema-tol: netschema with a tolerance of STEPS raw steps
                    (at most 127) on every numeric field at or under PATH (`pos` covers
                    pos.x and pos.y; `Unit.pos` only the Unit class's), beside exact
                    netschema (repeatable)
  --seed S          seed of the scenarios and the link (default 1); static tables train
                    on each scenario recorded with seed S + 1
  --players N       players in the arena (default 16, at most 64)
  --rate HZ         the arena's frames per second (default 30)
  --events          the arena's frames also send player 0 events, Hit and Died, about
                    the players it sees (`event` items of schemas/arena.netidl): netschema
                    carries them in its record stream, sent once and repaired on loss,
                    and prints what they cost and how late they arrived; the other
                    techniques carry no events, so compare bytes without it
  --json FILE       also write the tables as JSON (keys as the column names below)
  --plot FILE       where to plot bytes per frame over time (SVG; default
                    target/bench/<scenario>-latency<F>-loss<P>.svg)
  --record DIR      write each scenario's schema and trace, DIR/<scenario>.netidl and
                    DIR/<scenario>.jsonl, for `netschema profile`
  --clients N       instead of the techniques: one netschema server with N clients, each
                    over a link of its own (acks simulated), its packets encoded on a pool
                    of threads; prints the time to encode all clients per frame (median),
                    client-entity updates per second per core and the scaling against the
                    first thread count (--budget, --policy and --prior apply)
  --threads T       thread counts for --clients (repeatable; default 1 and 2)
  -h, --help        print this message

techniques:
{}  {CONTRACTED:<10} netschema with the scenario's predictive contract (particles: gravity
             and walls) offered to every numeric field; only where the scenario has one
columns:
{}",
        techniques::legend(),
        report::columns()
    )
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        scenarios: SCENARIOS.map(String::from).to_vec(),
        frames: 1200,
        latency: 6,
        loss: 0.05,
        seed: 1,
        techniques: techniques::NAMES.iter().map(|s| s.to_string()).collect(),
        budget: None,
        policy: None,
        prior: None,
        tolerances: Vec::new(),
        json: None,
        plot: PathBuf::new(),
        record: None,
        clients: None,
        threads: Vec::new(),
        arena: arena::Config::default(),
    };
    let mut plot = None;
    let mut chosen_techniques = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |what: &str| args.next().ok_or_else(|| format!("{arg} needs {what}"));
        match arg.as_str() {
            "--scenario" => {
                let v = value("a scenario")?;
                o.scenarios = match v.as_str() {
                    "all" => o.scenarios.clone(),
                    "particles" | "cubes" | "rts" | "arena" => vec![v],
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
            "--latency" => o.latency = netschema_lab::parse_latency(&value("a number of frames")?)?,
            "--loss" => {
                let v = value("a probability")?;
                o.loss = netschema_lab::parse_loss(&v)
                    .ok_or_else(|| format!("bad loss `{v}` (0.05 or 5%)"))?;
            }
            "--players" => {
                let v = value("a number")?;
                o.arena.players =
                    v.parse().ok().filter(|n| (1..=arena::MAX_PLAYERS).contains(n)).ok_or_else(
                        || format!("bad player count `{v}` (1 to {})", arena::MAX_PLAYERS),
                    )?;
            }
            "--events" => o.arena.events = true,
            "--rate" => {
                let v = value("frames per second")?;
                o.arena.rate = v
                    .parse()
                    .ok()
                    .filter(|r: &f64| (1.0..=1000.0).contains(r))
                    .ok_or_else(|| format!("bad rate `{v}` (1 to 1000 frames per second)"))?;
            }
            "--seed" => {
                let v = value("a number")?;
                o.seed = v.parse().map_err(|_| format!("bad seed `{v}`"))?;
            }
            "--technique" => {
                let v = value("a technique name")?;
                if !techniques::NAMES.contains(&v.as_str()) && v != CONTRACTED {
                    return Err(format!(
                        "unknown technique `{v}` (one of {:?} or {CONTRACTED})",
                        techniques::NAMES
                    ));
                }
                chosen_techniques.push(v);
            }
            "--budget" => {
                o.budget = Some(netschema_lab::parse_budget(&value("a number of bytes")?)?)
            }
            "--policy" => o.policy = Some(netschema_lab::parse_policy(&value("a policy")?)?),
            "--prior" => {
                let path = value("a file")?;
                let bytes = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
                o.prior = Some(Box::leak(bytes.into_boxed_slice()));
            }
            "--tolerance" => o.tolerances.push(value("PATH=STEPS")?.parse()?),
            "--json" => o.json = Some(PathBuf::from(value("a file")?)),
            "--plot" => plot = Some(PathBuf::from(value("a file")?)),
            "--record" => o.record = Some(PathBuf::from(value("a folder")?)),
            "--clients" => {
                let v = value("a number")?;
                o.clients = Some(
                    v.parse()
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or_else(|| format!("bad client count `{v}` (at least 1)"))?,
                );
            }
            "--threads" => {
                let v = value("a number")?;
                o.threads.push(
                    v.parse()
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or_else(|| format!("bad thread count `{v}` (at least 1)"))?,
                );
            }
            "-h" | "--help" => return Err(String::new()),
            _ => return Err(format!("unknown argument `{arg}`")),
        }
    }
    if !chosen_techniques.is_empty() {
        o.techniques = chosen_techniques;
    }
    let tuned =
        o.budget.is_some() || o.policy.is_some() || o.prior.is_some() || !o.tolerances.is_empty();
    if tuned && !o.techniques.iter().any(|t| t == "netschema") {
        return Err("--budget, --policy, --prior and --tolerance apply to netschema, which \
                    --technique leaves out"
            .into());
    }
    if o.arena.events && !o.scenarios.iter().any(|s| s == "arena") {
        return Err("--events applies to the arena, which --scenario leaves out".into());
    }
    if !o.threads.is_empty() && o.clients.is_none() {
        return Err("--threads applies to --clients".into());
    }
    if o.prior.is_some() && o.scenarios.len() != 1 {
        return Err("--prior is trained for one scenario: choose it with --scenario".into());
    }
    let scenario = if o.scenarios.len() == 1 { o.scenarios[0].as_str() } else { "all" };
    o.plot = plot.unwrap_or_else(|| report::plot_path(scenario, o.latency, o.loss));
    Ok(o)
}

/// Appends entity `id` of class `class` to `snapshot`, quantised by its generated code over
/// an empty row (its lists in slots in order, as a trace reads them back), with the ids its
/// references name.
pub(crate) fn push<T: netschema::Snapshot>(
    snapshot: &mut Snapshot,
    id: u32,
    class: usize,
    value: &T,
) {
    let mut row = vec![0; T::CLASS.fields.len()];
    T::CLASS.empty_row(&mut row);
    value.quantise(&mut row);
    let links: Vec<Option<u32>> = (0..T::CLASS.links.len())
        .map(|r| value.link(r).and_then(|target| u32::try_from(target).ok()))
        .collect();
    snapshot.push_linked(id, class as u16, &row, &links);
}

/// Event `value`, one of the events `schema` declares, as the lab carries it: its references
/// are the ids they name.
pub(crate) fn event<E: netschema::event::Event>(schema: &Schema, value: &E) -> Event {
    let class = &E::SCHEMA.classes[0];
    let mut values = vec![0; class.fields.len()];
    value.quantise(&mut values);
    let targets = (0..class.links.len())
        .map(|r| value.link(r).and_then(|target| u32::try_from(target).ok()))
        .collect();
    let index = netschema::event::index_of::<E>(schema).expect("the schema declares the event");
    Event { event: index as usize, values, targets }
}

/// The `.netidl` source of scenario `name`.
fn netidl_of(name: &str) -> Option<&'static str> {
    match name {
        "particles" => Some(particles::NETIDL),
        "cubes" => Some(cubes::NETIDL),
        "rts" => Some(rts::NETIDL),
        "arena" => Some(arena::NETIDL),
        _ => None,
    }
}

/// The schema of scenario `name` built from its `.netidl` file at run time, for writing its
/// trace (which names fields and converts raw values back to natural units).
fn runtime_schema(name: &str) -> Result<RuntimeSchema, String> {
    let netidl = netidl_of(name).ok_or_else(|| format!("unknown scenario `{name}`"))?;
    let file = format!("{name}.netidl");
    let ir = netschema_idl::parse_str(&file, netidl).map_err(|e| e.to_string())?;
    RuntimeSchema::new(&ir).map_err(|e| format!("{file}: {e}"))
}

/// Simulates scenario `name` (the arena as `arena` says); with `world`, a scenario with
/// several clients also records the whole world and every client's view.
fn simulate(
    name: &str,
    frames: usize,
    seed: u64,
    arena: arena::Config,
    world: bool,
) -> Result<Recording, String> {
    Ok(match name {
        "particles" => particles::record(frames, seed),
        "cubes" => cubes::record(frames, seed),
        "rts" => rts::record(frames, seed, world),
        "arena" => arena::record(frames, seed, arena, world),
        _ => return Err(format!("unknown scenario `{name}`")),
    })
}

/// Simulates scenario `name`, checks its snapshots, and saves its trace into `save_to`.
fn record(
    name: &str,
    frames: usize,
    seed: u64,
    arena: arena::Config,
    save_to: Option<&Path>,
) -> Result<Recording, String> {
    let t = Instant::now();
    eprint!("{name}: simulating {frames} frames...");
    let rec = simulate(name, frames, seed, arena, save_to.is_some())?;
    if name == "arena" {
        let plot = Path::new(ARENA_PLOT);
        arena::plot_player(plot, seed, arena)?;
        eprint!(" (player 0 plotted in {ARENA_PLOT})");
    }
    for s in &rec.snapshots {
        s.validate(rec.schema).map_err(|e| format!("{name}: {e}"))?;
    }
    let mean = rec.snapshots.iter().map(|s| s.len()).sum::<usize>() as f64 / frames as f64;
    eprintln!(" {:.1} s, {mean:.0} entities per snapshot on average", t.elapsed().as_secs_f64());
    if let Some(dir) = save_to {
        let runtime = runtime_schema(name)?;
        let netidl = netidl_of(name).unwrap_or_default();
        let written = save::save(dir, &rec, &runtime, netidl)?;
        eprintln!("wrote {}", written.display());
    }
    Ok(rec)
}

/// The bench's own technique: netschema with the scenario's predictive contract.
const CONTRACTED: &str = "netschema-contract";

/// The predictive contract of scenario `name`, with the name it joins the schema hash under.
fn contract_of(name: &str) -> Option<(&'static str, &'static dyn Contract)> {
    (name == "particles").then_some((particles::CONTRACT_NAME, &particles::CONTRACT))
}

/// The techniques called `names` for a scenario of `schema` (the same descriptors as the
/// scenario's): netschema as `engine` says (byte budget, model policy), followed by
/// `netschema-tol` (the same with `tolerances`) if any; `netschema-contract` with the
/// scenario's `contract` (left out without one). Fails if a tolerance's path names no numeric
/// field.
fn techniques_for(
    names: &[String],
    schema: &'static Schema,
    engine: Netschema,
    tolerances: &[ToleranceOverride],
    contract: Option<(&'static str, &'static dyn Contract)>,
) -> Result<Vec<Box<dyn Technique>>, String> {
    let tolerant =
        (!tolerances.is_empty()).then(|| with_tolerances(schema, tolerances)).transpose()?;
    let mut list: Vec<Box<dyn Technique>> = Vec::new();
    for name in names {
        if name == CONTRACTED {
            if let Some((name, contract)) = contract {
                let contracted = Some(with_contract(schema, name, contract)?);
                list.push(Box::new(Netschema { contracted, ..engine }));
            }
            continue;
        }
        if name != "netschema" {
            list.extend(techniques::by_name(name));
            continue;
        }
        list.push(Box::new(engine));
        if tolerant.is_some() {
            list.push(Box::new(Netschema { tolerant, ..engine }));
        }
    }
    Ok(list)
}

/// The offline training run of scenario `name`: the same scenario with the next seed, which
/// the techniques with static tables train them on ([`Setup::training`]).
fn training_run(
    name: &str,
    frames: usize,
    seed: u64,
    arena: arena::Config,
) -> Result<Vec<Snapshot>, String> {
    let t = Instant::now();
    eprint!("{name}: simulating {frames} training frames (seed {})...", seed.wrapping_add(1));
    let rec = simulate(name, frames, seed.wrapping_add(1), arena, false)?;
    eprintln!(" {:.1} s", t.elapsed().as_secs_f64());
    Ok(rec.snapshots)
}

/// `netschema: packets of at most 1200 bytes; netschema: models batched:10:7;
/// netschema-tol: tolerances pos=2 (raw steps)`, or `None` without a budget, policy or
/// tolerances.
fn tuning(engine: Netschema, tolerances: &[ToleranceOverride]) -> Option<String> {
    let budget = engine.budget.map(|b| format!("netschema: packets of at most {b} bytes"));
    let policy = engine.policy.map(|p| format!("netschema: models {p}"));
    let prior = engine.prior.map(|p| format!("netschema: a prior of {} bytes", p.len()));
    let tolerances = (!tolerances.is_empty()).then(|| {
        let list: Vec<String> = tolerances.iter().map(ToString::to_string).collect();
        format!("netschema-tol: tolerances {} (raw steps)", list.join(", "))
    });
    let parts: Vec<String> = [budget, policy, prior, tolerances].into_iter().flatten().collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

fn main() -> ExitCode {
    let o = match parse_args() {
        Ok(o) => o,
        Err(e) if e.is_empty() => {
            println!("{}", help());
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("error: {e}\n{USAGE}\n(--help lists the options, techniques and columns)");
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    let config = RunConfig::new(o.latency, o.loss, o.seed);
    let engine =
        Netschema { budget: o.budget, policy: o.policy, prior: o.prior, ..Netschema::default() };
    if let Some(line) = tuning(engine, &o.tolerances) {
        println!("{line}\n");
    }
    // Every scenario's techniques first, so that a bad --tolerance fails before any runs.
    let lists: Result<Vec<_>, String> = o
        .scenarios
        .iter()
        .map(|name| {
            let schema = runtime_schema(name)?.schema;
            techniques_for(&o.techniques, schema, engine, &o.tolerances, contract_of(name))
                .map_err(|e| format!("{name}: {e}"))
        })
        .collect();
    let lists = match lists {
        Ok(lists) => lists,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut reports = Vec::new();
    for (name, chosen) in o.scenarios.iter().zip(lists) {
        let rec = match record(name, o.frames, o.seed, o.arena, o.record.as_deref()) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        if let Some(clients) = o.clients {
            let base = FleetConfig {
                clients,
                threads: 1,
                latency: o.latency,
                loss: o.loss,
                seed: o.seed,
                budget: o.budget,
            };
            let threads = if o.threads.is_empty() { vec![1, 2] } else { o.threads.clone() };
            let run = engine
                .schema_for(rec.schema)
                .map_err(|e| e.to_string())
                .and_then(|schema| fleet::run(&rec, schema, base, &threads));
            if let Err(e) = run {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
            continue;
        }
        let trained = chosen.iter().any(|t| techniques::TRAINED.contains(&t.name()));
        let training =
            match trained.then(|| training_run(name, o.frames, o.seed, o.arena)).transpose() {
                Ok(training) => training.unwrap_or_default(),
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
        let setup = Setup {
            schema: rec.schema,
            capacity: rec.capacity,
            training: &training,
            events: &rec.events,
        };
        let results =
            match netschema_lab::run_all(name, &chosen, &setup, &rec.snapshots, None, &config) {
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
    if o.clients.is_some() {
        eprintln!("done in {:.1} s", start.elapsed().as_secs_f64());
        return ExitCode::SUCCESS;
    }
    if let Err(e) = report::write_files(o.json.as_deref(), Some(&o.plot), &reports) {
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
