//! Positive tests: schemas that compile, the IR they give, and how it flattens.

use netschema_idl::flatten::UpdateGroup;
use netschema_idl::ir::{
    Class, Enum, Field, FieldType, Group, Precision, Predictor, PredictorSet, Schedule, Schema,
    TypeKind, tolerance_steps,
};
use netschema_idl::{MemorySource, ScalarKind, load, load_with, parse_str};

const GAME: &str = include_str!("schemas/game.netidl");
const COMMON: &str = include_str!("schemas/common.netidl");

fn documented_enum(name: &str, docs: &str, cases: &[(&str, &str)]) -> Enum {
    let mut e = Enum::new(name, cases.iter().map(|c| c.0));
    e.docs = docs.into();
    for (case, (_, d)) in e.cases.iter_mut().zip(cases) {
        case.docs = (*d).into();
    }
    e
}

/// The IR `tests/schemas/game.netidl` (with its import) must produce, built by hand.
fn expected_game() -> Schema {
    use Predictor::*;
    let mut particle = Class::new(
        "Particle",
        [
            Field::new("pos", FieldType::vec2(FieldType::fixed_res(-64.0, 64.0, 1.0 / 512.0)))
                .with_docs("Position in metres."),
            Field::new("color", FieldType::array(FieldType::int(0, 255), 3)),
            Field::new("heading", FieldType::angle(10)).with_predictors([Hold, Linear]),
            Field::new("orientation", FieldType::quat(9)),
            Field::new("alive", FieldType::bool()),
            Field::new("state", FieldType::enumeration("UnitState")),
            Field::new("hp", FieldType::int(0, 1000)).with_predictors([Hold]),
            Field::new("speed", FieldType::fixed_bits(0.0, 20.0, 12))
                .with_predictors([Zero, Hold, Linear, Quadratic, Cubic]),
        ],
    );
    particle.docs = "A particle of the particle system.".into();
    let mut unit = Class::new(
        "Unit",
        [
            Field::new("path", FieldType::array(FieldType::vec3(FieldType::int(-10, 10)), 2)),
            Field::new("flags", FieldType::array(FieldType::bool(), 2)),
            Field::new("rank", FieldType::enumeration("Rank")),
            Field::new("mass", FieldType::fixed_res(0.5, 1000.0, 0.25)),
        ],
    );
    unit.docs = "A unit of the battle.".into();
    Schema {
        name: "game".into(),
        docs: "The demo game's replicated state.\n\nParticles and units.".into(),
        enums: vec![
            documented_enum(
                "UnitState",
                "What a unit is doing.",
                &[
                    ("idle", ""),
                    ("moving", "Walking to a target."),
                    ("attacking", ""),
                    ("dead", ""),
                ],
            ),
            Enum::new("Rank", ["private", "sergeant", "captain"]),
        ],
        classes: vec![particle, unit],
        structs: Vec::new(),
        inputs: Vec::new(),
        events: Vec::new(),
        models: None,
        rate: None,
    }
}

fn memory_game() -> MemorySource {
    MemorySource::new().with("schemas/game.netidl", GAME).with("schemas/common.netidl", COMMON)
}

#[test]
fn complete_schema_gives_expected_ir() {
    let loaded = load_with(&memory_game(), "schemas/game.netidl").expect("compiles");
    let mut schema = loaded.schema;
    schema.erase_spans();
    assert_eq!(schema, expected_game());
    let files: Vec<_> =
        loaded.files.iter().map(|p| p.to_string_lossy().replace('\\', "/")).collect();
    assert_eq!(files, ["schemas/game.netidl", "schemas/common.netidl"]);
}

#[test]
fn loads_from_the_file_system() {
    let loaded = load("tests/schemas/game.netidl").expect("compiles");
    let mut schema = loaded.schema;
    schema.erase_spans();
    assert_eq!(schema, expected_game());
    assert_eq!(loaded.files.len(), 2);
    assert!(loaded.files[1].ends_with("common.netidl"));
}

