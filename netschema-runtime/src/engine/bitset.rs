//! Bitsets over `u64` words, in caller storage.

/// Words needed for `bits` bits.
#[inline]
pub(crate) fn words(bits: usize) -> usize {
    bits.div_ceil(64)
}

/// Bit `i` of `set` (false past its end).
#[inline]
pub(crate) fn test_bit(set: &[u64], i: usize) -> bool {
    set.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 != 0)
}

/// Sets bit `i` of `set` to `on` (nothing past its end).
#[inline]
pub(crate) fn put_bit(set: &mut [u64], i: usize, on: bool) {
    if let Some(w) = set.get_mut(i / 64) {
        let mask = 1u64 << (i % 64);
        if on { *w |= mask } else { *w &= !mask }
    }
}
