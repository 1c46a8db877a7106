//! Shared pieces of the engine tests: a seeded PRNG, a small schema, a moving world and a
//! lossy link.
#![allow(dead_code, unreachable_pub)]

use netschema_runtime::model::ModelPolicy;
use netschema_runtime::model::contract::{Contract, Rows};
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::owned::{ClientBuffers, PeerBuffers, WorldBuffers};
use netschema_runtime::quant::QuatQuant;
use netschema_runtime::schema::{Class, Field, Schema};
use netschema_runtime::{Ack, Client, Peer, World};
use std::collections::BTreeMap;

/// splitmix64.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

const MOVING: &[Predictor] = &[Predictor::Hold, Predictor::Linear, Predictor::Quadratic];
static BALL_FIELDS: [Field; 5] = [
    Field::numeric("x", 0, 65_535, false, MOVING),
    Field::numeric("y", 0, 65_535, false, MOVING),
    Field::numeric("heading", 0, 1023, true, &[Predictor::Hold, Predictor::Linear]),
    Field::categorical("mood", 4),
    Field::categorical("lit", 2),
];
static CRATE_FIELDS: [Field; 2] = [
    Field::numeric("hp", -100, 100, false, &[Predictor::Zero, Predictor::Hold]),
    Field::categorical("open", 2),
];
static CLASSES: [Class; 2] = [Class::new("ball", &BALL_FIELDS), Class::new("crate", &CRATE_FIELDS)];
pub static SCHEMA: Schema = Schema::new("test", &CLASSES);
/// [`SCHEMA`] under the batched model policy of seed 004 (batches of 10, 7 models kept).
pub static BATCHED: Schema = Schema::new("test", &CLASSES).with_policy(ModelPolicy::BATCHED);
/// [`SCHEMA`] batched by three frames, eight models kept: models change often, and the
/// server's can be several batches behind the client's newest.
pub static BATCHED_SMALL: Schema =
    Schema::new("test", &CLASSES).with_policy(ModelPolicy::Batched { batch: 3, kept: 8 });

/// The rotation of a top: smallest three at 9 bits.
pub const TOP_QUAT: QuatQuant = match QuatQuant::new(9) {
    Ok(q) => q,
    Err(_) => panic!("9 bits"),
};
const fn top_part(name: &'static str) -> Field {
    Field::numeric(name, TOP_QUAT.raw_min(), TOP_QUAT.raw_max(), false, MOVING)
        .with_meaning(TOP_QUAT.fingerprint())
}
static TOP_FIELDS: [Field; 4] = [
    Field::categorical("rot.largest", 4).with_meaning(TOP_QUAT.index().fingerprint()),
    top_part("rot.c0"),
    top_part("rot.c1"),
    top_part("rot.c2"),
];
static SPINNING_CLASSES: [Class; 3] = [
    Class::new("ball", &BALL_FIELDS),
    Class::new("crate", &CRATE_FIELDS),
    Class::new("top", &TOP_FIELDS),
];
/// [`SCHEMA`] with a third class, tops: a rotation that spins, so that the largest
/// component's index keeps changing.
pub static SPINNING: Schema = Schema::new("spinning", &SPINNING_CLASSES);

const CONTRACTED_MOVING: &[Predictor] =
    &[Predictor::Hold, Predictor::Linear, Predictor::Quadratic, Predictor::Contract];
static CONTRACTED_BALL_FIELDS: [Field; 5] = [
    Field::numeric("x", 0, 65_535, false, CONTRACTED_MOVING),
    Field::numeric("y", 0, 65_535, false, CONTRACTED_MOVING),
    Field::numeric("heading", 0, 1023, true, &[Predictor::Contract, Predictor::Linear]),
    Field::categorical("mood", 4),
    Field::categorical("lit", 2),
];
static CONTRACTED_CLASSES: [Class; 2] =
    [Class::new("ball", &CONTRACTED_BALL_FIELDS), Class::new("crate", &CRATE_FIELDS)];
