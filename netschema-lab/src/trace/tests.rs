//! The trace reader and writer: good and bad lines, clamping, round trips, hostile text.

use std::f64::consts::FRAC_1_SQRT_2;

use netschema_runtime::quant::QuatQuant;
use proptest::prelude::*;

use super::shape::natural_quat;
use super::*;
use crate::Rng;

const SCHEMA: &str = "\
enum State { idle, moving, attacking }
class Unit {
    pos: vec2<fixed(0, 256, res = 1/32)>;
    heading: angle(bits = 8) predict(hold, linear);
    hp: int(0, 200);
    state: State;
    alive: bool;
    orientation: quat(bits = 9);
    path: [vec3<int(-10, 10)>; 2];
    flags: [bool; 2];
}
class Tree { height: fixed(0, 20, bits = 12); }
";

fn schema() -> RuntimeSchema {
    RuntimeSchema::new(&netschema_idl::parse_str("test.netidl", SCHEMA).unwrap()).unwrap()
}

const UNIT: &str = r#"{"id": 7, "class": "Unit", "fields": {"pos": [1.5, 2.0], "heading": 0.0, "hp": 150, "state": "moving", "alive": true, "orientation": [0, 0, 0, 1], "path": [[1, 2, 3], [-4, -5, -6]], "flags": [true, false]}}"#;

fn read(text: &str) -> Result<Trace, TraceError> {
    Trace::read(&schema(), text.as_bytes(), |_, _| {})
}

fn error(text: &str) -> TraceError {
    read(text).expect_err("the trace should not read")
}

#[test]
fn reads_header_frames_and_visible_sets() {
    let text = format!(
        "{{\"netschema_trace\": 1, \"schema\": \"test\", \"rate_hz\": 30}}\n\
         {{\"frame\": 0, \"entities\": [{UNIT}, {{\"id\": 2, \"class\": \"Tree\", \"fields\": {{\"height\": 20}}}}]}}\n\
         \n\
         {{\"frame\": 5, \"entities\": [{{\"id\": 7, \"class\": \"Unit\", \"fields\": {{\"hp\": 149}}}}], \"clients\": {{\"b\": [7, 7], \"a\": []}}}}\n"
    );
    let trace = read(&text).unwrap();
    assert_eq!(trace.header, Some(Header { schema: Some("test".into()), rate_hz: Some(30.0) }));
    assert_eq!(trace.frames.len(), 2);
    let first = &trace.frames[0];
    assert_eq!(first.frame, Some(0));
    assert_eq!(first.world.ids, [2, 7]);
    assert_eq!(first.world.classes, [1, 0]);
    assert_eq!(first.world.row(0), [4095]);
    let identity = QuatQuant::new(9).unwrap().quantise([0.0, 0.0, 0.0, 1.0]);
    let mut unit = vec![48, 64, 0, 150, 1, 1];
    unit.extend(identity);
    unit.extend([1, 2, 3, -4, -5, -6, 1, 0]);
    assert_eq!(first.world.row(1), unit);
    assert_eq!(first.clients, None);
    assert_eq!(first.view(Some("a")), first.world);
    let second = &trace.frames[1];
    assert_eq!(second.frame, Some(5));
    assert_eq!(second.world.ids, [7]);
    let mut changed = unit.clone();
    changed[3] = 149;
    assert_eq!(second.world.row(0), changed);
    assert_eq!(second.clients, Some(vec![("a".to_string(), vec![]), ("b".to_string(), vec![7])]));
    assert!(second.view(Some("a")).is_empty());
    assert_eq!(second.view(Some("b")), second.world);
    assert!(second.view(Some("nobody")).is_empty());
    assert_eq!(second.view(None), second.world);
    assert_eq!(trace.clients(), ["a", "b"]);
    assert!(trace.clamped.is_empty());
}

