//! Keyframe timelines against per-frame fields where timelines belong: RTS units walking
//! waypoint paths and buildings filling progress bars, replicated by netschema over the same
//! lossy link once as per-frame fields (`schemas/waypoints.netidl`) and once as timelines
//! (`schemas/waypoints_timeline.netidl`).
//!
//! ```sh
//! cargo run --release -p netschema-bench --bin timelines -- [--frames N] [--latency F] [--loss P] [--seed S]
//! ```
//!
//! 300 units walk from waypoint to waypoint (3 m/s, a new waypoint within 30 m, a pause of
//! 0 to 1.5 s at each) and 40 buildings fill a progress bar over 5 to 15 s, stay full for a
//! second and start again. The server plans at least 2 s ahead, and a walk's end when it
//! starts: its timelines hold the next corners of the paths and the bars' next starts and
//! ends, four ahead each.
//!
//! It prints, for both: mean packet bytes per frame (netschema, after the warm-up; every frame
//! decoded checked against its input) and the error of what a client shows against the
//! server's per-frame truth, in raw steps (1/64 m for positions, 1/1023 of a bar), mean and
//! largest over entities and frames after the warm-up:
//! - **at the packet's frame**: the values of frame `f` as the client has them when it decodes
//!   the packet of `f` (per-frame fields: exactly; timelines: looked up at `f`);
//! - **now**: at frame `f + latency`, when that packet arrives; per-frame fields still show
//!   frame `f`, timelines look the value up at `f + latency` in the lists of frame `f`.
//!
//! The errors look up frame `f`'s lists. The client holds lists the server held at a frame no
//! later than `f` (the keyframes travel as records, once per edit; the lab checks every frame),
//! and keyframes edited 120 frames or more before their time arrive before they are needed,
//! so its lookups are these (`netschema-runtime/tests/timeline_wire.rs` checks both under
//! loss). Last, the keyframe table
//! `netschema profile` prints for the per-frame fields (Brand's break-even rate beside a
//! greedy fit's).

use std::process::ExitCode;

use netschema::Snapshot as _;
use netschema::quant::FixedQuant;
use netschema::schema::Schema;
use netschema::timeline::{Time, Timeline};
use netschema_lab::keyframes::KeyframeReport;
use netschema_lab::netschema::Netschema;
use netschema_lab::profile::{self, Recording};
use netschema_lab::report::Summary;
use netschema_lab::{Rng, RunConfig, Setup, Snapshot, Technique, run_all};

/// The per-frame schema.
#[allow(unreachable_pub, dead_code)]
mod frames {
    netschema::include_schema!("waypoints");
}

/// The timeline schema.
#[allow(unreachable_pub, dead_code)]
mod keys {
    netschema::include_schema!("waypoints_timeline");
}

/// netschema as the schemas declare it, without a byte budget.
const ENGINE: Netschema =
    Netschema { budget: None, tolerant: None, contracted: None, policy: None, prior: None };

static PER_FRAME: Schema = frames::SCHEMA;
static TIMELINES: Schema = keys::SCHEMA;

const RATE: f64 = 60.0;
const MAP: f64 = 256.0;
const UNITS: u32 = 300;
const BUILDINGS: u32 = 40;
/// Metres per frame.
const SPEED: f64 = 3.0 / RATE;
/// How far ahead the server plans, frames (at least: a walk's end is known when it starts).
const HORIZON: u32 = 120;
const POS: FixedQuant = match FixedQuant::with_resolution(0.0, MAP, 1.0 / 64.0) {
    Ok(q) => q,
    Err(_) => panic!("bad quantiser"),
};
const BAR: FixedQuant = match FixedQuant::with_bits(0.0, 1.0, 10) {
    Ok(q) => q,
    Err(_) => panic!("bad quantiser"),
};

/// A plan: corners `(frame, value)` of a piecewise-linear course, planned as far as needed.
struct Plan<const W: usize> {
    corners: Vec<(u32, [f64; W])>,
    /// Corners already given to the timeline.
    sent: usize,
}

impl<const W: usize> Plan<W> {
    /// The value at `frame`, between the corners around it (held after the last).
    fn at(&self, frame: u32) -> [f64; W] {
        let i = self.corners.partition_point(|c| c.0 <= frame);
        let (a, b) = (self.corners[i.saturating_sub(1)], self.corners.get(i));
        match b {
            Some(&(tb, vb)) if tb > a.0 => {
                let s = f64::from(frame - a.0) / f64::from(tb - a.0);
                std::array::from_fn(|k| a.1[k] + (vb[k] - a.1[k]) * s)
            }
            _ => a.1,
        }
    }
}

