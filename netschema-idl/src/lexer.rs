//! The `.netidl` lexer: text to tokens, skipping whitespace. Comments are tokens too
//! ([`Tok::Comment`]), which the parser drops and the formatter keeps.
//!
//! Lexical errors (unexpected characters, unterminated strings and block comments) are
//! reported and skipped, so the parser always gets a token stream ending in [`Tok::Eof`].

use crate::diagnostic::Diagnostic;
use crate::span::{FileId, Span};

/// A token kind; the token's text is found through its span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// `[A-Za-z_][A-Za-z0-9_]*` (keywords are identifiers the parser recognises by text).
    Ident,
    /// Decimal digits with optional `_` separators: `42`, `1_000`.
    Int,
    /// Digits with a fraction and/or an exponent: `0.5`, `1e-3`, `2.5E+2`.
    Float,
    /// `"..."` with the escapes `\"` and `\\`.
    Str,
    /// A string missing its closing quote (already reported).
    BadStr,
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Lt,
    Gt,
    Semi,
    Colon,
    Comma,
    Eq,
    Slash,
    Minus,
    /// `/// text`: documents the next item, case or field.
    DocOuter,
    /// `//! text`: documents the file (allowed only before any item).
    DocInner,
    /// `// text` (also `//// text`) or `/* text */`: not documentation.
    Comment,
    /// End of input (always the last token).
    Eof,
}

/// A token and where it is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token {
    pub(crate) kind: Tok,
    pub(crate) span: Span,
}

/// Splits `text` into tokens, appending lexical errors to `diags`.
pub(crate) fn lex(file: FileId, text: &str, diags: &mut Vec<Diagnostic>) -> Vec<Token> {
    let mut lexer =
        Lexer { file, text, bytes: text.as_bytes(), pos: 0, tokens: Vec::new(), diags, junk: None };
    lexer.run();
    lexer.tokens
}

struct Lexer<'a, 'd> {
    file: FileId,
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    diags: &'d mut Vec<Diagnostic>,
    /// A run of unexpected characters not yet reported (reported as one error).
    junk: Option<(usize, usize)>,
}

impl Lexer<'_, '_> {
    fn span(&self, start: usize, end: usize) -> Span {
        // The caller of `lex` guarantees the text fits in u32 offsets.
        let clamp = |v: usize| u32::try_from(v).unwrap_or(u32::MAX);
        Span::new(self.file, clamp(start), clamp(end))
    }

    fn peek(&self, ahead: usize) -> u8 {
        self.bytes.get(self.pos + ahead).copied().unwrap_or(0)
    }

    fn push(&mut self, kind: Tok, start: usize) {
        self.flush_junk();
        let span = self.span(start, self.pos);
        self.tokens.push(Token { kind, span });
    }

    fn flush_junk(&mut self) {
        if let Some((start, end)) = self.junk.take() {
            let found = &self.text[start..end];
            let (message, label) = if found.chars().count() == 1 {
                (format!("unexpected character `{found}`"), "not valid here")
            } else {
                (format!("unexpected characters `{found}`"), "not valid here")
            };
            let mut diag = Diagnostic::error(message).with_label(self.span(start, end), label);
            if found.starts_with('#') {
                diag = diag.with_help("comments start with `//`");
            }
            self.diags.push(diag);
        }
    }

