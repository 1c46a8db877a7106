//! `netschema profile`: the technique comparison and per-field costs on a recorded trace.

use std::fs::File;
use std::io::{BufRead, BufReader, IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::builder::PossibleValuesParser;
use flate2::read::MultiGzDecoder;
use netschema_lab::descriptors::RuntimeSchema;
use netschema_lab::keyframes::KeyframeReport;
use netschema_lab::netschema::Netschema;
use netschema_lab::report::{self, ScenarioReport};
use netschema_lab::trace::Trace;
use netschema_lab::{RunConfig, html, profile, techniques};
use netschema_runtime::model::ModelPolicy;

use crate::error::{Error, Outcome};

/// Frame rate when neither `--rate`, the trace's header nor the schema gives one.
const DEFAULT_RATE_HZ: f64 = 60.0;

/// Profile a recorded trace of your game.
///
/// Replay the trace (docs/trace-format.md) through netschema and the techniques it replaces
/// over a lossy link; print their sizes and speeds, what each field costs and which predictors
/// it used.
#[derive(Debug, clap::Args)]
#[command(after_long_help = profile_help())]
pub(crate) struct Args {
    /// The schema the trace was recorded with.
    #[arg(long, value_name = "FILE.netidl")]
    schema: PathBuf,
    /// The trace: JSON Lines, or gzip-compressed JSON Lines.
    #[arg(long, value_name = "FILE.jsonl")]
    trace: PathBuf,
    /// One-way latency of the link, in frames (at most 60).
    #[arg(long, value_name = "F", default_value = "6", value_parser = netschema_lab::parse_latency)]
    latency: u32,
    /// Loss of every packet and ack, as `0.05` or `5%`.
    #[arg(long, value_name = "P", default_value = "5%", value_parser = loss)]
    loss: f64,
    /// Whose visible set to replay (default: the first client the trace names, else
    /// everything).
    #[arg(long, value_name = "NAME", conflicts_with = "all_clients")]
    client: Option<String>,
    /// Replay every client's visible set, one table each.
    #[arg(long)]
    all_clients: bool,
    /// Frames per second (default: the trace's, else the schema's `rate`, else 60).
    #[arg(long = "rate", value_name = "HZ", value_parser = rate)]
    rate_hz: Option<f64>,
    /// Only this technique (repeatable; default all).
    #[arg(long = "technique", value_name = "NAME",
          value_parser = PossibleValuesParser::new(techniques::NAMES))]
    techniques: Vec<String>,
    /// Seed of the link's losses.
    #[arg(long, value_name = "S", default_value = "1")]
    seed: u64,
    /// Give netschema's packets a byte budget (1200 is the usual datagram payload): entities
    /// that do not fit wait, and a second table shows how stale and how far from the trace
    /// what the client holds gets.
    #[arg(long, value_name = "BYTES", value_parser = netschema_lab::parse_budget)]
    budget: Option<usize>,
    /// How netschema keeps its models in step: per-frame (a model set per frame in flight),
    /// batched (seed 004: models built from batches of 10 packets the client received whole,
    /// 7 kept) or batched:B:K; the default is the schema's. The table's server_bytes and
    /// client_bytes show what each costs per client.
    #[arg(long, value_name = "POLICY", value_parser = netschema_lab::parse_policy)]
    policy: Option<ModelPolicy>,
    /// Start netschema's connection from this prior (`netschema train` on another recording
    /// of the same schema, for the same policy) instead of cold models.
    #[arg(long, value_name = "FILE")]
    prior: Option<PathBuf>,
    /// Another recording of the same game to train the techniques' static tables on (Q3's
    /// Huffman table, naia-zd's dictionary), as an engine's offline tables are; by default
    /// they train on the replayed trace itself, which favours them.
    #[arg(long, value_name = "FILE")]
    train: Option<PathBuf>,
    /// Also write the figures as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Also plot bytes per frame (SVG).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Also write the whole profile as one self-contained HTML page: the technique table,
    /// bytes per frame over time, the cost of each field, predictor shares and these
    /// parameters.
    #[arg(long, value_name = "FILE.html")]
    report: Option<PathBuf>,
}

