//! Replication engine benchmark: 1000 entities of 5 fields moving ballistically and bouncing,
//! latency 6 frames, 0 % and 5 % loss. Reports encode and decode time per frame (criterion)
//! and prints bytes per frame and memory per client. With `ENGINE_BENCH_COSTS` set it also
//! prints each field's candidate costs (1/256 bit per value) and preferred candidate.

use std::collections::VecDeque;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use netschema_runtime::engine::client::ClientStorage;
use netschema_runtime::engine::peer::PeerStorage;
use netschema_runtime::engine::world::WorldStorage;
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::owned::{ClientBuffers, PeerBuffers, WorldBuffers};
use netschema_runtime::quant::{AngleQuant, FixedQuant};
use netschema_runtime::schema::{Class, Field, Schema};
use netschema_runtime::{Ack, Client, Peer, World};

const ENTITIES: usize = 1000;
const LATENCY: usize = 6;
const WARMUP_FRAMES: usize = 120;

const XY: FixedQuant = match FixedQuant::with_resolution(-512.0, 512.0, 1.0 / 64.0) {
    Ok(q) => q,
    Err(_) => panic!("xy"),
};
const Z: FixedQuant = match FixedQuant::with_resolution(0.0, 64.0, 1.0 / 64.0) {
    Ok(q) => q,
    Err(_) => panic!("z"),
};
const YAW: AngleQuant = match AngleQuant::new(12) {
    Ok(q) => q,
    Err(_) => panic!("yaw"),
};
const MOVING: &[Predictor] = &[Predictor::Hold, Predictor::Linear, Predictor::Quadratic];
static FIELDS: [Field; 5] = [
    Field::numeric("x", XY.raw_min(), XY.raw_max(), false, MOVING),
    Field::numeric("y", XY.raw_min(), XY.raw_max(), false, MOVING),
    Field::numeric("z", Z.raw_min(), Z.raw_max(), false, MOVING),
    Field::numeric(
        "yaw",
        YAW.raw_min(),
        YAW.raw_max(),
        true,
        &[Predictor::Hold, Predictor::Linear],
    ),
    Field::categorical("airborne", 2),
];
static CLASSES: [Class; 1] = [Class::new("ball", &FIELDS)];
static SCHEMA: Schema = Schema::new("ballistic", &CLASSES);

/// Balls under gravity, bouncing off the floor and the walls with restitution 0.8.
struct Balls {
    state: Vec<[f64; 7]>,
    rng: u64,
}

impl Balls {
    fn new() -> Self {
        let mut b = Balls { state: Vec::new(), rng: 42 };
        for _ in 0..ENTITIES {
            let s = [
                b.uniform(-400.0, 400.0),
                b.uniform(-400.0, 400.0),
                b.uniform(1.0, 40.0),
                b.uniform(-8.0, 8.0),
                b.uniform(-8.0, 8.0),
                b.uniform(-5.0, 15.0),
                b.uniform(-3.0, 3.0),
            ];
            b.state.push(s);
        }
        b
    }

    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        lo + (hi - lo) * (self.rng >> 11) as f64 / (1u64 << 53) as f64
    }

    fn step(&mut self, world: &mut World<'_>, yaw: &mut [f64]) {
        const DT: f64 = 1.0 / 60.0;
        world.begin_frame();
        for (id, s) in self.state.iter_mut().enumerate() {
            s[5] -= 9.81 * DT;
            for axis in 0..3 {
                s[axis] += s[axis + 3] * DT;
            }
            for axis in 0..2 {
                if s[axis].abs() > 500.0 {
                    s[axis] = s[axis].clamp(-500.0, 500.0);
                    s[axis + 3] *= -0.8;
                }
            }
            if s[2] < 0.0 {
                s[2] = 0.0;
                s[5] = if s[5].abs() < 1.0 { 12.0 } else { -0.8 * s[5] };
            }
            yaw[id] += s[6] * DT;
            let row = [
                XY.quantise(s[0]),
                XY.quantise(s[1]),
                Z.quantise(s[2]),
                YAW.quantise(yaw[id]),
                i32::from(s[2] > 0.05),
            ];
            world.set(id, 0, &row).expect("row fits the schema");
        }
    }
}