    fn run(&mut self) {
        while self.pos < self.bytes.len() {
            let start = self.pos;
            let b = self.bytes[self.pos];
            match b {
                b' ' | b'\t' | b'\n' | b'\r' => {
                    self.flush_junk();
                    self.pos += 1;
                }
                b'/' if self.peek(1) == b'/' => self.line_comment(),
                b'/' if self.peek(1) == b'*' => self.block_comment(),
                b'"' => self.string(),
                b'0'..=b'9' => self.number(),
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                    while self.peek(0).is_ascii_alphanumeric() || self.peek(0) == b'_' {
                        self.pos += 1;
                    }
                    self.push(Tok::Ident, start);
                }
                _ => {
                    let kind = match b {
                        b'{' => Some(Tok::LBrace),
                        b'}' => Some(Tok::RBrace),
                        b'(' => Some(Tok::LParen),
                        b')' => Some(Tok::RParen),
                        b'[' => Some(Tok::LBracket),
                        b']' => Some(Tok::RBracket),
                        b'<' => Some(Tok::Lt),
                        b'>' => Some(Tok::Gt),
                        b';' => Some(Tok::Semi),
                        b':' => Some(Tok::Colon),
                        b',' => Some(Tok::Comma),
                        b'=' => Some(Tok::Eq),
                        b'/' => Some(Tok::Slash),
                        b'-' => Some(Tok::Minus),
                        _ => None,
                    };
                    match kind {
                        Some(kind) => {
                            self.pos += 1;
                            self.push(kind, start);
                        }
                        None => self.unexpected(),
                    }
                }
            }
        }
        self.flush_junk();
        let end = self.bytes.len();
        self.tokens.push(Token { kind: Tok::Eof, span: self.span(end, end) });
    }

    /// Skips one unexpected character (a whole UTF-8 sequence), extending the current run.
    fn unexpected(&mut self) {
        let start = self.pos;
        let len = self.text[start..].chars().next().map_or(1, char::len_utf8);
        self.pos += len;
        if self.text[start..self.pos].chars().all(char::is_whitespace) {
            self.flush_junk();
            return;
        }
        self.junk = match self.junk {
            Some((s, _)) => Some((s, self.pos)),
            None => Some((start, self.pos)),
        };
    }

    fn line_comment(&mut self) {
        let start = self.pos;
        while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
            self.pos += 1;
        }
        let text = &self.bytes[start..self.pos];
        if text.starts_with(b"//!") {
            self.push(Tok::DocInner, start);
        } else if text.starts_with(b"///") && !text.starts_with(b"////") {
            self.push(Tok::DocOuter, start);
        } else {
            self.push(Tok::Comment, start);
        }
    }

    fn block_comment(&mut self) {
        self.flush_junk();
        let start = self.pos;
        self.pos += 2;
        let mut depth = 1usize;
        while self.pos < self.bytes.len() {
            if self.bytes[self.pos] == b'/' && self.peek(1) == b'*' {
                depth += 1;
                self.pos += 2;
            } else if self.bytes[self.pos] == b'*' && self.peek(1) == b'/' {
                depth -= 1;
                self.pos += 2;
                if depth == 0 {
                    self.push(Tok::Comment, start);
                    return;
                }
            } else {
                self.pos += 1;
            }
        }
        self.diags.push(
            Diagnostic::error("unterminated block comment")
                .with_label(self.span(start, start + 2), "comment starts here")
                .with_help("close it with `*/` (block comments nest)"),
        );
    }

    fn string(&mut self) {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.bytes.get(self.pos) {
                None | Some(b'\n') => {
                    let end = if self.bytes.get(self.pos.wrapping_sub(1)) == Some(&b'\r') {
                        self.pos - 1
                    } else {
                        self.pos
                    };
                    self.flush_junk();
                    self.diags.push(
                        Diagnostic::error("unterminated string literal")
                            .with_label(self.span(start, end), "missing closing `\"`")
                            .with_help("strings end on the line they start on"),
                    );
                    self.tokens.push(Token { kind: Tok::BadStr, span: self.span(start, end) });
                    return;
                }
                Some(b'"') => {
                    self.pos += 1;
                    self.push(Tok::Str, start);
                    return;
                }
                Some(b'\\') => {
                    let esc = self.pos;
                    self.pos += 1;
                    match self.bytes.get(self.pos) {
                        Some(b'"' | b'\\') => self.pos += 1,
                        _ => {
                            let len = self.text[self.pos..]
                                .chars()
                                .next()
                                .map_or(0, |c| if c == '\n' { 0 } else { c.len_utf8() });
                            self.diags.push(
                                Diagnostic::error("unknown escape in string literal")
                                    .with_label(self.span(esc, self.pos + len), "unknown escape")
                                    .with_help("the only escapes are `\\\"` and `\\\\`"),
                            );
                            self.pos += len;
                        }
                    }
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    fn number(&mut self) {
        let start = self.pos;
        let digits = |lx: &mut Self| {
            while lx.peek(0).is_ascii_digit() || lx.peek(0) == b'_' {
                lx.pos += 1;
            }
        };
        digits(self);
        let mut kind = Tok::Int;
        if self.peek(0) == b'.' && self.peek(1).is_ascii_digit() {
            self.pos += 1;
            digits(self);
            kind = Tok::Float;
        }
        if matches!(self.peek(0), b'e' | b'E') {
            let sign = usize::from(matches!(self.peek(1), b'+' | b'-'));
            if self.peek(1 + sign).is_ascii_digit() {
                self.pos += 1 + sign;
                digits(self);
                kind = Tok::Float;
            }
        }
        self.push(kind, start);
    }
}

/// The value of a string token's text (quotes removed, escapes resolved; an unterminated
/// string yields what it has).
pub(crate) fn string_value(token_text: &str) -> String {
    let inner = token_text.strip_prefix('"').unwrap_or(token_text);
    let inner = inner.strip_suffix('"').unwrap_or(inner);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The text of a doc comment token without its `///` or `//!` marker, one following space and
/// trailing white space.
pub(crate) fn doc_text(token_text: &str) -> &str {
    let rest = token_text.get(3..).unwrap_or("");
    rest.strip_prefix(' ').unwrap_or(rest).trim_end()
}