#[test]
fn times_ticks_class_changes_and_empty_frames() {
    let tree = r#"{"id": 7, "class": "Tree", "fields": {"height": 10}}"#;
    let text = format!(
        "{{\"netschema_trace\": 2, \"rate_hz\": 50}}\n\
         {{\"tick\": 0, \"entities\": [{UNIT}]}}\n\
         {{\"tick\": 3, \"entities\": []}}\n\
         {{\"tick\": 250, \"entities\": [{UNIT}]}}\n\
         {{\"tick\": 251, \"entities\": [{tree}]}}\n"
    );
    let trace = read(&text).unwrap();
    assert_eq!(trace.times(), Some(vec![0.0, 0.06, 5.0, 5.02]));
    assert!(trace.frames[1].world.is_empty());
    // Entity 7 turns from a unit into a tree: a new entity under the same id.
    assert_eq!(
        (trace.frames[3].world.ids.as_slice(), trace.frames[3].world.classes[0]),
        (&[7][..], 1)
    );
    assert_eq!(trace.frames[3].world.row(0), [2048]);

    let timed =
        read("{\"time\": 0.25, \"entities\": []}\n{\"time\": 1, \"entities\": []}").unwrap();
    assert_eq!(timed.times(), Some(vec![0.25, 1.0]));
    assert_eq!(read("{\"entities\": []}").unwrap().times(), None);
    // Version 1 traces still read.
    let v1 = read(&format!("{{\"netschema_trace\": 1}}\n{{\"entities\": [{UNIT}]}}")).unwrap();
    assert_eq!(v1.frames.len(), 1);
}

#[test]
fn no_header_and_no_frame_numbers() {
    let trace = read(&format!("{{\"entities\": [{UNIT}]}}\n{{\"entities\": []}}")).unwrap();
    assert_eq!(trace.header, None);
    assert_eq!(trace.frames.len(), 2);
    assert_eq!(trace.frames[0].frame, None);
    assert!(trace.frames[1].world.is_empty());
}

#[test]
fn out_of_range_values_are_clamped_and_counted() {
    let text = format!(
        "{{\"entities\": [{UNIT}]}}\n\
         {{\"entities\": [{{\"id\": 7, \"class\": \"Unit\", \"fields\": {{\"pos\": [-3, 1e9], \"hp\": 1e12, \"orientation\": [0, 0, 0, 0], \"heading\": -7}}}}]}}\n\
         {{\"entities\": [{{\"id\": 7, \"class\": \"Unit\", \"fields\": {{\"hp\": -5, \"path\": [[99, 0, 0], [0, 0, 0]]}}}}]}}"
    );
    let trace = read(&text).unwrap();
    let row = trace.frames[1].world.row(0);
    assert_eq!(&row[..4], [0, 8192, row[2], 200]);
    assert_eq!(row[6..10], QuatQuant::new(9).unwrap().quantise([0.0, 0.0, 0.0, 1.0]));
    assert_eq!(trace.frames[2].world.row(0)[3], 0);
    assert_eq!(trace.frames[2].world.row(0)[10], 10);
    let clamped: Vec<(&str, u64, usize)> =
        trace.clamped.iter().map(|c| (c.field.as_str(), c.count, c.first_line)).collect();
    assert_eq!(
        clamped,
        [
            ("Unit.pos.x", 1, 2),
            ("Unit.pos.y", 1, 2),
            ("Unit.hp", 2, 2),
            ("Unit.orientation", 1, 2),
            ("Unit.path[0].x", 1, 3),
        ]
    );
}

