//! Precision warnings: what a schema asks of a real kind's grid that the grid does not give.
//!
//! - **A value that should decode exactly does not.** By default that value is zero, wherever
//!   a `fixed` range holds it, and zero in each stored component of a `quat` (the identity
//!   rotation); `exact = [...]` names the values instead (`exact = []` none). An angle grid
//!   always holds zero.
//! - **The step is coarser than `max_step`.**
//!
//! Each warning says what the grid gives instead and, where one exists, a precision of the same
//! size that gives what was asked. Warnings never stop a schema from compiling; `netschema
//! check --deny-warnings` makes them fail a CI run.
//!
//! ```
//! let schema = netschema_idl::parse_str("w.netidl", "class C { x: fixed(-1, 1, bits = 8); }")?;
//! let warnings = netschema_idl::precision::warnings(&schema);
//! assert_eq!(warnings[0].message, "zero is not exactly representable: it decodes as 0.0039216");
//! assert_eq!(warnings[0].help.as_deref(), Some("`res = 1/127` has as many bits and holds it"));
//! # Ok::<(), netschema_idl::Diagnostics>(())
//! ```

use std::f64::consts::TAU;

use netschema_runtime::quant::{AngleQuant, FixedQuant, QuatQuant};

use crate::diagnostic::Diagnostic;
use crate::ir::{FieldType, GridNeeds, Precision, Schema, TypeKind};
use crate::span::Span;

/// How many grid sizes are tried when looking for one that holds the exact values.
const SEARCH: u32 = 4096;

/// The precision warnings of `schema`, in declaration order (structs, then classes, then
/// inputs, then events). The schema should be valid ([`validate`](crate::validate())); kinds whose parameters
/// give no grid are skipped. A struct's scalars are checked once, at its declaration, however
/// many fields hold it.
pub fn warnings(schema: &Schema) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let struct_fields = schema.structs.iter().flat_map(|s| &s.fields);
    let input_fields = schema.inputs.iter().chain(&schema.events).flat_map(|i| &i.fields);
    for field in
        struct_fields.chain(schema.classes.iter().flat_map(|c| &c.fields)).chain(input_fields)
    {
        kind(&field.ty, &mut out);
    }
    out
}

/// Checks `ty` and the kinds inside it.
fn kind(ty: &FieldType, out: &mut Vec<Diagnostic>) {
    match &ty.kind {
        TypeKind::Fixed { min, max, precision, needs } => {
            if let Ok(q) = precision.value.quantiser(min.value, max.value) {
                fixed(ty.span, q, precision.value, precision.span, needs, out);
            }
        }
        TypeKind::Angle { bits, needs } => {
            if let Ok(q) = AngleQuant::new(bits.value) {
                angle(q, bits.span, needs, out);
            }
        }
        TypeKind::Quat { bits, needs } => {
            if let Ok(q) = QuatQuant::new(bits.value) {
                quat(ty.span, q, bits.span, needs, out);
            }
        }
        TypeKind::Vec2(elem)
        | TypeKind::Vec3(elem)
        | TypeKind::Array { elem, .. }
        | TypeKind::List { elem, .. }
        | TypeKind::Optional(elem) => {
            kind(elem, out);
        }
        TypeKind::Int { .. }
        | TypeKind::Bool
        | TypeKind::Enum { .. }
        | TypeKind::Struct { .. }
        | TypeKind::Ref { .. }
        | TypeKind::Text { .. } => {}
    }
}

/// A value that should be exact, where to point when it is not, and whether the user named it.
struct Wanted {
    value: f64,
    span: Span,
    named: bool,
}

/// The values of `needs.exact`, or zero at `span` if `default_zero` and none are named.
fn wanted(needs: &GridNeeds, span: Span, default_zero: bool) -> Vec<Wanted> {
    match &needs.exact {
        Some(values) => {
            values.iter().map(|v| Wanted { value: v.value, span: v.span, named: true }).collect()
        }
        None if default_zero => vec![Wanted { value: 0.0, span, named: false }],
        None => Vec::new(),
    }
}

/// Whether `q` decodes `v` as `v`, up to float noise.
fn holds(q: &FixedQuant, v: f64) -> bool {
    (q.dequantise(q.quantise(v)) - v).abs() <= q.resolution() * 1e-9
}

