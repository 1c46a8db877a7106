//! The few `f64` functions that `core` lacks, as deterministic, panic-free `const fn`s.
//!
//! Without `std`, `f64` has no `floor`, `round` or `sqrt`. These versions use only casts and
//! IEEE arithmetic, so they give the same result at compile time and at run time, with or
//! without `std`.

/// From this magnitude on, every `f64` is an integer (2^52).
const INTEGRAL: f64 = 4_503_599_627_370_496.0;

/// The largest integer not above `x`; NaN, infinities and integers come back unchanged.
pub(super) const fn floor(x: f64) -> f64 {
    if x.is_nan() || x.abs() >= INTEGRAL {
        return x;
    }
    // |x| < 2^52, so the truncating cast is exact and cannot saturate.
    let t = (x as i64) as f64;
    if t > x { t - 1.0 } else { t }
}

/// `x` rounded to the nearest integer, halves away from zero; NaN and infinities unchanged.
pub(super) const fn round(x: f64) -> f64 {
    if x.is_nan() || x.abs() >= INTEGRAL {
        return x;
    }
    let t = (x as i64) as f64;
    // `x - t` is the fractional part, exact because both share their leading bits.
    let d = x - t;
    if d >= 0.5 {
        t + 1.0
    } else if d <= -0.5 {
        t - 1.0
    } else {
        t
    }
}

/// `x` limited to `[lo, hi]` (with `lo <= hi`); NaN gives `lo`.
pub(super) const fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    if x >= hi {
        hi
    } else if x > lo {
        x
    } else {
        lo
    }
}

/// The square root of `x`, with negative inputs and NaN treated as 0 and `+∞` returned as is.
///
/// Newton's method from an exponent-halving first guess; the result is within one ulp of the
/// correctly rounded root.
pub(super) const fn sqrt_clamped(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return 0.0;
    }
    if x == f64::INFINITY {
        return x;
    }
    // Bring subnormals and tiny values up by an exact power of four so the bit trick works.
    let (x, scale) = if x < 1.0e-270 { (x * pow2(900), pow2(-450)) } else { (x, 1.0) };
    // Halving the biased exponent gives a first guess within about 6% of the root.
    let mut y = f64::from_bits((x.to_bits() >> 1) + (1023u64 << 51));
    let mut i = 0;
    while i < 6 {
        y = 0.5 * (y + x / y);
        i += 1;
    }
    y * scale
}

/// `2^e`, exactly, for `-1022 <= e <= 1023`.
const fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn special_values() {
        assert_eq!(floor(-0.5), -1.0);
        assert_eq!(floor(2.0), 2.0);
        assert_eq!(floor(-2.0), -2.0);
        assert_eq!(floor(1e300), 1e300);
        assert!(floor(f64::NAN).is_nan());
        assert_eq!(floor(f64::NEG_INFINITY), f64::NEG_INFINITY);
        assert_eq!(round(0.5), 1.0);
        assert_eq!(round(-0.5), -1.0);
        assert_eq!(round(0.49999999999999994), 0.0);
        assert_eq!(round(2.5), 3.0);
        assert_eq!(round(4503599627370495.5), 4503599627370496.0);
        assert!(round(f64::NAN).is_nan());
        assert_eq!(clamp(f64::NAN, -1.0, 1.0), -1.0);
        assert_eq!(clamp(f64::INFINITY, -1.0, 1.0), 1.0);
        assert_eq!(clamp(0.25, -1.0, 1.0), 0.25);
        assert_eq!(sqrt_clamped(0.0), 0.0);
        assert_eq!(sqrt_clamped(-4.0), 0.0);
        assert_eq!(sqrt_clamped(f64::NAN), 0.0);
        assert_eq!(sqrt_clamped(f64::INFINITY), f64::INFINITY);
        assert_eq!(sqrt_clamped(4.0), 2.0);
        assert_eq!(sqrt_clamped(1.0), 1.0);
        assert_eq!(pow2(-450) * pow2(450), 1.0);
    }

    fn assert_ulp_close(got: f64, want: f64) {
        let d = (got.to_bits() as i64 - want.to_bits() as i64).abs();
        assert!(d <= 1, "got {got:e}, want {want:e}");
    }

    #[test]
    fn sqrt_extremes() {
        for x in [f64::MIN_POSITIVE, 5e-324, 1e-300, 1e-270, 0.25, 0.5, 0.75, 2.0, 3.0, f64::MAX] {
            assert_ulp_close(sqrt_clamped(x), x.sqrt());
        }
    }

    proptest! {
        #[test]
        fn floor_and_round_match_std(x in -1e17f64..1e17) {
            prop_assert_eq!(floor(x), x.floor());
            prop_assert_eq!(round(x), x.round());
        }

        #[test]
        fn floor_and_round_small(x in -4.0f64..4.0) {
            prop_assert_eq!(floor(x), x.floor());
            prop_assert_eq!(round(x), x.round());
        }

        #[test]
        fn sqrt_matches_std_unit(x in 0.0f64..4.0) {
            assert_ulp_close(sqrt_clamped(x), x.sqrt());
        }

        #[test]
        fn sqrt_matches_std_any(bits in 1u64..0x7ff0_0000_0000_0000) {
            let x = f64::from_bits(bits);
            assert_ulp_close(sqrt_clamped(x), x.sqrt());
        }
    }
}