#[test]
fn bad_lines_are_typed_errors_with_line_numbers() {
    let ok = format!("{{\"entities\": [{UNIT}]}}");
    let with = |line: &str| format!("{ok}\n\n{line}\n");
    type Check = fn(&TraceErrorKind) -> bool;
    let cases: Vec<(String, usize, Check)> = vec![
        (with("{\"entities\": [}"), 3, |k| matches!(k, TraceErrorKind::Json(_))),
        (with("[1, 2]"), 3, |k| matches!(k, TraceErrorKind::Expected { found: "an array", .. })),
        (
            with("{\"entities\": [], \"fram\": 3}"),
            3,
            |k| matches!(k, TraceErrorKind::UnknownKey { key, context: "line" } if key == "fram"),
        ),
        (with("{\"frame\": 1}"), 3, |k| {
            matches!(k, TraceErrorKind::MissingKey { key: "entities", context: "line" })
        }),
        (with("{\"entities\": {}}"), 3, |k| matches!(k, TraceErrorKind::Expected { .. })),
        (with("{\"frame\": -1, \"entities\": []}"), 3, |k| {
            matches!(k, TraceErrorKind::Expected { .. })
        }),
        (
            "{\"frame\": 3, \"entities\": []}\n{\"frame\": 3, \"entities\": []}".to_string(),
            2,
            |k| matches!(k, TraceErrorKind::FrameOrder { frame: 3, previous: 3 }),
        ),
        (with("{\"netschema_trace\": 1}"), 3, |k| matches!(k, TraceErrorKind::MisplacedHeader)),
        ("{\"netschema_trace\": 4}".into(), 1, |k| {
            matches!(k, TraceErrorKind::UnsupportedVersion(_))
        }),
        (
            "{\"netschema_trace\": 1}\n{\"time\": 0.5, \"entities\": []}".into(),
            2,
            |k| matches!(k, TraceErrorKind::UnknownKey { key, .. } if key == "time"),
        ),
        ("{\"time\": 0.5, \"entities\": []}\n{\"time\": 0.5, \"entities\": []}".into(), 2, |k| {
            matches!(k, TraceErrorKind::TimeOrder { .. })
        }),
        ("{\"time\": 0.5, \"entities\": []}\n{\"entities\": []}".into(), 2, |k| {
            matches!(k, TraceErrorKind::MixedTiming { first: "`time`", .. })
        }),
        (with("{\"tick\": 4, \"entities\": []}"), 3, |k| {
            matches!(k, TraceErrorKind::MixedTiming { .. })
        }),
        ("{\"tick\": 4, \"entities\": []}".into(), 1, |k| {
            matches!(k, TraceErrorKind::TickWithoutRate)
        }),
        ("{\"tick\": 4, \"time\": 1, \"entities\": []}".into(), 1, |k| {
            matches!(k, TraceErrorKind::TimeAndTick)
        }),
        ("{\"time\": -1, \"entities\": []}".into(), 1, |k| {
            matches!(k, TraceErrorKind::Expected { .. })
        }),
        ("{\"netschema_trace\": 1, \"rate_hz\": 0}".into(), 1, |k| {
            matches!(k, TraceErrorKind::Expected { .. })
        }),
        (
            with("{\"entities\": [{\"id\": 1, \"class\": \"Rock\"}]}"),
            3,
            |k| matches!(k, TraceErrorKind::UnknownClass(c) if c == "Rock"),
        ),
        (
            // A class change is a respawn: the entity enters, with every field.
            with("{\"entities\": [{\"id\": 7, \"class\": \"Tree\"}]}"),
            3,
            |k| matches!(k, TraceErrorKind::MissingField { id: 7, field, .. } if field == "height"),
        ),
        (
            with("{\"entities\": [{\"id\": 7, \"class\": \"Unit\", \"fields\": {\"mana\": 1}}]}"),
            3,
            |k| matches!(k, TraceErrorKind::UnknownField { field, .. } if field == "mana"),
        ),
        (
            with("{\"entities\": [{\"id\": 8, \"class\": \"Unit\", \"fields\": {\"hp\": 1}}]}"),
            3,
            |k| matches!(k, TraceErrorKind::MissingField { id: 8, field, .. } if field == "pos"),
        ),
        (
            with(
                "{\"entities\": [{\"id\": 7, \"class\": \"Unit\", \"fields\": {\"state\": \"asleep\"}}]}",
            ),
            3,
            |k| matches!(k, TraceErrorKind::UnknownCase { case, enumeration, .. } if case == "asleep" && enumeration == "State"),
        ),
        (
            with("{\"entities\": [{\"id\": 7, \"class\": \"Unit\", \"fields\": {\"state\": 1}}]}"),
            3,
            |k| matches!(k, TraceErrorKind::Expected { found: "a number", .. }),
        ),
        (
            with(
                "{\"entities\": [{\"id\": 7, \"class\": \"Unit\", \"fields\": {\"pos\": [1, 2, 3]}}]}",
            ),
            3,
            |k| matches!(k, TraceErrorKind::Expected { what, .. } if what == "`Unit.pos`"),
        ),
        (
            with(
                "{\"entities\": [{\"id\": 7, \"class\": \"Unit\", \"fields\": {\"path\": [[1, 2, 3], [1, true, 3]]}}]}",
            ),
            3,
            |k| matches!(k, TraceErrorKind::Expected { what, .. } if what == "`Unit.path[1].y`"),
        ),
        (
            with("{\"entities\": [{\"id\": 7, \"class\": \"Unit\", \"fields\": {\"hp\": 1.5}}]}"),
            3,
            |k| matches!(k, TraceErrorKind::Expected { expected, .. } if expected == "an integer"),
        ),
        (
            with("{\"entities\": [{\"id\": 7, \"class\": \"Unit\", \"fields\": {\"alive\": 1}}]}"),
            3,
            |k| matches!(k, TraceErrorKind::Expected { .. }),
        ),
        (
            with(
                "{\"entities\": [{\"id\": 7, \"class\": \"Unit\", \"fields\": {\"orientation\": [1, 0, 0]}}]}",
            ),
            3,
            |k| matches!(k, TraceErrorKind::Expected { .. }),
        ),
        (with("{\"entities\": [{\"id\": 4294967296, \"class\": \"Tree\"}]}"), 3, |k| {
            matches!(k, TraceErrorKind::Expected { .. })
        }),
        (with("{\"entities\": [{\"class\": \"Tree\"}]}"), 3, |k| {
            matches!(k, TraceErrorKind::MissingKey { key: "id", context: "entity" })
        }),
        (with("{\"entities\": [{\"id\": 1, \"class\": \"Tree\", \"colour\": 1}]}"), 3, |k| {
            matches!(k, TraceErrorKind::UnknownKey { context: "entity", .. })
        }),
        (with(&format!("{{\"entities\": [{UNIT}, {UNIT}]}}")), 3, |k| {
            matches!(k, TraceErrorKind::DuplicateEntity(7))
        }),
        (
            with("{\"entities\": [], \"clients\": {\"0\": [7]}}"),
            3,
            |k| matches!(k, TraceErrorKind::UnknownEntity { id: 7, client } if client == "0"),
        ),
        (with("{\"entities\": [], \"clients\": [1]}"), 3, |k| {
            matches!(k, TraceErrorKind::Expected { .. })
        }),
        (with("{\"entities\": [], \"clients\": {\"0\": [\"7\"]}}"), 3, |k| {
            matches!(k, TraceErrorKind::Expected { .. })
        }),
    ];
    for (text, line, check) in cases {
        let err = error(&text);
        assert_eq!(err.line, line, "{text}: {err}");
        assert!(check(&err.kind), "{text}: {err:?}");
        assert!(err.to_string().starts_with(&format!("line {line}: ")), "{err}");
    }
}

