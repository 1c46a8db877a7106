//! One segment of a curve between two keyframes, on raw integers (quaternions aside).
//!
//! Times inside a segment are 16.16 fixed-point frames; intermediate values are `i128`, wide
//! enough for any pair of `i32` values over any `u32` span of frames.

use super::{Interp, Time};
use crate::quant::QuatQuant;
use crate::schema::Field;

/// Fractional bits of the segment position `s` in the cubic's Horner evaluation.
const S_BITS: u32 = 30;
/// One, in the 16.16 fixed point of times and tangents.
const ONE: i128 = 1 << Time::FRAC_BITS;

/// A keyframe of one component: its frame and raw value.
pub(super) type Point = (u32, i32);

/// The keyframes a segment's value depends on: the segment's ends `a` and `b` and, for the
/// cubic's tangents, the keyframes just before `a` and just after `b`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Window<P> {
    /// The keyframe before `a`, if any.
    pub(super) prev: Option<P>,
    /// The segment's start.
    pub(super) a: P,
    /// The segment's end.
    pub(super) b: P,
    /// The keyframe after `b`, if any.
    pub(super) next: Option<P>,
}

/// `n / d` rounded to the nearest integer, halves away from zero (`d > 0`). In `i64` when
/// everything fits (the usual case, and a native division), else in `i128`.
fn div_round(n: i128, d: i128) -> i128 {
    let narrow = i64::try_from(n).ok().zip(i64::try_from(d).ok()).and_then(|(n, d)| {
        let num = n.checked_abs()?.checked_mul(2)?.checked_add(d)?;
        Some(num / d.checked_mul(2)?)
    });
    let q = narrow.map_or_else(|| (2 * n.abs() + d) / (2 * d), i128::from);
    if n < 0 { -q } else { q }
}

/// The value of component `field` at `t`, strictly inside the window's segment, by `interp`
/// (numeric or wrapping fields; step for anything else is the caller's).
pub(super) fn scalar(field: &Field, interp: Interp, w: Window<Point>, t: Time) -> i32 {
    // Unwrap around `a` so that every step between neighbours is the shortest arc.
    let a = i128::from(w.a.1);
    let unwrap =
        |from: i128, from_raw: i32, to: i32| from + i128::from(field.residual(to, from_raw));
    let (b, prev, next) = if field.wraps {
        let b = unwrap(a, w.a.1, w.b.1);
        let prev = w.prev.map(|p| (p.0, a - i128::from(field.residual(w.a.1, p.1))));
        (b, prev, w.next.map(|n| (n.0, unwrap(b, w.b.1, n.1))))
    } else {
        (
            i128::from(w.b.1),
            w.prev.map(|p| (p.0, i128::from(p.1))),
            w.next.map(|n| (n.0, i128::from(n.1))),
        )
    };
    let h = i128::from(w.b.0) - i128::from(w.a.0);
    let u = i128::from(t.0) - (i128::from(w.a.0) << Time::FRAC_BITS);
    let v = match interp {
        Interp::Step => a,
        Interp::Linear => a + div_round((b - a) * u, h << Time::FRAC_BITS),
        Interp::Cubic => {
            let left = prev.map(|(pt, pv)| (i128::from(w.a.0) - i128::from(pt), a - pv));
            let right = next.map(|(nt, nv)| (i128::from(nt) - i128::from(w.b.0), nv - b));
            let ta = tangent(left, Some((h, b - a)));
            let tb = tangent(Some((h, b - a)), right);
            hermite(a, b, ta * h, tb * h, (u << (S_BITS - Time::FRAC_BITS)) / h)
                .clamp(a.min(b), a.max(b))
        }
    };
    field.clamp(v.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
}

/// The tangent at a keyframe, raw steps per frame in 16.16, from the (width in frames, rise)
/// of the segments on its left and right: Fritsch–Butland's weighted harmonic mean of their
/// slopes, 0 where they differ in sign or one is flat; a lone segment's own slope.
fn tangent(left: Option<(i128, i128)>, right: Option<(i128, i128)>) -> i128 {
    match (left, right) {
        (Some((h0, d0)), Some((h1, d1))) => {
            if d0 == 0 || d1 == 0 || (d0 < 0) != (d1 < 0) {
                return 0;
            }
            let n = 3 * (h0 + h1) * d0.abs() * d1.abs();
            let q = ((2 * h1 + h0) * h0 * d1 + (h1 + 2 * h0) * h1 * d0).abs();
            let m = div_round(n * ONE, q);
            if d0 < 0 { -m } else { m }
        }
        (Some((h, d)), None) | (None, Some((h, d))) => div_round(d * ONE, h),
        (None, None) => 0,
    }
}

/// The cubic Hermite curve from `a` to `b` with end tangents `da`, `db` (raw steps over the
/// whole segment, 16.16) at position `s` (`S_BITS` fractional bits, `0 <= s < 1`), rounded.
fn hermite(a: i128, b: i128, da: i128, db: i128, s: i128) -> i128 {
    let y = (b - a) * ONE;
    let c3 = -2 * y + da + db;
    let c2 = 3 * y - 2 * da - db;
    let mut acc = c3;
    acc = ((acc * s) >> S_BITS) + c2;
    acc = ((acc * s) >> S_BITS) + da;
    acc = (acc * s) >> S_BITS;
    a + div_round(acc, ONE)
}

/// The rotation at `t` strictly inside the segment from `a` to `b` (raw smallest-three
/// forms): normalised lerp on the shorter arc, requantised ([`crate::blend`]'s, at the
/// segment's weight in 1/65536ths).
pub(super) fn quat(q: &QuatQuant, a: (u32, &[i32]), b: (u32, &[i32]), t: Time) -> [i32; 4] {
    let h = (i128::from(b.0) - i128::from(a.0)) << Time::FRAC_BITS;
    let u = i128::from(t.0) - (i128::from(a.0) << Time::FRAC_BITS);
    let w = (u << 16) / h.max(1);
    crate::blend::nlerp(q, a.1, b.1, w.clamp(0, i128::from(crate::blend::ONE)) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_rounds_halves_away_from_zero_narrow_or_wide() {
        let wide = |n: i128, d: i128| {
            let q = (2 * n.abs() + d) / (2 * d);
            if n < 0 { -q } else { q }
        };
        assert_eq!(
            (div_round(5, 2), div_round(-5, 2), div_round(4, 3), div_round(-4, 3)),
            (3, -3, 1, -1)
        );
        for n in [
            0,
            7,
            -7,
            i128::from(i64::MAX),
            i128::from(i64::MIN) + 1,
            1 << 62,
            -(1 << 62),
            1 << 100,
            -(1 << 100),
        ] {
            for d in [1, 2, 3, 1 << 20, i128::from(i64::MAX), 1 << 70] {
                assert_eq!(div_round(n, d), wide(n, d), "{n} / {d}");
            }
        }
    }
}
