//! Unit quaternions as "smallest three" (Fiedler, 2015).

use core::f64::consts::FRAC_1_SQRT_2;

use super::float::sqrt_clamped;
use super::{FixedQuant, IntQuant};
use crate::{Error, Result};

/// The identity rotation, `[x, y, z, w]`.
const IDENTITY: [f64; 4] = [0.0, 0.0, 0.0, 1.0];

/// A unit quaternion `[x, y, z, w]` stored as the index of its largest component and the
/// other three components ("smallest three", Fiedler 2015).
///
/// The raw form is `[index, a, b, c]`: `index` in `0..=3` names the component of largest
/// magnitude (the first one on ties), and `a, b, c` are the other three components in order,
/// each in `[-1/√2, +1/√2]` on a grid of `2^bits` points ([`Self::component`]). Because `q`
/// and `-q` are the same rotation, the quaternion is negated first if its largest component
/// is negative; dequantising rebuilds that component as `sqrt(1 - a² - b² - c²)`, so it is
/// never negative. Inputs need not be unit length: they are normalised first.
///
/// Out of range: a zero quaternion or one with a NaN or infinite component quantises to the
/// identity, and is [`Error::OutOfRange`] for [`Self::try_quantise`].
///
/// Precision: each of the three stored components is within half a step,
/// `e = resolution() / 2 = 1 / (√2 (2^bits - 1))`, of the normalised input. The rebuilt
/// largest component `L` is within `(2√3·e·√(1 - L²) + 3e²) / L <= 6e + 6e²` of it (the worst
/// case is `L = 1/2`, all four components equal in magnitude).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuatQuant {
    component: FixedQuant,
}

impl QuatQuant {
    /// The index of the largest component, `0..=3`.
    const INDEX: IntQuant = match IntQuant::new(0, 3) {
        Ok(q) => q,
        Err(_) => panic!("0 < 3"),
    };

    /// Smallest three at `bits` bits per component; fails with [`Error::InvalidQuantiser`]
    /// unless `bits` is in `1..=31`.
    pub const fn new(bits: u32) -> Result<Self> {
        match FixedQuant::with_bits(-FRAC_1_SQRT_2, FRAC_1_SQRT_2, bits) {
            Ok(component) => Ok(QuatQuant { component }),
            Err(e) => Err(e),
        }
    }

    /// The fingerprint of this quantiser's component precision, for the schema hash.
    #[inline]
    pub const fn fingerprint(&self) -> u64 {
        super::fingerprint(4, &[self.component.fingerprint()])
    }

    /// The quantiser of each of the three stored components: `[-1/√2, +1/√2]` at `bits` bits.
    pub const fn component(&self) -> FixedQuant {
        self.component
    }

    /// The quantiser of the largest component's index: `0..=3`, 2 bits.
    pub const fn index(&self) -> IntQuant {
        Self::INDEX
    }

    /// The grid step of a stored component, `√2 / (2^bits - 1)`.
    pub const fn resolution(&self) -> f64 {
        self.component.resolution()
    }

    /// The smallest raw value of a stored component, 0.
    pub const fn raw_min(&self) -> i32 {
        self.component.raw_min()
    }

    /// The largest raw value of a stored component, `2^bits - 1`.
    pub const fn raw_max(&self) -> i32 {
        self.component.raw_max()
    }

    /// Bits per stored component (1..=31); the index takes 2 more ([`Self::total_bits`]).
    pub const fn bits(&self) -> u32 {
        self.component.bits()
    }

    /// Bits of the whole raw form: 2 for the index plus 3 × [`Self::bits`].
    pub const fn total_bits(&self) -> u32 {
        Self::INDEX.bits() + 3 * self.bits()
    }

    /// Quaternions do not wrap: always `false`.
    pub const fn wraps(&self) -> bool {
        false
    }

