//! The generated descriptors against those built from the `.netidl` files at run time,
//! recorded traces read back, and every technique on every scenario.

use netschema_lab::netschema::Netschema;
use netschema_lab::trace::Trace;
use netschema_lab::{RunConfig, Setup, Snapshot, profile, techniques};

use super::*;

#[test]
fn runtime_schemas_equal_the_generated_descriptors() {
    for name in SCENARIOS {
        let generated = simulate(name, 2, 1, arena::Config::default(), false).unwrap().schema;
        let runtime = runtime_schema(name).unwrap();
        assert_eq!(runtime.schema, generated, "{name}");
        assert_eq!(runtime.schema.hash, generated.hash, "{name}");
    }
}

/// Simulates `frames` frames of `name`, writes the trace, reads it back, and returns the
/// recording, the trace and what its first client (or its only one) sees.
fn round_trip(name: &str, frames: usize) -> (Recording, Trace, Vec<Snapshot>) {
    let runtime = runtime_schema(name).unwrap();
    let rec = simulate(name, frames, 1, arena::Config::default(), true).unwrap();
    let text = save::write_trace(Vec::new(), &rec, &runtime).unwrap();
    let trace = Trace::read(&runtime, &text[..], |_, _| {}).unwrap();
    let client = trace.clients().into_iter().next();
    let views = trace.views(client.as_deref());
    (rec, trace, views)
}

#[test]
fn recorded_traces_quantise_back_to_the_same_snapshots() {
    for (name, frames) in [("particles", 30), ("cubes", 600), ("rts", 90), ("arena", 90)] {
        let (rec, trace, views) = round_trip(name, frames);
        assert_eq!(views, rec.snapshots, "{name}");
        assert!(trace.clamped.is_empty(), "{name}: {:?}", trace.clamped);
        assert_eq!(trace.header.as_ref().and_then(|h| h.rate_hz), Some(rec.rate_hz));
        match &rec.world {
            Some(world) => {
                assert_eq!(&trace.frames, world, "{name}");
                let players = if name == "rts" { 4 } else { arena::Config::default().players };
                let mut clients: Vec<String> = (0..players).map(|c| c.to_string()).collect();
                clients.sort();
                assert_eq!(trace.clients(), clients, "{name}");
            }
            None => assert!(trace.clients().is_empty(), "{name}"),
        }
    }
}

#[test]
fn the_arena_sends_its_events_once_each_through_the_record_stream() {
    let config = arena::Config { events: true, ..arena::Config::default() };
    let rec = simulate("arena", 600, 1, config, false).unwrap();
    let sent: usize = rec.events.iter().map(Vec::len).sum();
    assert!(sent > 50, "{sent} events");
    let setup =
        Setup { schema: rec.schema, capacity: rec.capacity, training: &[], events: &rec.events };
    for (latency, loss) in [(1, 0.05), (6, 0.2)] {
        let config = RunConfig::new(latency, loss, 1);
        let r = netschema_lab::run(
            &Netschema::default(),
            &setup,
            &rec.snapshots,
            None,
            &config,
            |_| {},
        )
        .unwrap();
        assert!(r.verified(), "{:?}", r.first_error);
        let records = r.records.unwrap();
        assert_eq!(records.events, sent as u64);
        // Events about a player that enters the view in their frame wait for its handle.
        assert!(records.queued * 20 >= records.events * 19, "{records:?}");
        // Every record queued long enough before the end is applied once, in order, whole.
        assert!(records.applied + 5 >= records.queued, "{records:?}");
        assert_eq!(records.mismatches, 0);
        // Sent again only when known lost: about 1 / (1 - loss) sends per record.
        let sends = records.sends_per_record();
        assert!(sends < 1.0 / (1.0 - loss) + 0.15, "{latency} {loss}: {sends}");
        assert!(records.delay_p99() >= latency, "{records:?}");
    }
    // A client whose acks nearly all drop fills the queue: later events are refused and
    // counted, not lost silently, and the run goes on.
    let config = RunConfig::new(6, 0.95, 1);
    let r =
        netschema_lab::run(&Netschema::default(), &setup, &rec.snapshots, None, &config, |_| {})
            .unwrap();
    let records = r.records.unwrap();
    assert!(records.refused > 0 && records.queued + records.refused <= records.events);
    assert_eq!(records.mismatches, 0);
}

