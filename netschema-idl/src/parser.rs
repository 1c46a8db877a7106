//! The `.netidl` recursive-descent parser: tokens to IR, with error recovery.
//!
//! Syntax errors are reported and the parser resynchronises at the next `;` or `}` (inside a
//! class or enum) or at the next `enum`/`class`/`import` (at the top level), so one pass
//! reports every error it can. Items whose body had a syntax error are recorded as
//! *poisoned*, so validation does not add follow-on errors about them (an enum whose cases
//! failed to parse is not also reported as empty).

mod clause;
mod input;
mod kind;
mod models;
mod rate;

use crate::diagnostic::Diagnostic;
use crate::hints;
use crate::ir::{Class, Enum, EnumCase, Field, FieldType, Group, Schema, Struct, TypeKind};
use crate::lexer::{self, Tok, Token};
use crate::span::{FileId, Span, Spanned};
use clause::Clauses;
use kind::{KindBuilder, saturate_u32};

/// How deeply kinds may nest (`[vec2<..>; N]` is depth 2); deeper input is rejected.
const MAX_DEPTH: usize = 8;

/// The result of parsing one file.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    /// The file's items (the schema name is left empty; the loader sets it).
    pub(crate) schema: Schema,
    /// The file's imports, in order.
    pub(crate) imports: Vec<Import>,
    /// Spans of items whose bodies had syntax errors.
    pub(crate) poisoned: Vec<Span>,
    /// Whether an `import` was too malformed to follow (its names would be missing).
    pub(crate) broken_import: bool,
}

/// An `import "path";` statement.
#[derive(Debug, Clone)]
pub(crate) struct Import {
    /// The path as written (relative to the importing file).
    pub(crate) path: String,
    /// The string literal.
    pub(crate) span: Span,
}

/// Parses one file, appending syntax errors to `diags`. `text` must be shorter than 4 GiB.
pub(crate) fn parse(file: FileId, text: &str, diags: &mut Vec<Diagnostic>) -> Parsed {
    let mut tokens = lexer::lex(file, text, diags);
    tokens.retain(|t| t.kind != Tok::Comment);
    let mut parser = Parser { text, tokens, pos: 0, diags, out: Parsed::default() };
    parser.file();
    parser.out
}

/// A numeric literal, possibly negated or a ratio.
#[derive(Clone, Copy, Debug)]
struct Num {
    value: f64,
    /// The value if the literal is a plain (possibly negative) integer.
    int: Option<i128>,
    span: Span,
}

/// One argument of a kind: `value` or `name = value`.
#[derive(Clone, Debug)]
struct Arg {
    name: Option<(String, Span)>,
    value: ArgValue,
}

/// The value of an argument: a number, or a list of numbers (`exact = [0, 1]`).
#[derive(Clone, Debug)]
enum ArgValue {
    Num(Num),
    List { items: Vec<Num>, span: Span },
}

struct Parser<'a, 'd> {
    text: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    diags: &'d mut Vec<Diagnostic>,
    out: Parsed,
}