    /// The raw form `[index, a, b, c]` of the rotation `q = [x, y, z, w]`, normalised first;
    /// zero and non-finite quaternions give the identity's raw form.
    pub const fn quantise(&self, q: [f64; 4]) -> [i32; 4] {
        let q = match normalise(q) {
            Some(q) => q,
            None => IDENTITY,
        };
        let mut largest = 0;
        let mut k = 1;
        while k < 4 {
            if q[k].abs() > q[largest].abs() {
                largest = k;
            }
            k += 1;
        }
        let sign = if q[largest] < 0.0 { -1.0 } else { 1.0 };
        let mut raw = [largest as i32, 0, 0, 0];
        let mut j = 1;
        let mut k = 0;
        while k < 4 {
            if k != largest {
                raw[j] = self.component.quantise(sign * q[k]);
                j += 1;
            }
            k += 1;
        }
        raw
    }

    /// Like [`Self::quantise`], but zero and non-finite quaternions are
    /// [`Error::OutOfRange`].
    pub const fn try_quantise(&self, q: [f64; 4]) -> Result<[i32; 4]> {
        match normalise(q) {
            Some(_) => Ok(self.quantise(q)),
            None => Err(Error::OutOfRange),
        }
    }

    /// The quaternion `[x, y, z, w]` of a raw form, its largest component rebuilt as
    /// `sqrt(1 - a² - b² - c²)` (0 if that is negative).
    ///
    /// The index and components are clamped to their ranges first. The result is unit length
    /// up to quantisation error, and equals the quantised rotation or its negation.
    pub const fn dequantise(&self, raw: [i32; 4]) -> [f64; 4] {
        let largest = Self::INDEX.dequantise(raw[0]) as usize;
        let a = self.component.dequantise(raw[1]);
        let b = self.component.dequantise(raw[2]);
        let c = self.component.dequantise(raw[3]);
        let mut out = [a, b, c, 0.0];
        // Shift the stored components above the largest one up a slot, then fill it in.
        let mut k = 3;
        while k > largest {
            out[k] = out[k - 1];
            k -= 1;
        }
        out[largest] = sqrt_clamped(1.0 - (a * a + b * b + c * c));
        out
    }

    /// The raw form in which the largest-component index is `to` (clamped into `0..=3`) of
    /// the rotation of raw form `raw`, in integer arithmetic (both ends of a connection get the
    /// same bits): the rotation is rebuilt from `raw` on the component grid, its largest
    /// component `L` as the nearest integer to the exact `sqrt(1 - a² - b² - c²)`, negated
    /// if its component `to` is negative, and the three components other than `to` are
    /// rounded (halves up) and clamped back onto the grid.
    ///
    /// With `to` the index of `raw` (clamped), `raw` (clamped) comes back unchanged. Rebuilding
    /// in another basis puts each component within half a step of the rotation's (up to the
    /// clamping of a component beyond `1/√2`, which the smallest three never hold): this is a
    /// prediction in the basis `to`, as from history samples of another basis.
    pub const fn rebase(&self, raw: [i32; 4], to: i32) -> [i32; 4] {
        let from = Self::INDEX.dequantise(raw[0]) as usize;
        let to = Self::INDEX.dequantise(to) as usize;
        // Components in units of `1 / (m √2)`: `u = 2 raw − m` is an integer in `[−m, m]`.
        let m = self.component.raw_max() as i64;
        let mut full = [0i64; 4];
        let mut squares: u64 = 0;
        let (mut j, mut k) = (1, 0);
        while k < 4 {
            if k != from {
                let r = if raw[j] < 0 {
                    0
                } else if raw[j] as i64 > m {
                    m
                } else {
                    raw[j] as i64
                };
                full[k] = 2 * r - m;
                // Each square is below 2^62: three of them fit a u64.
                squares += (full[k] * full[k]) as u64;
                j += 1;
            }
            k += 1;
        }
        // `L` in the same units: the nearest integer to `sqrt(2 m² − Σ u²)`.
        let rest = (2 * m * m) as u64;
        let x = rest.saturating_sub(squares);
        let root = x.isqrt();
        full[from] = (root + (x - root * root > root) as u64) as i64;
        let sign = if full[to] < 0 { -1 } else { 1 };
        let mut out = [to as i32, 0, 0, 0];
        let (mut j, mut k) = (1, 0);
        while k < 4 {
            if k != to {
                let r = (sign * full[k] + m + 1) >> 1;
                out[j] = if r < 0 {
                    0
                } else if r > m {
                    m as i32
                } else {
                    r as i32
                };
                j += 1;
            }
            k += 1;
        }
        out
    }
}

