//! Codes seeded synthetic field streams into packets with netschema's range coder and
//! residual model, checks that they decode, and prints a table of sizes and speeds.
//!
//! ```text
//! cargo run --release --example stream                     # 1,000,000 symbols per stream
//! cargo run --release --example stream -- --symbols 20000  # a quick run
//! ```
//!
//! Each stream is cut into packets of 8 to 512 symbols (seeded). The models are carried from
//! packet to packet and the coder restarts for each one, as a server does for one client.
//! Columns:
//! - `bits/sym`: packet bytes × 8 / symbols, termination included;
//! - `ideal`: the models' own cost, Σ −log2 p of every decision plus one bit per offset bit;
//! - `overhead`: how much larger the packets are than the ideal;
//! - `enc`, `dec`: nanoseconds per symbol, median of several passes over the whole stream;
//! - `term B/pkt`: bytes per packet above its ideal (the cost of ending a packet), mean and max.
//!
//! The generator, the skewed stream and the metering coder are the runtime's test helpers
//! (`netschema-runtime/tests/common`), shared with its tests and codec benchmark.

#[path = "../netschema-runtime/tests/common/mod.rs"]
mod common;

use std::process::ExitCode;
use std::time::Instant;

use netschema::codec::coder::{Decoder, Encoder};
use netschema::codec::prob::{BitModel, Prob, TwoRateProb};
use netschema::codec::residual::ResidualModel;

use common::{Metered, SplitMix64, skewed_residual};

/// Timed passes per stream; the median is reported.
const PASSES: usize = 5;
/// Largest packet, in symbols.
const MAX_PACKET: u32 = 512;
/// Smallest packet, in symbols.
const MIN_PACKET: u32 = 8;
/// Room for one packet: far more than 512 symbols of these streams can need.
const PACKET_CAPACITY: usize = 64 * 1024;

/// True with probability `p`.
fn chance(rng: &mut SplitMix64, p: f64) -> bool {
    ((rng.next_u64() >> 11) as f64) < p * (1u64 << 53) as f64
}

/// `+1` or `-1`.
fn sign(rng: &mut SplitMix64) -> i32 {
    if rng.next_u64() >> 63 == 0 { 1 } else { -1 }
}

/// `1 + G`, with `G` geometric of mean `mean - 1`.
fn geometric(rng: &mut SplitMix64, mean: f64) -> i32 {
    let keep = 1.0 - 1.0 / mean;
    let mut m = 1;
    while chance(rng, keep) {
        m += 1;
    }
    m
}

/// The synthetic field streams.
#[derive(Clone, Copy)]
enum Distribution {
    /// 70 % zeros, else a two-sided geometric magnitude of mean 7 (the tests' skewed stream).
    Skewed,
    /// Uniform in `-8..=8`.
    UniformSmall,
    /// The share of zeros and the tail scale drift slowly (a period of 100,000 symbols)
    /// between quiet (90 % zeros, mean 2) and busy (20 % zeros, mean 60).
    Drifting,
    /// 95 % zeros, else a uniform 24-bit magnitude: exercises the escape classes.
    RareLarge,
}

impl Distribution {
    fn name(self) -> &'static str {
        match self {
            Distribution::Skewed => "70% zero, geometric",
            Distribution::UniformSmall => "uniform -8..=8",
            Distribution::Drifting => "drifting",
            Distribution::RareLarge => "95% zero, 24-bit",
        }
    }

    fn generate(self, seed: u64, n: usize) -> Vec<i32> {
        let mut rng = SplitMix64::new(seed);
        (0..n)
            .map(|i| match self {
                Distribution::Skewed => skewed_residual(&mut rng),
                Distribution::UniformSmall => rng.below(17) as i32 - 8,
                Distribution::Drifting => {
                    let phase = (i as f64 / 100_000.0 * std::f64::consts::TAU).sin() * 0.5 + 0.5;
                    let zeros = 0.9 - 0.7 * phase;
                    let mean = 2.0 + 58.0 * phase;
                    if chance(&mut rng, zeros) {
                        0
                    } else {
                        sign(&mut rng) * geometric(&mut rng, mean)
                    }
                }
                Distribution::RareLarge => {
                    if chance(&mut rng, 0.95) {
                        0
                    } else {
                        sign(&mut rng) * (1 + rng.below(1 << 24) as i32)
                    }
                }
            })
            .collect()
    }
}

