//! Decodes residuals and bits from arbitrary bytes: never panics, and is deterministic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netschema_runtime::codec::bits::BitReader;
use netschema_runtime::codec::coder::{BinaryCoder, Decoder};
use netschema_runtime::codec::prob::Prob;
use netschema_runtime::codec::residual::ResidualModel;

fn decode(data: &[u8]) -> Vec<i32> {
    let mut dec = Decoder::new(data);
    let mut model = ResidualModel::<Prob>::default();
    let mut flag = Prob::HALF;
    let mut out = Vec::new();
    for i in 0..(data.len() * 2 + 8) {
        out.push(model.code(&mut dec, 0));
        out.push(dec.bit(&mut flag, false) as i32);
        out.push(dec.direct(0, (i % 33) as u32) as i32);
    }
    out
}

fuzz_target!(|data: &[u8]| {
    assert_eq!(decode(data), decode(data));
    let mut reader = BitReader::new(data);
    let mut width = 0u32;
    while reader.read(width % 41).is_ok() || width < 64 {
        width += 1;
    }
});