impl<'a> Parser<'a, '_> {
    // ----- token helpers -------------------------------------------------------------------

    fn nth(&self, n: usize) -> Token {
        let last = self.tokens.len().saturating_sub(1);
        self.tokens
            .get((self.pos + n).min(last))
            .copied()
            .unwrap_or(Token { kind: Tok::Eof, span: Span::DETACHED })
    }

    fn tok(&self) -> Token {
        self.nth(0)
    }

    fn at(&self, kind: Tok) -> bool {
        self.tok().kind == kind
    }

    fn at_word(&self, word: &str) -> bool {
        let t = self.tok();
        t.kind == Tok::Ident && self.text_of(t) == word
    }

    fn bump(&mut self) -> Token {
        let t = self.tok();
        if t.kind != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    fn eat(&mut self, kind: Tok) -> Option<Token> {
        if self.at(kind) { Some(self.bump()) } else { None }
    }

    fn text_of(&self, t: Token) -> &'a str {
        self.text.get(t.span.range()).unwrap_or("")
    }

    /// The empty span just after the previous token.
    fn prev_end(&self) -> Span {
        match self.pos.checked_sub(1).and_then(|i| self.tokens.get(i)) {
            Some(t) => t.span.end_point(),
            None => self.tok().span,
        }
    }

    /// The span from `start` to the end of the previous token.
    fn since(&self, start: Span) -> Span {
        start.to(self.prev_end())
    }

    fn describe(&self, t: Token) -> String {
        match t.kind {
            Tok::Eof => "end of file".into(),
            Tok::DocOuter | Tok::DocInner | Tok::Comment => "doc comment".into(),
            Tok::Str | Tok::BadStr => "string literal".into(),
            _ => {
                let text = self.text_of(t);
                if text.chars().count() > 24 {
                    let short: String = text.chars().take(24).collect();
                    format!("`{short}…`")
                } else {
                    format!("`{text}`")
                }
            }
        }
    }

    fn error(&mut self, diag: Diagnostic) {
        self.diags.push(diag);
    }

    /// Reports "expected `what`, found …" at the current token.
    fn expected(&mut self, what: &str) {
        let t = self.tok();
        let found = self.describe(t);
        self.error(
            Diagnostic::error(format!("expected {what}, found {found}"))
                .with_label(t.span, format!("expected {what}")),
        );
    }

    /// Reports a missing terminator `what` just after the previous token.
    fn expected_after(&mut self, what: &str) {
        let t = self.tok();
        let found = self.describe(t);
        let mut diag = Diagnostic::error(format!("expected {what}, found {found}"))
            .with_label(self.prev_end(), format!("expected {what}"));
        if t.kind != Tok::Eof {
            diag = diag.with_secondary(t.span, "unexpected token");
        }
        self.error(diag);
    }

    /// Whether the current token starts a top-level item (`enum X`, `class X`, `input X`,
    /// `import "…"`, or `word X {` with a misspelled keyword).
    fn at_item_start(&self) -> bool {
        let next = self.nth(1).kind;
        (self.at_word("enum")
            || self.at_word("class")
            || self.at_word("struct")
            || self.at_word("input")
            || self.at_word("event")
            || self.at_word("models"))
            && next == Tok::Ident
            || self.at_word("rate") && next == Tok::Int
            || self.at_word("import") && matches!(next, Tok::Str | Tok::BadStr)
            || self.at(Tok::Ident) && next == Tok::Ident && self.nth(2).kind == Tok::LBrace
    }

    /// Whether the current token starts a field (`name:`).
    fn at_field_start(&self) -> bool {
        self.at(Tok::DocOuter) || self.at(Tok::Ident) && self.nth(1).kind == Tok::Colon
    }

    /// Skips to just after the next `;`, or to the next `}` or item start, keeping braces
    /// balanced.
    fn skip_to_field_end(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.tok().kind {
                Tok::Eof => return,
                Tok::Semi if depth == 0 => {
                    self.bump();
                    return;
                }
                Tok::RBrace if depth == 0 => return,
                Tok::RBrace => depth -= 1,
                Tok::LBrace => depth += 1,
                _ if depth == 0 && self.at_item_start() => return,
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips to the next top-level item start (or the end), skipping whole `{ … }` blocks.
    fn skip_item(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.tok().kind {
                Tok::Eof => return,
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth = depth.saturating_sub(1);
                    self.bump();
                    if depth == 0 {
                        return;
                    }
                    continue;
                }
                _ if depth == 0 && self.at_item_start() => return,
                _ => {}
            }
            self.bump();
        }
    }

    /// Collects consecutive `///` comments: the joined text and their span.
    fn docs(&mut self) -> Option<(String, Span)> {
        let first = self.tok().span;
        let mut lines = Vec::new();
        while let Some(t) = self.eat(Tok::DocOuter) {
            lines.push(lexer::doc_text(self.text_of(t)));
        }
        if lines.is_empty() { None } else { Some((lines.join("\n"), self.since(first))) }
    }

    /// Reports and skips `//!` comments after the start of the file; whether there were any.
    fn stray_inner_docs(&mut self) -> bool {
        let mut any = false;
        while let Some(t) = self.eat(Tok::DocInner) {
            any = true;
            self.error(
                Diagnostic::error("file doc comment `//!` after the start of the file")
                    .with_label(t.span, "not at the start of the file")
                    .with_help("`//!` documents the file and must come before any item; use `///` to document the next item"),
            );
        }
        any
    }

    /// Whether a schema-wide statement (`what`, at `span`) was already given (at `first`),
    /// which is reported.
    fn given_twice(&mut self, what: &str, first: Option<Span>, span: Span) -> bool {
        let Some(first) = first else { return false };
        self.error(
            Diagnostic::error(format!("{what} is given twice"))
                .with_label(span, "given again here")
                .with_secondary(first, "first given here"),
        );
        true
    }

    /// Reports doc comments (`docs`) before a statement they cannot document: `what` in the
    /// message, `on` in the help ("use `//` for a comment on …").
    fn undocumentable(&mut self, docs: Option<(String, Span)>, what: &str, on: &str) {
        if let Some((_, span)) = docs {
            self.error(
                Diagnostic::error(format!("doc comments cannot document {what}"))
                    .with_label(span, "this doc comment documents nothing")
                    .with_help(format!("use `//` for a comment on {on}")),
            );
        }
    }

    fn dangling_docs(&mut self, span: Span) {
        self.error(
            Diagnostic::error("doc comment is not followed by anything to document")
                .with_label(span, "this doc comment documents nothing")
                .with_help("doc comments (`///`) go right before an enum, a case, a class or a field; use `//` for other comments"),
        );
    }

    // ----- items -------------------------------------------------------------------------

    fn file(&mut self) {
        let mut file_docs = Vec::new();
        while let Some(t) = self.eat(Tok::DocInner) {
            file_docs.push(lexer::doc_text(self.text_of(t)).to_owned());
        }
        self.out.schema.docs = file_docs.join("\n");
        loop {
            self.stray_inner_docs();
            let docs = self.docs();
            let t = self.tok();
            if t.kind == Tok::Eof {
                if let Some((_, span)) = docs {
                    self.dangling_docs(span);
                }
                return;
            }
            if t.kind == Tok::DocInner {
                if let Some((_, span)) = docs {
                    self.dangling_docs(span);
                }
                continue;
            }
            let docs_text = docs.as_ref().map(|d| d.0.clone()).unwrap_or_default();
            match (t.kind, self.text_of(t)) {
                (Tok::Ident, "import") => {
                    self.undocumentable(docs, "an import", "an import");
                    self.import();
                }
                (Tok::Ident, "enum") => self.enumeration(docs_text),
                (Tok::Ident, "class") => self.class(docs_text),
                (Tok::Ident, "struct") => self.structure(docs_text),
                (Tok::Ident, "input") => self.input(docs_text),
                (Tok::Ident, "event") => self.event(docs_text),
                (Tok::Ident, "models") => {
                    self.undocumentable(docs, "the model policy", "`models`");
                    self.models();
                }
                (Tok::Ident, "rate") => {
                    self.undocumentable(docs, "the rate", "`rate`");
                    self.rate();
                }
                (Tok::Ident, word) if self.at_misspelled_item(word) => {
                    self.misspelled_item(word, t.span, docs_text);
                }
                _ => {
                    self.expected(
                        "`enum`, `struct`, `class`, `input`, `import`, `models` or `rate`",
                    );
                    self.bump();
                    self.skip_item();
                }
            }
        }
    }

    /// Whether `word` (the current token) looks like a misspelled item keyword: close to one
    /// and followed by a name (or a path, for `import`), a keyword of another language
    /// followed by a name, or any word followed by `Name {`.
    fn at_misspelled_item(&self, word: &str) -> bool {
        let next = self.nth(1).kind;
        let close = hints::similar(word, hints::ITEM_KEYWORDS).is_some();
        let foreign = matches!(word, "message" | "table" | "type" | "entity");
        next == Tok::Ident && (close || foreign || self.nth(2).kind == Tok::LBrace)
            || close && matches!(next, Tok::Str | Tok::BadStr)
    }

    /// `word Name ...` where `word` is not an item keyword: reports it, with the keyword it
    /// was probably meant as, and parses the item as that (or, failing a close keyword, as the
    /// class or enum its body looks like), so that the errors inside it show too.
    fn misspelled_item(&mut self, word: &str, span: Span, docs: String) {
        let close = hints::similar(word, hints::ITEM_KEYWORDS);
        let help = match (close, word) {
            (Some(keyword), _) => hints::did_you_mean(keyword),
            (None, "message" | "table" | "type" | "entity") => {
                "classes are declared with `class`".into()
            }
            (None, _) => {
                "items start with `enum`, `struct`, `class`, `input`, `event` or `import`".into()
            }
        };
        self.error(
            Diagnostic::error(format!(
                "expected `enum`, `struct`, `class`, `input`, `event` or `import`, found `{word}`"
            ))
            .with_label(span, "unknown item keyword")
            .with_help(help),
        );
        match close.unwrap_or_else(|| self.body_shape()) {
            "import" => self.import(),
            "enum" => self.enumeration(docs),
            "struct" => self.structure(docs),
            "input" => self.input(docs),
            "event" => self.event(docs),
            _ => self.class(docs),
        }
    }

    /// `class` if the `{ … }` two tokens ahead starts like a class body (`name:`), else `enum`.
    fn body_shape(&self) -> &'static str {
        let field = self.nth(3).kind == Tok::Ident && self.nth(4).kind == Tok::Colon;
        if self.nth(2).kind == Tok::LBrace && !field && self.nth(3).kind == Tok::Ident {
            "enum"
        } else {
            "class"
        }
    }

    fn import(&mut self) {
        self.bump();
        if self.eat(Tok::BadStr).is_some() {
            // Already reported; the rest of the line went into the string.
            self.out.broken_import = true;
            return;
        }
        let Some(t) = self.eat(Tok::Str) else {
            self.out.broken_import = true;
            self.expected("a file path in quotes");
            self.skip_to_field_end();
            return;
        };
        let path = lexer::string_value(self.text_of(t));
        if path.is_empty() {
            self.error(
                Diagnostic::error("empty import path")
                    .with_label(t.span, "expected a path relative to this file"),
            );
        } else {
            self.out.imports.push(Import { path, span: t.span });
        }
        if self.eat(Tok::Semi).is_none() {
            self.expected_after("`;`");
            if !self.at_item_start() && !self.at(Tok::DocOuter) {
                self.skip_to_field_end();
            }
        }
    }

    /// Parses `keyword Name`, then `(parameters)` if `params` and present, then `{`; returns the
    /// name, its span and the parameters, or `None` after recovery.
    fn item_head(&mut self, what: &str, params: bool) -> Option<(String, Span, Vec<Arg>)> {
        self.bump();
        let Some(name) = self.eat(Tok::Ident) else {
            self.expected(&format!("{what} name"));
            self.skip_item();
            return None;
        };
        let args = if params && self.eat(Tok::LParen).is_some() {
            self.args().unwrap_or_default()
        } else {
            Vec::new()
        };
        if self.eat(Tok::LBrace).is_none() {
            self.expected("`{`");
            self.skip_item();
            return None;
        }
        Some((self.text_of(name).to_owned(), name.span, args))
    }

    /// Reports an unclosed `{` of the item named at `name`.
    fn unclosed(&mut self, what: &str, name: Span) {
        let t = self.tok();
        let found = self.describe(t);
        self.error(
            Diagnostic::error(format!("expected `}}`, found {found}"))
                .with_label(t.span, "expected `}`")
                .with_secondary(name, format!("this {what} is not closed")),
        );
    }

    fn enumeration(&mut self, docs: String) {
        let Some((name, span, _)) = self.item_head("an enum", false) else {
            return;
        };
        let mut cases = Vec::new();
        let mut poisoned = false;
        loop {
            poisoned |= self.stray_inner_docs();
            let case_docs = self.docs();
            if self.at(Tok::RBrace) || self.at(Tok::Eof) || self.at_item_start() {
                if let Some((_, span)) = case_docs {
                    self.dangling_docs(span);
                    poisoned = true;
                }
                if self.eat(Tok::RBrace).is_none() {
                    self.unclosed("enum", span);
                    poisoned = true;
                }
                break;
            }
            let Some(t) = self.eat(Tok::Ident) else {
                self.expected("an enum case");
                poisoned = true;
                self.skip_to_case_end();
                continue;
            };
            cases.push(EnumCase {
                name: self.text_of(t).to_owned(),
                docs: case_docs.map(|d| d.0).unwrap_or_default(),
                span: t.span,
            });
            if self.eat(Tok::Comma).is_some() || self.at(Tok::RBrace) {
                continue;
            }
            poisoned = true;
            if self.at(Tok::Ident) || self.at(Tok::DocOuter) {
                self.expected_after("`,`");
            } else {
                self.expected("`,` or `}`");
                self.skip_to_case_end();
            }
        }
        if poisoned {
            self.out.poisoned.push(span);
        }
        self.out.schema.enums.push(Enum { name, docs, cases, span });
    }

    /// Skips to just after the next `,`, or to the next `}` or item start.
    fn skip_to_case_end(&mut self) {
        loop {
            match self.tok().kind {
                Tok::Eof | Tok::RBrace => return,
                Tok::Comma => {
                    self.bump();
                    return;
                }
                _ if self.at_item_start() => return,
                _ => {
                    self.bump();
                }
            }
        }
    }

    fn class(&mut self, docs: String) {
        let Some((name, span, params)) = self.item_head("a class", true) else {
            return;
        };
        let schedule = self.schedule(params, "a class");
        let mut class = Class::new(name, []).with_schedule(schedule);
        class.docs = docs;
        class.span = span;
        let poisoned = self.body("class", span, |p, docs| {
            if p.at_word("group") && p.nth(1).kind != Tok::Colon {
                class.groups.extend(p.group(docs));
            } else {
                class.fields.extend(p.field(docs));
            }
        });
        if poisoned {
            self.out.poisoned.push(span);
        }
        self.out.schema.classes.push(class);
    }

    /// Parses the members of the body of `what` (an item declared at `span`) up to its `}`,
    /// handing `member` each with its docs; returns whether any went wrong (a member's
    /// diagnostics, stray or dangling docs, or a missing `}`).
    fn body(&mut self, what: &str, span: Span, mut member: impl FnMut(&mut Self, String)) -> bool {
        let mut poisoned = false;
        loop {
            poisoned |= self.stray_inner_docs();
            let member_docs = self.docs();
            if self.at(Tok::RBrace) || self.at(Tok::Eof) || self.at_item_start() {
                if let Some((_, span)) = member_docs {
                    self.dangling_docs(span);
                    poisoned = true;
                }
                if self.eat(Tok::RBrace).is_none() {
                    self.unclosed(what, span);
                    poisoned = true;
                }
                return poisoned;
            }
            let errors = self.diags.len();
            member(self, member_docs.map(|d| d.0).unwrap_or_default());
            poisoned |= self.diags.len() > errors;
        }
    }

    /// Parses `struct Name { fields }`: a class body without groups or parameters.
    fn structure(&mut self, docs: String) {
        let Some((name, span, _)) = self.item_head("a struct", false) else {
            return;
        };
        let mut s = Struct::new(name, []);
        s.docs = docs;
        s.span = span;
        if self.body("struct", span, |p, docs| s.fields.extend(p.field(docs))) {
            self.out.poisoned.push(span);
        }
        self.out.schema.structs.push(s);
    }

    /// Parses `group name (parameters)? ;`, or returns `None` after recovering to the end of
    /// the declaration.
    fn group(&mut self, docs: String) -> Option<Group> {
        self.bump();
        let Some(name) = self.eat(Tok::Ident) else {
            self.expected("a group name");
            self.skip_to_field_end();
            return None;
        };
        let params = if self.eat(Tok::LParen).is_some() { self.args() } else { Some(Vec::new()) };
        let schedule = params.map(|params| self.schedule(params, "a group"));
        self.end_member("group declarations");
        let mut group = Group::new(self.text_of(name), schedule?);
        group.docs = docs;
        group.span = name.span;
        Some(group)
    }

    /// Parses one field, or returns `None` if it could not be built (after recovering to the
    /// end of the field).
    fn field(&mut self, docs: String) -> Option<Field> {
        let Some(name) = self.eat(Tok::Ident) else {
            self.expected("a field name");
            self.bump();
            self.skip_to_field_end();
            return None;
        };
        if self.eat(Tok::Colon).is_none() {
            let word = self.text_of(name);
            let t = self.tok();
            let found = self.describe(t);
            let mut diag = Diagnostic::error(format!(
                "expected `:` after the field name `{word}`, found {found}"
            ))
            .with_label(t.span, "expected `:`");
            if t.kind == Tok::Ident {
                diag = diag.with_help("fields are written `name: kind;`");
            }
            self.error(diag);
            self.skip_to_field_end();
            return None;
        }
        let Some(ty) = self.ty(0) else {
            self.skip_to_field_end();
            return None;
        };
        let Clauses { predict, tolerance, group, timeline } = self.clauses();
        self.end_member("fields");
        let mut field = Field::new(self.text_of(name), ty);
        field.docs = docs;
        field.predict = predict;
        field.tolerance = tolerance;
        field.group = group;
        field.timeline = timeline;
        field.span = name.span;
        Some(field)
    }

    /// Expects the `;` ending a field or group declaration (`what`, plural), recovering to the
    /// next member without one.
    fn end_member(&mut self, what: &str) {
        if self.eat(Tok::Semi).is_some() {
            return;
        }
        if self.at(Tok::Comma) {
            let t = self.bump();
            self.error(
                Diagnostic::error("expected `;`, found `,`")
                    .with_label(t.span, "expected `;`")
                    .with_help(format!("{what} end with `;`")),
            );
        } else {
            self.expected_after("`;`");
            if !(self.at(Tok::RBrace) || self.at_field_start() || self.at_item_start()) {
                self.skip_to_field_end();
            }
        }
    }

    /// Skips to just after the `)` closing the current parenthesis (or to a `;`/`}`).
    fn skip_in_parens(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.tok().kind {
                Tok::Eof | Tok::Semi | Tok::RBrace | Tok::LBrace => return,
                Tok::LParen => depth += 1,
                Tok::RParen => {
                    self.bump();
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                    continue;
                }
                _ => {}
            }
            self.bump();
        }
    }

    // ----- kinds -------------------------------------------------------------------------

    fn ty(&mut self, depth: usize) -> Option<FieldType> {
        let start = self.tok();
        if depth >= MAX_DEPTH {
            self.error(
                Diagnostic::error("field kind nested too deeply")
                    .with_label(start.span, format!("more than {MAX_DEPTH} levels of nesting")),
            );
            return None;
        }
        match start.kind {
            Tok::LBracket => self.array(depth),
            Tok::Ident => self.named_kind(depth),
            _ => {
                self.expected("a field kind");
                None
            }
        }
    }

    fn array(&mut self, depth: usize) -> Option<FieldType> {
        let open = self.bump().span;
        let elem = self.ty(depth + 1)?;
        if self.eat(Tok::Semi).is_none() {
            self.expected_after("`;`");
            if let Some(last) = self.diags.last_mut() {
                last.help = Some("arrays are written `[kind; length]`".into());
            }
            return None;
        }
        let len = self.number()?;
        let Some(int) = len.int else {
            self.error(
                Diagnostic::error("array length must be an integer")
                    .with_label(len.span, "not an integer"),
            );
            return None;
        };
        if self.eat(Tok::RBracket).is_none() {
            self.expected("`]`");
            return None;
        }
        Some(FieldType {
            kind: TypeKind::Array {
                elem: Box::new(elem),
                len: Spanned::new(saturate_u32(int), len.span),
            },
            span: self.since(open),
        })
    }

    fn named_kind(&mut self, depth: usize) -> Option<FieldType> {
        let name_tok = self.bump();
        let name = self.text_of(name_tok);
        let (generic, bound) = if self.eat(Tok::Lt).is_some() {
            // A bound alone (`string<N>`), or a kind and perhaps a bound (`list<K, N>`).
            let bare = matches!(self.tok().kind, Tok::Int | Tok::Float | Tok::Minus);
            let inner = if bare { None } else { Some(self.ty(depth + 1)?) };
            let bound =
                if bare || self.eat(Tok::Comma).is_some() { Some(self.number()?) } else { None };
            if self.eat(Tok::Gt).is_none() {
                self.expected("`>`");
                return None;
            }
            (inner, bound)
        } else {
            (None, None)
        };
        let args = if self.eat(Tok::LParen).is_some() { Some(self.args()?) } else { None };
        let span = self.since(name_tok.span);
        let kind = KindBuilder::new(name, name_tok.span, span, &mut *self.diags)
            .with_bound(bound)
            .build(generic, args)?;
        Some(FieldType { kind, span })
    }

    /// Parses arguments after `(` up to and including `)`.
    fn args(&mut self) -> Option<Vec<Arg>> {
        let mut args = Vec::new();
        loop {
            if self.eat(Tok::RParen).is_some() {
                return Some(args);
            }
            let name = if self.at(Tok::Ident) && self.nth(1).kind == Tok::Eq {
                let t = self.bump();
                self.bump();
                Some((self.text_of(t).to_owned(), t.span))
            } else {
                None
            };
            let value =
                if self.at(Tok::LBracket) { self.list() } else { self.number().map(ArgValue::Num) };
            let Some(value) = value else {
                self.skip_in_parens();
                return None;
            };
            args.push(Arg { name, value });
            if self.eat(Tok::Comma).is_none() && !self.at(Tok::RParen) {
                self.expected("`,` or `)`");
                self.skip_in_parens();
                return None;
            }
        }
    }

    /// Parses `[` numbers separated by `,` (a trailing one allowed) `]`.
    fn list(&mut self) -> Option<ArgValue> {
        let open = self.bump().span;
        let mut items = Vec::new();
        while self.eat(Tok::RBracket).is_none() {
            items.push(self.number()?);
            if self.eat(Tok::Comma).is_none() && !self.at(Tok::RBracket) {
                self.expected("`,` or `]`");
                return None;
            }
        }
        Some(ArgValue::List { items, span: self.since(open) })
    }

    /// Parses `-`? literal (`/` literal)?.
    fn number(&mut self) -> Option<Num> {
        let start = self.tok().span;
        let negative = self.eat(Tok::Minus).is_some();
        let (mut value, mut int) = self.literal()?;
        if self.eat(Tok::Slash).is_some() {
            let (den, _) = self.literal()?;
            value /= den;
            int = None;
        }
        if negative {
            value = -value;
            int = int.map(|i| -i);
        }
        Some(Num { value, int, span: self.since(start) })
    }

    fn literal(&mut self) -> Option<(f64, Option<i128>)> {
        let t = self.tok();
        if !matches!(t.kind, Tok::Int | Tok::Float) {
            self.expected("a number");
            return None;
        }
        self.bump();
        let digits: String = self.text_of(t).chars().filter(|&c| c != '_').collect();
        let value = digits.parse::<f64>().unwrap_or(f64::INFINITY);
        let int = match t.kind {
            Tok::Int => Some(
                digits
                    .parse::<u128>()
                    .map_or(i128::MAX, |v| i128::try_from(v).unwrap_or(i128::MAX)),
            ),
            _ => None,
        };
        Some((value, int))
    }
}
