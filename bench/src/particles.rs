//! The particle system of Orsten (2011) §7.4 (`schemas/particles.netidl`).
//!
//! About 1000 particles in a closed 64 m × 64 m room: gravity pulls them down, they bounce off
//! the floor, the ceiling and the two walls with a coefficient of restitution of 1/2, and their
//! colour fades linearly to black over a life of four seconds, when the particle is replaced by
//! a new one (a new entity) thrown from a random point of the upper half of the room. The
//! initial particles have staggered ages, so about four are replaced every frame. 60 Hz.

use netschema::model::contract::{Contract, Rows};
use netschema_lab::{Rng, Snapshot};

use crate::{Recording, push};

/// The code generated from `schemas/particles.netidl`.
// Generated items are `pub`; the scenario module keeps them to this crate.
#[allow(unreachable_pub)]
mod wire {
    netschema::include_schema!("particles");
}

/// The schema's source.
pub(crate) const NETIDL: &str = include_str!("../schemas/particles.netidl");

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
            let sent =
                wire::Particle { pos: p.pos, color: p.colour.map(|c| (c * fade).round() as i32) };
            push(&mut s, p.id, wire::Particle::CLASS_INDEX, &sent);
        }
        snapshots.push(s);
    }
    Recording {
        name: "particles",
        rate_hz: RATE,
        schema: &wire::SCHEMA,
        capacity: COUNT,
        snapshots,
        events: Vec::new(),
        world: None,
    }
}

/// The particles' predictive contract (`netschema-contract`): gravity and the walls, in raw
/// integer space, as the simulation above moves a particle.
pub(crate) struct GravityAndWalls;

/// The name [`GravityAndWalls`] joins the schema hash under.
pub(crate) const CONTRACT_NAME: &str = "particles-gravity-walls-v1";

/// Fractional bits of the contract's fixed-point positions and velocities.
const FRAC: u32 = 16;
/// The room's far wall in raw steps (positions are `fixed(0, 64, res = 1/256)`).
const WALL: i64 = 64 * 256;
/// Gravity in raw steps per frame², fixed point: 9.81 m/s² × 256 steps/m ÷ 60² frames²/s².
const FALL: i64 = 45_718;
/// A fit whose samples miss it by more than this (1.5 raw steps, fixed point) spans a bounce.
const MISS: i64 = 3 << (FRAC - 1);

/// One axis of the contract's motion: fixed-point position and velocity per frame.
#[derive(Clone, Copy)]
struct Axis {
    pos: i64,
    vel: i64,
}

impl Axis {
    /// The motion through field `f`'s values at rows `from..to` under constant acceleration
    /// `-fall`, fitted by least squares at row `from`, and whether every one of those rows is
    /// within [`MISS`] of it (no bounce in between). `None` with fewer than two rows.
    fn fit(rows: &Rows<'_>, f: usize, fall: i64, from: usize, to: usize) -> Option<(Axis, bool)> {
        let newest = i64::from(rows.offset(from));
        // Row j is t_j = newest - offset_j frames from row `from` (t_j <= 0); with
        // y(t) = c + b t - fall t (t + 1) / 2, z_j = y_j + fall t_j (t_j + 1) / 2 is linear.
        let point = |j: usize| {
            let t = newest - i64::from(rows.offset(j));
            (t, (i64::from(rows.get(j, f)) << FRAC) + fall * t * (t + 1) / 2)
        };
        let (mut st, mut sz, mut stt, mut stz) = (0i64, 0i64, 0i64, 0i64);
        for (t, z) in (from..to).map(point) {
            (st, sz, stt, stz) = (st + t, sz + z, stt + t * t, stz + t * z);
        }
        let count = to.saturating_sub(from) as i64;
        let det = count * stt - st * st;
        if count < 2 || det == 0 {
            return None;
        }
        let c = (sz * stt - st * stz).div_euclid(det);
        let b = (count * stz - st * sz).div_euclid(det);
        let fits = (from..to).map(point).all(|(t, z)| (z - c - b * t).abs() <= MISS);
        Some((Axis { pos: c, vel: b }, fits))
    }

    /// Field `f` at the predicted frame: from the fit of every row if they fit one motion,
    /// else of fewer of the newest; if the newest row alone left the motion of the older ones
    /// (a bounce between the two newest), that motion is run on through the bounce.
    fn predict(rows: &Rows<'_>, f: usize, fall: i64, walls: bool) -> Option<i32> {
        let n = rows.len();
        for to in (3..=n).rev() {
            if let Some((axis, true)) = Axis::fit(rows, f, fall, 0, to) {
                return Some(axis.run(rows.offset(0), fall, walls));
            }
        }
        if let (true, Some((axis, true))) = (n >= 3, Axis::fit(rows, f, fall, 1, n)) {
            let gap = rows.offset(1) - rows.offset(0);
            if (axis.run(gap, fall, walls) - rows.get(0, f)).abs() <= 2 {
                return Some(axis.run(rows.offset(1), fall, walls));
            }
        }
        let (axis, _) = Axis::fit(rows, f, fall, 0, 2)?;
        Some(axis.run(rows.offset(0), fall, walls))
    }

