//! The clauses after a field's kind (`predict(...)`, `tolerance(V)`, `group(name)`,
//! `timeline(...)`) and the schedule parameters of classes and update groups
//! (`(every = N, priority = P)`).

use super::{Arg, ArgValue, Num, Parser};
use crate::diagnostic::Diagnostic;
use crate::hints;
use crate::ir::{Interp, PredictClause, Predictor, Schedule, TimelineClause};
use crate::lexer::Tok;
use crate::span::{Span, Spanned};

/// The clauses of one field, each `None` when not written (or malformed, and reported).
#[derive(Default)]
pub(super) struct Clauses {
    pub(super) predict: Option<PredictClause>,
    pub(super) tolerance: Option<Spanned<f64>>,
    pub(super) group: Option<Spanned<String>>,
    pub(super) timeline: Option<TimelineClause>,
}

/// A parsed clause.
enum Clause {
    Predict(PredictClause),
    Tolerance(Spanned<f64>),
    Group(Spanned<String>),
    Timeline(TimelineClause),
}

impl Clauses {
    fn set(&mut self, clause: Clause) {
        match clause {
            Clause::Predict(c) => self.predict = Some(c),
            Clause::Tolerance(t) => self.tolerance = Some(t),
            Clause::Group(g) => self.group = Some(g),
            Clause::Timeline(t) => self.timeline = Some(t),
        }
    }
}

impl Parser<'_, '_> {
    /// Whether a clause starts here: a clause name, or a word followed by `(` (a misspelled
    /// clause, reported by [`Self::clause_name`]).
    fn at_clause(&self) -> bool {
        let t = self.tok();
        t.kind == Tok::Ident
            && (hints::CLAUSES.contains(&self.text_of(t)) || self.nth(1).kind == Tok::LParen)
    }

    /// Parses the clauses after a field's kind, in any order. A clause given twice is reported
    /// and the second one dropped.
    pub(super) fn clauses(&mut self) -> Clauses {
        let mut out = Clauses::default();
        let mut seen: Vec<(&'static str, Span)> = Vec::new();
        while self.at_clause() {
            let start = self.tok().span;
            let Some(name) = self.clause_name() else { continue };
            let clause = match name {
                "predict" => self.predict_clause(start).map(Clause::Predict),
                "tolerance" => self.in_parens(Self::tolerance_value).map(Clause::Tolerance),
                "timeline" => self.timeline_clause(start).map(Clause::Timeline),
                _ => self.in_parens(Self::group_name).map(Clause::Group),
            };
            let span = self.since(start);
            if let Some(&(_, first)) = seen.iter().find(|(n, _)| *n == name) {
                let help = match name {
                    "predict" => "list all predictors in one `predict(...)`".to_owned(),
                    _ => format!("a field takes one `{name}(...)` clause"),
                };
                self.error(
                    Diagnostic::error(format!("duplicate `{name}` clause"))
                        .with_label(span, "second clause")
                        .with_secondary(first, "first clause")
                        .with_help(help),
                );
                continue;
            }
            seen.push((name, span));
            if let Some(clause) = clause {
                out.set(clause);
            }
        }
        out
    }

    /// Reads a clause's name: the clause meant, or `None` for a word close to no clause (then
    /// skipped with its parenthesis). Misspellings are reported.
    fn clause_name(&mut self) -> Option<&'static str> {
        let word = self.bump();
        let name = self.text_of(word);
        if let Some(clause) = hints::CLAUSES.into_iter().find(|c| *c == name) {
            return Some(clause);
        }
        let close = hints::similar(name, hints::CLAUSES);
        let help = match close {
            Some(clause) => hints::did_you_mean(clause),
            None => "a field's kind may be followed by `predict(...)`, `tolerance(...)`, `group(...)` and `timeline(...)`".into(),
        };
        self.error(
            Diagnostic::error(format!("unknown clause `{name}`"))
                .with_label(word.span, "not a clause")
                .with_help(help),
        );
        // A close misspelling is read as the clause it was meant to be.
        if close.is_none() {
            self.bump();
            self.skip_in_parens();
        }
        close
    }

