//! `netschema_idl::format`: idempotent (fmt ∘ fmt = fmt) and layout-only (parse ∘ fmt = parse),
//! on random schemas laid out at random with comments everywhere, and on every schema of the
//! repository.

use std::path::{Path, PathBuf};

use netschema_idl::ir::Schema;
use proptest::prelude::*;

/// The schema a text parses to, spans erased (so that layouts compare equal); `None` if it does
/// not compile.
fn parsed(text: &str) -> Option<Schema> {
    let mut schema = netschema_idl::parse_str("f.netidl", text).ok()?;
    schema.erase_spans();
    Some(schema)
}

/// A random layout between two tokens: white space, line breaks, comments.
fn gap() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        " ",
        " ",
        "\n",
        "\n    ",
        "\n\n",
        "\t",
        " /* note */ ",
        " // note\n",
        "\n// own line\n",
        "\n\n/* block\n   comment */\n",
    ])
}

/// Owned tokens.
fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| s.to_string()).collect()
}

/// A random kind, as tokens, with a tolerance it accepts (`None` for bools and enums).
fn kind() -> impl Strategy<Value = (Vec<String>, Option<String>)> {
    let scalar = prop_oneof![
        (0i32..50, 51i32..100).prop_map(|(a, b)| (
            words(&["int", "(", &a.to_string(), ",", &b.to_string(), ")"]),
            Some("2".to_owned())
        )),
        (1u32..20).prop_map(|n| {
            let kind =
                words(&["fixed", "(", "-", "1", ",", "1", ",", "bits", "=", &n.to_string(), ")"]);
            (kind, Some(format!("6/{}", (1u32 << n) - 1)))
        }),
        (1u32..512).prop_map(|d| {
            let kind = words(&[
                "fixed",
                "(",
                "0",
                ",",
                "2.5",
                ",",
                "res",
                "=",
                "1",
                "/",
                &d.to_string(),
                ",",
                "exact",
                "=",
                "[",
                "0",
                ",",
                "1",
                "]",
                ")",
            ]);
            (kind, Some(format!("1/{d}")))
        }),
        Just((
            words(&["angle", "(", "bits", "=", "12", ",", "max_step", "=", "0.01", ")"]),
            Some("0.01".to_owned())
        )),
        Just((
            words(&["quat", "(", "bits", "=", "9", ",", "exact", "=", "[", "]", ")"]),
            Some("0.01".to_owned())
        )),
        Just((words(&["bool"]), None)),
        Just((words(&["Mood"]), None)),
    ];
    (scalar, 0u8..5).prop_map(|((scalar, tolerance), wrap)| {
        let numeric = !matches!(scalar[0].as_str(), "bool" | "Mood" | "quat");
        let kind = match wrap {
            1 if numeric => [vec!["vec2".into(), "<".into()], scalar, vec![">".into()]].concat(),
            2 => [vec!["[".into()], scalar, words(&[";", "3", "]"])].concat(),
            3 => [words(&["list", "<"]), scalar, words(&[",", "4", ">"])].concat(),
            _ => scalar,
        };
        (kind, tolerance)
    })
}

