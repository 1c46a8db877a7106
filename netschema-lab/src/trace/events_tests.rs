//! Events in traces: reading, writing, errors, what each client is sent, and a replay that
//! carries them through netschema's record stream.

use super::*;
use crate::netschema::Netschema;

const SCHEMA: &str = "\
class Ship { pos: int(0, 100); }
class Rock { size: int(0, 9); }
event Hit {
    target: ref<Ship>;
    by: ref<any>;
    damage: int(0, 255);
    heavy: bool;
}
event Wave { number: int(1, 50); }
";

fn schema() -> RuntimeSchema {
    RuntimeSchema::new(&netschema_idl::parse_str("events.netidl", SCHEMA).unwrap()).unwrap()
}

fn read(text: &str) -> Result<Trace, TraceError> {
    Trace::read(&schema(), text.as_bytes(), |_, _| {})
}

const SHIPS: &str = r#""entities": [{"id": 1, "class": "Ship", "fields": {"pos": 10}}, {"id": 2, "class": "Ship", "fields": {"pos": 20}}, {"id": 5, "class": "Rock", "fields": {"size": 3}}]"#;

#[test]
fn events_read_with_their_fields_and_go_to_the_clients_that_see_their_subject() {
    let line = format!(
        r#"{{{SHIPS}, "clients": {{"a": [1], "b": [1, 2, 5]}}, "events": [{{"event": "Hit", "fields": {{"target": 2, "by": 5, "damage": 12, "heavy": true}}}}, {{"event": "Wave", "fields": {{"number": 3}}}}, {{"event": "Hit", "fields": {{"target": 1, "by": 2, "damage": 0, "heavy": false}}}}]}}"#
    );
    let trace = read(&line).unwrap();
    let frame = &trace.frames[0];
    let hit = |target, by, damage, heavy| Event {
        event: 0,
        values: vec![damage, heavy],
        targets: vec![Some(target), by],
    };
    let wave = Event { event: 1, values: vec![3], targets: Vec::new() };
    assert_eq!(frame.events, [hit(2, Some(5), 12, 1), wave.clone(), hit(1, Some(2), 0, 0)]);
    // `a` sees ship 1 only: the hit on ship 2 is not sent to it, and ship 2 as the shooter
    // of the other is hidden; an event without references goes to everyone.
    assert_eq!(frame.events_for(Some("a")), [wave.clone(), hit(1, None, 0, 0)]);
    assert_eq!(frame.events_for(Some("b")), frame.events);
    assert!(frame.events_for(Some("nobody")).is_empty());
    assert_eq!(trace.events(Some("a")), [frame.events_for(Some("a"))]);
    // A trace without events has none to give.
    assert!(read(&format!("{{{SHIPS}}}")).unwrap().events(None).is_empty());
}

