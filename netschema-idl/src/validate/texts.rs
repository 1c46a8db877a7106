//! The rules of strings and byte blobs (`string<N>`, `bytes<N>`): a class's or an event's own
//! fields, of `1..=`[`MAX_TEXT_LEN`] bytes, without clauses, at most [`MAX_TEXTS`] per class,
//! and an event's longest record within [`MAX_RECORD_LEN`].

use super::Validator;
use crate::diagnostic::Diagnostic;
use crate::ir::{Class, Field, Input, TypeKind};
use crate::limits::{MAX_RECORD_LEN, MAX_TEXT_LEN, MAX_TEXTS};

/// Longest varint of a scalar's code or a link in an event record (the runtime's
/// `event::max_len` counts the same).
const MAX_VARINT: usize = 5;

impl Validator<'_> {
    /// Checks field `f` if it holds a string or blob (of the struct or input `owner`, which
    /// refuses it, or of a class or event if `None`); whether it does, in which case nothing
    /// else of it is checked.
    pub(super) fn text(&mut self, f: &Field, owner: Option<(&str, &str)>) -> bool {
        if !f.ty.has_text() {
            return false;
        }
        let kind = f.ty.scalar().kind_name().to_owned();
        if let Some((what, name)) = owner {
            self.error(
                Diagnostic::error(format!("{what} `{name}` cannot hold a `{kind}` field"))
                    .with_label(f.ty.span, format!("a `{kind}` field"))
                    .with_help("strings and byte blobs are a class's or an event's own fields"),
            );
            return true;
        }
        let TypeKind::Text { max, .. } = &f.ty.kind else {
            let outer = f.ty.kind_name();
            self.error(
                Diagnostic::error(format!("a `{kind}` cannot be inside `{outer}`"))
                    .with_label(f.ty.span, format!("a `{kind}` inside a compound kind"))
                    .with_help(format!("declare each `{kind}` as a field of its own")),
            );
            return true;
        };
        if !(1..=MAX_TEXT_LEN).contains(&max.value) {
            let label = if max.value == 0 { "no byte" } else { "too long for a record" };
            self.error(
                Diagnostic::error(format!("a `{kind}` holds between 1 and {MAX_TEXT_LEN} bytes"))
                    .with_label(max.span, label)
                    .with_help(format!("write `{kind}<N>` with N in 1..={MAX_TEXT_LEN}")),
            );
        }
        let clauses = [
            f.predict.as_ref().map(|c| ("predict", c.span)),
            f.tolerance.as_ref().map(|t| ("tolerance", t.span)),
            f.group.as_ref().map(|g| ("group", g.span)),
            f.timeline.as_ref().map(|t| ("timeline", t.span)),
        ];
        for (clause, span) in clauses.into_iter().flatten() {
            self.error(
                Diagnostic::error(format!("a `{kind}` field takes no `{clause}` clause"))
                    .with_label(span, format!("`{kind}` fields are sent whole, once per change"))
                    .with_help(format!("remove the `{clause}` clause")),
            );
        }
        true
    }

    /// Reports a class or event with more strings and blobs than [`MAX_TEXTS`].
    pub(super) fn text_count(&mut self, c: &Class) {
        let texts: Vec<&Field> = c.texts().map(|(f, _, _)| f).collect();
        if let Some(first_past) = texts.get(MAX_TEXTS) {
            self.error(
                Diagnostic::error(format!(
                    "`{}` has {} string and blob fields, more than the limit of {MAX_TEXTS}",
                    c.name,
                    texts.len()
                ))
                .with_label(first_past.span, "one too many")
                .with_help("join them into fewer, longer fields"),
            );
        }
    }

    /// Reports an event whose longest record passes [`MAX_RECORD_LEN`]: 5 bytes for its index
    /// and each scalar and reference, and each string or blob's bound and length.
    pub(super) fn event_len(&mut self, e: &Input) {
        let class = e.as_class();
        let (scalars, links) = (self.schema.flatten_input(e).len(), class.references().count());
        let texts: usize =
            class.texts().map(|(_, max, _)| max as usize + if max < 0x80 { 1 } else { 2 }).sum();
        let len = MAX_VARINT * (1 + scalars + links) + texts;
        if class.texts().next().is_some() && len > MAX_RECORD_LEN {
            self.error(
                Diagnostic::error(format!(
                    "event `{}` may take {len} bytes, more than a record's {MAX_RECORD_LEN}",
                    e.name
                ))
                .with_label(e.span, "too long for one record")
                .with_note(format!("{MAX_VARINT} bytes for its index and each of its {scalars} scalars and {links} references, and each string or blob's bound and length ({texts} bytes)"))
                .with_help("shorten its strings and blobs, or split the event"),
            );
        }
    }
}
