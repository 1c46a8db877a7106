//! Validation of the IR: every rule that does not depend on the syntax, so the `.netidl`
//! parser and the derive get the same checks and the same messages.
//!
//! # Structs and optionals
//!
//! Structs share the enums' and classes' namespace, have at least one field, and do not hold
//! themselves, directly or through other structs; their fields take no `group(...)` (update
//! groups belong to classes) and no `timeline(...)`, nor does a field holding a struct or an
//! optional. A struct is nested at most [`MAX_STRUCT_DEPTH`] deep. `optional<optional<K>>` is
//! refused. A `predict(...)` or `tolerance(V)` on a field holding a struct must reach a numeric
//! scalar whose own field does not write that clause, and `V` must suit the grid of every
//! scalar it reaches.
//!
//! The rules: names are identifiers, not reserved, and unique (enums and classes share one
//! namespace across all imported files; cases within an enum; fields within a class); enums
//! have 1 to [`MAX_ENUM_CASES`] cases and classes at least one field; every kind's parameters
//! are within the [`limits`](crate::limits); vectors hold int/fixed/angle components and arrays
//! do not nest; `exact` values lie in their kind's range and `max_step` is positive; `predict(...)` lists at least one predictor, none twice, and only on numeric
//! fields (bool and enum fields are transition-coded); update groups and tolerances obey the
//! rules below.
//!
//! # Update groups and tolerances
//!
//! Group names are identifiers, unique within their class; a class has at most
//! [`MAX_GROUPS`] groups, its default group included; `every` is in `1..=`[`MAX_INTERVAL`] and
//! `priority` in `1..=`[`MAX_PRIORITY`]; a field's `group(name)` names a group of its class.
//! A `tolerance(V)` is on a numeric field, and `V` is at least one step of the kind's grid and
//! at most [`MAX_TOLERANCE_STEPS`] steps.
//!
//! # Inputs
//!
//! An input's name shares the namespace of enums, structs and classes; it has at least one
//! field, its field names are unique, and its fields follow a class's rules for kinds and
//! `predict(...)`, but take no `tolerance(...)` (nor hold a struct field that has one), no
//! `group(...)` and no `timeline(...)`, and hold no reference; flattened, it has at most
//! [`MAX_INPUT_FIELDS`] scalars. An input is neither a field kind nor a reference's target.
//!
//! # Timelines
//!
//! A `timeline(...)` is not on an array; it is `step` for int, bool and enum values and not
//! `cubic` for quaternions; it takes no `predict` or `tolerance`; `ahead` and `history` are in
//! `1..=`[`MAX_TIMELINE_KEYS`] and `keep` in `0..=u32::MAX`; no two timeline fields of a class
//! differ only in case.

mod input;
mod list;
mod refs;
mod structs;
mod texts;
mod timeline;
mod update;

use std::collections::HashMap;
use std::f64::consts::{FRAC_1_SQRT_2, TAU};
use std::ops::RangeInclusive;

use crate::diagnostic::{self, Diagnostic};
use crate::hints;
use crate::ir::{Class, Enum, Field, FieldType, GridNeeds, Precision, Schema, TypeKind};
use crate::limits::*;
use crate::span::{FileId, Span};
use structs::Clause;

/// Names that cannot name an enum or a class: the kind keywords and the item keywords.
pub const RESERVED_TYPE_NAMES: &[&str] = &[
    "int", "fixed", "angle", "quat", "bool", "vec2", "vec3", "optional", "list", "enum", "class",
    "struct", "import", "string", "bytes",
];

/// Names that cannot name anything, because generated Rust could not use them even as raw
/// identifiers.
pub const RESERVED_NAMES: &[&str] = &["_", "self", "Self", "super", "crate"];

/// Checks `schema`, returning every error found, in report order.
pub fn validate(schema: &Schema) -> Result<(), Vec<Diagnostic>> {
    let diags = validate_with(schema, &[], &[]);
    if diags.is_empty() { Ok(()) } else { Err(diags) }
}

