//! Flags and enums.

use super::bits_for_range;
use crate::{Error, Result};

/// A flag: `false` is raw 0, `true` is raw 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BoolQuant;

impl BoolQuant {
    /// The flag quantiser (never fails; `Result` for symmetry with the other quantisers).
    pub const fn new() -> Result<Self> {
        Ok(BoolQuant)
    }

    /// The fingerprint of a bool, for the schema hash.
    pub const fn fingerprint(&self) -> u64 {
        super::fingerprint(5, &[])
    }

    /// The smallest raw value, 0 (`false`).
    pub const fn raw_min(&self) -> i32 {
        0
    }

    /// The largest raw value, 1 (`true`).
    pub const fn raw_max(&self) -> i32 {
        1
    }

    /// Bits needed for the raw range: 1.
    pub const fn bits(&self) -> u32 {
        1
    }

    /// Flags do not wrap: always `false`.
    pub const fn wraps(&self) -> bool {
        false
    }

    /// The raw value of `v`: 1 for `true`, 0 for `false`.
    pub const fn quantise(&self, v: bool) -> i32 {
        v as i32
    }

    /// The raw value of `v`; every flag is in range, so this never fails.
    pub const fn try_quantise(&self, v: bool) -> Result<i32> {
        Ok(self.quantise(v))
    }

    /// The flag of `raw`, clamped to `0..=1` first: `raw >= 1` is `true`.
    pub const fn dequantise(&self, raw: i32) -> bool {
        raw >= 1
    }
}

/// An enum of `cases` cases, numbered `0..cases`; the raw value is the case number.
///
/// `cases` is limited to `1..=2^31` so raw values fit an `i32`; a single-case enum needs 0 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EnumQuant {
    /// The largest case number, `cases - 1`.
    last: i32,
}

impl EnumQuant {
    /// An enum of `cases` cases; fails with [`Error::InvalidQuantiser`] unless `cases` is in
    /// `1..=2^31`.
    pub const fn new(cases: u32) -> Result<Self> {
        if cases == 0 || cases > 1 << 31 {
            return Err(Error::InvalidQuantiser);
        }
        Ok(EnumQuant { last: (cases - 1) as i32 })
    }

    /// The fingerprint of an enum with these case names, in order, for the schema hash.
    pub const fn fingerprint(names: &[&str]) -> u64 {
        let mut h = super::fingerprint(6, &[names.len() as u64]);
        let mut i = 0;
        while i < names.len() {
            let name = names[i].as_bytes();
            let mut b = 0;
            while b < name.len() {
                h = (h ^ name[b] as u64).wrapping_mul(0x0000_0100_0000_01b3);
                b += 1;
            }
            h = (h ^ 0xff).wrapping_mul(0x0000_0100_0000_01b3);
            i += 1;
        }
        h
    }

    /// The number of cases.
    pub const fn cases(&self) -> u32 {
        self.last as u32 + 1
    }

    /// The smallest raw value, 0.
    pub const fn raw_min(&self) -> i32 {
        0
    }

    /// The largest raw value, `cases - 1`.
    pub const fn raw_max(&self) -> i32 {
        self.last
    }

    /// Bits needed for the raw range (0..=31).
    pub const fn bits(&self) -> u32 {
        bits_for_range(0, self.last)
    }

    /// Enums do not wrap: always `false`.
    pub const fn wraps(&self) -> bool {
        false
    }

    /// The raw value of case `v`, clamped to the last case.
    pub const fn quantise(&self, v: u32) -> i32 {
        if v > self.last as u32 { self.last } else { v as i32 }
    }

    /// The raw value of case `v`, or [`Error::OutOfRange`] if `v >= cases`.
    pub const fn try_quantise(&self, v: u32) -> Result<i32> {
        if v > self.last as u32 { Err(Error::OutOfRange) } else { Ok(v as i32) }
    }

