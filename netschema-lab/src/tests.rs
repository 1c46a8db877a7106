//! Every technique decodes exactly what was sent over a lossy link.

use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::{Class, Field, Schema};

use super::descriptors::{ToleranceOverride, with_tolerances};
use super::netschema::Netschema;
use super::report::{self, ScenarioReport};
use super::{Held, HeldStats, Rng, RunConfig, Setup, Snapshot, run, techniques};

const MOVING: &[Predictor] = &[Predictor::Hold, Predictor::Linear, Predictor::Quadratic];
static BALL: [Field; 4] = [
    Field::numeric("x", 0, 65_535, false, MOVING),
    Field::numeric("heading", 0, 1023, true, &[Predictor::Hold, Predictor::Linear]),
    Field::categorical("mood", 4),
    Field::numeric("hp", -100, 100, false, &[Predictor::Zero, Predictor::Hold]),
];
static CRATE: [Field; 2] =
    [Field::numeric("big", i32::MIN, i32::MAX, false, MOVING), Field::categorical("open", 2)];
static CLASSES: [Class; 2] = [Class::new("ball", &BALL), Class::new("crate", &CRATE)];
static SCHEMA: Schema = Schema::new("test", &CLASSES);

/// One class `Dot` of a numeric `x` in `0..=1000` and a bool `on`: the schema of the bit-layout
/// tests of the techniques.
static DOT: [Field; 2] =
    [Field::numeric("x", 0, 1000, false, &[Predictor::Hold]), Field::categorical("on", 2)];
static DOT_CLASSES: [Class; 1] = [Class::new("Dot", &DOT)];
static DOTS: Schema = Schema::new("dots", &DOT_CLASSES);

/// Codes frames 0, 1, … of [`DOTS`], entity 7 with each of `rows` or absent, with
/// `technique`, each acknowledged before the next: checks each packet's bits against `want`
/// ([`bits`]) and that it decodes to what the encoder expects.
pub(crate) fn check_layout(
    technique: &dyn super::Technique,
    want: &[&str],
    rows: &[Option<[i32; 2]>],
) {
    let setup = Setup { schema: &DOTS, capacity: 1, training: &[], events: &[] };
    let (mut encoder, mut decoder) = technique.start(&setup).unwrap();
    let mut out = Vec::new();
    let mut decoded = Snapshot::new();
    for (frame, (want, &row)) in want.iter().zip(rows).enumerate() {
        let frame = frame as u32;
        encoder.encode(frame, &dot(row), &mut out).unwrap();
        assert_eq!(out, bits(want), "frame {frame}");
        assert_eq!(decoder.decode(&out, &mut decoded).unwrap(), frame);
        assert_eq!(decoded, encoder.expected(&dot(row)).unwrap());
        encoder.receive_ack(&decoder.ack().unwrap());
    }
    assert_eq!(want.len(), rows.len(), "one packet per row");
}

/// A frame of [`DOTS`]: entity 7 with `row`, or nothing.
fn dot(row: Option<[i32; 2]>) -> Snapshot {
    let mut s = Snapshot::new();
    if let Some(row) = row {
        s.push(7, 0, &row);
    }
    s
}

/// The bytes of a bit string, most significant bit first (spaces ignored, the last byte padded
/// with zeros): how the golden tests write packets.
fn bits(s: &str) -> Vec<u8> {
    let mut w = crate::bitstream::Writer::new();
    for c in s.chars().filter(|c| !c.is_whitespace()) {
        w.bit(c == '1');
    }
    w.bytes().to_vec()
}