#[test]
fn the_arena_trace_carries_its_events_and_profiles_them_as_the_bench() {
    let config = arena::Config { events: true, ..arena::Config::default() };
    let rec = simulate("arena", 300, 1, config, true).unwrap();
    let runtime = runtime_schema("arena").unwrap();
    let text = save::write_trace(Vec::new(), &rec, &runtime).unwrap();
    let trace = Trace::read(&runtime, &text[..], |_, _| {}).unwrap();
    // What client 0 is sent of the world's events is what the bench sends player 0.
    assert_eq!(trace.views(Some("0")), rec.snapshots);
    assert_eq!(trace.events(Some("0")), rec.events);
    let config = RunConfig::new(3, 0.1, 1);
    let setup =
        Setup { schema: rec.schema, capacity: rec.capacity, training: &[], events: &rec.events };
    let bench =
        netschema_lab::run(&Netschema::default(), &setup, &rec.snapshots, None, &config, |_| {})
            .unwrap();
    let recording = profile::Recording {
        snapshots: &rec.snapshots,
        training: &[],
        times: None,
        events: &rec.events,
    };
    let report = profile::measure(
        "arena",
        runtime.schema,
        recording,
        rec.rate_hz,
        &config,
        &["netschema"],
        Netschema::default(),
    )
    .unwrap();
    assert_eq!(report.results[0].records, bench.records);
    assert!(bench.records.is_some_and(|r| r.applied > 0 && r.mismatches == 0));
}

#[test]
fn profiling_a_recorded_trace_matches_the_bench() {
    let (rec, trace, views) = round_trip("particles", 40);
    let config = RunConfig::new(2, 0.05, 1);
    let setup = Setup { schema: rec.schema, capacity: rec.capacity, training: &[], events: &[] };
    let bench =
        netschema_lab::run(&Netschema::default(), &setup, &rec.snapshots, None, &config, |_| {})
            .unwrap();
    let runtime = runtime_schema("particles").unwrap();
    // The trace's times are the bench's even frames: the link delivers on the same frames.
    let times = trace.times().expect("the bench writes times");
    let names = ["BC", "netschema"];
    let recording =
        profile::Recording { snapshots: &views, training: &[], times: Some(&times), events: &[] };
    let report = profile::measure(
        "particles",
        runtime.schema,
        recording,
        60.0,
        &config,
        &names,
        Netschema::default(),
    )
    .unwrap();
    let names: Vec<&str> = report.results.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["BC", "netschema"]);
    let profiled = &report.results[1];
    assert!(profiled.verified());
    assert_eq!(profiled.bytes, bench.bytes);
    let fields = report.fields.expect("netschema ran");
    let paths: Vec<&str> = fields.rows.iter().map(|r| r.field.as_str()).collect();
    assert_eq!(
        paths,
        [
            "Particle.pos.x",
            "Particle.pos.y",
            "Particle.color[0]",
            "Particle.color[1]",
            "Particle.color[2]"
        ]
    );
    assert_eq!(fields.frames, 40 - config.warmup);
}