#[test]
fn spans_point_at_the_source() {
    let loaded = load_with(&memory_game(), "schemas/game.netidl").expect("compiles");
    let schema = &loaded.schema;
    let particle = &schema.classes[0];
    let at = |span: netschema_idl::Span| &GAME[span.range()];
    assert_eq!(at(particle.span), "Particle");
    assert_eq!(at(particle.fields[0].span), "pos");
    assert_eq!(at(particle.fields[0].ty.span), "vec2<fixed(-64.0, 64.0, res = 1/512)>");
    let TypeKind::Vec2(elem) = &particle.fields[0].ty.kind else { panic!("vec2") };
    let TypeKind::Fixed { min, precision, .. } = &elem.kind else { panic!("fixed") };
    assert_eq!(at(min.span), "-64.0");
    assert_eq!(at(precision.span), "res = 1/512");
    let heading = particle.fields[2].predict.as_ref().expect("clause");
    assert_eq!(at(heading.span), "predict(hold, linear)");
    assert_eq!(at(heading.predictors[1].span), "linear");
    // The imported enum's spans are in the other file (file 1).
    assert_eq!(schema.enums[0].span.file, netschema_idl::FileId(1));
    assert_eq!(&COMMON[schema.enums[0].span.range()], "UnitState");
}

#[test]
fn flatten_lists_scalars_in_wire_order() {
    let schema = load_with(&memory_game(), "schemas/game.netidl").expect("compiles").schema;
    let particle = &schema.classes[0];
    let flat = schema.flatten(particle);
    let paths: Vec<&str> = flat.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "pos.x",
            "pos.y",
            "color[0]",
            "color[1]",
            "color[2]",
            "heading",
            "orientation.largest",
            "orientation.c0",
            "orientation.c1",
            "orientation.c2",
            "alive",
            "state",
            "hp",
            "speed",
        ]
    );
    let fields: Vec<usize> = flat.iter().map(|s| s.field).collect();
    assert_eq!(fields, [0, 0, 1, 1, 1, 2, 3, 3, 3, 3, 4, 5, 6, 7]);

    let by_path = |p: &str| flat.iter().find(|s| s.path == p).expect("path");
    use Predictor::*;
    assert_eq!(
        by_path("pos.y").kind,
        ScalarKind::Fixed { min: -64.0, max: 64.0, precision: Precision::Resolution(1.0 / 512.0) }
    );
    assert_eq!(by_path("pos.y").predictors, PredictorSet::DEFAULT);
    assert_eq!(by_path("color[2]").kind, ScalarKind::Int { min: 0, max: 255 });
    assert_eq!(by_path("heading").predictors.iter().collect::<Vec<_>>(), [Hold, Linear]);
    assert_eq!(by_path("orientation.largest").kind, ScalarKind::QuatLargest);
    assert!(by_path("orientation.largest").predictors.is_empty());
    assert_eq!(by_path("orientation.c1").kind, ScalarKind::QuatComponent { bits: 9 });
    assert_eq!(by_path("orientation.c1").predictors, PredictorSet::DEFAULT);
    assert_eq!(by_path("alive").kind, ScalarKind::Bool);
    assert!(by_path("alive").predictors.is_empty());
    assert_eq!(by_path("state").kind, ScalarKind::Enum { name: "UnitState".into(), cases: 4 });
    assert!(by_path("state").predictors.is_empty());
    assert_eq!(by_path("hp").predictors.iter().collect::<Vec<_>>(), [Hold]);
    assert_eq!(by_path("speed").predictors, PredictorSet::ALL);

    // Bit widths of the raw values (the range is inclusive: -64..=64 at 1/512 is 65537 values).
    let bits: Vec<u32> = flat.iter().map(|s| s.kind.bits().expect("valid")).collect();
    assert_eq!(bits, [17, 17, 8, 8, 8, 10, 2, 9, 9, 9, 1, 2, 10, 12]);

    let unit = &schema.classes[1];
    let paths: Vec<String> = schema.flatten(unit).into_iter().map(|s| s.path).collect();
    assert_eq!(
        paths,
        [
            "path[0].x",
            "path[0].y",
            "path[0].z",
            "path[1].x",
            "path[1].y",
            "path[1].z",
            "flags[0]",
            "flags[1]",
            "rank",
            "mass",
        ]
    );
}

#[test]
fn display_round_trips() {
    let schema = load_with(&memory_game(), "schemas/game.netidl").expect("compiles").schema;
    let printed = schema.to_string();
    let mut reparsed =
        parse_str("game.netidl", &printed).unwrap_or_else(|e| panic!("{printed}\n{e}"));
    reparsed.erase_spans();
    assert_eq!(reparsed, expected_game(), "{printed}");
}

