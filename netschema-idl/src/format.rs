//! The canonical layout of a `.netidl` file, comments kept: what `netschema fmt` writes.
//!
//! The style (`docs/netidl.md`): four spaces per level; one field, one group declaration and
//! one import per line, a class's `(every = N, priority = P)` on its line; clauses in the order
//! written; an enum on one line (`enum State { idle, moving }`) when it has no comments and fits in 100
//! columns, else one case per line, each followed by a comma; `{` at the end of its item's
//! line and `}` alone on its own; one space after `:` and `,` and around `=`, none inside `()`, `<>` and
//! `[]`, nor around `/` and after a unary `-`; exactly one blank line between items and after
//! the file's `//!` docs; blank lines inside a body and between imports kept (at most one) but
//! none after `{`; doc comments on their own lines, with one space after `///`; other comments
//! where they were, on their own line or at the end of one; numbers, names and comment text as
//! written. A comment that ends a line in the middle of a field continues the field on the
//! next line, indented one more level.
//!
//! Formatting changes layout only: the formatted text parses to the same schema, and formatting
//! it again changes nothing.
//!
//! ```
//! let text = "enum State{idle,moving,}\nclass Unit{ hp:int( 0,100 ) predict( hold );state:State;}";
//! let formatted = netschema_idl::format("unit.netidl", text).unwrap();
//! assert_eq!(
//!     formatted,
//!     "enum State { idle, moving }\n\nclass Unit {\n    hp: int(0, 100) predict(hold);\n    state: State;\n}\n"
//! );
//! ```

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::lexer::{self, Tok, Token};
use crate::parser;
use crate::source::SourceMap;

/// The widest line an enum is collapsed onto.
const MAX_WIDTH: usize = 100;

/// `text` in the canonical layout. `name` is the file name shown in diagnostics: a text with
/// syntax errors is not formatted, and they are returned instead. Only syntax is checked (not
/// names, ranges or imports), so a file can be formatted before its imports exist.
pub fn format(name: &str, text: &str) -> Result<String, Diagnostics> {
    let mut sources = SourceMap::new();
    let file = sources.add(name, text);
    let mut diags = Vec::new();
    if u32::try_from(text.len()).is_err() {
        diags.push(Diagnostic::error("schema file is larger than 4 GiB"));
        return Err(Diagnostics::new(diags, sources));
    }
    parser::parse(file, text, &mut diags);
    if !diags.is_empty() {
        return Err(Diagnostics::new(diags, sources));
    }
    let tokens = lexer::lex(file, text, &mut diags);
    let mut printer = Printer::new(text, &tokens);
    printer.run();
    Ok(printer.out)
}

/// What a top-level line starts with, for the blank lines between items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Line {
    /// Nothing printed yet.
    Start,
    /// `//!`.
    FileDoc,
    /// `///` or another comment.
    Comment,
    /// `import "…";`, `models …;` or `rate …;`.
    Import,
    /// `enum`, `struct`, `class` or `input`.
    Item,
    /// The `}` closing an item.
    ItemEnd,
}

struct Printer<'a> {
    text: &'a str,
    tokens: &'a [Token],
    out: String,
    /// The line being built, without its indentation.
    line: String,
    /// Its indentation level.
    line_indent: usize,
    /// Brace depth.
    depth: usize,
    /// Depth of `(`, `[` and `<` inside the current field or import.
    nesting: usize,
    /// Whether a field, case or import has started and not ended.
    in_statement: bool,
    /// Whether the innermost body is an enum's.
    in_enum: bool,
    /// Whether the next item body is an enum's (`enum` seen, `{` not yet).
    enum_next: bool,
    /// Whether nothing was printed yet in the body just opened.
    body_start: bool,
    /// The last top-level line started.
    last: Line,
    /// The kind of the last token printed.
    prev: Option<Tok>,
}

impl<'a> Printer<'a> {
    fn new(text: &'a str, tokens: &'a [Token]) -> Self {
        Printer {
            text,
            tokens,
            out: String::with_capacity(text.len() + text.len() / 8),
            line: String::new(),
            line_indent: 0,
            depth: 0,
            nesting: 0,
            in_statement: false,
            in_enum: false,
            enum_next: false,
            body_start: false,
            last: Line::Start,
            prev: None,
        }
    }