/// Entities that move, change, leave and enter (with new ids); `seed` varies the run.
fn frames(n: usize, seed: u64) -> Vec<Snapshot> {
    let mut rng = Rng(seed);
    let mut live: Vec<(u32, u16, Vec<i32>)> = Vec::new();
    let mut next = 0u32;
    let mut out = Vec::new();
    for _ in 0..n {
        live.retain(|_| !rng.chance(0.02));
        while live.len() < 60 {
            let class = rng.below(2) as u16;
            let row = if class == 0 {
                vec![rng.below(65_536) as i32, rng.below(1024) as i32, rng.below(4) as i32, 0]
            } else {
                vec![rng.next_u64() as i32, rng.below(2) as i32]
            };
            live.push((next, class, row));
            next += 1;
        }
        for (_, class, row) in live.iter_mut() {
            if *class == 0 {
                row[0] = (row[0] + 37).min(65_535);
                row[1] = (row[1] + 5) % 1024;
                if rng.chance(0.1) {
                    row[2] = rng.below(4) as i32;
                }
                row[3] = rng.below(201) as i32 - 100;
            } else if rng.chance(0.3) {
                row[0] = rng.next_u64() as i32;
                row[1] ^= 1;
            }
        }
        let mut s = Snapshot::new();
        for (id, class, row) in &live {
            s.push(*id, *class, row);
        }
        out.push(s);
    }
    out
}

#[test]
fn every_technique_round_trips_under_loss() {
    let snapshots = frames(200, 3);
    let training = frames(100, 4);
    for s in snapshots.iter().chain(&training) {
        s.validate(&SCHEMA).unwrap();
    }
    let setup = Setup { schema: &SCHEMA, capacity: 60, training: &training, events: &[] };
    for loss in [0.0, 0.2] {
        let config = RunConfig { latency: 3, loss, seed: 9, warmup: 0 };
        for technique in techniques::all() {
            match run(technique.as_ref(), &setup, &snapshots, None, &config, |_| {}) {
                Ok(r) => assert!(
                    r.verified(),
                    "{} at loss {loss}: {:?} ({} ok)",
                    r.name,
                    r.first_error,
                    r.verified_frames
                ),
                Err(e) => panic!("{}: {e}", technique.name()),
            }
        }
    }
}

#[test]
fn fiedler_round_trips_cubes() {
    static CUBE: [Field; 8] = [
        Field::categorical("interacting", 2),
        Field::numeric("x", 0, (1 << 18) - 1, false, MOVING),
        Field::numeric("y", 0, (1 << 18) - 1, false, MOVING),
        Field::numeric("z", 0, (1 << 14) - 1, false, MOVING),
        Field::categorical("largest", 4),
        Field::numeric("c0", 0, 511, false, MOVING),
        Field::numeric("c1", 0, 511, false, MOVING),
        Field::numeric("c2", 0, 511, false, MOVING),
    ];
    static CUBES: [Class; 1] = [Class::new("cube", &CUBE)];
    static CUBE_SCHEMA: Schema = Schema::new("cubes", &CUBES);
    let mut rng = Rng(5);
    let mut rows: Vec<[i32; 8]> = (0..100)
        .map(|_| {
            let mut r = [0; 8];
            for (v, f) in r.iter_mut().zip(&CUBE) {
                *v = f.min + rng.below(f.span()) as i32;
            }
            r
        })
        .collect();
    let mut snapshots = Vec::new();
    for _ in 0..150 {
        for r in rows.iter_mut() {
            if rng.chance(0.3) {
                // Small moves, large jumps and orientation flips, all clamped to range.
                let step = if rng.chance(0.1) { 5000 } else { 20 };
                for (i, v) in r.iter_mut().enumerate() {
                    let f = &CUBE[i];
                    let d = rng.below(2 * step + 1) as i32 - step as i32;
                    *v = f.clamp(i64::from(*v) + i64::from(d));
                }
            }
        }
        let mut s = Snapshot::new();
        for (i, r) in rows.iter().enumerate() {
            s.push(i as u32, 0, r);
        }
        snapshots.push(s);
    }
    let setup = Setup { schema: &CUBE_SCHEMA, capacity: 100, training: &[], events: &[] };
    for loss in [0.0, 0.2] {
        let config = RunConfig { latency: 4, loss, seed: 2, warmup: 0 };
        let technique = techniques::by_name("fiedler").unwrap();
        let r = run(technique.as_ref(), &setup, &snapshots, None, &config, |_| {}).unwrap();
        assert!(r.verified(), "{:?}", r.first_error);
    }
}