/// [`SCHEMA`] with the contract candidate on the balls' numeric fields and no contract
/// attached: the candidate is never usable.
pub static UNATTACHED: Schema = Schema::new("test", &CONTRACTED_CLASSES);
/// [`UNATTACHED`] with [`Falling`], which predicts the balls as [`Sim`] moves them.
pub static FALLING: Schema = UNATTACHED.with_contract("falling", &Falling);
/// [`UNATTACHED`] with [`Garbage`], which predicts nonsense, out of range too.
pub static GARBAGE: Schema = UNATTACHED.with_contract("garbage", &Garbage);
/// [`UNATTACHED`] with [`Panicky`], which panics on some entities and predicts others.
pub static PANICKY: Schema = UNATTACHED.with_contract("panicky", &Panicky);

/// The balls of [`Sim`]: x at constant speed, y falling 2 raw steps per frame², each from
/// its two newest rows; the heading turning at constant speed (wrapping).
pub struct Falling;

impl Contract for Falling {
    fn predict(&self, class: usize, rows: &Rows<'_>, out: &mut [i32]) {
        if class != 0 || rows.len() < 2 {
            return;
        }
        let (d0, d1) = (i64::from(rows.offset(0)), i64::from(rows.offset(1)));
        let gap = d1 - d0;
        for (f, fall, wrap) in [(0, 0, None), (1, 2, None), (2, 0, Some(1024))] {
            let (y0, y1) = (i64::from(rows.get(0, f)), i64::from(rows.get(1, f)));
            // The heading turns the short way round.
            let rise =
                wrap.map_or(y0 - y1, |span| (y0 - y1 + span / 2).rem_euclid(span) - span / 2);
            // y(t) = y0 + v t - fall t (t + 1) / 2 from the newest row; y(-gap) = y1.
            let v = (rise - fall * gap * (gap - 1) / 2).div_euclid(gap);
            out[f] = (y0 + v * d0 - fall * d0 * (d0 + 1) / 2) as i32;
        }
    }
}

/// Writes values derived from its inputs all over the `i32` range.
pub struct Garbage;

impl Contract for Garbage {
    fn predict(&self, class: usize, rows: &Rows<'_>, out: &mut [i32]) {
        let mut h = class as u64 ^ rows.len() as u64;
        for (f, o) in out.iter_mut().enumerate() {
            h = (h ^ rows.get(0, f) as u64 ^ u64::from(rows.offset(0))).wrapping_mul(0x9e37_79b9);
            *o = match h % 3 {
                0 => i32::MIN,
                1 => i32::MAX,
                _ => (h >> 7) as i32,
            };
        }
    }
}

/// The message [`Panicky`] panics with.
pub const PANIC_MESSAGE: &str = "a test contract gave up";

/// [`Falling`], except that it panics on every entity whose first field is a multiple of 3.
pub struct Panicky;

impl Contract for Panicky {
    fn predict(&self, class: usize, rows: &Rows<'_>, out: &mut [i32]) {
        if rows.get(0, 0) % 3 == 0 {
            panic!("{PANIC_MESSAGE}");
        }
        Falling.predict(class, rows, out);
    }
}

/// Silences the panic messages of [`Panicky`] (others still print).
pub fn quiet_contract_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info.payload_as_str() != Some(PANIC_MESSAGE) {
            previous(info);
        }
    }));
}

/// A one-way link that delays, loses, duplicates, reorders and corrupts datagrams.
pub struct Link {
    pub latency: (u32, u32),
    pub loss: f64,
    pub duplicate: f64,
    pub corrupt: f64,
    queue: BTreeMap<(u32, u64), Vec<u8>>,
    seq: u64,
}

impl Link {
    pub fn new(latency: (u32, u32), loss: f64) -> Self {
        Link { latency, loss, duplicate: 0.0, corrupt: 0.0, queue: BTreeMap::new(), seq: 0 }
    }
    pub fn send(&mut self, rng: &mut Rng, now: u32, bytes: &[u8]) {
        let copies = if rng.chance(self.duplicate) { 2 } else { 1 };
        for _ in 0..copies {
            if rng.chance(self.loss) {
                continue;
            }
            let mut b = bytes.to_vec();
            if !b.is_empty() && rng.chance(self.corrupt) {
                let i = rng.below(b.len() as u64) as usize;
                b[i] ^= 1 << rng.below(8);
            }
            let span = u64::from(self.latency.1 - self.latency.0) + 1;
            let at = now + self.latency.0 + rng.below(span) as u32;
            self.seq += 1;
            self.queue.insert((at, self.seq), b);
        }
    }
    pub fn receive(&mut self, now: u32) -> Vec<Vec<u8>> {
        let later = self.queue.split_off(&(now + 1, 0));
        let due = std::mem::replace(&mut self.queue, later);
        due.into_values().collect()
    }
}