#[test]
fn default_predictors_and_steps() {
    let schema = parse_str(
        "t.netidl",
        "enum E { a } class C { a: fixed(0, 20, res = 0.1); b: [E; 2]; c: quat(bits = 2) predict(cubic); }",
    )
    .expect("compiles");
    let c = &schema.classes[0];
    assert_eq!(c.fields[0].predictors(), PredictorSet::DEFAULT);
    assert_eq!(
        PredictorSet::DEFAULT.iter().collect::<Vec<_>>(),
        [Predictor::Hold, Predictor::Linear, Predictor::Quadratic]
    );
    assert_eq!(c.fields[1].predictors(), PredictorSet::EMPTY);
    assert_eq!(c.fields[2].predictors().iter().collect::<Vec<_>>(), [Predictor::Cubic]);
    // 20 / 0.1 is 200.00000000000003 in binary; the tolerance makes it 200 steps.
    assert_eq!(Precision::Resolution(0.1).steps(0.0, 20.0), Some(200));
    assert_eq!(Precision::Resolution(0.3).steps(0.0, 1.0), Some(4));
    assert_eq!(Precision::Bits(12).steps(0.0, 20.0), Some(4095));
    assert_eq!(Precision::Resolution(0.0).steps(0.0, 1.0), None);
    // The range is inclusive: 64 - 1/512 as the top bound makes 2^16 values.
    assert_eq!(Precision::Resolution(1.0 / 512.0).steps(-64.0, 63.998046875), Some(65535));
    assert_eq!(Precision::Resolution(1.0 / 512.0).steps(-64.0, 64.0), Some(65536));
}

const GROUPS: &str = "class Unit(every = 2, priority = 3) {
    /// What changes rarely.
    group slow(every = 8, priority = 2);
    pos: vec2<fixed(0, 64, res = 1/256)> group(slow) tolerance(0.05);
    hp: int(0, 100) tolerance(2) predict(hold);
    group rare;
    rot: quat(bits = 9) tolerance(0.01) group(rare);
    alive: bool group(slow);
}";

/// The IR of [`GROUPS`], built by hand.
fn expected_groups() -> Class {
    let mut slow = Group::new("slow", Schedule::new(Some(8), Some(2)));
    slow.docs = "What changes rarely.".into();
    Class::new(
        "Unit",
        [
            Field::new("pos", FieldType::vec2(FieldType::fixed_res(0.0, 64.0, 1.0 / 256.0)))
                .in_group("slow")
                .with_tolerance(0.05),
            Field::new("hp", FieldType::int(0, 100))
                .with_tolerance(2.0)
                .with_predictors([Predictor::Hold]),
            Field::new("rot", FieldType::quat(9)).with_tolerance(0.01).in_group("rare"),
            Field::new("alive", FieldType::bool()).in_group("slow"),
        ],
    )
    .with_schedule(Schedule::new(Some(2), Some(3)))
    .with_groups([slow, Group::new("rare", Schedule::default())])
}

#[test]
fn update_groups_and_tolerances() {
    let mut schema = parse_str("t.netidl", GROUPS).expect("compiles");
    schema.erase_spans();
    assert_eq!(schema.classes, [expected_groups()]);
    let printed = schema.to_string();
    let mut reparsed = parse_str("t.netidl", &printed).unwrap_or_else(|e| panic!("{printed}\n{e}"));
    reparsed.erase_spans();
    assert_eq!(reparsed, schema, "{printed}");

    let unit = &schema.classes[0];
    let groups: Vec<(String, u16, u16)> =
        unit.update_groups().into_iter().map(|g| (g.name, g.interval, g.priority)).collect();
    assert_eq!(groups, [("".into(), 2, 3), ("slow".into(), 8, 2), ("rare".into(), 1, 1)]);
    // Steps of 1/256 m, √2/511 per quaternion component; the largest index stays exact.
    let scalars: Vec<(String, u32, u8)> =
        schema.flatten(unit).into_iter().map(|s| (s.path, s.tolerance, s.group)).collect();
    let want = [
        ("pos.x", 12, 1),
        ("pos.y", 12, 1),
        ("hp", 2, 0),
        ("rot.largest", 0, 2),
        ("rot.c0", 3, 2),
        ("rot.c1", 3, 2),
        ("rot.c2", 3, 2),
        ("alive", 0, 1),
    ]
    .map(|(p, t, g)| (p.to_owned(), t, g));
    assert_eq!(scalars, want);
}