/// One row of the table.
struct Row {
    symbols: usize,
    packets: usize,
    bytes: usize,
    ideal_bits: f64,
    encode_ns: f64,
    decode_ns: f64,
    termination_mean: f64,
    termination_max: f64,
}

/// Packet boundaries: `(start, end)` symbol ranges of 8 to 512 symbols, seeded.
fn packet_ranges(seed: u64, n: usize) -> Vec<(usize, usize)> {
    let mut rng = SplitMix64::new(seed);
    let mut ranges = Vec::new();
    let mut start = 0;
    while start < n {
        let len = (MIN_PACKET + rng.below(MAX_PACKET - MIN_PACKET + 1)) as usize;
        let end = (start + len).min(n);
        ranges.push((start, end));
        start = end;
    }
    ranges
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// Codes `values` in packets with models of kind `M`, checks the round trip, and measures.
fn run<M: BitModel + Default>(values: &[i32], ranges: &[(usize, usize)]) -> Result<Row, String> {
    let n = values.len();
    let mut out = vec![0u8; 8 * n + PACKET_CAPACITY];
    let mut packets: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());

    // Sizes, and the ideal cost of each packet.
    let mut model = ResidualModel::<M>::default();
    let mut offset = 0;
    let (mut ideal_bits, mut term_sum, mut term_max) = (0.0, 0.0, f64::MIN);
    for &(start, end) in ranges {
        let room = (out.len() - offset).min(PACKET_CAPACITY);
        let mut enc = Metered::new(Encoder::new(&mut out[offset..offset + room]));
        for &e in &values[start..end] {
            model.code(&mut enc, e);
        }
        let packet_ideal = enc.ideal_bits;
        let len = enc.inner.finish().map_err(|e| format!("packet at {start}: {e}"))?;
        let termination = len as f64 - packet_ideal / 8.0;
        term_sum += termination;
        term_max = term_max.max(termination);
        ideal_bits += packet_ideal;
        packets.push((offset, len));
        offset += len;
    }
    let bytes = offset;

    // Round trip.
    let mut model = ResidualModel::<M>::default();
    for (&(start, end), &(at, len)) in ranges.iter().zip(&packets) {
        let mut dec = Decoder::new(&out[at..at + len]);
        for (i, &e) in values[start..end].iter().enumerate() {
            let got = model.code(&mut dec, 0);
            if got != e {
                return Err(format!("symbol {}: decoded {got}, encoded {e}", start + i));
            }
        }
    }

    // Timing: whole passes over the stream, without metering.
    let mut encode_ns = Vec::with_capacity(PASSES);
    let mut decode_ns = Vec::with_capacity(PASSES);
    let mut scratch = vec![0u8; out.len()];
    for _ in 0..PASSES {
        let t = Instant::now();
        let mut model = ResidualModel::<M>::default();
        let mut offset = 0;
        for &(start, end) in ranges {
            let room = (scratch.len() - offset).min(PACKET_CAPACITY);
            let mut enc = Encoder::new(&mut scratch[offset..offset + room]);
            for &e in &values[start..end] {
                model.code(&mut enc, e);
            }
            offset += enc.finish().map_err(|e| e.to_string())?;
        }
        encode_ns.push(t.elapsed().as_nanos() as f64 / n as f64);
        if scratch[..offset] != out[..bytes] {
            return Err("timed encoding produced different bytes".into());
        }

        let t = Instant::now();
        let mut model = ResidualModel::<M>::default();
        let mut checksum = 0i64;
        for (&(start, end), &(at, len)) in ranges.iter().zip(&packets) {
            let mut dec = Decoder::new(&out[at..at + len]);
            for _ in start..end {
                checksum = checksum.wrapping_add(i64::from(model.code(&mut dec, 0)));
            }
        }
        decode_ns.push(t.elapsed().as_nanos() as f64 / n as f64);
        if checksum != values.iter().map(|&e| i64::from(e)).sum::<i64>() {
            return Err("timed decoding produced different values".into());
        }
    }

    Ok(Row {
        symbols: n,
        packets: packets.len(),
        bytes,
        ideal_bits,
        encode_ns: median(encode_ns),
        decode_ns: median(decode_ns),
        termination_mean: term_sum / packets.len() as f64,
        termination_max: term_max,
    })
}

