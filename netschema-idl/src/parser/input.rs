//! Inputs: `input Move { dir: vec2<fixed(-1, 1, res = 1/127)>; fire: bool; }`, what a client
//! sends the server each tick (see `docs/netidl.md`).

use super::Parser;
use crate::ir::Input;

impl Parser<'_, '_> {
    /// Parses `input Name { fields }` (the current token is `input`): a struct's body, without
    /// groups or parameters; what the fields may hold is the validator's business.
    pub(super) fn input(&mut self, docs: String) {
        let Some((name, span, _)) = self.item_head("an input", false) else {
            return;
        };
        let mut input = Input::new(name, []);
        input.docs = docs;
        input.span = span;
        if self.body("input", span, |p, docs| input.fields.extend(p.field(docs))) {
            self.out.poisoned.push(span);
        }
        self.out.schema.inputs.push(input);
    }
}