/// A random field, as tokens (doc comment, name, kind, maybe `predict`, `tolerance` and, if
/// `grouped`, `group` clauses in some order, `;`).
fn field(index: usize, grouped: bool) -> impl Strategy<Value = Vec<String>> {
    (kind(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        move |((kind, tolerance), doc, predict, tolerant, group, reversed)| {
            let mut tokens = Vec::new();
            if doc {
                tokens.push(format!("///field {index}  "));
            }
            tokens.push(format!("f{index}"));
            tokens.push(":".into());
            tokens.extend(kind);
            let mut clauses = Vec::new();
            if predict && tolerance.is_some() {
                clauses.push(words(&["predict", "(", "hold", ",", "linear", ")"]));
            }
            if let Some(value) = tolerance.filter(|_| tolerant) {
                let value = match value.split_once('/') {
                    Some((num, den)) => words(&[num, "/", den]),
                    None => vec![value],
                };
                clauses.push([words(&["tolerance", "("]), value, words(&[")"])].concat());
            }
            if group && grouped {
                clauses.push(words(&["group", "(", "slow", ")"]));
            }
            if reversed {
                clauses.reverse();
            }
            tokens.extend(clauses.into_iter().flatten());
            tokens.push(";".into());
            tokens
        },
    )
}

/// A random schema, as tokens: file docs, an enum, and one or two classes.
fn schema() -> impl Strategy<Value = Vec<String>> {
    let fields = |n, grouped| (0..n).map(|i| field(i, grouped)).collect::<Vec<_>>();
    (any::<bool>(), fields(4, true), fields(2, false), any::<bool>()).prop_map(
        |(file_doc, first, second, trailing_comma)| {
            let mut tokens = Vec::new();
            if file_doc {
                tokens.push("//! A schema.".to_string());
            }
            tokens.push("/// A mood.".into());
            tokens.extend(["enum", "Mood", "{", "calm", ",", "angry"].map(String::from));
            if trailing_comma {
                tokens.push(",".into());
            }
            tokens.push("}".into());
            tokens.extend(["class", "A", "(", "priority", "=", "3", ")", "{"].map(String::from));
            tokens.extend(
                ["group", "slow", "(", "every", "=", "8", ",", "priority", "=", "2", ")", ";"]
                    .map(String::from),
            );
            tokens.extend(first.into_iter().flatten());
            tokens.extend(["}", "class", "B", "{"].map(String::from));
            tokens.extend(second.into_iter().flatten());
            tokens.push("}".into());
            tokens
        },
    )
}

/// `tokens` joined by `gaps` (cycled); a doc comment always ends its line.
fn lay_out(tokens: &[String], gaps: &[&str]) -> String {
    let mut text = String::new();
    for (i, token) in tokens.iter().enumerate() {
        text.push_str(token);
        if token.starts_with("//") {
            text.push('\n');
        } else {
            text.push_str(gaps[i % gaps.len()]);
        }
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn formatting_is_idempotent_and_keeps_the_schema(
        tokens in schema(),
        gaps in prop::collection::vec(gap(), 1..40),
    ) {
        let text = lay_out(&tokens, &gaps);
        let before = parsed(&text);
        prop_assert!(before.is_some(), "the generated schema compiles:\n{text}");
        let once = netschema_idl::format("f.netidl", &text).expect("formats");
        let twice = netschema_idl::format("f.netidl", &once).expect("formats again");
        prop_assert_eq!(&twice, &once, "fmt ∘ fmt = fmt, from:\n{}", text);
        prop_assert_eq!(parsed(&once), before, "parse ∘ fmt = parse:\n{}\n---\n{}", text, once);
        let comments = |t: &str| t.matches("note").count() + t.matches("own line").count();
        prop_assert_eq!(comments(&once), comments(&text), "comments kept:\n{}", once);
    }
}

/// Every `.netidl` file under `dir`, recursively.
fn netidl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            netidl_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "netidl") {
            out.push(path);
        }
    }
}

#[test]
fn every_schema_of_the_repository_formats_stably() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["netschema-idl/tests", "bench/schemas", "examples", "tests", "netschema-cli/tests"]
    {
        netidl_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 50, "found {} schemas", files.len());
    let mut formatted = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("readable");
        // Files with syntax errors (the error cases) are not formatted.
        let Ok(once) = netschema_idl::format("f.netidl", &text) else { continue };
        formatted += 1;
        let twice = netschema_idl::format("f.netidl", &once).expect("formats again");
        assert_eq!(twice, once, "{}: fmt ∘ fmt = fmt", path.display());
        let (before, after) = (parsed(&text), parsed(&once));
        if before.is_some() {
            assert_eq!(after, before, "{}: parse ∘ fmt = parse", path.display());
        }
    }
    assert!(formatted > 40, "formatted {formatted} schemas");
}

#[test]
fn syntax_errors_are_reported_not_formatted() {
    let err = netschema_idl::format("bad.netidl", "class A { x: int(0, 1) }").unwrap_err();
    assert!(err.to_string().contains("expected `;`"), "{err}");
}

#[test]
fn groups_and_clauses_are_laid_out() {
    let text = "class Unit( every=2,priority = 3 ){group slow( every=8 );\nhp:int(0,100)tolerance( 2 )group( slow );}";
    let formatted = netschema_idl::format("f.netidl", text).expect("formats");
    assert_eq!(
        formatted,
        "class Unit(every = 2, priority = 3) {\n    group slow(every = 8);\n    hp: int(0, 100) tolerance(2) group(slow);\n}\n"
    );
}

#[test]
fn inputs_are_laid_out_as_classes() {
    let text = "class Ship{x:int(0,9);}\n/// A move.\ninput Move{dir:vec2<fixed( -1,1,res=1/127 )>predict( hold );\n\n\n  fire:bool; // pressed\n}\ninput Look{yaw:angle(bits=16);}";
    let formatted = netschema_idl::format("f.netidl", text).expect("formats");
    assert_eq!(
        formatted,
        "class Ship {\n    x: int(0, 9);\n}\n\n/// A move.\ninput Move {\n    dir: vec2<fixed(-1, 1, res = 1/127)> predict(hold);\n\n    fire: bool; // pressed\n}\n\ninput Look {\n    yaw: angle(bits = 16);\n}\n"
    );
    assert_eq!(netschema_idl::format("f.netidl", &formatted).unwrap(), formatted);
    assert_eq!(parsed(&formatted), parsed(text));
}