    /// Parses `(`, then `inner`, then `)`; `None` (after skipping the parenthesis) if any of
    /// them fails.
    fn in_parens<T>(&mut self, inner: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        if self.eat(Tok::LParen).is_none() {
            self.expected("`(`");
            return None;
        }
        let Some(value) = inner(self) else {
            self.skip_in_parens();
            return None;
        };
        if self.eat(Tok::RParen).is_none() {
            self.expected("`)`");
            self.skip_in_parens();
            return None;
        }
        Some(value)
    }

    fn tolerance_value(&mut self) -> Option<Spanned<f64>> {
        self.number().map(|n| Spanned::new(n.value, n.span))
    }

    fn group_name(&mut self) -> Option<Spanned<String>> {
        let Some(t) = self.eat(Tok::Ident) else {
            self.expected("a group name");
            return None;
        };
        Some(Spanned::new(self.text_of(t).to_owned(), t.span))
    }

    /// Parses the `(name, ...)` of a `predict` clause starting at `start`. Unknown names are
    /// reported and left out; `None` if the clause is malformed or named only unknown
    /// predictors.
    fn predict_clause(&mut self, start: Span) -> Option<PredictClause> {
        if self.eat(Tok::LParen).is_none() {
            self.expected("`(`");
            return None;
        }
        let mut predictors = Vec::new();
        let mut unknown = false;
        loop {
            if self.eat(Tok::RParen).is_some() {
                break;
            }
            let Some(t) = self.eat(Tok::Ident) else {
                self.expected("a predictor name");
                self.skip_in_parens();
                return None;
            };
            let word = self.text_of(t);
            match Predictor::from_name(word) {
                Some(p) => predictors.push(Spanned::new(p, t.span)),
                None => {
                    unknown = true;
                    let help = match hints::similar(word, hints::predictor_names()) {
                        Some(p) => hints::did_you_mean(p),
                        None => "the predictors are zero, hold, linear, quadratic and cubic".into(),
                    };
                    self.error(
                        Diagnostic::error(format!("unknown predictor `{word}`"))
                            .with_label(t.span, "not a predictor")
                            .with_help(help),
                    );
                }
            }
            if self.eat(Tok::Comma).is_none() && !self.at(Tok::RParen) {
                self.expected("`,` or `)`");
                self.skip_in_parens();
                return None;
            }
        }
        if unknown && predictors.is_empty() {
            return None;
        }
        Some(PredictClause { predictors, span: self.since(start) })
    }

