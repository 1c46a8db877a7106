//! The profile as one self-contained HTML page: what `netschema profile --report FILE.html`
//! writes, for a user to open and send to a colleague.
//!
//! Per scenario (one per client replayed): the technique table (and what netschema's client
//! held, under a byte budget or tolerances), bytes per frame over time (inline SVG), what each
//! field costs in bits per frame (sorted bars), which predictor coded each field's values
//! (stacked bars) and the field table; then the run's parameters. The page
//! loads nothing: styles and charts are inline, and its content security policy forbids every
//! fetch and every script.

use std::fmt::Write as _;
use std::path::Path;

use super::Error;
use super::profile::{FieldReport, FieldRow};
use super::report::{self, COLUMNS, HELD_COLUMNS, HeldSummary, ScenarioReport, Summary, hz};

/// The sections of each scenario, as the `class` of their `<section>`, in page order.
pub const SECTIONS: [&str; 4] = ["techniques", "bytes-per-frame", "field-costs", "predictors"];

/// The class of the run's parameters `<section>`.
pub const PARAMETERS: &str = "parameters";

/// Writes [`render`] to `path`.
pub fn write(
    path: &Path,
    reports: &[ScenarioReport],
    parameters: &[(&str, String)],
) -> Result<(), Error> {
    std::fs::write(path, render(reports, parameters)?)?;
    Ok(())
}

/// The page of `reports`, with `parameters` (name, value) listed at its end.
pub fn render(reports: &[ScenarioReport], parameters: &[(&str, String)]) -> Result<String, Error> {
    let title = match reports {
        [one] => format!("netschema profile: {}", one.scenario),
        _ => "netschema profile".to_owned(),
    };
    let mut page = String::with_capacity(64 * 1024);
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&title)
    );
    for report in reports {
        scenario(&mut page, report)?;
    }
    page.push_str(
        "<section class=\"parameters\">\n<h2>Run parameters</h2>\n<table class=\"kv\">\n",
    );
    for (name, value) in parameters {
        let _ = writeln!(page, "<tr><th>{}</th><td>{}</td></tr>", esc(name), esc(value));
    }
    page.push_str("</table>\n</section>\n</body>\n</html>\n");
    Ok(page)
}

/// Appends the sections of one scenario.
fn scenario(page: &mut String, report: &ScenarioReport) -> Result<(), Error> {
    let sums = report.summaries();
    let _ = writeln!(
        page,
        "<article>\n<h2>{}</h2>\n<p class=\"lead\">{} frames at {} Hz over a link with {} frames of latency and {:.1} % loss.{}</p>",
        esc(&report.scenario),
        report.frames,
        hz(report.rate_hz),
        report.latency,
        report.loss * 100.0,
        headline(&sums)
    );
    techniques(page, report, &sums);
    page.push_str("<section class=\"bytes-per-frame\">\n<h3>Bytes per frame over time</h3>\n");
    page.push_str("<p>Packet bytes of every frame, on a log scale; the first frames warm up.</p>\n<div class=\"chart\">");
    page.push_str(&report::plot_svg(std::slice::from_ref(report))?);
    page.push_str("</div>\n</section>\n");
    match &report.fields {
        Some(fields) => {
            field_costs(page, fields);
            predictors(page, fields);
        }
        None => {
            for (class, title) in [("field-costs", "Cost per field"), ("predictors", "Predictors")]
            {
                let _ = writeln!(
                    page,
                    "<section class=\"{class}\">\n<h3>{title}</h3>\n<p>netschema was not among the techniques run.</p>\n</section>"
                );
            }
        }
    }
    page.push_str("</article>\n");
    Ok(())
}

/// ` netschema sends 3.2× fewer bytes than BD-Z6, the best of the others.`, or nothing.
fn headline(sums: &[Summary]) -> String {
    let Some(ours) = sums.iter().find(|s| s.name == "netschema") else { return String::new() };
    let best = sums
        .iter()
        .filter(|s| !report::is_netschema(&s.name))
        .min_by(|a, b| a.bytes_mean.total_cmp(&b.bytes_mean));
    match best {
        Some(other) if ours.bytes_mean > 0.0 => format!(
            " netschema sends {:.1}× fewer bytes per frame than {}, the best of the others.",
            other.bytes_mean / ours.bytes_mean,
            esc(&other.name)
        ),
        _ => String::new(),
    }
}

