//! References in traces: reading, writing, errors, what a client sees, and replays that check
//! every technique's frames with their references.

use super::*;
use crate::Rng;
use crate::netschema::Netschema;

const SCHEMA: &str = "\
class Ship {
    pos: int(0, 100);
    target: ref<Ship>;
    owner: ref<any>;
}
class Rock { size: int(0, 9); }
";

fn schema() -> RuntimeSchema {
    RuntimeSchema::new(&netschema_idl::parse_str("refs.netidl", SCHEMA).unwrap()).unwrap()
}

fn read(text: &str) -> Result<Trace, TraceError> {
    Trace::read(&schema(), text.as_bytes(), |_, _| {})
}

const FIRST: &str = r#"{"entities": [{"id": 1, "class": "Ship", "fields": {"pos": 10, "target": 2, "owner": 5}}, {"id": 2, "class": "Ship", "fields": {"pos": 20, "target": null, "owner": 1}}, {"id": 5, "class": "Rock", "fields": {"size": 3}}]}"#;

#[test]
fn references_read_as_ids_and_are_kept_when_left_out() {
    let second = r#"{"entities": [{"id": 1, "class": "Ship", "fields": {"target": null}}, {"id": 2, "class": "Ship"}], "clients": {"a": [1], "b": [1, 2]}}"#;
    let trace = read(&format!("{FIRST}\n{second}\n")).unwrap();
    let [first, second] = &trace.frames[..] else { panic!("two frames") };
    assert_eq!(first.world.links(0), [Some(2), Some(5)]);
    assert_eq!(first.world.links(1), [None, Some(1)]);
    assert!(first.world.links(2).is_empty(), "a rock has no references");
    // Ship 1 drops its target; the owner it keeps, rock 5, left: it names nothing now. Ship 2
    // keeps its owner, ship 1.
    assert_eq!(second.world.links(0), [None, None]);
    assert_eq!(second.world.links(1), [None, Some(1)]);
    // Client `a` sees ship 1 only: nothing it holds names a ship it cannot see.
    let view = second.view(Some("a"));
    assert_eq!(view.links(0), [None, None]);
    assert_eq!(second.view(Some("b")).links(1), [None, Some(1)]);
}

#[test]
fn bad_references_are_errors_naming_the_line_and_field() {
    let kind = |text: &str| read(text).expect_err("should not read").kind;
    let missing =
        r#"{"entities": [{"id": 1, "class": "Ship", "fields": {"pos": 1, "owner": null}}]}"#;
    assert!(
        matches!(kind(missing), TraceErrorKind::MissingField { field, .. } if field == "target")
    );
    let unknown = r#"{"entities": [{"id": 1, "class": "Ship", "fields": {"pos": 1, "target": 9, "owner": null}}]}"#;
    assert_eq!(
        kind(unknown),
        TraceErrorKind::UnknownTarget { field: "Ship.target".into(), id: 1, target: 9 }
    );
    let class = r#"{"entities": [{"id": 1, "class": "Ship", "fields": {"pos": 1, "target": 5, "owner": 5}}, {"id": 5, "class": "Rock", "fields": {"size": 1}}]}"#;
    let error = read(class).unwrap_err();
    assert_eq!(
        error.to_string(),
        "line 1: `Ship.target` of entity 1 names entity 5, a `Rock`, not a `Ship`"
    );
    let wrong = r#"{"entities": [{"id": 1, "class": "Ship", "fields": {"pos": 1, "target": "me", "owner": null}}]}"#;
    assert!(
        matches!(kind(wrong), TraceErrorKind::Expected { what, .. } if what.contains("Ship.target"))
    );
    // A reference kept from the previous line names nothing once its target left or came
    // back as another entity (rock 5 is now a ship): only one the line gives is checked.
    let later = r#"{"entities": [{"id": 1, "class": "Ship"}, {"id": 5, "class": "Ship", "fields": {"pos": 1, "target": 1, "owner": null}}]}"#;
    let trace = read(&format!("{FIRST}\n{later}\n")).unwrap();
    assert_eq!(trace.frames[1].world.links(0), [None, None]);
    assert_eq!(trace.frames[1].world.links(1), [Some(1), None]);
}