#[test]
fn invalid_utf8_is_an_io_error() {
    let err =
        Trace::read(&schema(), &b"{\"entities\": []}\n\xff\xfe\n"[..], |_, _| {}).unwrap_err();
    assert_eq!(err.line, 2);
    assert!(matches!(err.kind, TraceErrorKind::Io(_)));
}

#[test]
fn the_reader_stops_after_an_error() {
    let schema = schema();
    let text = "{\"entities\": []}\nnot json\n{\"entities\": []}\n";
    let results: Vec<_> = TraceReader::new(&schema, text.as_bytes()).collect();
    assert_eq!(results.len(), 2);
    assert!(results[0].is_ok());
    assert_eq!(results[1].as_ref().unwrap_err().line, 2);
}

/// Random snapshots of the test schema: entities enter, change, leave, change class; some
/// frames are empty; two clients; irregular times with pauses.
pub(crate) fn random_frames(n: usize, seed: u64) -> Vec<TraceFrame> {
    let schema = schema();
    let mut rng = Rng(seed);
    let mut live: Vec<(u32, u16, Vec<i32>)> = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    let mut time = 0.0;
    let q = QuatQuant::new(9).unwrap();
    for _ in 0..n {
        live.retain(|_| !rng.chance(0.1));
        for (_, class, row) in live.iter_mut() {
            if rng.chance(0.03) {
                *class = 1 - *class;
                *row = vec![0; schema.classes[usize::from(*class)].quantisers.len()];
            }
        }
        while live.len() < 12 {
            let class = rng.below(2) as u16;
            live.push((next, class, vec![0; schema.classes[usize::from(class)].quantisers.len()]));
            next += 1 + rng.below(3) as u32;
        }
        for (_, class, row) in live.iter_mut() {
            for (v, quant) in row.iter_mut().zip(&schema.classes[usize::from(*class)].quantisers) {
                if rng.chance(0.5) {
                    let span = (quant.raw_max() - quant.raw_min()) as u64 + 1;
                    *v = quant.raw_min() + rng.below(span) as i32;
                }
            }
            if *class == 0 {
                let quat = [rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), 0.7];
                row[6..10].copy_from_slice(&q.quantise(quat));
            }
        }
        let mut world = Snapshot::new();
        if !rng.chance(0.05) {
            for (id, class, row) in &live {
                world.push(*id, *class, row);
            }
        }
        let a: Vec<u32> = world.ids.iter().copied().filter(|id| id % 2 == 0).collect();
        let clients =
            rng.chance(0.5).then(|| vec![("a".into(), a), ("b".into(), world.ids.clone())]);
        time += if rng.chance(0.05) { rng.range(0.5, 2.0) } else { rng.range(0.005, 0.05) };
        let frame = Some(out.len() as u64);
        out.push(TraceFrame { frame, time: Some(time), world, clients, events: Vec::new() });
    }
    out
}