#[test]
fn every_technique_round_trips_every_scenario_under_loss() {
    for (name, frames) in [("particles", 60), ("cubes", 120), ("rts", 120), ("arena", 120)] {
        let rec = simulate(name, frames, 1, arena::Config::default(), false).unwrap();
        let training =
            simulate(name, frames / 2, 2, arena::Config::default(), false).unwrap().snapshots;
        let setup =
            Setup { schema: rec.schema, capacity: rec.capacity, training: &training, events: &[] };
        for loss in [0.0, 0.2] {
            let config = RunConfig { latency: 3, loss, seed: 5, warmup: 0 };
            for technique in techniques::all() {
                let r = netschema_lab::run(
                    technique.as_ref(),
                    &setup,
                    &rec.snapshots,
                    None,
                    &config,
                    |_| {},
                )
                .unwrap_or_else(|e| panic!("{name}/{}: {e}", technique.name()));
                assert!(
                    r.verified(),
                    "{name}/{} at loss {loss}: {:?} ({} frames verified)",
                    r.name,
                    r.first_error,
                    r.verified_frames
                );
            }
        }
    }
}

#[test]
fn tolerances_add_netschema_tol_on_the_position_of_every_scenario() {
    let names = ["BC", "netschema"].map(String::from);
    for (name, position) in
        [("particles", "pos"), ("cubes", "position"), ("rts", "pos"), ("arena", "pos")]
    {
        let schema = runtime_schema(name).unwrap().schema;
        let tolerances = [format!("{position}=2").parse().unwrap()];
        let list = techniques_for(
            &names,
            schema,
            Netschema { budget: Some(1200), ..Netschema::default() },
            &tolerances,
            None,
        )
        .unwrap();
        let list: Vec<&str> = list.iter().map(|t| t.name()).collect();
        assert_eq!(list, ["BC", "netschema", "netschema-tol"], "{name}");
        let tolerant = with_tolerances(schema, &tolerances).unwrap();
        assert_ne!(tolerant.hash, schema.hash, "{name}");
        for (class, plain) in tolerant.classes.iter().zip(schema.classes) {
            for (field, exact) in class.fields.iter().zip(plain.fields) {
                let covered = field.name.starts_with(&format!("{position}."));
                assert_eq!(field.tolerance, if covered { 2 } else { 0 }, "{name}: {}", field.name);
                assert_eq!(
                    (field.min, field.max, field.coding),
                    (exact.min, exact.max, exact.coding)
                );
            }
        }
    }
    let schema = runtime_schema("cubes").unwrap().schema;
    let pos = ["pos=2".parse().unwrap()];
    let err = techniques_for(&names, schema, Netschema::default(), &pos, None).err().unwrap();
    assert!(err.contains("Cube.position.x"), "{err}");
}

#[test]
fn a_budget_holds_netschema_packets_to_it() {
    let rec = simulate("particles", 90, 1, arena::Config::default(), false).unwrap();
    let setup = Setup { schema: rec.schema, capacity: rec.capacity, training: &[], events: &[] };
    let config = RunConfig::new(2, 0.05, 1);
    let budget = Netschema { budget: Some(1200), ..Netschema::default() };
    let r = netschema_lab::run(&budget, &setup, &rec.snapshots, None, &config, |_| {}).unwrap();
    assert!(r.verified(), "{:?}", r.first_error);
    assert!(r.bytes.iter().all(|&b| b <= 1200));
    assert!(r.held.expect("a budget records what the client holds").staleness_p99() > 0);
}

