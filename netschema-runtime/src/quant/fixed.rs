//! Fixed-point reals over a closed range.

use super::bits_for_range;
use super::float::{clamp, floor, round};
use crate::{Error, Result};

/// The largest number of steps: raw values `0..=steps` must fit an `i32` (31 bits).
const MAX_STEPS: i32 = i32::MAX;

/// How far above an integer `(max - min) / resolution` may fall and still count as that integer.
///
/// Decimal bounds and resolutions are not exact in binary (`1.1 / 0.1` is `11.000000000000002`);
/// without this a schema asking for 0.1 steps over `[0, 1.1]` would get 12 steps instead of 11.
/// Real excesses of float noise are a few ulps; `1e-12` relative is far above that and far below
/// any step a schema would ask for.
const STEPS_SLACK: f64 = 1e-12;

/// A real field in `[min, max]` on an evenly spaced grid of `steps + 1` points.
///
/// Raw value `r` in `0..=steps` stands for `min + r * resolution()`; raw 0 is exactly `min`
/// and raw `steps` exactly `max`. Quantising rounds to the nearest grid point (halves away
/// from `min`), so inside the range the error is at most half a step, up to float rounding.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedQuant {
    min: f64,
    max: f64,
    /// Distance between neighbouring grid points, `(max - min) / steps`.
    step: f64,
    /// The largest raw value, `1..=i32::MAX`.
    steps: i32,
}

impl FixedQuant {
    /// A grid over `[min, max]` whose step is at most `resolution`.
    ///
    /// The grid has `steps = ceil((max - min) / resolution)` steps (at least 1; a quotient
    /// within a relative `1e-12` above an integer counts as that integer, to absorb the float
    /// error of decimal parameters) and spans the range exactly, so [`Self::resolution`] may be
    /// slightly finer than asked for. Fails with [`Error::InvalidQuantiser`] if a bound or the
    /// resolution is not finite, `min >= max`, `resolution <= 0`, or the grid would need more
    /// than 31 bits (`steps > i32::MAX`).
    pub const fn with_resolution(min: f64, max: f64, resolution: f64) -> Result<Self> {
        if !bounds_ok(min, max) || resolution <= 0.0 || !resolution.is_finite() {
            return Err(Error::InvalidQuantiser);
        }
        let q = (max - min) / resolution;
        // Rejects an infinite quotient early; below 2^32 `floor` and the casts are exact.
        if q.is_nan() || q >= 2.0 * MAX_STEPS as f64 {
            return Err(Error::InvalidQuantiser);
        }
        let t = floor(q);
        let steps = if q - t <= q * STEPS_SLACK { t } else { t + 1.0 };
        if steps > MAX_STEPS as f64 {
            return Err(Error::InvalidQuantiser);
        }
        // An underflowing quotient (a resolution far wider than the range) still needs 1 step.
        let steps = if steps < 1.0 { 1 } else { steps as i32 };
        Ok(Self::from_steps(min, max, steps))
    }

    /// A grid over `[min, max]` with raw values `0..2^bits`, so `steps = 2^bits - 1` and
    /// `resolution = (max - min) / steps`.
    ///
    /// Fails with [`Error::InvalidQuantiser`] if a bound is not finite, `min >= max`, or `bits`
    /// is outside `1..=31`.
    pub const fn with_bits(min: f64, max: f64, bits: u32) -> Result<Self> {
        if !bounds_ok(min, max) || bits == 0 || bits > 31 {
            return Err(Error::InvalidQuantiser);
        }
        Ok(Self::from_steps(min, max, ((1u32 << bits) - 1) as i32))
    }

    /// Builds the grid; `min < max` finite with a finite difference, `steps >= 1`.
    const fn from_steps(min: f64, max: f64, steps: i32) -> Self {
        FixedQuant { min, max, step: (max - min) / steps as f64, steps }
    }

    /// The fingerprint of this quantiser's bounds and step, for the schema hash.
    #[inline]
    pub const fn fingerprint(&self) -> u64 {
        super::fingerprint(1, &[self.min.to_bits(), self.max.to_bits(), self.step.to_bits()])
    }

    /// The lower bound, the value of raw 0.
    pub const fn min(&self) -> f64 {
        self.min
    }

