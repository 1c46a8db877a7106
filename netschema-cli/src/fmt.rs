//! `netschema fmt`: rewrite schemas in the canonical style, or check that they are.

use std::path::PathBuf;

use crate::diff::unified;
use crate::error::{Error, Outcome};

/// Format schemas in the canonical style, keeping comments.
///
/// The style is described in docs/netidl.md. With `--check`, print a diff of what would change
/// and change nothing.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Change no file: print a diff of each file that is not formatted and exit with 1.
    #[arg(long)]
    check: bool,
    /// The schema files (`.netidl`); imports are not followed.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

pub(crate) fn run(args: &Args) -> Result<Outcome, Error> {
    let mut outcome = Outcome::Clean;
    for path in &args.files {
        let text = std::fs::read_to_string(path)
            .map_err(|source| Error::Read { path: path.clone(), source })?;
        let name = path.display().to_string();
        let formatted = match netschema_idl::format(&name, &text) {
            Ok(formatted) => formatted,
            Err(diagnostics) => {
                eprint!("{diagnostics}");
                outcome = Outcome::Findings;
                continue;
            }
        };
        if formatted == text {
            continue;
        }
        if args.check {
            print!("{}", unified(&name, &text, &formatted));
            outcome = Outcome::Findings;
        } else {
            std::fs::write(path, formatted)
                .map_err(|source| Error::Write { path: path.clone(), source })?;
        }
    }
    Ok(outcome)
}
