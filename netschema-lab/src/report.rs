//! Statistics, tables, JSON and plots of comparison runs.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use plotters::prelude::*;

use super::profile::FieldReport;
use super::{Error, HeldStats, RecordStats, TechniqueResult};

/// Every technique's results on one scenario.
#[derive(Clone, Debug)]
pub struct ScenarioReport {
    /// Scenario name.
    pub scenario: String,
    /// Frames simulated.
    pub frames: usize,
    /// Frame rate, for kbit/s.
    pub rate_hz: f64,
    /// One-way latency in frames.
    pub latency: u32,
    /// Loss probability.
    pub loss: f64,
    /// Results, in table order.
    pub results: Vec<TechniqueResult>,
    /// netschema's per-field costs, when they were measured (`netschema profile`).
    pub fields: Option<FieldReport>,
}

/// Summary figures of one technique.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Technique name.
    pub name: String,
    /// Mean packet bytes per frame (after the warm-up).
    pub bytes_mean: f64,
    /// Standard deviation of packet bytes.
    pub bytes_std: f64,
    /// Largest packet.
    pub bytes_max: usize,
    /// kbit/s at the scenario's frame rate.
    pub kbps: f64,
    /// Median encode time per frame, µs.
    pub encode_us: f64,
    /// Median time of the shared per-frame work (world capture), µs; 0 for most techniques.
    pub shared_us: f64,
    /// Median decode time per packet, µs.
    pub decode_us: f64,
    /// Server-side bytes per client.
    pub server_bytes: usize,
    /// Client-side bytes.
    pub client_bytes: usize,
    /// Every decoded frame matched its input.
    pub verified: bool,
    /// What the client held, for a technique that records it ([`TechniqueResult::held`]).
    pub held: Option<HeldSummary>,
    /// What its record stream did with the run's events, for a technique that carries them
    /// ([`TechniqueResult::records`]).
    pub records: Option<RecordSummary>,
    /// Bytes of the first [`START_FRAMES`] packets (warm-up included): what a connection's
    /// start costs, which a prior lowers.
    pub start_bytes: usize,
    /// Bytes of every packet of the run.
    pub total_bytes: usize,
}

impl Summary {
    /// The technique's row: one cell per [`COLUMNS`] entry, as both tables print it.
    pub fn cells(&self) -> [String; COLUMNS.len()] {
        [
            self.name.clone(),
            format!("{:.1}", self.bytes_mean),
            format!("{:.1}", self.bytes_std),
            self.bytes_max.to_string(),
            format!("{:.1}", self.kbps),
            format!("{:.1}", self.encode_us),
            format!("{:.1}", self.shared_us),
            format!("{:.1}", self.decode_us),
            self.server_bytes.to_string(),
            self.client_bytes.to_string(),
            self.start_bytes.to_string(),
            self.total_bytes.to_string(),
            if self.verified { "yes" } else { "NO" }.to_string(),
        ]
    }
}

/// Frames whose bytes [`Summary::start_bytes`] adds up: a second at 60 Hz.
pub const START_FRAMES: usize = 60;

/// Summary figures of what a client held ([`HeldStats`]), the columns of
/// [`HELD_COLUMNS`] after the bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeldSummary {
    /// Mean staleness, frames.
    pub staleness_mean: f64,
    /// 99th percentile of the staleness, frames.
    pub staleness_p99: u32,
    /// Mean absolute error of numeric values, raw steps.
    pub error_mean: f64,
    /// Largest absolute error, raw steps.
    pub error_max: u64,
}

impl HeldSummary {
    /// The figures of `stats`.
    pub fn of(stats: &HeldStats) -> HeldSummary {
        HeldSummary {
            staleness_mean: stats.staleness_mean(),
            staleness_p99: stats.staleness_p99(),
            error_mean: stats.error_mean(),
            error_max: stats.error_max,
        }
    }
}

/// Summary figures of a record stream ([`RecordStats`]), the columns of [`RECORD_COLUMNS`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecordSummary {
    /// Events the run sent.
    pub events: u64,
    /// Records queued: the events whose subject the client saw.
    pub queued: u64,
    /// Events the full record queue refused (the client stopped acknowledging).
    pub refused: u64,
    /// Records applied, each as queued.
    pub applied: u64,
    /// Bytes of records per frame, repairs included (without their headers).
    pub record_bytes: f64,
    /// Times a record was put in a packet, per record queued.
    pub sends_per_record: f64,
    /// Mean frames from queued to applied.
    pub delay_mean: f64,
    /// 99th percentile of the same.
    pub delay_p99: u32,
}

