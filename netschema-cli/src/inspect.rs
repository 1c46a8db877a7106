//! `netschema inspect FILE`: each class's scalar fields as the runtime sees them.

use std::path::PathBuf;

use netschema_idl::ir::{Precision, PredictorSet};
use netschema_idl::{ScalarField, ScalarKind};
use netschema_lab::descriptors::{Quantiser, RuntimeSchema};
use netschema_runtime::engine::handshake::WIRE_VERSION;

use crate::check::WarningArgs;
use crate::error::{Error, Outcome};

/// Print each class's scalar fields as the runtime sees them.
///
/// Kind, raw range, step, raw bits and candidate predictors; warnings (such as values the grid
/// cannot hold exactly) go to stderr.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The schema file (`.netidl`).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    #[command(flatten)]
    warnings: WarningArgs,
}

pub(crate) fn run(args: &Args) -> Result<Outcome, Error> {
    let loaded = crate::check::load(&args.file)?;
    let outcome = args.warnings.report(&loaded);
    let schema = loaded.schema;
    // The hash both ends compare when connecting: builds that print different hashes refuse
    // each other.
    let runtime = RuntimeSchema::new(&schema).map_err(|source| Error::Descriptors {
        path: args.file.clone(),
        source: Box::new(source),
    })?;
    println!(
        "schema `{}`, hash {:#018x} (wire version {WIRE_VERSION})",
        schema.name, runtime.schema.hash
    );
    for (index, class) in schema.classes.iter().enumerate() {
        let scalars = schema.flatten(class);
        let rows: Vec<[String; 6]> = scalars.iter().map(row).collect();
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
        let total: u32 =
            scalars.iter().filter_map(|s| Quantiser::new(&s.kind).ok()).map(|q| q.bits()).sum();
        println!("  {total} bits per entity written plainly");
    }
    Ok(outcome)
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

/// Step in natural units: 1 for integers, radians for angles, `-` for categorical kinds.
fn step(q: &Quantiser) -> String {
    match (q, q.resolution()) {
        (Quantiser::Int(_), _) => "1".into(),
        (Quantiser::Angle(_), Some(r)) => format!("{r:.6e} rad"),
        (_, Some(r)) => format!("{r:.6e}"),
        (_, None) => "-".into(),
    }
}

fn row(s: &ScalarField) -> [String; 6] {
    let (range, step, bits) = match Quantiser::new(&s.kind) {
        Ok(q) => (format!("{}..={}", q.raw_min(), q.raw_max()), step(&q), q.bits().to_string()),
        Err(_) => ("invalid".into(), "-".into(), "-".into()),
    };
    [s.path.clone(), kind_text(&s.kind), range, step, bits, predictors(s.predictors)]
}
