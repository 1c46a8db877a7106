//! Blending two raw rows of a class: the values between two received samples of an entity.
//!
//! A client that renders between the frames it received blends the entity's raw values at
//! the frame before the render time (`a`) with those at the frame after it (`b`), a weight `t`
//! of the way from one to the other, `t` in `0..=`[`ONE`] (in 1/65536ths). Each scalar field blends by its kind, read from the class's field
//! descriptors ([`Blend::of`]), so one implementation serves every schema, whichever front end
//! declared it:
//!
//! | kind | [`Blend`] | value at weight `t` (raw) |
//! |---|---|---|
//! | `fixed` | [`Blend::Linear`] | `a + ⌊(b − a)·t / ONE + ½⌋` |
//! | `angle` | [`Blend::Arc`] | `a + ⌊d·t / ONE + ½⌋` wrapped, `d` = `b − a` the short way round, in `[−span/2, span/2)` (half a turn apart: downwards) |
//! | `quat` | [`Blend::Quat`] | normalised lerp of the rotations, `b` negated if `a·b < 0`, quantised again |
//! | `int`, `bool`, enums | [`Blend::Step`] | `a` while `t < ONE` |
//!
//! Raw values stay on their field's grid: a blended `fixed` keeps the field's declared
//! precision (it is rounded to the nearest step), and so does a blended angle or rotation.
//! Everything but quaternions is integer arithmetic; quaternions use `f64` without
//! transcendental functions, so every platform gets the same bits. At `t = 0` the result is `a`
//! and at `t = ONE` it is `b`, exactly, whatever the kinds.
//!
//! Quaternions use normalised lerp rather than slerp: it follows the same arc as slerp, only at
//! a slightly uneven speed, which for samples a frame or a few apart is invisible (at most
//! 0.01° off slerp between samples 20° apart, 0.11° at 45°, 0.92° at 90°); it needs no
//! trigonometry, which `core` lacks, and is cheaper.
//!
//! Nothing here panics or allocates: rows shorter than their class leave the missing fields
//! alone.

use crate::quant::{IntQuant, QuatQuant, bits_for_range};
use crate::schema::{Coding, Field};

/// The weight of a blend that is all `b`: weights run from 0 (`a`) to `ONE` (`b`).
pub const ONE: u32 = 1 << 16;

/// How a scalar field blends between two samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Blend {
    /// Holds `a` until the weight reaches [`ONE`]: integers, bools and enums, whose in-between
    /// values would be made up.
    Step,
    /// Linear in raw space, rounded to the nearest step: `fixed` reals.
    Linear,
    /// Linear along the shorter way round the circle: angles (wrapping fields).
    Arc,
    /// This field (the index of the largest component) and the next three (the stored
    /// components) are one rotation in smallest-three form, quantised by the given quantiser:
    /// normalised lerp, the short way.
    Quat(QuatQuant),
    /// A stored component of the rotation a [`Blend::Quat`] field before it starts: blended
    /// with that field.
    Part,
}

impl Blend {
    /// How field `i` of `fields` (a class's fields in wire order) blends.
    ///
    /// Kinds are read from the descriptors: a categorical field is [`Blend::Step`] unless it
    /// starts a quaternion, a wrapping numeric field is an angle, and a numeric field whose
    /// [`Field::meaning`] is an `int` quantiser's fingerprint over its range steps; other
    /// numeric fields are `fixed`. A quaternion is recognised by the fingerprints of its index
    /// and components. Hand-written descriptors without meanings (0) blend ints linearly and
    /// quaternions field by field.
    pub fn of(fields: &[Field], i: usize) -> Blend {
        let Some(field) = fields.get(i) else {
            return Blend::Step;
        };
        if let Some(quant) = quat_at(fields, i) {
            return Blend::Quat(quant);
        }
        match field.coding {
            Coding::Categorical => Blend::Step,
            Coding::Numeric(_) if field.wraps => Blend::Arc,
            Coding::Numeric(_) if (1..=3).any(|k| i >= k && quat_at(fields, i - k).is_some()) => {
                Blend::Part
            }
            Coding::Numeric(_) if is_int(field) => Blend::Step,
            Coding::Numeric(_) => Blend::Linear,
        }
    }
}

/// Whether `field` was declared `int`: its meaning is the fingerprint of an `int` over its range.
fn is_int(field: &Field) -> bool {
    IntQuant::new(field.min, field.max).is_ok_and(|q| q.fingerprint() == field.meaning)
}