impl RecordSummary {
    /// The figures of `stats` over a run of `frames` frames.
    pub fn of(stats: &RecordStats, frames: usize) -> RecordSummary {
        RecordSummary {
            events: stats.events,
            queued: stats.queued,
            refused: stats.refused,
            applied: stats.applied,
            record_bytes: stats.bytes as f64 / frames.max(1) as f64,
            sends_per_record: stats.sends_per_record(),
            delay_mean: stats.delay_mean(),
            delay_p99: stats.delay_p99(),
        }
    }
}

/// The columns of the table "netschema: events" ([`ScenarioReport::records_table`]), for a
/// scenario whose frames send events: netschema carries them in its record stream, sent once
/// and again only when their packet is known lost (the other techniques carry none).
pub const RECORD_COLUMNS: [(&str, &str); 9] = [
    ("technique", "netschema (or a variant)"),
    ("events", "events the scenario sent"),
    ("queued", "records queued: the events whose subject the client saw"),
    ("refused", "events the full record queue refused (acks stopped)"),
    ("applied", "records the client applied, each checked against the one queued"),
    ("record_bytes", "bytes of records per frame, repairs included, without their ~11-bit headers"),
    ("sends", "times a record was put in a packet, per record"),
    ("delay_mean", "mean frames from queued to applied, the link's latency included"),
    ("delay_p99", "99th percentile of the same, frames"),
];

/// The columns of [`ScenarioReport::table`], each with its meaning; the table's headers are
/// the keys of [`to_json`]'s technique objects.
pub const COLUMNS: [(&str, &str); 13] = [
    ("technique", "the technique's name (see the technique legend)"),
    ("bytes_mean", "mean packet bytes per frame, after the warm-up"),
    ("bytes_std", "standard deviation of packet bytes per frame"),
    ("bytes_max", "largest packet, bytes"),
    ("kbps", "mean kilobits per second at the scenario's frame rate"),
    ("encode_us", "median encode time per frame and client, microseconds"),
    ("shared_us", "median per-frame work shared by all clients (world capture), microseconds"),
    ("decode_us", "median decode time per packet, microseconds"),
    ("server_bytes", "memory the server keeps per client, bytes"),
    ("client_bytes", "memory of the client's decoder, bytes"),
    ("start_bytes", "bytes of the first 60 packets, warm-up included: a connection's start"),
    ("total_bytes", "bytes of every packet of the run"),
    ("verified", "whether every decoded frame equalled its input (or netschema's record)"),
];

/// The columns of the second table, "netschema: what the client holds", printed when a
/// technique records what its client holds (netschema with a byte budget or tolerances); the
/// last four are also keys of that technique's JSON object. Staleness counts every decoded
/// frame after the warm-up times every entity the client holds in it (0: its values were sent
/// in that frame); errors leave out bools and enums and take wrapping fields the short way.
pub const HELD_COLUMNS: [(&str, &str); 7] = [
    ("technique", "netschema (netschema-tol: with the bench's --tolerance overrides)"),
    ("bytes_mean", "mean packet bytes per frame, after the warm-up"),
    ("bytes_max", "largest packet, bytes (at most the budget)"),
    ("staleness_mean", "mean frames since the values held of an entity were the input's"),
    ("staleness_p99", "99th percentile of the same, frames"),
    ("error_mean", "mean |decoded - input| of numeric values at the same frame, raw steps"),
    ("error_max", "largest such difference, raw steps"),
];

/// [`COLUMNS`] and [`HELD_COLUMNS`] as indented lines, for `--help` texts.
pub fn columns() -> String {
    let lines = |columns: &[(&str, &str)]| -> String {
        columns.iter().map(|(key, what)| format!("  {key:<15} {what}\n")).collect()
    };
    format!(
        "{}with a byte budget or tolerances, a second table, \"netschema: what the client holds\":\n{}\
         in a scenario that sends events (the arena), \"netschema: events, one a record\":\n{}",
        lines(&COLUMNS),
        lines(&HELD_COLUMNS),
        lines(&RECORD_COLUMNS)
    )
}

fn median_us(v: &[Duration]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s: Vec<Duration> = v.to_vec();
    s.sort_unstable();
    s[s.len() / 2].as_secs_f64() * 1e6
}