#[test]
fn default_schedules_need_no_group_table() {
    let schema =
        parse_str("t.netidl", "class A(every = 1) { x: bool; } class B(priority = 2) { x: bool; }")
            .expect("compiles");
    assert_eq!(schema.classes[0].update_groups(), []);
    assert_eq!(
        schema.classes[1].update_groups(),
        [UpdateGroup { name: String::new(), interval: 1, priority: 2 }]
    );
}

#[test]
fn tolerances_round_down_to_whole_steps() {
    // 0.03 / 0.01 is 2.9999999999999996 in binary; the slack makes it 3 steps.
    assert_eq!(tolerance_steps(0.03, 0.01), 3);
    assert_eq!(tolerance_steps(0.029, 0.01), 2);
    assert_eq!(tolerance_steps(2.5, 1.0), 2);
    assert_eq!(tolerance_steps(0.009, 0.01), 0);
    assert_eq!(tolerance_steps(-1.0, 0.01), 0);
    assert_eq!(tolerance_steps(f64::NAN, 0.01), 0);
    assert_eq!(tolerance_steps(f64::INFINITY, 0.01), u64::MAX);
    assert_eq!(FieldType::angle(8).step(), Some(std::f64::consts::TAU / 256.0));
    assert_eq!(FieldType::array(FieldType::int(0, 9), 2).step(), Some(1.0));
    assert_eq!(FieldType::bool().step(), None);
}

#[test]
fn empty_file_and_comments_only() {
    let schema = parse_str("empty.netidl", "").expect("compiles");
    assert_eq!(schema, Schema::new("empty"));
    let schema = parse_str("c.netidl", "// nothing\n/* at /* all */ */\n//! not first? it is\n")
        .expect("compiles");
    assert_eq!(schema.docs, "not first? it is");
}

#[test]
fn imports_merge_once_in_dependency_order() {
    let files = MemorySource::new()
        .with(
            "root.netidl",
            "import \"a.netidl\"; import \"sub/b.netidl\"; class R { x: A; y: B; }",
        )
        .with("a.netidl", "import \"sub/b.netidl\"; enum A { a }")
        .with("sub/b.netidl", "import \"../c.netidl\"; enum B { b }")
        .with("c.netidl", "//! ignored\nclass C { z: bool; }");
    let loaded = load_with(&files, "./root.netidl").expect("compiles");
    let names: Vec<&str> = loaded
        .schema
        .enums
        .iter()
        .map(|e| e.name.as_str())
        .chain(loaded.schema.classes.iter().map(|c| c.name.as_str()))
        .collect();
    assert_eq!(names, ["B", "A", "C", "R"]);
    assert_eq!(loaded.schema.name, "root");
    assert_eq!(loaded.schema.docs, "");
    assert_eq!(loaded.files.len(), 4);
}

#[test]
fn errors_render_through_display_and_debug() {
    let files = MemorySource::new()
        .with("root.netidl", "import \"gone.netidl\";\nclass R { x: bool; }")
        .with("other.netidl", "");
    let err = load_with(&files, "root.netidl").expect_err("missing import");
    let shown = err.to_string();
    assert_eq!(shown, format!("{err:?}"));
    assert!(shown.contains("cannot read imported file `gone.netidl`: file not found"), "{shown}");
    assert!(shown.contains("--> root.netidl:1:8"), "{shown}");
    assert_eq!(err.files().len(), 1);
    assert_eq!(err.diagnostics().len(), 1);

    let err = load_with(&files, "nope.netidl").expect_err("missing root");
    assert_eq!(
        err.to_string(),
        "error: cannot read schema file `nope.netidl`: file not found\n\nerror: aborting due to 1 previous error\n"
    );
}

#[test]
fn parse_str_rejects_imports() {
    let err = parse_str("x.netidl", "import \"y.netidl\";").expect_err("no imports");
    assert!(err.to_string().contains("imports are not available"), "{err}");
}

#[test]
fn diagnostics_are_sorted_by_file_then_position() {
    let files = MemorySource::new()
        .with("root.netidl", "import \"b.netidl\";\nclass R { x: int(3, 1); y: Q; }")
        .with("b.netidl", "class B { z: angle(bits = 0); }\nenum E {}");
    let err = load_with(&files, "root.netidl").expect_err("invalid");
    let spans: Vec<(u32, u32)> = err
        .diagnostics()
        .iter()
        .map(|d| d.primary_span().map(|s| (s.file.0, s.start)).expect("located"))
        .collect();
    let mut sorted = spans.clone();
    sorted.sort();
    assert_eq!(spans, sorted);
    assert_eq!(spans.len(), 4);
}