/// The meaning of a quaternion's index field (that of every `quat`, whatever its bits).
const INDEX_MEANING: u64 = match QuatQuant::new(1) {
    Ok(q) => q.index().fingerprint(),
    Err(_) => panic!("1 bit is a valid quaternion"),
};

/// The quantiser of the quaternion whose index is field `i`, if fields `i..i + 4` are one.
/// Cheap for any other field: its coding or meaning is compared first.
#[inline]
pub(crate) fn quat_at(fields: &[Field], i: usize) -> Option<QuatQuant> {
    let index = fields.get(i)?;
    if index.coding != Coding::Categorical || index.meaning != INDEX_MEANING {
        return None;
    }
    let parts = fields.get(i + 1..i + 4)?;
    let quant = QuatQuant::new(bits_for_range(0, parts.first()?.max)).ok()?;
    let are_parts = parts.iter().all(|p| {
        matches!(p.coding, Coding::Numeric(_))
            && (p.min, p.max, p.meaning) == (quant.raw_min(), quant.raw_max(), quant.fingerprint())
    });
    are_parts.then_some(quant)
}

/// Writes into `out` the row `t / ONE` of the way from row `a` to row `b` of a class whose
/// fields are `fields` and blend as `blends` (from [`Blend::of`]), as the table in the
/// [module documentation](self) says; `t` above [`ONE`] counts as `ONE`. At `t = 0` `out` is
/// `a`, at `t = ONE` it is `b`.
pub fn blend_row(
    fields: &[Field],
    blends: &[Blend],
    a: &[i32],
    b: &[i32],
    t: u32,
    out: &mut [i32],
) {
    if t == 0 || t >= ONE {
        let from = if t == 0 { a } else { b };
        for (o, &v) in out.iter_mut().zip(from) {
            *o = v;
        }
        return;
    }
    for (i, (field, blend)) in fields.iter().zip(blends).enumerate() {
        let (Some(&x), Some(&y)) = (a.get(i), b.get(i)) else {
            return;
        };
        let value = match *blend {
            Blend::Step => x,
            Blend::Linear => field.clamp(i64::from(x) + scale(i64::from(y) - i64::from(x), t)),
            Blend::Arc => field.clamp(i64::from(x) + scale(i64::from(field.residual(y, x)), t)),
            Blend::Quat(quant) => {
                if let (Some(qa), Some(qb), Some(o)) =
                    (a.get(i..i + 4), b.get(i..i + 4), out.get_mut(i..i + 4))
                {
                    o.copy_from_slice(&nlerp(&quant, qa, qb, t));
                }
                continue;
            }
            Blend::Part => continue,
        };
        if let Some(o) = out.get_mut(i) {
            *o = value;
        }
    }
}

/// `⌊d·t / ONE + ½⌋`: `d` scaled by the weight, rounded to the nearest integer (halves up).
/// `|d| < 2^33` and `t <= ONE`, so nothing overflows.
fn scale(d: i64, t: u32) -> i64 {
    (d * i64::from(t) + i64::from(ONE / 2)) >> 16
}