/// Encodes an ack for the link.
pub fn ack_bytes(ack: Ack) -> Vec<u8> {
    let mut b = [0u8; Ack::MAX_LEN];
    let len = ack.write(&mut b).unwrap();
    b[..len].to_vec()
}

/// A world of balls that fly and bounce, and crates that sit; things spawn and despawn.
pub struct Sim {
    pub rng: Rng,
    vel: Vec<(i32, i32, i32)>,
    /// Per top: its axis and angle, and how far it turns per frame (radians); empty for
    /// schemas without tops.
    spin: Vec<([f64; 3], f64, f64)>,
}

impl Sim {
    /// A world of `entities` ids, empty at first.
    pub fn new(seed: u64, entities: usize) -> Self {
        Sim { rng: Rng(seed), vel: vec![(0, 0, 0); entities], spin: Vec::new() }
    }

    /// A world of `schema` ([`SCHEMA`] or [`SPINNING`]): with tops if it has them.
    pub fn of(schema: &Schema, seed: u64, entities: usize) -> Self {
        let mut sim = Sim::new(seed, entities);
        if schema.classes.len() > 2 {
            sim.spin = vec![([0.0; 3], 0.0, 0.0); entities];
        }
        sim
    }

    /// The raw rotation of top `id`.
    fn top_row(&self, id: usize) -> [i32; 4] {
        let ([x, y, z], angle, _) = self.spin[id];
        let (s, c) = (angle * 0.5).sin_cos();
        TOP_QUAT.quantise([x * s, y * s, z * s, c])
    }

    fn spawn(&mut self, world: &mut World<'_>, id: usize) {
        if id % 5 == 3 && !self.spin.is_empty() {
            let r = &mut self.rng;
            let mut unit = || r.below(2001) as f64 / 1000.0 - 1.0;
            let axis = [unit(), unit(), unit() + 1e-3];
            let n = axis.iter().map(|a| a * a).sum::<f64>().sqrt();
            self.spin[id] = (axis.map(|a| a / n), unit() * 3.0, unit() * 0.2);
            world.set(id, 2, &self.top_row(id)).unwrap();
            return;
        }
        let r = &mut self.rng;
        if id % 5 == 4 {
            world.set(id, 1, &[r.below(201) as i32 - 100, r.below(2) as i32]).unwrap();
        } else {
            let row = [
                r.below(60_000) as i32 + 2000,
                r.below(60_000) as i32 + 2000,
                r.below(1024) as i32,
                0,
                0,
            ];
            self.vel[id] =
                (r.below(81) as i32 - 40, r.below(81) as i32 - 40, r.below(21) as i32 - 10);
            world.set(id, 0, &row).unwrap();
        }
    }

    /// Starts the next frame: entities move, change, spawn and despawn.
    pub fn step(&mut self, world: &mut World<'_>) {
        Step::step(self, world);
    }
}