/// The reports of a run and the parameters that produced them.
struct Profile {
    reports: Vec<ScenarioReport>,
    /// Per report, which fields would cost less as timelines (when netschema ran).
    keyframes: Vec<Option<KeyframeReport>>,
    /// (name, value), for the HTML report.
    parameters: Vec<(&'static str, String)>,
}

/// The techniques and the table's columns, after `--help`.
fn profile_help() -> String {
    format!(
        "Techniques:\n{}\nTable columns (and JSON keys):\n{}",
        techniques::legend(),
        report::columns()
    )
}

/// `--loss`: `0.05` or `5%`.
fn loss(text: &str) -> Result<f64, String> {
    netschema_lab::parse_loss(text)
        .ok_or_else(|| format!("`{text}` is not a loss probability in [0, 1) (0.05 or 5%)"))
}

/// `--rate`: a positive number of frames per second.
fn rate(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|r| r.is_finite() && *r > 0.0)
        .ok_or_else(|| format!("`{text}` is not a positive number of frames per second"))
}

pub(crate) fn run(args: &Args) -> Result<Outcome, Error> {
    let runtime = load_runtime(&args.schema)?;
    let trace = read_trace(&args.trace, &runtime)?;
    let trained = match args.techniques.as_slice() {
        [] => true,
        chosen => chosen.iter().any(|t| techniques::TRAINED.contains(&t.as_str())),
    };
    if trained && args.train.is_none() {
        eprintln!(
            "note: the static tables of {} are trained on the replayed trace itself (an \
             optimistic case for them); `--train FILE` trains them on another recording",
            techniques::TRAINED.join(" and ")
        );
    }
    let training = args.train.as_deref().map(|path| read_trace(path, &runtime)).transpose()?;
    let profile = measure(args, &runtime, trace, training.as_ref())?;
    finish(args, &profile)
}

/// The runtime descriptors of the `.netidl` schema at `path`, checked as `netschema check`
/// would.
pub(crate) fn load_runtime(path: &Path) -> Result<RuntimeSchema, Error> {
    let ir = crate::check::load(path)?.schema;
    RuntimeSchema::new(&ir)
        .map_err(|source| Error::Descriptors { path: path.to_owned(), source: Box::new(source) })
}