fn parse_symbols() -> Result<usize, String> {
    let mut args = std::env::args().skip(1);
    let mut symbols = 1_000_000;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--symbols" => {
                let v = args.next().ok_or("--symbols needs a value")?;
                symbols = v.replace('_', "").parse().map_err(|_| format!("bad count {v:?}"))?;
                if symbols == 0 {
                    return Err("--symbols must be positive".into());
                }
            }
            "-h" | "--help" => {
                println!("usage: stream [--symbols N]   (default 1000000 symbols per stream)");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?} (try --help)")),
        }
    }
    Ok(symbols)
}

fn main() -> ExitCode {
    let symbols = match parse_symbols() {
        Ok(n) => n,
        Err(e) => {
            eprintln!("stream: {e}");
            return ExitCode::FAILURE;
        }
    };
    if cfg!(debug_assertions) {
        eprintln!("note: unoptimised build; use --release for meaningful timings");
    }
    let ranges = packet_ranges(0x5EED_9000, symbols);
    println!(
        "netschema codec: residual model + range coder, {symbols} symbols per stream, \
         {} packets of {MIN_PACKET}-{MAX_PACKET} symbols",
        ranges.len()
    );
    println!();
    println!(
        "{:<20} {:<9} {:>9} {:>9} {:>8} {:>7} {:>9} {:>7} {:>7} {:>14}",
        "stream",
        "model",
        "symbols",
        "bytes",
        "bits/sym",
        "ideal",
        "overhead",
        "enc ns",
        "dec ns",
        "term B/pkt"
    );
    let streams = [
        (Distribution::Skewed, false),
        (Distribution::UniformSmall, false),
        (Distribution::Drifting, false),
        (Distribution::Drifting, true),
        (Distribution::RareLarge, false),
    ];
    for (i, &(dist, two_rate)) in streams.iter().enumerate() {
        let values = dist.generate(0x5EED_0000 + i as u64, symbols);
        let result = if two_rate {
            run::<TwoRateProb>(&values, &ranges)
        } else {
            run::<Prob>(&values, &ranges)
        };
        let row = match result {
            Ok(row) => row,
            Err(e) => {
                eprintln!("stream: {}: round trip failed: {e}", dist.name());
                return ExitCode::FAILURE;
            }
        };
        let bits = row.bytes as f64 * 8.0 / row.symbols as f64;
        let ideal = row.ideal_bits / row.symbols as f64;
        println!(
            "{:<20} {:<9} {:>9} {:>9} {:>8.4} {:>7.4} {:>8.3}% {:>7.1} {:>7.1} {:>6.3} / {:.3}",
            dist.name(),
            if two_rate { "two-rate" } else { "one-rate" },
            row.symbols,
            row.bytes,
            bits,
            ideal,
            (bits / ideal - 1.0) * 100.0,
            row.encode_ns,
            row.decode_ns,
            row.termination_mean,
            row.termination_max,
        );
        debug_assert_eq!(row.packets, ranges.len());
    }
    println!();
    println!("term B/pkt: bytes per packet above the models' ideal cost, mean / max.");
    ExitCode::SUCCESS
}
