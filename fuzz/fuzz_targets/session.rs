//! A real server session whose packets and acks the input drops, duplicates, delays, truncates
//! and damages, under a byte budget and model policy the input picks: the client never panics,
//! every packet it accepts decodes to exactly what the server records that client holds, and a
//! refused packet changes nothing. Reaches warm packets, held entities and restarts that `client_decode`'s
//! random bytes do not. The input also queues records: the client applies them in order, each
//! once, with the bytes queued.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use netschema_runtime::Ack;
use netschema_runtime::model::ModelPolicy;
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::owned::{ClientBuffers, PeerBuffers, WorldBuffers};
use netschema_runtime::schema::{Class, Field, Group, Link, Schema};

const MOVING: &[Predictor] = &[Predictor::Hold, Predictor::Linear, Predictor::Quadratic];
static UNIT: [Field; 4] = [
    Field::numeric("x", 0, 4095, false, MOVING).with_tolerance(2),
    Field::numeric("y", 0, 4095, false, MOVING),
    Field::numeric("hp", 0, 100, false, &[Predictor::Hold]).in_group(1),
    Field::categorical("state", 3),
];
static SLOW: [Group; 2] = [Group::DEFAULT, Group { name: "slow", interval: 3, priority: 1 }];
static MARK: [Field; 1] = [Field::categorical("on", 2)];
static MARK_LINKS: [Link; 1] = [Link::new("of", None)];
static CLASSES: [Class; 2] = [
    Class::new("unit", &UNIT).with_groups(&SLOW),
    Class::new("mark", &MARK).with_links(&MARK_LINKS),
];
static SCHEMA: Schema = Schema::new("session", &CLASSES);
/// The same under the batched model policy, in small batches so that models change often.
static BATCHED: Schema =
    Schema::new("session", &CLASSES).with_policy(ModelPolicy::Batched { batch: 2, kept: 2 });

const ENTITIES: usize = 24;
const HANDLES: usize = 16;

/// The bytes of record `n`: 0 to 39 of them, following from its number.
fn record_bytes(n: u32) -> Vec<u8> {
    (0..n % 40).map(|k| (n.wrapping_mul(31) + k) as u8).collect()
}