/// Units' paths: wait, then walk to a new waypoint within 30 m at [`SPEED`].
fn extend_path(plan: &mut Plan<2>, rng: &mut Rng, until: u32) {
    while plan.corners.last().is_some_and(|c| c.0 <= until) {
        let Some(&(t, p)) = plan.corners.last() else { return };
        let wait = rng.below(91) as u32;
        let t = if wait > 0 {
            plan.corners.push((t + wait, p));
            t + wait
        } else {
            t
        };
        let angle = rng.unit() * std::f64::consts::TAU;
        let dist = 5.0 + 25.0 * rng.unit();
        let q = [
            (p[0] + dist * angle.cos()).clamp(1.0, MAP - 1.0),
            (p[1] + dist * angle.sin()).clamp(1.0, MAP - 1.0),
        ];
        let len = ((q[0] - p[0]).powi(2) + (q[1] - p[1]).powi(2)).sqrt();
        plan.corners.push((t + ((len / SPEED).ceil() as u32).max(1), q));
    }
}

/// Buildings' bars: fill over 5 to 15 s, stay full a second, start again from empty.
fn extend_bar(plan: &mut Plan<1>, rng: &mut Rng, until: u32) {
    while plan.corners.last().is_some_and(|c| c.0 <= until) {
        let Some(&(t, _)) = plan.corners.last() else { return };
        let full = t + 300 + rng.below(601) as u32;
        plan.corners.extend([(full, [1.0]), (full + 60, [1.0]), (full + 61, [0.0])]);
    }
}

/// Gives `timeline` the corners of `plan` after `now`, as many as it has room for.
fn give<const W: usize, const N: usize>(
    plan: &mut Plan<W>,
    timeline: &mut Timeline<W, N>,
    now: u32,
    quantise: impl Fn(f64) -> i32,
) {
    timeline.advance(now);
    while let Some(&(t, v)) = plan.corners.get(plan.sent) {
        if t <= now {
            plan.sent += 1;
            continue;
        }
        if timeline.add(t, v.map(&quantise)).is_err() {
            break;
        }
        plan.sent += 1;
    }
}

/// What the run records per frame.
struct Run {
    per_frame: Vec<Snapshot>,
    timelines: Vec<Snapshot>,
    /// Truth per frame: every entity's raw values, in id order.
    truth: Vec<Vec<i32>>,
}

fn simulate(frames: u32, seed: u64) -> Run {
    let mut rng = Rng(seed);
    let start = |rng: &mut Rng| [1.0 + (MAP - 2.0) * rng.unit(), 1.0 + (MAP - 2.0) * rng.unit()];
    let mut paths: Vec<Plan<2>> =
        (0..UNITS).map(|_| Plan { corners: vec![(1, start(&mut rng))], sent: 0 }).collect();
    let mut bars: Vec<Plan<1>> = (0..BUILDINGS)
        .map(|_| Plan { corners: vec![(1 + rng.below(300) as u32, [0.0])], sent: 0 })
        .collect();
    let mut unit_tl = vec![keys::Unit::POS_TIMELINE; UNITS as usize];
    let mut bar_tl = vec![keys::Building::PROGRESS_TIMELINE; BUILDINGS as usize];
    let mut run = Run { per_frame: Vec::new(), timelines: Vec::new(), truth: Vec::new() };
    let mut row = vec![0; PER_FRAME.max_fields.max(TIMELINES.max_fields)];
    for frame in 0..frames {
        let (mut pf, mut tl, mut truth) = (Snapshot::new(), Snapshot::new(), Vec::new());
        for (id, (plan, timeline)) in paths.iter_mut().zip(&mut unit_tl).enumerate() {
            extend_path(plan, &mut rng, frame + HORIZON);
            give(plan, timeline, frame, |x| POS.quantise(x));
            let unit = frames::Unit { pos: plan.at(frame) };
            unit.quantise(&mut row);
            truth.extend_from_slice(&row[..2]);
            pf.push(id as u32, frames::Unit::CLASS_INDEX as u16, &row[..2]);
            let n = timeline.row_len();
            keys::Unit { pos: *timeline }.quantise(&mut row);
            tl.push(id as u32, keys::Unit::CLASS_INDEX as u16, &row[..n]);
        }
        for (b, (plan, timeline)) in bars.iter_mut().zip(&mut bar_tl).enumerate() {
            extend_bar(plan, &mut rng, frame + HORIZON);
            give(plan, timeline, frame, |x| BAR.quantise(x));
            let id = UNITS + b as u32;
            let building = frames::Building { progress: plan.at(frame)[0] };
            building.quantise(&mut row);
            truth.push(row[0]);
            pf.push(id, frames::Building::CLASS_INDEX as u16, &row[..1]);
            let n = timeline.row_len();
            keys::Building { progress: *timeline }.quantise(&mut row);
            tl.push(id, keys::Building::CLASS_INDEX as u16, &row[..n]);
        }
        run.per_frame.push(pf);
        run.timelines.push(tl);
        run.truth.push(truth);
    }
    run
}

/// Mean and largest absolute error, raw steps.
#[derive(Default)]
struct Error {
    sum: f64,
    n: f64,
    max: i64,
}

impl Error {
    fn add(&mut self, shown: i32, truth: i32) {
        let e = (i64::from(shown) - i64::from(truth)).abs();
        self.sum += e as f64;
        self.n += 1.0;
        self.max = self.max.max(e);
    }