#[test]
fn written_traces_read_back_identically() {
    let schema = schema();
    let frames = random_frames(60, 9);
    let mut writer = TraceWriter::new(&schema, Vec::new(), Some(60.0)).unwrap();
    for f in &frames {
        writer.write(&f.world, f.clients.as_deref(), f.time).unwrap();
    }
    let text = writer.finish().unwrap();
    let trace = Trace::read(&schema, &text[..], |_, _| {}).unwrap();
    assert_eq!(trace.header.as_ref().and_then(|h| h.rate_hz), Some(60.0));
    assert_eq!(trace.frames, frames);
    assert!(trace.clamped.is_empty());
    // Unchanged fields are left out.
    let text = String::from_utf8(text).unwrap();
    assert!(text.lines().nth(2).unwrap().len() < text.lines().nth(1).unwrap().len());
}

#[test]
fn the_writer_rejects_snapshots_that_do_not_fit() {
    let schema = schema();
    let mut writer = TraceWriter::new(&schema, Vec::new(), None).unwrap();
    let mut s = Snapshot::new();
    s.push(1, 1, &[5000]);
    assert!(matches!(writer.write(&s, None, None), Err(WriteError::Unrepresentable { .. })));
    let mut s = Snapshot::new();
    s.push(1, 2, &[0]);
    assert!(matches!(writer.write(&s, None, None), Err(WriteError::Snapshot(_))));
    let mut s = Snapshot::new();
    s.push(1, 1, &[0]);
    let clients = [("x".to_string(), vec![2])];
    assert!(matches!(writer.write(&s, Some(&clients), None), Err(WriteError::Snapshot(_))));
    assert!(matches!(writer.write(&s, None, Some(f64::NAN)), Err(WriteError::Snapshot(_))));
    writer.write(&s, None, None).unwrap();
    let mut t = Snapshot::new();
    t.push(1, 0, &[0; 17]);
    assert!(matches!(writer.write(&t, None, None), Err(WriteError::Snapshot(_))));
}

