//! Runtime descriptors built from the IR while a program runs.
//!
//! Generated code turns a schema into `const` descriptors at compile time. Tools that read a
//! schema at run time — `netschema inspect`, `netschema profile`, recorded traces — build the
//! same thing here: [`RuntimeSchema::new`] flattens every class, makes the
//! [`Quantiser`] of each scalar field, and assembles the runtime
//! [`Schema`] (tolerances, update groups and all), whose hash equals that of descriptors
//! written for the same schema at compile time. [`with_tolerances`] gives a schema's fields
//! other tolerances (`--tolerance PATH=STEPS` of the benchmark), [`with_contract`] a
//! predictive contract (the benchmark's `netschema-contract`).
//!
//! # Leaked storage
//!
//! The runtime's descriptors borrow `'static` data (names, field and class tables), as `const`
//! items do. Built at run time, that data is leaked with [`Box::leak`]: a few hundred bytes per
//! class, once per schema built, which suits a command-line tool or a benchmark. A long-running
//! process should build each schema once, not in a loop.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ir = netschema_idl::parse_str(
//!     "demo.netidl",
//!     "class Unit { hp: int(0, 100) predict(hold); heading: angle(bits = 8); }",
//! )?;
//! let runtime = netschema_lab::descriptors::RuntimeSchema::new(&ir)?;
//! let unit = &runtime.schema.classes[0];
//! assert_eq!((unit.name, unit.fields[1].name, unit.fields[1].max), ("Unit", "heading", 255));
//! assert!(unit.fields[1].wraps);
//! # Ok(())
//! # }
//! ```

mod contract;
mod quant;
mod tolerance;

use std::collections::HashMap;
use std::fmt;

use netschema_runtime::model::predict::Predictor;
use netschema_runtime::quant::EnumQuant;
use netschema_runtime::schema::{Class, Group, Link, Schema, TextField};

pub use contract::with_contract;
pub use quant::Quantiser;
pub use tolerance::{ToleranceOverride, with_tolerances};

use netschema_idl::ScalarField;
use netschema_idl::ir::{self, PredictorSet};

/// Why a schema has no runtime descriptors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaError {
    /// A scalar field's parameters give no valid quantiser (validation rejects such schemas).
    Quantiser {
        /// The class.
        class: String,
        /// The scalar's path in the class.
        path: String,
        /// What the runtime said.
        error: netschema_runtime::Error,
    },
    /// The descriptors fail the runtime's own checks (no class, too many classes, a numeric
    /// field without predictors).
    Invalid(netschema_runtime::Error),
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchemaError::Quantiser { class, path, error } => {
                write!(f, "{class}.{path} has no quantiser: {error}")
            }
            SchemaError::Invalid(e) => write!(f, "invalid runtime schema: {e}"),
        }
    }
}

impl std::error::Error for SchemaError {}

/// One class of a [`RuntimeSchema`]: its scalar fields and their quantisers.
#[derive(Clone, Debug)]
pub struct ClassLayout {
    /// The class's scalar fields in wire order ([`ir::Schema::flatten`]).
    pub scalars: Vec<ScalarField>,
    /// The quantiser of each scalar, in the same order.
    pub quantisers: Vec<Quantiser>,
}

/// A schema as a tool uses it at run time: the IR, the runtime descriptors, and every scalar
/// field's quantiser.
#[derive(Clone, Debug)]
pub struct RuntimeSchema {
    /// The schema's IR.
    pub ir: ir::Schema,
    /// The runtime descriptors (leaked; see the [module docs](self)).
    pub schema: &'static Schema,
    /// Per class, in the order of [`ir::Schema::classes`] (a class's index on the wire).
    pub classes: Vec<ClassLayout>,
    /// Per event, in the order of [`ir::Schema::events`] (its index among the schema's
    /// events): its one class's layout.
    pub events: Vec<ClassLayout>,
}

