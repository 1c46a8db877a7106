//! `netschema completions SHELL`: the shell completion script, on stdout.

use clap::CommandFactory as _;
use clap_complete::Shell;

use crate::error::{Error, Outcome};

/// Print a shell completion script for `netschema`.
///
/// For example `netschema completions bash > ~/.local/share/bash-completion/completions/netschema`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The shell to complete in.
    shell: Shell,
}

pub(crate) fn run(args: &Args) -> Result<Outcome, Error> {
    let mut command = crate::Cli::command();
    clap_complete::generate(args.shell, &mut command, "netschema", &mut std::io::stdout());
    Ok(Outcome::Clean)
}