/// The technique table.
fn techniques(page: &mut String, report: &ScenarioReport, sums: &[Summary]) {
    page.push_str("<section class=\"techniques\">\n<h3>Techniques</h3>\n<table>\n<thead><tr>");
    for (key, meaning) in COLUMNS {
        let _ = write!(page, "<th title=\"{}\">{key}</th>", esc(meaning));
    }
    page.push_str("</tr></thead>\n<tbody>\n");
    for m in sums {
        let colour = report::colour_of(&m.name);
        let class = if m.name == "netschema" { " class=\"ours\"" } else { "" };
        let _ = write!(page, "<tr{class}>");
        let last = COLUMNS.len() - 1;
        for (i, cell) in m.cells().iter().enumerate() {
            let _ = match i {
                0 => write!(
                    page,
                    "<td><span class=\"swatch\" style=\"background:{}\"></span>{}</td>",
                    rgb(colour),
                    esc(cell)
                ),
                _ if i == last && !m.verified => {
                    write!(page, "<td><strong class=\"bad\">{}</strong></td>", esc(cell))
                }
                _ => write!(page, "<td>{}</td>", esc(cell)),
            };
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</tbody>\n</table>\n");
    held_table(page, sums);
    for r in report.results.iter().filter(|r| r.first_error.is_some()) {
        let _ = writeln!(
            page,
            "<p class=\"bad\">{}: {} mismatches, first: {}</p>",
            esc(&r.name),
            r.mismatches,
            esc(r.first_error.as_deref().unwrap_or(""))
        );
    }
    page.push_str("<p class=\"note\">Hover a column name for its meaning. Times are medians.</p>\n</section>\n");
}

/// The table "netschema: what the client holds", if a technique recorded it.
fn held_table(page: &mut String, sums: &[Summary]) {
    let rows: Vec<(&Summary, HeldSummary)> =
        sums.iter().filter_map(|m| Some((m, m.held?))).collect();
    if rows.is_empty() {
        return;
    }
    page.push_str("<h4>netschema: what the client holds</h4>\n<table>\n<thead><tr>");
    for (key, meaning) in HELD_COLUMNS {
        let _ = write!(page, "<th title=\"{}\">{key}</th>", esc(meaning));
    }
    page.push_str("</tr></thead>\n<tbody>\n");
    for (m, h) in rows {
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td>{:.1}</td><td>{}</td><td>{:.2}</td><td>{}</td><td>{:.3}</td><td>{}</td></tr>",
            esc(&m.name),
            m.bytes_mean,
            m.bytes_max,
            h.staleness_mean,
            h.staleness_p99,
            h.error_mean,
            h.error_max
        );
    }
    page.push_str("</tbody>\n</table>\n");
}

/// Bits per frame of each field, sorted, with the structure row, then the field table.
fn field_costs(page: &mut String, fields: &FieldReport) {
    let mut rows: Vec<(&str, f64)> =
        fields.rows.iter().map(|r| (r.field.as_str(), r.bits_per_frame)).collect();
    rows.push(("(structure)", fields.structure_bits));
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    let max = rows.iter().map(|r| r.1).fold(0.0, f64::max).max(1e-9);
    let _ = writeln!(
        page,
        "<section class=\"field-costs\">\n<h3>Cost per field</h3>\n<p>Mean bits per frame of each scalar field in netschema's packets, over the {} frames after the warm-up ({:.1} bits per frame in all); <em>(structure)</em> is the packet header, entity flags, handles, check value and coder termination.</p>",
        fields.frames, fields.total_bits
    );
    let height = BAR_TOP + BAR_STEP * rows.len() as u32;
    let _ = write!(
        page,
        "<div class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {CHART_WIDTH} {height}\" width=\"{CHART_WIDTH}\" height=\"{height}\" role=\"img\" aria-label=\"bits per frame per field\">"
    );
    for (i, (field, bits)) in rows.iter().enumerate() {
        let y = BAR_TOP + BAR_STEP * i as u32;
        let width = bits / max * f64::from(BAR_WIDTH);
        let fill = if *field == "(structure)" { "#9e9e9e" } else { "#d62728" };
        bar_label(page, y, field);
        let _ = write!(
            page,
            "<rect x=\"{BAR_X}\" y=\"{y}\" width=\"{width:.1}\" height=\"{BAR_HEIGHT}\" fill=\"{fill}\"><title>{}: {bits:.2} bits per frame</title></rect>\
             <text x=\"{:.1}\" y=\"{}\" class=\"value\">{bits:.1}</text>",
            esc(field),
            f64::from(BAR_X) + width + 6.0,
            y + 13
        );
    }
    page.push_str("</svg></div>\n");
    field_table(page, fields);
    page.push_str("</section>\n");
}

/// The field table, as `netschema profile` prints it (with a tolerance column, raw steps, when
/// a field has one).
fn field_table(page: &mut String, fields: &FieldReport) {
    let tolerances = fields.has_tolerances();
    let _ = writeln!(
        page,
        "<table>\n<thead><tr><th>field</th><th>bits/frame</th><th>share</th><th>values/frame</th><th>bits/value</th><th>unchanged</th>{}<th class=\"text\">predictors</th></tr></thead>\n<tbody>",
        if tolerances { "<th title=\"raw steps\">tolerance</th>" } else { "" }
    );
    for r in &fields.rows {
        let tolerance =
            if tolerances { format!("<td>{}</td>", r.tolerance) } else { String::new() };
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td>{:.1}</td><td>{:.1} %</td><td>{:.1}</td><td>{:.2}</td><td>{:.1} %</td>{tolerance}<td class=\"text\">{}</td></tr>",
            esc(&r.field),
            r.bits_per_frame,
            r.share * 100.0,
            r.values_per_frame,
            r.bits_per_value,
            r.unchanged * 100.0,
            esc(&predictor_text(r))
        );
    }
    let span = if tolerances { 6 } else { 5 };
    let _ = writeln!(
        page,
        "<tr class=\"total\"><td>(structure)</td><td>{:.1}</td><td colspan=\"{span}\"></td></tr>",
        fields.structure_bits
    );
    for (name, bits) in &fields.parts {
        let _ = writeln!(
            page,
            "<tr><td>&#160;&#160;{}</td><td>{bits:.1}</td><td colspan=\"{span}\"></td></tr>",
            esc(name)
        );
    }
    let _ = writeln!(
        page,
        "<tr class=\"total\"><td>total</td><td>{:.1}</td><td colspan=\"{span}\"></td></tr>",
        fields.total_bits
    );
    page.push_str("</tbody>\n</table>\n");
}

