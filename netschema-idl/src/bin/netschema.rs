//! The `netschema` command-line tool (feature `cli`).
//!
//! ```text
//! netschema check FILE...                     check schemas, print diagnostics
//! netschema gen FILE -o OUT.rs [--crate PATH] generate Rust code for a schema
//! netschema inspect FILE                      print each class's scalar fields
//! ```
//!
//! Exit status: 0 on success, 1 if a schema has errors or a file cannot be written, 2 for a
//! usage error.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use netschema_idl::codegen::{self, Options};
use netschema_idl::ir::{Precision, PredictorSet, Schema};
use netschema_idl::{ScalarField, ScalarKind};
use netschema_runtime::quant::{AngleQuant, BoolQuant, EnumQuant, FixedQuant, IntQuant, QuatQuant};

const USAGE: &str = "\
usage: netschema <command> [args]

commands:
  check FILE...                       check schemas and print every diagnostic
  gen FILE -o OUT.rs [--crate PATH]   generate the Rust module of a schema
                                      (PATH names the runtime crate, default ::netschema)
  inspect FILE                        print each class's scalar fields: kind, raw range,
                                      step, raw bits and candidate predictors
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
        "inspect" => inspect(rest),
        "help" | "-h" | "--help" => {
            println!("{USAGE}");
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

fn inspect(args: &[String]) -> ExitCode {
    let [file] = args else {
        return usage("`inspect` takes one file");
    };
    let schema = match load(file) {
        Ok(schema) => schema,
        Err(code) => return code,
    };
    println!("schema `{}`", schema.name);
    for (index, class) in schema.classes.iter().enumerate() {
        let rows: Vec<[String; 6]> = schema.flatten(class).iter().map(row).collect();
        println!("\nclass {} (id {index}, {} scalar fields)", class.name, rows.len());
        let header = ["field", "kind", "raw range", "step", "bits", "predictors"].map(String::from);
        let mut widths = header.clone().map(|h| h.len());
        for r in &rows {
            for (w, cell) in widths.iter_mut().zip(r) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |cells: &[String; 6]| {
            let parts: Vec<String> =
                cells.iter().zip(widths).map(|(c, w)| format!("{c:<w$}")).collect();
            println!("  {}", parts.join("  ").trim_end());
        };
        line(&header);
        line(&widths.map(|w| "-".repeat(w)));
        for r in &rows {
            line(r);
        }
        let total: u32 = schema.flatten(class).iter().filter_map(|s| raw_bits(&s.kind)).sum();
        println!("  {total} bits per entity written plainly");
    }
    ExitCode::SUCCESS
}

/// Raw range, step and bits as the runtime's quantisers compute them.
struct Quant {
    range: String,
    step: String,
    bits: u32,
}

fn quant(kind: &ScalarKind) -> Option<Quant> {
    let q = |lo: i32, hi: i32, step: String, bits: u32| Quant {
        range: format!("{lo}..={hi}"),
        step,
        bits,
    };
    Some(match kind {
        ScalarKind::Int { min, max } => {
            let q0 = IntQuant::new(*min, *max).ok()?;
            q(q0.raw_min(), q0.raw_max(), "1".into(), q0.bits())
        }
        ScalarKind::Fixed { min, max, precision } => {
            let f = match precision {
                Precision::Resolution(r) => FixedQuant::with_resolution(*min, *max, *r),
                Precision::Bits(b) => FixedQuant::with_bits(*min, *max, *b),
            }
            .ok()?;
            q(f.raw_min(), f.raw_max(), format!("{:.6e}", f.resolution()), f.bits())
        }
        ScalarKind::Angle { bits } => {
            let a = AngleQuant::new(*bits).ok()?;
            q(a.raw_min(), a.raw_max(), format!("{:.6e} rad", a.resolution()), a.bits())
        }
        ScalarKind::QuatComponent { bits } => {
            let c = QuatQuant::new(*bits).ok()?;
            q(c.raw_min(), c.raw_max(), format!("{:.6e}", c.resolution()), c.bits())
        }
        ScalarKind::QuatLargest => {
            let i = QuatQuant::new(2).ok()?.index();
            q(i.raw_min(), i.raw_max(), "-".into(), i.bits())
        }
        ScalarKind::Bool => {
            let b = BoolQuant::new().ok()?;
            q(b.raw_min(), b.raw_max(), "-".into(), b.bits())
        }
        ScalarKind::Enum { cases, .. } => {
            let e = EnumQuant::new(*cases).ok()?;
            q(e.raw_min(), e.raw_max(), "-".into(), e.bits())
        }
    })
}

fn raw_bits(kind: &ScalarKind) -> Option<u32> {
    quant(kind).map(|q| q.bits)
}

fn kind_text(kind: &ScalarKind) -> String {
    match kind {
        ScalarKind::Int { min, max } => format!("int({min}, {max})"),
        ScalarKind::Fixed { min, max, precision } => match precision {
            Precision::Resolution(r) => format!("fixed({min:?}, {max:?}, res = {r:?})"),
            Precision::Bits(b) => format!("fixed({min:?}, {max:?}, bits = {b})"),
        },
        ScalarKind::Angle { bits } => format!("angle(bits = {bits})"),
        ScalarKind::QuatLargest => "quat largest index".into(),
        ScalarKind::QuatComponent { bits } => format!("quat component (bits = {bits})"),
        ScalarKind::Bool => "bool".into(),
        ScalarKind::Enum { name, cases } => format!("enum {name} ({cases} cases)"),
    }
}

fn predictors(set: PredictorSet) -> String {
    if set.is_empty() {
        return "transition model".into();
    }
    set.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
}

fn row(s: &ScalarField) -> [String; 6] {
    let (range, step, bits) = match quant(&s.kind) {
        Some(q) => (q.range, q.step, q.bits.to_string()),
        None => ("invalid".into(), "-".into(), "-".into()),
    };
    [s.path.clone(), kind_text(&s.kind), range, step, bits, predictors(s.predictors)]
}
