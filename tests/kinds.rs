//! Structs and optionals (`tests/schemas/kinds.netidl`, generated into
//! `tests/generated/kinds.rs`): their flattened paths, lossless replication over a lossy link,
//! and what an optional that stays absent costs.
//!
//! `NETSCHEMA_BLESS=1 cargo test --test kinds` regenerates the checked-in file.

mod golden;

use std::collections::{HashMap, VecDeque};

use netschema::owned::{Client, Server, ServerConfig};
use netschema::{Error, Protocol, Snapshot, SnapshotEnum};

/// The code generated from `tests/schemas/kinds.netidl`.
#[allow(clippy::all, dead_code, unreachable_pub)]
mod idl {
    include!("generated/kinds.rs");
}

use idl::{Buff, Effect, Hero, Kinds, PlainHero, Stats};

const CONFIG: ServerConfig = ServerConfig::new(64, 64);

#[test]
fn checked_in_code_is_up_to_date() {
    golden::assert_generated_is_current("kinds");
}

#[test]
fn paths_and_clauses() {
    let fields = <Hero as Snapshot>::CLASS.fields;
    let names: Vec<&str> = fields.iter().map(|f| f.name).collect();
    assert_eq!(
        names[..12],
        [
            "pos.x",
            "pos.y",
            "stats.health",
            "stats.armour",
            "buffs[0].time",
            "buffs[0].effect",
            "buffs[0].bonus.present",
            "buffs[0].bonus.value.health",
            "buffs[0].bonus.value.armour",
            "buffs[1].time",
            "buffs[1].effect",
            "buffs[1].bonus.present",
        ]
    );
    assert_eq!(
        names[names.len() - 3..],
        ["shield.present", "shield.value.health", "shield.value.armour"]
    );
    let coding = |name: &str| fields.iter().find(|f| f.name == name).unwrap().coding;
    use netschema::model::predict::Predictor::{Hold, Linear, Quadratic};
    use netschema::schema::Coding::{Categorical, Numeric};
    // The struct's own clause wins over the holding field's; others inherit it.
    assert_eq!(coding("buffs[2].bonus.value.health"), Numeric(&[Hold]));
    assert_eq!(coding("buffs[2].bonus.value.armour"), Numeric(&[Hold, Linear]));
    assert_eq!(coding("buffs[2].time"), Numeric(&[Hold, Linear]));
    assert_eq!(coding("stats.armour"), Numeric(&[Hold, Linear, Quadratic]));
    assert_eq!(coding("target.present"), Categorical);
    // Struct and optional layouts hash apart from the inline layout of the same scalars.
    assert_ne!(<Hero as Snapshot>::CLASS, <PlainHero as Snapshot>::CLASS);
    let presence = fields.iter().find(|f| f.name == "shield.present").unwrap();
    let flag = netschema::quant::BoolQuant::new().unwrap().fingerprint();
    assert_ne!(presence.meaning, flag, "a presence flag is not a plain bool");
}

#[test]
fn absent_values_round_trip_as_none() {
    let hero = Hero { target: None, shield: None, ..Hero::default() };
    let mut raw = vec![0; <Hero as Snapshot>::CLASS.fields.len()];
    hero.quantise(&mut raw);
    assert_eq!(Hero::dequantise(&raw), hero);
    let present =
        Hero { target: Some([1.5, -2.0]), shield: Some(Stats { health: 7, armour: 200 }), ..hero };
    present.quantise(&mut raw);
    assert_eq!(Hero::dequantise(&raw), present);
    assert_eq!(raw[raw.len() - 3..], [1, 7, 200]);
}

/// A deterministic pseudo-random sequence.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 =
            self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() % 1_000_000) as f64 / 1e6 < p
    }
    fn below(&mut self, n: u64) -> i32 {
        (self.next() % n) as i32
    }
}

/// The state of hero `i` at `frame`: moving, buffs coming and going, a target some of the time.
fn hero(rng: &mut Rng, i: u64, frame: u32) -> Hero {
    let t = frame as f32 * 0.02 + i as f32;
    let buff = |k: u32, rng: &mut Rng| Buff {
        time: ((frame + k * 37) % 160) as f32 / 16.0,
        effect: Effect::from_index((frame / 90 + k) % 3),
        bonus: (frame / 40 + k)
            .is_multiple_of(3)
            .then(|| Stats { health: rng.below(201), armour: (frame % 201) as i32 }),
    };
    Hero {
        pos: [t.sin() * 200.0, t.cos() * 200.0],
        stats: Stats { health: 200 - (frame % 200) as i32, armour: 50 },
        buffs: [buff(0, rng), buff(1, rng), buff(2, rng)],
        target: (frame % 120 < 70).then_some([t.cos() * 100.0, 12.5]),
        shield: (i.is_multiple_of(2) && frame % 200 < 100)
            .then_some(Stats { health: 30, armour: 40 }),
    }
}

/// The value a client should decode for `value`: quantised and back.
fn quantised(value: &Kinds) -> String {
    let class = value.class();
    let mut raw = vec![0; Kinds::SCHEMA.classes[class].fields.len()];
    value.quantise_with(&mut raw, &mut |_, _| panic!("in range"));
    format!("{:?}", Kinds::dequantise(class, &raw).unwrap())
}

