//! Per-field costs of netschema packets: the field table of `netschema profile`.
//!
//! [`FieldCosts`] is a [`Probe`]: the engine reports every field value it codes (its ideal cost
//! and the predictor used), and the costs are summed per class and scalar field, leaving out
//! the warm-up frames. [`FieldReport`] turns the sums into bits per frame, shares of the packet
//! and how often each candidate predictor was chosen; what no field accounts for is the
//! structure row, split into the parts the engine reports ([`Part`]) and the coder's
//! termination.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::rc::Rc;

use netschema_runtime::model::fitted_candidates;
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::{Coding, MAX_CANDIDATES, Schema};

use super::netschema::{Netschema, ProbedNetschema};
use super::report::{ScenarioReport, Summary, json_num, json_str};
use super::{Event, RunConfig, Setup, Snapshot, Technique, TechniqueError, run_all, techniques};
use netschema_runtime::engine::probe::{Part, Probe};

/// A recording to profile: what one client sees each frame, and when.
#[derive(Clone, Copy, Debug)]
pub struct Recording<'a> {
    /// One snapshot per frame.
    pub snapshots: &'a [Snapshot],
    /// Another recording of the same game, on which techniques with offline-trained tables
    /// train them ([`Setup::training`]).
    pub training: &'a [Snapshot],
    /// When each frame happened, in seconds, if the recording says so: the link's latency (in
    /// frames at the nominal rate) then holds in time, and the rate becomes the recording's
    /// mean rate for kbit/s.
    pub times: Option<&'a [f64]>,
    /// The events each frame sends the client (see [`Setup::events`]); empty for none.
    pub events: &'a [Vec<Event>],
}

/// What `netschema profile` measures: runs the techniques called `names` (of
/// [`techniques::NAMES`]; others are ignored) over `recording` at `rate_hz` frames per second
/// and returns their report, with netschema's per-field costs as [`ScenarioReport::fields`]
/// when `netschema` is among them, run as `engine` says (its byte budget and model policy;
/// its tolerant schema is ignored).
///
/// The warm-up is shortened if the run would not outlast it. Techniques that do not support
/// the schema are left out, as in the benchmark; progress goes to stderr. netschema's encode
/// time includes the probe's bookkeeping (a few additions per field value).
pub fn measure(
    scenario: &str,
    schema: &'static Schema,
    recording: Recording<'_>,
    rate_hz: f64,
    config: &RunConfig,
    names: &[&str],
    engine: Netschema,
) -> Result<ScenarioReport, TechniqueError> {
    let Recording { snapshots, training, times, events } = recording;
    let start = times.and_then(|t| t.first()).copied().unwrap_or(0.0);
    let ticks: Option<Vec<f64>> = times.map(|t| t.iter().map(|s| (s - start) * rate_hz).collect());
    let rate_hz = match times {
        Some(t @ [first, .., last]) if last > first => (t.len() - 1) as f64 / (last - first),
        _ => rate_hz,
    };
    let config =
        RunConfig { warmup: config.warmup.min(snapshots.len().saturating_sub(1)), ..*config };
    let costs = Rc::new(RefCell::new(FieldCosts::new(schema, config.warmup)));
    let list: Vec<Box<dyn Technique>> = names
        .iter()
        .filter_map(|&name| match name {
            "netschema" => Some(Box::new(ProbedNetschema {
                engine: Netschema { tolerant: None, ..engine },
                costs: Rc::clone(&costs),
            }) as Box<dyn Technique>),
            _ => techniques::by_name(name),
        })
        .collect();
    let capacity = snapshots.iter().map(Snapshot::len).max().unwrap_or(0).max(1);
    let setup = Setup { schema, capacity, training, events };
    let results = run_all(scenario, &list, &setup, snapshots, ticks.as_deref(), &config)?;
    let fields = results.iter().find(|r| r.name == "netschema").map(|r| {
        let total_bits = Summary::of(r, rate_hz).bytes_mean * 8.0;
        FieldReport::new(schema, &costs.borrow(), total_bits)
    });
    Ok(ScenarioReport {
        scenario: scenario.to_string(),
        frames: snapshots.len(),
        rate_hz,
        latency: config.latency,
        loss: config.loss,
        results,
        fields,
    })
}