    /// The upper bound, the value of raw [`Self::raw_max`].
    pub const fn max(&self) -> f64 {
        self.max
    }

    /// The distance between neighbouring grid points, `(max - min) / raw_max()`.
    pub const fn resolution(&self) -> f64 {
        self.step
    }

    /// The smallest raw value, 0.
    pub const fn raw_min(&self) -> i32 {
        0
    }

    /// The largest raw value: the number of steps.
    pub const fn raw_max(&self) -> i32 {
        self.steps
    }

    /// Bits needed for the raw range (1..=31).
    pub const fn bits(&self) -> u32 {
        bits_for_range(0, self.steps)
    }

    /// Fixed-point reals do not wrap: always `false`.
    pub const fn wraps(&self) -> bool {
        false
    }

    /// The raw value of the grid point nearest to `v`, clamping to the range: values at or
    /// below `min` (and NaN) give 0, values at or above `max` give [`Self::raw_max`].
    pub const fn quantise(&self, v: f64) -> i32 {
        if v.is_nan() || v <= self.min {
            return 0;
        }
        if v >= self.max {
            return self.steps;
        }
        // 0 < v - min < max - min, so the quotient lies in (0, steps] up to rounding.
        let r = round((v - self.min) / self.step);
        clamp(r, 0.0, self.steps as f64) as i32
    }

    /// Like [`Self::quantise`], but NaN and values outside `[min, max]` are
    /// [`Error::OutOfRange`].
    pub const fn try_quantise(&self, v: f64) -> Result<i32> {
        if v >= self.min && v <= self.max { Ok(self.quantise(v)) } else { Err(Error::OutOfRange) }
    }

    /// The value of grid point `raw`, clamped to `0..=raw_max()` first; the result always lies
    /// in `[min, max]`.
    pub const fn dequantise(&self, raw: i32) -> f64 {
        if raw <= 0 {
            return self.min;
        }
        if raw >= self.steps {
            return self.max;
        }
        clamp(self.min + raw as f64 * self.step, self.min, self.max)
    }
}

