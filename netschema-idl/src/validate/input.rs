//! The rules of inputs (`input Move { ... }`) and events (`event Hit { ... }`): fields as a
//! class's, but exact (no tolerance, also from the structs they hold), sent whole (no
//! `group(...)`, no `timeline(...)`), at least one, and at most [`MAX_INPUT_FIELDS`] scalars
//! for an input, [`MAX_EVENT_FIELDS`] for an event. An input names no entity (no references);
//! an event may, as a class does.

use super::Validator;
use crate::diagnostic::Diagnostic;
use crate::ir::Input;
use crate::limits::{MAX_EVENT_FIELDS, MAX_INPUT_FIELDS};

/// The kind of item of fields checked: an input or an event.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Input,
    Event,
}

impl Kind {
    /// The item's keyword.
    fn word(self) -> &'static str {
        match self {
            Kind::Input => "input",
            Kind::Event => "event",
        }
    }

    /// The item's keyword with its article, for messages.
    fn an(self) -> &'static str {
        match self {
            Kind::Input => "an input",
            Kind::Event => "an event",
        }
    }

    /// Most scalars of the item.
    fn max_scalars(self) -> usize {
        match self {
            Kind::Input => MAX_INPUT_FIELDS,
            Kind::Event => MAX_EVENT_FIELDS,
        }
    }

    /// Why the item is sent whole, for a field's `group` or `timeline` clause.
    fn whole(self) -> &'static str {
        match self {
            Kind::Input => "an input is sent whole every tick",
            Kind::Event => "an event is sent whole, once",
        }
    }
}

impl Validator<'_> {
    /// Checks an input or an event: its field names, that it has fields, each field's kind
    /// and clauses, and its scalars once flattened.
    pub(super) fn fields_item(&mut self, i: &Input, kind: Kind) {
        let (word, an) = (kind.word(), kind.an());
        for f in &i.fields {
            self.ident(&f.name, f.span, "a field", false);
        }
        let scope = format!(" in {word} `{}`", i.name);
        self.duplicates(i.fields.iter().map(|f| (f.name.as_str(), f.span, "field")), &scope);
        if i.fields.is_empty() && !self.poisoned.contains(&i.span) {
            let example = match kind {
                Kind::Input => "`input Move { fire: bool; }`",
                Kind::Event => "`event Hit { damage: int(0, 255); }`",
            };
            self.error(
                Diagnostic::error(format!("{word} `{}` has no fields", i.name))
                    .with_label(i.span, format!("empty {word}"))
                    .with_help(format!("{an} needs at least one field: {example}")),
            );
        }
        if kind == Kind::Event {
            self.link_count(&i.as_class());
            self.text_count(&i.as_class());
            self.event_len(i);
        }
        for f in &i.fields {
            if kind == Kind::Input && f.ty.has_ref() {
                self.error(
                    Diagnostic::error(format!("input `{}` cannot hold a reference", i.name))
                        .with_label(f.ty.span, "a reference in an input")
                        .with_help("references go from the server to its clients, which name entities by handles the server does not share; send what the server needs to find the entity (an `int` of your own ids, a position) instead"),
                );
                continue;
            }
            let owner = (kind == Kind::Input).then_some(("input", i.name.as_str()));
            if self.reference(f, None) || self.text(f, owner) {
                continue;
            }
            self.ty(&f.ty);
            self.predictors(f);
            if let Some(t) = &f.tolerance {
                let help = match kind {
                    Kind::Input => "the server takes exactly what the client pushed",
                    Kind::Event => "the client gets exactly what the server sent",
                };
                self.error(
                    Diagnostic::error(format!("{an}'s field cannot have a tolerance"))
                        .with_label(t.span, format!("{word}s are exact"))
                        .with_help(format!("{help}; remove the tolerance")),
                );
            }
            if let Some(g) = &f.group {
                self.error(
                    Diagnostic::error(format!("{an}'s field cannot have a `group` clause"))
                        .with_label(g.span, "update groups belong to classes")
                        .with_help(format!("{}; remove the `group(...)` clause", kind.whole())),
                );
            }
            if let Some(t) = &f.timeline {
                let help = match kind {
                    Kind::Input => "an input is one value per tick",
                    Kind::Event => "an event is one value, sent once",
                };
                self.error(
                    Diagnostic::error(format!("{an}'s field cannot be a timeline"))
                        .with_label(t.span, "timelines are class fields")
                        .with_help(format!("{help}; remove the `timeline(...)` clause")),
                );
            }
        }
        self.item_scalars(i, kind);
    }

    /// Checks the scalars an input or event flattens into: none with a tolerance from a
    /// struct it holds (its own fields' tolerances are reported at the clause), at most
    /// [`Kind::max_scalars`]. Not with a timeline, whose slots would be counted (it is
    /// reported already).
    fn item_scalars(&mut self, i: &Input, kind: Kind) {
        if i.fields.iter().any(|f| f.timeline.is_some()) {
            return;
        }
        let (word, max) = (kind.word(), kind.max_scalars());
        let scalars = self.schema.flatten_input(i);
        for (index, f) in i.fields.iter().enumerate() {
            let tolerant = scalars.iter().find(|s| s.field == index && s.tolerance > 0);
            if let (None, Some(s)) = (&f.tolerance, tolerant) {
                self.error(
                    Diagnostic::error(format!(
                        "{word} field `{}` holds a struct field with a tolerance",
                        f.name
                    ))
                    .with_label(f.ty.span, format!("`{}` has a tolerance", s.path))
                    .with_help(format!(
                        "{word}s are exact: hold a struct whose fields have no tolerance"
                    )),
                );
            }
        }
        if scalars.len() > max {
            let paths: Vec<&str> = scalars.iter().map(|s| s.path.as_str()).collect();
            let help = match kind {
                Kind::Input => {
                    "a `vec2` is 2 scalars, a `quat` 4, an array one per element: send fewer or smaller fields, and leave what the server knows to its state"
                }
                Kind::Event => {
                    "a `vec2` is 2 scalars, a `quat` 4, an array one per element: send fewer fields, or split the event"
                }
            };
            self.error(
                Diagnostic::error(format!(
                    "{word} `{}` has {} scalar fields, more than the limit of {max}",
                    i.name,
                    scalars.len()
                ))
                .with_label(i.span, "too many scalar fields")
                .with_note(format!("its scalar fields: {}", paths.join(", ")))
                .with_help(help),
            );
        }
    }
}
