//! The netschema schema compiler: the `.netidl` language, its IR and validation.
//!
//! ```text
//!  .netidl files ──lexer/parser──▶ ir::Schema ◀──(derive lowers #[netschema(...)] here)
//!                                      │
//!                                  validate ──▶ Diagnostics (rendered like rustc)
//!                                      │
//!                                  flatten ──▶ scalar fields in wire order ──▶ code generation
//! ```
//!
//! - [`load`] / [`load_with`] read a root file and its imports through a [`FileSource`],
//!   parse, merge and validate them, and return the [`ir::Schema`] with the files read.
//! - [`parse_str`] does the same for one self-contained text.
//! - [`validate()`] checks hand-built IR (the derive's) with the same rules.
//! - [`ir::Schema::flatten`] lists a class's scalar fields for the codec, each with its
//!   tolerance in raw steps and its update group; [`ir::Class::update_groups`] lists the groups.
//!   An input's are [`ir::Schema::flatten_input`], those of its input schema
//!   ([`ir::Schema::input_schema`]).
//! - [`codegen`] turns the IR into Rust; [`Config`] runs it from `build.rs`.
//! - [`precision::warnings`] says where a kind's grid misses what the schema asks of it
//!   (zero or `exact` values not representable, a step coarser than `max_step`); [`load`]
//!   returns them with the schema.
//! - [`format()`] lays a file out in the canonical style, comments kept (`netschema fmt`).
//!
//! Errors are [`Diagnostic`]s with [`Span`]s; [`Diagnostics`] and [`Error`] render them, all in
//! one pass and in a stable order, through both `Display` and `Debug`. The language itself is
//! described in `docs/netidl.md`.
//!
//! ```
//! let schema = netschema_idl::parse_str(
//!     "demo.netidl",
//!     "enum State { idle, moving }\n\
//!      class Unit { hp: int(0, 100) predict(hold); state: State; }",
//! )
//! .unwrap();
//! let unit = &schema.classes[0];
//! let paths: Vec<_> = schema.flatten(unit).into_iter().map(|s| s.path).collect();
//! assert_eq!(paths, ["hp", "state"]);
//!
//! let err = netschema_idl::parse_str("bad.netidl", "class Unit { hp: int(10, 0); }").unwrap_err();
//! assert!(err.to_string().contains("`min` must be less than `max`"));
//! ```

pub mod codegen;
mod config;
pub mod diagnostic;
mod error;
pub mod flatten;
mod format;
mod hints;
pub mod ir;
mod lexer;
pub mod limits;
mod load;
mod parser;
pub mod precision;
pub mod source;
pub mod span;
pub mod validate;

pub use config::Config;
pub use diagnostic::{Diagnostic, Diagnostics, Label, Severity};
pub use error::Error;
pub use flatten::{ScalarField, ScalarKind, UpdateGroup};
pub use format::format;
pub use load::{Loaded, load, load_with, parse_str};
pub use source::{FileSource, FsSource, MemorySource, SourceMap};
pub use span::{FileId, Span, Spanned};
pub use validate::validate;