/// Both bounds finite, in order, with a finite difference.
const fn bounds_ok(min: f64, max: f64) -> bool {
    min.is_finite() && max.is_finite() && min < max && (max - min).is_finite()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const fn unwrap(q: Result<FixedQuant>) -> FixedQuant {
        match q {
            Ok(q) => q,
            Err(_) => panic!("bad quantiser"),
        }
    }

    /// Seed 001's position axis: [-256, 255] m at 512 values per metre.
    const POS: FixedQuant = unwrap(FixedQuant::with_resolution(-256.0, 255.0, 1.0 / 512.0));
    const POS_BITS: u32 = POS.bits();
    const POS_MAX: i32 = POS.raw_max();
    const VEL: FixedQuant = unwrap(FixedQuant::with_bits(-32.0, 32.0, 11));
    const VEL_RES: f64 = VEL.resolution();
    const DECIMAL: FixedQuant = unwrap(FixedQuant::with_resolution(0.0, 1.1, 0.1));
    const HALF: i32 = unwrap(FixedQuant::with_resolution(0.0, 1.0, 0.5)).quantise(0.3);

    /// Half a step plus a few ulps of the largest magnitude involved.
    fn tolerance(q: &FixedQuant) -> f64 {
        let mag = q.min().abs().max(q.max().abs());
        q.resolution() * 0.5 * (1.0 + 1e-9) + 4.0 * mag * f64::EPSILON
    }

    #[test]
    fn consts() {
        assert_eq!(POS_MAX, 511 * 512);
        assert_eq!(POS_BITS, 18);
        assert_eq!(POS.resolution(), 1.0 / 512.0);
        assert_eq!(VEL.raw_max(), 2047);
        assert_eq!(VEL.bits(), 11);
        assert_eq!(VEL_RES, 64.0 / 2047.0);
        assert_eq!(DECIMAL.raw_max(), 11);
        assert_eq!(HALF, 1);
        assert!(!POS.wraps());
        assert_eq!(POS.raw_min(), 0);
        assert_eq!((POS.min(), POS.max()), (-256.0, 255.0));
    }

    #[test]
    fn steps_round_up() {
        let q = FixedQuant::with_resolution(0.0, 1.0, 0.3).unwrap();
        assert_eq!(q.raw_max(), 4);
        assert!(q.resolution() <= 0.3);
        let q = FixedQuant::with_resolution(0.0, 1.0, 5.0).unwrap();
        assert_eq!(q.raw_max(), 1);
        assert_eq!(q.bits(), 1);
        let q = FixedQuant::with_resolution(0.0, 1e-300, 1e300).unwrap();
        assert_eq!(q.raw_max(), 1);
        let q = FixedQuant::with_resolution(0.0, 0.7, 0.1).unwrap();
        assert_eq!(q.raw_max(), 7);
    }

    #[test]
    fn rejects_bad_parameters() {
        let bad = Err(Error::InvalidQuantiser);
        assert_eq!(FixedQuant::with_resolution(1.0, 1.0, 0.1), bad);
        assert_eq!(FixedQuant::with_resolution(2.0, 1.0, 0.1), bad);
        assert_eq!(FixedQuant::with_resolution(f64::NAN, 1.0, 0.1), bad);
        assert_eq!(FixedQuant::with_resolution(0.0, f64::NAN, 0.1), bad);
        assert_eq!(FixedQuant::with_resolution(f64::NEG_INFINITY, 1.0, 0.1), bad);
        assert_eq!(FixedQuant::with_resolution(0.0, f64::INFINITY, 0.1), bad);
        assert_eq!(FixedQuant::with_resolution(-1e308, 1e308, 1e300), bad);
        assert_eq!(FixedQuant::with_resolution(0.0, 1.0, 0.0), bad);
        assert_eq!(FixedQuant::with_resolution(0.0, 1.0, -0.1), bad);
        assert_eq!(FixedQuant::with_resolution(0.0, 1.0, f64::NAN), bad);
        assert_eq!(FixedQuant::with_resolution(0.0, 1.0, f64::INFINITY), bad);
        assert_eq!(FixedQuant::with_resolution(0.0, 1.0, 1e-320), bad);
        assert_eq!(FixedQuant::with_resolution(0.0, 1.0, 1e-10), bad);
        assert_eq!(FixedQuant::with_resolution(0.0, 2147483648.0, 1.0), bad);
        assert_eq!(FixedQuant::with_bits(0.0, 1.0, 0), bad);
        assert_eq!(FixedQuant::with_bits(0.0, 1.0, 32), bad);
        assert_eq!(FixedQuant::with_bits(1.0, 0.0, 8), bad);
        assert_eq!(FixedQuant::with_bits(0.0, f64::NAN, 8), bad);
        assert_eq!(FixedQuant::with_bits(-1e308, 1e308, 8), bad);
    }

    #[test]
    fn widest_grids() {
        let q = FixedQuant::with_resolution(0.0, 2147483647.0, 1.0).unwrap();
        assert_eq!((q.raw_max(), q.bits()), (i32::MAX, 31));
        assert_eq!(q.quantise(2147483646.6), i32::MAX);
        assert_eq!(q.dequantise(i32::MAX), 2147483647.0);
        let q = FixedQuant::with_bits(-1.0, 1.0, 31).unwrap();
        assert_eq!(q.raw_max(), i32::MAX);
        for raw in [0, 1, 2, 1 << 30, i32::MAX - 1, i32::MAX] {
            assert_eq!(q.quantise(q.dequantise(raw)), raw);
        }
    }

    #[test]
    fn every_bit_width() {
        for bits in 1..=31 {
            let q = FixedQuant::with_bits(-3.5, 12.25, bits).unwrap();
            assert_eq!(q.bits(), bits);
            assert_eq!(q.raw_max(), ((1u32 << bits) - 1) as i32);
            assert_eq!(q.dequantise(0), -3.5);
            assert_eq!(q.dequantise(q.raw_max()), 12.25);
            let mid = q.raw_max() / 2;
            for raw in [0, 1, mid, mid + 1, q.raw_max() - 1, q.raw_max()] {
                assert_eq!(q.quantise(q.dequantise(raw)), raw, "bits {bits} raw {raw}");
            }
            for v in [-3.5, -3.4999, 0.0, 1.0, 7.3, 12.2499, 12.25] {
                let err = (q.dequantise(q.quantise(v)) - v).abs();
                assert!(err <= tolerance(&q), "bits {bits} v {v} err {err}");
            }
        }
    }

    #[test]
    fn clamps_outside() {
        let q = VEL;
        assert_eq!(q.quantise(-32.0001), 0);
        assert_eq!(q.quantise(f64::NEG_INFINITY), 0);
        assert_eq!(q.quantise(f64::NAN), 0);
        assert_eq!(q.quantise(32.0001), 2047);
        assert_eq!(q.quantise(f64::INFINITY), 2047);
        assert_eq!(q.quantise(f64::MAX), 2047);
        assert_eq!(q.try_quantise(-32.0), Ok(0));
        assert_eq!(q.try_quantise(32.0), Ok(2047));
        assert_eq!(q.try_quantise(32.0001), Err(Error::OutOfRange));
        assert_eq!(q.try_quantise(-32.0001), Err(Error::OutOfRange));
        assert_eq!(q.try_quantise(f64::NAN), Err(Error::OutOfRange));
        assert_eq!(q.try_quantise(f64::INFINITY), Err(Error::OutOfRange));
        assert_eq!(q.dequantise(-1), -32.0);
        assert_eq!(q.dequantise(i32::MIN), -32.0);
        assert_eq!(q.dequantise(2048), 32.0);
        assert_eq!(q.dequantise(i32::MAX), 32.0);
    }

    /// Bounds of every scale and sign, with `min < max`.
    fn bounds() -> impl Strategy<Value = (f64, f64)> {
        (-1e6f64..1e6, 1e-3f64..1e6).prop_map(|(min, width)| (min, min + width))
    }

    proptest! {
        #[test]
        fn bits_form_error_within_half_step(
            (min, max) in bounds(), bits in 1u32..=31, t in 0.0f64..=1.0,
        ) {
            let q = FixedQuant::with_bits(min, max, bits).unwrap();
            let v = min + t * (max - min);
            let raw = q.quantise(v);
            prop_assert!((0..=q.raw_max()).contains(&raw));
            prop_assert_eq!(q.try_quantise(v.min(max)), Ok(q.quantise(v.min(max))));
            let back = q.dequantise(raw);
            prop_assert!(back >= min && back <= max);
            prop_assert!((back - v).abs() <= tolerance(&q), "v {} back {} step {}", v, back, q.resolution());
        }

        #[test]
        fn resolution_form_error_within_half_step(
            (min, max) in bounds(), res_frac in 1e-8f64..=2.0, t in 0.0f64..=1.0,
        ) {
            let res = (max - min) * res_frac;
            let q = FixedQuant::with_resolution(min, max, res).unwrap();
            prop_assert!(q.resolution() <= res * (1.0 + 1e-9));
            prop_assert!(q.raw_max() >= 1);
            let v = min + t * (max - min);
            let back = q.dequantise(q.quantise(v));
            prop_assert!((back - v).abs() <= tolerance(&q));
            prop_assert!((back - v).abs() <= res * 0.5 * (1.0 + 1e-9) + 4.0 * (min.abs().max(max.abs())) * f64::EPSILON);
        }

        #[test]
        fn raw_round_trip((min, max) in bounds(), bits in 1u32..=31, r in any::<u32>()) {
            let q = FixedQuant::with_bits(min, max, bits).unwrap();
            // Only grids whose step is well above float resolution can round-trip every raw.
            prop_assume!(q.resolution() > min.abs().max(max.abs()) * 1e-12);
            let raw = (r % (q.raw_max() as u32 + 1)) as i32;
            prop_assert_eq!(q.quantise(q.dequantise(raw)), raw);
        }

        #[test]
        fn clamps_and_rejects_outside((min, max) in bounds(), bits in 1u32..=31, d in 1e-6f64..1e9) {
            let q = FixedQuant::with_bits(min, max, bits).unwrap();
            prop_assert_eq!(q.quantise(min - d), 0);
            prop_assert_eq!(q.quantise(max + d), q.raw_max());
            prop_assert_eq!(q.try_quantise(min - d), Err(Error::OutOfRange));
            prop_assert_eq!(q.try_quantise(max + d), Err(Error::OutOfRange));
        }
    }
}