/// `hold 12 % linear 80 %`, `transition model`.
fn predictor_text(r: &FieldRow) -> String {
    if r.predictors.is_empty() {
        return "transition model".into();
    }
    let mut parts: Vec<String> =
        r.predictors.iter().map(|(name, f)| format!("{name} {:.0} %", f * 100.0)).collect();
    if r.unpredicted > 0.0 {
        parts.push(format!("none {:.0} %", r.unpredicted * 100.0));
    }
    parts.join(", ")
}

/// Which predictor coded each field's values: one stacked bar per field.
fn predictors(page: &mut String, fields: &FieldReport) {
    page.push_str("<section class=\"predictors\">\n<h3>Predictors</h3>\n<p>The share of each field's coded values that each candidate predictor coded (chosen by which has been cheapest lately); <em>none</em> are values sent without prediction, as when an entity enters; bools and enums use a transition model instead.</p>\n<p class=\"legend\">");
    // The legend names what the bars show, each in the colour its segments have.
    let shown = |name: &str| {
        fields.rows.iter().any(|r| match name {
            "none" => r.unpredicted > 0.0 && !r.predictors.is_empty(),
            "transition model" => r.predictors.is_empty(),
            _ => r.predictors.iter().any(|&(p, share)| p == name && share > 0.0),
        })
    };
    for (name, colour) in PREDICTOR_COLOURS.into_iter().filter(|(name, _)| shown(name)) {
        let _ = write!(page, "<span class=\"swatch\" style=\"background:{colour}\"></span>{name} ");
    }
    page.push_str("</p>\n");
    let height = BAR_TOP + BAR_STEP * fields.rows.len() as u32;
    let _ = write!(
        page,
        "<div class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {CHART_WIDTH} {height}\" width=\"{CHART_WIDTH}\" height=\"{height}\" role=\"img\" aria-label=\"predictor shares per field\">"
    );
    for (i, r) in fields.rows.iter().enumerate() {
        let y = BAR_TOP + BAR_STEP * i as u32;
        bar_label(page, y, &r.field);
        let mut segments: Vec<(&str, f64)> = r.predictors.clone();
        segments.push(("none", r.unpredicted));
        if r.predictors.is_empty() {
            segments = vec![("transition model", 1.0)];
        }
        let mut x = f64::from(BAR_X);
        for (name, share) in segments.into_iter().filter(|s| s.1 > 0.0) {
            let width = share * f64::from(BAR_WIDTH);
            let _ = write!(
                page,
                "<rect x=\"{x:.1}\" y=\"{y}\" width=\"{width:.1}\" height=\"{BAR_HEIGHT}\" fill=\"{}\"><title>{}: {name} {:.1} %</title></rect>",
                predictor_colour(name),
                esc(&r.field),
                share * 100.0
            );
            x += width;
        }
    }
    page.push_str("</svg></div>\n</section>\n");
}

