//! The compiler and the runtime agree on which quantisers exist: every field kind the
//! validator accepts builds its quantiser with the runtime's `const fn` (as generated code
//! does), with the step count the compiler reports; and at the boundaries the runtime builds
//! nothing the validator rejects, except where the language is deliberately narrower (one-bit
//! quaternion components, zero-bit angles, enums above `MAX_ENUM_CASES` cases).

use netschema_idl::ir::{Class, Enum, Field, FieldType, Schema};
use netschema_idl::limits::{MAX_BITS, MAX_ENUM_CASES, MAX_FIXED_STEPS, MIN_BITS, MIN_QUAT_BITS};
use netschema_idl::validate;
use netschema_runtime::quant::{AngleQuant, EnumQuant, FixedQuant, IntQuant, QuatQuant};
use proptest::prelude::*;

/// A schema of one class with one field of kind `ty`.
fn one_field(ty: FieldType) -> Schema {
    let mut schema = Schema::new("t");
    schema.classes.push(Class::new("C", [Field::new("x", ty)]));
    schema
}

/// Whether the validator accepts a `fixed(min, max, res = res)` field, and if so its number
/// of raw values as the compiler counts them.
fn idl_fixed(min: f64, max: f64, res: f64) -> Option<u64> {
    let schema = one_field(FieldType::fixed_res(min, max, res));
    validate(&schema).ok()?;
    let fields = schema.flatten(&schema.classes[0]);
    Some(fields[0].kind.cardinality().expect("an accepted field has a cardinality"))
}

/// The runtime's number of raw values for the same field, if it builds.
fn runtime_fixed(min: f64, max: f64, res: f64) -> Option<u64> {
    FixedQuant::with_resolution(min, max, res).ok().map(|q| q.raw_max() as u64 + 1)
}

#[test]
fn fixed_resolution_at_the_boundaries() {
    let max_steps = MAX_FIXED_STEPS as f64;
    let cases = [
        // Decimal parameters whose quotient lands a few ulps above an integer.
        (0.0, 20.0, 0.1),
        (0.0, 1.1, 0.1),
        (-64.0, 64.0, 1.0 / 512.0),
        // Just above an integer: within the runtime's relative slack at 1e6 steps, then not.
        (0.0, 1e6 + 5e-7, 1.0),
        (0.0, 1e6 + 2e-6, 1.0),
        // Just above an integer at 100 steps: far outside the slack, so one more step.
        (0.0, 100.0 + 5e-7, 1.0),
        // The 31-bit limit: exactly, within the slack above it, and one step beyond.
        (0.0, max_steps, 1.0),
        (0.0, max_steps + 1e-3, 1.0),
        (0.0, max_steps + 0.5, 1.0),
        (0.0, max_steps + 1.0, 1.0),
        (0.0, 1e6, 1e6 / max_steps),
        (0.0, 1e6, 1e-6),
        // A resolution wider than the range: one step.
        (0.0, 1.0, 10.0),
        (0.0, 1.0, 1e300),
        // Parameters both reject.
        (0.0, 1.0, 0.0),
        (0.0, 1.0, -0.5),
        (0.0, 1.0, f64::NAN),
        (0.0, 1.0, f64::INFINITY),
        (1.0, 1.0, 0.1),
        (2.0, 1.0, 0.1),
        (-f64::MAX, f64::MAX, 1.0),
        (0.0, 1.0, f64::MIN_POSITIVE),
    ];
    for (min, max, res) in cases {
        assert_eq!(
            idl_fixed(min, max, res),
            runtime_fixed(min, max, res),
            "fixed({min:?}, {max:?}, res = {res:?})"
        );
    }
    assert_eq!(idl_fixed(0.0, 20.0, 0.1), Some(201));
    assert_eq!(idl_fixed(0.0, 1e6 + 5e-7, 1.0), Some(1_000_001));
    assert_eq!(idl_fixed(0.0, 1e6 + 2e-6, 1.0), Some(1_000_002));
    assert_eq!(idl_fixed(0.0, max_steps + 1e-3, 1.0), Some(MAX_FIXED_STEPS + 1));
    assert_eq!(idl_fixed(0.0, max_steps + 0.5, 1.0), None);
}

proptest! {
    /// Ranges of about `steps` steps of a decimal or binary resolution, nudged by a few ulps to
    /// a few millionths of a step either way around the integer, up to past the 31-bit limit.
    #[test]
    fn fixed_resolution_agrees(
        steps in prop_oneof![1u64..1000, 1000u64..=MAX_FIXED_STEPS + 2, MAX_FIXED_STEPS - 2..=MAX_FIXED_STEPS + 2],
        res in prop::sample::select(vec![0.1, 0.01, 0.3, 1.0 / 64.0, 1.0 / 512.0, 1e-3, 1.0, 2.5, 7e-5]),
        min in prop::sample::select(vec![0.0, -1.0, -64.0, 3.7, -1e4]),
        nudge in prop::sample::select(vec![0.0, 1e-15, -1e-15, 1e-13, -1e-13, 1e-11, 1e-9, -1e-9, 1e-6, -1e-6, 1e-3]),
    ) {
        let max = min + steps as f64 * res * (1.0 + nudge);
        prop_assert_eq!(idl_fixed(min, max, res), runtime_fixed(min, max, res));
    }
}

#[test]
fn fixed_bits_angle_quat_at_the_boundaries() {
    for bits in 0..=MAX_BITS + 2 {
        let idl = validate(&one_field(FieldType::fixed_bits(-1.0, 1.0, bits))).is_ok();
        assert_eq!(idl, FixedQuant::with_bits(-1.0, 1.0, bits).is_ok(), "fixed bits = {bits}");

        let idl = validate(&one_field(FieldType::angle(bits))).is_ok();
        let runtime = AngleQuant::new(bits).is_ok();
        assert!(!idl || runtime, "angle bits = {bits}");
        assert_eq!(idl, runtime && bits >= MIN_BITS, "angle bits = {bits}");

        let idl = validate(&one_field(FieldType::quat(bits))).is_ok();
        let runtime = QuatQuant::new(bits).is_ok();
        assert!(!idl || runtime, "quat bits = {bits}");
        assert_eq!(idl, runtime && bits >= MIN_QUAT_BITS, "quat bits = {bits}");
    }
}

#[test]
fn int_at_the_boundaries() {
    let (lo, hi) = (i64::from(i32::MIN), i64::from(i32::MAX));
    for (min, max) in
        [(lo, hi), (lo, lo + 1), (hi - 1, hi), (5, 5), (6, 5), (lo - 1, 0), (0, hi + 1)]
    {
        let idl = validate(&one_field(FieldType::int(min, max))).is_ok();
        let runtime = match (i32::try_from(min), i32::try_from(max)) {
            (Ok(min), Ok(max)) => IntQuant::new(min, max).is_ok(),
            _ => false,
        };
        assert_eq!(idl, runtime, "int({min}, {max})");
    }
}

#[test]
fn enum_at_the_boundaries() {
    for cases in [0, 1, 2, MAX_ENUM_CASES, MAX_ENUM_CASES + 1] {
        let mut schema = one_field(FieldType::enumeration("E"));
        schema.enums.push(Enum::new("E", (0..cases).map(|i| format!("c{i}"))));
        let idl = validate(&schema).is_ok();
        let runtime = EnumQuant::new(cases as u32).is_ok();
        assert!(!idl || runtime, "{cases} cases");
        assert_eq!(idl, runtime && cases <= MAX_ENUM_CASES, "{cases} cases");
    }
}