#[test]
fn the_table_the_json_and_the_legend_agree() {
    let snapshots = frames(30, 3);
    let setup = Setup { schema: &SCHEMA, capacity: 60, training: &[], events: &[] };
    let config = RunConfig { latency: 2, loss: 0.1, seed: 3, warmup: 0 };
    let results = ["BC", "netschema"]
        .iter()
        .map(|name| {
            let t = techniques::by_name(name).unwrap();
            run(t.as_ref(), &setup, &snapshots, None, &config, |_| {}).unwrap()
        })
        .collect();
    let report = ScenarioReport {
        scenario: "test".into(),
        frames: 30,
        rate_hz: 60.0,
        latency: 2,
        loss: 0.1,
        results,
        fields: None,
    };
    let table = report.table();
    let header: Vec<&str> = table.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(header, report::COLUMNS.map(|(key, _)| key));
    assert!(table.contains("netschema / best other technique (BC): "), "{table}");
    let json = report::to_json(std::slice::from_ref(&report));
    let object = json.lines().find(|l| l.contains("\"technique\": \"BC\"")).unwrap();
    let keys: Vec<&str> = object.split('"').skip(1).step_by(2).filter(|k| *k != "BC").collect();
    assert_eq!(keys, header);
    let legend: Vec<&str> = techniques::LEGEND.iter().map(|(name, _)| *name).collect();
    assert_eq!(legend, techniques::NAMES);

    let plot = std::env::temp_dir().join(format!("netschema-lab-plot-{}.svg", std::process::id()));
    report::write_plot(&plot, &[report]).unwrap();
    let svg = std::fs::read_to_string(&plot).unwrap();
    let _ = std::fs::remove_file(&plot);
    assert!(svg.contains("bytes per frame (log scale)"));
    let labels: Vec<&str> = svg.lines().map(str::trim).collect();
    assert!(labels.contains(&"netschema") && labels.contains(&"BC"), "a legend entry is missing");
}

#[test]
fn plots_are_named_after_their_run() {
    assert_eq!(
        report::plot_path("all", 6, 0.05),
        std::path::Path::new("target/bench/all-latency6-loss5.svg")
    );
    assert_eq!(
        report::plot_path("cubes", 3, 0.125),
        std::path::Path::new("target/bench/cubes-latency3-loss12.5.svg")
    );
}

#[test]
fn netschema_under_a_small_budget_verifies_what_its_client_holds() {
    const BUDGET: usize = 150;
    let snapshots = frames(200, 3);
    let setup = Setup { schema: &SCHEMA, capacity: 60, training: &[], events: &[] };
    let config = RunConfig { latency: 3, loss: 0.1, seed: 9, warmup: 20 };
    let exact = run(&Netschema::default(), &setup, &snapshots, None, &config, |_| {}).unwrap();
    assert!(exact.verified() && exact.held.is_none());
    assert!(exact.bytes.iter().any(|&b| b > BUDGET), "the budget must bind");

    let budget = Netschema { budget: Some(BUDGET), ..Netschema::default() };
    let r = run(&budget, &setup, &snapshots, None, &config, |_| {}).unwrap();
    assert!(r.verified(), "{:?} ({} frames verified)", r.first_error, r.verified_frames);
    assert!(r.bytes.iter().all(|&b| b <= BUDGET), "{:?}", r.bytes);
    let held = r.held.as_ref().expect("a budget records what the client holds");
    assert!(held.samples() > 0);
    assert!(held.staleness_mean() > 0.0 && held.staleness_p99() > 0, "{held:?}");
    assert!(held.error_max > 0 && held.error_mean() > 0.0, "{held:?}");

    let report = ScenarioReport {
        scenario: "test".into(),
        frames: 200,
        rate_hz: 60.0,
        latency: 3,
        loss: 0.1,
        results: vec![exact, r],
        fields: None,
    };
    let table = report.held_table();
    let header: Vec<&str> = table.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(header, report::HELD_COLUMNS.map(|(key, _)| key));
    assert_eq!(table.lines().count(), 3, "only the budgeted run holds anything: {table}");
    let json = report::to_json(std::slice::from_ref(&report));
    let held_keys = json.lines().filter(|l| l.contains("\"staleness_p99\": ")).count();
    assert_eq!(held_keys, 1, "{json}");
}