/// Sums of the values coded for one scalar field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FieldCost {
    /// Total ideal cost, in 1/256 bit.
    pub units: u64,
    /// Values coded (not sent as part of an "unchanged" entity).
    pub coded: u64,
    /// Values covered by an entity's "unchanged" flag.
    pub unchanged: u64,
    /// Coded values without a prediction (entering entities, categorical fields).
    pub unpredicted: u64,
    /// Total ideal cost of those, in 1/256 bit.
    pub unpredicted_units: u64,
    /// Coded values per candidate predictor, by index in the field's candidate list.
    pub candidates: [u64; MAX_CANDIDATES],
}

/// Per-field sums over the frames after the warm-up; a [`Probe`].
#[derive(Clone, Debug)]
pub struct FieldCosts {
    warmup: u64,
    counting: bool,
    frames: usize,
    classes: Vec<Vec<FieldCost>>,
    /// Per class, the sums of each link (reference) coded.
    links: Vec<Vec<FieldCost>>,
    /// Ideal cost of each part of the structure, in [`Part::ALL`] order, in 1/256 bit.
    parts: [u64; Part::ALL.len()],
    /// Reports counted in the current frame, so that a withdrawn one can be taken back out.
    journal: Vec<Report>,
}

/// One report of a [`Probe`], as counted.
#[derive(Clone, Copy, Debug)]
enum Report {
    Field(FieldReportEntry),
    Structure(Part, u32),
    /// A link: class, link, cost.
    Link(usize, usize, u32),
}

/// One report of a field value.
#[derive(Clone, Copy, Debug)]
struct FieldReportEntry {
    class: usize,
    field: usize,
    cost: u32,
    candidate: Option<u8>,
    unchanged: bool,
}

impl FieldCosts {
    /// Empty sums for `schema`; frames before `warmup` will not be counted.
    pub fn new(schema: &Schema, warmup: usize) -> FieldCosts {
        FieldCosts {
            warmup: warmup as u64,
            counting: false,
            frames: 0,
            classes: schema
                .classes
                .iter()
                .map(|c| vec![FieldCost::default(); c.fields.len()])
                .collect(),
            links: schema
                .classes
                .iter()
                .map(|c| vec![FieldCost::default(); c.links.len()])
                .collect(),
            parts: [0; Part::ALL.len()],
            journal: Vec::new(),
        }
    }

    /// Starts frame `frame` (frames are numbered from 0): what the probe reports next belongs
    /// to it.
    pub fn begin_frame(&mut self, frame: u32) {
        self.journal.clear();
        self.counting = u64::from(frame) >= self.warmup;
        if self.counting {
            self.frames += 1;
        }
    }

    /// Frames counted.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// The sums of scalar field `field` of class `class`.
    pub fn get(&self, class: usize, field: usize) -> Option<&FieldCost> {
        self.classes.get(class)?.get(field)
    }

    /// The sums of link `link` of class `class` (its reference's values coded; `units` and
    /// `coded` only).
    pub fn link(&self, class: usize, link: usize) -> Option<&FieldCost> {
        self.links.get(class)?.get(link)
    }

    /// Total ideal cost of structure part `part`, in 1/256 bit.
    pub fn part(&self, part: Part) -> u64 {
        self.parts[part.index()]
    }
}

impl Probe for FieldCosts {
    fn field(
        &mut self,
        class: usize,
        field: usize,
        cost: u32,
        candidate: Option<u8>,
        unchanged: bool,
    ) {
        let report = FieldReportEntry { class, field, cost, candidate, unchanged };
        self.report(Report::Field(report));
    }

    fn structure(&mut self, part: Part, cost: u32) {
        self.report(Report::Structure(part, cost));
    }

    fn link(&mut self, class: usize, link: usize, cost: u32) {
        self.report(Report::Link(class, link, cost));
    }

    fn mark(&self) -> usize {
        self.journal.len()
    }

    fn rewind(&mut self, mark: usize) {
        while self.journal.len() > mark {
            if let Some(report) = self.journal.pop() {
                self.count(report, -1);
            }
        }
    }
}

impl FieldCosts {
    /// Counts `report` and keeps it in the journal, if the frame is counted.
    fn report(&mut self, report: Report) {
        if self.counting {
            self.count(report, 1);
            self.journal.push(report);
        }
    }