/// Like [`validate`], but skips the emptiness checks of the items whose spans are in
/// `poisoned` (their bodies had syntax errors, already reported), and takes the order in which
/// files were merged (`file_order`; files not listed come after, by id), so that of two
/// definitions of a name in different files the one merged later is the redefinition.
pub(crate) fn validate_with(
    schema: &Schema,
    poisoned: &[Span],
    file_order: &[FileId],
) -> Vec<Diagnostic> {
    let mut v = Validator { schema, poisoned, file_order, diags: Vec::new() };
    v.names();
    for e in &schema.enums {
        v.enumeration(e);
    }
    for s in &schema.structs {
        v.structure(s);
    }
    v.recursion();
    for c in &schema.classes {
        v.class(c);
    }
    for i in &schema.inputs {
        v.fields_item(i, input::Kind::Input);
    }
    for e in &schema.events {
        v.fields_item(e, input::Kind::Event);
    }
    if let (Some(e), true) = (schema.events.first(), schema.classes.is_empty()) {
        v.error(
            Diagnostic::error(format!("event `{}` needs a schema with classes", e.name))
                .with_label(e.span, "an event without state")
                .with_help("events travel with the state the schema replicates: declare its classes in this schema"),
        );
    }
    diagnostic::sort(&mut v.diags);
    v.diags
}

struct Validator<'a> {
    schema: &'a Schema,
    poisoned: &'a [Span],
    file_order: &'a [FileId],
    diags: Vec<Diagnostic>,
}