/// A prior trained on one seed's run of each scenario lowers the bytes of another seed's first
/// 60 frames, for both model policies, every frame still decoded exactly.
#[test]
fn a_prior_from_another_seed_lowers_the_start() {
    for (name, frames) in [("particles", 120), ("rts", 240)] {
        for policy in [ModelPolicy::PerFrame, ModelPolicy::BATCHED] {
            let training = simulate(name, frames, 2, arena::Config::default(), false).unwrap();
            let schema = Netschema { policy: Some(policy), ..Netschema::default() }
                .schema_for(training.schema)
                .unwrap();
            let prior = netschema_lab::netschema::train(schema, &training.snapshots).unwrap();
            let rec = simulate(name, 60, 1, arena::Config::default(), false).unwrap();
            let config = RunConfig::new(6, 0.05, 1);
            let setup =
                Setup { schema: rec.schema, capacity: rec.capacity, training: &[], events: &[] };
            let start = |prior: Option<&'static [u8]>| {
                let engine = Netschema { policy: Some(policy), prior, ..Netschema::default() };
                let r = netschema_lab::run(&engine, &setup, &rec.snapshots, None, &config, |_| {})
                    .unwrap();
                assert!(r.verified(), "{name}");
                r.bytes.iter().sum::<usize>()
            };
            let (cold, warm) = (start(None), start(Some(Box::leak(prior.into_boxed_slice()))));
            assert!(warm < cold, "{name} {policy}: {warm} bytes with a prior, {cold} cold");
        }
    }
}

#[test]
fn netschema_contract_runs_on_particles_only_and_replicates_exactly() {
    let names = ["netschema", CONTRACTED].map(String::from);
    let rec = simulate("particles", 120, 1, arena::Config::default(), false).unwrap();
    let schema = runtime_schema("particles").unwrap().schema;
    let list = techniques_for(&names, schema, Netschema::default(), &[], contract_of("particles"))
        .unwrap();
    assert_eq!(list.iter().map(|t| t.name()).collect::<Vec<_>>(), ["netschema", CONTRACTED]);
    let setup = Setup { schema: rec.schema, capacity: rec.capacity, training: &[], events: &[] };
    let config = RunConfig::new(6, 0.05, 1);
    let run = |t: &dyn Technique| {
        netschema_lab::run(t, &setup, &rec.snapshots, None, &config, |_| {}).unwrap()
    };
    let (plain, contracted) = (run(&*list[0]), run(&*list[1]));
    assert!(contracted.verified() && plain.verified());
    let total = |r: &netschema_lab::TechniqueResult| r.bytes.iter().sum::<usize>();
    assert!(total(&contracted) < total(&plain));
    let cubes = runtime_schema("cubes").unwrap().schema;
    let list =
        techniques_for(&names, cubes, Netschema::default(), &[], contract_of("cubes")).unwrap();
    assert_eq!(list.len(), 1, "no contract for cubes");
}

/// The arena behaves as its model says: views that rest and move, players that enter and leave
/// player 0's sight, respawns or teleports that jump, and frame times that jitter.
#[test]
fn the_arena_moves_like_people() {
    let rec = simulate("arena", 600, 1, arena::Config::default(), true).unwrap();
    let world = rec.world.expect("the arena records the world when asked");
    // Each player's rows (pos.x, pos.y, height, yaw, ...) at consecutive frames.
    let players = world[0].world.ids.len();
    let pairs: Vec<(&[i32], &[i32])> = world
        .windows(2)
        .flat_map(|w| (0..players).map(move |i| (w[0].world.row(i), w[1].world.row(i))))
        .collect();
    let resting = pairs.iter().filter(|(a, b)| a[3] == b[3]).count() as f64 / pairs.len() as f64;
    assert!((0.1..0.6).contains(&resting), "the yaw held in {resting:.2} of the frames");
    let jumps = pairs.iter().filter(|(a, b)| (a[0] - b[0]).abs() + (a[1] - b[1]).abs() > 384);
    assert!(jumps.count() > 0, "nobody respawned or took a teleporter");
    let seen: Vec<&Vec<u32>> = world.iter().map(|f| &f.clients.as_ref().unwrap()[0].1).collect();
    let changes = seen.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(changes >= 20, "player 0's view changed {changes} times");
    let times: Vec<f64> = world.iter().map(|f| f.time.unwrap()).collect();
    let gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    let (shortest, longest) =
        gaps.iter().fold((f64::MAX, 0.0f64), |(s, l), &g| (s.min(g), l.max(g)));
    assert!(shortest < 0.032 && longest > 0.045, "frame gaps from {shortest} to {longest} s");
}