impl Summary {
    /// Summarises `r` at `rate_hz` frames per second.
    pub fn of(r: &TechniqueResult, rate_hz: f64) -> Summary {
        let skip = r.warmup.min(r.bytes.len().saturating_sub(1));
        let bytes = &r.bytes[skip..];
        let n = bytes.len().max(1) as f64;
        let mean = bytes.iter().sum::<usize>() as f64 / n;
        let var = bytes.iter().map(|&b| (b as f64 - mean).powi(2)).sum::<f64>() / n;
        let enc = &r.encode[skip.min(r.encode.len())..];
        let dec_skip = skip.min(r.decode.len());
        Summary {
            name: r.name.clone(),
            bytes_mean: mean,
            bytes_std: var.sqrt(),
            bytes_max: bytes.iter().copied().max().unwrap_or(0),
            kbps: mean * 8.0 * rate_hz / 1000.0,
            encode_us: median_us(enc),
            shared_us: median_us(&r.capture[skip.min(r.capture.len())..]),
            decode_us: median_us(&r.decode[dec_skip..]),
            server_bytes: r.server_memory,
            client_bytes: r.client_memory,
            verified: r.verified(),
            held: r.held.as_ref().map(HeldSummary::of),
            records: r.records.as_ref().map(|x| RecordSummary::of(x, r.bytes.len())),
            start_bytes: r.bytes.iter().take(START_FRAMES).sum(),
            total_bytes: r.bytes.iter().sum(),
        }
    }
}

impl ScenarioReport {
    /// Summaries of every technique.
    pub fn summaries(&self) -> Vec<Summary> {
        self.results.iter().map(|r| Summary::of(r, self.rate_hz)).collect()
    }

    /// The table printed for this scenario.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{}: {} frames at {} Hz, latency {} frames, loss {:.1} %",
            self.scenario,
            self.frames,
            hz(self.rate_hz),
            self.latency,
            self.loss * 100.0
        );
        let w = self.results.iter().map(|r| r.name.len()).max().unwrap_or(0).max(10);
        let widths = [w, 10, 9, 9, 9, 9, 9, 9, 12, 12, 11, 11, 8];
        let row = |s: &mut String, cells: [String; COLUMNS.len()]| {
            for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
                let _ = match i {
                    0 => write!(s, "{cell:<width$}"),
                    _ => write!(s, " {cell:>width$}"),
                };
            }
            s.push('\n');
        };
        row(&mut s, COLUMNS.map(|(key, _)| key.to_string()));
        for m in self.summaries() {
            row(&mut s, m.cells());
        }
        if let Some((peer, ratio)) = self.netschema_ratio() {
            let _ = writeln!(s, "netschema / best other technique ({peer}): {ratio:.2}");
        }
        if let Some(ratio) = self.tolerance_ratio() {
            let _ = writeln!(s, "netschema-tol / netschema: {ratio:.2}");
        }
        for r in &self.results {
            if let Some(e) = &r.first_error {
                let _ = writeln!(s, "  {}: {} mismatches, first: {e}", r.name, r.mismatches);
            }
        }
        s.push_str(&self.held_table());
        s.push_str(&self.records_table());
        s
    }

    /// The table "netschema: events" ([`RECORD_COLUMNS`]), empty unless a technique carried
    /// the scenario's events.
    pub fn records_table(&self) -> String {
        let mut s = String::new();
        let rows: Vec<(String, RecordSummary)> =
            self.summaries().into_iter().filter_map(|m| Some((m.name, m.records?))).collect();
        if rows.is_empty() {
            return s;
        }
        let c = RECORD_COLUMNS.map(|(key, _)| key);
        let _ = writeln!(s, "netschema: events, one a record");
        let _ = writeln!(
            s,
            "{:<13} {:>7} {:>7} {:>7} {:>7} {:>12} {:>6} {:>10} {:>9}",
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]
        );
        for (name, r) in rows {
            let _ = writeln!(
                s,
                "{:<13} {:>7} {:>7} {:>7} {:>7} {:>12.2} {:>6.2} {:>10.1} {:>9}",
                name,
                r.events,
                r.queued,
                r.refused,
                r.applied,
                r.record_bytes,
                r.sends_per_record,
                r.delay_mean,
                r.delay_p99
            );
        }
        s
    }

    /// The table "netschema: what the client holds" ([`HELD_COLUMNS`]), empty unless a
    /// technique recorded what its client held.
    pub fn held_table(&self) -> String {
        let mut s = String::new();
        let rows: Vec<(Summary, HeldSummary)> =
            self.summaries().into_iter().filter_map(|m| Some((m.clone(), m.held?))).collect();
        if rows.is_empty() {
            return s;
        }
        let c = HELD_COLUMNS.map(|(key, _)| key);
        let _ = writeln!(s, "netschema: what the client holds (after the warm-up)");
        let _ = writeln!(
            s,
            "{:<13} {:>10} {:>9} {:>14} {:>13} {:>10} {:>9}",
            c[0], c[1], c[2], c[3], c[4], c[5], c[6]
        );
        for (m, h) in rows {
            let _ = writeln!(
                s,
                "{:<13} {:>10.1} {:>9} {:>14.2} {:>13} {:>10.3} {:>9}",
                m.name,
                m.bytes_mean,
                m.bytes_max,
                h.staleness_mean,
                h.staleness_p99,
                h.error_mean,
                h.error_max
            );
        }
        s
    }

    /// `netschema-tol`'s mean bytes per frame divided by `netschema`'s, if both ran.
    pub fn tolerance_ratio(&self) -> Option<f64> {
        let summaries = self.summaries();
        let mean = |name: &str| summaries.iter().find(|m| m.name == name).map(|m| m.bytes_mean);
        Some(mean("netschema-tol")? / mean("netschema")?)
    }

    /// netschema's mean bytes per frame divided by the smallest of the other techniques', with
    /// that technique's name; `None` unless netschema and another technique (not
    /// `netschema-tol`) ran.
    pub fn netschema_ratio(&self) -> Option<(String, f64)> {
        let summaries = self.summaries();
        let ours = summaries.iter().find(|m| m.name == "netschema")?;
        let best = summaries
            .iter()
            .filter(|m| !is_netschema(&m.name))
            .min_by(|a, b| a.bytes_mean.total_cmp(&b.bytes_mean))?;
        Some((best.name.clone(), ours.bytes_mean / best.bytes_mean))
    }
}