/// Datagrams in flight one way: each arrives after `latency` frames, or is lost.
struct Link {
    queue: VecDeque<(u32, Vec<u8>)>,
    latency: u32,
    loss: f64,
}

impl Link {
    fn send(&mut self, rng: &mut Rng, now: u32, bytes: Vec<u8>) {
        if !rng.chance(self.loss) {
            self.queue.push_back((now + self.latency, bytes));
        }
    }
    fn receive(&mut self, now: u32) -> Vec<Vec<u8>> {
        let (due, later): (Vec<_>, Vec<_>) = self.queue.drain(..).partition(|(at, _)| *at <= now);
        self.queue = later.into();
        due.into_iter().map(|(_, b)| b).collect()
    }
}

/// Runs `frames` frames of `entities` (its values at a frame) to one client over links losing
/// `loss` of the datagrams each way; checks every accepted packet's view and returns the
/// bytes sent after the first `warmup` frames.
fn replicate(
    frames: u32,
    warmup: u32,
    loss: f64,
    entities: &mut dyn FnMut(u32) -> Vec<(u64, Kinds)>,
) -> usize {
    let mut server = Server::<Kinds>::new(CONFIG).unwrap();
    let mut hello = [0; 64];
    let n = Client::<Kinds>::hello(&mut hello).unwrap();
    let id = server.connect(&hello[..n]).unwrap();
    let mut welcome = [0; 64];
    let n = server.welcome(&mut welcome).unwrap();
    let mut client = Client::<Kinds>::connect(&welcome[..n], 1024).unwrap();
    let mut rng = Rng(7);
    let (mut down, mut up) = (
        Link { queue: VecDeque::new(), latency: 3, loss },
        Link { queue: VecDeque::new(), latency: 2, loss },
    );
    let mut sent: HashMap<u32, Vec<String>> = HashMap::new();
    let (mut bytes, mut accepted) = (0, 0);
    let mut buf = [0u8; 8192];
    for frame in 0..frames {
        server.begin_frame();
        let now = entities(frame);
        for (id, e) in &now {
            server.set_entity(*id, e).unwrap();
        }
        for (e, _) in &now {
            server.set_visible(id, *e, true).unwrap();
        }
        let mut held: Vec<String> = now.iter().map(|(_, e)| quantised(e)).collect();
        held.sort();
        let n = server.encode(id, &mut buf).unwrap();
        if frame >= warmup {
            bytes += n;
        }
        sent.insert(server.frame().unwrap(), held);
        down.send(&mut rng, frame, buf[..n].to_vec());
        for packet in down.receive(frame) {
            match client.decode(&packet) {
                Ok(decoded) => {
                    accepted += 1;
                    let mut view: Vec<String> =
                        client.entities().map(|(_, e)| format!("{e:?}")).collect();
                    view.sort();
                    assert_eq!(&view, &sent[&decoded], "frame {decoded}");
                }
                Err(Error::StalePacket | Error::UnknownBaseline) => {}
                Err(e) => panic!("decode failed: {e}"),
            }
            if let Some(ack) = client.ack() {
                let mut bytes = [0; netschema::Ack::MAX_LEN];
                let n = ack.write(&mut bytes).unwrap();
                up.send(&mut rng, frame, bytes[..n].to_vec());
            }
        }
        for ack in up.receive(frame) {
            server.receive_ack(id, &netschema::Ack::read(&ack).unwrap()).unwrap();
        }
    }
    assert!(accepted > frames / 2, "accepted only {accepted} packets of {frames}");
    bytes
}

#[test]
fn structs_and_optionals_replicate_losslessly_under_loss() {
    let mut rng = Rng(1);
    replicate(600, 0, 0.1, &mut |frame| {
        (0..8).map(|i| (i, Kinds::Hero(hero(&mut rng, i, frame)))).collect()
    });
}

/// An optional that stays absent costs at most 0.1 bits per entity and frame: the same world
/// with and without the field, over a lossless link, after a warm-up.
#[test]
fn an_absent_optional_costs_almost_nothing() {
    const ENTITIES: u64 = 16;
    const FRAMES: u32 = 2000;
    const WARMUP: u32 = 200;
    let plain =
        |h: Hero| PlainHero { pos: h.pos, stats: h.stats, buffs: h.buffs, target: h.target };
    let mut rng = Rng(3);
    let with = replicate(FRAMES, WARMUP, 0.0, &mut |frame| {
        (0..ENTITIES)
            .map(|i| (i, Kinds::Hero(Hero { shield: None, ..hero(&mut rng, i, frame) })))
            .collect()
    });
    let mut rng = Rng(3);
    let without = replicate(FRAMES, WARMUP, 0.0, &mut |frame| {
        (0..ENTITIES).map(|i| (i, Kinds::PlainHero(plain(hero(&mut rng, i, frame))))).collect()
    });
    let extra = (with as f64 - without as f64) * 8.0 / f64::from(FRAMES - WARMUP) / ENTITIES as f64;
    let cost = format!("an absent optional costs {extra:.4} bits per entity and frame");
    println!("{cost}");
    assert!(extra <= 0.1, "{cost}, more than 0.1");
}
