//! `netschema check`: compile schemas and print every diagnostic.

use std::path::PathBuf;

use netschema_idl::Loaded;

use crate::error::{Error, Outcome};

/// Check schemas and print every error and warning.
///
/// Each file is compiled with its imports; its errors and warnings go to stderr and a summary
/// line to stdout.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The schema files (`.netidl`); each is checked with its imports.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    warnings: WarningArgs,
}

/// `--deny-warnings`, shared by the commands that compile a schema.
#[derive(Debug, clap::Args)]
pub(crate) struct WarningArgs {
    /// Count warnings as findings (exit status 1), for CI.
    #[arg(long)]
    deny_warnings: bool,
}

impl WarningArgs {
    /// Prints the warnings of `loaded` on stderr; `Findings` if there are any and they are
    /// denied.
    pub(crate) fn report(&self, loaded: &Loaded) -> Outcome {
        if loaded.warnings.is_empty() {
            return Outcome::Clean;
        }
        eprint!("{}", loaded.warnings);
        if self.deny_warnings { Outcome::Findings } else { Outcome::Clean }
    }
}

/// Compiles the schema at `path` with its imports.
pub(crate) fn load(path: &std::path::Path) -> Result<Loaded, Error> {
    netschema_idl::load(path).map_err(Error::Schema)
}

pub(crate) fn run(args: &Args) -> Result<Outcome, Error> {
    let mut outcome = Outcome::Clean;
    for file in &args.files {
        match load(file) {
            Ok(loaded) => {
                outcome = outcome.and(args.warnings.report(&loaded));
                let schema = &loaded.schema;
                let fields: usize = schema.classes.iter().map(|c| schema.flatten(c).len()).sum();
                let warnings = match loaded.warnings.len() {
                    0 => String::new(),
                    1 => ", 1 warning".into(),
                    n => format!(", {n} warnings"),
                };
                let inputs = match schema.inputs.len() {
                    0 => String::new(),
                    n => format!(", {n} inputs"),
                };
                let events = match schema.events.len() {
                    0 => String::new(),
                    n => format!(", {n} events"),
                };
                println!(
                    "{}: ok ({} enums, {} classes, {fields} scalar fields{inputs}{events}{warnings})",
                    file.display(),
                    schema.enums.len(),
                    schema.classes.len()
                );
            }
            Err(e) => {
                eprint!("{e}");
                outcome = Outcome::Findings;
            }
        }
    }
    Ok(outcome)
}
