//! The `netschema` command-line tool: check, format, generate, inspect, profile and train
//! `.netidl` schemas. `netschema --help` lists the commands and `netschema COMMAND --help` their options.
//!
//! Exit status: 0 when everything is in order, 1 when a command has findings (a schema with
//! errors, or with warnings under `--deny-warnings`, a file `fmt --check` would change, a
//! profiled technique that decoded a frame wrongly) or a file cannot be read or written, and 2
//! for a usage error.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod check;
mod completions;
mod diff;
mod error;
mod fmt;
mod generate;
mod inspect;
mod profile;
mod train;

use error::{Error, Outcome};

/// The exit codes, shown at the end of `--help`.
const EXIT_CODES: &str = "\
Exit status: 0 when all is in order; 1 when a command has findings (schema errors, denied
warnings, files `fmt --check` would change, frames a profiled technique decoded wrongly) or a
file cannot be read or written; 2 for a usage error.";

/// Check, format, generate, inspect, profile and train netschema schemas.
#[derive(Debug, Parser)]
#[command(name = "netschema", version, propagate_version = true, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Check(check::Args),
    Fmt(fmt::Args),
    Gen(generate::Args),
    Inspect(inspect::Args),
    Profile(profile::Args),
    Train(train::Args),
    Completions(completions::Args),
}

impl Command {
    fn run(self) -> Result<Outcome, Error> {
        match self {
            Command::Check(args) => check::run(&args),
            Command::Fmt(args) => fmt::run(&args),
            Command::Gen(args) => generate::run(args),
            Command::Inspect(args) => inspect::run(&args),
            Command::Profile(args) => profile::run(&args),
            Command::Train(args) => train::run(&args),
            Command::Completions(args) => completions::run(&args),
        }
    }
}

fn main() -> ExitCode {
    // Usage errors exit with 2, `--help` and `--version` with 0.
    let cli = Cli::parse();
    match cli.command.run() {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Findings) => ExitCode::from(1),
        Err(e) => {
            eprint!("{e}");
            ExitCode::from(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    #[test]
    fn the_command_line_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