#[test]
fn hand_built_ir_validates_with_detached_spans() {
    let mut schema = Schema::new("hand");
    schema.classes.push(Class::new("C", [Field::new("x", FieldType::angle(0))]));
    let errors = netschema_idl::validate(&schema).expect_err("bits = 0");
    assert_eq!(errors.len(), 1);
    assert!(errors[0].primary_span().expect("labelled").is_detached());
    // Rendering without sources leaves the snippet out.
    let text = errors[0].render(&netschema_idl::SourceMap::new());
    assert_eq!(text, "error: `angle` bits must be between 1 and 31\n\n");
}

#[test]
fn stray_file_docs_inside_a_class_do_not_swallow_fields() {
    let err =
        parse_str("x.netidl", "class C {\n//! late\n a: bool;\n b: Nope;\n}").expect_err("errors");
    let messages: Vec<&str> = err.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        ["file doc comment `//!` after the start of the file", "unknown type `Nope`"]
    );
}

#[test]
fn errors_are_send_sync_and_static() {
    fn check<T: Send + Sync + 'static + std::error::Error>() {}
    check::<netschema_idl::Error>();
    check::<netschema_idl::Diagnostics>();
}

/// `models` sets the schema's model policy: parameters default to seed 004's, the statement
/// prints and formats back to itself, and a bad one is reported where it is written.
#[test]
fn the_models_statement_sets_the_policy() {
    use netschema_idl::ir::ModelPolicy;
    let class = "\nclass A { x: int(0, 3); }\n";
    let policy = |text: &str| parse_str("m.netidl", &format!("{text}{class}")).map(|s| s.models);
    let batched = |batch, kept| ModelPolicy::Batched { batch, kept };
    assert_eq!(policy("").unwrap(), None);
    assert_eq!(policy("models per_frame;").unwrap().unwrap().value, ModelPolicy::PerFrame);
    assert_eq!(policy("models batched;").unwrap().unwrap().value, ModelPolicy::BATCHED);
    assert_eq!(policy("models batched(kept = 2);").unwrap().unwrap().value, batched(10, 2));
    let text = "models batched(batch = 4, kept = 3);";
    let schema = parse_str("m.netidl", &format!("{text}{class}")).unwrap();
    assert_eq!(schema.models.unwrap().value, batched(4, 3));
    assert!(schema.to_string().starts_with(&format!("{text}\n\nclass A")), "{schema}");
    let formatted =
        netschema_idl::format("m.netidl", "models  batched( batch=4,kept=3 ) ;").unwrap();
    assert_eq!(formatted, format!("{text}\n"));
    for (bad, message) in [
        ("models fancy;", "unknown model policy `fancy`"),
        ("models batched(batch = 0);", "`batch` must be an integer from 1 to 255"),
        ("models batched(kept = 17);", "`kept` must be an integer from 1 to 16"),
        ("models batched(size = 3);", "`batched` has no parameter `size`"),
        ("models per_frame(batch = 3);", "`per_frame` takes no parameters"),
        ("models batched; models per_frame;", "the model policy is given twice"),
    ] {
        let err = policy(bad).expect_err(bad).to_string();
        assert!(err.contains(message), "{bad}: {err}");
    }
    let files = MemorySource::new()
        .with("root.netidl", "import \"other.netidl\";\nmodels batched;\nclass R { x: bool; }")
        .with("other.netidl", "models per_frame;");
    let err = load_with(&files, "root.netidl").expect_err("imported policy").to_string();
    assert!(err.contains("an imported file declares a model policy"), "{err}");
}