fn fixed(
    span: Span,
    q: FixedQuant,
    precision: Precision,
    precision_span: Span,
    needs: &GridNeeds,
    out: &mut Vec<Diagnostic>,
) {
    let (min, max) = (q.min(), q.max());
    let wanted = wanted(needs, span, min <= 0.0 && 0.0 <= max);
    let missed: Vec<&Wanted> = wanted.iter().filter(|w| !holds(&q, w.value)).collect();
    if !missed.is_empty() {
        let values: Vec<f64> = wanted.iter().map(|w| w.value).collect();
        // Grids of as many bits, from the finest down; or finer ones, from the coarsest up.
        let help = match precision {
            Precision::Bits(n) => {
                let same_bits = ((1u32 << (n - 1))..=(1u32 << n) - 1).rev();
                holding_grid(min, max, &values, same_bits)
                    .map(|s| format!("`{}` has as many bits and holds it", resolution(min, max, s)))
            }
            Precision::Resolution(_) => {
                let finer = (q.raw_max() as u32)..;
                holding_grid(min, max, &values, finer).map(|s| {
                    format!("`{}` is a little finer and holds it", resolution(min, max, s))
                })
            }
        };
        for w in missed {
            let grid =
                format!("{} steps of {} from {}", q.raw_max(), sig(q.resolution()), sig(min));
            let decoded = q.dequantise(q.quantise(w.value));
            let mut diag = not_exact(w, &sig(decoded), grid);
            diag = match &help {
                Some(help) => diag.with_help(help.as_str()),
                None => diag.with_help("no grid of this size holds it: shift or widen the range"),
            };
            out.push(diag);
        }
    }
    let fix = |wanted: f64| match precision {
        Precision::Bits(_) => bits_help(bits_for((max - min) / wanted)),
        Precision::Resolution(_) => format!("`res = {}` gives it", sig(wanted)),
    };
    max_step(q.resolution(), precision_span, needs, fix, out);
}

fn angle(q: AngleQuant, bits_span: Span, needs: &GridNeeds, out: &mut Vec<Diagnostic>) {
    for w in wanted(needs, bits_span, false) {
        let decoded = q.dequantise(q.quantise(w.value));
        let off = (w.value - decoded).rem_euclid(TAU);
        if off.min(TAU - off) > q.resolution() * 1e-9 {
            let grid =
                format!("{} points per turn, {} rad apart", q.raw_max() + 1, sig(q.resolution()));
            out.push(
                not_exact(&w, &format!("{} rad", sig(decoded)), grid)
                    .with_help("an angle grid holds the multiples of 2π / 2^bits"),
            );
        }
    }
    let fix = |wanted: f64| bits_help((TAU / wanted).log2().ceil() as u32);
    max_step(q.resolution(), bits_span, needs, fix, out);
}

fn quat(span: Span, q: QuatQuant, bits_span: Span, needs: &GridNeeds, out: &mut Vec<Diagnostic>) {
    let c = q.component();
    let grid = format!(
        "each stored component has {} steps of {} across ±1/√2",
        c.raw_max(),
        sig(c.resolution())
    );
    for w in wanted(needs, span, true) {
        if holds(&c, w.value) {
            continue;
        }
        if w.named {
            let decoded = sig(c.dequantise(c.quantise(w.value)));
            out.push(not_exact(&w, &decoded, grid.clone()));
            continue;
        }
        let identity = q.dequantise(q.quantise([0.0, 0.0, 0.0, 1.0]));
        let norm = identity.iter().map(|v| v * v).sum::<f64>().sqrt();
        let degrees = (2.0 * (identity[3].abs() / norm).min(1.0).acos()).to_degrees();
        // Eight decimals show how far below 1 the rebuilt `w` is.
        let shown: Vec<String> = identity.iter().map(|v| format!("{v:.8}")).collect();
        out.push(
            Diagnostic::warning(format!(
                "the identity rotation is not exactly representable: it decodes as [{}]",
                shown.join(", ")
            ))
            .with_label(w.span, format!("{grid}, none at 0"))
            .with_help(format!(
                "no `quat(bits = N)` grid holds 0: the identity comes out {}° off; write `exact = []` to accept that",
                sig(degrees)
            )),
        );
    }
    let sqrt2 = std::f64::consts::SQRT_2;
    max_step(c.resolution(), bits_span, needs, |wanted| bits_help(bits_for(sqrt2 / wanted)), out);
}

/// The warning that `w` decodes as `decoded`; `grid` describes the grid.
fn not_exact(w: &Wanted, decoded: &str, grid: String) -> Diagnostic {
    let what = if w.named { format!("`{}`", sig(w.value)) } else { "zero".into() };
    let diag = Diagnostic::warning(format!(
        "{what} is not exactly representable: it decodes as {decoded}"
    ))
    .with_label(w.span, grid);
    if w.named {
        diag
    } else {
        diag.with_note("zero is checked because the range holds it; `exact = [...]` names the values that must be exact instead")
    }
}

/// Warns if `step` is coarser than `needs.max_step`; `fix` is the help line for a step of at
/// most the one asked.
fn max_step(
    step: f64,
    span: Span,
    needs: &GridNeeds,
    fix: impl Fn(f64) -> String,
    out: &mut Vec<Diagnostic>,
) {
    let Some(wanted) = needs.max_step else { return };
    if step <= wanted.value * (1.0 + 1e-9) {
        return;
    }
    let help = fix(wanted.value);
    out.push(
        Diagnostic::warning(format!("the step is coarser than `max_step = {}`", sig(wanted.value)))
            .with_label(span, format!("a step of {}", sig(step)))
            .with_secondary(wanted.span, "the coarsest step asked for")
            .with_help(help),
    );
}

