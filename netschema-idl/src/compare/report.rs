//! Statistics, tables, JSON and plots of comparison runs.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use plotters::prelude::*;

use super::profile::FieldReport;
use super::{Error, TechniqueResult};

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
    pub capture_us: f64,
    /// Median decode time per packet, µs.
    pub decode_us: f64,
    /// Server-side bytes per client.
    pub client_memory_bytes: usize,
    /// Client-side bytes.
    pub decoder_memory_bytes: usize,
    /// Every decoded frame matched its input.
    pub verified: bool,
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
            capture_us: median_us(&r.capture[skip.min(r.capture.len())..]),
            decode_us: median_us(&r.decode[dec_skip..]),
            client_memory_bytes: r.server_memory,
            decoder_memory_bytes: r.client_memory,
            verified: r.verified(),
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
            self.rate_hz,
            self.latency,
            self.loss * 100.0
        );
        let _ = writeln!(
            s,
            "{:<10} {:>9} {:>8} {:>7} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10} {:>8}",
            "technique",
            "B/frame",
            "std",
            "max",
            "kbit/s",
            "enc µs",
            "shared µs",
            "dec µs",
            "server B",
            "client B",
            "verified"
        );
        for m in self.summaries() {
            let _ = writeln!(
                s,
                "{:<10} {:>9.1} {:>8.1} {:>7} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>10} {:>10} {:>8}",
                m.name,
                m.bytes_mean,
                m.bytes_std,
                m.bytes_max,
                m.kbps,
                m.encode_us,
                m.capture_us,
                m.decode_us,
                m.client_memory_bytes,
                m.decoder_memory_bytes,
                if m.verified { "yes" } else { "NO" }
            );
        }
        for r in &self.results {
            if let Some(e) = &r.first_error {
                let _ = writeln!(s, "  {}: {} mismatches, first: {e}", r.name, r.mismatches);
            }
        }
        s
    }
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
/// `{"scenario", "frames", "latency", "loss", "techniques": [{"name", "bytes_mean",
/// "bytes_std", "bytes_max", "kbps", "encode_us", "decode_us", "client_memory_bytes",
/// "verified"}]}` (plus `"capture_us"`, the shared per-frame work left out of `encode_us`, and
/// `"decoder_memory_bytes"`, the client's state; `client_memory_bytes` is what the server keeps
/// per client). A report with per-field costs adds `"fields": {"frames", "total_bits",
/// "structure_bits", "rows": [{"field", "bits_per_frame", "share", "values_per_frame",
/// "bits_per_value", "unchanged", "unpredicted", "predictors": {NAME: fraction}}]}`.
pub fn to_json(reports: &[ScenarioReport]) -> String {
    let mut s = String::from("[\n");
    for (i, r) in reports.iter().enumerate() {
        let _ = writeln!(
            s,
            "  {{\"scenario\": {}, \"frames\": {}, \"latency\": {}, \"loss\": {}, \"techniques\": [",
            json_str(&r.scenario),
            r.frames,
            r.latency,
            json_num(r.loss)
        );
        let sums = r.summaries();
        for (j, m) in sums.iter().enumerate() {
            let _ = writeln!(
                s,
                "    {{\"name\": {}, \"bytes_mean\": {}, \"bytes_std\": {}, \"bytes_max\": {}, \"kbps\": {}, \"encode_us\": {}, \"capture_us\": {}, \"decode_us\": {}, \"client_memory_bytes\": {}, \"decoder_memory_bytes\": {}, \"verified\": {}}}{}",
                json_str(&m.name),
                json_num(m.bytes_mean),
                json_num(m.bytes_std),
                m.bytes_max,
                json_num(m.kbps),
                json_num(m.encode_us),
                json_num(m.capture_us),
                json_num(m.decode_us),
                m.client_memory_bytes,
                m.decoder_memory_bytes,
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
fn colour_of(name: &str) -> RGBColor {
    match name {
        "BC" => RGBColor(120, 120, 120),
        "BD-Z6" => RGBColor(31, 119, 180),
        "BD-Z9" => RGBColor(23, 190, 207),
        "BD-zstd" => RGBColor(148, 103, 189),
        "PD-Z6" => RGBColor(255, 127, 14),
        "fiedler" => RGBColor(44, 160, 44),
        "netschema" => RGBColor(214, 39, 40),
        _ => RGBColor(140, 86, 75),
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

/// Writes an SVG plot of bytes per frame over time, one panel per scenario and one line per
/// technique, on a logarithmic scale.
pub fn write_plot(path: &Path, reports: &[ScenarioReport]) -> Result<(), Error> {
    let plot_err = |e: &dyn std::fmt::Display| Error::Io(std::io::Error::other(e.to_string()));
    let panels = reports.len().max(1);
    let root = SVGBackend::new(path, (1100, 380 * panels as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(&e))?;
    let areas = root.split_evenly((panels, 1));
    for (area, report) in areas.iter().zip(reports) {
        let frames = report.results.iter().map(|r| r.bytes.len()).max().unwrap_or(1).max(2);
        let max = report.results.iter().flat_map(|r| r.bytes.iter().copied()).max().unwrap_or(1);
        let min = report.results.iter().flat_map(|r| r.bytes.iter().copied()).min().unwrap_or(1);
        let top = (max as f64 * 1.5).max(10.0);
        let bottom = (min as f64 / 1.5).clamp(1.0, top / 10.0);
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!(
                    "{}: bytes per frame (latency {} frames, loss {:.0} %)",
                    report.scenario,
                    report.latency,
                    report.loss * 100.0
                ),
                ("sans-serif", 18),
            )
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(
                0u32..frames as u32,
                (bottom..top).log_scale().with_key_points(ticks_125(bottom, top)),
            )
            .map_err(|e| plot_err(&e))?;
        chart
            .configure_mesh()
            .x_desc("frame")
            .y_desc("bytes")
            .y_label_formatter(&|v| format!("{v:.0}"))
            .draw()
            .map_err(|e| plot_err(&e))?;
        for r in &report.results {
            let colour = colour_of(&r.name);
            chart
                .draw_series(LineSeries::new(
                    r.bytes.iter().enumerate().map(|(i, &b)| (i as u32, (b as f64).max(bottom))),
                    colour.stroke_width(1),
                ))
                .map_err(|e| plot_err(&e))?
                .label(r.name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| plot_err(&e))?;
    }
    root.present().map_err(|e| plot_err(&e))?;
    Ok(())
}