    fn text(&self) -> String {
        format!("{:>8.3} {:>6}", self.sum / self.n.max(1.0), self.max)
    }
}

/// The client's values at frame `at` from the timeline rows of frame `from`, in truth order.
fn looked_up(rows: &Snapshot, at: u32) -> Vec<i32> {
    let mut out = Vec::new();
    for i in 0..rows.len() {
        let t = Time::frame(at);
        if usize::from(rows.classes[i]) == keys::Unit::CLASS_INDEX {
            let mut tl = keys::Unit::POS_TIMELINE;
            let _ = tl.read_row(rows.row(i));
            out.extend(tl.value_at(t).unwrap_or([0, 0]));
        } else {
            let mut tl = keys::Building::PROGRESS_TIMELINE;
            let _ = tl.read_row(rows.row(i));
            out.extend(tl.value_at(t).unwrap_or([0]));
        }
    }
    out
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut frames, mut latency, mut loss, mut seed) = (1200u32, 6u32, 0.05f64, 1u64);
    const USAGE: &str = "usage: timelines [--frames N] [--latency F] [--loss P] [--seed S]";
    while let Some(flag) = args.next() {
        if flag == "-h" || flag == "--help" {
            println!(
                "{USAGE}\n\nKeyframe timelines against per-frame fields on waypoint walks and"
            );
            println!("progress bars over one lossy link: bytes per frame and the client's error.");
            return ExitCode::SUCCESS;
        }
        let value = args.next().unwrap_or_default();
        let ok = match flag.as_str() {
            "--frames" => value.parse().map(|v| frames = v).is_ok(),
            "--latency" => value.parse().map(|v| latency = v).is_ok(),
            "--loss" => netschema_lab::parse_loss(&value).map(|v| loss = v).is_some(),
            "--seed" => value.parse().map(|v| seed = v).is_ok(),
            _ => false,
        };
        if !ok {
            eprintln!("{USAGE} (bad `{flag} {value}`)");
            return ExitCode::from(2);
        }
    }
    let run = simulate(frames, seed);
    let config = RunConfig::new(latency, loss, seed);
    // Per-frame fields through `netschema profile`'s measurement (for its keyframe table),
    // timelines through the same run.
    let recording =
        Recording { snapshots: &run.per_frame, training: &[], times: None, events: &[] };
    let per_frame = match profile::measure(
        "waypoints",
        &PER_FRAME,
        recording,
        RATE,
        &config,
        &["netschema"],
        ENGINE,
    ) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let technique: Box<dyn Technique> = Box::new(ENGINE);
    let capacity = run.timelines.iter().map(Snapshot::len).max().unwrap_or(1);
    let setup = Setup { schema: &TIMELINES, capacity, training: &[], events: &[] };
    let timelines = match run_all(
        "waypoints",
        std::slice::from_ref(&technique),
        &setup,
        &run.timelines,
        None,
        &config,
    ) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let bytes: Vec<(f64, bool)> = [&per_frame.results[0], &timelines[0]]
        .into_iter()
        .map(|r| (Summary::of(r, RATE).bytes_mean, r.mismatches == 0))
        .collect();
    eprintln!();
    let (mut pf_frame, mut pf_now, mut tl_frame, mut tl_now) =
        (Error::default(), Error::default(), Error::default(), Error::default());
    for f in config.warmup as u32..frames.saturating_sub(latency) {
        let (now, fi) = ((f + latency) as usize, f as usize);
        let at_frame = looked_up(&run.timelines[fi], f);
        let at_now = looked_up(&run.timelines[fi], f + latency);
        for (k, &truth) in run.truth[fi].iter().enumerate() {
            pf_frame.add(truth, truth);
            pf_now.add(truth, run.truth[now][k]);
            tl_frame.add(at_frame[k], truth);
            tl_now.add(at_now[k], run.truth[now][k]);
        }
    }
    println!(
        "waypoints: {UNITS} units and {BUILDINGS} buildings, {frames} frames at {RATE} Hz, latency {latency} frames, loss {:.1} %",
        loss * 100.0
    );
    println!(
        "{:<11} {:>10} {:>9} {:>15} {:>15}",
        "fields", "bytes_mean", "verified", "error at frame", "error now"
    );
    println!("{:<11} {:>10} {:>9} {:>15} {:>15}", "", "", "", "mean    max", "mean    max");
    for (name, (b, verified), at, now) in
        [("per-frame", bytes[0], &pf_frame, &pf_now), ("timelines", bytes[1], &tl_frame, &tl_now)]
    {
        println!("{name:<11} {b:>10.1} {verified:>9} {:>15} {:>15}", at.text(), now.text());
    }
    println!("timelines / per-frame bytes: {:.3}", bytes[1].0 / bytes[0].0.max(f64::MIN_POSITIVE));
    if let Some(fields) = &per_frame.fields {
        println!("\nthe per-frame fields, as `netschema profile` judges them:");
        print!("{}", KeyframeReport::new(&PER_FRAME, &run.per_frame, fields, RATE).table());
    }
    ExitCode::SUCCESS
}