    /// Adds `report` to the sums (`sign` 1) or takes it back out (`sign` −1).
    fn count(&mut self, report: Report, sign: i64) {
        let add = |n: &mut u64, by: u64| *n = n.wrapping_add_signed(sign * by as i64);
        let FieldReportEntry { class, field, cost, candidate, unchanged } = match report {
            Report::Field(entry) => entry,
            Report::Structure(part, cost) => {
                add(&mut self.parts[part.index()], u64::from(cost));
                return;
            }
            Report::Link(class, link, cost) => {
                if let Some(sums) = self.links.get_mut(class).and_then(|c| c.get_mut(link)) {
                    add(&mut sums.units, u64::from(cost));
                    add(&mut sums.coded, 1);
                }
                return;
            }
        };
        let Some(sums) = self.classes.get_mut(class).and_then(|c| c.get_mut(field)) else {
            return;
        };
        add(&mut sums.units, u64::from(cost));
        if unchanged {
            add(&mut sums.unchanged, 1);
            return;
        }
        add(&mut sums.coded, 1);
        match candidate.and_then(|c| sums.candidates.get_mut(usize::from(c))) {
            Some(n) => add(n, 1),
            None => {
                add(&mut sums.unpredicted, 1);
                add(&mut sums.unpredicted_units, u64::from(cost));
            }
        }
    }
}

/// One row of the field table.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldRow {
    /// `Class.path`.
    pub field: String,
    /// Mean bits per frame.
    pub bits_per_frame: f64,
    /// Share of the mean packet bits, 0..=1.
    pub share: f64,
    /// Mean values coded per frame.
    pub values_per_frame: f64,
    /// Mean bits per coded value.
    pub bits_per_value: f64,
    /// Fraction of the field's values covered by an "unchanged" entity flag.
    pub unchanged: f64,
    /// Fraction of coded values that used each candidate predictor, in candidate order; empty
    /// for categorical fields.
    pub predictors: Vec<(&'static str, f64)>,
    /// Fraction of coded values without a prediction.
    pub unpredicted: f64,
    /// Mean bits per coded value without a prediction.
    pub unpredicted_bits: f64,
    /// The field's tolerance, raw steps (0: exact).
    pub tolerance: u32,
}

/// The field table of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldReport {
    /// Frames the means are over.
    pub frames: usize,
    /// Mean packet bits per frame.
    pub total_bits: f64,
    /// Mean bits per frame not attributed to a field (header, flags, handles, check,
    /// termination): total minus the fields.
    pub structure_bits: f64,
    /// Mean bits per frame of each part of the structure (see [`Part::name`]), then of the
    /// coder's termination (the structure less the parts).
    pub parts: Vec<(&'static str, f64)>,
    /// One row per scalar field of every class, then per reference (link) of the class, in
    /// schema order.
    pub rows: Vec<FieldRow>,
}

