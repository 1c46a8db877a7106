//! `timeline(...)` clauses: parsing, printing, flattening into slots, and the errors of misuse.

use netschema_idl::ir::Interp;
use netschema_idl::{ScalarKind, parse_str};

fn errors(text: &str) -> Vec<String> {
    match parse_str("t", text) {
        Ok(_) => Vec::new(),
        Err(e) => e.iter().map(|d| d.message.clone()).collect(),
    }
}

#[test]
fn a_timeline_flattens_into_slots_of_flag_time_then_values() {
    let text = "class C { pos: vec2<fixed(0, 8, res = 1/4)> timeline(linear, ahead = 2, history = 1, keep = 60); }";
    let schema = parse_str("t", text).unwrap();
    let field = &schema.classes[0].fields[0];
    let t = field.timeline.as_ref().unwrap();
    assert_eq!((t.interp.value, t.limits(), t.capacity()), (Interp::Linear, (2, 1, 60), 3));
    let scalars = schema.flatten(&schema.classes[0]);
    let paths: Vec<&str> = scalars.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(
        &paths[..6],
        ["pos[0].live", "pos[0].t", "pos[0].x", "pos[0].y", "pos[1].live", "pos[1].t"]
    );
    assert_eq!(paths.len(), 12);
    assert_eq!(scalars[0].kind, ScalarKind::KeyFlag);
    assert_eq!(scalars[1].kind, ScalarKind::KeyTime { interp: Interp::Linear });
    assert_eq!(scalars[1].kind.bits(), Some(31));
    // Printed canonically, it parses back to the same field.
    let printed = schema.to_string();
    assert!(printed.contains("timeline(linear, ahead = 2, history = 1, keep = 60)"), "{printed}");
    let mut again = parse_str("t", &printed).unwrap();
    let mut first = schema.clone();
    again.erase_spans();
    first.erase_spans();
    assert_eq!(again, first);
}

#[test]
fn defaults_fill_in() {
    let schema = parse_str("t", "class C { a: angle(bits = 8) timeline(cubic); }").unwrap();
    let t = schema.classes[0].fields[0].timeline.as_ref().unwrap();
    assert_eq!(t.limits(), (4, 2, u32::MAX));
}

#[test]
fn misuse_is_reported() {
    assert_eq!(
        errors("class C { x: int(0, 9) timeline(linear); }"),
        ["int, bool and enum timelines are step-only"]
    );
    assert_eq!(
        errors("class C { x: [int(0, 9); 2] timeline(step); }"),
        ["a timeline's kind cannot be an array"]
    );
    assert_eq!(
        errors("class C { x: quat(bits = 9, exact = []) timeline(cubic); }"),
        ["quaternion timelines are step or linear (normalised lerp), not cubic"]
    );
    assert_eq!(
        errors("class C { x: int(0, 9) timeline(step, ahead = 0) tolerance(1); }"),
        ["`ahead` must be between 1 and 64", "a timeline field cannot have a `tolerance` clause"]
    );
    assert_eq!(
        errors("class C { x: int(0, 9) timeline(stpe); }"),
        ["unknown interpolation `stpe`"]
    );
    assert_eq!(
        errors("class C { pos: int(0, 9) timeline(step); Pos: int(0, 9) timeline(step); }"),
        ["timeline fields `pos` and `Pos` differ only in case"]
    );
    assert_eq!(
        errors("class C { x: int(0, 9) timeline(step, ahaed = 2); }"),
        ["a timeline has no parameter `ahaed`"]
    );
}
