//! What a command hands back to `main`: how it went, or why it stopped.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// How a command that ran to its end went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Nothing to report: exit status 0.
    Clean,
    /// Something the user must look at was printed: exit status 1.
    Findings,
}

impl Outcome {
    /// `Findings` if either is.
    pub(crate) fn and(self, other: Outcome) -> Outcome {
        if self == Outcome::Clean { other } else { Outcome::Findings }
    }
}

/// Why a command stopped (exit status 1).
#[derive(Debug)]
pub(crate) enum Error {
    /// A file could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A file could not be written.
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A schema did not compile: its rendered diagnostics.
    Schema(netschema_idl::Error),
    /// A schema compiled, but the runtime rejects its descriptors.
    Descriptors {
        /// The schema file.
        path: PathBuf,
        /// What the runtime said.
        source: Box<netschema_lab::descriptors::SchemaError>,
    },
    /// A trace could not be read.
    Trace {
        /// The trace file.
        path: PathBuf,
        /// The first bad line.
        source: netschema_lab::trace::TraceError,
    },
    /// The input cannot be used as asked (a trace without frames, an unknown client).
    Invalid(String),
    /// A technique failed while replaying the trace.
    Technique(netschema_lab::TechniqueError),
    /// A report could not be written.
    Report(netschema_lab::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read { path, source } => {
                writeln!(f, "error: cannot read `{}`: {source}", path.display())
            }
            Error::Write { path, source } => {
                writeln!(f, "error: cannot write `{}`: {source}", path.display())
            }
            // Rendered diagnostics end with their own summary line.
            Error::Schema(e) => write!(f, "{e}"),
            Error::Descriptors { path, source } => {
                writeln!(f, "error: {}: {source}", path.display())
            }
            Error::Trace { path, source } => writeln!(f, "error: {}: {source}", path.display()),
            Error::Invalid(message) => writeln!(f, "error: {message}"),
            Error::Technique(e) => writeln!(f, "error: {e}"),
            Error::Report(e) => writeln!(f, "error: {e}"),
        }
    }
}

impl std::error::Error for Error {}
