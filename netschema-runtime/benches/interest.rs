//! Interest management benchmark: 1000 clients and 10,000 entities walking about a square
//! kilometre at 30 ticks a second, each client seeing what lies within 70 m (until beyond
//! 80 m). Criterion times one update (`update/edge<E>`, for cells of edge E metres) and one
//! whole tick: every entity and client moved, then the update (`tick/edge80`). It prints the
//! mean visible set per client and the changes per update.
//!
//! ```sh
//! cargo bench -p netschema-runtime --bench interest -- --warm-up-time 1 --measurement-time 5
//! ```

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use common::SplitMix64;
use criterion::{Criterion, criterion_group, criterion_main};
use netschema_runtime::owned::{Interest, View};

const CLIENTS: u32 = 1000;
const ENTITIES: u64 = 10_000;
/// The world's side, metres.
const SIDE: f32 = 1000.0;
/// Seconds per tick.
const DT: f32 = 1.0 / 30.0;
const ENTER: f32 = 70.0;
const LEAVE: f32 = 80.0;
/// Ticks run before measuring, so that visible sets have filled.
const WARMUP_TICKS: usize = 30;

/// Something that walks in a straight line and bounces off the world's edges.
struct Walker {
    pos: [f32; 2],
    vel: [f32; 2],
}

impl Walker {
    fn new(rng: &mut SplitMix64, speed: f32) -> Self {
        let mut real = |lo: f32, hi: f32| lo + (hi - lo) * rng.below(1 << 24) as f32 / 16_777_216.0;
        let (angle, speed) = (real(0.0, std::f32::consts::TAU), real(0.0, speed));
        Walker {
            pos: [real(0.0, SIDE), real(0.0, SIDE)],
            vel: [speed * angle.cos(), speed * angle.sin()],
        }
    }

    fn step(&mut self) -> [f32; 2] {
        for (x, v) in self.pos.iter_mut().zip(&mut self.vel) {
            *x += *v * DT;
            if !(0.0..=SIDE).contains(x) {
                *v = -*v;
                *x = x.clamp(0.0, SIDE);
            }
        }
        self.pos
    }
}

/// Entities at up to 3 m/s, clients at up to 6 m/s, and the grid that watches them.
struct Scene {
    interest: Interest<u32, 2>,
    entities: Vec<Walker>,
    clients: Vec<Walker>,
}

impl Scene {
    fn new(edge: f32) -> Self {
        let mut rng = SplitMix64::new(1);
        let entities = (0..ENTITIES).map(|_| Walker::new(&mut rng, 3.0)).collect();
        let clients = (0..CLIENTS).map(|_| Walker::new(&mut rng, 6.0)).collect();
        let mut scene = Scene { interest: Interest::new(edge), entities, clients };
        for _ in 0..WARMUP_TICKS {
            scene.walk();
            scene.interest.update();
        }
        scene
    }

    /// Moves every entity and client one tick.
    fn walk(&mut self) {
        for (id, e) in (0..).zip(&mut self.entities) {
            self.interest.set_entity(id, e.step());
        }
        for (client, c) in (0..).zip(&mut self.clients) {
            self.interest.set_view(client, View { pos: c.step(), enter: ENTER, leave: LEAVE });
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut scene = Scene::new(LEAVE);
    let ticks = 100;
    let changes: usize = (0..ticks)
        .map(|_| {
            scene.walk();
            scene.interest.update().len()
        })
        .sum();
    let visible: usize = (0..CLIENTS).map(|c| scene.interest.visible(c).len()).sum();
    eprintln!(
        "{CLIENTS} clients, {ENTITIES} entities: {:.1} visible per client, {:.1} changes per update",
        visible as f64 / f64::from(CLIENTS),
        changes as f64 / f64::from(ticks),
    );

    let mut group = c.benchmark_group("interest");
    group.sample_size(20);
    for edge in [40.0, LEAVE, 160.0] {
        let mut scene = Scene::new(edge);
        group.bench_function(format!("update/edge{edge}"), |b| {
            b.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    scene.walk();
                    let start = Instant::now();
                    black_box(scene.interest.update());
                    spent += start.elapsed();
                }
                spent
            })
        });
    }
    group.bench_function(format!("tick/edge{LEAVE}"), |b| {
        b.iter(|| {
            scene.walk();
            black_box(scene.interest.update().len())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