#[test]
fn tied_quaternions_keep_their_index() {
    let q = QuatQuant::new(9).unwrap();
    let h = FRAC_1_SQRT_2;
    let mut repaired = 0;
    for quat in [[h, 0.0, 0.0, h], [0.0, h, -h, 0.0], [0.5, 0.5, 0.5, 0.5], [-0.5, 0.5, -0.5, 0.5]]
    {
        let raw = q.quantise(quat);
        let natural = natural_quat(&q, raw).expect("representable");
        assert_eq!(q.quantise(natural), raw, "{quat:?}");
        repaired += usize::from(q.quantise(q.dequantise(raw)) != raw);
    }
    // Plain dequantisation loses the index of some of these.
    assert!(repaired > 0);
}

proptest! {
    #[test]
    fn quantised_quaternions_round_trip(
        quat in prop::array::uniform4(-1.0f64..=1.0),
        tie in 0usize..4,
        bits in 2u32..=31,
    ) {
        prop_assume!(quat.iter().map(|c| c * c).sum::<f64>() > 1e-6);
        let q = QuatQuant::new(bits).unwrap();
        // Also a near tie: copy one component's magnitude onto another.
        let mut tied = quat;
        tied[tie] = quat[(tie + 1) % 4].abs();
        for quat in [quat, tied] {
            let raw = q.quantise(quat);
            let natural = natural_quat(&q, raw);
            prop_assert!(natural.is_some_and(|n| q.quantise(n) == raw), "{:?} {:?}", quat, raw);
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let _ = read(&text);
    }

    #[test]
    fn mutated_lines_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..8),
    ) {
        let mut bytes = format!(
            "{{\"netschema_trace\": 1}}\n{{\"frame\": 0, \"entities\": [{UNIT}], \"clients\": {{\"0\": [7]}}}}\n"
        )
        .into_bytes();
        for (at, byte, op) in edits {
            let i = at.index(bytes.len());
            match op {
                0 => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ => {
                    bytes.remove(i);
                }
            }
            if bytes.is_empty() {
                break;
            }
        }
        let _ = Trace::read(&schema(), &bytes[..], |_, _| {});
    }
}

/// The code block of `doc` that starts with `start`, without `start`.
fn block<'a>(doc: &'a str, start: &str) -> &'a str {
    let from = doc.find(start).expect("block in the doc") + start.len();
    let len = doc[from..].find("```").expect("closed block");
    &doc[from..from + len]
}

/// The code block of `docs/trace-format.md` that starts with `start`.
fn doc_block(start: &str) -> &'static str {
    block(include_str!("../../../docs/trace-format.md"), start)
}

#[test]
fn the_readme_example_reads() {
    let readme = include_str!("../../../README.md");
    let ir =
        netschema_idl::parse_str("game.netidl", block(readme, "```text\n/// A ball.\n")).unwrap();
    let schema = RuntimeSchema::new(&ir).unwrap();
    let text = format!("{{\"netschema_trace\"{}", block(readme, "```text\n{\"netschema_trace\""));
    let trace = Trace::read(&schema, text.as_bytes(), |_, _| {}).unwrap();
    assert_eq!(trace.frames.len(), 2);
    // pos.y moved by 1/8 m: 8 steps of 1/64.
    assert_eq!(trace.frames[1].world.row(0)[1] - trace.frames[0].world.row(0)[1], 8);
}

#[test]
fn the_documented_example_reads() {
    let ir = netschema_idl::parse_str("dots.netidl", doc_block("```netidl\n")).unwrap();
    let schema = RuntimeSchema::new(&ir).unwrap();
    let text = doc_block("```text\n{\"netschema_trace\"");
    let trace =
        Trace::read(&schema, format!("{{\"netschema_trace\"{text}").as_bytes(), |_, _| {}).unwrap();
    assert_eq!(trace.header.as_ref().and_then(|h| h.rate_hz), Some(30.0));
    assert_eq!(trace.frames.len(), 3);
    assert_eq!(trace.clients(), ["0", "1"]);
    let [first, second, third] = &trace.frames[..] else { unreachable!() };
    assert_eq!(first.world.row(0)[..2], [544, 384]);
    assert_eq!(second.world.row(0)[..2], [548, 388]);
    assert_eq!(second.world.row(1)[..7], first.world.row(1)[..7]);
    assert_eq!((first.world.row(1)[7], second.world.row(1)[7]), (40, 35));
    assert_eq!(third.world.ids, [2]);
    assert!(third.view(Some("1")).is_empty());
    assert!(trace.clamped.is_empty());
}

