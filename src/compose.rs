//! Building a derived type's scalar table at compile time from its own scalars and the
//! [`SnapshotStruct::SCALARS`](crate::SnapshotStruct::SCALARS) of the types its fields hold.
//!
//! Generated code lists the pieces in wire order as [`Part`]s, then, all in `const` items:
//! [`names`] writes the nested scalars' paths into one byte array of [`names_len`] bytes,
//! [`scalars`] builds the table of [`count`] scalars (paths pointing into that array, the
//! holding fields' clauses applied), and [`fields`] takes their table entries. [`reaches`] and
//! [`tolerance_fits`] check a holding field's clauses as the `.netidl` validator does.

use crate::nested::Scalar;
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::{Coding, Field, MAX_TOLERANCE};

/// A piece of a derived type's scalars, in wire order.
#[derive(Clone, Copy, Debug)]
pub enum Part {
    /// A scalar of the type's own fields.
    Scalar(Scalar),
    /// The scalars of a type one of its fields holds.
    Nested(Nested),
}

/// One occurrence of a held type: where it sits and the clauses of the field holding it.
#[derive(Clone, Copy, Debug)]
pub struct Nested {
    /// The path of the occurrence (`stats`, `buffs[2]`, `target.value`).
    pub prefix: &'static str,
    /// The held type's scalars.
    pub scalars: &'static [Scalar],
    /// The index of the holding field in the deriving type.
    pub field: usize,
    /// The holding field's `predict(...)`, if it writes one.
    pub predictors: Option<&'static [Predictor]>,
    /// The holding field's tolerance in natural units, if it writes one.
    pub tolerance: Option<f64>,
    /// The holding field's update group.
    pub group: u8,
}

/// A clause of a field holding a type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clause {
    /// `predict(...)`.
    Predict,
    /// `tolerance = V`.
    Tolerance,
}

/// The number of scalars of `parts`.
pub const fn count(parts: &[Part]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < parts.len() {
        n += match parts[i] {
            Part::Scalar(_) => 1,
            Part::Nested(nested) => nested.scalars.len(),
        };
        i += 1;
    }
    n
}

/// The bytes of the nested scalars' paths: `prefix.name`, or `prefix` for an unnamed scalar.
pub const fn names_len(parts: &[Part]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < parts.len() {
        if let Part::Nested(nested) = parts[i] {
            let mut s = 0;
            while s < nested.scalars.len() {
                n += path_len(nested.prefix, nested.scalars[s].field.name);
                s += 1;
            }
        }
        i += 1;
    }
    n
}

const fn path_len(prefix: &str, name: &str) -> usize {
    if name.is_empty() { prefix.len() } else { prefix.len() + 1 + name.len() }
}

/// The nested scalars' paths, one after the other ([`names_len`] bytes).
pub const fn names<const B: usize>(parts: &[Part]) -> [u8; B] {
    let mut out = [0; B];
    let mut at = 0;
    let mut i = 0;
    while i < parts.len() {
        if let Part::Nested(nested) = parts[i] {
            let mut s = 0;
            while s < nested.scalars.len() {
                let name = nested.scalars[s].field.name;
                at = copy(&mut out, at, nested.prefix);
                if !name.is_empty() {
                    at = copy(&mut out, at, ".");
                    at = copy(&mut out, at, name);
                }
                s += 1;
            }
        }
        i += 1;
    }
    out
}

/// Copies `text` into `out` at `at`; returns the index after it.
const fn copy(out: &mut [u8], mut at: usize, text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut b = 0;
    while b < bytes.len() {
        out[at] = bytes[b];
        at += 1;
        b += 1;
    }
    at
}

/// The scalars of `parts` ([`count`] of them), the nested ones named from `names` (what
/// [`names`] wrote) and given the clauses of their holding field where they write none.
pub const fn scalars<const N: usize>(parts: &[Part], names: &'static [u8]) -> [Scalar; N] {
    const EMPTY: Scalar = Scalar {
        field: Field::categorical("", 1),
        own_predict: false,
        own_tolerance: false,
        step: 0.0,
    };
    let mut out = [EMPTY; N];
    let (mut k, mut at, mut i) = (0, 0, 0);
    while i < parts.len() {
        match parts[i] {
            Part::Scalar(s) => {
                out[k] = s;
                k += 1;
            }
            Part::Nested(nested) => {
                let mut s = 0;
                while s < nested.scalars.len() {
                    let inner = nested.scalars[s];
                    let len = path_len(nested.prefix, inner.field.name);
                    out[k] = held(inner, &nested, slice(names, at, len));
                    at += len;
                    k += 1;
                    s += 1;
                }
            }
        }
        i += 1;
    }
    out
}

