//! Wrapping angles.

use core::f64::consts::TAU;

use super::float::{floor, round};
use crate::{Error, Result};

/// An angle in radians on a circle of `2^bits` evenly spaced points.
///
/// Any finite input is wrapped into `[0, 2π)` first, so `-0.1` and `2π - 0.1` are the same
/// angle. Raw value `r` in `0..2^bits` stands for `r · 2π / 2^bits`, and the raw range wraps
/// too: raw `2^bits` is raw 0, so residuals of angles can be taken modulo `2^bits`. Inputs are
/// rounded to the nearest point, an error of at most half a step, `π / 2^bits`.
///
/// `bits` is limited to `0..=31` so raw values fit an `i32`; with 0 bits every angle is 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AngleQuant {
    bits: u32,
}

impl AngleQuant {
    /// A circle of `2^bits` points; fails with [`Error::InvalidQuantiser`] if `bits > 31`.
    pub const fn new(bits: u32) -> Result<Self> {
        if bits > 31 {
            return Err(Error::InvalidQuantiser);
        }
        Ok(AngleQuant { bits })
    }

    /// The number of raw values, `2^bits` (the period of the raw range).
    const fn points(&self) -> f64 {
        (1u64 << self.bits) as f64
    }

    /// The mask that reduces a raw value modulo `2^bits`.
    const fn mask(&self) -> u32 {
        ((1u64 << self.bits) - 1) as u32
    }

    /// The fingerprint of this quantiser's bit count, for the schema hash.
    pub const fn fingerprint(&self) -> u64 {
        super::fingerprint(3, &[self.bits as u64])
    }

    /// The angle between neighbouring points, `2π / 2^bits` radians.
    pub const fn resolution(&self) -> f64 {
        TAU / self.points()
    }

    /// The smallest raw value, 0.
    pub const fn raw_min(&self) -> i32 {
        0
    }

    /// The largest raw value, `2^bits - 1`.
    pub const fn raw_max(&self) -> i32 {
        self.mask() as i32
    }

    /// Bits needed for the raw range: `bits` (0..=31).
    pub const fn bits(&self) -> u32 {
        self.bits
    }

    /// Angles wrap: always `true`. Raw `raw_max() + 1` is raw `raw_min()`.
    pub const fn wraps(&self) -> bool {
        true
    }

    /// The raw value of the point nearest to `v` wrapped into `[0, 2π)`; NaN and infinities,
    /// which have no angle, give 0.
    pub const fn quantise(&self, v: f64) -> i32 {
        if !v.is_finite() {
            return 0;
        }
        let turns = v / TAU;
        // In [0, 1]: 1 only when a tiny negative angle rounds up to a full turn.
        let frac = turns - floor(turns);
        // At most 2^31, exact in an i64; the point 2^bits is the point 0.
        let r = round(frac * self.points()) as i64;
        (r as u32 & self.mask()) as i32
    }

    /// Like [`Self::quantise`], but NaN and infinities are [`Error::OutOfRange`]; every finite
    /// angle is in range.
    pub const fn try_quantise(&self, v: f64) -> Result<i32> {
        if v.is_finite() { Ok(self.quantise(v)) } else { Err(Error::OutOfRange) }
    }

