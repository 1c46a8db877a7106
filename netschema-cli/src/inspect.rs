//! `netschema inspect FILE`: each class's and input's scalar fields as the runtime sees them.

use std::path::PathBuf;

use netschema_idl::ir::{Precision, PredictorSet};
use netschema_idl::{ScalarField, ScalarKind, UpdateGroup};
use netschema_lab::descriptors::{Quantiser, RuntimeSchema};
use netschema_runtime::engine::handshake::WIRE_VERSION;

use crate::check::WarningArgs;
use crate::error::{Error, Outcome};

/// Print each class's and input's scalar fields as the runtime sees them.
///
/// Kind, raw range, step, raw bits, candidate predictors, tolerance and update group, each
/// class's update groups, and each input's input schema hash; warnings (such as values the
/// grid cannot hold exactly) go to stderr.
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
    let descriptors = |ir: &netschema_idl::ir::Schema| {
        RuntimeSchema::new(ir).map_err(|source| Error::Descriptors {
            path: args.file.clone(),
            source: Box::new(source),
        })
    };
    // The hashes both ends compare when connecting: builds that print different hashes refuse
    // each other. A schema of inputs alone has no state, and so no state hash.
    // Its events are part of the state hash, each with an event schema of its own.
    let state = (!schema.classes.is_empty()).then(|| descriptors(&schema)).transpose()?;
    match &state {
        None => println!("schema `{}`, no classes (wire version {WIRE_VERSION})", schema.name),
        Some(runtime) => println!(
            "schema `{}`, hash {:#018x} (wire version {WIRE_VERSION})",
            schema.name, runtime.schema.hash
        ),
    }
    for (index, class) in schema.classes.iter().enumerate() {
        let scalars = schema.flatten(class);
        let groups = class.update_groups();
        println!("\nclass {} (id {index}, {} scalar fields)", class.name, scalars.len());
        if !groups.is_empty() {
            let shown: Vec<String> = groups.iter().map(group_text).collect();
            println!("  update groups: {}", shown.join(", "));
        }
        table(&scalars, &groups, "entity");
        let links: Vec<String> = class
            .references()
            .map(|(f, target)| format!("{} -> {}", f.name, target.unwrap_or("any class")))
            .collect();
        if !links.is_empty() {
            println!("  links: {}", links.join(", "));
        }
        texts(class, "sent once per change");
    }
    for input in &schema.inputs {
        let runtime = descriptors(&schema.input_schema(input))?;
        let scalars = schema.flatten_input(input);
        println!(
            "\ninput {} ({} scalar fields), input schema hash {:#018x}",
            input.name,
            scalars.len(),
            runtime.schema.hash
        );
        table(&scalars, &[], "input");
    }
    let event_schemas = state.as_ref().map_or(&[][..], |s| s.schema.events);
    for (event, runtime) in schema.events.iter().zip(event_schemas) {
        let scalars = schema.flatten_input(event);
        println!(
            "\nevent {} ({} scalar fields), event schema hash {:#018x}",
            event.name,
            scalars.len(),
            runtime.hash
        );
        table(&scalars, &[], "event");
        let class = event.as_class();
        let links: Vec<String> = class
            .references()
            .map(|(f, target)| format!("{} -> {}", f.name, target.unwrap_or("any class")))
            .collect();
        if !links.is_empty() {
            println!("  references: {}", links.join(", "));
        }
        texts(&class, "after the references");
    }
    Ok(outcome)
}

/// Prints the strings and byte blobs of `class`, if any, with when they are sent (`when`).
fn texts(class: &netschema_idl::ir::Class, when: &str) {
    let texts: Vec<String> = class
        .texts()
        .map(|(f, max, utf8)| {
            format!("{}: {}<{max}>", f.name, if utf8 { "string" } else { "bytes" })
        })
        .collect();
    if !texts.is_empty() {
        println!("  texts ({when}): {}", texts.join(", "));
    }
}

/// Prints the table of the scalar fields `scalars` of a class whose update groups are `groups`
/// (an input's: none), and the bits of a value (`what`) written plainly.
fn table(scalars: &[ScalarField], groups: &[UpdateGroup], what: &str) {
    let rows: Vec<[String; COLUMNS]> = scalars.iter().map(|s| row(s, groups)).collect();
    let header = ["field", "kind", "raw range", "step", "bits", "predictors", "tolerance", "group"]
        .map(String::from);
    let mut widths = header.clone().map(|h| h.len());
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String; COLUMNS]| {
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
    println!("  {total} bits per {what} written plainly");
}

/// The columns of a class's table.
const COLUMNS: usize = 8;

/// `slow (every 4 frames, priority 2)`; the default group is called `default`.
fn group_text(g: &UpdateGroup) -> String {
    let name = if g.name.is_empty() { "default" } else { &g.name };
    let frames = if g.interval == 1 { "frame" } else { "frames" };
    format!("{name} (every {} {frames}, priority {})", g.interval, g.priority)
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
        ScalarKind::Presence => "optional presence (0 absent, 1 present)".into(),
        ScalarKind::Enum { name, cases } => format!("enum {name} ({cases} cases)"),
        ScalarKind::KeyTime { interp } => format!("keyframe frame + 1 ({interp:?} timeline)"),
        ScalarKind::KeyFlag => "keyframe slot flag (0 empty, 1 or 2 a keyframe)".into(),
        ScalarKind::ListLink { len } => format!("list link (slot 0..{len}, {len} the end)"),
    }
}

fn predictors(set: PredictorSet) -> String {
    if set.is_empty() {
        return "transition model".into();
    }
    set.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
}

/// `steps` raw steps in natural units: integers for `int`, radians for angles; `-` for
/// categorical kinds.
fn in_units(q: &Quantiser, steps: u32) -> String {
    match (q, q.resolution()) {
        (Quantiser::Int(_), _) => steps.to_string(),
        (Quantiser::Angle(_), Some(r)) => format!("{:.6e} rad", r * f64::from(steps)),
        (_, Some(r)) => format!("{:.6e}", r * f64::from(steps)),
        (_, None) => "-".into(),
    }
}

/// The tolerance in natural units and in raw steps, `-` for an exact field.
fn tolerance(q: &Quantiser, steps: u32) -> String {
    match steps {
        0 => "-".into(),
        1 => format!("{} (1 step)", in_units(q, 1)),
        n => format!("{} ({n} steps)", in_units(q, n)),
    }
}

fn row(s: &ScalarField, groups: &[UpdateGroup]) -> [String; COLUMNS] {
    let (range, step, bits, tolerance) = match Quantiser::new(&s.kind) {
        Ok(q) => (
            format!("{}..={}", q.raw_min(), q.raw_max()),
            in_units(&q, 1),
            q.bits().to_string(),
            tolerance(&q, s.tolerance),
        ),
        Err(_) => ("invalid".into(), "-".into(), "-".into(), "-".into()),
    };
    let group = match groups.get(usize::from(s.group)) {
        Some(g) if !g.name.is_empty() => g.name.clone(),
        _ => "-".into(),
    };
    let kind = kind_text(&s.kind);
    [s.path.clone(), kind, range, step, bits, predictors(s.predictors), tolerance, group]
}
