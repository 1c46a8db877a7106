//! Inputs and events: `input Move { dir: vec2<fixed(-1, 1, res = 1/127)>; fire: bool; }`,
//! what a client sends the server each tick, and `event Hit { target: ref<Unit>; damage:
//! int(0, 255); }`, what the server sends a client once (see `docs/netidl.md`).

use super::Parser;
use crate::ir::Input;

impl Parser<'_, '_> {
    /// Parses `input Name { fields }` (the current token is `input`).
    pub(super) fn input(&mut self, docs: String) {
        if let Some(input) = self.fields_item("input", "an input", docs) {
            self.out.schema.inputs.push(input);
        }
    }

    /// Parses `event Name { fields }` (the current token is `event`).
    pub(super) fn event(&mut self, docs: String) {
        if let Some(event) = self.fields_item("event", "an event", docs) {
            self.out.schema.events.push(event);
        }
    }

    /// Parses `keyword Name { fields }` (the current token is `keyword`): a struct's body,
    /// without groups or parameters; what the fields may hold is the validator's business.
    fn fields_item(&mut self, keyword: &str, what: &str, docs: String) -> Option<Input> {
        let (name, span, _) = self.item_head(what, false)?;
        let mut item = Input::new(name, []);
        item.docs = docs;
        item.span = span;
        if self.body(keyword, span, |p, docs| item.fields.extend(p.field(docs))) {
            self.out.poisoned.push(span);
        }
        Some(item)
    }
}
