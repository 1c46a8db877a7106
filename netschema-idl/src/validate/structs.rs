//! The rules of structs: their fields, their nesting, and which scalars a clause on a field
//! holding one reaches.

use super::Validator;
use crate::diagnostic::Diagnostic;
use crate::ir::{Field, FieldType, Schema, Struct, TypeKind};
use crate::limits::MAX_STRUCT_DEPTH;
use crate::span::Span;

/// A clause that reaches the scalars under its field, into structs: `predict(...)` or
/// `tolerance(V)`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Clause {
    Predict,
    Tolerance,
}

impl Clause {
    /// Whether a field writes this clause itself.
    pub(super) fn own(self) -> fn(&Field) -> bool {
        match self {
            Clause::Predict => |f| f.predict.is_some(),
            Clause::Tolerance => |f| f.tolerance.is_some(),
        }
    }

    fn written(self) -> &'static str {
        match self {
            Clause::Predict => "predict(...)",
            Clause::Tolerance => "tolerance(...)",
        }
    }
}

/// The numeric scalars a clause reaches.
pub(super) struct Reach {
    /// The numeric scalar kinds (int, fixed, angle, quat) reached in the schema.
    pub(super) kinds: Vec<FieldType>,
    /// Whether the clause also reaches into an external struct, whose scalars are checked
    /// when the generated code compiles.
    pub(super) external: bool,
}

impl Reach {
    /// Whether the clause reaches no numeric scalar at all.
    pub(super) fn is_none(&self) -> bool {
        self.kinds.is_empty() && !self.external
    }
}

impl Validator<'_> {
    /// Checks a struct: its field names, that it has fields, and each field's kind and
    /// clauses; a struct's field takes no `group(...)` and no `timeline(...)`.
    pub(super) fn structure(&mut self, s: &Struct) {
        for f in &s.fields {
            self.ident(&f.name, f.span, "a field", false);
        }
        let scope = format!(" in struct `{}`", s.name);
        self.duplicates(s.fields.iter().map(|f| (f.name.as_str(), f.span, "field")), &scope);
        if s.fields.is_empty() && !s.external && !self.poisoned.contains(&s.span) {
            self.error(
                Diagnostic::error(format!("struct `{}` has no fields", s.name))
                    .with_label(s.span, "empty struct")
                    .with_help("a struct needs at least one field"),
            );
        }
        for f in &s.fields {
            if self.reference(f, Some(&s.name)) || self.text(f, Some(("struct", &s.name))) {
                continue;
            }
            self.ty(&f.ty);
            self.predictors(f);
            self.tolerance(f);
            if let Some(group) = &f.group {
                self.error(
                    Diagnostic::error("a struct's field cannot have a `group` clause")
                        .with_label(group.span, "update groups belong to classes")
                        .with_help("put `group(...)` on the class field that holds the struct"),
                );
            }
            if let Some(t) = &f.timeline {
                self.error(
                    Diagnostic::error("a struct's field cannot be a timeline")
                        .with_label(t.span, "timelines are class fields")
                        .with_help("declare the timeline on a class field instead"),
                );
            }
        }
    }

    /// Reports every struct that holds itself, directly or through other structs, at its
    /// declaration, with the chain; and structs nested deeper than [`MAX_STRUCT_DEPTH`].
    pub(super) fn recursion(&mut self) {
        let schema = self.schema;
        for s in &schema.structs {
            let mut chain = vec![s.name.as_str()];
            match cycle(schema, s, &mut chain) {
                Some(Walk::Cycle) => self.error(
                    Diagnostic::error(format!("struct `{}` holds itself", s.name))
                        .with_label(s.span, "recursive struct")
                        .with_note(format!("struct chain: {}", chain.join(" -> ")))
                        .with_help("a struct has a fixed number of scalars; hold the inner value in an `optional<...>` of another struct, or flatten it by hand"),
                ),
                Some(Walk::TooDeep) => self.error(
                    Diagnostic::error(format!(
                        "struct `{}` nests structs more than {MAX_STRUCT_DEPTH} deep",
                        s.name
                    ))
                    .with_label(s.span, "nested too deeply")
                    .with_note(format!("struct chain: {}", chain.join(" -> "))),
                ),
                None => {}
            }
        }
    }

    /// The numeric scalars a clause on a field of kind `ty` reaches: the bottoms of its
    /// compounds, and inside structs those of the fields that do not write the clause
    /// themselves (`own`).
    pub(super) fn reached(&self, ty: &FieldType, own: fn(&Field) -> bool) -> Reach {
        let mut out = Reach { kinds: Vec::new(), external: false };
        reach(self.schema, ty, own, 0, &mut out);
        out
    }

    /// Reports `clause` (written at `span`) on field `f`, which reaches no numeric scalar:
    /// a field of bools or enums, or of a struct whose numeric fields, if any, all write the
    /// clause themselves.
    pub(super) fn unreached(&mut self, f: &Field, clause: Clause, span: Span) {
        let scalar = f.ty.scalar();
        let (what, label) = match &scalar.kind {
            TypeKind::Struct { name } if self.schema.find_struct(name).is_some() => {
                let holds = if self.reached(&f.ty, |_| false).is_none() {
                    format!("struct `{name}` holds only bools and enums")
                } else {
                    format!(
                        "each numeric field of struct `{name}` writes its own `{}`",
                        clause.written()
                    )
                };
                let written = clause.written();
                self.error(
                    Diagnostic::error(format!(
                        "`{written}` on a field of struct `{name}` reaches no numeric scalar"
                    ))
                        .with_label(span, "applies to nothing")
                        .with_secondary(f.ty.span, holds)
                        .with_help(format!("bools and enums take no `{written}`, and a struct's own clause wins over the holding field's; remove this one")),
                );
                return;
            }
            TypeKind::Bool => ("bool", "a field of bools".to_owned()),
            _ => ("enum", format!("a field of enum `{}`", scalar.kind_name())),
        };
        let d = match clause {
            Clause::Predict => Diagnostic::error(format!("{what} fields cannot have predictors"))
                .with_label(span, "predictors are for numeric fields")
                .with_secondary(f.ty.span, label)
                .with_help("bool and enum fields are coded with a transition model; remove the `predict(...)` clause"),
            Clause::Tolerance => Diagnostic::error(format!("{what} fields cannot have a tolerance"))
                .with_label(span, "a tolerance is for numeric fields")
                .with_secondary(f.ty.span, label)
                .with_help("bool and enum fields are always exact; remove the tolerance"),
        };
        self.error(d);
    }
}

