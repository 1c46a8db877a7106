//! Bounded integers.

use super::bits_for_range;
use crate::{Error, Result};

/// An integer field bounded to `[min, max]`; its raw value is the integer itself.
///
/// The whole `i32` range is allowed (32 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntQuant {
    min: i32,
    max: i32,
}

impl IntQuant {
    /// A quantiser for `min..=max`; fails with [`Error::InvalidQuantiser`] unless `min < max`.
    pub const fn new(min: i32, max: i32) -> Result<Self> {
        if min >= max {
            return Err(Error::InvalidQuantiser);
        }
        Ok(IntQuant { min, max })
    }

    /// The fingerprint of this quantiser's bounds, for the schema hash.
    pub const fn fingerprint(&self) -> u64 {
        super::fingerprint(2, &[self.min as u32 as u64, self.max as u32 as u64])
    }

    /// The smallest value of the range.
    pub const fn min(&self) -> i32 {
        self.min
    }

    /// The largest value of the range.
    pub const fn max(&self) -> i32 {
        self.max
    }

    /// The smallest raw value, `min`.
    pub const fn raw_min(&self) -> i32 {
        self.min
    }

    /// The largest raw value, `max`.
    pub const fn raw_max(&self) -> i32 {
        self.max
    }

    /// Bits needed for the raw range (1..=32).
    pub const fn bits(&self) -> u32 {
        bits_for_range(self.min, self.max)
    }

    /// Integers do not wrap: always `false`.
    pub const fn wraps(&self) -> bool {
        false
    }

    /// The raw value of `v`, clamped to `[min, max]`.
    pub const fn quantise(&self, v: i32) -> i32 {
        if v < self.min {
            self.min
        } else if v > self.max {
            self.max
        } else {
            v
        }
    }

    /// The raw value of `v`, or [`Error::OutOfRange`] if `v` is outside `[min, max]`.
    pub const fn try_quantise(&self, v: i32) -> Result<i32> {
        if v < self.min || v > self.max { Err(Error::OutOfRange) } else { Ok(v) }
    }

    /// The value of `raw`, clamped to `[min, max]` first.
    pub const fn dequantise(&self, raw: i32) -> i32 {
        self.quantise(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SMALL: IntQuant = match IntQuant::new(-5, 10) {
        Ok(q) => q,
        Err(_) => panic!("bad quantiser"),
    };
    const SMALL_BITS: u32 = SMALL.bits();
    const FULL: IntQuant = match IntQuant::new(i32::MIN, i32::MAX) {
        Ok(q) => q,
        Err(_) => panic!("bad quantiser"),
    };
    const FULL_BITS: u32 = FULL.bits();
    const CLAMPED: i32 = SMALL.quantise(100);

    #[test]
    fn consts() {
        assert_eq!(SMALL_BITS, 4);
        assert_eq!((SMALL.raw_min(), SMALL.raw_max()), (-5, 10));
        assert_eq!((SMALL.min(), SMALL.max()), (-5, 10));
        assert!(!SMALL.wraps());
        assert_eq!(FULL_BITS, 32);
        assert_eq!(CLAMPED, 10);
    }

    #[test]
    fn rejects_empty_ranges() {
        assert_eq!(IntQuant::new(3, 3), Err(Error::InvalidQuantiser));
        assert_eq!(IntQuant::new(4, 3), Err(Error::InvalidQuantiser));
        assert_eq!(IntQuant::new(i32::MAX, i32::MIN), Err(Error::InvalidQuantiser));
        assert!(IntQuant::new(0, 1).is_ok_and(|q| q.bits() == 1));
    }

    #[test]
    fn full_range_extremes() {
        for v in [i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX - 1, i32::MAX] {
            assert_eq!(FULL.quantise(v), v);
            assert_eq!(FULL.try_quantise(v), Ok(v));
            assert_eq!(FULL.dequantise(v), v);
        }
    }

    #[test]
    fn clamps_outside() {
        assert_eq!(SMALL.quantise(i32::MIN), -5);
        assert_eq!(SMALL.quantise(i32::MAX), 10);
        assert_eq!(SMALL.try_quantise(-6), Err(Error::OutOfRange));
        assert_eq!(SMALL.try_quantise(11), Err(Error::OutOfRange));
        assert_eq!(SMALL.dequantise(-100), -5);
        assert_eq!(SMALL.dequantise(100), 10);
    }

    proptest! {
        #[test]
        fn round_trip_and_clamp(a in any::<i32>(), b in any::<i32>(), v in any::<i32>()) {
            prop_assume!(a != b);
            let q = IntQuant::new(a.min(b), a.max(b)).unwrap();
            let raw = q.quantise(v);
            prop_assert!(raw >= q.raw_min() && raw <= q.raw_max());
            prop_assert!((raw.wrapping_sub(q.raw_min()) as u32 as u64) < 1u64 << q.bits());
            prop_assert_eq!(q.dequantise(raw), v.clamp(q.min(), q.max()));
            if (q.min()..=q.max()).contains(&v) {
                prop_assert_eq!(q.try_quantise(v), Ok(v));
            } else {
                prop_assert_eq!(q.try_quantise(v), Err(Error::OutOfRange));
            }
        }
    }
}
