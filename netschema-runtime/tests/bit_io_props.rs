//! Properties of the bit writer and reader: the bytes equal a `bitvec` oracle (MSB-first),
//! every width from 0 to 32 round-trips with its extreme values, errors are typed and leave
//! the state unchanged, and reading arbitrary bytes never panics.

mod common;

use bitvec::prelude::*;
use netschema_runtime::Error;
use netschema_runtime::codec::bits::{BitReader, BitWriter};
use proptest::prelude::*;

/// Largest value of `width` bits.
fn max_of(width: u32) -> u32 {
    if width == 32 { u32::MAX } else { (1u32 << width) - 1 }
}

/// The interesting values of a width: 0, 1, the top bit alone, all ones, and all ones but the
/// top or the bottom bit.
fn extremes(width: u32) -> Vec<u32> {
    let max = max_of(width);
    let top = if width == 0 { 0 } else { 1u32 << (width - 1) };
    let mut v = vec![0, 1 & max, top, max, max >> 1, max ^ (1 & max)];
    v.sort_unstable();
    v.dedup();
    v
}

/// The oracle: the same sequence packed by `bitvec`, MSB-first, padded with zero bits.
fn oracle_bytes(items: &[(u32, u32)]) -> Vec<u8> {
    let mut bv: BitVec<u8, Msb0> = BitVec::new();
    for &(value, width) in items {
        bv.extend_from_bitslice(&value.view_bits::<Msb0>()[32 - width as usize..]);
    }
    while !bv.len().is_multiple_of(8) {
        bv.push(false);
    }
    bv.into_vec()
}

/// Reads `width` bits at bit position `at` of `bytes` with the oracle.
fn oracle_read(bytes: &[u8], at: usize, width: u32) -> u32 {
    bytes.view_bits::<Msb0>()[at..at + width as usize]
        .iter()
        .fold(0u32, |acc, bit| (acc << 1) | u32::from(*bit))
}

/// Writes `items` into an exactly sized buffer, checks the bytes against the oracle, and reads
/// everything back.
fn check_round_trip(items: &[(u32, u32)]) {
    let total_bits: usize = items.iter().map(|&(_, w)| w as usize).sum();
    let expected = oracle_bytes(items);
    assert_eq!(expected.len(), total_bits.div_ceil(8));

    let mut buf = vec![0xA5u8; expected.len()];
    let mut w = BitWriter::new(&mut buf);
    let mut written = 0;
    for &(value, width) in items {
        w.write(value, width).unwrap();
        written += width as usize;
        assert_eq!(w.bit_len(), written);
    }
    let len = w.finish().unwrap();
    assert_eq!(len, expected.len());
    assert_eq!(buf, expected);

    let mut r = BitReader::new(&buf);
    for &(value, width) in items {
        assert_eq!(r.read(width), Ok(value), "width {width}");
    }
    let padding = len * 8 - total_bits;
    assert_eq!(r.remaining_bits(), padding);
    assert_eq!(r.clone().read(padding as u32 + 1), Err(Error::UnexpectedEnd));
    assert_eq!(r.read(padding as u32), Ok(0), "padding is zero bits");
    assert_eq!(r.read(1), Err(Error::UnexpectedEnd));
    assert_eq!(r.read(0), Ok(0));
}

#[test]
fn every_width_round_trips_its_extremes_at_every_alignment() {
    for width in 0..=32 {
        for value in extremes(width) {
            for misalign in 0..8u32 {
                let prefix = (0x5A >> (8 - misalign)) & max_of(misalign);
                let items = [(prefix, misalign), (value, width), (value, width), (1, 1)];
                check_round_trip(&items);
            }
        }
    }
}

#[test]
fn all_widths_back_to_back() {
    let items: Vec<(u32, u32)> =
        (0..=32).flat_map(|w| extremes(w).into_iter().map(move |v| (v, w))).collect();
    check_round_trip(&items);
    let reversed: Vec<_> = items.iter().rev().copied().collect();
    check_round_trip(&reversed);
}