/// How a walk through nested structs ended.
enum Walk {
    Cycle,
    TooDeep,
}

/// Walks the structs `s` holds; on a cycle back to `chain[0]` or a chain too long, returns
/// which, with `chain` holding the path.
fn cycle<'s>(schema: &'s Schema, s: &'s Struct, chain: &mut Vec<&'s str>) -> Option<Walk> {
    for f in &s.fields {
        let Some(name) = struct_name(&f.ty) else { continue };
        let Some((_, inner)) = schema.find_struct(name) else { continue };
        chain.push(inner.name.as_str());
        if inner.name == chain[0] {
            return Some(Walk::Cycle);
        }
        if chain.len() > MAX_STRUCT_DEPTH {
            return Some(Walk::TooDeep);
        }
        // A cycle not through `chain[0]` is reported at its own structs.
        if !chain[1..chain.len() - 1].contains(&inner.name.as_str())
            && let Some(found) = cycle(schema, inner, chain)
        {
            return Some(found);
        }
        chain.pop();
    }
    None
}

/// The struct at the bottom of a kind's arrays, lists and optionals, if any.
fn struct_name(ty: &FieldType) -> Option<&str> {
    match &ty.kind {
        TypeKind::Struct { name } => Some(name),
        TypeKind::Array { elem, .. } | TypeKind::List { elem, .. } | TypeKind::Optional(elem) => {
            struct_name(elem)
        }
        _ => None,
    }
}

fn reach(schema: &Schema, ty: &FieldType, own: fn(&Field) -> bool, depth: usize, out: &mut Reach) {
    match &ty.kind {
        TypeKind::Int { .. }
        | TypeKind::Fixed { .. }
        | TypeKind::Angle { .. }
        | TypeKind::Quat { .. } => out.kinds.push(ty.clone()),
        TypeKind::Bool | TypeKind::Enum { .. } | TypeKind::Ref { .. } | TypeKind::Text { .. } => {}
        TypeKind::Vec2(e) | TypeKind::Vec3(e) | TypeKind::Array { elem: e, .. } => {
            reach(schema, e, own, depth, out)
        }
        TypeKind::Optional(e) | TypeKind::List { elem: e, .. } => reach(schema, e, own, depth, out),
        TypeKind::Struct { name } => {
            let Some((_, s)) = schema.find_struct(name) else { return };
            out.external |= s.external;
            if depth >= MAX_STRUCT_DEPTH {
                return;
            }
            for f in s.fields.iter().filter(|f| !own(f)) {
                reach(schema, &f.ty, own, depth + 1, out);
            }
        }
    }
}
