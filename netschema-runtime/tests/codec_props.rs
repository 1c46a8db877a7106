//! Round-trip and robustness properties of the range coder and the residual model: any mix
//! of adaptive decisions (single- and two-rate models) and direct bits decodes to what was
//! encoded, with both ends' models in the same state; any `i32` residual round-trips; the
//! encoder's size reports and buffer limits hold; and decoding random or truncated bytes never
//! panics.

mod common;

use common::{Metered, SplitMix64, skewed_stream};
use netschema_runtime::Error;
use netschema_runtime::codec::coder::{BinaryCoder, CostMeter, Decoder, Encoder, Learner};
use netschema_runtime::codec::prob::{BitModel, COST_ONE_BIT, PROB_ONE, Prob, TwoRateProb};
use netschema_runtime::codec::residual::ResidualModel;
use proptest::prelude::*;

/// Number of models of each kind an operation sequence can address.
const MODELS: usize = 4;

/// A bank of adaptive models of both kinds, addressed by index: `0..MODELS` are [`Prob`],
/// `MODELS..2 * MODELS` are [`TwoRateProb`].
#[derive(Clone, Debug, PartialEq, Eq)]
struct Bank {
    single: [Prob; MODELS],
    two_rate: [TwoRateProb; MODELS],
}

impl Bank {
    /// Models starting at the given probabilities; the two-rate ones are warmed up by the
    /// bits of `training` so that their two halves differ.
    fn new(initial: [u32; MODELS], training: [u64; MODELS]) -> Self {
        let single = initial.map(Prob::new);
        let two_rate = training.map(|bits| {
            let mut m = TwoRateProb::HALF;
            for i in 0..64 {
                m.update(bits >> i & 1 != 0);
            }
            m
        });
        Bank { single, two_rate }
    }

    fn bit<C: BinaryCoder>(&mut self, coder: &mut C, model: usize, bit: bool) -> bool {
        if model < MODELS {
            coder.bit(&mut self.single[model], bit)
        } else {
            coder.bit(&mut self.two_rate[model - MODELS], bit)
        }
    }
}

/// One coding step.
#[derive(Clone, Debug)]
enum Op {
    /// One decision with model `model`.
    Bit { model: usize, bit: bool },
    /// `len` equal decisions with one model: drives its probability to an extreme, which
    /// makes long runs of 0xFF bytes and carries through them.
    Run { model: usize, bit: bool, len: usize },
    /// The low `n` bits of `value` as direct bits.
    Direct { value: u32, n: u32 },
}

fn op() -> impl Strategy<Value = Op> {
    let model = 0..2 * MODELS;
    prop_oneof![
        4 => (model.clone(), any::<bool>()).prop_map(|(model, bit)| Op::Bit { model, bit }),
        1 => (model, any::<bool>(), 1usize..80)
            .prop_map(|(model, bit, len)| Op::Run { model, bit, len }),
        2 => (any::<u32>(), prop_oneof![0u32..=32, Just(32), Just(16), Just(17)])
            .prop_map(|(value, n)| Op::Direct { value, n }),
    ]
}

fn bank() -> impl Strategy<Value = Bank> {
    let p = prop_oneof![Just(0u32), Just(PROB_ONE), Just(PROB_ONE / 2), 0..=PROB_ONE];
    (prop::array::uniform4(p), prop::array::uniform4(any::<u64>()))
        .prop_map(|(initial, training)| Bank::new(initial, training))
}

/// Runs `ops` through `coder` with `bank` and returns what was coded, flattened.
fn run_ops<C: BinaryCoder>(coder: &mut C, bank: &mut Bank, ops: &[Op]) -> Vec<u32> {
    let mut out = Vec::new();
    for op in ops {
        match *op {
            Op::Bit { model, bit } => out.push(u32::from(bank.bit(coder, model, bit))),
            Op::Run { model, bit, len } => {
                for _ in 0..len {
                    out.push(u32::from(bank.bit(coder, model, bit)));
                }
            }
            Op::Direct { value, n } => out.push(coder.direct(value, n)),
        }
    }
    out
}