/// Whether technique `name` is netschema (`netschema` or `netschema-tol`).
pub(crate) fn is_netschema(name: &str) -> bool {
    name == "netschema" || name == "netschema-tol"
}

/// A frame rate to at most three decimals (`30`, `29.704`): a recording's mean rate is rarely
/// a round number.
pub(crate) fn hz(rate: f64) -> String {
    let text = format!("{rate:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// `s` as a JSON string literal.
pub(crate) fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `v` as a JSON number with three decimals (`null` if not finite).
pub(crate) fn json_num(v: f64) -> String {
    if v.is_finite() { format!("{v:.3}") } else { "null".into() }
}

/// The JSON of several scenario reports: an array with one object per scenario,
/// `{"scenario", "frames", "rate_hz", "latency", "loss", "techniques": [...]}`, one technique
/// object per table row with the table's columns as keys ([`COLUMNS`]: `"technique"`,
/// `"bytes_mean"`, ..., `"verified"`), followed for a technique that records what its client
/// holds by the last four [`HELD_COLUMNS`] (`"staleness_mean"`, `"staleness_p99"`,
/// `"error_mean"`, `"error_max"`), and for one that carried the scenario's events by
/// `"records": {KEY: value}` with the keys of [`RECORD_COLUMNS`] after `"technique"`. A report with per-field costs adds `"fields": {"frames", "total_bits",
/// "structure_bits", "structure": {PART: bits}, "rows": [{"field", "bits_per_frame", "share", "values_per_frame",
/// "bits_per_value", "unchanged", "unpredicted", "unpredicted_bits", "tolerance", "predictors":
/// {NAME: fraction}}]}` (`"unpredicted_bits"` per value without a prediction, `"tolerance"` in
/// raw steps).
pub fn to_json(reports: &[ScenarioReport]) -> String {
    let mut s = String::from("[\n");
    for (i, r) in reports.iter().enumerate() {
        let _ = writeln!(
            s,
            "  {{\"scenario\": {}, \"frames\": {}, \"rate_hz\": {}, \"latency\": {}, \"loss\": {}, \"techniques\": [",
            json_str(&r.scenario),
            r.frames,
            json_num(r.rate_hz),
            r.latency,
            json_num(r.loss)
        );
        let sums = r.summaries();
        for (j, m) in sums.iter().enumerate() {
            let held = m.held.map_or_else(String::new, |h| {
                format!(
                    ", \"staleness_mean\": {}, \"staleness_p99\": {}, \"error_mean\": {}, \"error_max\": {}",
                    json_num(h.staleness_mean),
                    h.staleness_p99,
                    json_num(h.error_mean),
                    h.error_max
                )
            });
            let records = m.records.map_or_else(String::new, |r| {
                format!(
                    ", \"records\": {{\"events\": {}, \"queued\": {}, \"refused\": {}, \"applied\": {}, \"record_bytes\": {}, \"sends\": {}, \"delay_mean\": {}, \"delay_p99\": {}}}",
                    r.events,
                    r.queued,
                    r.refused,
                    r.applied,
                    json_num(r.record_bytes),
                    json_num(r.sends_per_record),
                    json_num(r.delay_mean),
                    r.delay_p99
                )
            });
            let _ = writeln!(
                s,
                "    {{\"technique\": {}, \"bytes_mean\": {}, \"bytes_std\": {}, \"bytes_max\": {}, \"kbps\": {}, \"encode_us\": {}, \"shared_us\": {}, \"decode_us\": {}, \"server_bytes\": {}, \"client_bytes\": {}, \"start_bytes\": {}, \"total_bytes\": {}, \"verified\": {}{held}{records}}}{}",
                json_str(&m.name),
                json_num(m.bytes_mean),
                json_num(m.bytes_std),
                m.bytes_max,
                json_num(m.kbps),
                json_num(m.encode_us),
                json_num(m.shared_us),
                json_num(m.decode_us),
                m.server_bytes,
                m.client_bytes,
                m.start_bytes,
                m.total_bytes,
                m.verified,
                if j + 1 < sums.len() { "," } else { "" }
            );
        }
        let fields =
            r.fields.as_ref().map_or_else(String::new, |f| format!(", \"fields\": {}", f.json()));
        let _ = writeln!(s, "  ]{fields}}}{}", if i + 1 < reports.len() { "," } else { "" });
    }
    s.push_str("]\n");
    s
}

/// Writes [`to_json`] to `path`.
pub fn write_json(path: &Path, reports: &[ScenarioReport]) -> Result<(), Error> {
    std::fs::write(path, to_json(reports))?;
    Ok(())
}

/// Writes [`to_json`] to `json` and [`write_plot`] to `plot`, where given, creating their
/// folders, and says so on stderr; the error names the file.
pub fn write_files(
    json: Option<&Path>,
    plot: Option<&Path>,
    reports: &[ScenarioReport],
) -> Result<(), Error> {
    type Write = fn(&Path, &[ScenarioReport]) -> Result<(), Error>;
    let outputs: [(Option<&Path>, Write); 2] = [(json, write_json), (plot, write_plot)];
    for (path, write) in outputs {
        let Some(path) = path else { continue };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(dir);
        }
        write(path, reports).map_err(|e| {
            Error::Io(std::io::Error::other(format!("cannot write {}: {e}", path.display())))
        })?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// `scenario/technique` for every technique whose decoded frames did not all match their
/// input.
pub fn unverified(reports: &[ScenarioReport]) -> Vec<String> {
    reports
        .iter()
        .flat_map(|r| {
            r.results
                .iter()
                .filter(|t| !t.verified())
                .map(move |t| format!("{}/{}", r.scenario, t.name))
        })
        .collect()
}

/// The line colour of a technique: fixed per name, so every panel uses the same colours.
pub(crate) fn colour_of(name: &str) -> RGBColor {
    match name {
        "BC" => RGBColor(120, 120, 120),
        "BD-Z6" => RGBColor(31, 119, 180),
        "BD-Z9" => RGBColor(23, 190, 207),
        "BD-zstd" => RGBColor(148, 103, 189),
        "PD-Z6" => RGBColor(255, 127, 14),
        "fiedler" => RGBColor(44, 160, 44),
        "N4E" => RGBColor(188, 189, 34),
        "Q3" => RGBColor(140, 86, 75),
        "naia" => RGBColor(227, 119, 194),
        "naia-zd" => RGBColor(123, 65, 115),
        "netschema" => RGBColor(214, 39, 40),
        "netschema-tol" => RGBColor(255, 152, 150),
        _ => RGBColor(0, 0, 0),
    }
}

/// Tick values 1, 2 and 5 times a power of ten inside `[lo, hi]`: a log axis labelled even
/// when it spans less than a decade.
fn ticks_125(lo: f64, hi: f64) -> Vec<f64> {
    let mut ticks = Vec::new();
    let mut decade = 10f64.powi(lo.log10().floor() as i32);
    while decade <= hi {
        for m in [1.0, 2.0, 5.0] {
            let v = m * decade;
            if (lo..=hi).contains(&v) {
                ticks.push(v);
            }
        }
        decade *= 10.0;
    }
    ticks
}

/// Width of the legend beside each panel of [`write_plot`], pixels.
const LEGEND_WIDTH: u32 = 150;

/// Writes an SVG plot of bytes per frame over time, one panel per scenario and one line per
/// technique, on a logarithmic scale, with each panel's legend beside its plot area.
pub fn write_plot(path: &Path, reports: &[ScenarioReport]) -> Result<(), Error> {
    let root = SVGBackend::new(path, plot_size(reports)).into_drawing_area();
    draw_plot(&root, reports)?;
    root.present().map_err(|e| plot_err(&e))
}

/// The plot of [`write_plot`] as SVG text, to put inside a page.
pub fn plot_svg(reports: &[ScenarioReport]) -> Result<String, Error> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, plot_size(reports)).into_drawing_area();
        draw_plot(&root, reports)?;
        root.present().map_err(|e| plot_err(&e))?;
    }
    Ok(svg)
}

