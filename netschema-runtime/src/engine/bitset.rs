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

/// Clears bits `start..end` of `set` (nothing past its end), a word at a time.
pub(crate) fn clear_bits(set: &mut [u64], start: usize, end: usize) {
    let mut i = start;
    while i < end {
        let (word, low) = (i / 64, i % 64);
        let high = (end - word * 64).min(64);
        let mask = (u64::MAX >> (64 - (high - low))) << low;
        if let Some(w) = set.get_mut(word) {
            *w &= !mask;
        }
        i = word * 64 + 64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_cleared_leaves_the_bits_around_it() {
        for (start, end) in [(0, 0), (0, 192), (3, 5), (60, 70), (64, 128), (10, 180), (191, 300)] {
            let mut set = [u64::MAX; 3];
            clear_bits(&mut set, start, end);
            for i in 0..192 {
                assert_eq!(test_bit(&set, i), !(start..end).contains(&i), "{start}..{end}: {i}");
            }
        }
    }
}
