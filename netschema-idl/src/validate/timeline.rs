//! The rules of `timeline(...)` clauses.

use super::Validator;
use crate::diagnostic::Diagnostic;
use crate::ir::{Class, Field, Interp, TypeKind};
use crate::limits::MAX_TIMELINE_KEYS;

impl Validator<'_> {
    /// Checks that no two timeline fields of `c` differ only in case: each names a generated
    /// constant, the field's name in upper case (`POS_TIMELINE`).
    pub(super) fn timeline_names(&mut self, c: &Class) {
        let timelines: Vec<&Field> = c.fields.iter().filter(|f| f.timeline.is_some()).collect();
        for (i, f) in timelines.iter().enumerate() {
            let upper = f.name.to_ascii_uppercase();
            if let Some(first) =
                timelines[..i].iter().find(|g| g.name.to_ascii_uppercase() == upper)
            {
                self.error(
                    Diagnostic::error(format!(
                        "timeline fields `{}` and `{}` differ only in case",
                        first.name, f.name
                    ))
                    .with_label(f.span, "this timeline")
                    .with_secondary(first.span, "and this one")
                    .with_help(format!("both would generate `{upper}_TIMELINE`; rename one")),
                );
            }
        }
    }

    /// Checks a field's timeline: a kind that is not an array; `step` only for int, bool and
    /// enum values and no `cubic` for quaternions; no `predict` or `tolerance` beside it;
    /// `ahead` and `history` in `1..=`[`MAX_TIMELINE_KEYS`], `keep` in `0..=u32::MAX`.
    pub(super) fn timeline(&mut self, f: &Field) {
        let Some(t) = &f.timeline else { return };
        let interp = t.interp.value;
        let scalar = &f.ty.scalar().kind;
        let kind_error = match (&f.ty.kind, scalar, interp) {
            (TypeKind::Array { .. }, ..) => Some("a timeline's kind cannot be an array"),
            (TypeKind::Optional(_), ..) => Some("a timeline's kind cannot be an optional"),
            (TypeKind::List { .. }, ..) => Some("a timeline's kind cannot be a list"),
            (_, TypeKind::Struct { .. }, _) => Some("a timeline's kind cannot be a struct"),
            (_, TypeKind::Int { .. } | TypeKind::Bool | TypeKind::Enum { .. }, i)
                if i != Interp::Step =>
            {
                Some("int, bool and enum timelines are step-only")
            }
            (_, TypeKind::Quat { .. }, Interp::Cubic) => {
                Some("quaternion timelines are step or linear (normalised lerp), not cubic")
            }
            _ => None,
        };
        if let Some(message) = kind_error {
            self.error(
                Diagnostic::error(message)
                    .with_label(t.span, "this timeline")
                    .with_secondary(f.ty.span, "of this kind"),
            );
        }
        for (clause, span) in [
            ("predict", f.predict.as_ref().map(|p| p.span)),
            ("tolerance", f.tolerance.as_ref().map(|v| v.span)),
        ] {
            if let Some(span) = span {
                self.error(
                    Diagnostic::error(format!("a timeline field cannot have a `{clause}` clause"))
                        .with_label(span, "not with a timeline")
                        .with_help(
                            "a timeline's keyframes are exact and predicted from their slots",
                        ),
                );
            }
        }
        for (name, v, range) in [
            ("ahead", &t.ahead, 1..=MAX_TIMELINE_KEYS),
            ("history", &t.history, 1..=MAX_TIMELINE_KEYS),
            ("keep", &t.keep, 0..=i64::from(u32::MAX)),
        ] {
            if let Some(v) = v.as_ref().filter(|v| !range.contains(&v.value)) {
                self.error(
                    Diagnostic::error(format!(
                        "`{name}` must be between {} and {}",
                        range.start(),
                        range.end()
                    ))
                    .with_label(v.span, "out of range"),
                );
            }
        }
    }
}
