//! The schema's model policy: `models per_frame;`, `models batched;` or
//! `models batched(batch = B, kept = K);` (see `docs/netidl.md`).

use netschema_runtime::model::ModelPolicy;
use netschema_runtime::model::policy::MAX_KEPT;

use super::{Arg, ArgValue, Parser};
use crate::diagnostic::Diagnostic;
use crate::lexer::Tok;
use crate::span::Spanned;

impl Parser<'_, '_> {
    /// Parses a `models` statement (the current token is `models`) into the schema's policy.
    pub(super) fn models(&mut self) {
        let start = self.bump().span;
        let Some(kind) = self.eat(Tok::Ident) else {
            self.expected("`per_frame` or `batched`");
            self.skip_to_field_end();
            return;
        };
        let args = match self.eat(Tok::LParen) {
            Some(_) => self.args(),
            None => Some(Vec::new()),
        };
        let Some(args) = args else {
            self.skip_to_field_end();
            return;
        };
        if self.eat(Tok::Semi).is_none() {
            self.expected_after("`;`");
            self.skip_to_field_end();
        }
        let policy = match self.text_of(kind) {
            "per_frame" if args.is_empty() => ModelPolicy::PerFrame,
            "per_frame" => {
                self.error(
                    Diagnostic::error("`per_frame` takes no parameters")
                        .with_label(kind.span, "a model set per frame: nothing to choose"),
                );
                return;
            }
            "batched" => match self.batched(args) {
                Some(policy) => policy,
                None => return,
            },
            other => {
                let other = other.to_owned();
                self.error(
                    Diagnostic::error(format!("unknown model policy `{other}`"))
                        .with_label(kind.span, "expected `per_frame` or `batched`")
                        .with_help(
                            "write `models per_frame;` or `models batched(batch = 10, kept = 7);`",
                        ),
                );
                return;
            }
        };
        let span = self.since(start);
        if !self.given_twice("the model policy", self.out.schema.models.map(|m| m.span), span) {
            self.out.schema.models = Some(Spanned::new(policy, span));
        }
    }

    /// The batched policy of `batched(batch = B, kept = K)`, each defaulting to
    /// [`ModelPolicy::BATCHED`]'s; `None` after reporting a bad parameter.
    fn batched(&mut self, args: Vec<Arg>) -> Option<ModelPolicy> {
        let ModelPolicy::Batched { mut batch, mut kept } = ModelPolicy::BATCHED else {
            return None;
        };
        let mut ok = true;
        for arg in args {
            let (name, value) = match (arg.name, arg.value) {
                (Some((name, _)), ArgValue::Num(n)) => (name, n),
                (_, ArgValue::Num(n)) => {
                    self.error(
                        Diagnostic::error("`batched` takes named parameters")
                            .with_label(n.span, "expected `batch = B` or `kept = K`"),
                    );
                    ok = false;
                    continue;
                }
                (_, ArgValue::List { span, .. }) => {
                    self.error(
                        Diagnostic::error("`batched` takes numbers, not lists")
                            .with_label(span, "a list"),
                    );
                    ok = false;
                    continue;
                }
            };
            let (slot, max) = match name.as_str() {
                "batch" => (&mut batch, u8::MAX),
                "kept" => (&mut kept, MAX_KEPT),
                _ => {
                    self.error(
                        Diagnostic::error(format!("`batched` has no parameter `{name}`"))
                            .with_label(value.span, "expected `batch = B` or `kept = K`"),
                    );
                    ok = false;
                    continue;
                }
            };
            match value.int.filter(|&v| (1..=i128::from(max)).contains(&v)) {
                Some(v) => *slot = v as u8,
                None => {
                    self.error(
                        Diagnostic::error(format!("`{name}` must be an integer from 1 to {max}"))
                            .with_label(value.span, "out of range"),
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(ModelPolicy::Batched { batch, kept })
    }
}
