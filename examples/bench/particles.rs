//! The particle system of Orsten (2011) §7.4 (`schemas/particles.netidl`).
//!
//! About 1000 particles in a closed 64 m × 64 m room: gravity pulls them down, they bounce off
//! the floor, the ceiling and the two walls with a coefficient of restitution of 1/2, and their
//! colour fades linearly to black over a life of four seconds, when the particle is replaced by
//! a new one (a new entity) thrown from a random point of the upper half of the room. The
//! initial particles have staggered ages, so about four are replaced every frame. 60 Hz.

use netschema_idl::compare::{Rng, Snapshot};
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::quant::{FixedQuant, IntQuant};
use netschema_runtime::schema::{Class, Field, Schema};

use crate::Recording;

/// The schema's source.
pub(crate) const NETIDL: &str = include_str!("schemas/particles.netidl");

const POS: FixedQuant = match FixedQuant::with_resolution(0.0, 64.0, 1.0 / 256.0) {
    Ok(q) => q,
    Err(_) => panic!("pos"),
};
const CHANNEL: IntQuant = match IntQuant::new(0, 255) {
    Ok(q) => q,
    Err(_) => panic!("colour"),
};
const DEFAULT: &[Predictor] = &[Predictor::Hold, Predictor::Linear, Predictor::Quadratic];
static FIELDS: [Field; 5] = [
    Field::numeric("pos.x", POS.raw_min(), POS.raw_max(), false, DEFAULT),
    Field::numeric("pos.y", POS.raw_min(), POS.raw_max(), false, DEFAULT),
    Field::numeric("color[0]", CHANNEL.raw_min(), CHANNEL.raw_max(), false, DEFAULT),
    Field::numeric("color[1]", CHANNEL.raw_min(), CHANNEL.raw_max(), false, DEFAULT),
    Field::numeric("color[2]", CHANNEL.raw_min(), CHANNEL.raw_max(), false, DEFAULT),
];
static CLASSES: [Class; 1] = [Class { name: "Particle", fields: &FIELDS }];
/// The runtime descriptors of `particles.netidl`, written by hand until code generation lands.
pub(crate) static SCHEMA: Schema = Schema::new("particles", &CLASSES);

const COUNT: usize = 1000;
const RATE: f64 = 60.0;
const LIFE: u32 = 240;
const ROOM: f64 = 64.0;
const GRAVITY: f64 = 9.81;
const RESTITUTION: f64 = 0.5;

struct Particle {
    id: u32,
    pos: [f64; 2],
    vel: [f64; 2],
    colour: [f64; 3],
    age: u32,
}

fn spawn(rng: &mut Rng, id: u32, age: u32) -> Particle {
    Particle {
        id,
        pos: [rng.range(4.0, ROOM - 4.0), rng.range(ROOM / 2.0, ROOM - 4.0)],
        vel: [rng.range(-12.0, 12.0), rng.range(-6.0, 14.0)],
        colour: [rng.range(64.0, 255.0), rng.range(64.0, 255.0), rng.range(64.0, 255.0)],
        age,
    }
}

/// Bounces a coordinate off `[0, ROOM]`.
fn bounce(p: &mut f64, v: &mut f64) {
    if *p < 0.0 {
        *p = -*p * RESTITUTION;
        *v = -*v * RESTITUTION;
    } else if *p > ROOM {
        *p = ROOM - (*p - ROOM) * RESTITUTION;
        *v = -*v * RESTITUTION;
    }
}

/// Simulates `frames` frames and records what a client sees (every particle).
pub(crate) fn record(frames: usize, seed: u64) -> Recording {
    let mut rng = Rng(seed ^ 0x7061_7274);
    let mut next_id = 0u32;
    let mut particles: Vec<Particle> = (0..COUNT)
        .map(|i| {
            next_id += 1;
            spawn(&mut rng, next_id - 1, (i as u32 * LIFE) / COUNT as u32)
        })
        .collect();
    let dt = 1.0 / RATE;
    let mut snapshots = Vec::with_capacity(frames);
    for _ in 0..frames {
        for p in particles.iter_mut() {
            p.vel[1] -= GRAVITY * dt;
            for axis in 0..2 {
                p.pos[axis] += p.vel[axis] * dt;
                bounce(&mut p.pos[axis], &mut p.vel[axis]);
            }
            p.age += 1;
        }
        // Dead particles are replaced by new ones (new ids, so ids stay ascending).
        let before = particles.len();
        particles.retain(|p| p.age < LIFE);
        for _ in particles.len()..before {
            particles.push(spawn(&mut rng, next_id, 0));
            next_id += 1;
        }
        let mut s = Snapshot::new();
        for p in &particles {
            let fade = 1.0 - f64::from(p.age) / f64::from(LIFE);
            let row = [
                POS.quantise(p.pos[0]),
                POS.quantise(p.pos[1]),
                CHANNEL.quantise((p.colour[0] * fade).round() as i32),
                CHANNEL.quantise((p.colour[1] * fade).round() as i32),
                CHANNEL.quantise((p.colour[2] * fade).round() as i32),
            ];
            s.push(p.id, 0, &row);
        }
        snapshots.push(s);
    }
    Recording {
        name: "particles",
        rate_hz: RATE,
        schema: &SCHEMA,
        capacity: COUNT,
        snapshots,
        world: None,
    }
}