    /// The angle of `raw` in `[0, 2π)`, after reducing `raw` modulo `2^bits`.
    pub const fn dequantise(&self, raw: i32) -> f64 {
        (raw as u32 & self.mask()) as f64 * self.resolution()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::f64::consts::PI;
    use proptest::prelude::*;

    const HEADING: AngleQuant = match AngleQuant::new(12) {
        Ok(q) => q,
        Err(_) => panic!("bad quantiser"),
    };
    const HEADING_MAX: i32 = HEADING.raw_max();
    const HEADING_WRAPS: bool = HEADING.wraps();
    const HALF_TURN: i32 = HEADING.quantise(PI);

    /// Distance between two angles on the circle.
    fn circular_distance(a: f64, b: f64) -> f64 {
        let d = (a - b).rem_euclid(TAU);
        d.min(TAU - d)
    }

    /// Half a step plus float noise for inputs of magnitude `v`.
    fn tolerance(q: &AngleQuant, v: f64) -> f64 {
        q.resolution() * 0.5 * (1.0 + 1e-9) + 8.0 * (v.abs() + TAU) * f64::EPSILON
    }

    #[test]
    fn consts() {
        assert_eq!(HEADING_MAX, 4095);
        const { assert!(HEADING_WRAPS) };
        assert_eq!(HALF_TURN, 2048);
        assert_eq!(HEADING.bits(), 12);
        assert_eq!(HEADING.raw_min(), 0);
        assert_eq!(HEADING.resolution(), TAU / 4096.0);
    }

    #[test]
    fn bit_widths() {
        assert_eq!(AngleQuant::new(32), Err(Error::InvalidQuantiser));
        assert_eq!(AngleQuant::new(u32::MAX), Err(Error::InvalidQuantiser));
        let zero = AngleQuant::new(0).unwrap();
        assert_eq!((zero.raw_max(), zero.bits()), (0, 0));
        for v in [-1.0, 0.0, 3.0, 6.2, 1e10] {
            assert_eq!(zero.quantise(v), 0);
        }
        assert_eq!(zero.dequantise(5), 0.0);
        for bits in 1..=31 {
            let q = AngleQuant::new(bits).unwrap();
            assert_eq!(q.bits(), bits);
            assert_eq!(q.raw_max() as i64, (1i64 << bits) - 1);
            let max = q.raw_max();
            for raw in [0, 1, max / 2, max / 2 + 1, max - 1, max] {
                assert_eq!(q.quantise(q.dequantise(raw)), raw, "bits {bits} raw {raw}");
            }
            for v in [0.0, 0.1, 1.0, PI, 4.0, TAU - 1e-3, -2.5, 100.0] {
                let back = q.dequantise(q.quantise(v));
                assert!((0.0..TAU).contains(&back));
                assert!(circular_distance(back, v) <= tolerance(&q, v), "bits {bits} v {v}");
            }
        }
    }

    #[test]
    fn wraps_around() {
        for bits in 1..=31 {
            let q = AngleQuant::new(bits).unwrap();
            assert_eq!(q.quantise(-0.1), q.quantise(TAU - 0.1), "bits {bits}");
            assert_eq!(q.quantise(TAU), 0);
            assert_eq!(q.quantise(-TAU), 0);
            assert_eq!(q.quantise(-1e-300), 0);
            assert_eq!(q.quantise(TAU - 1e-12), 0);
            let period = 1i64 << bits;
            assert_eq!(q.dequantise(-1), q.dequantise(q.raw_max()));
            if bits < 31 {
                assert_eq!(q.dequantise(period as i32), 0.0);
                assert_eq!(q.dequantise(period as i32 + 3), q.dequantise(3));
            }
        }
        assert_eq!(HEADING.quantise(-PI), HEADING.quantise(PI));
        assert_eq!(HEADING.quantise(3.0 * PI), HEADING.quantise(PI));
        assert_eq!(HEADING.dequantise(i32::MIN), 0.0);
        assert_eq!(HEADING.dequantise(i32::MAX), HEADING.dequantise(4095));
    }

    #[test]
    fn non_finite() {
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(HEADING.quantise(v), 0);
            assert_eq!(HEADING.try_quantise(v), Err(Error::OutOfRange));
        }
        assert_eq!(HEADING.try_quantise(-1e9), Ok(HEADING.quantise(-1e9)));
        assert_eq!(HEADING.quantise(f64::MAX), 0);
        assert_eq!(HEADING.quantise(f64::MIN), 0);
    }

    proptest! {
        #[test]
        fn error_within_half_step(bits in 1u32..=31, v in -1e4f64..1e4) {
            let q = AngleQuant::new(bits).unwrap();
            let raw = q.quantise(v);
            prop_assert!((0..=q.raw_max()).contains(&raw));
            let back = q.dequantise(raw);
            prop_assert!((0.0..TAU).contains(&back));
            prop_assert!(circular_distance(back, v) <= tolerance(&q, v));
        }

        #[test]
        fn whole_turns_change_nothing(bits in 1u32..=31, v in 0.0f64..TAU, k in -8i32..=8) {
            // Float noise in `v + k·2π` can move a value across a rounding boundary, so the two
            // raws may be neighbours on the circle, never further apart.
            let q = AngleQuant::new(bits).unwrap();
            let a = q.quantise(v) as i64;
            let b = q.quantise(v + k as f64 * TAU) as i64;
            let d = (a - b).rem_euclid(1 << bits);
            prop_assert!(d <= 1 || d == (1 << bits) - 1, "raws {a} and {b}");
        }

        #[test]
        fn raw_round_trip(bits in 0u32..=31, r in any::<i32>()) {
            let q = AngleQuant::new(bits).unwrap();
            let reduced = (r as u32 & q.raw_max() as u32) as i32;
            prop_assert_eq!(q.dequantise(r), q.dequantise(reduced));
            prop_assert_eq!(q.quantise(q.dequantise(r)), reduced);
        }
    }
}