    /// The case of `raw`, clamped to `0..cases` first.
    pub const fn dequantise(&self, raw: i32) -> u32 {
        if raw < 0 {
            0
        } else if raw > self.last {
            self.last as u32
        } else {
            raw as u32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const FLAG: BoolQuant = match BoolQuant::new() {
        Ok(q) => q,
        Err(_) => panic!("bad quantiser"),
    };
    const FLAG_BITS: u32 = FLAG.bits();
    const WEAPON: EnumQuant = match EnumQuant::new(5) {
        Ok(q) => q,
        Err(_) => panic!("bad quantiser"),
    };
    const WEAPON_BITS: u32 = WEAPON.bits();
    const WEAPON_LAST: i32 = WEAPON.quantise(99);

    #[test]
    fn bool_round_trip() {
        assert_eq!(FLAG_BITS, 1);
        assert_eq!((FLAG.raw_min(), FLAG.raw_max()), (0, 1));
        assert!(!FLAG.wraps());
        assert_eq!(BoolQuant::new(), Ok(BoolQuant));
        for v in [false, true] {
            assert_eq!(FLAG.dequantise(FLAG.quantise(v)), v);
            assert_eq!(FLAG.try_quantise(v), Ok(v as i32));
        }
        assert!(!FLAG.dequantise(i32::MIN));
        assert!(!FLAG.dequantise(-1));
        assert!(FLAG.dequantise(2));
        assert!(FLAG.dequantise(i32::MAX));
    }

    #[test]
    fn enum_consts() {
        assert_eq!(WEAPON_BITS, 3);
        assert_eq!(WEAPON_LAST, 4);
        assert_eq!(WEAPON.cases(), 5);
        assert_eq!((WEAPON.raw_min(), WEAPON.raw_max()), (0, 4));
        assert!(!WEAPON.wraps());
    }

    #[test]
    fn enum_case_counts() {
        assert_eq!(EnumQuant::new(0), Err(Error::InvalidQuantiser));
        assert_eq!(EnumQuant::new((1 << 31) + 1), Err(Error::InvalidQuantiser));
        assert_eq!(EnumQuant::new(u32::MAX), Err(Error::InvalidQuantiser));
        let one = EnumQuant::new(1).unwrap();
        assert_eq!((one.bits(), one.raw_max(), one.cases()), (0, 0, 1));
        assert_eq!(one.quantise(7), 0);
        assert_eq!(one.dequantise(7), 0);
        let widest = EnumQuant::new(1 << 31).unwrap();
        assert_eq!((widest.bits(), widest.raw_max(), widest.cases()), (31, i32::MAX, 1 << 31));
        assert_eq!(widest.quantise(u32::MAX), i32::MAX);
        assert_eq!(widest.try_quantise(1 << 31), Err(Error::OutOfRange));
        assert_eq!(widest.dequantise(i32::MAX), (1 << 31) - 1);
        assert_eq!(widest.dequantise(i32::MIN), 0);
        for bits in 1..=31 {
            let q = EnumQuant::new(1 << bits).unwrap();
            assert_eq!(q.bits(), bits);
            let q = EnumQuant::new((1 << bits) - 1).unwrap();
            assert_eq!(q.bits(), if bits == 1 { 0 } else { bits });
        }
    }

    proptest! {
        #[test]
        fn enum_round_trip(cases in 1u32..=(1 << 31), v in any::<u32>(), raw in any::<i32>()) {
            let q = EnumQuant::new(cases).unwrap();
            let r = q.quantise(v);
            prop_assert!((0..=q.raw_max()).contains(&r));
            prop_assert!((r as u64) < 1u64 << q.bits());
            prop_assert_eq!(q.dequantise(r), v.min(cases - 1));
            if v < cases {
                prop_assert_eq!(q.try_quantise(v), Ok(v as i32));
            } else {
                prop_assert_eq!(q.try_quantise(v), Err(Error::OutOfRange));
            }
            let back = q.dequantise(raw);
            prop_assert!(back < cases);
            prop_assert_eq!(back, raw.clamp(0, q.raw_max()) as u32);
        }

        #[test]
        fn small_enums(cases in 1u32..=16, v in 0u32..32) {
            let q = EnumQuant::new(cases).unwrap();
            prop_assert_eq!(q.dequantise(q.quantise(v)), v.min(cases - 1));
        }
    }
}
