//! The compile entry points: one string, or a root file and its imports.

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::error::Error;
use crate::ir::Schema;
use crate::parser;
use crate::precision;
use crate::source::{FileSource, FsSource, SourceMap, normalize};
use crate::span::{FileId, Span};
use crate::validate::validate_with;

/// A schema loaded from files, with the list of files read (the root first, then imports in
/// the order they were reached), for `cargo::rerun-if-changed`.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The merged, validated schema.
    pub schema: Schema,
    /// Every file read, as normalised paths.
    pub files: Vec<PathBuf>,
    /// Its [`precision`](crate::precision) warnings, with the files they point into.
    pub warnings: Diagnostics,
}

/// Parses and validates one self-contained schema text. `name` is the file name shown in
/// diagnostics; its stem names the schema. `import` is an error here (use [`load_with`] with a
/// [`MemorySource`](crate::MemorySource) to compile several texts).
pub fn parse_str(name: &str, text: &str) -> Result<Schema, Diagnostics> {
    let mut sources = SourceMap::new();
    let mut diags = Vec::new();
    let file = sources.add(name, text);
    if let Some(diag) = too_large(text) {
        return Err(Diagnostics::new(vec![diag], sources));
    }
    let parsed = parser::parse(file, text, &mut diags);
    for import in &parsed.imports {
        diags.push(
            Diagnostic::error("imports are not available when compiling a single text")
                .with_label(import.span, "import here")
                .with_help("load the schema from files (`netschema_idl::load`) to follow imports"),
        );
    }
    let mut schema = parsed.schema;
    schema.name = schema_name(Path::new(name));
    schema.resolve_structs();
    diags.extend(validate_with(&schema, &parsed.poisoned, &[]));
    if diags.is_empty() { Ok(schema) } else { Err(Diagnostics::new(diags, sources)) }
}

/// Loads the schema rooted at `path` from the file system, following imports.
pub fn load(path: impl AsRef<Path>) -> Result<Loaded, Error> {
    load_with(&FsSource, path)
}

/// Loads the schema rooted at `path` from `source`, following imports: each import path is
/// relative to the importing file. The schema is every file reached, merged: imported items
/// come before the importer's (depth-first, in import order), and a file imported twice is
/// read once. Missing files and import cycles are errors; so are all syntax and validation
/// errors, reported together.
pub fn load_with(source: &dyn FileSource, path: impl AsRef<Path>) -> Result<Loaded, Error> {
    let root = normalize(path.as_ref());
    let mut loader = Loader {
        source,
        sources: SourceMap::new(),
        diags: Vec::new(),
        files: Vec::new(),
        seen: HashSet::new(),
        stack: Vec::new(),
        schema: Schema::new(schema_name(&root)),
        poisoned: Vec::new(),
        missing: false,
        order: Vec::new(),
    };
    loader.visit(root, None);
    let Loader { sources, mut diags, files, mut schema, poisoned, missing, order, .. } = loader;
    schema.resolve_structs();
    // With a file missing, names it declares would be reported as unknown: skip validation.
    if !missing {
        diags.extend(validate_with(&schema, &poisoned, &order));
    }
    if diags.is_empty() {
        let warnings = Diagnostics::new(precision::warnings(&schema), sources);
        Ok(Loaded { schema, files, warnings })
    } else {
        Err(Error::new(Diagnostics::new(diags, sources), files))
    }
}

fn schema_name(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

fn too_large(text: &str) -> Option<Diagnostic> {
    (u32::try_from(text.len()).is_err())
        .then(|| Diagnostic::error("schema file is larger than 4 GiB"))
}

fn display(path: &Path) -> String {
    path.display().to_string()
}

struct Loader<'s> {
    source: &'s dyn FileSource,
    sources: SourceMap,
    diags: Vec<Diagnostic>,
    files: Vec<PathBuf>,
    seen: HashSet<PathBuf>,
    /// The files being loaded, root first, each with the span of the import that reached it.
    stack: Vec<(PathBuf, Option<Span>)>,
    schema: Schema,
    poisoned: Vec<Span>,
    /// Whether some file could not be read (or an import could not be parsed).
    missing: bool,
    /// Files in merge order (each after the files it imports).
    order: Vec<FileId>,
}

