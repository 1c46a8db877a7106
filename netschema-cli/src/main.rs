//! The `netschema` command-line tool.
//!
//! ```text
//! netschema check FILE...                     check schemas, print diagnostics
//! netschema gen FILE -o OUT.rs [--crate PATH] generate Rust code for a schema
//! netschema inspect FILE                      print each class's scalar fields
//! netschema profile --schema FILE --trace FILE [options]
//!                                             compare techniques on a recorded trace and
//!                                             print what each field costs
//! ```
//!
//! Exit status: 0 on success, 1 if a schema has errors, a file cannot be read or written, or a
//! profiled technique decoded a frame wrongly, 2 for a usage error.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use netschema_idl::codegen::{self, Options};
use netschema_idl::ir::Schema;

mod inspect;
mod profile;

const USAGE: &str = "\
usage: netschema <command> [args]

commands:
  check FILE...                       check schemas and print every diagnostic
  gen FILE -o OUT.rs [--crate PATH]   generate the Rust module of a schema
                                      (PATH names the runtime crate, default ::netschema)
  inspect FILE                        print each class's scalar fields: kind, raw range,
                                      step, raw bits and candidate predictors
  profile --schema FILE.netidl --trace FILE.jsonl [options]
                                      replay a recorded trace (docs/trace-format.md) through
                                      netschema and the techniques it replaces over a lossy
                                      link; print their sizes and speeds, and what each field
                                      costs and which predictors it used
      --latency F                     one-way latency in frames (default 6, at most 15)
      --loss P                        loss of every packet and ack, 0.05 or 5% (default 5%)
      --client NAME                   whose visible set to replay (default: the first
                                      client named in the trace, else everything)
      --all-clients                   replay every client's visible set, one table each
      --rate HZ                       frames per second (default: the trace's, else 60)
      --technique NAME                only this technique (repeatable; default all)
      --train FILE                    another trace of the same game, on which the
                                      techniques with static tables (Q3, naia-zd) train
                                      them (default: the replayed trace itself)
      --seed S                        seed of the link's losses (default 1)
      --json FILE                     also write the figures as JSON
      --plot FILE                     also plot bytes per frame (SVG)
  help                                print this message";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    match command.as_str() {
        "check" => check(rest),
        "gen" => generate(rest),
        "inspect" => inspect::inspect(rest),
        "profile" => profile::profile(rest),
        "help" | "-h" | "--help" => {
            println!(
                "{USAGE}\n\nprofile's techniques:\n{}\nprofile's table columns (and JSON keys):\n{}",
                netschema_lab::techniques::legend(),
                netschema_lab::report::columns()
            );
            ExitCode::SUCCESS
        }
        other => usage(&format!("unknown command `{other}`")),
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("error: {message}\n\n{USAGE}");
    ExitCode::from(2)
}

fn load(file: &str) -> Result<Schema, ExitCode> {
    match netschema_idl::load(file) {
        Ok(loaded) => Ok(loaded.schema),
        Err(err) => {
            eprint!("{err}");
            Err(ExitCode::FAILURE)
        }
    }
}

fn check(files: &[String]) -> ExitCode {
    if files.is_empty() {
        return usage("`check` needs at least one file");
    }
    let mut status = ExitCode::SUCCESS;
    for file in files {
        match load(file) {
            Ok(schema) => {
                let fields: usize = schema.classes.iter().map(|c| schema.flatten(c).len()).sum();
                println!(
                    "{file}: ok ({} enums, {} classes, {fields} scalar fields)",
                    schema.enums.len(),
                    schema.classes.len()
                );
            }
            Err(code) => status = code,
        }
    }
    status
}

fn generate(args: &[String]) -> ExitCode {
    let mut input = None;
    let mut output: Option<PathBuf> = None;
    let mut krate = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "-o" | "--out" => match it.next() {
                Some(path) => output = Some(PathBuf::from(path)),
                None => return usage("`-o` needs a file name"),
            },
            "--crate" => match it.next() {
                Some(path) => krate = Some(path.clone()),
                None => return usage("`--crate` needs a path"),
            },
            flag if flag.starts_with('-') && flag != "-" => {
                return usage(&format!("unknown option `{flag}`"));
            }
            file if input.is_none() => input = Some(file.to_owned()),
            file => return usage(&format!("unexpected argument `{file}`: `gen` takes one file")),
        }
    }
    let (Some(input), Some(output)) = (input, output) else {
        return usage("`gen` needs a schema file and `-o OUT.rs`");
    };
    let mut options = Options::new();
    if let Some(path) = krate {
        match Options::parse_crate_path(&path) {
            Ok(path) => options = options.crate_path(path),
            Err(msg) => return usage(&msg),
        }
    }
    let schema = match load(&input) {
        Ok(schema) => schema,
        Err(code) => return code,
    };
    let text = codegen::generate_file(&schema, &options);
    let written = if output == Path::new("-") {
        std::io::stdout().write_all(text.as_bytes())
    } else {
        std::fs::write(&output, text)
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write `{}`: {e}", output.display());
            ExitCode::FAILURE
        }
    }
}