    /// Parses the `(interp, ahead = A, history = H, keep = K)` of a `timeline` clause starting
    /// at `start`; the named parameters are optional and in any order. Ranges are checked by
    /// validation.
    fn timeline_clause(&mut self, start: Span) -> Option<TimelineClause> {
        if self.eat(Tok::LParen).is_none() {
            self.expected("`(`");
            return None;
        }
        let Some(t) = self.eat(Tok::Ident) else {
            self.expected("an interpolation (`step`, `linear` or `cubic`)");
            self.skip_in_parens();
            return None;
        };
        let word = self.text_of(t);
        let interp = match word {
            "step" => Interp::Step,
            "linear" => Interp::Linear,
            "cubic" => Interp::Cubic,
            _ => {
                let help = match hints::similar(word, hints::INTERPS) {
                    Some(close) => hints::did_you_mean(close),
                    None => "the interpolations are step, linear and cubic".into(),
                };
                self.error(
                    Diagnostic::error(format!("unknown interpolation `{word}`"))
                        .with_label(t.span, "not an interpolation")
                        .with_help(help),
                );
                self.skip_in_parens();
                return None;
            }
        };
        let mut clause = TimelineClause::new(interp);
        clause.interp.span = t.span;
        let params = if self.eat(Tok::Comma).is_some() {
            self.args()?
        } else if self.eat(Tok::RParen).is_some() {
            Vec::new()
        } else {
            self.expected("`,` or `)`");
            self.skip_in_parens();
            return None;
        };
        for param in params {
            let Some((name, name_span)) = param.name else {
                let span = match &param.value {
                    ArgValue::Num(n) => n.span,
                    ArgValue::List { span, .. } => *span,
                };
                self.error(
                    Diagnostic::error("a timeline's limits are named parameters")
                        .with_label(span, "expected `ahead = A`, `history = H` or `keep = K`"),
                );
                continue;
            };
            let slot = match name.as_str() {
                "ahead" => &mut clause.ahead,
                "history" => &mut clause.history,
                "keep" => &mut clause.keep,
                _ => {
                    let help = match hints::similar(&name, hints::TIMELINE_PARAMS) {
                        Some(close) => hints::did_you_mean(close),
                        None => "a timeline takes `ahead = A`, `history = H` and `keep = K`".into(),
                    };
                    self.error(
                        Diagnostic::error(format!("a timeline has no parameter `{name}`"))
                            .with_label(name_span, "unknown parameter")
                            .with_help(help),
                    );
                    continue;
                }
            };
            match param.value {
                ArgValue::Num(n) if n.int.is_some() => {
                    let value = n.int.map_or(0, super::kind::saturate_i64);
                    *slot = Some(Spanned::new(value, n.span));
                }
                ArgValue::Num(Num { span, .. }) | ArgValue::List { span, .. } => self.error(
                    Diagnostic::error(format!("`{name}` must be an integer"))
                        .with_label(span, "not an integer"),
                ),
            }
        }
        clause.span = self.since(start);
        Some(clause)
    }

    /// Reads `every = N` and `priority = P` from the parameters of `what` (`a class`, `a
    /// group`), reporting anything else. Ranges are checked by validation.
    pub(super) fn schedule(&mut self, params: Vec<Arg>, what: &str) -> Schedule {
        let mut schedule = Schedule::default();
        for param in params {
            let Some((name, name_span)) = param.name else {
                let span = match &param.value {
                    ArgValue::Num(n) => n.span,
                    ArgValue::List { span, .. } => *span,
                };
                self.error(
                    Diagnostic::error(format!("{what} takes named parameters"))
                        .with_label(span, "expected `every = N` or `priority = P`")
                        .with_help("write `(every = N, priority = P)`; both are optional"),
                );
                continue;
            };
            let slot = match name.as_str() {
                "every" => &mut schedule.every,
                "priority" => &mut schedule.priority,
                _ => {
                    let help = match hints::similar(&name, hints::SCHEDULE_PARAMS) {
                        Some(close) => hints::did_you_mean(close),
                        None => format!("{what} takes `every = N` and `priority = P`"),
                    };
                    self.error(
                        Diagnostic::error(format!("{what} has no parameter `{name}`"))
                            .with_label(name_span, "unknown parameter")
                            .with_help(help),
                    );
                    continue;
                }
            };
            if let Some(first) = slot {
                let first = first.span;
                self.error(
                    Diagnostic::error(format!("parameter `{name}` is given twice"))
                        .with_label(name_span, "given again here")
                        .with_secondary(first, "first given here"),
                );
                continue;
            }
            match param.value {
                ArgValue::Num(n) if n.int.is_some() => {
                    let value = n.int.map_or(0, super::kind::saturate_i64);
                    *slot = Some(Spanned::new(value, n.span));
                }
                ArgValue::Num(n) => self.error(
                    Diagnostic::error(format!("`{name}` must be an integer"))
                        .with_label(n.span, "not an integer"),
                ),
                ArgValue::List { span, .. } => self.error(
                    Diagnostic::error(format!("`{name}` takes a number, not a list"))
                        .with_label(span, "a list"),
                ),
            }
        }
        schedule
    }
}