impl Loader<'_> {
    fn visit(&mut self, path: PathBuf, via: Option<Span>) {
        if let Some(at) = self.stack.iter().position(|(p, _)| *p == path) {
            self.cycle(at, &path, via);
            return;
        }
        if !self.seen.insert(path.clone()) {
            return;
        }
        let text = match self.source.read(&path) {
            Ok(text) => text,
            Err(err) => {
                self.unreadable(&path, &err, via);
                return;
            }
        };
        self.files.push(path.clone());
        let file = self.sources.add(display(&path), text.as_str());
        if let Some(mut diag) = too_large(&text) {
            if let Some(span) = via {
                diag = diag.with_label(span, "imported here");
            }
            self.diags.push(diag);
            return;
        }
        let parsed = parser::parse(file, &text, &mut self.diags);
        self.missing |= parsed.broken_import;
        let is_root = self.stack.is_empty();
        self.stack.push((path.clone(), via));
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        for import in parsed.imports {
            self.visit(normalize(&dir.join(&import.path)), Some(import.span));
        }
        self.stack.pop();
        self.order.push(file);
        if is_root {
            self.schema.docs = parsed.schema.docs;
            self.schema.models = parsed.schema.models;
            self.schema.rate = parsed.schema.rate;
        } else {
            if let Some(models) = parsed.schema.models {
                self.diags.push(
                    Diagnostic::error("an imported file declares a model policy")
                        .with_label(models.span, "only the root file's `models` counts")
                        .with_help(
                            "declare the schema's model policy in the file the build compiles",
                        ),
                );
            }
            if let Some(rate) = parsed.schema.rate {
                self.diags.push(
                    Diagnostic::error("an imported file declares a rate")
                        .with_label(rate.span, "only the root file's `rate` counts")
                        .with_help("declare the schema's rate in the file the build compiles"),
                );
            }
        }
        self.schema.enums.extend(parsed.schema.enums);
        self.schema.classes.extend(parsed.schema.classes);
        self.schema.structs.extend(parsed.schema.structs);
        self.schema.inputs.extend(parsed.schema.inputs);
        self.schema.events.extend(parsed.schema.events);
        self.poisoned.extend(parsed.poisoned);
    }

    fn unreadable(&mut self, path: &Path, err: &io::Error, via: Option<Span>) {
        self.missing = true;
        let reason = match err.kind() {
            io::ErrorKind::NotFound => "file not found".to_owned(),
            io::ErrorKind::InvalidData => "not valid UTF-8".to_owned(),
            _ => err.to_string(),
        };
        let shown = display(path);
        let diag = match via {
            Some(span) => {
                Diagnostic::error(format!("cannot read imported file `{shown}`: {reason}"))
                    .with_label(span, "imported here")
                    .with_help("import paths are relative to the importing file")
            }
            None => Diagnostic::error(format!("cannot read schema file `{shown}`: {reason}")),
        };
        self.diags.push(diag);
    }

    fn cycle(&mut self, at: usize, path: &Path, via: Option<Span>) {
        let mut chain: Vec<String> = self.stack[at..].iter().map(|(p, _)| display(p)).collect();
        chain.push(display(path));
        let mut diag =
            Diagnostic::error(format!("import cycle: `{}` imports itself", display(path)))
                .with_note(format!("import chain: {}", chain.join(" -> ")));
        if let Some(span) = via {
            diag = diag.with_label(span, "this import closes the cycle");
        }
        // Point at the imports that lead around the cycle too.
        for (_, span) in &self.stack[at + 1..] {
            if let Some(span) = span {
                diag = diag.with_secondary(*span, "imported here");
            }
        }
        self.diags.push(diag);
    }
}
