//! The owned, typed API against the borrowed, raw one on the particle scene: 1000 particles
//! in a 64 m room with fading colours (the bench's `particles` schema), one client, latency 6
//! frames, no loss. Both paths write the same bytes; this measures what the typed layer costs.
//!
//! ```sh
//! cargo bench --bench typed
//! ```
//!
//! `encode` is the server's frame: capture (quantise and set every particle) and one packet.
//! `decode` is the client's: decode the packet and read every particle back as a value.

use std::collections::VecDeque;
use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use netschema::owned::{Client, ClientBuffers, PeerBuffers, Server, ServerConfig, WorldBuffers};
use netschema::{Ack, Protocol, Snapshot};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Particle {
    #[netschema(vec2(fixed(0.0, 64.0, res = 1 / 256)))]
    pos: [f32; 2],
    #[netschema(int(0, 255))]
    color: [u8; 3],
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "particles")]
enum Particles {
    Particle(Particle),
}

const COUNT: usize = 1000;
const LATENCY: usize = 6;
const CONFIG: ServerConfig = ServerConfig::new(COUNT, COUNT);

/// Particles bouncing in the room, colours fading over a four-second life.
struct Scene {
    particles: Vec<(Particle, [f32; 2], u32)>,
}

impl Scene {
    fn new() -> Scene {
        let particles = (0..COUNT)
            .map(|i| {
                let f = i as f32;
                let p = Particle {
                    pos: [(f * 0.37) % 60.0 + 2.0, (f * 0.61) % 30.0 + 30.0],
                    color: [200, 150, 100],
                };
                (p, [(f * 0.13) % 12.0 - 6.0, (f * 0.29) % 10.0 - 3.0], (i * 240 / COUNT) as u32)
            })
            .collect();
        Scene { particles }
    }

    fn step(&mut self) {
        for (p, v, age) in &mut self.particles {
            v[1] -= 9.81 / 60.0;
            for (x, v) in p.pos.iter_mut().zip(v.iter_mut()) {
                *x += *v / 60.0;
                if !(0.0..=64.0).contains(x) {
                    *x = x.clamp(0.0, 64.0);
                    *v *= -0.5;
                }
            }
            *age = (*age + 1) % 240;
            let fade = 1.0 - *age as f32 / 240.0;
            p.color = [(200.0 * fade) as u8, (150.0 * fade) as u8, (100.0 * fade) as u8];
        }
    }
}

/// Acks of the frames just encoded, as a client holding every frame would send them, each
/// delivered `LATENCY` frames later.
struct Acks(VecDeque<Ack>);

impl Acks {
    fn after(&mut self, ack: Option<Ack>) -> Option<Ack> {
        self.0.extend(ack);
        if self.0.len() > LATENCY { self.0.pop_front() } else { None }
    }
}

fn encode(c: &mut Criterion) {
    let schema = Particles::SCHEMA;
    let mut buf = vec![0u8; 1 << 16];

    let mut wb = WorldBuffers::new(schema, COUNT);
    let mut world = wb.world(schema, COUNT).unwrap();
    let mut pb = PeerBuffers::new(schema, COUNT, COUNT);
    let mut peer = pb.peer(schema, COUNT, COUNT).unwrap();
    let (mut scene, mut acks, mut row) = (Scene::new(), Acks(VecDeque::new()), [0i32; 5]);
    let mut raw_frame = || {
        scene.step();
        let frame = world.begin_frame();
        for (id, (p, _, _)) in scene.particles.iter().enumerate() {
            p.quantise(&mut row);
            world.set(id, 0, &row).unwrap();
            peer.set_visible(id, true).unwrap();
        }
        let n = peer.encode(&world, &mut buf).unwrap();
        if let Some(ack) = acks.after(peer.ack_of(frame, |_| true)) {
            peer.receive_ack(&ack);
        }
        n
    };
    for _ in 0..120 {
        raw_frame();
    }
    c.bench_function("encode/raw", |b| b.iter(|| black_box(raw_frame())));

    let mut server = Server::<Particles>::new(CONFIG).unwrap();
    let mut msg = [0; 64];
    let n = Client::<Particles>::hello(&mut msg).unwrap();
    let who = server.connect(&msg[..n]).unwrap();
    let (mut scene, mut acks) = (Scene::new(), Acks(VecDeque::new()));
    let mut typed_frame = || {
        scene.step();
        let frame = server.begin_frame();
        for (id, (p, _, _)) in scene.particles.iter().enumerate() {
            server.set(id as u64, p).unwrap();
            server.set_visible(who, id as u64, true).unwrap();
        }
        let n = server.encode(who, &mut buf).unwrap();
        if let Some(ack) = acks.after(server.ack_of(who, frame, |_| true).unwrap()) {
            server.receive_ack(who, &ack).unwrap();
        }
        n
    };
    for _ in 0..120 {
        typed_frame();
    }
    c.bench_function("encode/typed", |b| b.iter(|| black_box(typed_frame())));
}

/// The first `frames` packets of a session, coded as a client acknowledging each at
/// `LATENCY` frames would receive them, and the welcome that starts it.
fn stream(frames: usize) -> (Vec<Vec<u8>>, Vec<u8>) {
    let mut server = Server::<Particles>::new(CONFIG).unwrap();
    let mut msg = [0; 64];
    let n = Client::<Particles>::hello(&mut msg).unwrap();
    let who = server.connect(&msg[..n]).unwrap();
    let n = server.welcome(&mut msg).unwrap();
    let (mut scene, mut acks, mut buf) = (Scene::new(), Acks(VecDeque::new()), vec![0u8; 1 << 16]);
    let packets = (0..frames)
        .map(|_| {
            scene.step();
            let frame = server.begin_frame();
            for (id, (p, _, _)) in scene.particles.iter().enumerate() {
                server.set(id as u64, p).unwrap();
                server.set_visible(who, id as u64, true).unwrap();
            }
            let n = server.encode(who, &mut buf).unwrap();
            if let Some(ack) = acks.after(server.ack_of(who, frame, |_| true).unwrap()) {
                server.receive_ack(who, &ack).unwrap();
            }
            buf[..n].to_vec()
        })
        .collect();
    (packets, msg[..n].to_vec())
}

fn decode(c: &mut Criterion) {
    const FRAMES: usize = 180;
    let (packets, welcome) = stream(FRAMES);
    let schema = Particles::SCHEMA;
    let mut group = c.benchmark_group("decode");
    group.throughput(criterion::Throughput::Elements(FRAMES as u64));
    group.bench_function("raw", |b| {
        b.iter_batched_ref(
            || ClientBuffers::new(schema, COUNT),
            |cb| {
                let mut client = cb.client(schema, COUNT).unwrap();
                for packet in &packets {
                    client.decode(packet).unwrap();
                    let read = client.view().map(|(_, _, raw)| Particle::dequantise(raw).pos[0]);
                    black_box(read.sum::<f32>());
                }
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("typed", |b| {
        b.iter_batched_ref(
            || Client::<Particles>::connect(&welcome, COUNT).unwrap(),
            |client| {
                for packet in &packets {
                    client.decode(packet).unwrap();
                    black_box(client.iter::<Particle>().map(|(_, p)| p.pos[0]).sum::<f32>());
                }
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, encode, decode);
criterion_main!(benches);