/// A simulated world that advances one frame at a time.
pub trait Step {
    /// Starts the next frame of `world` and sets its entities.
    fn step(&mut self, world: &mut World<'_>);
}

impl Step for Sim {
    fn step(&mut self, world: &mut World<'_>) {
        let frame = world.begin_frame();
        for id in 0..self.vel.len() {
            let Some((class, row)) = world.get(frame, id) else {
                if self.rng.chance(0.02) {
                    self.spawn(world, id);
                }
                continue;
            };
            if self.rng.chance(0.003) {
                world.remove(id);
                continue;
            }
            let mut row = row.to_vec();
            if class == 0 {
                let v = &mut self.vel[id];
                v.1 -= 2;
                for (axis, vel) in [(0usize, &mut v.0), (1, &mut v.1)] {
                    let next = row[axis] + *vel;
                    if !(0..=65_535).contains(&next) {
                        *vel = -*vel / 2;
                    } else {
                        row[axis] = next;
                    }
                }
                row[2] = (row[2] + v.2).rem_euclid(1024);
                if self.rng.chance(0.01) {
                    row[3] = self.rng.below(4) as i32;
                }
                if self.rng.chance(0.02) {
                    row[4] ^= 1;
                }
            } else if class == 2 {
                self.spin[id].1 += self.spin[id].2;
                row = self.top_row(id).to_vec();
            } else if self.rng.chance(0.05) {
                row[0] = (row[0] - 7).max(-100);
            }
            world.set(id, class, &row).unwrap();
        }
    }
}

pub type View = BTreeMap<u32, (usize, Vec<i32>)>;

/// What `peer` records that its client holds at the world's current frame.
pub fn record(schema: &Schema, world: &World<'_>, peer: &Peer<'_>) -> View {
    let frame = world.frame().unwrap();
    let mut out = vec![0; schema.max_fields];
    (0..world.capacity())
        .filter_map(|id| {
            let h = peer.handle_of(id)?;
            let class = peer.client_view(world, frame, id, &mut out)?;
            Some((h, (class, out[..schema.classes[class].fields.len()].to_vec())))
        })
        .collect()
}

/// The young entities of the frames a peer sent (see `Peer::young_entities`) and the frames
/// its client decoded: what a decoded frame holds of what the peer recorded when it sent it.
#[derive(Default)]
pub struct YoungLog {
    sent: BTreeMap<u32, Vec<(u32, u32)>>,
    decoded: std::collections::BTreeSet<u32>,
}

impl YoungLog {
    /// Notes the young entities of `frame`, which `peer` just encoded.
    pub fn sent(&mut self, peer: &Peer<'_>, frame: u32) {
        self.sent.insert(frame, peer.young_entities(frame).collect());
        self.sent.retain(|&f, _| frame.wrapping_sub(f) < 256);
    }

    /// `view`, what the peer recorded when it sent `frame`, as the client holds it having just
    /// decoded that frame: without the young entities whose entry frame it did not decode.
    pub fn decoded(&mut self, frame: u32, view: &View) -> View {
        let lost = self.lost(frame);
        view.iter().filter(|(h, _)| !lost.contains(h)).map(|(&h, v)| (h, v.clone())).collect()
    }

    /// Notes that the client restarted: it holds no frame it decoded before.
    pub fn restarted(&mut self) {
        self.decoded.clear();
    }

    /// Notes that the client just decoded `frame`; returns the young entities of that frame
    /// whose entry frame it did not decode, which the frame does not hold.
    pub fn lost(&mut self, frame: u32) -> std::collections::BTreeSet<u32> {
        let young = self.sent.get(&frame).map_or(&[][..], |y| &y[..]);
        let lost = young.iter().filter(|(_, e)| !self.decoded.contains(e)).map(|&(h, _)| h);
        let lost = lost.collect();
        self.decoded.insert(frame);
        self.decoded.retain(|&f| frame.wrapping_sub(f) < 256);
        lost
    }
}

/// The client's current frame exactly as its packet set it.
pub fn frame_view(client: &Client<'_>) -> View {
    client.frame_view().map(|(h, c, r)| (h, (c, r.to_vec()))).collect()
}

/// Storage of one session that is freed with it, for tests that run many sessions (the soak);
/// [`session`] keeps its storage for the rest of the test.
pub struct SessionBuffers(WorldBuffers, PeerBuffers, ClientBuffers);

impl SessionBuffers {
    /// Storage for a world of `entities` ids and a peer and client of `handles` handles.
    pub fn new(schema: &Schema, entities: usize, handles: usize) -> Self {
        SessionBuffers(
            WorldBuffers::new(schema, entities),
            PeerBuffers::new(schema, handles, entities),
            ClientBuffers::new(schema, handles),
        )
    }

    /// The world, peer and client on this storage.
    pub fn session<'a>(
        &'a mut self,
        schema: &'a Schema,
        entities: usize,
        handles: usize,
    ) -> (World<'a>, Peer<'a>, Client<'a>) {
        let SessionBuffers(world, peer, client) = self;
        (
            world.world(schema, entities).unwrap(),
            peer.peer(schema, handles, entities).unwrap(),
            client.client(schema, handles).unwrap(),
        )
    }
}