/// The label left of a bar at `y`.
fn bar_label(page: &mut String, y: u32, text: &str) {
    let _ = write!(
        page,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"label\">{}</text>",
        BAR_X - 8,
        y + 13,
        esc(text)
    );
}

/// Layout of the bar charts, pixels.
const CHART_WIDTH: u32 = 1000;
const BAR_X: u32 = 260;
const BAR_WIDTH: u32 = 640;
const BAR_TOP: u32 = 6;
const BAR_STEP: u32 = 24;
const BAR_HEIGHT: u32 = 18;

/// Colours of every name the profile gives a predictor (see `profile::fit_name`), of values
/// without prediction and of the transition model.
const PREDICTOR_COLOURS: [(&str, &str); 11] = [
    ("zero", "#7f7f7f"),
    ("hold", "#1f77b4"),
    ("linear", "#2ca02c"),
    ("quadratic", "#ff7f0e"),
    ("cubic", "#9467bd"),
    ("contract", "#e377c2"),
    ("linear fit", "#17becf"),
    ("quadratic fit", "#bcbd22"),
    ("fit", "#aec7e8"),
    ("none", "#d9d9d9"),
    ("transition model", "#8c564b"),
];

/// The colour of predictor `name` in the bars and the legend (a name the list lacks is drawn
/// in black, which the report's test refuses).
fn predictor_colour(name: &str) -> &'static str {
    PREDICTOR_COLOURS.iter().find(|(n, _)| *n == name).map_or("#000000", |(_, c)| c)
}

/// What is wrong with the shape of `page`, a page [`render`] wrote (or the DOM a browser made of
/// it), one line per flaw; empty if nothing. Per scenario: every row of the technique table has
/// one cell under each of its headers; the predictor legend shows exactly the colours the bars
/// are drawn in, and none is black (a name without a colour).
pub fn flaws(page: &str) -> Vec<String> {
    let mut flaws = Vec::new();
    let sections = |class: &'static str| {
        let open = format!("<section class=\"{class}\">");
        page.split(open.as_str())
            .skip(1)
            .map(|s| s.split_once("</section>").map_or(s, |(inside, _)| inside))
            .collect::<Vec<_>>()
    };
    for (i, table) in sections("techniques").into_iter().enumerate() {
        let table = table.split_once("</table>").map_or(table, |(t, _)| t);
        let headers = table.matches("<th ").count() + table.matches("<th>").count();
        if headers != COLUMNS.len() {
            flaws.push(format!("technique table {i}: {headers} headers, not {}", COLUMNS.len()));
        }
        let body = table.split_once("<tbody>").map_or("", |(_, b)| b);
        for row in body.split("<tr").skip(1) {
            let cells = row.matches("<td").count();
            if cells != headers {
                flaws.push(format!("technique table {i}: {cells} cells under {headers} headers"));
            }
        }
    }
    for (i, section) in sections("predictors").into_iter().enumerate() {
        let Some((legend, bars)) = section.split_once("<svg") else {
            flaws.push(format!("predictors {i}: no chart"));
            continue;
        };
        let legend = legend.rsplit_once("class=\"legend\"").map_or("", |(_, l)| l);
        let (swatches, fills) = (colours(legend, "background:"), colours(bars, "fill=\""));
        if fills != swatches {
            flaws.push(format!("predictors {i}: bars in {fills:?}, legend {swatches:?}"));
        }
        if fills.contains("#000000") {
            flaws.push(format!("predictors {i}: a predictor without a colour (black bars)"));
        }
    }
    flaws
}