/// How the profile names the least-squares fit of `p` (see [`fitted_candidates`]).
fn fit_name(p: Predictor) -> &'static str {
    match p {
        Predictor::Linear => "linear fit",
        Predictor::Quadratic => "quadratic fit",
        _ => "fit",
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

impl FieldReport {
    /// The table of `costs` for `schema`, whose packets took `total_bits` bits per frame on
    /// average over the same frames.
    pub fn new(schema: &Schema, costs: &FieldCosts, total_bits: f64) -> FieldReport {
        let frames = costs.frames() as f64;
        let mut rows = Vec::new();
        for (c, class) in schema.classes.iter().enumerate() {
            for (f, field) in class.fields.iter().enumerate() {
                let sums = costs.get(c, f).copied().unwrap_or_default();
                let coded = sums.coded as f64;
                let bits = sums.units as f64 / 256.0;
                let predictors = match field.coding {
                    Coding::Numeric(list) => list
                        .iter()
                        .map(|p| p.name())
                        .chain(fitted_candidates(list).map(fit_name))
                        .zip(sums.candidates)
                        .map(|(name, n)| (name, ratio(n as f64, coded)))
                        .collect(),
                    Coding::Categorical => Vec::new(),
                };
                rows.push(FieldRow {
                    field: format!("{}.{}", class.name, field.name),
                    bits_per_frame: ratio(bits, frames),
                    share: ratio(ratio(bits, frames), total_bits),
                    values_per_frame: ratio(coded, frames),
                    bits_per_value: ratio(bits, coded),
                    unchanged: ratio(sums.unchanged as f64, (sums.unchanged + sums.coded) as f64),
                    predictors,
                    unpredicted: ratio(sums.unpredicted as f64, coded),
                    unpredicted_bits: ratio(
                        sums.unpredicted_units as f64 / 256.0,
                        sums.unpredicted as f64,
                    ),
                    tolerance: field.tolerance,
                });
            }
            for (l, link) in class.links.iter().enumerate() {
                let sums = costs.link(c, l).copied().unwrap_or_default();
                let (coded, bits) = (sums.coded as f64, sums.units as f64 / 256.0);
                rows.push(FieldRow {
                    field: format!("{}.{}", class.name, link.name),
                    bits_per_frame: ratio(bits, frames),
                    share: ratio(ratio(bits, frames), total_bits),
                    values_per_frame: ratio(coded, frames),
                    bits_per_value: ratio(bits, coded),
                    unchanged: 0.0,
                    // A reference is predicted as held: the target it named, if still there.
                    predictors: vec![("hold", if coded > 0.0 { 1.0 } else { 0.0 })],
                    unpredicted: 0.0,
                    unpredicted_bits: 0.0,
                    tolerance: 0,
                });
            }
        }
        let fields: f64 = rows.iter().map(|r| r.bits_per_frame).sum();
        let structure_bits = total_bits - fields;
        // Links have rows of their own.
        let mut parts: Vec<(&'static str, f64)> = Part::ALL
            .iter()
            .filter(|&&p| p != Part::Links)
            .map(|&p| (p.name(), ratio(costs.part(p) as f64 / 256.0, frames)))
            .collect();
        let named: f64 = parts.iter().map(|(_, bits)| bits).sum();
        parts.push(("termination", structure_bits - named));
        FieldReport { frames: costs.frames(), total_bits, structure_bits, parts, rows }
    }

    /// Whether a field has a tolerance (the tables then show a tolerance column).
    pub fn has_tolerances(&self) -> bool {
        self.rows.iter().any(|r| r.tolerance > 0)
    }

    /// The table as printed by `netschema profile`; a `tolerance` column (raw steps) when a
    /// field has one.
    pub fn table(&self) -> String {
        let width = self.rows.iter().map(|r| r.field.len()).max().unwrap_or(0).max(11);
        let tolerance = |text: String| if self.has_tolerances() { text } else { String::new() };
        let mut s = String::new();
        let _ = writeln!(
            s,
            "per field (netschema, mean over {} frames after the warm-up):",
            self.frames
        );
        let _ = writeln!(
            s,
            "{:<width$} {:>10} {:>7} {:>12} {:>10} {:>9}{}  predictors",
            "field",
            "bits/frame",
            "share",
            "values/frame",
            "bits/value",
            "unchanged",
            tolerance(format!(" {:>9}", "tolerance"))
        );
        for r in &self.rows {
            let _ = writeln!(
                s,
                "{:<width$} {:>10.1} {:>5.1} % {:>12.1} {:>10.2} {:>7.1} %{}  {}",
                r.field,
                r.bits_per_frame,
                r.share * 100.0,
                r.values_per_frame,
                r.bits_per_value,
                r.unchanged * 100.0,
                tolerance(format!(" {:>9}", r.tolerance)),
                predictor_text(r)
            );
        }
        let _ = writeln!(
            s,
            "{:<width$} {:>10.1} {:>5.1} %  header, entity flags, handles, check, termination:",
            "(structure)",
            self.structure_bits,
            ratio(self.structure_bits, self.total_bits) * 100.0
        );
        for (name, bits) in &self.parts {
            let _ = writeln!(
                s,
                "  {name:<w$} {bits:>10.1} {:>5.1} %",
                ratio(*bits, self.total_bits) * 100.0,
                w = width - 2
            );
        }
        let _ = writeln!(s, "{:<width$} {:>10.1} {:>5.1} %", "total", self.total_bits, 100.0);
        s
    }

    /// The JSON object of the table (see `report::to_json`).
    pub(crate) fn json(&self) -> String {
        let parts: Vec<String> = self
            .parts
            .iter()
            .map(|(name, bits)| format!("{}: {}", json_str(name), json_num(*bits)))
            .collect();
        let mut s = format!(
            "{{\"frames\": {}, \"total_bits\": {}, \"structure_bits\": {}, \"structure\": {{{}}}, \"rows\": [",
            self.frames,
            json_num(self.total_bits),
            json_num(self.structure_bits),
            parts.join(", ")
        );
        for (i, r) in self.rows.iter().enumerate() {
            let predictors: Vec<String> = r
                .predictors
                .iter()
                .map(|(name, f)| format!("{}: {}", json_str(name), json_num(*f)))
                .collect();
            let _ = write!(
                s,
                "{}{{\"field\": {}, \"bits_per_frame\": {}, \"share\": {}, \"values_per_frame\": {}, \"bits_per_value\": {}, \"unchanged\": {}, \"unpredicted\": {}, \"unpredicted_bits\": {}, \"tolerance\": {}, \"predictors\": {{{}}}}}",
                if i > 0 { ", " } else { "" },
                json_str(&r.field),
                json_num(r.bits_per_frame),
                json_num(r.share),
                json_num(r.values_per_frame),
                json_num(r.bits_per_value),
                json_num(r.unchanged),
                json_num(r.unpredicted),
                json_num(r.unpredicted_bits),
                r.tolerance,
                predictors.join(", ")
            );
        }
        s.push_str("]}");
        s
    }
}

/// `hold 12% linear 80% quadratic 8%` (plus `none` for values without prediction), or
/// `transition model`.
fn predictor_text(r: &FieldRow) -> String {
    if r.predictors.is_empty() {
        return "transition model".into();
    }
    let mut parts: Vec<String> =
        r.predictors.iter().map(|(name, f)| format!("{name} {:.0}%", f * 100.0)).collect();
    if r.unpredicted > 0.0 {
        parts.push(format!("none {:.0}% at {:.2} b", r.unpredicted * 100.0, r.unpredicted_bits));
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use netschema_runtime::model::predict::Predictor;
    use netschema_runtime::schema::{Class, Field};

    static FIELDS: [Field; 2] = [
        Field::numeric("x", 0, 100, false, &[Predictor::Hold, Predictor::Linear]),
        Field::categorical("on", 2),
    ];
    static CLASSES: [Class; 1] = [Class::new("Dot", &FIELDS)];
    static SCHEMA: Schema = Schema::new("dots", &CLASSES);

    #[test]
    fn sums_after_the_warm_up() {
        let mut costs = FieldCosts::new(&SCHEMA, 2);
        for frame in 0..4 {
            costs.begin_frame(frame);
            costs.field(0, 0, 512, Some(1), false);
            costs.field(0, 0, 256, Some(0), false);
            costs.field(0, 0, 0, None, true);
            costs.field(0, 1, 128, None, false);
            costs.field(0, 9, 128, None, false);
            costs.field(3, 0, 128, None, false);
            costs.structure(Part::Header, 1024);
            let mark = costs.mark();
            costs.structure(Part::Unchanged, 256);
            costs.field(0, 0, 256, Some(0), false);
            // An entity that did not fit: withdrawn with what it reported.
            costs.rewind(mark);
        }
        assert_eq!(costs.frames(), 2);
        let x = costs.get(0, 0).unwrap();
        assert_eq!((x.units, x.coded, x.unchanged, x.unpredicted), (1536, 4, 2, 0));
        assert_eq!(x.candidates[..2], [2, 2]);

        let report = FieldReport::new(&SCHEMA, &costs, 10.0);
        assert_eq!(report.rows.len(), 2);
        let x = &report.rows[0];
        assert_eq!(x.field, "Dot.x");
        assert_eq!((x.bits_per_frame, x.share, x.values_per_frame), (3.0, 0.3, 2.0));
        assert_eq!((x.bits_per_value, x.unchanged), (1.5, 1.0 / 3.0));
        assert_eq!(x.predictors, [("hold", 0.5), ("linear", 0.5), ("linear fit", 0.0)]);
        let on = &report.rows[1];
        assert_eq!((on.bits_per_frame, on.unpredicted, on.unpredicted_bits), (0.5, 1.0, 0.5));
        assert!(on.predictors.is_empty());
        assert_eq!(report.structure_bits, 6.5);
        let part = |name| report.parts.iter().find(|(n, _)| *n == name).unwrap().1;
        assert_eq!((part("header"), part("unchanged flags"), part("termination")), (4.0, 0.0, 2.5));
        // Every part but the links (rows of their own), then the termination.
        assert_eq!(report.parts.len(), Part::ALL.len());
        assert!(report.parts.iter().all(|(name, _)| *name != Part::Links.name()));

        let table = report.table();
        assert!(table.contains("hold 50% linear 50% linear fit 0%"), "{table}");
        assert!(table.contains("transition model"), "{table}");
        assert!(table.contains("(structure)"), "{table}");
        assert!(table.contains("\n  header "), "{table}");
        let json = report.json();
        assert!(json.contains("\"structure\": {\"header\": 4.000,"), "{json}");
        assert!(json.contains("\"field\": \"Dot.x\""), "{json}");
        let predictors =
            "\"predictors\": {\"hold\": 0.500, \"linear\": 0.500, \"linear fit\": 0.000}";
        assert!(json.contains(predictors), "{json}");
    }
}