#[test]
fn bad_events_are_errors_naming_the_line_and_event() {
    let kind = |events: &str| {
        let text = format!("{{{SHIPS}, \"events\": [{events}]}}");
        read(&text).expect_err("should not read").kind
    };
    let hit = |fields: &str| format!(r#"{{"event": "Hit", "fields": {{{fields}}}}}"#);
    assert_eq!(
        kind(r#"{"event": "Miss", "fields": {}}"#),
        TraceErrorKind::UnknownEvent("Miss".into())
    );
    assert_eq!(
        kind(&hit(r#""target": 1, "by": null, "damage": 4"#)),
        TraceErrorKind::MissingEventField { event: "Hit".into(), field: "heavy".into() }
    );
    assert_eq!(
        kind(&hit(r#""target": 9, "by": null, "damage": 4, "heavy": true"#)),
        TraceErrorKind::EventTarget { field: "Hit.target".into(), target: 9, expected: None }
    );
    assert_eq!(
        kind(&hit(r#""target": 5, "by": null, "damage": 4, "heavy": true"#)),
        TraceErrorKind::EventTarget {
            field: "Hit.target".into(),
            target: 5,
            expected: Some("Ship".into())
        }
    );
    assert!(matches!(
        kind(&hit(r#""target": 1, "by": null, "damage": 4, "heavy": true, "speed": 1"#)),
        TraceErrorKind::UnknownField { class, field } if class == "Hit" && field == "speed"
    ));
    assert!(matches!(kind(r#"{"event": "Wave"}"#), TraceErrorKind::MissingEventField { .. }));
    assert!(matches!(kind(r#"{"fields": {}}"#), TraceErrorKind::MissingKey { key: "event", .. }));
    // Version 2 traces have no events.
    let old = format!("{{\"netschema_trace\": 2}}\n{{{SHIPS}, \"events\": []}}\n");
    assert!(matches!(
        read(&old).unwrap_err().kind,
        TraceErrorKind::UnknownKey { key, .. } if key == "events"
    ));
}

#[test]
fn out_of_range_event_values_are_clamped_and_reported() {
    let text =
        format!(r#"{{{SHIPS}, "events": [{{"event": "Wave", "fields": {{"number": 80}}}}]}}"#);
    let trace = read(&text).unwrap();
    assert_eq!(trace.frames[0].events[0].values, [50]);
    assert_eq!(trace.clamped.len(), 1);
    assert_eq!(trace.clamped[0].field, "Wave.number");
}

/// Frames of ships, with a hit on some of them on every third frame.
fn frames(count: usize) -> Vec<TraceFrame> {
    (0..count)
        .map(|f| {
            let mut world = Snapshot::new();
            for id in 0..6u32 {
                if !(id + f as u32).is_multiple_of(9) {
                    world.push(id, 0, &[(id as i32 * 7 + f as i32) % 100]);
                }
            }
            let events = match f % 3 {
                0 => world
                    .ids
                    .iter()
                    .take(2)
                    .map(|&id| Event {
                        event: 0,
                        values: vec![(f % 256) as i32, (id % 2) as i32],
                        targets: vec![Some(id), world.ids.last().copied()],
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let clients = Some(vec![("a".to_string(), world.ids[..3].to_vec())]);
            TraceFrame { frame: None, time: None, world, clients, events }
        })
        .collect()
}

#[test]
fn written_events_read_back_equal_and_replay_through_the_record_stream() {
    let schema = schema();
    let mut writer = TraceWriter::new(&schema, Vec::new(), Some(30.0)).unwrap();
    let written = frames(120);
    for f in &written {
        writer.write_frame(f).unwrap();
    }
    let text = writer.finish().unwrap();
    let trace = Trace::read(&schema, &text[..], |_, _| {}).unwrap();
    for (read, wrote) in trace.frames.iter().zip(&written) {
        assert_eq!(
            (&read.world, &read.clients, &read.events),
            (&wrote.world, &wrote.clients, &wrote.events)
        );
    }
    let (views, events) = (trace.views(Some("a")), trace.events(Some("a")));
    let sent: usize = events.iter().map(Vec::len).sum();
    assert!(sent > 20, "{sent}");
    let recording = crate::profile::Recording {
        snapshots: &views,
        training: &views,
        times: None,
        events: &events,
    };
    let config = crate::RunConfig { latency: 2, loss: 0.1, seed: 3, warmup: 0 };
    let report = crate::profile::measure(
        "t",
        schema.schema,
        recording,
        30.0,
        &config,
        &["netschema", "BC"],
        Netschema::default(),
    )
    .unwrap();
    for r in &report.results {
        assert!(r.verified(), "{}: {:?}", r.name, r.first_error);
    }
    let records = report.results.iter().find_map(|r| r.records.clone()).unwrap();
    assert_eq!(records.events, sent as u64);
    assert_eq!(records.mismatches, 0);
    assert!(records.applied > 0 && records.applied <= records.queued);
    assert!(report.table().contains("netschema: events, one a record"));
    assert!(crate::report::to_json(&[report]).contains("\"records\": {\"events\""));
}