impl RuntimeSchema {
    /// Builds the descriptors and quantisers of `ir`, which should be validated (as
    /// [`load`](netschema_idl::load()) and [`parse_str`](netschema_idl::parse_str()) do); an invalid schema
    /// fails with the first field that has no quantiser, or the runtime's own check.
    pub fn new(ir: &ir::Schema) -> Result<RuntimeSchema, SchemaError> {
        let mut predictors = HashMap::new();
        let mut classes = Vec::with_capacity(ir.classes.len());
        let mut descriptors = Vec::with_capacity(ir.classes.len());
        for class in &ir.classes {
            let (descriptor, layout) = class_descriptor(ir, class, &mut predictors)?;
            descriptors.push(descriptor);
            classes.push(layout);
        }
        let (mut events, mut event_layouts) = (Vec::new(), Vec::new());
        for event in &ir.events {
            let (class, layout) = class_descriptor(ir, &event.as_class(), &mut predictors)?;
            let schema = Schema::new(leak_str(&event.name), Box::leak(Box::new([class])));
            events.push(&*Box::leak(Box::new(schema)));
            event_layouts.push(layout);
        }
        let policy = ir.models.map(|m| m.value).unwrap_or_default();
        let mut schema = Schema::new(leak_str(&ir.name), Box::leak(descriptors.into_boxed_slice()))
            .with_events(Box::leak(events.into_boxed_slice()));
        if let Some(rate) = ir.rate {
            schema = schema.with_rate(rate.value);
        }
        let schema: &'static Schema = Box::leak(Box::new(schema.with_policy(policy)));
        schema.validate().map_err(SchemaError::Invalid)?;
        Ok(RuntimeSchema { ir: ir.clone(), schema, classes, events: event_layouts })
    }

    /// The index of the class called `name`.
    pub fn class_index(&self, name: &str) -> Option<usize> {
        self.ir.find_class(name).map(|(index, _)| index)
    }
}

/// The runtime descriptor and layout of `class`, a class of `ir` or an event's
/// ([`ir::Input::as_class`]), its references' targets resolved among `ir`'s classes;
/// `predictors` shares the leaked predictor lists.
fn class_descriptor(
    ir: &ir::Schema,
    class: &ir::Class,
    predictors: &mut HashMap<PredictorSet, &'static [Predictor]>,
) -> Result<(Class, ClassLayout), SchemaError> {
    let scalars = ir.flatten(class);
    let mut quantisers = Vec::with_capacity(scalars.len());
    let mut fields = Vec::with_capacity(scalars.len());
    for s in &scalars {
        let q = Quantiser::new(&s.kind).map_err(|error| SchemaError::Quantiser {
            class: class.name.clone(),
            path: s.path.clone(),
            error,
        })?;
        let leaked =
            *predictors.entry(s.predictors).or_insert_with(|| leak_predictors(s.predictors));
        let meaning = match s.kind {
            netschema_idl::ScalarKind::KeyTime { interp } => interp.fingerprint(),
            netschema_idl::ScalarKind::KeyFlag => netschema_runtime::timeline::FLAG_MEANING,
            // The meaning generated code gives a presence flag (the facade's
            // `__private::PRESENCE`), so that it differs from a plain bool's.
            netschema_idl::ScalarKind::Presence => PRESENCE,
            netschema_idl::ScalarKind::ListLink { len } => {
                netschema_runtime::schema::list_link_meaning(len)
            }
            _ => q.fingerprint().unwrap_or_else(|| enum_fingerprint(ir, &s.kind)),
        };
        let field = q.descriptor(leak_str(&s.path), leaked, meaning);
        let field = field.with_tolerance(s.tolerance).in_group(s.group);
        fields.push(match s.slot {
            Some(slot) => field.in_slot(slot),
            None => field,
        });
        quantisers.push(q);
    }
    let fields = Box::leak(fields.into_boxed_slice());
    let descriptor = Class::new(leak_str(&class.name), fields)
        .with_groups(leak_groups(class))
        .with_links(leak_links(ir, class))
        .with_texts(leak_texts(class));
    Ok((descriptor, ClassLayout { scalars, quantisers }))
}

/// The runtime descriptors of `ir` alone (see [`RuntimeSchema::new`]; the storage is leaked).
pub fn leak_schema(ir: &ir::Schema) -> Result<&'static Schema, SchemaError> {
    Ok(RuntimeSchema::new(ir)?.schema)
}

/// The fingerprint of an enum field's case names, as generated code computes it from the
/// enum's Rust variant names.
/// The meaning of an optional's presence flag: an enum of `absent` and `present`, as the
/// facade's `__private::PRESENCE` that generated code uses.
const PRESENCE: u64 = EnumQuant::fingerprint(&["absent", "present"]);