/// `rate` declares the schema's frame rate: it prints and formats back to itself beside
/// `models`, and a bad one is reported where it is written.
#[test]
fn the_rate_statement_sets_the_frame_rate() {
    let class = "\nclass A { x: int(0, 3); }\n";
    let rate = |text: &str| parse_str("r.netidl", &format!("{text}{class}")).map(|s| s.rate);
    assert_eq!(rate("").unwrap(), None);
    assert_eq!(rate("rate 60;").unwrap().unwrap().value, 60);
    let text = "models batched(batch = 4, kept = 3);\nrate 30;";
    let schema = parse_str("r.netidl", &format!("{text}{class}")).unwrap();
    assert_eq!(schema.rate.unwrap().value, 30);
    assert!(schema.to_string().starts_with(&format!("{text}\n\nclass A")), "{schema}");
    let reparsed = parse_str("r.netidl", &schema.to_string()).unwrap();
    assert_eq!(reparsed.rate.map(|r| r.value), Some(30));
    assert_eq!(netschema_idl::format("r.netidl", "rate   120 ;").unwrap(), "rate 120;\n");
    for (bad, message) in [
        ("rate 0;", "from 1 to 10000"),
        ("rate 59.94;", "from 1 to 10000"),
        ("rate 10001;", "from 1 to 10000"),
        ("rate 60; rate 30;", "the rate is given twice"),
        ("rate 60", "expected `;`"),
    ] {
        let err = rate(bad).expect_err(bad).to_string();
        assert!(err.contains(message), "{bad}: {err}");
    }
    let files = MemorySource::new()
        .with("root.netidl", "import \"other.netidl\";\nclass R { x: bool; }")
        .with("other.netidl", "rate 60;");
    let err = load_with(&files, "root.netidl").expect_err("imported rate").to_string();
    assert!(err.contains("an imported file declares a rate"), "{err}");
}

/// `input` items: their IR, their scalars, their input schema, and their printing.
#[test]
fn inputs_give_their_ir_and_scalars() {
    let text = "enum Weapon { blaster, rail }
struct Aim { yaw: angle(bits = 16) predict(hold, linear); }
class Ship { x: int(0, 9); }
/// A player's move.
input Move {
    /// The stick.
    dir: vec2<fixed(-1, 1, res = 1/127)>;
    aim: Aim;
    weapon: optional<Weapon>;
    fire: bool;
}";
    let schema = parse_str("game.netidl", text).unwrap();
    assert_eq!((schema.classes.len(), schema.inputs.len()), (1, 1));
    let input = &schema.inputs[0];
    assert_eq!((input.name.as_str(), input.docs.as_str()), ("Move", "A player's move."));
    assert_eq!(input.fields[0].docs, "The stick.");
    assert!(matches!(input.fields[1].ty.kind, TypeKind::Struct { .. }), "structs resolve");
    let scalars = schema.flatten_input(input);
    let paths: Vec<&str> = scalars.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(paths, ["dir.x", "dir.y", "aim.yaw", "weapon.present", "weapon.value", "fire"]);
    assert!(scalars.iter().all(|s| s.tolerance == 0 && s.group == 0));
    assert_eq!(scalars[2].predictors, [Predictor::Hold, Predictor::Linear].into_iter().collect());
    let own = schema.input_schema(input);
    assert_eq!((own.name.as_str(), own.classes.len(), own.inputs.len()), ("Move", 1, 0));
    assert_eq!(own.flatten(&own.classes[0]), scalars);
    assert_eq!(schema.find_input("Move").map(|(i, _)| i), Some(0));
    // Printed, it parses back to the same IR.
    let printed = schema.to_string();
    assert!(
        printed.contains("/// A player's move.\ninput Move {\n    /// The stick.\n"),
        "{printed}"
    );
    let mut reparsed =
        parse_str("game.netidl", &printed).unwrap_or_else(|e| panic!("{printed}\n{e}"));
    let mut original = schema.clone();
    reparsed.erase_spans();
    original.erase_spans();
    assert_eq!(reparsed, original);
    // An input is no class: the state schema and its generated enum leave it out.
    let code = netschema_idl::codegen::generate_file(&schema, &Default::default());
    assert!(
        code.contains("pub enum Game {\n    #[allow(missing_docs)]\n    Ship(Ship),\n}"),
        "{code}"
    );
    assert!(code.contains("impl ::netschema::Input for Move"), "{code}");
}

/// A file of inputs alone generates their types and no state schema.
#[test]
fn a_schema_of_inputs_alone_has_no_state() {
    let schema = parse_str("moves.netidl", "input Move { fire: bool; }").unwrap();
    let code = netschema_idl::codegen::generate_file(&schema, &Default::default());
    assert!(!code.contains("pub const SCHEMA") && !code.contains("Protocol for"), "{code}");
    assert!(code.contains("pub struct Move"), "{code}");
    // An input with the name the schema's enum would have renames the enum.
    let schema = parse_str("game.netidl", "class A { x: bool; } input Game { x: bool; }").unwrap();
    assert_eq!(netschema_idl::codegen::protocol_name(&schema), "GameSchema");
}