/// Reads the input a byte at a time, zeros once it runs out.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let (&b, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        b
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let first = input.byte();
    // The first byte's top bit picks the model policy, the rest the byte budget.
    let schema = if first & 0x80 == 0 { &SCHEMA } else { &BATCHED };
    let mut wb = WorldBuffers::new(schema, ENTITIES);
    let mut world = wb.world(schema, ENTITIES).unwrap();
    let mut pb = PeerBuffers::new(schema, HANDLES, ENTITIES);
    let mut peer = pb.peer(schema, HANDLES, ENTITIES).unwrap();
    let mut cb = ClientBuffers::new(schema, HANDLES);
    let mut client = cb.client(schema, HANDLES).unwrap();
    let mut buf = vec![0u8; 16 + usize::from(first & 0x7f) * 16];
    let mut sent: BTreeMap<u32, BTreeMap<u32, (usize, Vec<i32>)>> = BTreeMap::new();
    // Per frame sent, its young entities and their entries' frames; the frames decoded since
    // the client last restarted: a young entity whose entry it did not decode is not shown.
    let mut young: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
    let mut decoded = std::collections::BTreeSet::new();
    let mut down: Vec<Vec<u8>> = Vec::new();
    let mut up: Vec<Ack> = Vec::new();
    let mut row = [0i32; 4];
    // Set once a damaged packet is accepted (a collision of the 16-bit check): the client may
    // then differ from the record, so the comparisons stop.
    let mut poisoned = false;
    // The next record the client should apply; `None` once a damaged packet was accepted,
    // whose records the check may have let through altered.
    let mut next_record = Some(0u32);
    for step in 0..64u32 {
        if input.0.is_empty() {
            break;
        }
        let frame = world.begin_frame();
        for id in 0..ENTITIES {
            let op = input.byte();
            match op % 8 {
                0 => world.remove(id),
                1 => {
                    world.set(id, 1, &[i32::from(op >> 3) & 1]).unwrap();
                    // A mark names some entity, or none: absent targets are refused.
                    let target = usize::from(op >> 3) % (ENTITIES + 1);
                    let _ = world.set_link(id, 0, (target < ENTITIES).then_some(target));
                }
                _ => {
                    let t = step as i32;
                    let (x, y) = (id as i32 * 150 + t * i32::from(op % 5), 2000 + t * 3);
                    world.set(id, 0, &[x, y, i32::from(op >> 4) * 6, i32::from(op) % 3]).unwrap();
                }
            }
            peer.set_visible(id, op & 0x40 == 0).unwrap();
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        let record = (0..ENTITIES)
            .filter_map(|id| {
                let h = peer.handle_of(id)?;
                let class = peer.client_view(&world, frame, id, &mut row)?;
                Some((h, (class, row[..schema.classes[class].fields.len()].to_vec())))
            })
            .collect();
        sent.insert(frame, record);
        young.insert(frame, peer.young_entities(frame).collect());
        down.push(buf[..len].to_vec());

        // The link: deliver, drop, duplicate, damage or cut what is in flight; bits 2 and 3
        // queue up to three records for the next packet (refused while the queue is full).
        let action = input.byte();
        for _ in 0..(action >> 2) & 3 {
            let number = peer.record_stats().queued as u32;
            let _ = peer.queue_record(&record_bytes(number));
        }
        let mut deliver = Vec::new();
        if action & 1 == 0 && !down.is_empty() {
            let i = usize::from(input.byte()) % down.len();
            let mut packet = if action & 2 == 0 { down.remove(i) } else { down[i].clone() };
            match action >> 4 {
                1 if !packet.is_empty() => {
                    let at = usize::from(input.byte()) % packet.len();
                    packet[at] ^= input.byte() | 1;
                }
                2 => packet.truncate(usize::from(input.byte()) % (packet.len() + 1)),
                3 => packet.push(input.byte()),
                _ => {}
            }
            deliver.push(packet);
        }
        if down.len() > 8 {
            down.remove(0);
        }
        for packet in deliver {
            let before: Vec<_> = client.frame_view().map(|(h, c, r)| (h, c, r.to_vec())).collect();
            let was = client.frame();
            match client.decode(&packet) {
                Ok(f) => {
                    let view: BTreeMap<u32, (usize, Vec<i32>)> =
                        client.frame_view().map(|(h, c, r)| (h, (c, r.to_vec()))).collect();
                    // An honest packet must decode to the record exactly (but for the young
                    // entities whose entries it lost); a damaged one accepted is a collision
                    // of the check.
                    let lost = |h: &u32| {
                        young.get(&f).is_some_and(|y| {
                            y.iter().any(|(yh, e)| yh == h && !decoded.contains(e))
                        })
                    };
                    let want: Option<BTreeMap<_, _>> = sent.get(&f).map(|s| {
                        s.iter().filter(|(h, _)| !lost(h)).map(|(&h, v)| (h, v.clone())).collect()
                    });
                    decoded.insert(f);
                    poisoned |= action >> 4 != 0 && want.as_ref() != Some(&view);
                    if let Some(want) = want.filter(|_| !poisoned) {
                        assert_eq!(view, want, "frame {f}");
                    }
                    let _ = client.view().count() + client.events().count();
                    next_record = next_record.filter(|_| action >> 4 == 0);
                    for r in client.records() {
                        let Some(n) = next_record.as_mut() else { break };
                        assert_eq!((r.number, r.bytes), (*n, &record_bytes(r.number)[..]));
                        *n += 1;
                    }
                    up.extend(client.ack());
                }
                Err(e) => {
                    // A damaged packet refused as stale whose check matched by chance leaves
                    // its records, perhaps altered, waiting to be applied.
                    if e == netschema_runtime::Error::StalePacket && action >> 4 != 0 {
                        next_record = None;
                    }
                    let after: Vec<_> =
                        client.frame_view().map(|(h, c, r)| (h, c, r.to_vec())).collect();
                    // A refusal changes nothing, unless it was the one that made the client
                    // give up and restart.
                    if client.frame().is_some() {
                        assert_eq!(before, after);
                        assert_eq!(was, client.frame());
                    } else {
                        decoded.clear();
                    }
                }
            }
        }
        if input.byte() & 1 == 0 && !up.is_empty() {
            let ack = up.remove(usize::from(input.byte()) % up.len());
            let _ = peer.receive_ack(&ack);
        }
        sent.retain(|&f, _| frame.wrapping_sub(f) < 64);
        young.retain(|&f, _| frame.wrapping_sub(f) < 64);
        decoded.retain(|&f| frame.wrapping_sub(f) < 64);
    }
});
