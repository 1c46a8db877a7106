//! The rules of inputs (`input Move { ... }`): fields as a class's, but exact (no tolerance,
//! also from the structs they hold), sent whole every tick (no `group(...)`, no
//! `timeline(...)`), naming no entity (no references), and at most
//! [`MAX_INPUT_FIELDS`] scalars in all.

use super::Validator;
use crate::diagnostic::Diagnostic;
use crate::ir::Input;
use crate::limits::MAX_INPUT_FIELDS;

impl Validator<'_> {
    /// Checks an input: its field names, that it has fields, each field's kind and clauses,
    /// and its scalars once flattened.
    pub(super) fn input(&mut self, i: &Input) {
        for f in &i.fields {
            self.ident(&f.name, f.span, "a field", false);
        }
        let scope = format!(" in input `{}`", i.name);
        self.duplicates(i.fields.iter().map(|f| (f.name.as_str(), f.span, "field")), &scope);
        if i.fields.is_empty() && !self.poisoned.contains(&i.span) {
            self.error(
                Diagnostic::error(format!("input `{}` has no fields", i.name))
                    .with_label(i.span, "empty input")
                    .with_help("an input needs at least one field: `input Move { fire: bool; }`"),
            );
        }
        for f in &i.fields {
            if f.ty.has_ref() {
                self.error(
                    Diagnostic::error(format!("input `{}` cannot hold a reference", i.name))
                        .with_label(f.ty.span, "a reference in an input")
                        .with_help("references go from the server to its clients, which name entities by handles the server does not share; send what the server needs to find the entity (an `int` of your own ids, a position) instead"),
                );
                continue;
            }
            self.ty(&f.ty);
            self.predictors(f);
            if let Some(t) = &f.tolerance {
                self.error(
                    Diagnostic::error("an input's field cannot have a tolerance")
                        .with_label(t.span, "inputs are exact")
                        .with_help(
                            "the server takes exactly what the client pushed; remove the tolerance",
                        ),
                );
            }
            if let Some(g) = &f.group {
                self.error(
                    Diagnostic::error("an input's field cannot have a `group` clause")
                        .with_label(g.span, "update groups belong to classes")
                        .with_help(
                            "an input is sent whole every tick; remove the `group(...)` clause",
                        ),
                );
            }
            if let Some(t) = &f.timeline {
                self.error(
                    Diagnostic::error("an input's field cannot be a timeline")
                        .with_label(t.span, "timelines are class fields")
                        .with_help(
                            "an input is one value per tick; remove the `timeline(...)` clause",
                        ),
                );
            }
        }
        self.input_scalars(i);
    }

    /// Checks the scalars an input flattens into: none with a tolerance from a struct it holds
    /// (its own fields' tolerances are reported at the clause), at most [`MAX_INPUT_FIELDS`].
    /// Not with a timeline, whose slots would be counted (it is reported already).
    fn input_scalars(&mut self, i: &Input) {
        if i.fields.iter().any(|f| f.timeline.is_some()) {
            return;
        }
        let scalars = self.schema.flatten_input(i);
        for (index, f) in i.fields.iter().enumerate() {
            let tolerant = scalars.iter().find(|s| s.field == index && s.tolerance > 0);
            if let (None, Some(s)) = (&f.tolerance, tolerant) {
                self.error(
                    Diagnostic::error(format!(
                        "input field `{}` holds a struct field with a tolerance",
                        f.name
                    ))
                    .with_label(f.ty.span, format!("`{}` has a tolerance", s.path))
                    .with_help("inputs are exact: hold a struct whose fields have no tolerance"),
                );
            }
        }
        if scalars.len() > MAX_INPUT_FIELDS {
            let paths: Vec<&str> = scalars.iter().map(|s| s.path.as_str()).collect();
            self.error(
                Diagnostic::error(format!(
                    "input `{}` has {} scalar fields, more than the limit of {MAX_INPUT_FIELDS}",
                    i.name,
                    scalars.len()
                ))
                .with_label(i.span, "too many scalar fields")
                .with_note(format!("its scalar fields: {}", paths.join(", ")))
                .with_help("a `vec2` is 2 scalars, a `quat` 4, an array one per element: send fewer or smaller fields, and leave what the server knows to its state"),
            );
        }
    }
}