/// Width of the plot of bytes per frame, pixels.
const PLOT_WIDTH: u32 = 1100;

/// The size of the plot of `reports`: one panel each.
fn plot_size(reports: &[ScenarioReport]) -> (u32, u32) {
    (PLOT_WIDTH, 380 * reports.len().max(1) as u32)
}

fn plot_err(e: &dyn std::fmt::Display) -> Error {
    Error::Io(std::io::Error::other(e.to_string()))
}

/// Draws the panels of [`write_plot`] on `root`.
fn draw_plot<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    reports: &[ScenarioReport],
) -> Result<(), Error> {
    let panels = reports.len().max(1);
    let width = PLOT_WIDTH;
    root.fill(&WHITE).map_err(|e| plot_err(&e))?;
    let areas = root.split_evenly((panels, 1));
    for (area, report) in areas.iter().zip(reports) {
        let (plot_area, legend_area) = area.split_horizontally(width - LEGEND_WIDTH);
        let frames = report.results.iter().map(|r| r.bytes.len()).max().unwrap_or(1).max(2);
        let max = report.results.iter().flat_map(|r| r.bytes.iter().copied()).max().unwrap_or(1);
        let min = report.results.iter().flat_map(|r| r.bytes.iter().copied()).min().unwrap_or(1);
        let top = (max as f64 * 1.5).max(10.0);
        let bottom = (min as f64 / 1.5).clamp(1.0, top / 10.0);
        let mut chart = ChartBuilder::on(&plot_area)
            .caption(
                format!(
                    "{}: latency {} frames, loss {:.0} %, {} frames at {} Hz",
                    report.scenario,
                    report.latency,
                    report.loss * 100.0,
                    report.frames,
                    hz(report.rate_hz)
                ),
                ("sans-serif", 18),
            )
            .margin(10)
            // Room for the last frame's tick label, centred on the axis's end.
            .margin_right(25)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(
                0u32..frames as u32,
                (bottom..top).log_scale().with_key_points(ticks_125(bottom, top)),
            )
            .map_err(|e| plot_err(&e))?;
        chart
            .configure_mesh()
            .x_desc("frame")
            .y_desc("bytes per frame (log scale)")
            .y_label_formatter(&|v| format!("{v:.0}"))
            .draw()
            .map_err(|e| plot_err(&e))?;
        for (i, r) in report.results.iter().enumerate() {
            let colour = colour_of(&r.name);
            chart
                .draw_series(LineSeries::new(
                    r.bytes.iter().enumerate().map(|(i, &b)| (i as u32, (b as f64).max(bottom))),
                    colour.stroke_width(1),
                ))
                .map_err(|e| plot_err(&e))?;
            let y = 45 + 22 * i as i32;
            legend_area
                .draw(&PathElement::new(vec![(10, y), (34, y)], colour.stroke_width(2)))
                .map_err(|e| plot_err(&e))?;
            legend_area
                .draw(&Text::new(
                    r.name.clone(),
                    (42, y - 7),
                    ("sans-serif", 14).into_font().color(&BLACK),
                ))
                .map_err(|e| plot_err(&e))?;
        }
    }
    Ok(())
}

/// The default plot file of a run: `target/bench/<scenario>-latency<L>-loss<P>.svg`, with the
/// loss in percent (`all` when every scenario ran).
pub fn plot_path(scenario: &str, latency: u32, loss: f64) -> std::path::PathBuf {
    let loss = format!("{:.1}", loss * 100.0);
    let loss = loss.trim_end_matches('0').trim_end_matches('.');
    std::path::PathBuf::from(format!("target/bench/{scenario}-latency{latency}-loss{loss}.svg"))
}