fn enum_fingerprint(ir: &ir::Schema, kind: &netschema_idl::ScalarKind) -> u64 {
    let netschema_idl::ScalarKind::Enum { name, .. } = kind else { return 0 };
    let Some((_, e)) = ir.find_enum(name) else { return 0 };
    let names: Vec<String> = netschema_idl::codegen::variant_names(e)
        .into_iter()
        .map(|(v, _)| v.to_string().trim_start_matches("r#").to_owned())
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    EnumQuant::fingerprint(&names)
}

fn leak_str(s: &str) -> &'static str {
    Box::leak(s.to_owned().into_boxed_str())
}

/// The class's update groups as runtime descriptors ([`ir::Class::update_groups`]).
fn leak_groups(class: &ir::Class) -> &'static [Group] {
    let groups: Vec<Group> = class
        .update_groups()
        .into_iter()
        .map(|g| Group { name: leak_str(&g.name), interval: g.interval, priority: g.priority })
        .collect();
    Box::leak(groups.into_boxed_slice())
}

/// The class's references as runtime links ([`ir::Class::references`]), each target by its
/// class's index.
fn leak_links(ir: &ir::Schema, class: &ir::Class) -> &'static [Link] {
    let links: Vec<Link> = class
        .references()
        .map(|(f, target)| {
            let index = target.and_then(|t| ir.find_class(t)).map(|(i, _)| i);
            Link::new(leak_str(&f.name), index.and_then(|i| u16::try_from(i).ok()))
        })
        .collect();
    Box::leak(links.into_boxed_slice())
}

/// The class's strings and byte blobs as runtime text fields ([`ir::Class::texts`]).
fn leak_texts(class: &ir::Class) -> &'static [TextField] {
    let texts: Vec<TextField> = class
        .texts()
        .map(|(f, max, utf8)| {
            let (name, max) = (leak_str(&f.name), u16::try_from(max).unwrap_or(u16::MAX));
            if utf8 { TextField::string(name, max) } else { TextField::bytes(name, max) }
        })
        .collect();
    Box::leak(texts.into_boxed_slice())
}

fn leak_predictors(set: PredictorSet) -> &'static [Predictor] {
    Box::leak(set.iter().collect::<Vec<_>>().into_boxed_slice())
}

#[cfg(test)]
mod tests {
    use super::*;
    use netschema_runtime::schema::Coding;

    const GAME: &str = include_str!("../../../netschema-idl/tests/schemas/game.netidl");
    const COMMON: &str = include_str!("../../../netschema-idl/tests/schemas/common.netidl");

    fn game() -> ir::Schema {
        let files = netschema_idl::MemorySource::new()
            .with("game.netidl", GAME)
            .with("common.netidl", COMMON);
        netschema_idl::load_with(&files, "game.netidl").unwrap().schema
    }

    #[test]
    fn descriptors_follow_the_flattening() {
        let ir = game();
        let rt = RuntimeSchema::new(&ir).unwrap();
        assert_eq!(rt.schema.name, "game");
        assert_eq!(rt.schema.classes.len(), ir.classes.len());
        for ((class, layout), desc) in ir.classes.iter().zip(&rt.classes).zip(rt.schema.classes) {
            assert_eq!(desc.name, class.name);
            assert_eq!(layout.scalars, ir.flatten(class));
            for ((s, q), f) in layout.scalars.iter().zip(&layout.quantisers).zip(desc.fields) {
                assert_eq!(f.name, s.path);
                assert_eq!(f.span(), s.kind.cardinality().unwrap(), "{}", s.path);
                assert_eq!(q.is_categorical(), s.kind.is_transition_coded());
                match f.coding {
                    Coding::Numeric(p) => {
                        let names: Vec<_> = p.iter().map(|p| p.name()).collect();
                        let want: Vec<_> = s.predictors.iter().map(|p| p.name()).collect();
                        assert_eq!(names, want);
                    }
                    Coding::Categorical => assert!(s.predictors.is_empty()),
                }
            }
        }
        assert_eq!(rt.class_index("Unit"), Some(1));
        assert_eq!(rt.class_index("Nope"), None);
    }

