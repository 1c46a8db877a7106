//! Source files: the registry diagnostics render from, and where files are read from.

use std::collections::HashMap;
use std::io;
use std::ops::Range;
use std::path::{Component, Path, PathBuf};

use codespan_reporting::files::{self, Files};

use crate::span::{FileId, Span};

/// The source files of one compilation, by [`FileId`]; used to render diagnostics.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

#[derive(Clone, Debug)]
struct SourceFile {
    name: String,
    text: String,
    line_starts: Vec<usize>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Registers a file under a display name (usually its path) and returns its id.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        let text = text.into();
        let line_starts = files::line_starts(&text).collect();
        let id = FileId(u32::try_from(self.files.len()).unwrap_or(u32::MAX - 1));
        self.files.push(SourceFile { name: name.into(), text, line_starts });
        id
    }

    /// The display name of a file.
    pub fn name(&self, id: FileId) -> Option<&str> {
        self.file(id).map(|f| f.name.as_str())
    }

    /// The text of a file.
    pub fn text(&self, id: FileId) -> Option<&str> {
        self.file(id).map(|f| f.text.as_str())
    }

    /// The text a span covers (`None` if the span is detached or out of bounds).
    pub fn snippet(&self, span: Span) -> Option<&str> {
        self.text(span.file)?.get(span.range())
    }

    /// The 1-based line and column (in characters) where a span starts.
    pub fn line_col(&self, span: Span) -> Option<(usize, usize)> {
        let loc = self.location(span.file, span.start as usize).ok()?;
        Some((loc.line_number, loc.column_number))
    }

    /// The number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file is registered.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    fn file(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    fn get(&self, id: FileId) -> Result<&SourceFile, files::Error> {
        self.file(id).ok_or(files::Error::FileMissing)
    }
}

impl<'a> Files<'a> for SourceMap {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, files::Error> {
        Ok(&self.get(id)?.name)
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, files::Error> {
        Ok(&self.get(id)?.text)
    }

    fn line_index(&'a self, id: FileId, byte_index: usize) -> Result<usize, files::Error> {
        let starts = &self.get(id)?.line_starts;
        Ok(starts.binary_search(&byte_index).unwrap_or_else(|next| next.saturating_sub(1)))
    }

    fn line_range(&'a self, id: FileId, line_index: usize) -> Result<Range<usize>, files::Error> {
        let file = self.get(id)?;
        let start = line_start(file, line_index)?;
        let end = line_start(file, line_index + 1)?;
        Ok(start..end)
    }
}

fn line_start(file: &SourceFile, line_index: usize) -> Result<usize, files::Error> {
    use core::cmp::Ordering;
    match line_index.cmp(&file.line_starts.len()) {
        Ordering::Less => Ok(file.line_starts[line_index]),
        Ordering::Equal => Ok(file.text.len()),
        Ordering::Greater => Err(files::Error::LineTooLarge {
            given: line_index,
            max: file.line_starts.len().saturating_sub(1),
        }),
    }
}

/// Where [`load_with`](crate::load_with) reads schema files from.
pub trait FileSource {
    /// Reads the file at `path` (already joined to the importing file's directory and
    /// normalised by [`normalize`]).
    fn read(&self, path: &Path) -> io::Result<String>;
}

/// Reads files from the file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct FsSource;

impl FileSource for FsSource {
    fn read(&self, path: &Path) -> io::Result<String> {
        std::fs::read_to_string(path)
    }
}

/// An in-memory file set, for tests and tools that do not touch the disk.
#[derive(Clone, Debug, Default)]
pub struct MemorySource {
    files: HashMap<PathBuf, String>,
}

impl MemorySource {
    /// An empty file set.
    pub fn new() -> MemorySource {
        MemorySource::default()
    }

    /// Adds (or replaces) the file at `path`.
    pub fn insert(&mut self, path: impl AsRef<Path>, text: impl Into<String>) {
        self.files.insert(normalize(path.as_ref()), text.into());
    }

    /// This file set with the file at `path` added.
    pub fn with(mut self, path: impl AsRef<Path>, text: impl Into<String>) -> MemorySource {
        self.insert(path, text);
        self
    }
}

impl FileSource for MemorySource {
    fn read(&self, path: &Path) -> io::Result<String> {
        self.files
            .get(&normalize(path))
            .cloned()
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such file in the file set"))
    }
}

/// Normalises a path lexically: drops `.` components and resolves `..` against the component
/// before it where there is one (symbolic links are not followed).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                let last = out.components().next_back();
                match last {
                    Some(Component::Normal(_)) => {
                        out.pop();
                    }
                    Some(Component::RootDir | Component::Prefix(_)) => {}
                    _ => out.push(".."),
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}