/// Whether `name` is an ASCII identifier: `[A-Za-z_][A-Za-z0-9_]*`.
fn is_ident(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Validator<'_> {
    fn error(&mut self, diag: Diagnostic) {
        self.diags.push(diag);
    }

    /// Checks a name; `what` is the thing named, with its article (`an enum`).
    fn ident(&mut self, name: &str, span: Span, what: &str, is_type: bool) {
        let bare = what.split_once(' ').map_or(what, |(_, rest)| rest);
        if !is_ident(name) {
            self.error(
                Diagnostic::error(format!("`{name}` is not a valid {bare} name"))
                    .with_label(span, "not an identifier")
                    .with_help(
                        "names are ASCII letters, digits and `_`, not starting with a digit",
                    ),
            );
        } else if RESERVED_NAMES.contains(&name) || is_type && RESERVED_TYPE_NAMES.contains(&name) {
            self.error(
                Diagnostic::error(format!("`{name}` is a reserved name"))
                    .with_label(span, format!("cannot name {what}"))
                    .with_help(format!("rename the {bare}")),
            );
        }
    }

    /// Reports duplicate names among `items`, pointing at each redefinition and the first one.
    fn duplicates<'x>(
        &mut self,
        items: impl IntoIterator<Item = (&'x str, Span, &'x str)>,
        scope: &str,
    ) {
        let mut seen: HashMap<&str, (Span, &str)> = HashMap::new();
        for (name, span, what) in items {
            match seen.get(name) {
                Some(&(first, first_what)) => self.error(
                    Diagnostic::error(format!(
                        "the name `{name}` is defined multiple times{scope}"
                    ))
                    .with_label(span, format!("`{name}` redefined here"))
                    .with_secondary(
                        first,
                        format!("previous definition of the {first_what} `{name}` here"),
                    ),
                ),
                None => {
                    seen.insert(name, (span, what));
                }
            }
        }
    }

    fn names(&mut self) {
        let schema = self.schema;
        for e in &schema.enums {
            self.ident(&e.name, e.span, "an enum", true);
        }
        for c in &schema.classes {
            self.ident(&c.name, c.span, "a class", true);
        }
        for s in &schema.structs {
            self.ident(&s.name, s.span, "a struct", true);
        }
        for i in &schema.inputs {
            self.ident(&i.name, i.span, "an input", true);
        }
        for e in &schema.events {
            self.ident(&e.name, e.span, "an event", true);
        }
        let mut items: Vec<(&str, Span, &str)> = schema
            .enums
            .iter()
            .map(|e| (e.name.as_str(), e.span, "enum"))
            .chain(schema.classes.iter().map(|c| (c.name.as_str(), c.span, "class")))
            .chain(schema.structs.iter().map(|s| (s.name.as_str(), s.span, "struct")))
            .chain(schema.inputs.iter().map(|i| (i.name.as_str(), i.span, "input")))
            .chain(schema.events.iter().map(|e| (e.name.as_str(), e.span, "event")))
            .collect();
        // Report the later definition (in merge order) as the redefinition.
        let order = self.file_order;
        let rank = |file: FileId| match order.iter().position(|&f| f == file) {
            Some(i) => (0, i as u64),
            None => (1, u64::from(file.0)),
        };
        items.sort_by_key(|&(_, span, _)| (rank(span.file), span.start));
        self.duplicates(items, "");
    }

    fn enumeration(&mut self, e: &Enum) {
        for case in &e.cases {
            self.ident(&case.name, case.span, "an enum case", false);
        }
        let scope = format!(" in enum `{}`", e.name);
        self.duplicates(e.cases.iter().map(|c| (c.name.as_str(), c.span, "case")), &scope);
        let poisoned = self.poisoned.contains(&e.span);
        if e.cases.len() < MIN_ENUM_CASES && !poisoned {
            self.error(
                Diagnostic::error(format!("enum `{}` has no cases", e.name))
                    .with_label(e.span, "empty enum")
                    .with_help("an enum needs at least one case: `enum State { idle, moving }`"),
            );
        } else if e.cases.len() > MAX_ENUM_CASES {
            self.error(
                Diagnostic::error(format!(
                    "enum `{}` has {} cases, more than the limit of {MAX_ENUM_CASES}",
                    e.name,
                    e.cases.len()
                ))
                .with_label(e.span, "too many cases"),
            );
        }
    }

    fn class(&mut self, c: &Class) {
        for f in &c.fields {
            self.ident(&f.name, f.span, "a field", false);
        }
        let scope = format!(" in class `{}`", c.name);
        self.duplicates(c.fields.iter().map(|f| (f.name.as_str(), f.span, "field")), &scope);
        if c.fields.is_empty() && !self.poisoned.contains(&c.span) {
            self.error(
                Diagnostic::error(format!("class `{}` has no fields", c.name))
                    .with_label(c.span, "empty class")
                    .with_help("a class needs at least one field to replicate"),
            );
        }
        self.groups(c);
        self.timeline_names(c);
        self.link_count(c);
        self.text_count(c);
        for f in &c.fields {
            if self.reference(f, None) || self.text(f, None) {
                continue;
            }
            self.ty(&f.ty);
            self.predictors(f);
            self.tolerance(f);
            self.field_group(c, f);
            self.timeline(f);
        }
    }

    fn bits(&mut self, bits: u32, span: Span, kind: &str, min: u32) {
        if !(min..=MAX_BITS).contains(&bits) {
            let label = if bits < min { "too few bits" } else { "too many bits" };
            self.error(
                Diagnostic::error(format!("`{kind}` bits must be between {min} and {MAX_BITS}"))
                    .with_label(span, label),
            );
        }
    }

    fn ty(&mut self, ty: &FieldType) {
        match &ty.kind {
            TypeKind::Int { min, max } => {
                let mut in_range = true;
                for bound in [min, max] {
                    if !(INT_MIN..=INT_MAX).contains(&bound.value) {
                        in_range = false;
                        self.error(
                            Diagnostic::error("`int` bound does not fit in i32")
                                .with_label(bound.span, "out of range")
                                .with_help(format!(
                                    "`int` bounds must be within {INT_MIN}..={INT_MAX}"
                                )),
                        );
                    }
                }
                if in_range && min.value >= max.value {
                    self.bounds_order(min.span, max.span);
                }
            }
            TypeKind::Fixed { min, max, precision, needs } => {
                let mut ok = true;
                for bound in [min, max] {
                    if !bound.value.is_finite() {
                        ok = false;
                        self.error(
                            Diagnostic::error("`fixed` bound is not a finite number")
                                .with_label(bound.span, "too large"),
                        );
                    }
                }
                if ok && min.value >= max.value {
                    ok = false;
                    self.bounds_order(min.span, max.span);
                }
                match precision.value {
                    Precision::Bits(bits) => self.bits(bits, precision.span, "fixed", MIN_BITS),
                    Precision::Resolution(res) => {
                        if res == 0.0 {
                            self.error(
                                Diagnostic::error("the resolution must be greater than zero")
                                    .with_label(precision.span, "zero resolution")
                                    .with_help("`res` is the step between two representable values, e.g. `res = 0.01` or `res = 1/512`"),
                            );
                        } else if res.is_nan() || res < 0.0 {
                            self.error(
                                Diagnostic::error("the resolution must be greater than zero")
                                    .with_label(precision.span, "negative resolution")
                                    .with_help("`res` is the step between two representable values, e.g. `res = 0.01` or `res = 1/512`"),
                            );
                        } else if !res.is_finite() {
                            self.error(
                                Diagnostic::error("the resolution is not a finite number")
                                    .with_label(precision.span, "infinite resolution"),
                            );
                        } else if ok {
                            self.steps(min.value, max.value, res, precision.span);
                        }
                    }
                }
                if ok {
                    self.needs(needs, min.value..=max.value);
                }
            }
            TypeKind::Angle { bits, needs } => {
                self.bits(bits.value, bits.span, "angle", MIN_BITS);
                self.needs(needs, -TAU..=TAU);
            }
            TypeKind::Quat { bits, needs } => {
                self.bits(bits.value, bits.span, "quat", MIN_QUAT_BITS);
                self.needs(needs, -FRAC_1_SQRT_2..=FRAC_1_SQRT_2);
            }
            // A class's own reference, string or blob is checked by `reference` or `text`; one
            // elsewhere is refused there.
            TypeKind::Bool | TypeKind::Ref { .. } | TypeKind::Text { .. } => {}
            TypeKind::Enum { name } => self.enum_ref(name, ty.span),
            TypeKind::Struct { name } => {
                if self.schema.find_struct(name).is_none() {
                    self.enum_ref(name, ty.span);
                }
            }
            TypeKind::Optional(inner) => {
                if let TypeKind::Optional(_) = inner.kind {
                    self.error(
                        Diagnostic::error("an optional cannot hold an optional")
                            .with_label(inner.span, "an optional inside `optional`")
                            .with_help("one presence flag says whether the value is there: write `optional<K>`, or use an enum for more states"),
                    );
                } else {
                    self.ty(inner);
                }
            }
            TypeKind::Vec2(elem) | TypeKind::Vec3(elem) => {
                let outer = ty.kind_name();
                match elem.kind {
                    TypeKind::Int { .. } | TypeKind::Fixed { .. } | TypeKind::Angle { .. } => {
                        self.ty(elem)
                    }
                    TypeKind::Vec2(_) | TypeKind::Vec3(_) => self.error(
                        Diagnostic::error("nested vectors are not supported")
                            .with_label(elem.span, format!("a vector inside `{outer}`"))
                            .with_help("a vector's components must be int, fixed or angle; use an array of vectors `[vec2<K>; N]` for several"),
                    ),
                    _ => {
                        let inner = elem.kind_name().to_owned();
                        self.error(
                            Diagnostic::error(format!("`{outer}` components must be int, fixed or angle"))
                                .with_label(elem.span, format!("`{inner}` is not a numeric scalar"))
                                .with_help(format!("use an array for several values of another kind: `[{inner}; N]`")),
                        )
                    }
                }
            }
            TypeKind::List { elem, len } => self.list(elem, len),
            TypeKind::Array { elem, len } => {
                if !(MIN_ARRAY_LEN..=MAX_ARRAY_LEN).contains(&len.value) {
                    self.error(
                        Diagnostic::error(format!(
                            "array length must be between {MIN_ARRAY_LEN} and {MAX_ARRAY_LEN}"
                        ))
                        .with_label(
                            len.span,
                            if len.value < MIN_ARRAY_LEN { "empty array" } else { "too long" },
                        ),
                    );
                }
                if let TypeKind::Array { .. } = elem.kind {
                    self.error(
                        Diagnostic::error("nested arrays are not supported")
                            .with_label(elem.span, "an array inside an array")
                            .with_help("use one longer array and index it as rows × columns"),
                    );
                } else {
                    self.ty(elem);
                }
            }
        }
    }

    /// Checks `exact` values (finite, in `range`) and `max_step` (a positive number).
    fn needs(&mut self, needs: &GridNeeds, range: RangeInclusive<f64>) {
        for v in needs.exact.iter().flatten() {
            if !range.contains(&v.value) {
                self.error(
                    Diagnostic::error("an `exact` value is outside the kind's range")
                        .with_label(
                            v.span,
                            format!("not in {:?}..={:?}", range.start(), range.end()),
                        )
                        .with_help("`exact` lists values of the range that must decode exactly"),
                );
            }
        }
        if let Some(step) = &needs.max_step
            && !(step.value > 0.0 && step.value.is_finite())
        {
            self.error(
                Diagnostic::error("`max_step` must be a positive number")
                    .with_label(step.span, "not a positive step")
                    .with_help("`max_step` is the coarsest step between two representable values you accept"),
            );
        }
    }

    fn bounds_order(&mut self, min: Span, max: Span) {
        self.error(
            Diagnostic::error("`min` must be less than `max`")
                .with_label(min, "min")
                .with_secondary(max, "max"),
        );
    }

    fn steps(&mut self, min: f64, max: f64, res: f64, span: Span) {
        if Precision::Resolution(res).steps(min, max).is_some() {
            return;
        }
        let coarsest = (max - min) / MAX_FIXED_STEPS as f64;
        self.error(
            Diagnostic::error(format!(
                "the resolution is too fine: the range needs more than {MAX_BITS} bits"
            ))
            .with_label(span, format!("(max - min) / res is about {:.3e} steps", (max - min) / res))
            .with_help(format!(
                "use a resolution of at least {coarsest:.3e}, a narrower range, or `bits = N`"
            )),
        );
    }

    fn enum_ref(&mut self, name: &str, span: Span) {
        let schema = self.schema;
        if schema.find_enum(name).is_some() {
            return;
        }
        if let Some((_, class)) = schema.find_class(name) {
            self.error(
                Diagnostic::error(format!("`{name}` is a class, not a field kind"))
                    .with_label(span, "classes cannot be fields")
                    .with_secondary(class.span, "class defined here")
                    .with_help(format!(
                        "refer to an entity of the class with `ref<{name}>`, or copy its fields into this class"
                    )),
            );
            return;
        }
        let item = match (schema.find_input(name), schema.find_event(name)) {
            (Some((_, i)), _) => Some(("an input", "input", i.span)),
            (None, Some((_, e))) => Some(("an event", "event", e.span)),
            (None, None) => None,
        };
        if let Some((an, word, defined)) = item {
            self.error(
                Diagnostic::error(format!("`{name}` is {an}, not a field kind"))
                    .with_label(span, format!("{word}s cannot be fields"))
                    .with_secondary(defined, format!("{word} defined here"))
                    .with_help("declare the fields both need in a `struct`, and hold it in each"),
            );
            return;
        }
        let enums = schema.enums.iter().map(|e| (e.name.as_str(), "an enum"));
        let structs = schema.structs.iter().map(|s| (s.name.as_str(), "a struct"));
        let declared: Vec<(&str, &str)> = enums.chain(structs).collect();
        let help = match hints::similar(name, declared.iter().map(|d| d.0)) {
            Some(s) => {
                let what = declared.iter().find(|d| d.0 == s).map_or("a type", |d| d.1);
                format!("{what} with a similar name exists: `{s}`")
            }
            None => match hints::similar(name, hints::KIND_NAMES) {
                Some(kind) => hints::did_you_mean(kind),
                None => hints::kind_hint(name),
            },
        };
        self.error(
            Diagnostic::error(format!("unknown type `{name}`"))
                .with_label(span, "not a field kind or a declared enum or struct")
                .with_help(help),
        );
    }

    fn predictors(&mut self, f: &Field) {
        let Some(clause) = &f.predict else {
            return;
        };
        if self.reached(&f.ty, Clause::Predict.own()).is_none() {
            self.unreached(f, Clause::Predict, clause.span);
            return;
        }
        if clause.predictors.is_empty() {
            self.error(
                Diagnostic::error("empty predictor set")
                    .with_label(clause.span, "no predictor listed")
                    .with_help("list at least one of zero, hold, linear, quadratic, cubic, or remove the clause for the default (hold, linear, quadratic)"),
            );
        }
        for (i, p) in clause.predictors.iter().enumerate() {
            if let Some(first) = clause.predictors[..i].iter().find(|q| q.value == p.value) {
                self.error(
                    Diagnostic::error(format!("duplicate predictor `{}`", p.value.name()))
                        .with_label(p.span, "listed again here")
                        .with_secondary(first.span, "first listed here"),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Class, Enum, Field, FieldType, Group, Predictor, Schedule};

    fn schema(enums: Vec<Enum>, classes: Vec<Class>) -> Schema {
        Schema { name: "t".into(), enums, classes, ..Schema::default() }
    }

    #[test]
    fn hand_built_schema_is_valid() {
        let s = schema(
            vec![Enum::new("State", ["a", "b"])],
            vec![Class::new(
                "Unit",
                [
                    Field::new("hp", FieldType::int(0, 100)).with_predictors([Predictor::Hold]),
                    Field::new("state", FieldType::enumeration("State")),
                    Field::new("pos", FieldType::vec2(FieldType::fixed_res(-1.0, 1.0, 0.01))),
                ],
            )],
        );
        assert_eq!(validate(&s), Ok(()));
    }

    #[test]
    fn too_many_cases() {
        let cases: Vec<String> = (0..=MAX_ENUM_CASES).map(|i| format!("c{i}")).collect();
        let s = schema(vec![Enum::new("Big", cases)], vec![]);
        let errs = validate(&s).unwrap_err();
        assert_eq!(errs.len(), 1);
        assert!(errs[0].message.contains("more than the limit"), "{:?}", errs[0]);
        let ok: Vec<String> = (0..MAX_ENUM_CASES).map(|i| format!("c{i}")).collect();
        assert_eq!(validate(&schema(vec![Enum::new("Big", ok)], vec![])), Ok(()));
    }

    #[test]
    fn bad_names_in_hand_built_ir() {
        let s = schema(
            vec![Enum::new("int", ["a"]), Enum::new("9x", ["self"])],
            vec![Class::new("C", [Field::new("a b", FieldType::bool())])],
        );
        let errs = validate(&s).unwrap_err();
        let messages: Vec<&str> = errs.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
    }

    #[test]
    fn fixed_step_limit() {
        let ok = schema(
            vec![],
            vec![Class::new(
                "C",
                [Field::new("x", FieldType::fixed_res(0.0, (MAX_FIXED_STEPS) as f64, 1.0))],
            )],
        );
        assert_eq!(validate(&ok), Ok(()));
        let bad = schema(
            vec![],
            vec![Class::new(
                "C",
                [Field::new("x", FieldType::fixed_res(0.0, (MAX_FIXED_STEPS + 1) as f64, 1.0))],
            )],
        );
        assert!(validate(&bad).is_err());
    }

    #[test]
    fn hand_built_groups_and_tolerances() {
        let class = |fields: Vec<Field>, every| {
            Class::new("C", fields)
                .with_groups([Group::new("slow", Schedule::new(Some(every), None))])
        };
        let ok = schema(
            vec![],
            vec![class(
                vec![Field::new("x", FieldType::int(0, 9)).with_tolerance(2.0).in_group("slow")],
                8,
            )],
        );
        assert_eq!(validate(&ok), Ok(()));
        let bad = schema(
            vec![],
            vec![class(
                vec![
                    Field::new("x", FieldType::int(0, 9)).in_group("fast"),
                    Field::new("b", FieldType::bool()).with_tolerance(1.0),
                    Field::new("a", FieldType::angle(8)).with_tolerance(0.01),
                ],
                0,
            )],
        );
        let errs = validate(&bad).unwrap_err();
        let mut messages: Vec<&str> = errs.iter().map(|d| d.message.as_str()).collect();
        messages.sort();
        assert_eq!(
            messages,
            [
                "`every` must be between 1 and 16",
                "bool fields cannot have a tolerance",
                "tolerance 0.01 is below one step 0.024544; it would be exact",
                "unknown group `fast` in class `C`",
            ]
        );
    }
}