/// The help line suggesting `bits = N`.
fn bits_help(bits: u32) -> String {
    if bits <= 31 {
        format!("`bits = {bits}` gives it")
    } else {
        "no bit count up to 31 gives it: narrow the range".into()
    }
}

/// The number of bits of a grid with at least `steps` steps.
fn bits_for(steps: f64) -> u32 {
    let steps = steps.ceil().max(1.0);
    // 2^bits - 1 >= steps.
    (steps + 1.0).log2().ceil() as u32
}

/// The first of `counts` (at most [`SEARCH`] of them) whose grid of that many steps over
/// `[min, max]` holds every one of `values`.
fn holding_grid(
    min: f64,
    max: f64,
    values: &[f64],
    counts: impl Iterator<Item = u32>,
) -> Option<u32> {
    counts.take(SEARCH as usize).find(|&s| {
        FixedQuant::with_resolution(min, max, (max - min) / f64::from(s))
            .is_ok_and(|q| q.raw_max() as u32 == s && values.iter().all(|&v| holds(&q, v)))
    })
}

/// `res = R` for a grid of `steps` steps over `[min, max]`: a fraction when the range is a
/// whole number (`res = 1/127`), else the shortest decimal that gives the same grid.
fn resolution(min: f64, max: f64, steps: u32) -> String {
    let range = max - min;
    if range.fract() == 0.0 && range < 1e15 {
        let (mut a, mut b) = (range as u64, u64::from(steps));
        let g = gcd(a, b);
        (a, b) = (a / g, b / g);
        return if b == 1 { format!("res = {a}") } else { format!("res = {a}/{b}") };
    }
    format!("res = {:?}", range / f64::from(steps))
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// `v` to 5 significant digits, without trailing zeros.
pub(crate) fn sig(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let decimals = (4 - v.abs().log10().floor() as i32).clamp(0, 17) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(text: &str) -> Vec<String> {
        let schema = crate::parse_str("t.netidl", text).unwrap();
        warnings(&schema).into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn zero_on_symmetric_bit_grids() {
        assert_eq!(
            messages("class C { x: fixed(-1, 1, bits = 8); }"),
            ["zero is not exactly representable: it decodes as 0.0039216"]
        );
        assert!(messages("class C { x: fixed(-1, 1, res = 1/127); }").is_empty());
        assert!(messages("class C { x: fixed(0, 1, bits = 8); }").is_empty());
        assert!(messages("class C { x: fixed(-1, 1, bits = 8, exact = []); }").is_empty());
        assert!(messages("class C { x: fixed(1, 2, bits = 8); }").is_empty());
    }

    #[test]
    fn the_identity_quaternion() {
        let m = messages("class C { q: quat(bits = 9); }");
        assert_eq!(
            m,
            [
                "the identity rotation is not exactly representable: it decodes as [0.00138377, 0.00138377, 0.00138377, 0.99999713]"
            ]
        );
        assert!(messages("class C { q: quat(bits = 9, exact = []); }").is_empty());
    }

    #[test]
    fn named_values_and_max_step() {
        let m = messages("class C { x: fixed(0, 10, res = 0.3, exact = [0, 4], max_step = 0.1); }");
        assert_eq!(
            m,
            [
                "`4` is not exactly representable: it decodes as 4.1176",
                "the step is coarser than `max_step = 0.1`"
            ]
        );
        assert_eq!(
            messages("class C { a: angle(bits = 8, exact = [0.1], max_step = 0.001); }"),
            [
                "`0.1` is not exactly representable: it decodes as 0.098175 rad",
                "the step is coarser than `max_step = 0.001`"
            ]
        );
        assert!(messages("class C { a: angle(bits = 12, max_step = 0.002); }").is_empty());
    }

    #[test]
    fn suggestions() {
        assert_eq!(resolution(-1.0, 1.0, 254), "res = 1/127");
        assert_eq!(resolution(0.0, 10.0, 40), "res = 1/4");
        assert_eq!(resolution(-0.5, 1.0, 3), "res = 0.5");
        assert_eq!(holding_grid(-1.0, 1.0, &[0.0], (128..=255).rev()), Some(254));
        assert_eq!(holding_grid(0.0, 10.0, &[5.0], 33..), Some(34));
        assert_eq!(bits_for(255.0), 8);
        assert_eq!(bits_for(256.0), 9);
        assert_eq!(sig(0.00392156), "0.0039216");
        assert_eq!(sig(5.151515), "5.1515");
        assert_eq!(sig(-1.0), "-1");
    }
}