/// The distinct seven-character colours (`#rrggbb`) that follow `key` in `text`.
fn colours<'a>(text: &'a str, key: &str) -> std::collections::BTreeSet<&'a str> {
    text.split(key).skip(1).filter_map(|f| f.get(..7)).collect()
}

fn rgb(c: plotters::style::RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// `text` with `&`, `<`, `>` and `"` escaped for HTML.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// The page's style sheet.
const STYLE: &str = "
body { font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; color: #1d1d1f; margin: 2em auto; max-width: 1120px; padding: 0 1.5em; }
h1 { font-size: 1.7em; margin-bottom: 0.2em; }
h2 { font-size: 1.35em; border-bottom: 2px solid #d62728; padding-bottom: 0.2em; margin-top: 1.6em; }
h3 { font-size: 1.1em; margin: 1.4em 0 0.4em; }
p.lead { font-size: 1.05em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 14px; font-variant-numeric: tabular-nums; }
th, td { padding: 0.25em 0.55em; border-bottom: 1px solid #e3e3e3; text-align: right; white-space: nowrap; }
th:first-child, td:first-child, td.text { text-align: left; }
th { background: #f5f5f7; font-weight: 600; }
th.text { text-align: left; }
tr.ours td { font-weight: 600; background: #fff4f4; }
tr.total td { font-weight: 600; }
table.kv th { text-align: left; }
table.kv td { text-align: left; font-family: ui-monospace, monospace; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.4em; border-radius: 2px; vertical-align: baseline; }
.chart { overflow-x: auto; }
svg text { font: 13px system-ui, sans-serif; fill: #1d1d1f; }
.note { color: #666; font-size: 0.9em; }
.bad { color: #b00020; }
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TechniqueResult;
    use crate::profile::FieldRow;

    fn result(name: &str, bytes: usize) -> TechniqueResult {
        TechniqueResult {
            name: name.into(),
            bytes: vec![bytes; 20],
            encode: Vec::new(),
            capture: Vec::new(),
            decode: Vec::new(),
            server_memory: 0,
            client_memory: 0,
            verified_frames: 20,
            mismatches: 0,
            first_error: None,
            warmup: 2,
            held: None,
            records: None,
        }
    }

    #[test]
    fn the_page_has_every_section_and_loads_nothing() {
        let row = |field: &str, predictors: Vec<(&'static str, f64)>| FieldRow {
            field: field.into(),
            bits_per_frame: 12.0,
            share: 0.4,
            values_per_frame: 3.0,
            bits_per_value: 4.0,
            unchanged: 0.1,
            predictors,
            unpredicted: 0.2,
            unpredicted_bits: 12.0,
            tolerance: 0,
        };
        let fields = FieldReport {
            frames: 18,
            total_bits: 30.0,
            structure_bits: 6.0,
            parts: vec![("header", 4.0), ("termination", 2.0)],
            rows: vec![
                row("Dot.x", vec![("hold", 0.5), ("linear", 0.3)]),
                row("Dot.y", vec![("contract", 0.5), ("linear fit", 0.3)]),
                row("Dot.<on>", vec![]),
            ],
        };
        let report = ScenarioReport {
            scenario: "dots & <friends>".into(),
            frames: 20,
            rate_hz: 30.0,
            latency: 2,
            loss: 0.05,
            results: vec![result("BC", 40), result("netschema", 4)],
            fields: Some(fields),
        };
        let page = render(&[report], &[("trace", "dots.jsonl".into())]).unwrap();
        for section in SECTIONS.iter().chain([&PARAMETERS]) {
            assert!(page.contains(&format!("<section class=\"{section}\">")), "{section}");
        }
        assert!(page.contains("dots &amp; &lt;friends&gt;"));
        assert!(page.contains("Dot.&lt;on&gt;"));
        assert!(page.contains("10.0× fewer bytes per frame than BC"));
        assert!(page.contains("hold 50 %, linear 30 %, none 20 %"));
        assert!(page.contains("default-src 'none'"));
        assert_eq!(page.matches("<svg").count(), 3, "three inline charts");
        assert!(!page.contains("<script") && !page.contains("src="), "nothing to load");
        let namespaces = page.matches("xmlns=\"http://www.w3.org/2000/svg\"").count();
        assert_eq!(page.matches("http://").count(), namespaces, "no address but SVG's namespace");
        assert!(!page.contains("what the client holds") && !page.contains(">tolerance<"));
        // The predictor legend names exactly what the bars show, in their colours.
        assert_eq!(flaws(&page), Vec::<String>::new());
        let section = &page[page.find("<section class=\"predictors\">").unwrap()..];
        let legend = section.split_once("</p>\n<div").unwrap().0;
        for name in ["hold", "linear", "contract", "linear fit", "none", "transition model"] {
            assert!(legend.contains(&format!("</span>{name} ")), "{name}: {legend}");
        }
        assert!(!legend.contains("cubic"));
        // Every row of the technique table has a cell under each header, in the same order.
        let table = &page[page.find("<section class=\"techniques\">").unwrap()..];
        let rows: Vec<&str> =
            table[..table.find("</table>").unwrap()].split("<tr").skip(2).collect();
        assert_eq!(rows.len(), 2);
        for row in rows {
            assert!(row.contains("<td>yes</td></tr>"), "{row}");
        }
        // What flaws() finds: a row short of a cell, a bar in black.
        let hold = format!("fill=\"{}\"", predictor_colour("hold"));
        let broken = page.replacen("<td>yes</td>", "", 1).replace(&hold, "fill=\"#000000\"");
        assert_eq!(flaws(&broken).len(), 3, "{:?}", flaws(&broken));
    }

    #[test]
    fn a_budget_adds_what_the_client_holds_and_tolerances_a_column() {
        let mut ours = result("netschema", 4);
        ours.held = Some(crate::HeldStats {
            staleness: vec![6, 3, 1],
            values: 20,
            error_sum: 30,
            error_max: 7,
        });
        let tolerant = FieldRow {
            field: "Dot.x".into(),
            bits_per_frame: 1.0,
            share: 0.5,
            values_per_frame: 1.0,
            bits_per_value: 1.0,
            unchanged: 0.0,
            predictors: vec![("hold", 1.0)],
            unpredicted: 0.0,
            unpredicted_bits: 0.0,
            tolerance: 3,
        };
        let fields = FieldReport {
            frames: 18,
            total_bits: 2.0,
            structure_bits: 1.0,
            parts: vec![("termination", 1.0)],
            rows: vec![tolerant],
        };
        let report = ScenarioReport {
            scenario: "dots".into(),
            frames: 20,
            rate_hz: 30.0,
            latency: 2,
            loss: 0.05,
            results: vec![ours],
            fields: Some(fields),
        };
        let page = render(&[report], &[]).unwrap();
        assert!(page.contains("<h4>netschema: what the client holds</h4>"), "{page}");
        assert!(page.contains("<td>0.50</td><td>2</td><td>1.500</td><td>7</td>"), "{page}");
        assert!(page.contains("<th title=\"raw steps\">tolerance</th>"), "{page}");
        assert!(page.contains("<td>3</td><td class=\"text\">hold 100 %</td>"), "{page}");
    }
}