#[test]
fn tolerance_overrides_change_the_schema_and_bound_the_error() {
    let overrides: Vec<ToleranceOverride> =
        ["x=3", "hp=4", "heading=2"].iter().map(|s| s.parse().unwrap()).collect();
    let tolerant = with_tolerances(&SCHEMA, &overrides).unwrap();
    assert_ne!(tolerant.hash, SCHEMA.hash);
    let tolerances: Vec<u32> = tolerant.classes[0].fields.iter().map(|f| f.tolerance).collect();
    assert_eq!(tolerances, [3, 2, 0, 4]);

    let snapshots = frames(200, 5);
    let setup = Setup { schema: &SCHEMA, capacity: 60, training: &[], events: &[] };
    let config = RunConfig { latency: 3, loss: 0.1, seed: 4, warmup: 10 };
    let technique = Netschema { tolerant: Some(tolerant), ..Netschema::default() };
    let r = run(&technique, &setup, &snapshots, None, &config, |_| {}).unwrap();
    assert_eq!(r.name, "netschema-tol");
    assert!(r.verified(), "{:?}", r.first_error);
    let held = r.held.expect("tolerances record what the client holds");
    assert_eq!(held.staleness_p99(), 0, "without a budget every entity is sent every frame");
    assert!(held.error_max > 0 && held.error_max <= 4, "{held:?}");
    let exact = run(&Netschema::default(), &setup, &snapshots, None, &config, |_| {}).unwrap();
    let total = |bytes: &[usize]| bytes.iter().sum::<usize>();
    assert!(total(&r.bytes) < total(&exact.bytes), "the tolerance on hp saves bytes");
}

#[test]
fn held_stats_count_staleness_and_error() {
    // Two balls held 0 and 3 frames old, and a crate; a ball's heading wraps at 1024.
    let mut decoded = Snapshot::new();
    decoded.push(0, 0, &[100, 1020, 3, 5]);
    decoded.push(1, 0, &[200, 10, 0, -5]);
    decoded.push(2, 1, &[7, 1]);
    let truth = vec![104, 2, 1, 5, 190, 10, 2, -5, 7, 0];
    let held = Held { view: decoded.clone(), staleness: vec![0, 3, 1], truth };
    let mut stats = HeldStats::default();
    stats.add(&SCHEMA, &decoded, &held.staleness, &held.truth);
    assert_eq!(stats.staleness, [1, 1, 0, 1]);
    assert_eq!(stats.samples(), 3);
    assert_eq!(stats.staleness_mean(), 4.0 / 3.0);
    assert_eq!(stats.staleness_p99(), 3);
    // Errors of x, heading (the short way round), hp and big; moods and open left out.
    assert_eq!((stats.values, stats.error_sum, stats.error_max), (7, 4 + 6 + 10, 10));
    assert_eq!(HeldStats::default().staleness_p99(), 0);
}

/// A server of several clients writes the same packets on one thread or three, counts every
/// client's visible entities as updates, and its clients' acks bring packets down from cold.
#[test]
fn a_fleet_writes_the_same_packets_on_any_number_of_threads() {
    use super::fleet::{self, FleetConfig};
    let snapshots = frames(120, 5);
    let base = FleetConfig { clients: 4, threads: 1, latency: 2, loss: 0.1, seed: 3, budget: None };
    let one = fleet::run(&SCHEMA, 60, &snapshots, base).unwrap();
    let three = fleet::run(&SCHEMA, 60, &snapshots, FleetConfig { threads: 3, ..base }).unwrap();
    assert_eq!(one.digest, three.digest);
    assert_eq!(one.bytes_mean, three.bytes_mean);
    let visible: usize = snapshots.iter().map(Snapshot::len).sum();
    assert_eq!(one.updates, 4 * visible as u64);
    // Without acks every packet is cold, all 60 entities in full (the crates' random words
    // cost as much either way, and entering handle ages, shared, cost little): 204 bytes
    // against 280.
    let cold = fleet::run(&SCHEMA, 60, &snapshots, FleetConfig { loss: 1.0, ..base }).unwrap();
    assert!(one.bytes_mean < cold.bytes_mean * 0.75, "{} vs {}", one.bytes_mean, cold.bytes_mean);
}