    /// Steps `frames` frames as the simulation does: gravity, motion, then a bounce off a wall
    /// at `[0, WALL]` with restitution 1/2 if `walls`. Returns the position in raw steps.
    fn run(mut self, frames: u32, fall: i64, walls: bool) -> i32 {
        let wall = WALL << FRAC;
        for _ in 0..frames.min(1024) {
            self.vel -= fall;
            self.pos += self.vel;
            if walls && self.pos < 0 {
                (self.pos, self.vel) = (-self.pos / 2, -self.vel / 2);
            } else if walls && self.pos > wall {
                (self.pos, self.vel) = (wall - (self.pos - wall) / 2, -self.vel / 2);
            }
        }
        let raw = (self.pos + (1 << (FRAC - 1))) >> FRAC;
        raw.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
    }
}

/// A fraction `num / den` with `den > 0`.
#[derive(Clone, Copy)]
struct Ratio {
    num: i64,
    den: i64,
}

impl Ratio {
    fn below(self, other: Ratio) -> bool {
        self.num * other.den < other.num * self.den
    }
}

/// The colour's fields: red, green and blue.
const COLOUR: core::ops::Range<usize> = 2..5;
/// How far either side of the straight lines' estimate the frames of life left are sought.
const LIFE_SEARCH: i64 = 6;

/// What initial colour `c0` of channel `f` rounds to every row, `round(c0 × (remaining +
/// offset) / LIFE)`, with `remaining` frames of life left at the predicted frame: `c0` in
/// `[lo, hi]`, within `[64, 255]` as spawned; `None` if none does.
fn initial(rows: &Rows<'_>, f: usize, remaining: i64) -> Option<(Ratio, Ratio)> {
    let life = i64::from(LIFE);
    let (mut lo, mut hi) = (Ratio { num: 64, den: 1 }, Ratio { num: 255, den: 1 });
    for j in 0..rows.len() {
        let den = 2 * (remaining + i64::from(rows.offset(j)));
        let y = i64::from(rows.get(j, f));
        let (l, h) =
            (Ratio { num: life * (2 * y - 1), den }, Ratio { num: life * (2 * y + 1), den });
        lo = if lo.below(l) { l } else { lo };
        hi = if h.below(hi) { h } else { hi };
    }
    (!hi.below(lo)).then_some((lo, hi))
}

/// The colour at the predicted frame from the way it fades: every channel is
/// `round(c0 × remaining / LIFE)` with the frames of life `remaining` shared by the channels.
/// Over the lives within [`LIFE_SEARCH`] of `estimate` for which every channel has an initial
/// colour that rounds to every row ([`initial`]), the mean of each channel's colour with `c0`
/// in the middle of its range. `None` if no life fits.
fn fade(rows: &Rows<'_>, estimate: i64) -> Option<[i32; 3]> {
    let life = i64::from(LIFE);
    // Alive at the oldest row: at most LIFE frames of life left there.
    let oldest = i64::from(rows.offset(rows.len().saturating_sub(1)));
    let (first, last) =
        ((estimate - LIFE_SEARCH).max(1), (estimate + LIFE_SEARCH).min(life - oldest));
    let (mut sums, mut count) = ([0i64; 3], 0);
    for remaining in first..=last {
        let mut ranges = [(Ratio { num: 0, den: 1 }, Ratio { num: 0, den: 1 }); 3];
        if !ranges
            .iter_mut()
            .zip(COLOUR)
            .all(|(r, f)| initial(rows, f, remaining).map(|i| *r = i).is_some())
        {
            continue;
        }
        for (sum, (lo, hi)) in sums.iter_mut().zip(ranges) {
            // (lo + hi) / 2 × remaining / LIFE, in 1/256 steps.
            let num = (lo.num * hi.den + hi.num * lo.den) * remaining;
            *sum += (num << 8).div_euclid(2 * lo.den * hi.den * life);
        }
        count += 1;
    }
    (count > 0).then(|| sums.map(|s| ((s.div_euclid(count) + 128) >> 8) as i32))
}

impl Contract for GravityAndWalls {
    fn predict(&self, _class: usize, rows: &Rows<'_>, out: &mut [i32]) {
        if out.len() < COLOUR.end || rows.len() < 2 {
            return;
        }
        // pos.x, then pos.y under gravity, between the walls.
        for (f, fall) in [(0, 0), (1, FALL)] {
            if let Some(p) = Axis::predict(rows, f, fall, true) {
                out[f] = p;
            }
        }
        // The colour: straight lines first, whose slopes estimate the frames of life left.
        let mut slope = 0;
        for f in COLOUR {
            if let Some((line, _)) = Axis::fit(rows, f, 0, 0, rows.len()) {
                out[f] = line.run(rows.offset(0), 0, false);
                slope += line.vel;
            }
        }
        let sum: i64 = out[COLOUR].iter().map(|&c| i64::from(c) << FRAC).sum();
        let estimate = if slope < 0 { sum / -slope } else { i64::from(LIFE) / 2 };
        if let Some(colour) = fade(rows, estimate) {
            out[COLOUR].copy_from_slice(&colour);
        }
    }
}

/// The particles' contract.
pub(crate) static CONTRACT: GravityAndWalls = GravityAndWalls;