/// Runs `frames` frames at `loss` and returns per-frame encode and decode times and sizes.
fn run(frames: usize, loss: f64) -> (Vec<Duration>, Vec<Duration>, Vec<usize>) {
    let schema = &SCHEMA;
    let mut wb = WorldBuffers::new(schema, ENTITIES);
    let mut world = wb.world(schema, ENTITIES).expect("world");
    let mut pb = PeerBuffers::new(schema, ENTITIES, ENTITIES);
    let mut peer: Peer<'_> = pb.peer(schema, ENTITIES, ENTITIES).expect("peer");
    let mut cb = ClientBuffers::new(schema, ENTITIES);
    let mut client: Client<'_> = cb.client(schema, ENTITIES).expect("client");
    for id in 0..ENTITIES {
        peer.set_visible(id, true).unwrap();
    }
    let mut balls = Balls::new();
    let mut yaw = vec![0.0; ENTITIES];
    let mut down: VecDeque<Option<Vec<u8>>> = VecDeque::new();
    let mut up: VecDeque<Option<Ack>> = VecDeque::new();
    let mut buf = vec![0u8; 1 << 16];
    let (mut enc, mut dec, mut sizes) = (Vec::new(), Vec::new(), Vec::new());
    let mut drop_rng = 7u64;
    let mut lost = move || {
        drop_rng = drop_rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((drop_rng >> 33) as f64 / (1u64 << 31) as f64) < loss
    };
    for frame in 0..WARMUP_FRAMES + frames {
        balls.step(&mut world, &mut yaw);
        let t = Instant::now();
        let len = peer.encode(&world, &mut buf).expect("frame fits");
        let e = t.elapsed();
        down.push_back((!lost()).then(|| buf[..len].to_vec()));
        let mut d = Duration::ZERO;
        if down.len() > LATENCY
            && let Some(Some(packet)) = down.pop_front()
        {
            let t = Instant::now();
            client.decode(black_box(&packet)).expect("decodes");
            d = t.elapsed();
            up.push_back(if lost() { None } else { client.ack() });
        }
        if up.len() > LATENCY
            && let Some(Some(ack)) = up.pop_front()
        {
            peer.receive_ack(&ack);
        }
        if frame + 1 == WARMUP_FRAMES + frames && std::env::var_os("ENGINE_BENCH_COSTS").is_some() {
            for (f, field) in FIELDS.iter().enumerate() {
                let m = peer.field_model(world.frame().unwrap_or(0), 0, f).expect("held");
                eprintln!(
                    "{}: costs {:?} preferred {:?}",
                    field.name,
                    m.candidate_costs(),
                    m.preferred()
                );
            }
        }
        if frame >= WARMUP_FRAMES {
            enc.push(e);
            if d > Duration::ZERO {
                dec.push(d);
            }
            sizes.push(len);
        }
    }
    (enc, dec, sizes)
}

/// Median, 90th percentile and mean of per-frame times.
fn summary(v: &mut [Duration]) -> String {
    v.sort();
    let mean = v.iter().sum::<Duration>() / v.len().max(1) as u32;
    format!("median {:?} p90 {:?} mean {:?}", v[v.len() / 2], v[v.len() * 9 / 10], mean)
}

fn bench(c: &mut Criterion) {
    let peer = PeerStorage::sizes(&SCHEMA, ENTITIES, ENTITIES).bytes();
    let client = ClientStorage::sizes(&SCHEMA, ENTITIES).bytes();
    // Rows, classes, and the spawn and change frames of every id.
    let world = (WorldStorage::rows_len(&SCHEMA, ENTITIES) * 4)
        + WorldStorage::classes_len(ENTITIES) * 2
        + ENTITIES * 8;
    eprintln!("memory: server peer {peer} B per client, client {client} B, shared world {world} B");
    for loss in [0.0, 0.05] {
        let (mut e, mut d, sizes) = run(600, loss);
        let mean = sizes.iter().sum::<usize>() as f64 / sizes.len() as f64;
        eprintln!(
            "loss {:>2}%: {mean:.1} bytes/frame; encode {}; decode {} (600 frames, latency {LATENCY})",
            (loss * 100.0) as u32,
            summary(&mut e),
            summary(&mut d)
        );
    }
    let mut group = c.benchmark_group("engine");
    group.sample_size(10);
    for loss in [0.0, 0.05] {
        let name = format!("loss{}", (loss * 100.0) as u32);
        group.bench_function(format!("encode_frame/{name}"), |b| {
            b.iter_custom(|iters| run(iters as usize, loss).0.iter().sum())
        });
        group.bench_function(format!("decode_frame/{name}"), |b| {
            b.iter_custom(|iters| {
                let (_, d, _) = run(iters as usize, loss);
                let per = d.iter().sum::<Duration>() / d.len().max(1) as u32;
                per * iters as u32
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
