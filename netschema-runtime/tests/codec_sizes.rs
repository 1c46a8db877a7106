//! Size properties of the range coder with the residual model, on a seeded skewed stream
//! (70 % zeros, geometric tails): a long stream codes within 2 % of the models' ideal cost,
//! and ending a packet costs at most one byte.
//!
//! "Ideal" is `sum(-log2 p)` over every decision, computed in `f64` from the probability the
//! model held when the decision was coded, plus one bit per direct bit.

mod common;

use common::{Metered, SplitMix64, skewed_stream};
use netschema_runtime::codec::coder::{BinaryCoder, Decoder, Encoder};
use netschema_runtime::codec::prob::{COST_ONE_BIT, Prob, TwoRateProb};
use netschema_runtime::codec::residual::ResidualModel;

/// The models of a two-field stream: even symbols use a single-rate model, odd ones a
/// two-rate model, so both kinds are measured.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Fields {
    single: ResidualModel<Prob>,
    two_rate: ResidualModel<TwoRateProb>,
}

impl Fields {
    fn code<C: BinaryCoder>(&mut self, c: &mut C, i: usize, e: i32) -> i32 {
        if i.is_multiple_of(2) { self.single.code(c, e) } else { self.two_rate.code(c, e) }
    }

    fn observe(&mut self, i: usize, e: i32) -> u32 {
        if i.is_multiple_of(2) { self.single.observe(e) } else { self.two_rate.observe(e) }
    }
}

#[test]
fn million_symbol_stream_is_within_two_percent_of_ideal() {
    const N: usize = 1_000_000;
    let values = skewed_stream(0x5EED_0001, N);

    let mut buf = vec![0u8; N];
    let mut enc = Metered::new(Encoder::new(&mut buf));
    let mut models = Fields::default();
    for (i, &e) in values.iter().enumerate() {
        models.code(&mut enc, i, e);
    }
    let ideal_bits = enc.ideal_bits;
    let len = enc.inner.finish().unwrap();
    let coded_bits = (len * 8) as f64;
    let overhead = coded_bits / ideal_bits - 1.0;
    println!(
        "{N} symbols: {len} bytes, {:.4} bits/symbol, ideal {:.4}, overhead {:+.4} %",
        coded_bits / N as f64,
        ideal_bits / N as f64,
        overhead * 100.0
    );
    assert!(overhead.abs() <= 0.02, "overhead {:.4} %", overhead * 100.0);
    // The stream is far from trivial: about 2.4 bits per symbol.
    assert!((2.0..3.0).contains(&(ideal_bits / N as f64)));

    // The fixed-point costs the predictor selection compares agree with the f64 ideal.
    let mut fresh = Fields::default();
    let fixed: u64 = values.iter().enumerate().map(|(i, &e)| u64::from(fresh.observe(i, e))).sum();
    let fixed_bits = fixed as f64 / f64::from(COST_ONE_BIT);
    assert!((fixed_bits / ideal_bits - 1.0).abs() < 0.002, "{fixed_bits} vs {ideal_bits}");
    assert_eq!(fresh, models, "observe learns exactly what coding does");

    let mut dec = Decoder::new(&buf[..len]);
    let mut decoded = Fields::default();
    for (i, &e) in values.iter().enumerate() {
        assert_eq!(decoded.code(&mut dec, i, 0), e, "symbol {i}");
    }
    assert_eq!(decoded, models);
}

/// Packets of 8 to 512 symbols; models carried from packet to packet, coder restarted for
/// each. A packet is whole bytes, so the best any coder can do is `ceil(ideal / 8)` bytes;
/// "at most one byte of termination" means the packet is strictly less than one byte longer
/// than its ideal, i.e. never longer than that ceiling. The only slack allowed is for the
/// coder's integer rounding of each probability, which the f64 ideal does not see.
#[test]
fn packet_termination_costs_at_most_one_byte() {
    const N: usize = 1_000_000;
    const SLACK_BYTES: f64 = 0.01;
    let values = skewed_stream(0x5EED_0002, N);
    let mut sizes = SplitMix64::new(0x5EED_0003);

    let mut enc_models = Fields::default();
    let mut dec_models = Fields::default();
    let mut buf = [0u8; 4096];
    let (mut packets, mut sum, mut max, mut total_bytes) = (0usize, 0.0f64, f64::MIN, 0usize);
    let mut start = 0;
    while start < N {
        let end = (start + sizes.range_inclusive(8, 512) as usize).min(N);
        let packet = &values[start..end];

        let mut enc = Metered::new(Encoder::new(&mut buf));
        for (i, &e) in packet.iter().enumerate() {
            enc_models.code(&mut enc, start + i, e);
        }
        let ideal_bytes = enc.ideal_bits / 8.0;
        let len = enc.inner.finish().unwrap();

        let overhead = len as f64 - ideal_bytes;
        assert!(
            overhead <= 1.0 + SLACK_BYTES,
            "packet at {start}: {len} bytes, ideal {ideal_bytes:.3}"
        );
        sum += overhead;
        max = max.max(overhead);
        packets += 1;
        total_bytes += len;

        let mut dec = Decoder::new(&buf[..len]);
        for (i, &e) in packet.iter().enumerate() {
            assert_eq!(dec_models.code(&mut dec, start + i, 0), e, "symbol {}", start + i);
        }
        start = end;
    }
    assert_eq!(dec_models, enc_models);
    let mean = sum / packets as f64;
    println!(
        "{packets} packets, {total_bytes} bytes: termination mean {mean:.3} B, max {max:.3} B"
    );
    // Termination lands roughly uniformly in [0, 1) byte, less the trimmed zeros.
    assert!((0.2..=0.45).contains(&mean), "mean termination {mean:.3} B");
}