/// `len` bytes of `names` from `at`, as a path.
const fn slice(names: &'static [u8], at: usize, len: usize) -> &'static str {
    let (_, rest) = names.split_at(at);
    let (path, _) = rest.split_at(len);
    match core::str::from_utf8(path) {
        Ok(path) => path,
        Err(_) => panic!("a nested path is not UTF-8"),
    }
}

/// Scalar `inner` of a held type at `path`, with the holding field's group and the clauses it
/// writes where the scalar has none of its own.
const fn held(inner: Scalar, nested: &Nested, path: &'static str) -> Scalar {
    let mut s = inner;
    s.field.name = path;
    s.field.group = nested.group;
    if matches!(s.field.coding, Coding::Numeric(_)) {
        if let (false, Some(p)) = (s.own_predict, nested.predictors) {
            s.field.coding = Coding::Numeric(p);
        }
        if let (false, Some(v)) = (s.own_tolerance, nested.tolerance) {
            let steps = tolerance_steps(v, s.step);
            s.field.tolerance = if steps > u32::MAX as u64 { u32::MAX } else { steps as u32 };
        }
    }
    s.own_predict |= nested.predictors.is_some();
    s.own_tolerance |= nested.tolerance.is_some();
    s
}

/// `floor(value / step)`, where a quotient within a relative `1e-12` below an integer counts
/// as that integer; 0 for a value that is not positive (the `.netidl` compiler's rule).
const fn tolerance_steps(value: f64, step: f64) -> u64 {
    const SLACK: f64 = 1e-12;
    let q = value / step;
    if q.is_nan() || q <= 0.0 {
        return 0;
    }
    // `as` truncates (saturating), which for a positive quotient is the floor.
    let floor = q as u64;
    let up = if (floor as f64) < q { floor.saturating_add(1) } else { floor };
    if up as f64 - q <= q * SLACK { up } else { floor }
}

/// The table entries of `scalars`.
pub const fn fields<const N: usize>(scalars: &[Scalar; N]) -> [Field; N] {
    let mut out = [Field::categorical("", 1); N];
    let mut i = 0;
    while i < N {
        out[i] = scalars[i].field;
        i += 1;
    }
    out
}

/// Whether `clause`, written on field `field`, reaches a numeric scalar of the types it holds
/// that does not write the clause itself.
pub const fn reaches(parts: &[Part], field: usize, clause: Clause) -> bool {
    let mut i = 0;
    while i < parts.len() {
        if let Part::Nested(nested) = parts[i]
            && nested.field == field
        {
            let mut s = 0;
            while s < nested.scalars.len() {
                let inner = nested.scalars[s];
                let own = match clause {
                    Clause::Predict => inner.own_predict,
                    Clause::Tolerance => inner.own_tolerance,
                };
                if !own && matches!(inner.field.coding, Coding::Numeric(_)) {
                    return true;
                }
                s += 1;
            }
        }
        i += 1;
    }
    false
}

/// Whether the tolerance of field `field` is from one to [`MAX_TOLERANCE`] steps of every
/// numeric scalar it reaches in the types it holds.
pub const fn tolerance_fits(parts: &[Part], field: usize) -> bool {
    let mut i = 0;
    while i < parts.len() {
        if let Part::Nested(nested) = parts[i]
            && nested.field == field
            && let Some(v) = nested.tolerance
        {
            let mut s = 0;
            while s < nested.scalars.len() {
                let inner = nested.scalars[s];
                let steps = tolerance_steps(v, inner.step);
                if !inner.own_tolerance
                    && matches!(inner.field.coding, Coding::Numeric(_))
                    && (steps == 0 || steps > MAX_TOLERANCE as u64)
                {
                    return false;
                }
                s += 1;
            }
        }
        i += 1;
    }
    true
}