#[test]
fn irregular_times_empty_frames_and_respawns_replay_verified() {
    let schema = schema();
    let frames = random_frames(120, 4);
    let mut writer = TraceWriter::new(&schema, Vec::new(), Some(30.0)).unwrap();
    for f in &frames {
        writer.write(&f.world, f.clients.as_deref(), f.time).unwrap();
    }
    let trace = Trace::read(&schema, &writer.finish().unwrap()[..], |_, _| {}).unwrap();
    assert_eq!(trace.frames, frames);
    assert!(trace.frames.iter().filter(|f| f.world.is_empty()).count() >= 3);
    let respawns = trace.frames.windows(2).any(|w| {
        w[1].world.ids.iter().zip(&w[1].world.classes).any(|(id, class)| {
            w[0].world.ids.binary_search(id).is_ok_and(|i| w[0].world.classes[i] != *class)
        })
    });
    assert!(respawns, "some entity changes class");
    let times = trace.times().expect("timed");
    let names = crate::techniques::NAMES;
    for (latency, loss) in [(0, 0.0), (3, 0.1)] {
        for client in [None, Some("a")] {
            let views = trace.views(client);
            let config = crate::RunConfig { latency, loss, seed: 5, warmup: 0 };
            let recording = crate::profile::Recording {
                snapshots: &views,
                training: &views,
                times: Some(&times),
                events: &[],
            };
            let report = crate::profile::measure(
                "t",
                schema.schema,
                recording,
                30.0,
                &config,
                &names,
                crate::netschema::Netschema::default(),
            )
            .unwrap();
            assert!(report.results.len() >= 5);
            for r in &report.results {
                assert!(r.verified(), "{}: {:?}", r.name, r.first_error);
                if latency == 0 {
                    assert_eq!(r.verified_frames, views.len(), "{}: every frame", r.name);
                }
            }
        }
    }
}

/// A list reads into its slots in order and writes in its chain's order; a row whose chain
/// repeats a slot writes the list up to the repeat.
#[test]
fn lists_read_into_slots_and_write_in_chain_order() {
    let ir = netschema_idl::parse_str("l.netidl", "class Bag { ids: list<int(0, 9), 3>; }");
    let schema = RuntimeSchema::new(&ir.unwrap()).unwrap();
    let line =
        r#"{"frame": 0, "entities": [{"id": 1, "class": "Bag", "fields": {"ids": [7, 5]}}]}"#;
    let trace = Trace::read(&schema, line.as_bytes(), |_, _| {}).unwrap();
    // head 0; slot 0 links to 1 and holds 7; slot 1 ends the list and holds 5; slot 2 unused.
    assert_eq!(trace.frames[0].world.row(0), [0, 1, 7, 3, 5, 3, 0]);
    let written = |row: &[i32]| {
        let mut s = Snapshot::new();
        s.push(1, 0, row);
        let mut writer = TraceWriter::new(&schema, Vec::new(), None).unwrap();
        writer.write(&s, None, None).unwrap();
        String::from_utf8(writer.finish().unwrap()).unwrap()
    };
    assert!(written(&[2, 3, 4, 0, 6, 1, 8]).contains(r#""ids":[8,6,4]"#));
    assert!(written(&[1, 0, 4, 1, 6, 3, 0]).contains(r#""ids":[6]"#));
    let long =
        r#"{"frame": 0, "entities": [{"id": 1, "class": "Bag", "fields": {"ids": [1, 2, 3, 4]}}]}"#;
    assert!(Trace::read(&schema, long.as_bytes(), |_, _| {}).is_err());
}
