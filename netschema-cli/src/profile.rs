//! `netschema profile`: the technique comparison and per-field costs on a recorded trace.

use std::fs::File;
use std::io::{BufRead, BufReader, IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use flate2::read::MultiGzDecoder;
use netschema_lab::descriptors::RuntimeSchema;
use netschema_lab::report::{self, ScenarioReport};
use netschema_lab::trace::Trace;
use netschema_lab::{RunConfig, profile, techniques};

use crate::{load, usage};

/// Frame rate when neither `--rate` nor the trace's header gives one.
const DEFAULT_RATE_HZ: f64 = 60.0;

/// The options of `netschema profile`.
struct Args {
    schema: PathBuf,
    trace: PathBuf,
    latency: u32,
    loss: f64,
    seed: u64,
    client: Option<String>,
    all_clients: bool,
    rate_hz: Option<f64>,
    techniques: Vec<String>,
    train: Option<PathBuf>,
    json: Option<PathBuf>,
    plot: Option<PathBuf>,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let (mut schema, mut trace) = (None, None);
    let mut a = Args {
        schema: PathBuf::new(),
        trace: PathBuf::new(),
        latency: 6,
        loss: 0.05,
        seed: 1,
        client: None,
        all_clients: false,
        rate_hz: None,
        techniques: Vec::new(),
        train: None,
        json: None,
        plot: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |what: &str| it.next().ok_or_else(|| format!("`{arg}` needs {what}"));
        match arg.as_str() {
            "--schema" => schema = Some(PathBuf::from(value("a file")?)),
            "--trace" => trace = Some(PathBuf::from(value("a file")?)),
            "--latency" => a.latency = netschema_lab::parse_latency(value("a number of frames")?)?,
            "--loss" => {
                let v = value("a probability")?;
                a.loss = netschema_lab::parse_loss(v)
                    .ok_or_else(|| format!("bad loss `{v}` (0.05 or 5%)"))?;
            }
            "--seed" => {
                let v = value("a number")?;
                a.seed = v.parse().map_err(|_| format!("bad seed `{v}`"))?;
            }
            "--client" => a.client = Some(value("a client name")?.clone()),
            "--all-clients" => a.all_clients = true,
            "--rate" => {
                let v = value("frames per second")?;
                let rate = v.parse::<f64>().ok().filter(|r| r.is_finite() && *r > 0.0);
                a.rate_hz = Some(rate.ok_or_else(|| format!("bad frame rate `{v}`"))?);
            }
            "--technique" => {
                let v = value("a technique name")?;
                if !techniques::NAMES.contains(&v.as_str()) {
                    return Err(format!(
                        "unknown technique `{v}` (one of {:?})",
                        techniques::NAMES
                    ));
                }
                a.techniques.push(v.clone());
            }
            "--train" => a.train = Some(PathBuf::from(value("a file")?)),
            "--json" => a.json = Some(PathBuf::from(value("a file")?)),
            "--plot" => a.plot = Some(PathBuf::from(value("a file")?)),
            other => return Err(format!("unknown argument `{other}` for `profile`")),
        }
    }
    if a.all_clients && a.client.is_some() {
        return Err("`--client` and `--all-clients` exclude each other".into());
    }
    a.schema = schema.ok_or("`profile` needs `--schema FILE.netidl`")?;
    a.trace = trace.ok_or("`profile` needs `--trace FILE.jsonl`")?;
    if a.techniques.is_empty() {
        a.techniques = techniques::NAMES.iter().map(|s| s.to_string()).collect();
    }
    Ok(a)
}

pub(crate) fn profile(args: &[String]) -> ExitCode {
    let a = match parse(args) {
        Ok(a) => a,
        Err(message) => return usage(&message),
    };
    let ir = match load(&a.schema.to_string_lossy()) {
        Ok(ir) => ir,
        Err(code) => return code,
    };
    let runtime = match RuntimeSchema::new(&ir) {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: {}: {e}", a.schema.display());
            return ExitCode::FAILURE;
        }
    };
    let trace = match read_trace(&a.trace, &runtime) {
        Ok(trace) => trace,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    };
    let trained = a.techniques.iter().any(|t| techniques::TRAINED.contains(&t.as_str()));
    if trained && a.train.is_none() {
        eprintln!(
            "note: the static tables of {} are trained on the replayed trace itself (an \
             optimistic case for them); `--train FILE` trains them on another recording",
            techniques::TRAINED.join(" and ")
        );
    }
    let training = match a.train.as_deref().map(|path| read_trace(path, &runtime)).transpose() {
        Ok(training) => training,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::FAILURE;
        }
    };
    match measure(&a, &runtime, trace, training.as_ref()) {
        Ok(report) => finish(&a, report),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Reads the trace with progress on stderr, and warns about what it had to clamp.
fn read_trace(path: &Path, runtime: &RuntimeSchema) -> Result<Trace, String> {
    let cannot = |e: std::io::Error| format!("cannot open {}: {e}", path.display());
    let mut file = BufReader::new(File::open(path).map_err(cannot)?);
    // A gzip stream (magic bytes 1f 8b) is decompressed on the fly; the progress then counts
    // lines only, as the decompressed size is not known.
    let gzip = file.fill_buf().map_err(cannot)?.starts_with(&[0x1f, 0x8b]);
    let size = if gzip { 0 } else { file.get_ref().metadata().map(|m| m.len()).unwrap_or(0) };
    let input: Box<dyn BufRead> =
        if gzip { Box::new(BufReader::new(MultiGzDecoder::new(file))) } else { Box::new(file) };
    let terminal = std::io::stderr().is_terminal();
    let start = Instant::now();
    let mut shown = start;
    let trace = Trace::read(runtime, input, |lines, bytes| {
        if terminal && shown.elapsed() >= Duration::from_millis(200) {
            shown = Instant::now();
            match size {
                0 => eprint!("\rreading {}: line {lines}", path.display()),
                _ => {
                    let percent = bytes as f64 * 100.0 / size as f64;
                    eprint!("\rreading {}: line {lines} ({percent:.0} %)", path.display());
                }
            }
            let _ = std::io::stderr().flush();
        }
    });
    if terminal {
        eprint!("\r{:70}\r", "");
    }
    let trace = trace.map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!(
        "read {} frames from {} in {:.1} s",
        trace.frames.len(),
        path.display(),
        start.elapsed().as_secs_f64()
    );
    if let Some(name) = trace.header.as_ref().and_then(|h| h.schema.as_deref())
        && name != runtime.ir.name
    {
        eprintln!(
            "warning: the trace was recorded with schema `{name}`, not `{}`",
            runtime.ir.name
        );
    }
    for c in &trace.clamped {
        eprintln!(
            "warning: {} values of `{}` were out of range and clamped (first on line {})",
            c.count, c.field, c.first_line
        );
    }
    Ok(trace)
}

/// Picks the client (or every client), replays each view through every technique and
/// measures them: one report per client replayed. Static tables train on the same client's
/// view of `training` (its first client's, or everything, if it lacks that client), else on
/// the view replayed.
fn measure(
    a: &Args,
    runtime: &RuntimeSchema,
    trace: Trace,
    training: Option<&Trace>,
) -> Result<Vec<ScenarioReport>, String> {
    if trace.frames.is_empty() {
        return Err(format!("{}: the trace has no frames", a.trace.display()));
    }
    let clients = trace.clients();
    let chosen: Vec<Option<String>> = match &a.client {
        Some(c) if !clients.is_empty() && !clients.contains(c) => {
            return Err(format!(
                "client `{c}` is not in the trace (clients: {})",
                clients.join(", ")
            ));
        }
        Some(c) => vec![Some(c.clone())],
        None if a.all_clients && !clients.is_empty() => clients.iter().cloned().map(Some).collect(),
        None => vec![clients.first().cloned()],
    };
    let rate_hz = a
        .rate_hz
        .or_else(|| trace.header.as_ref().and_then(|h| h.rate_hz))
        .unwrap_or(DEFAULT_RATE_HZ);
    let stem =
        a.trace.file_stem().map_or_else(|| "trace".into(), |s| s.to_string_lossy().into_owned());
    let config = RunConfig::new(a.latency, a.loss, a.seed);
    let names: Vec<&str> = a.techniques.iter().map(String::as_str).collect();
    let mut reports = Vec::new();
    for client in &chosen {
        let snapshots = trace.views(client.as_deref());
        let mean = snapshots.iter().map(|s| s.len()).sum::<usize>() as f64 / snapshots.len() as f64;
        let seen_by = match client {
            Some(c) if !clients.is_empty() => {
                format!(" seen by client `{c}` (of {})", clients.len())
            }
            _ => String::new(),
        };
        eprintln!(
            "profiling {} frames{seen_by}, {mean:.0} entities per frame on average, at {rate_hz} Hz",
            snapshots.len()
        );
        let scenario = match client {
            Some(c) if chosen.len() > 1 => format!("{stem} (client {c})"),
            _ => stem.clone(),
        };
        let training = training.map(|t| {
            let names = t.clients();
            let same = client.as_ref().filter(|c| names.contains(c));
            t.views(same.or(names.first()).map(String::as_str))
        });
        let training = training.as_deref().unwrap_or(&snapshots);
        let report = profile::measure(
            &scenario,
            runtime.schema,
            &snapshots,
            training,
            rate_hz,
            &config,
            &names,
        )
        .map_err(|e| e.to_string())?;
        reports.push(report);
    }
    Ok(reports)
}

/// Prints the tables, writes the files asked for and checks every decoded frame.
fn finish(a: &Args, reports: Vec<ScenarioReport>) -> ExitCode {
    for report in &reports {
        println!("{}", report.table());
        if let Some(fields) = &report.fields {
            println!("{}", fields.table());
        }
    }
    if let Err(e) = report::write_files(a.json.as_deref(), a.plot.as_deref(), &reports) {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let failed = report::unverified(&reports);
    if !failed.is_empty() {
        eprintln!("error: decoded frames differ from their input: {}", failed.join(", "));
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
