//! Quantisers: natural values to integers and back.
//!
//! Every replicated field has a quantiser that turns its natural value (an integer, a real, an
//! angle, a rotation, a flag, an enum case) into a *raw* `i32` and back. Everything after
//! capture works on raw values only, so floats are rounded once, here, and never reach the codec.
//!
//! | Quantiser      | Natural value        | Raw range                          | Wraps |
//! |----------------|----------------------|------------------------------------|-------|
//! | [`IntQuant`]   | `i32` in `[min, max]`| `min..=max` (the integer itself)   | no    |
//! | [`FixedQuant`] | `f64` in `[min, max]`| `0..=steps`                        | no    |
//! | [`AngleQuant`] | `f64` radians        | `0..2^bits`, `2^bits ≡ 0`          | yes   |
//! | [`QuatQuant`]  | `[f64; 4]` rotation  | index `0..=3` + 3 × `0..2^bits`    | no    |
//! | [`BoolQuant`]  | `bool`               | `0..=1`                            | no    |
//! | [`EnumQuant`]  | `u32` case           | `0..cases`                         | no    |
//!
//! # Shared rules
//!
//! - **Construction.** Constructors are `const fn`s returning [`Result`](crate::Result) and
//!   reject inconsistent parameters with [`Error::InvalidQuantiser`](crate::Error): `min >= max`,
//!   non-finite bounds or resolutions, a resolution `<= 0`, and raw ranges that do not fit.
//!   Generated code builds quantisers in `const` items, so a bad schema fails at compile time.
//! - **Raw values are `i32`.** [`IntQuant`] may use the whole `i32` range (32 bits). Every other
//!   quantiser numbers its raw values from 0 and is limited to 31 bits, so that its largest raw
//!   value, `2^31 - 1`, still fits an `i32`; 32-bit fixed-point or angle fields are rejected.
//! - **Width.** `bits()` is the number of bits needed for the raw range,
//!   [`bits_for_range`]`(raw_min(), raw_max())`: `raw.wrapping_sub(raw_min) as u32` always fits
//!   in `bits()` bits.
//! - **Out of range.** `quantise` never fails: it *clamps* its input to the declared range, so a
//!   value below `min` (or `-∞`) gives `raw_min()`, a value above `max` (or `+∞`) gives
//!   `raw_max()`, and NaN gives `raw_min()`. `try_quantise` instead returns
//!   [`Error::OutOfRange`](crate::Error) for NaN and for any value outside the closed range
//!   `[min, max]`. Wrapping angles have no range to leave: only NaN and infinities are out of
//!   range for them (and quantise to raw 0); a quaternion is out of range when it is zero or has
//!   a non-finite component (and quantises to the identity).
//! - **Dequantising.** `dequantise` also never fails: a raw value outside `raw_min()..=raw_max()`
//!   (which only a corrupt packet can produce) is clamped into it first, except for wrapping
//!   quantisers, where it is reduced modulo the period.
//! - **Precision.** Inside the range, the real quantisers round to the nearest grid point, so
//!   the error is at most half a step (`resolution() / 2`), up to float rounding.
//!
//! Nothing here panics, allocates or uses `std`: the few float functions that `core` lacks
//! (`floor`, `round`, `sqrt`) are implemented in a private module, deterministically and in
//! `const fn`s.

mod angle;
mod enums;
mod fixed;
mod float;
mod int;
mod quat;

pub use angle::AngleQuant;
pub use enums::{BoolQuant, EnumQuant};
pub use fixed::FixedQuant;
pub use int::IntQuant;
pub use quat::QuatQuant;

/// A fingerprint of a quantiser's kind and parameters in natural units (`kind` tags the
/// quantiser type), for the schema hash: two quantisers with the same raw range but a
/// different meaning (another scale, bound or resolution) get different fingerprints.
#[inline]
pub(crate) const fn fingerprint(kind: u64, params: &[u64]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ kind;
    let mut i = 0;
    while i < params.len() {
        let bytes = params[i].to_le_bytes();
        let mut b = 0;
        while b < 8 {
            h = (h ^ bytes[b] as u64).wrapping_mul(0x0000_0100_0000_01b3);
            b += 1;
        }
        i += 1;
    }
    h
}

/// Number of bits needed to write any of the `hi - lo + 1` values of `lo..=hi` as an offset
/// from `lo`: 0 for a single value (or `hi <= lo`), up to 32 for the whole `i32` range.
pub const fn bits_for_range(lo: i32, hi: i32) -> u32 {
    if hi <= lo {
        return 0;
    }
    // The largest offset, `hi - lo`, is at most `u32::MAX`: widen first so it cannot overflow.
    let span = (hi as i64 - lo as i64) as u64;
    u64::BITS - span.leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const WIDE: u32 = bits_for_range(i32::MIN, i32::MAX);

    #[test]
    fn bits_for_range_small_cases() {
        assert_eq!(bits_for_range(0, 0), 0);
        assert_eq!(bits_for_range(5, 4), 0);
        assert_eq!(bits_for_range(0, 1), 1);
        assert_eq!(bits_for_range(-1, 0), 1);
        assert_eq!(bits_for_range(0, 2), 2);
        assert_eq!(bits_for_range(0, 3), 2);
        assert_eq!(bits_for_range(0, 4), 3);
        assert_eq!(bits_for_range(-256, 255), 9);
        assert_eq!(bits_for_range(0, i32::MAX), 31);
        assert_eq!(bits_for_range(-1, i32::MAX), 32);
        assert_eq!(WIDE, 32);
    }

    proptest! {
        #[test]
        fn bits_for_range_is_tight(lo in any::<i32>(), hi in any::<i32>()) {
            let (lo, hi) = (lo.min(hi), lo.max(hi));
            let n = (hi as i64 - lo as i64 + 1) as u128;
            let b = bits_for_range(lo, hi);
            prop_assert!(b <= 32);
            prop_assert!(n <= 1u128 << b, "{n} values do not fit {b} bits");
            if b > 0 {
                prop_assert!(n > 1u128 << (b - 1), "{n} values fit {} bits", b - 1);
            }
        }
    }
}