/// Reads the trace with progress on stderr, and warns about what it had to clamp.
pub(crate) fn read_trace(path: &Path, runtime: &RuntimeSchema) -> Result<Trace, Error> {
    let cannot = |source| Error::Read { path: path.to_owned(), source };
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
    let trace = trace.map_err(|source| Error::Trace { path: path.to_owned(), source })?;
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
) -> Result<Profile, Error> {
    if trace.frames.is_empty() {
        return Err(Error::Invalid(format!("{}: the trace has no frames", a.trace.display())));
    }
    let clients = trace.clients();
    let chosen: Vec<Option<String>> = match &a.client {
        Some(c) if !clients.is_empty() && !clients.contains(c) => {
            return Err(Error::Invalid(format!(
                "client `{c}` is not in the trace (clients: {})",
                clients.join(", ")
            )));
        }
        Some(c) => vec![Some(c.clone())],
        None if a.all_clients && !clients.is_empty() => clients.iter().cloned().map(Some).collect(),
        None => vec![clients.first().cloned()],
    };
    let rate_hz = a
        .rate_hz
        .or_else(|| trace.header.as_ref().and_then(|h| h.rate_hz))
        .or_else(|| runtime.schema.rate.map(f64::from))
        .unwrap_or(DEFAULT_RATE_HZ);
    let stem =
        a.trace.file_stem().map_or_else(|| "trace".into(), |s| s.to_string_lossy().into_owned());
    let config = RunConfig::new(a.latency, a.loss, a.seed);
    // A trace with times replays its frames where they happened; the latency stays in frames
    // of the nominal rate.
    let times = trace.times();
    let timing = match &times {
        Some(t) => {
            format!(", timed ({:.1} s)", t.last().unwrap_or(&0.0) - t.first().unwrap_or(&0.0))
        }
        None => String::new(),
    };
    let prior = match &a.prior {
        Some(path) => {
            let bytes =
                std::fs::read(path).map_err(|source| Error::Read { path: path.clone(), source })?;
            Some(&*Box::leak(bytes.into_boxed_slice()))
        }
        None => None,
    };
    let names: Vec<&str> = match a.techniques.as_slice() {
        [] => techniques::NAMES.to_vec(),
        chosen => chosen.iter().map(String::as_str).collect(),
    };
    let mut reports = Vec::new();
    let mut keyframes = Vec::new();
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
            "profiling {} frames{seen_by}, {mean:.0} entities per frame on average, at {rate_hz} Hz{timing}",
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
        let events = trace.events(client.as_deref());
        let recording = profile::Recording {
            snapshots: &snapshots,
            training,
            times: times.as_deref(),
            events: &events,
        };
        let report = profile::measure(
            &scenario,
            runtime.schema,
            recording,
            rate_hz,
            &config,
            &names,
            Netschema { budget: a.budget, policy: a.policy, prior, ..Netschema::default() },
        )
        .map_err(Error::Technique)?;
        let fits = report
            .fields
            .as_ref()
            .map(|fields| KeyframeReport::new(runtime.schema, &snapshots, fields, report.rate_hz));
        keyframes.push(fits);
        reports.push(report);
    }
    let duration = times.as_ref().map(|t| t.last().unwrap_or(&0.0) - t.first().unwrap_or(&0.0));
    let parameters = vec![
        ("schema", a.schema.display().to_string()),
        ("trace", a.trace.display().to_string()),
        ("frames", trace.frames.len().to_string()),
        (
            "timing",
            match duration {
                Some(d) => {
                    format!("the trace's times ({d:.2} s); latency in frames at {rate_hz} Hz")
                }
                None => format!("evenly spaced at {rate_hz} Hz"),
            },
        ),
        (
            "clients",
            match chosen.as_slice() {
                [None] => "everything (the trace has no visible sets)".into(),
                _ => chosen.iter().flatten().cloned().collect::<Vec<_>>().join(", "),
            },
        ),
        ("latency", format!("{} frames, one way", a.latency)),
        ("loss", format!("{:.1} % of packets and acks", a.loss * 100.0)),
        ("seed", a.seed.to_string()),
        (
            "budget",
            match a.budget {
                Some(bytes) => format!("{bytes} bytes per netschema packet"),
                None => "none".into(),
            },
        ),
        ("model policy", a.policy.unwrap_or(runtime.schema.policy).to_string()),
        (
            "prior",
            a.prior
                .as_ref()
                .map_or_else(|| "none (cold models)".into(), |p| p.display().to_string()),
        ),
        ("warm-up", format!("{} frames left out of the statistics", config.warmup)),
        ("techniques", names.join(", ")),
        ("netschema", env!("CARGO_PKG_VERSION").to_owned()),
    ];
    Ok(Profile { reports, keyframes, parameters })
}

/// Prints the tables, writes the files asked for and checks every decoded frame.
fn finish(a: &Args, profile: &Profile) -> Result<Outcome, Error> {
    let reports = &profile.reports;
    for (report, keyframes) in reports.iter().zip(&profile.keyframes) {
        println!("{}", report.table());
        if let Some(fields) = &report.fields {
            println!("{}", fields.table());
        }
        if let Some(keyframes) = keyframes {
            println!("{}", keyframes.table());
        }
    }
    report::write_files(a.json.as_deref(), a.plot.as_deref(), reports).map_err(Error::Report)?;
    if let Some(path) = &a.report {
        html::write(path, reports, &profile.parameters)
            .map_err(|e| Error::Write { path: path.clone(), source: std::io::Error::other(e) })?;
        eprintln!("wrote {}", path.display());
    }
    let failed = report::unverified(reports);
    if failed.is_empty() {
        return Ok(Outcome::Clean);
    }
    eprintln!("error: decoded frames differ from their input: {}", failed.join(", "));
    Ok(Outcome::Findings)
}