/// The raw form of the normalised lerp `t / ONE` of the way between the rotations of raw
/// forms `a` and `b` (four values each), `b` negated first if that makes it nearer to `a` (`q`
/// and `−q` are the same rotation).
pub(crate) fn nlerp(quant: &QuatQuant, a: &[i32], b: &[i32], t: u32) -> [i32; 4] {
    let raw = |r: &[i32]| core::array::from_fn(|k| r.get(k).copied().unwrap_or(0));
    let (qa, qb) = (quant.dequantise(raw(a)), quant.dequantise(raw(b)));
    let dot: f64 = (0..4).map(|k| qa[k] * qb[k]).sum();
    let sign = if dot < 0.0 { -1.0 } else { 1.0 };
    let w = f64::from(t) / f64::from(ONE);
    // With `a·b >= 0` after the sign fix, the lerp is at least 1/√2 long: never zero.
    quant.quantise(core::array::from_fn(|k| qa[k] + (sign * qb[k] - qa[k]) * w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::predict::Predictor;
    use crate::quant::{AngleQuant, BoolQuant, FixedQuant};

    const P: &[Predictor] = &[Predictor::Hold];
    const FIXED: FixedQuant = match FixedQuant::with_bits(-8.0, 8.0, 12) {
        Ok(q) => q,
        Err(_) => panic!("bad quantiser"),
    };
    const ANGLE: AngleQuant = match AngleQuant::new(8) {
        Ok(q) => q,
        Err(_) => panic!("bad quantiser"),
    };
    const QUAT: QuatQuant = match QuatQuant::new(9) {
        Ok(q) => q,
        Err(_) => panic!("bad quantiser"),
    };
    const INT: IntQuant = match IntQuant::new(-5, 100) {
        Ok(q) => q,
        Err(_) => panic!("bad quantiser"),
    };

    /// A class as generated code describes it: fixed, angle, quaternion, int, bool.
    fn fields() -> [Field; 8] {
        let numeric = |name, min, max, wraps, meaning| {
            Field::numeric(name, min, max, wraps, P).with_meaning(meaning)
        };
        let part = |name| numeric(name, QUAT.raw_min(), QUAT.raw_max(), false, QUAT.fingerprint());
        [
            numeric("x", FIXED.raw_min(), FIXED.raw_max(), false, FIXED.fingerprint()),
            numeric("yaw", ANGLE.raw_min(), ANGLE.raw_max(), true, ANGLE.fingerprint()),
            Field::categorical("rot.largest", 4).with_meaning(QUAT.index().fingerprint()),
            part("rot.c0"),
            part("rot.c1"),
            part("rot.c2"),
            numeric("hp", INT.raw_min(), INT.raw_max(), false, INT.fingerprint()),
            Field::categorical("on", 2).with_meaning(BoolQuant.fingerprint()),
        ]
    }

    fn blends(fields: &[Field]) -> [Blend; 8] {
        core::array::from_fn(|i| Blend::of(fields, i))
    }

    #[test]
    fn kinds_from_descriptors() {
        use Blend::*;
        let f = fields();
        assert_eq!(blends(&f), [Linear, Arc, Quat(QUAT), Part, Part, Part, Step, Step]);
        // Without meanings, ints cannot be told from fixed reals, nor quaternions found.
        let bare = f.map(|field| field.with_meaning(0));
        assert_eq!(blends(&bare), [Linear, Arc, Step, Linear, Linear, Linear, Linear, Step]);
        assert_eq!(Blend::of(&f, 8), Step);
        // A quaternion cut short is not one.
        assert_eq!(Blend::of(&f[..5], 2), Step);
    }

    fn row(x: f64, yaw: f64, rot: [f64; 4], hp: i32, on: bool) -> [i32; 8] {
        let r = QUAT.quantise(rot);
        [FIXED.quantise(x), ANGLE.quantise(yaw), r[0], r[1], r[2], r[3], hp, on as i32]
    }

    #[test]
    fn ends_are_exact() {
        let f = fields();
        let b = blends(&f);
        let r0 = row(-3.0, 6.0, [0.1, 0.9, 0.2, -0.3], 7, false);
        let r1 = row(5.0, 0.5, [-0.6, 0.1, 0.7, 0.2], 90, true);
        let mut out = [0; 8];
        blend_row(&f, &b, &r0, &r1, 0, &mut out);
        assert_eq!(out, r0);
        blend_row(&f, &b, &r0, &r1, ONE, &mut out);
        assert_eq!(out, r1);
        blend_row(&f, &b, &r0, &r1, u32::MAX, &mut out);
        assert_eq!(out, r1);
    }

    #[test]
    fn formulas() {
        let f = fields();
        let b = blends(&f);
        let (x0, x1) = (1000, 1003);
        let mut r0 = [x0, 250, 3, 0, 0, 0, 7, 0];
        let mut r1 = [x1, 4, 3, 0, 0, 0, 9, 1];
        r0[2..6].copy_from_slice(&QUAT.quantise([0.0, 0.0, 0.0, 1.0]));
        r1[2..6].copy_from_slice(&QUAT.quantise([0.0, 0.0, 0.0, 1.0]));
        let mut out = [0; 8];
        for t in [1, ONE / 3, ONE / 2, ONE - 1] {
            blend_row(&f, &b, &r0, &r1, t, &mut out);
            let want = x0 as f64 + 3.0 * t as f64 / ONE as f64;
            assert_eq!(out[0] as f64, (want + 0.5).floor(), "t {t}");
            // 250 → 4 crosses 0 the short way: +10 steps, wrapped.
            let want = (250.0 + 10.0 * t as f64 / ONE as f64 + 0.5).floor() as i32;
            assert_eq!(out[1], want.rem_euclid(256), "t {t}");
            assert_eq!(&out[2..6], &r0[2..6]);
            assert_eq!((out[6], out[7]), (7, 0), "ints and bools step");
        }
        // Half a step rounds up; so does the same half on the way down.
        blend_row(&f, &b, &r0, &[x0 + 1, 250, 3, 0, 0, 0, 7, 0], ONE / 2, &mut out);
        assert_eq!(out[0], x0 + 1);
        blend_row(&f, &b, &[x0 + 1, 250, 3, 0, 0, 0, 7, 0], &r0, ONE / 2, &mut out);
        assert_eq!(out[0], x0 + 1);
    }

    #[test]
    fn angles_take_the_short_way() {
        let f = fields();
        let b = blends(&f);
        // Both ways across raw 0 (angle ±π is raw 128: test it too).
        for (a, z, mid) in [(250, 6, 0), (6, 250, 0), (120, 136, 128), (136, 120, 128)] {
            let (r0, r1) = ([0, a, 3, 0, 0, 0, 0, 0], [0, z, 3, 0, 0, 0, 0, 0]);
            let mut out = [0; 8];
            blend_row(&f, &b, &r0, &r1, ONE / 2, &mut out);
            assert_eq!(out[1], mid, "{a} → {z}");
        }
    }

    /// The rotation about z by `angle` radians.
    fn about_z(angle: f64) -> [f64; 4] {
        [0.0, 0.0, (angle / 2.0).sin(), (angle / 2.0).cos()]
    }

    #[test]
    fn rotations_take_the_short_way() {
        let f = fields();
        let b = blends(&f);
        // 260° and 280° about z are 20° apart, but their smallest-three forms have opposite
        // signs (the largest component moves from z to w, and at 280° w < 0 is stored
        // negated): a plain lerp of the components would swing through 90°; the short way
        // passes 270°.
        let r0 = row(0.0, 0.0, about_z(260f64.to_radians()), 0, false);
        let r1 = row(0.0, 0.0, about_z(280f64.to_radians()), 0, false);
        let (q0, q1) = (
            QUAT.dequantise([r0[2], r0[3], r0[4], r0[5]]),
            QUAT.dequantise([r1[2], r1[3], r1[4], r1[5]]),
        );
        assert!((0..4).map(|k| q0[k] * q1[k]).sum::<f64>() < -0.9);
        let mut out = [0; 8];
        blend_row(&f, &b, &r0, &r1, ONE / 2, &mut out);
        let q = QUAT.dequantise([out[2], out[3], out[4], out[5]]);
        let want = about_z(270f64.to_radians());
        let dot: f64 = (0..4).map(|k| q[k] * want[k]).sum();
        assert!(dot.abs() > 1.0 - 1e-4, "{q:?}");
    }

    #[test]
    fn short_rows_are_left_alone() {
        let f = fields();
        let b = blends(&f);
        let mut out = [-1; 8];
        blend_row(&f, &b, &[10, 20], &[30, 40, 5], ONE / 2, &mut out);
        assert_eq!(out, [20, 30, -1, -1, -1, -1, -1, -1]);
        let mut out = [0; 1];
        blend_row(&f, &b, &[10, 20], &[30, 40], ONE / 2, &mut out);
        assert_eq!(out, [20]);
    }

    #[test]
    fn whole_i32_ranges_do_not_overflow() {
        // A hand-written descriptor without a meaning: an int over all of i32 blends linearly.
        let wide = [Field::numeric("w", i32::MIN, i32::MAX, false, P)];
        let b = [Blend::of(&wide, 0)];
        assert_eq!(b, [Blend::Linear]);
        let mut out = [0];
        for (x, y, t, want) in [
            (i32::MIN, i32::MAX, ONE / 2, 0),
            (i32::MAX, i32::MIN, ONE / 2, 0),
            (i32::MIN, i32::MAX, ONE - 1, i32::MAX - 65_536),
            (i32::MAX, i32::MIN, 1, i32::MAX - 65_536),
        ] {
            blend_row(&wide, &b, &[x], &[y], t, &mut out);
            assert_eq!(out[0], want, "{x} → {y} at {t}");
        }
    }
}
