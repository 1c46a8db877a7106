//! The error of the compile entry points.

use core::fmt;
use std::path::PathBuf;

use crate::diagnostic::Diagnostics;

/// Why a schema failed to compile: every diagnostic, rendered by `Display` and by `Debug`
/// (so a build script's `fn main() -> Result<(), netschema_idl::Error>` prints them), plus the
/// files read before failing.
#[derive(Clone)]
pub struct Error {
    diagnostics: Diagnostics,
    files: Vec<PathBuf>,
}

impl Error {
    /// An error made of `diagnostics`, after reading `files`.
    pub fn new(diagnostics: Diagnostics, files: Vec<PathBuf>) -> Error {
        Error { diagnostics, files }
    }

    /// The diagnostics, in report order.
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diagnostics
    }

    /// The files that were read (for `cargo::rerun-if-changed`).
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The rendered diagnostics.
    pub fn render(&self) -> String {
        self.diagnostics.render()
    }
}

impl From<Diagnostics> for Error {
    fn from(diagnostics: Diagnostics) -> Error {
        Error::new(diagnostics, Vec::new())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

/// Same as `Display`: the rendered diagnostics.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Error {}