/// What `ops` should decode to.
fn expected_of(ops: &[Op]) -> Vec<u32> {
    let mut out = Vec::new();
    for op in ops {
        match *op {
            Op::Bit { bit, .. } => out.push(u32::from(bit)),
            Op::Run { bit, len, .. } => out.extend(std::iter::repeat_n(u32::from(bit), len)),
            Op::Direct { value, n } => {
                out.push(if n >= 32 { value } else { value & ((1 << n) - 1) })
            }
        }
    }
    out
}

/// Encodes `ops` into a fresh buffer and returns the packet bytes.
fn encode_ops(bank: &Bank, ops: &[Op]) -> Vec<u8> {
    let mut buf = vec![0u8; 64 + ops.len() * 16];
    let mut enc = Encoder::new(&mut buf);
    let mut models = bank.clone();
    run_ops(&mut enc, &mut models, ops);
    let len = enc.finish().unwrap();
    buf.truncate(len);
    buf
}

/// Any `i32`, biased towards the extremes and small magnitudes.
fn residual() -> impl Strategy<Value = i32> {
    prop_oneof![
        2 => Just(0),
        1 => Just(i32::MIN),
        1 => Just(i32::MAX),
        1 => Just(i32::MIN + 1),
        1 => (0u32..31, any::<bool>(), -1i32..=1).prop_map(|(k, neg, d)| {
            let p = (1i32 << k).wrapping_add(d);
            if neg { p.wrapping_neg() } else { p }
        }),
        4 => -20i32..=20,
        4 => any::<i32>(),
    ]
}

/// The models a residual stream is coded with: a context picks one of several, of both kinds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct ResidualBank {
    single: [ResidualModel<Prob>; 2],
    two_rate: [ResidualModel<TwoRateProb>; 2],
}

impl ResidualBank {
    fn code<C: BinaryCoder>(&mut self, coder: &mut C, context: usize, e: i32) -> i32 {
        match context % 4 {
            0 | 1 => self.single[context % 2].code(coder, e),
            _ => self.two_rate[context % 2].code(coder, e),
        }
    }
}

#[test]
fn first_output_byte_0xff_round_trips() {
    // A run of unlikely-made-likely 1 bits pushes `low` to the top of the interval, so the
    // first byte out is 0xFF (this once came out as 0x00).
    for ones in 1..64 {
        let ops = [
            Op::Run { model: 0, bit: true, len: ones },
            Op::Run { model: 1, bit: false, len: 8 },
            Op::Direct { value: 0xABCD, n: 16 },
        ];
        let bank = Bank::new([PROB_ONE / 2; MODELS], [0; MODELS]);
        let bytes = encode_ops(&bank, &ops);
        let mut dec = Decoder::new(&bytes);
        assert_eq!(run_ops(&mut dec, &mut bank.clone(), &ops), expected_of(&ops), "{ones} ones");
    }
}

#[test]
fn all_zero_probability_decisions_cost_nothing_on_the_wire() {
    // Certain-looking zeros fit in the final zero padding: the packet is empty.
    let ops = [Op::Run { model: 0, bit: false, len: 10 }];
    let bank = Bank::new([PROB_ONE; MODELS], [0; MODELS]);
    assert!(encode_ops(&bank, &ops).is_empty());
    let mut dec = Decoder::new(&[]);
    assert_eq!(run_ops(&mut dec, &mut bank.clone(), &ops), expected_of(&ops));
}

#[test]
fn residual_extremes_round_trip_with_both_model_kinds() {
    let values = [0, 1, -1, i32::MAX, i32::MIN, i32::MIN + 1, i32::MAX - 1, 1 << 30, -(1 << 30)];
    let mut buf = [0u8; 512];
    let mut enc = Encoder::new(&mut buf);
    let mut models = ResidualBank::default();
    for (i, &v) in values.iter().cycle().take(4 * values.len()).enumerate() {
        assert_eq!(models.code(&mut enc, i, v), v);
    }
    let len = enc.finish().unwrap();
    let mut dec = Decoder::new(&buf[..len]);
    let mut decoded = ResidualBank::default();
    for (i, &v) in values.iter().cycle().take(4 * values.len()).enumerate() {
        assert_eq!(decoded.code(&mut dec, i, 0), v);
    }
    assert_eq!(decoded, models);
}