    #[test]
    fn same_schema_same_hash() {
        let a = leak_schema(&game()).unwrap();
        let b = leak_schema(&game()).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.hash, b.hash);
        let other = netschema_idl::parse_str("game.netidl", "class P { x: int(0, 9); }").unwrap();
        assert_ne!(leak_schema(&other).unwrap().hash, a.hash);
    }

    #[test]
    fn descriptors_carry_tolerances_and_groups() {
        const UNIT: &str = "class Unit(priority = 3) {
            group slow(every = 4, priority = 2);
            hp: int(0, 100) tolerance(2) group(slow);
            alive: bool;
            x: fixed(0, 1, res = 1/100) tolerance(0.05);
        }";
        let ir = netschema_idl::parse_str("g.netidl", UNIT).unwrap();
        let schema = leak_schema(&ir).unwrap();
        let unit = &schema.classes[0];
        let slow = Group { name: "slow", interval: 4, priority: 2 };
        assert_eq!(unit.groups, [Group { name: "", interval: 1, priority: 3 }, slow]);
        let fields: Vec<_> = unit.fields.iter().map(|f| (f.name, f.tolerance, f.group)).collect();
        assert_eq!(fields, [("hp", 2, 1), ("alive", 0, 0), ("x", 5, 0)]);
        // The group table and the fields' groups are part of the hash.
        let ungrouped = UNIT.replace(" group(slow)", "");
        let other = netschema_idl::parse_str("g.netidl", &ungrouped).unwrap();
        assert_ne!(leak_schema(&other).unwrap().hash, schema.hash);
        let plain = netschema_idl::parse_str("g.netidl", "class P { x: int(0, 9); }").unwrap();
        assert_eq!(leak_schema(&plain).unwrap().classes[0].groups, []);
    }

    /// An input's schema ([`ir::Schema::input_schema`]) is a schema of its own, which the
    /// runtime's input stream takes, with a hash of its own.
    #[test]
    fn inputs_have_input_schemas() {
        const INPUTS: &str = "enum Weapon { blaster, rail }
            class Ship { x: int(0, 9); }
            input Move { dir: vec2<fixed(-1, 1, res = 1/127)>; weapon: Weapon; fire: bool; }";
        let ir = netschema_idl::parse_str("g.netidl", INPUTS).unwrap();
        let state = leak_schema(&ir).unwrap();
        assert_eq!(state.classes.len(), 1, "inputs are not classes of the state");
        let input = leak_schema(&ir.input_schema(&ir.inputs[0])).unwrap();
        let class = netschema_runtime::engine::input::check_schema(input).unwrap();
        let paths: Vec<_> = class.fields.iter().map(|f| f.name).collect();
        assert_eq!((input.name, class.name), ("Move", "Move"));
        assert_eq!(paths, ["dir.x", "dir.y", "weapon", "fire"]);
        assert_ne!(input.hash, state.hash);
        let finer = INPUTS.replace("1/127", "1/255");
        let finer = netschema_idl::parse_str("g.netidl", &finer).unwrap();
        assert_ne!(leak_schema(&finer.input_schema(&finer.inputs[0])).unwrap().hash, input.hash);
    }

    /// A schema's events join its descriptors, each an event schema whose references name
    /// the schema's classes, and its hash: the hash generated code gives it.
    #[test]
    fn events_join_the_schema() {
        let source = include_str!("../../../tests/schemas/events.netidl");
        let ir = netschema_idl::parse_str("events.netidl", source).unwrap();
        let schema = leak_schema(&ir).unwrap();
        let names: Vec<_> = schema.events.iter().map(|e| e.name).collect();
        assert_eq!(names, ["Hit", "Score", "Said"]);
        let hit = &schema.events[0].classes[0];
        assert_eq!((hit.links[0].target, hit.links[1].target), (Some(0), None));
        let texts = schema.events[2].classes[0].texts;
        assert_eq!(texts, [TextField::string("text", 64), TextField::bytes("sig", 4)]);
        // `tests/event_equivalence.rs` checks the generated `SCHEMA` has this hash.
        assert_eq!(schema.hash, 0x6786_2ee0_a2d5_691b);
        let mut quiet = ir.clone();
        quiet.events.clear();
        assert_ne!(leak_schema(&quiet).unwrap().hash, schema.hash);
    }

    #[test]
    fn invalid_ir_is_an_error() {
        let mut ir = ir::Schema::new("bad");
        ir.classes.push(ir::Class::new("C", [ir::Field::new("x", ir::FieldType::int(5, 1))]));
        let err = RuntimeSchema::new(&ir).unwrap_err();
        assert!(matches!(&err, SchemaError::Quantiser { path, .. } if path == "x"), "{err}");
        let empty = ir::Schema::new("empty");
        assert!(matches!(RuntimeSchema::new(&empty), Err(SchemaError::Invalid(_))));
    }
}
