//! Diagnostics: errors and warnings with labelled spans, rendered like rustc.
//!
//! ```text
//! error: `min` must be less than `max`
//!   --> game.netidl:4:13
//!   |
//! 4 |     hp: int(10, 0);
//!   |             ^^  - max
//!   |             |
//!   |             min
//!   |
//!   = help: swap the bounds
//! ```
//!
//! Rendering uses `codespan-reporting` in plain ASCII, without colour, so it is stable enough
//! for golden files. A list of [`Diagnostic`]s is pure data (spans, no text) that any front-end
//! can map to its own reporting; [`Diagnostics`] pairs a sorted list with the [`SourceMap`] it
//! refers to, and renders itself through `Display` and `Debug`.

use core::fmt;

use codespan_reporting::diagnostic as cs;
use codespan_reporting::term::{self, Chars, Config};

use crate::source::SourceMap;
use crate::span::Span;

/// How serious a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The schema does not compile.
    Error,
    /// The schema compiles, but probably not as meant (a value the grid cannot hold exactly).
    Warning,
}

/// One error or warning, with the spans it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Whether this is an error or a warning.
    pub severity: Severity,
    /// The main message: one line, understandable without the source.
    pub message: String,
    /// Labelled spans; the first primary label is where the error is reported.
    pub labels: Vec<Label>,
    /// A suggestion of how to fix the error, rendered as `= help: …`.
    pub help: Option<String>,
    /// Further context, each rendered as `= note: …`.
    pub notes: Vec<String>,
}

/// A span with a short message under it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// What is labelled.
    pub span: Span,
    /// The text under the carets (may be empty).
    pub message: String,
    /// Primary labels (`^^^`) say where the error is; secondary ones (`---`) give context.
    pub primary: bool,
}

impl Diagnostic {
    /// An error with a message and no labels yet.
    pub fn error(message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, message.into())
    }

    /// A warning with a message and no labels yet.
    pub fn warning(message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, message.into())
    }

    fn new(severity: Severity, message: String) -> Diagnostic {
        Diagnostic { severity, message, labels: Vec::new(), help: None, notes: Vec::new() }
    }

    /// Adds a primary label.
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label { span, message: message.into(), primary: true });
        self
    }

    /// Adds a secondary label.
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label { span, message: message.into(), primary: false });
        self
    }

    /// Sets the help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Adds a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Where the error is reported: the first primary label's span, else the first label's.
    pub fn primary_span(&self) -> Option<Span> {
        self.labels.iter().find(|l| l.primary).or(self.labels.first()).map(|l| l.span)
    }

    /// Renders this diagnostic against `sources`, without colour. Labels whose span is not
    /// in `sources` are left out.
    pub fn render(&self, sources: &SourceMap) -> String {
        let mut notes = Vec::with_capacity(self.notes.len() + 1);
        if let Some(help) = &self.help {
            notes.push(format!("help: {help}"));
        }
        notes.extend(self.notes.iter().map(|n| format!("note: {n}")));
        let labels = self
            .labels
            .iter()
            .filter_map(|l| {
                let range = clamp(sources, l.span)?;
                let label = if l.primary {
                    cs::Label::primary(l.span.file, range)
                } else {
                    cs::Label::secondary(l.span.file, range)
                };
                Some(label.with_message(&l.message))
            })
            .collect();
        let severity = match self.severity {
            Severity::Error => cs::Severity::Error,
            Severity::Warning => cs::Severity::Warning,
        };
        let diagnostic = cs::Diagnostic::new(severity)
            .with_message(&self.message)
            .with_labels(labels)
            .with_notes(notes);
        let config = Config { chars: Chars::ascii(), ..Config::default() };
        match term::emit_into_string(&config, sources, &diagnostic) {
            Ok(text) => text.lines().map(|l| format!("{}\n", l.trim_end())).collect(),
            Err(_) => {
                let mut text = format!("{}: {}\n", self.severity.name(), self.message);
                for note in &diagnostic.notes {
                    text.push_str(&format!("  = {note}\n"));
                }
                text.push('\n');
                text
            }
        }
    }
}

impl Severity {
    /// `error` or `warning`, as rendered.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// The byte range of `span` in its file, clamped to the text and to character boundaries, or
/// `None` if the span's file is not in `sources`.
fn clamp(sources: &SourceMap, span: Span) -> Option<core::ops::Range<usize>> {
    let text = sources.text(span.file)?;
    let floor = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(span.start as usize);
    let end = floor(span.end as usize).max(start);
    Some(start..end)
}

/// Sorts diagnostics in the stable report order: unlocated first, then by file, position and
/// message.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        let key = |d: &Diagnostic| d.primary_span().map(|s| (s.file, s.start, s.end));
        key(a).cmp(&key(b)).then_with(|| a.message.cmp(&b.message))
    });
}

/// A sorted list of diagnostics together with the sources they point into.
#[derive(Clone, Default)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
    sources: SourceMap,
}

impl Diagnostics {
    /// Sorts `list` (see [`sort`]) and pairs it with `sources`.
    pub fn new(mut list: Vec<Diagnostic>, sources: SourceMap) -> Diagnostics {
        sort(&mut list);
        Diagnostics { list, sources }
    }

    /// The diagnostics, in report order.
    pub fn iter(&self) -> core::slice::Iter<'_, Diagnostic> {
        self.list.iter()
    }

    /// The number of diagnostics.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The sources the spans point into.
    pub fn sources(&self) -> &SourceMap {
        &self.sources
    }

    /// The diagnostics, in report order.
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.list
    }

    /// The number of diagnostics of `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.list.iter().filter(|d| d.severity == severity).count()
    }

    /// Renders every diagnostic, in order, followed by one summary line per severity present.
    pub fn render(&self) -> String {
        let mut out: String = self.list.iter().map(|d| d.render(&self.sources)).collect();
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        match self.count(Severity::Warning) {
            0 => {}
            n => out.push_str(&format!("warning: {n} warning{} emitted\n", plural(n))),
        }
        match self.count(Severity::Error) {
            0 => {}
            n => out.push_str(&format!("error: aborting due to {n} previous error{}\n", plural(n))),
        }
        out
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = core::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

/// Prints the rendered diagnostics (so `fn main() -> Result<(), _>` shows them).
impl fmt::Debug for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Diagnostics {}