#[test]
fn residual_cost_of_known_values_at_even_odds() {
    let fresh = ResidualModel::<Prob>::default();
    let one = COST_ONE_BIT;
    // Zero flag only.
    assert_eq!(fresh.cost(0), one);
    // Zero flag, sign, one unary decision (class 1), no offset bits.
    assert_eq!(fresh.cost(1), 3 * one);
    assert_eq!(fresh.cost(-1), 3 * one);
    // Class 32: zero, sign, 16 unary decisions, 4 escape decisions, 31 offset bits.
    assert_eq!(fresh.cost(i32::MIN), (2 + 16 + 4 + 31) * one);
    // Class 31 (2^30 ..= 2^31 - 1): same decisions, 30 offset bits.
    assert_eq!(fresh.cost(i32::MAX), (2 + 16 + 4 + 30) * one);
    // Class 16 is the last unary class: 16 unary decisions, no escape.
    assert_eq!(fresh.cost(1 << 15), (2 + 16 + 15) * one);
    // Class 17 escapes.
    assert_eq!(fresh.cost(1 << 16), (2 + 16 + 4 + 16) * one);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any mix of decisions and direct bits round-trips; both ends' models end in the same
    /// state; the encoder's length bound holds; the packet fits an exactly sized buffer and
    /// not a smaller one; and zeros appended to a packet change nothing.
    #[test]
    fn range_coder_round_trips_mixed_models(
        bank in bank(),
        ops in prop::collection::vec(op(), 0..200),
    ) {
        let mut buf = vec![0u8; 64 + ops.len() * 16];
        let mut enc = Encoder::new(&mut buf);
        let mut enc_models = bank.clone();
        let coded = run_ops(&mut enc, &mut enc_models, &ops);
        let expected = expected_of(&ops);
        prop_assert_eq!(&coded, &expected);
        prop_assert!(!enc.overflowed());
        let bound = enc.len_bound();
        let len = enc.finish().unwrap();
        prop_assert!(len <= bound, "len {} > bound {}", len, bound);
        let bytes = &buf[..len];
        let mut dec = Decoder::new(bytes);
        let mut dec_models = bank.clone();
        prop_assert_eq!(&run_ops(&mut dec, &mut dec_models, &ops), &expected);
        prop_assert_eq!(&dec_models, &enc_models);
        // Trailing zeros are trimmed, never more than a decoder may read past the end.
        prop_assert!(!dec.exhausted(), "{} bytes read past the end", dec.bytes_past_end());
        prop_assert!(dec.at_end());

        let mut padded = bytes.to_vec();
        padded.extend_from_slice(&[0; 9]);
        let mut dec = Decoder::new(&padded);
        prop_assert_eq!(&run_ops(&mut dec, &mut bank.clone(), &ops), &expected);

        let mut exact = vec![0xEEu8; len];
        let mut enc = Encoder::new(&mut exact);
        run_ops(&mut enc, &mut bank.clone(), &ops);
        prop_assert!(!enc.overflowed());
        prop_assert_eq!(enc.finish(), Ok(len));
        prop_assert_eq!(&exact[..], bytes);

        if len > 0 {
            let mut short = vec![0u8; len - 1];
            let mut enc = Encoder::new(&mut short);
            run_ops(&mut enc, &mut bank.clone(), &ops);
            prop_assert_eq!(enc.finish(), Err(Error::BufferFull));
        }
    }

    /// Any `i32` residuals, coded with several models of both kinds chosen by context and
    /// interleaved with direct bits, round-trip; the decoder's models end equal to the
    /// encoder's, and to models that only learned the same values.
    #[test]
    fn residuals_round_trip_any_i32(
        values in prop::collection::vec((residual(), 0usize..4, any::<u16>()), 0..200),
    ) {
        let mut buf = vec![0u8; 64 + values.len() * 16];
        let mut enc = Encoder::new(&mut buf);
        let mut enc_models = ResidualBank::default();
        for &(e, context, extra) in &values {
            prop_assert_eq!(enc_models.code(&mut enc, context, e), e);
            enc.direct(u32::from(extra), u32::from(extra % 17));
        }
        let len = enc.finish().unwrap();

        let mut dec = Decoder::new(&buf[..len]);
        let mut dec_models = ResidualBank::default();
        for &(e, context, extra) in &values {
            prop_assert_eq!(dec_models.code(&mut dec, context, 0), e);
            let n = u32::from(extra % 17);
            prop_assert_eq!(dec.direct(0, n), u32::from(extra) & ((1 << n) - 1));
        }
        prop_assert_eq!(&dec_models, &enc_models);

        let mut learned = ResidualBank::default();
        for &(e, context, _) in &values {
            learned.code(&mut Learner, context, e);
        }
        prop_assert_eq!(&learned, &enc_models);
    }

    /// `cost` measures without learning, `observe` returns the same cost and learns exactly
    /// what coding would, and both agree with the f64 ideal within the cost table's precision.
    #[test]
    fn residual_cost_observe_and_learn_agree(
        values in prop::collection::vec(residual(), 1..100),
    ) {
        let mut observed = ResidualModel::<TwoRateProb>::default();
        let mut learned = ResidualModel::<TwoRateProb>::default();
        let mut coded = ResidualModel::<TwoRateProb>::default();
        let mut meter = Metered::new(CostMeter::default());
        for &e in &values {
            let before = observed;
            let cost = observed.cost(e);
            prop_assert_eq!(observed, before);
            prop_assert_eq!(observed.observe(e), cost);
            learned.learn(e);
            let fixed_before = meter.inner.cost;
            let ideal_before = meter.ideal_bits;
            coded.code(&mut meter, e);
            prop_assert_eq!(meter.inner.cost - fixed_before, cost);
            let fixed_bits = f64::from(cost) / f64::from(COST_ONE_BIT);
            let ideal = meter.ideal_bits - ideal_before;
            // At most 22 decisions per value; the table is exact to ~0.03 bit except for
            // probabilities within a few units of 0 or 1, which these short streams cannot
            // reach from even odds.
            prop_assert!((fixed_bits - ideal).abs() <= 0.05 * 22.0, "{} vs {}", fixed_bits, ideal);
        }
        prop_assert_eq!(observed, learned);
        prop_assert_eq!(observed, coded);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    /// Decoding arbitrary bytes never panics, whatever mix of residuals, decisions and direct
    /// bits is read; it is deterministic; and it reads zeros past the end.
    #[test]
    fn decoding_random_bytes_never_panics(
        bytes in prop::collection::vec(any::<u8>(), 0..96),
        seed in any::<u64>(),
    ) {
        let decode = |input: &[u8]| {
            let mut rng = SplitMix64::new(seed);
            let mut dec = Decoder::new(input);
            let mut residuals = ResidualBank::default();
            let mut bank = Bank::new([PROB_ONE / 3; MODELS], [seed; MODELS]);
            let mut out = Vec::with_capacity(300);
            for _ in 0..300 {
                match rng.below(8) {
                    0 => out.push(dec.direct(0, rng.below(33))),
                    1 => out.push(u32::from(bank.bit(&mut dec, rng.below(8) as usize, false))),
                    c => out.push(residuals.code(&mut dec, c as usize, 0) as u32),
                }
            }
            (out, dec.bytes_past_end())
        };
        let (first, past_end) = decode(&bytes);
        let (again, _) = decode(&bytes);
        prop_assert_eq!(&first, &again);
        let mut padded = bytes.clone();
        padded.resize(bytes.len() + past_end, 0);
        prop_assert_eq!(&decode(&padded).0, &first);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Every truncation of a valid packet decodes without panicking, and decoding stays
    /// correct for as long as the decoder has not looked past the truncation point.
    #[test]
    fn truncated_packets_never_panic(seed in any::<u64>(), n in 1usize..200) {
        let values = skewed_stream(seed, n);
        let mut buf = vec![0u8; 64 + n * 8];
        let mut enc = Encoder::new(&mut buf);
        let mut model = ResidualModel::<Prob>::default();
        for &e in &values {
            model.code(&mut enc, e);
        }
        let len = enc.finish().unwrap();
        for cut in 0..=len {
            let mut dec = Decoder::new(&buf[..cut]);
            let mut model = ResidualModel::<Prob>::default();
            for &e in &values {
                let got = model.code(&mut dec, 0);
                // Every byte read so far was a byte of the packet.
                if cut == len || dec.bytes_past_end() == 0 {
                    prop_assert_eq!(got, e);
                }
            }
        }
    }
}
