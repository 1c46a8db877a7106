//! Source positions attached to IR nodes and diagnostics.
//!
//! A [`Span`] is an opaque `(file, start, end)` triple. The `.netidl` front-end fills it with
//! byte offsets into a file registered in a [`SourceMap`](crate::SourceMap), which is what the
//! diagnostic renderer understands. Other front-ends are free to use spans their own way: the
//! derive macro, for example, can keep its `proc_macro2::Span`s in a side table, store the
//! table index in `start` under a [`FileId`] of its choosing, and map each
//! [`Diagnostic`](crate::Diagnostic) back through that table. IR built by hand can use
//! [`Span::DETACHED`], which renders without a source snippet.

use core::fmt;

/// Identifies a source file inside a [`SourceMap`](crate::SourceMap) (or a front-end's own table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(pub u32);

impl FileId {
    /// The file id of spans that point nowhere (hand-built IR).
    pub const DETACHED: FileId = FileId(u32::MAX);
}

/// A half-open byte range `start..end` in one file.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// The file the range belongs to.
    pub file: FileId,
    /// First byte of the range.
    pub start: u32,
    /// One past the last byte of the range.
    pub end: u32,
}

impl Span {
    /// A span that points nowhere: used for IR built by hand and by [`Spanned::from`].
    pub const DETACHED: Span = Span { file: FileId::DETACHED, start: 0, end: 0 };

    /// A span over `start..end` in `file` (the bounds are swapped if given backwards).
    pub fn new(file: FileId, start: u32, end: u32) -> Span {
        Span { file, start: start.min(end), end: start.max(end) }
    }

    /// Whether this span points nowhere.
    pub fn is_detached(self) -> bool {
        self.file == FileId::DETACHED
    }

    /// The smallest span covering `self` and `other` (`self` if they are in different files).
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span::new(self.file, self.start.min(other.start), self.end.max(other.end))
    }

    /// The empty span at the end of `self`.
    pub fn end_point(self) -> Span {
        Span::new(self.file, self.end, self.end)
    }

    /// The byte range, for slicing source text.
    pub fn range(self) -> core::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_detached() {
            f.write_str("Span(detached)")
        } else {
            write!(f, "Span({}:{}..{})", self.file.0, self.start, self.end)
        }
    }
}

impl Default for Span {
    fn default() -> Span {
        Span::DETACHED
    }
}

/// A value together with the span it was written at (a parameter of a kind, a predictor, …).
///
/// `Spanned<T>` dereferences to `T`, and `T: Into<Spanned<T>>` gives a detached span, so IR can
/// be written by hand as `FieldType::int(0, 10)` or `TypeKind::Angle { bits: 10.into() }`.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// Where the value was written.
    pub span: Span,
}

impl<T> Spanned<T> {
    /// Pairs `value` with `span`.
    pub fn new(value: T, span: Span) -> Spanned<T> {
        Spanned { value, span }
    }
}

impl<T> From<T> for Spanned<T> {
    fn from(value: T) -> Spanned<T> {
        Spanned::new(value, Span::DETACHED)
    }
}

impl<T> core::ops::Deref for Spanned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}
