//! Property tests: the compiler never panics, whatever the input, and what it accepts prints
//! back to text that parses to the same IR.

use netschema_idl::{MemorySource, load_with, parse_str};
use proptest::prelude::*;

const VALID: &str = r#"//! A valid schema that the mutation test starts from.

/// What a unit is doing.
enum UnitState { idle, /** not doc */ moving, attacking, dead }

/// A particle.
class Particle(every = 2, priority = 3) {
    /// What changes rarely.
    group slow(every = 8, priority = 2);
    /// Position in metres.
    pos: vec2<fixed(-64.0, 64.0, res = 1/512)> tolerance(0.01);
    color: [int(0, 255); 3];
    heading: angle(bits = 10) predict(hold, linear);
    orientation: quat(bits = 9);
    alive: bool group(slow);
    state: UnitState;
    hp: int(-1_000, 1000) group(slow) predict(hold) tolerance(2);
    speed: fixed(0, 2e1, bits = 12) predict(zero, hold, linear, quadratic, cubic);
    path: [vec3<angle(bits = 3)>; 2];
}
"#;

const TOKENS: &[&str] = &[
    "class",
    "enum",
    "import",
    "int",
    "fixed",
    "angle",
    "quat",
    "bool",
    "vec2",
    "vec3",
    "predict",
    "tolerance",
    "group",
    "every",
    "priority",
    "slow",
    "res",
    "bits",
    "hold",
    "linear",
    "cubic",
    "zero",
    "quadratic",
    "Unit",
    "x",
    "y",
    "UnitState",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    ";",
    ":",
    ",",
    "=",
    "/",
    "-",
    "0",
    "1",
    "31",
    "1024",
    "0.5",
    "1e3",
    "99999999999999999999999999",
    "\"a.netidl\"",
    "\"",
    "///",
    "//!",
    "//",
    "/*",
    "*/",
    "\n",
    "@",
    "é",
    "\u{0}",
    "_",
];

/// Compiles `text`, renders any error and checks the round trip of any success.
fn check(text: &str) {
    match parse_str("fuzz.netidl", text) {
        Ok(schema) => {
            for class in &schema.classes {
                let _ = schema.flatten(class);
            }
            let printed = schema.to_string();
            let mut again = parse_str("fuzz.netidl", &printed)
                .unwrap_or_else(|e| panic!("printed schema does not parse:\n{printed}\n{e}"));
            let mut original = schema;
            original.erase_spans();
            again.erase_spans();
            assert_eq!(original, again, "round trip changed the schema:\n{printed}");
        }
        Err(diagnostics) => {
            assert!(!diagnostics.is_empty());
            let rendered = diagnostics.to_string();
            assert!(rendered.starts_with("error"), "{rendered}");
        }
    }
}

/// Snaps `i` down to a char boundary of `s`.
fn floor(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, String),
    Duplicate(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..12).prop_map(|(at, n)| Edit::Delete(at, n)),
        (any::<usize>(), prop::sample::select(TOKENS))
            .prop_map(|(at, t)| Edit::Insert(at, t.to_owned())),
        (any::<usize>(), any::<char>()).prop_map(|(at, c)| Edit::Insert(at, c.to_string())),
        (any::<usize>(), 1usize..30).prop_map(|(at, n)| Edit::Duplicate(at, n)),
    ]
}

fn apply(text: &mut String, edit: &Edit) {
    let len = text.len().max(1);
    match edit {
        Edit::Delete(at, n) => {
            let start = floor(text, at % len);
            let end = floor(text, start + n);
            text.replace_range(start..end, "");
        }
        Edit::Insert(at, s) => {
            let at = floor(text, at % len);
            text.insert_str(at, s);
        }
        Edit::Duplicate(at, n) => {
            let start = floor(text, at % len);
            let end = floor(text, start + n);
            let copy = text[start..end].to_owned();
            text.insert_str(end, &copy);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn token_soup(
        tokens in prop::collection::vec(prop::sample::select(TOKENS), 0..80),
        sep in prop::sample::select(&[" ", "", "\n"][..]),
    ) {
        check(&tokens.join(sep));
    }

    #[test]
    fn mutated_valid_schema(edits in prop::collection::vec(edit(), 1..6)) {
        let mut text = VALID.to_owned();
        for e in &edits {
            apply(&mut text, e);
        }
        check(&text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn soup_across_imports(
        a in prop::collection::vec(prop::sample::select(TOKENS), 0..40),
        b in prop::collection::vec(prop::sample::select(TOKENS), 0..40),
    ) {
        let files = MemorySource::new()
            .with("root.netidl", format!("import \"a.netidl\";\n{}", a.join(" ")))
            .with("a.netidl", format!("import \"root.netidl\"; import \"a.netidl\";\n{}", b.join(" ")));
        if let Err(err) = load_with(&files, "root.netidl") {
            let rendered = err.to_string();
            prop_assert!(rendered.contains("import cycle"), "{}", rendered);
        }
    }
}

#[test]
fn the_valid_schema_is_valid() {
    parse_str("valid.netidl", VALID).expect("valid");
}

#[test]
fn deep_nesting_is_rejected_not_overflowed() {
    let deep = format!("class C {{ x: {}bool{}; }}", "[".repeat(100_000), "; 2]".repeat(100_000));
    assert!(parse_str("deep.netidl", &deep).is_err());
    let deep =
        format!("class C {{ x: {}int(0, 1){}; }}", "vec2<".repeat(100_000), ">".repeat(100_000));
    assert!(parse_str("deep.netidl", &deep).is_err());
    let comments = format!("{}{}", "/*".repeat(100_000), "*/".repeat(100_000));
    parse_str("comments.netidl", &comments).expect("nested comments are fine");
}