#[test]
fn invalid_writes_are_typed_errors_and_append_nothing() {
    let mut buf = [0u8; 8];
    let mut w = BitWriter::new(&mut buf);
    w.write(0b101, 3).unwrap();
    for width in 0..32 {
        assert_eq!(w.write(1 << width, width), Err(Error::ValueTooWide { bits: width }));
        assert_eq!(w.write(u32::MAX, width), Err(Error::ValueTooWide { bits: width }));
    }
    for width in [33, 34, 64, u32::MAX] {
        assert_eq!(w.write(0, width), Err(Error::InvalidBitCount { bits: width }));
    }
    assert_eq!(w.bit_len(), 3);
    assert_eq!(w.finish(), Ok(1));
    assert_eq!(buf[0], 0b1010_0000);

    let mut r = BitReader::new(&buf[..1]);
    assert_eq!(r.read(33), Err(Error::InvalidBitCount { bits: 33 }));
    assert_eq!(r.remaining_bits(), 8);
}

#[test]
fn empty_buffers() {
    let mut buf = [];
    let mut w = BitWriter::new(&mut buf);
    assert_eq!(w.write(0, 0), Ok(()));
    assert_eq!(w.write(0, 1), Err(Error::BufferFull));
    assert_eq!(w.finish(), Ok(0));
    let mut r = BitReader::new(&[]);
    assert_eq!(r.read(0), Ok(0));
    assert_eq!(r.read(1), Err(Error::UnexpectedEnd));
    assert_eq!(r.remaining_bits(), 0);
}

/// A width in `0..=32` and a value of that width, biased towards the extremes.
fn item() -> impl Strategy<Value = (u32, u32)> {
    (0u32..=32).prop_flat_map(|width| {
        let max = max_of(width);
        let value = prop_oneof![
            1 => Just(0u32),
            1 => Just(max),
            1 => Just(if width == 0 { 0 } else { 1 << (width - 1) }),
            3 => 0..=max,
        ];
        (value, Just(width))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn writer_matches_bitvec_and_round_trips(items in prop::collection::vec(item(), 0..120)) {
        check_round_trip(&items);
    }

    /// With a buffer too small for everything, each write succeeds exactly when its bits fit
    /// (counting a final partial byte), a refused write changes nothing, and the bytes of the
    /// accepted writes equal the oracle.
    #[test]
    fn writer_fills_small_buffers_exactly(
        items in prop::collection::vec(item(), 0..60),
        cap in 0usize..40,
    ) {
        let mut buf = vec![0u8; cap];
        let mut w = BitWriter::new(&mut buf);
        let mut accepted = Vec::new();
        for &(value, width) in &items {
            let before = w.bit_len();
            let fits = (before + width as usize).div_ceil(8) <= cap;
            let result = w.write(value, width);
            if fits {
                prop_assert_eq!(result, Ok(()));
                accepted.push((value, width));
            } else {
                prop_assert_eq!(result, Err(Error::BufferFull));
                prop_assert_eq!(w.bit_len(), before);
            }
        }
        let len = w.finish().unwrap();
        let expected = oracle_bytes(&accepted);
        prop_assert_eq!(&buf[..len], &expected[..]);
    }

    /// Reading any bytes with any widths (including invalid ones) never panics; every read
    /// either returns the oracle's value or a typed error that consumes nothing.
    #[test]
    fn reader_on_arbitrary_bytes_never_panics(
        bytes in prop::collection::vec(any::<u8>(), 0..48),
        widths in prop::collection::vec(prop_oneof![8 => 0u32..=32, 1 => 33u32..=40], 0..80),
    ) {
        let mut r = BitReader::new(&bytes);
        let mut at = 0usize;
        for &width in &widths {
            let remaining = r.remaining_bits();
            prop_assert_eq!(remaining, bytes.len() * 8 - at);
            let got = r.read(width);
            if width > 32 {
                prop_assert_eq!(got, Err(Error::InvalidBitCount { bits: width }));
            } else if (width as usize) > remaining {
                prop_assert_eq!(got, Err(Error::UnexpectedEnd));
            } else {
                prop_assert_eq!(got, Ok(oracle_read(&bytes, at, width)));
                at += width as usize;
            }
            if got.is_err() {
                prop_assert_eq!(r.remaining_bits(), remaining);
            }
        }
    }
}
