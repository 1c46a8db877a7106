//! The schema's frame rate: `rate 60;` (frames per second; see `docs/netidl.md`).

use super::Parser;
use crate::diagnostic::Diagnostic;
use crate::lexer::Tok;
use crate::limits::MAX_RATE;
use crate::span::Spanned;

impl Parser<'_, '_> {
    /// Parses a `rate` statement (the current token is `rate`) into the schema's rate.
    pub(super) fn rate(&mut self) {
        let start = self.bump().span;
        let Some(num) = self.number() else {
            self.skip_to_field_end();
            return;
        };
        if self.eat(Tok::Semi).is_none() {
            self.expected_after("`;`");
            self.skip_to_field_end();
        }
        let span = self.since(start);
        let Some(hz) = num.int.filter(|&v| (1..=i128::from(MAX_RATE)).contains(&v)) else {
            self.error(
                Diagnostic::error(format!(
                    "the rate must be a whole number of frames per second from 1 to {MAX_RATE}"
                ))
                .with_label(
                    num.span,
                    if num.int.is_some() { "out of range" } else { "not a whole number" },
                )
                .with_help("write the server's tick rate: `rate 60;`"),
            );
            return;
        };
        if !self.given_twice("the rate", self.out.schema.rate.map(|r| r.span), span) {
            self.out.schema.rate = Some(Spanned::new(hz as u32, span));
        }
    }
}