    fn text_of(&self, t: Token) -> &'a str {
        self.text.get(t.span.range()).unwrap_or("")
    }

    /// The number of line breaks in the source just before token `i`.
    fn breaks_before(&self, i: usize) -> usize {
        let end = match i.checked_sub(1) {
            Some(p) => self.tokens[p].span.end as usize,
            None => return 1,
        };
        let start = self.tokens[i].span.start as usize;
        self.text.get(end..start).map_or(0, |gap| gap.matches('\n').count())
    }

    /// The kind of the next token after `i` that is not a comment.
    fn next_code(&self, i: usize) -> Tok {
        self.tokens[i + 1..]
            .iter()
            .map(|t| t.kind)
            .find(|k| !matches!(k, Tok::Comment | Tok::DocOuter | Tok::DocInner))
            .unwrap_or(Tok::Eof)
    }

    fn run(&mut self) {
        let mut i = 0;
        while i < self.tokens.len() {
            let t = self.tokens[i];
            match t.kind {
                Tok::Eof => break,
                Tok::Comment | Tok::DocOuter | Tok::DocInner => self.comment(i),
                Tok::LBrace if self.tokens.get(i + 1).is_some_and(|n| n.kind == Tok::RBrace) => {
                    // An empty body stays on the item's line: `{}`.
                    self.word(i, "{}");
                    self.close_item(i + 1);
                    i += 1;
                }
                _ => i = self.code(i),
            }
            i += 1;
        }
        self.end_line();
    }

    /// Whether `line` (a top-level line of kind `kind`) is preceded by a blank line, given
    /// whether the source had one.
    fn blank_before(&self, kind: Line, had_blank: bool) -> bool {
        if self.out.is_empty() || self.in_statement {
            return false;
        }
        if self.depth > 0 {
            return had_blank && !self.body_start;
        }
        match (self.last, kind) {
            (Line::ItemEnd, _) => true,
            (Line::FileDoc, k) => k != Line::FileDoc || had_blank,
            (Line::Import, Line::Item) => true,
            _ => had_blank,
        }
    }

    /// Starts a line for token `i` of top-level kind `kind`.
    fn start_line(&mut self, i: usize, kind: Line) {
        self.end_line();
        if self.blank_before(kind, self.breaks_before(i) >= 2) {
            self.out.push('\n');
        }
        if self.depth == 0 && !self.in_statement {
            self.last = kind;
        }
        self.body_start = false;
        self.line_indent = self.depth + usize::from(self.in_statement);
    }

    /// Ends the line after token `i`, unless a comment follows on the same source line (it
    /// then ends the line itself).
    fn end_line_at(&mut self, i: usize) {
        let trailing = self
            .tokens
            .get(i + 1)
            .is_some_and(|n| n.kind == Tok::Comment && self.breaks_before(i + 1) == 0);
        if !trailing {
            self.end_line();
        }
    }

    fn end_line(&mut self) {
        if self.line.is_empty() {
            return;
        }
        for _ in 0..self.line_indent {
            self.out.push_str("    ");
        }
        self.out.push_str(self.line.trim_end());
        self.out.push('\n');
        self.line.clear();
        self.prev = None;
    }

    /// Appends `text` (of token `i`) to the current line, with a space before it if the
    /// previous token and this one call for one.
    fn word(&mut self, i: usize, text: &str) {
        let kind = self.tokens[i].kind;
        if self.line.is_empty() {
            let line = match kind {
                Tok::Ident if matches!(text, "enum" | "struct" | "class" | "input" | "event") => {
                    Line::Item
                }
                Tok::Ident if matches!(text, "import" | "models" | "rate") => Line::Import,
                _ => Line::Comment,
            };
            self.start_line(i, line);
        } else if self.prev.is_some_and(|prev| spaced(prev, kind)) {
            self.line.push(' ');
        }
        self.line.push_str(text);
        self.prev = Some(kind);
    }

    fn comment(&mut self, i: usize) {
        let t = self.tokens[i];
        let text = self.text_of(t).trim_end();
        let block = text.starts_with("/*");
        let trailing =
            t.kind == Tok::Comment && !self.line.is_empty() && self.breaks_before(i) == 0;
        if trailing {
            // The last case of an enum gets its comma before a comment that ends its line.
            if self.in_enum
                && self.depth > 0
                && self.prev == Some(Tok::Ident)
                && self.next_code(i) == Tok::RBrace
            {
                self.line.push(',');
                self.in_statement = false;
            }
            self.line.push(' ');
            self.line.push_str(text);
            self.prev = Some(Tok::Comment);
            // A block comment after the end of a field, case or brace ends its line too.
            if !block || !self.in_statement {
                self.end_line();
            }
            return;
        }
        let kind = if t.kind == Tok::DocInner { Line::FileDoc } else { Line::Comment };
        self.start_line(i, kind);
        self.line.push_str(&match t.kind {
            Tok::DocOuter | Tok::DocInner => doc(text),
            _ => text.to_owned(),
        });
        self.end_line();
    }

    /// Prints token `i` and returns the index of the last token printed (later than `i` when
    /// an enum body went on one line).
    fn code(&mut self, i: usize) -> usize {
        let t = self.tokens[i];
        let text = self.text_of(t);
        match t.kind {
            Tok::LBrace if self.enum_next && self.depth == 0 => {
                if let Some(close) = self.one_line_enum(i) {
                    self.close_item(close);
                    return close;
                }
                self.open_body(i);
            }
            Tok::LBrace => self.open_body(i),
            Tok::RBrace => {
                if self.in_enum && self.in_statement {
                    self.line.push(',');
                }
                self.in_statement = false;
                self.end_line();
                self.depth = self.depth.saturating_sub(1);
                self.line_indent = self.depth;
                self.line.push('}');
                self.prev = Some(Tok::RBrace);
                self.close_item(i);
            }
            Tok::Semi if self.nesting == 0 => {
                self.word(i, ";");
                self.in_statement = false;
                self.end_line_at(i);
            }
            Tok::Comma if self.in_enum && self.depth > 0 && self.nesting == 0 => {
                self.word(i, ",");
                self.in_statement = false;
                self.end_line_at(i);
            }
            _ => {
                match t.kind {
                    Tok::LParen | Tok::LBracket | Tok::Lt => self.nesting += 1,
                    Tok::RParen | Tok::RBracket | Tok::Gt => {
                        self.nesting = self.nesting.saturating_sub(1);
                    }
                    Tok::Ident if self.depth == 0 && !self.in_statement => {
                        self.enum_next = text == "enum";
                    }
                    _ => {}
                }
                self.word(i, text);
                self.in_statement = true;
            }
        }
        i
    }

    /// Prints the `{` (token `i`) opening a body laid out one member per line.
    fn open_body(&mut self, i: usize) {
        self.word(i, "{");
        self.end_line_at(i);
        self.depth += 1;
        self.in_enum = self.enum_next;
        self.in_statement = false;
        self.body_start = true;
    }

    /// Prints the enum body opening at token `i` on the current line, `{ a, b }`, if it holds
    /// only cases and commas and the line fits; returns the index of its `}`.
    fn one_line_enum(&mut self, i: usize) -> Option<usize> {
        let mut cases = Vec::new();
        let mut close = None;
        for (k, t) in self.tokens.iter().enumerate().skip(i + 1) {
            match t.kind {
                Tok::Ident => cases.push(self.text_of(*t)),
                Tok::Comma => {}
                Tok::RBrace => {
                    close = Some(k);
                    break;
                }
                _ => return None,
            }
        }
        let close = close?;
        let body = format!(" {{ {} }}", cases.join(", "));
        if self.line.len() + body.len() > MAX_WIDTH || cases.is_empty() {
            return None;
        }
        self.line.push_str(&body);
        self.prev = Some(Tok::RBrace);
        Some(close)
    }

    /// After the `}` (token `i`, or the `}` of `{}`) of an item body.
    fn close_item(&mut self, i: usize) {
        self.end_line_at(i);
        self.in_enum = false;
        self.in_statement = false;
        if self.depth == 0 {
            self.last = Line::ItemEnd;
        }
    }
}

/// Whether a space separates tokens of kinds `prev` and `next` on a line.
fn spaced(prev: Tok, next: Tok) -> bool {
    !matches!(
        next,
        Tok::RParen
            | Tok::RBracket
            | Tok::Gt
            | Tok::Comma
            | Tok::Semi
            | Tok::Colon
            | Tok::LParen
            | Tok::Lt
            | Tok::Slash
    ) && !matches!(prev, Tok::LParen | Tok::LBracket | Tok::Lt | Tok::Minus | Tok::Slash)
}

/// A doc comment with one space after its `///` or `//!` (unless it is empty or already
/// starts with white space, which would change its text).
fn doc(text: &str) -> String {
    let (marker, rest) = text.split_at(3.min(text.len()));
    if rest.is_empty() || rest.starts_with(char::is_whitespace) {
        text.to_owned()
    } else {
        format!("{marker} {rest}")
    }
}