/// Ships that come and go, retarget and change owners, with two clients' visible sets.
fn random_frames(n: usize, seed: u64) -> Vec<TraceFrame> {
    let mut rng = Rng(seed);
    let mut live: Vec<(u32, u16)> = Vec::new();
    let (mut next, mut rows, mut links) = (0u32, Vec::new(), Vec::new());
    let mut out: Vec<TraceFrame> = Vec::new();
    for frame in 0..n {
        live.retain(|_| !rng.chance(0.05));
        while live.len() < 10 {
            live.push((next, if rng.chance(0.8) { 0 } else { 1 }));
            next += 1;
        }
        let previous = out.last().map(|f| &f.world);
        let mut world = Snapshot::new();
        for &(id, class) in &live {
            let old = previous.and_then(|p| p.ids.binary_search(&id).ok());
            rows.clear();
            rows.push(old.map_or(rng.below(10) as i32, |i| previous.unwrap().row(i)[0]));
            if rng.chance(0.3) {
                rows[0] = rng.below(if class == 0 { 101 } else { 10 }) as i32;
            }
            links.clear();
            if class == 0 {
                for r in 0..2 {
                    let held = old.and_then(|i| previous.unwrap().link(i, r));
                    let kept =
                        held.filter(|t| live.iter().any(|&(id, c)| id == *t && (r == 1 || c == 0)));
                    let pick = live[rng.below(live.len() as u64) as usize];
                    let fresh = (r == 1 || pick.1 == 0).then_some(pick.0);
                    links.push(if rng.chance(0.1) {
                        fresh.filter(|_| rng.chance(0.8))
                    } else {
                        kept
                    });
                }
            }
            world.push_linked(id, class, &rows, &links);
        }
        let a: Vec<u32> = world.ids.iter().copied().filter(|id| id % 3 != 0).collect();
        let clients = Some(vec![("a".to_string(), a), ("b".to_string(), world.ids.clone())]);
        out.push(TraceFrame {
            frame: Some(frame as u64),
            time: None,
            world,
            clients,
            events: Vec::new(),
        });
    }
    out
}

#[test]
fn references_round_trip_and_replay_verified() {
    let schema = schema();
    let frames = random_frames(150, 11);
    let mut writer = TraceWriter::new(&schema, Vec::new(), Some(30.0)).unwrap();
    for f in &frames {
        writer.write(&f.world, f.clients.as_deref(), None).unwrap();
    }
    let trace = Trace::read(&schema, &writer.finish().unwrap()[..], |_, _| {}).unwrap();
    assert_eq!(trace.frames, frames);
    let retargets = frames.windows(2).filter(|w| w[0].world.targets != w[1].world.targets);
    assert!(retargets.count() > 50, "references change often");
    for (budget, latency, loss) in [(None, 0, 0.0), (None, 3, 0.1), (Some(40), 3, 0.1)] {
        let views = trace.views(Some("a"));
        let config = crate::RunConfig { latency, loss, seed: 5, warmup: 0 };
        let recording = crate::profile::Recording {
            snapshots: &views,
            training: &views,
            times: None,
            events: &[],
        };
        let engine = Netschema { budget, ..Netschema::default() };
        let names = crate::techniques::NAMES;
        let report =
            crate::profile::measure("t", schema.schema, recording, 30.0, &config, &names, engine)
                .unwrap();
        assert!(report.results.len() >= 5);
        for r in &report.results {
            assert!(r.verified(), "{} {budget:?}: {:?}", r.name, r.first_error);
            assert!(r.verified_frames > views.len() / 2, "{}", r.name);
        }
    }
}
