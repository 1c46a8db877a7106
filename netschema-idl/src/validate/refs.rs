//! The rules of references (`ref<Class>`, `ref<any>`): a class's own fields, naming a class,
//! without clauses, at most [`MAX_LINKS`] per class.

use super::Validator;
use crate::diagnostic::Diagnostic;
use crate::hints;
use crate::ir::{ANY, Class, Field, TypeKind};
use crate::limits::MAX_LINKS;
use crate::span::Span;

impl Validator<'_> {
    /// Checks field `f` if it holds a reference (of a struct called `owner`, or of a class if
    /// `None`); whether it does, in which case nothing else of it is checked.
    pub(super) fn reference(&mut self, f: &Field, owner: Option<&str>) -> bool {
        if !f.ty.has_ref() {
            return false;
        }
        if let Some(s) = owner {
            self.error(
                Diagnostic::error(format!("struct `{s}` cannot hold a reference"))
                    .with_label(f.ty.span, "a reference in a struct")
                    .with_help("references are a class's own fields: declare it on the class that holds the struct"),
            );
            return true;
        }
        let TypeKind::Ref { target } = &f.ty.kind else {
            let kind = f.ty.kind_name();
            self.error(
                Diagnostic::error(format!("a reference cannot be inside `{kind}`"))
                    .with_label(f.ty.span, "a reference inside a compound kind")
                    .with_help("declare each reference as a field of its own: a reference reads none by itself when its target is gone"),
            );
            return true;
        };
        if let Some(target) = target {
            self.target_class(target, f.ty.span);
        }
        let clauses = [
            f.predict.as_ref().map(|c| ("predict", c.span, "references are predicted as held")),
            f.tolerance.as_ref().map(|t| ("tolerance", t.span, "references are exact")),
            f.group
                .as_ref()
                .map(|g| ("group", g.span, "references are sent with the class's default group")),
            f.timeline.as_ref().map(|t| ("timeline", t.span, "references hold no keyframes")),
        ];
        for (clause, span, label) in clauses.into_iter().flatten() {
            self.error(
                Diagnostic::error(format!("a reference takes no `{clause}` clause"))
                    .with_label(span, label)
                    .with_help(format!("remove the `{clause}` clause")),
            );
        }
        true
    }

    /// Reports a class with more references than [`MAX_LINKS`].
    pub(super) fn link_count(&mut self, c: &Class) {
        let refs: Vec<&Field> = c.references().map(|(f, _)| f).collect();
        if let Some(first_past) = refs.get(MAX_LINKS) {
            self.error(
                Diagnostic::error(format!(
                    "class `{}` has {} references, more than the limit of {MAX_LINKS}",
                    c.name,
                    refs.len()
                ))
                .with_label(first_past.span, "one reference too many")
                .with_help("group the targets under fewer references, or reference an entity that holds them"),
            );
        }
    }

    /// Checks that a reference's target `name` (spelled over `span`) is a class, or a type the
    /// derive resolves (an external struct).
    fn target_class(&mut self, name: &str, span: Span) {
        let schema = self.schema;
        let external = schema.find_struct(name).is_some_and(|(_, s)| s.external);
        if schema.find_class(name).is_some() || external {
            return;
        }
        let other = match (schema.find_enum(name), schema.find_struct(name)) {
            (Some(_), _) => Some("an enum"),
            (None, Some(_)) => Some("a struct"),
            (None, None) => schema.find_input(name).map(|_| "an input"),
        };
        let classes = schema.classes.iter().map(|c| c.name.as_str());
        let help = match hints::similar(name, classes.chain([ANY])) {
            Some(s) => hints::did_you_mean(s),
            None => format!("a reference names a class of the schema, or `{ANY}` for any class"),
        };
        let d = match other {
            Some(what) => Diagnostic::error(format!("`{name}` is {what}, not a class"))
                .with_label(span, "a reference names a class"),
            None => Diagnostic::error(format!("unknown class `{name}`"))
                .with_label(span, "not a class of the schema"),
        };
        self.error(d.with_help(help));
    }
}
