//! Timeline lookup benchmark: 10,000 timelines of a 2-D position, each holding six keyframes
//! (four ahead, two of history) at irregular frames, looked up once each at a time that moves
//! between frames, as a client renders them: `lookup/<interp>` times the 10,000 lookups.
//!
//! ```sh
//! cargo bench -p netschema-runtime --bench timeline -- --warm-up-time 1 --measurement-time 5
//! ```

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;

use common::SplitMix64;
use criterion::{Criterion, criterion_group, criterion_main};
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::Field;
use netschema_runtime::timeline::{Interp, Kind, Spec, Time, Timeline};

const TIMELINES: usize = 10_000;
const COORD: Field = Field::numeric("x", 0, 65_535, false, &[Predictor::Hold]);

fn timelines(interp: Interp, rng: &mut SplitMix64) -> Vec<Timeline<2, 6>> {
    let spec = Spec {
        fields: &[COORD, COORD],
        kind: Kind::Scalars,
        interp,
        ahead: 4,
        history: 2,
        keep: 600,
    };
    (0..TIMELINES)
        .map(|_| {
            let mut t = Timeline::new(spec).unwrap();
            let mut at = 0;
            for k in 0..6 {
                at += 5 + rng.below(40);
                t.add(at, [rng.below(65_536) as i32, rng.below(65_536) as i32]).unwrap();
                if k == 1 {
                    // The first two are history: the server has sent up to the second.
                    t.advance(at);
                }
            }
            t
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut rng = SplitMix64::new(7);
    for (name, interp) in
        [("step", Interp::Step), ("linear", Interp::Linear), ("cubic", Interp::Cubic)]
    {
        let all = timelines(interp, &mut rng);
        let mut t = 0u64;
        c.bench_function(&format!("lookup/{name}"), |b| {
            b.iter(|| {
                // A third of a frame further each round, wrapping over the keyframes' span.
                t = (t + 21_845) % (200 << Time::FRAC_BITS);
                let mut sum = 0i64;
                for tl in &all {
                    let v = tl.value_at(Time(t)).unwrap_or([0, 0]);
                    sum += i64::from(v[0]) + i64::from(v[1]);
                }
                black_box(sum)
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
