//! Speed of the codec core, per element: a residual field (zero flag, sign, magnitude class
//! and offset bits, all through the range coder) encoded and decoded, and raw adaptive
//! decisions through the range coder.
//!
//! The field stream is the integration tests' seeded skewed stream (`tests/common`), like the
//! design's measurements: 70 % zeros, else a two-sided geometric magnitude of mean 7. Run with `cargo bench -p netschema-runtime --bench
//! codec`; criterion reports time per element under "thrpt" (elements per second) and per
//! iteration (`FIELDS` or `BITS` elements).

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use netschema_runtime::codec::coder::{BinaryCoder, Decoder, Encoder};
use netschema_runtime::codec::prob::{Prob, TwoRateProb};
use netschema_runtime::codec::residual::ResidualModel;

use common::{SplitMix64, skewed_stream};

/// Fields coded per iteration.
const FIELDS: usize = 20_000;
/// Decisions coded per iteration in the raw-bit benchmark.
const BITS: usize = 50_000;
/// Models the raw decisions rotate through.
const BIT_MODELS: usize = 8;

/// Decisions whose odds differ per model (from 50/50 to 97/3), as `(model, bit)`.
fn bit_stream(seed: u64, n: usize) -> Vec<(u8, bool)> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|i| {
            let model = (i % BIT_MODELS) as u8;
            let odds_of_one = [50, 30, 20, 10, 5, 3, 40, 15][model as usize];
            (model, rng.chance(odds_of_one, 100))
        })
        .collect()
}

fn encode_fields<M: netschema_runtime::codec::prob::BitModel + Default>(
    values: &[i32],
    buf: &mut [u8],
) -> usize {
    let mut model = ResidualModel::<M>::default();
    let mut enc = Encoder::new(buf);
    for &e in values {
        model.code(&mut enc, e);
    }
    enc.finish().expect("buffer holds the stream")
}

fn decode_fields<M: netschema_runtime::codec::prob::BitModel + Default>(
    bytes: &[u8],
    n: usize,
) -> i64 {
    let mut model = ResidualModel::<M>::default();
    let mut dec = Decoder::new(bytes);
    let mut sum = 0i64;
    for _ in 0..n {
        sum += i64::from(model.code(&mut dec, 0));
    }
    sum
}

fn residual_fields(c: &mut Criterion) {
    let values = skewed_stream(0x5EED, FIELDS);
    let mut buf = vec![0u8; FIELDS * 8];
    let len = encode_fields::<Prob>(&values, &mut buf);
    let bytes = buf[..len].to_vec();
    let expected: i64 = values.iter().map(|&e| i64::from(e)).sum();
    assert_eq!(decode_fields::<Prob>(&bytes, FIELDS), expected);
    let len2 = encode_fields::<TwoRateProb>(&values, &mut buf);
    let bytes2 = buf[..len2].to_vec();
    assert_eq!(decode_fields::<TwoRateProb>(&bytes2, FIELDS), expected);

    let mut group = c.benchmark_group("residual_field");
    group.throughput(Throughput::Elements(FIELDS as u64));
    group.bench_function("encode", |b| {
        b.iter(|| encode_fields::<Prob>(black_box(&values), &mut buf))
    });
    group.bench_function("decode", |b| b.iter(|| decode_fields::<Prob>(black_box(&bytes), FIELDS)));
    group.bench_function("encode_two_rate", |b| {
        b.iter(|| encode_fields::<TwoRateProb>(black_box(&values), &mut buf))
    });
    group.bench_function("decode_two_rate", |b| {
        b.iter(|| decode_fields::<TwoRateProb>(black_box(&bytes2), FIELDS))
    });
    group.finish();
}

fn encode_bits(stream: &[(u8, bool)], buf: &mut [u8]) -> usize {
    let mut models = [Prob::HALF; BIT_MODELS];
    let mut enc = Encoder::new(buf);
    for &(m, bit) in stream {
        enc.bit(&mut models[m as usize % BIT_MODELS], bit);
    }
    enc.finish().expect("buffer holds the stream")
}

fn decode_bits(bytes: &[u8], n: usize) -> u32 {
    let mut models = [Prob::HALF; BIT_MODELS];
    let mut dec = Decoder::new(bytes);
    let mut ones = 0;
    for i in 0..n {
        ones += u32::from(dec.bit(&mut models[i % BIT_MODELS], false));
    }
    ones
}

fn range_coder_bits(c: &mut Criterion) {
    let stream = bit_stream(0xB175, BITS);
    let mut buf = vec![0u8; BITS];
    let len = encode_bits(&stream, &mut buf);
    let bytes = buf[..len].to_vec();
    let ones = stream.iter().filter(|&&(_, b)| b).count() as u32;
    assert_eq!(decode_bits(&bytes, BITS), ones);

    let mut group = c.benchmark_group("range_coder_bit");
    group.throughput(Throughput::Elements(BITS as u64));
    group.bench_function("encode", |b| b.iter(|| encode_bits(black_box(&stream), &mut buf)));
    group.bench_function("decode", |b| b.iter(|| decode_bits(black_box(&bytes), BITS)));
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    targets = residual_fields, range_coder_bits
}
criterion_main!(benches);
