//! `netschema gen`: the Rust module of a schema.

use std::io::Write as _;
use std::path::PathBuf;

use netschema_idl::codegen::{self, Options};

use crate::error::{Error, Outcome};

/// Generate the Rust module of a schema.
///
/// The same module `build.rs` writes for `include_schema!`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The schema file (`.netidl`).
    #[arg(value_name = "FILE")]
    input: PathBuf,
    /// Where to write the module (`-` for stdout).
    #[arg(short, long = "out", value_name = "OUT.rs")]
    output: PathBuf,
    /// The path of the runtime crate in the generated code.
    #[arg(long = "crate", value_name = "PATH", default_value = "::netschema",
          value_parser = crate_path)]
    krate: String,
}

/// Checks a `--crate` value (its `syn::Path` is not `Send`, so clap keeps the text).
fn crate_path(text: &str) -> Result<String, String> {
    Options::parse_crate_path(text).map(|_| text.to_owned())
}

pub(crate) fn run(args: Args) -> Result<Outcome, Error> {
    let loaded = crate::check::load(&args.input)?;
    let path = Options::parse_crate_path(&args.krate).map_err(Error::Invalid)?;
    let options = Options::new().crate_path(path);
    let text = codegen::generate_file(&loaded.schema, &options);
    let written = if args.output.as_os_str() == "-" {
        std::io::stdout().write_all(text.as_bytes())
    } else {
        std::fs::write(&args.output, text)
    };
    written.map_err(|source| Error::Write { path: args.output, source })?;
    Ok(Outcome::Clean)
}