/// `q / |q|`, or `None` if `q` is zero or has a non-finite component.
///
/// Scales by the largest magnitude first, so huge and tiny quaternions neither overflow nor
/// underflow.
const fn normalise(q: [f64; 4]) -> Option<[f64; 4]> {
    let mut m = 0.0;
    let mut k = 0;
    while k < 4 {
        if !q[k].is_finite() {
            return None;
        }
        if q[k].abs() > m {
            m = q[k].abs();
        }
        k += 1;
    }
    if m == 0.0 {
        return None;
    }
    let s = [q[0] / m, q[1] / m, q[2] / m, q[3] / m];
    // In [1, 4]: the largest scaled component is ±1.
    let n = sqrt_clamped(s[0] * s[0] + s[1] * s[1] + s[2] * s[2] + s[3] * s[3]);
    Some([s[0] / n, s[1] / n, s[2] / n, s[3] / n])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const Q9: QuatQuant = match QuatQuant::new(9) {
        Ok(q) => q,
        Err(_) => panic!("bad quantiser"),
    };
    const Q9_TOTAL: u32 = Q9.total_bits();
    const Q9_IDENTITY: [i32; 4] = Q9.quantise(IDENTITY);
    const Q9_MAX: i32 = Q9.raw_max();

    /// Half a step of a stored component.
    fn half_step(q: &QuatQuant) -> f64 {
        q.resolution() * 0.5
    }

    /// The unit quaternion of `q` with its largest component made non-negative, and that
    /// component's index.
    fn canonical(q: [f64; 4]) -> ([f64; 4], usize) {
        let m = q.iter().fold(0.0f64, |m, c| m.max(c.abs()));
        let q = q.map(|c| c / m);
        let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
        let mut largest = 0;
        for k in 1..4 {
            if q[k].abs() > q[largest].abs() {
                largest = k;
            }
        }
        let s = if q[largest] < 0.0 { -1.0 } else { 1.0 };
        (q.map(|c| s * c / n), largest)
    }

    /// Checks the documented error bounds of `dequantise(quantise(q))` against `q`.
    fn check_round_trip(quant: &QuatQuant, q: [f64; 4]) -> core::result::Result<(), TestCaseError> {
        let (unit, largest) = canonical(q);
        let raw = quant.quantise(q);
        prop_assert_eq!(raw[0] as usize, largest);
        for &r in &raw[1..] {
            prop_assert!((quant.raw_min()..=quant.raw_max()).contains(&r));
        }
        let back = quant.dequantise(raw);
        prop_assert!(back[largest] >= 0.0);
        let e = half_step(quant);
        let noise = 1e-12;
        let l = unit[largest];
        let largest_bound =
            (2.0 * 3f64.sqrt() * e * (1.0 - l * l).max(0.0).sqrt() + 3.0 * e * e) / l;
        prop_assert!(largest_bound <= 6.0 * e + 6.0 * e * e + noise);
        for k in 0..4 {
            let err = (back[k] - unit[k]).abs();
            let bound = if k == largest { largest_bound } else { e };
            prop_assert!(
                err <= bound + noise,
                "component {k}: {back:?} vs {unit:?}, err {err}, bound {bound}"
            );
        }
        Ok(())
    }

    #[test]
    fn consts() {
        assert_eq!(Q9_TOTAL, 29);
        assert_eq!(Q9_MAX, 511);
        assert_eq!(Q9.bits(), 9);
        assert_eq!(Q9.raw_min(), 0);
        assert!(!Q9.wraps());
        assert_eq!(Q9.component().min(), -FRAC_1_SQRT_2);
        assert_eq!(Q9.component().max(), FRAC_1_SQRT_2);
        assert_eq!((Q9.index().raw_min(), Q9.index().raw_max(), Q9.index().bits()), (0, 3, 2));
        assert_eq!(Q9_IDENTITY[0], 3);
    }

    #[test]
    fn bit_widths() {
        assert_eq!(QuatQuant::new(0), Err(Error::InvalidQuantiser));
        assert_eq!(QuatQuant::new(32), Err(Error::InvalidQuantiser));
        for bits in 1..=31 {
            let q = QuatQuant::new(bits).unwrap();
            assert_eq!(q.bits(), bits);
            assert_eq!(q.total_bits(), 2 + 3 * bits);
            for quat in [
                [0.0, 0.0, 0.0, 1.0],
                [1.0, 0.0, 0.0, 0.0],
                [0.0, -1.0, 0.0, 0.0],
                [0.5, 0.5, 0.5, 0.5],
                [-0.5, 0.5, -0.5, 0.5],
                [FRAC_1_SQRT_2, 0.0, 0.0, FRAC_1_SQRT_2],
                [0.1, -0.7, 0.2, 0.6],
                [1e-300, 2e-300, -3e-300, 4e-300],
                [1e300, -2e300, 3e300, 4e300],
            ] {
                check_round_trip(&q, quat).unwrap();
            }
        }
    }

    #[test]
    fn degenerate_inputs_are_identity() {
        for quat in [
            [0.0; 4],
            [-0.0; 4],
            [f64::NAN, 0.0, 0.0, 1.0],
            [0.0, f64::INFINITY, 0.0, 0.0],
            [0.0, 0.0, f64::NEG_INFINITY, 1.0],
        ] {
            assert_eq!(Q9.quantise(quat), Q9_IDENTITY);
            assert_eq!(Q9.try_quantise(quat), Err(Error::OutOfRange));
        }
        assert_eq!(Q9.try_quantise([0.0, 0.0, 0.0, 2.0]), Ok(Q9_IDENTITY));
        let back = Q9.dequantise(Q9_IDENTITY);
        assert!(back[3] > 1.0 - 1e-5);
        for c in &back[..3] {
            assert!(c.abs() <= half_step(&Q9) + 1e-12);
        }
    }

    #[test]
    fn ties_pick_the_first_component() {
        assert_eq!(Q9.quantise([0.5, 0.5, 0.5, 0.5])[0], 0);
        assert_eq!(Q9.quantise([0.5, -0.5, 0.5, 0.5])[0], 0);
        assert_eq!(Q9.quantise([0.0, -0.6, 0.6, 0.0])[0], 1);
    }

    #[test]
    fn garbage_raws_are_clamped() {
        for raw in [
            [i32::MIN, i32::MIN, i32::MIN, i32::MIN],
            [i32::MAX, i32::MAX, i32::MAX, i32::MAX],
            [7, -1, 512, 100],
            [-1, 0, 0, 0],
        ] {
            let back = Q9.dequantise(raw);
            assert!(back.iter().all(|c| c.is_finite()));
            let index = raw[0].clamp(0, 3) as usize;
            assert!(back[index] >= 0.0);
            let clamped =
                [index as i32, raw[1].clamp(0, 511), raw[2].clamp(0, 511), raw[3].clamp(0, 511)];
            assert_eq!(back, Q9.dequantise(clamped));
        }
    }

    /// Any quaternion with a non-negligible norm.
    fn quaternion() -> impl Strategy<Value = [f64; 4]> {
        prop::array::uniform4(-1.0f64..=1.0)
            .prop_filter("not near zero", |q| q.iter().map(|c| c * c).sum::<f64>() > 1e-6)
    }

    proptest! {
        #[test]
        fn round_trip_within_bounds(quat in quaternion(), bits in 1u32..=31, scale in -30i32..=30) {
            let q = QuatQuant::new(bits).unwrap();
            let scaled = quat.map(|c| c * 10f64.powi(scale));
            check_round_trip(&q, scaled)?;
            // Scale (by a power of ten, not exact in binary) leaves the rotation alone; it
            // can only move a component across a rounding boundary.
            let (a, b) = (q.quantise(quat), q.quantise(scaled));
            prop_assert_eq!(a[0], b[0]);
            for k in 1..4 {
                prop_assert!((a[k] - b[k]).abs() <= 1);
            }
        }

        #[test]
        fn sign_convention(quat in quaternion(), bits in 1u32..=31) {
            let q = QuatQuant::new(bits).unwrap();
            let neg = quat.map(|c| -c);
            prop_assert_eq!(q.quantise(quat), q.quantise(neg));
            let back = q.dequantise(q.quantise(quat));
            let largest = q.quantise(quat)[0] as usize;
            prop_assert!(back[largest] >= 0.0);
            // The result is q or -q: whichever sign makes the largest component non-negative.
            let (unit, _) = canonical(quat);
            let tol = 6.0 * half_step(&q) + 6.0 * half_step(&q).powi(2) + 1e-12;
            prop_assert!((0..4).all(|k| (back[k] - unit[k]).abs() <= tol));
        }

        #[test]
        fn rebuilt_rotation_is_unit(quat in quaternion(), bits in 4u32..=31) {
            // From 4 bits on, a² + b² + c² stays below 1 (at most 3/4 + 3e + 3e²), so the
            // rebuilt largest component makes the result unit length up to float noise.
            let q = QuatQuant::new(bits).unwrap();
            let back = q.dequantise(q.quantise(quat));
            let n = back.iter().map(|c| c * c).sum::<f64>().sqrt();
            prop_assert!((n - 1.0).abs() <= 1e-12, "norm {n}");
        }

        #[test]
        fn rebasing_keeps_the_rotation(quat in quaternion(), bits in 4u32..=31, to in 0i32..4) {
            let q = QuatQuant::new(bits).unwrap();
            let (unit, _) = canonical(quat);
            // Components beyond 1/√2 (one, at most) cannot be stored in that basis.
            let others = (0..4).filter(|&k| k != to as usize);
            prop_assume!(others.map(|k| unit[k].abs()).all(|c| c < FRAC_1_SQRT_2 - 1e-9));
            // A small component `to` would amplify the others' errors when rebuilt.
            let l = unit[to as usize].abs();
            prop_assume!(l >= 0.5);
            let raw = q.rebase(q.quantise(quat), to);
            prop_assert_eq!(raw[0], to);
            let back = q.dequantise(raw);
            // Each stored component: the rebuilt largest one's bound, then half a step of
            // rounding onto the grid; the rebuilt component `to`: its bound for those errors.
            let e = half_step(&q);
            let stored = 7.0 * e + 6.0 * e * e;
            let rebuilt = (2.0 * 3f64.sqrt() * stored * (1.0 - l * l).sqrt() + 3.0 * stored * stored) / l;
            let off = |s: f64, k: usize| (back[k] - s * unit[k]).abs();
            let within = |s: f64| (0..4).all(|k| {
                off(s, k) <= if k == to as usize { rebuilt } else { stored } + 1e-12
            });
            prop_assert!(within(1.0) || within(-1.0), "{back:?} vs {unit:?}");
        }

        #[test]
        fn rebasing_to_the_same_index_changes_nothing(raw in prop::array::uniform4(any::<i32>()), bits in 1u32..=31) {
            let q = QuatQuant::new(bits).unwrap();
            let m = q.raw_max();
            let clamped = [raw[0].clamp(0, 3), raw[1].clamp(0, m), raw[2].clamp(0, m), raw[3].clamp(0, m)];
            prop_assert_eq!(q.rebase(raw, raw[0]), clamped);
            for to in [i32::MIN, -1, 0, 1, 2, 3, 4, i32::MAX] {
                let out = q.rebase(raw, to);
                prop_assert_eq!(out[0], to.clamp(0, 3));
                prop_assert!(out[1..].iter().all(|&c| (0..=m).contains(&c)));
            }
        }

        #[test]
        fn any_raw_dequantises(raw in prop::array::uniform4(any::<i32>()), bits in 1u32..=31) {
            let q = QuatQuant::new(bits).unwrap();
            let back = q.dequantise(raw);
            prop_assert!(back.iter().all(|c| c.is_finite() && c.abs() <= 1.0));
            prop_assert!(back[raw[0].clamp(0, 3) as usize] >= 0.0);
        }
    }
}