/// A world of `entities` ids, a peer of `handles` handles serving it, and that peer's client,
/// on storage allocated once and kept for the rest of the test.
pub fn session(
    schema: &Schema,
    entities: usize,
    handles: usize,
) -> (World<'_>, Peer<'_>, Client<'_>) {
    let world = Box::leak(Box::new(WorldBuffers::new(schema, entities)));
    let peer = Box::leak(Box::new(PeerBuffers::new(schema, handles, entities)));
    let client = Box::leak(Box::new(ClientBuffers::new(schema, handles)));
    (
        world.world(schema, entities).unwrap(),
        peer.peer(schema, handles, entities).unwrap(),
        client.client(schema, handles).unwrap(),
    )
}

static SPARK_FIELDS: [Field; 5] = [
    Field::numeric("x", 0, 65_535, false, MOVING),
    Field::numeric("y", 0, 65_535, false, MOVING),
    Field::numeric("heading", 0, 1023, true, &[Predictor::Hold, Predictor::Linear]),
    Field::numeric("heat", 0, 4095, false, MOVING).with_tolerance(2),
    Field::categorical("kind", 3),
];
static PUFF_FIELDS: [Field; 2] =
    [Field::numeric("x", 0, 65_535, false, MOVING), Field::numeric("y", 0, 65_535, false, MOVING)];
static SPARK_CLASSES: [Class; 2] =
    [Class::new("spark", &SPARK_FIELDS), Class::new("puff", &PUFF_FIELDS)];
/// Short-lived sparks and puffs (see [`Bursts`]); sparks have a wrapping and a tolerant field.
pub static SPARKS: Schema = Schema::new("sparks", &SPARK_CLASSES);
/// [`SPARKS`] batched by three frames, eight models kept.
pub static SPARKS_BATCHED: Schema =
    Schema::new("sparks", &SPARK_CLASSES).with_policy(ModelPolicy::Batched { batch: 3, kept: 8 });

/// A world of short-lived entities: emitters throw bursts of sparks and puffs that spawn
/// together, near each other and alike, fly for about 20 frames and vanish.
pub struct Bursts {
    pub rng: Rng,
    /// Per id: frames left to live and velocity.
    life: Vec<(u32, i32, i32)>,
}

impl Bursts {
    /// A world of `entities` ids, empty at first.
    pub fn new(seed: u64, entities: usize) -> Self {
        Bursts { rng: Rng(seed), life: vec![(0, 0, 0); entities] }
    }
}

impl Step for Bursts {
    /// Starts the next frame: sparks and puffs move and expire, and a burst or two spawns.
    fn step(&mut self, world: &mut World<'_>) {
        let frame = world.begin_frame();
        for id in 0..self.life.len() {
            let Some((class, row)) = world.get(frame, id) else { continue };
            let (left, vx, vy) = &mut self.life[id];
            if *left == 0 {
                world.remove(id);
                continue;
            }
            *left -= 1;
            let mut row = row.to_vec();
            row[0] = (row[0] + *vx).clamp(0, 65_535);
            row[1] = (row[1] + *vy).clamp(0, 65_535);
            if class == 0 {
                row[2] = (row[2] + 3).rem_euclid(1024);
                row[3] = (row[3] - 40).max(0);
            }
            world.set(id, class, &row).unwrap();
        }
        for _ in 0..1 + self.rng.below(2) {
            let r = &mut self.rng;
            let (x, y) = (r.below(60_000) as i32 + 2000, r.below(60_000) as i32 + 2000);
            let (heading, kind) = (r.below(1024) as i32, r.below(3) as i32);
            for _ in 0..3 + self.rng.below(6) {
                let Some(id) = (0..self.life.len()).find(|&id| world.get(frame, id).is_none())
                else {
                    return;
                };
                let r = &mut self.rng;
                let near = |r: &mut Rng, v: i32| v + r.below(65) as i32 - 32;
                let (px, py) = (near(r, x), near(r, y));
                self.life[id] = (18 + r.below(5) as u32, near(r, 0), near(r, 0));
                if r.chance(0.3) {
                    world.set(id, 1, &[px, py]).unwrap();
                } else {
                    let h = near(r, heading).rem_euclid(1024);
                    world.set(id, 0, &[px, py, h, 4000 - r.below(50) as i32, kind]).unwrap();
                }
            }
        }
    }
}
