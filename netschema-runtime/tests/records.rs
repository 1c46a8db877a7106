//! The record stream inside the state packets: every record queued is applied once, in order,
//! with the frame it belongs to, over links that lose, duplicate and reorder packets and acks,
//! under a byte budget or not; a record is sent again only once its packet is known lost; the
//! state stream stays what the server records; a full queue is a typed error; hostile record
//! sections never panic.

mod support;

use netschema_runtime::codec::prob::COST_ONE_BIT;
use netschema_runtime::engine::probe::{Part, Probe};
use netschema_runtime::engine::records::{RECORD_BYTES, RECORD_LIMIT};
use netschema_runtime::{Ack, Error};
use std::collections::BTreeMap;
use support::*;

const ENTITIES: usize = 120;
const HANDLES: usize = 100;

/// The bytes of record `number`: its length and contents follow from its number.
fn record_bytes(number: u32) -> Vec<u8> {
    let len = (number.wrapping_mul(2_654_435_761) >> 27) as usize;
    (0..len).map(|k| (number as usize * 31 + k * 7) as u8).collect()
}

/// A link and what to queue on it.
#[derive(Clone, Copy)]
struct Setup {
    seed: u64,
    budget: usize,
    loss: f64,
    duplicate: f64,
    /// One-way latency range in frames: a range reorders.
    latency: (u32, u32),
    /// Frames during which records are queued, up to two a frame.
    frames: u32,
    /// Whether the client acknowledges.
    acks: bool,
}

/// What a session showed.
#[derive(Default)]
struct Outcome {
    /// Records queued (the peer numbers them 0, 1, …).
    queued: u32,
    /// Records applied.
    applied: u32,
    /// Per record applied, frames from the one it was queued at to the one whose packet
    /// applied it.
    delays: Vec<u32>,
    /// Per record, frames from the one it was queued at to the first accepted packet that
    /// brought it (applied, or waiting for an earlier record).
    arrivals: BTreeMap<u32, u32>,
    /// Times the peer put a record in a packet.
    sends: u64,
    /// Refusals of a full queue.
    full: u32,
}

/// Runs the moving test world with records queued for `setup.frames` frames, then until every
/// record is acknowledged (at most 400 frames more), checking at every accepted packet that
/// the frame is what the server records and that its records follow the last one applied.
fn stream(setup: Setup) -> Outcome {
    let (mut world, mut peer, mut client) = session(&SCHEMA, ENTITIES, HANDLES);
    let mut sim = Sim::new(setup.seed, ENTITIES);
    let mut rng = Rng(setup.seed ^ 0x7ec0);
    let (mut down, mut up) =
        (Link::new(setup.latency, setup.loss), Link::new(setup.latency, setup.loss));
    down.duplicate = setup.duplicate;
    up.duplicate = setup.duplicate;
    let mut sent: BTreeMap<u32, View> = BTreeMap::new();
    let mut young = YoungLog::default();
    let mut queued_at: Vec<u32> = Vec::new();
    let mut out = Outcome::default();
    let mut buf = vec![0u8; setup.budget];
    for now in 0..setup.frames + 400 {
        sim.step(&mut world);
        let frame = world.frame().unwrap();
        if now == 0 {
            (0..ENTITIES).for_each(|id| peer.set_visible(id, id % 3 != 0).unwrap());
        }
        if now < setup.frames {
            for _ in 0..rng.below(3) {
                match peer.queue_record(&record_bytes(out.queued)) {
                    Ok(n) => {
                        assert_eq!(n, out.queued);
                        out.queued += 1;
                        queued_at.push(frame);
                    }
                    Err(Error::RecordQueueFull { records, bytes }) => {
                        assert!(records <= RECORD_LIMIT && bytes <= RECORD_BYTES);
                        out.full += 1;
                    }
                    Err(e) => panic!("{e:?}"),
                }
            }
        } else if peer.unacked_records() == (0, 0) {
            break;
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        assert!(len <= setup.budget);
        sent.insert(frame, record(&SCHEMA, &world, &peer));
        young.sent(&peer, frame);
        down.send(&mut rng, now, &buf[..len]);
        for packet in down.receive(now) {
            let Ok(f) = client.decode(&packet) else { continue };
            let want = young.decoded(f, &sent[&f]);
            assert_eq!(frame_view(&client), want, "frame {f}: state differs from record");
            for r in client.records().chain(client.waiting_records()) {
                out.arrivals.entry(r.number).or_insert(f - queued_at[r.number as usize]);
            }
            for r in client.records() {
                let n = r.number;
                assert_eq!(n, out.applied, "frame {f}: record {n} out of order");
                assert_eq!(r.bytes, record_bytes(n), "record {n}");
                assert!(queued_at[n as usize] <= r.frame && r.frame <= f, "record {n}'s frame");
                out.delays.push(f - queued_at[n as usize]);
                out.applied += 1;
            }
            if setup.acks {
                up.send(&mut rng, now, &ack_bytes(client.ack().unwrap()));
            }
        }
        for ack in up.receive(now) {
            peer.receive_ack(&Ack::read(&ack).unwrap());
        }
    }
    out.sends = peer.record_stats().sent;
    out
}

fn percentile(delays: &[u32], p: f64) -> u32 {
    let mut d = delays.to_vec();
    d.sort_unstable();
    d[((d.len() - 1) as f64 * p).round() as usize]
}

#[test]
fn records_are_applied_once_in_order_under_loss_duplication_and_reordering() {
    for seed in 1..=4 {
        for budget in [4096, 96] {
            let setup = Setup {
                seed,
                budget,
                loss: 0.2,
                duplicate: 0.1,
                latency: (2, 7),
                frames: 300,
                acks: true,
            };
            let out = stream(setup);
            assert!(out.queued > 200, "seed {seed}, budget {budget}: {} queued", out.queued);
            assert_eq!(out.applied, out.queued, "seed {seed}, budget {budget}: records lost");
            let mean = out.sends as f64 / f64::from(out.queued);
            println!(
                "seed {seed}, budget {budget}: {} records, {mean:.2} sends each, {} refused as \
                 full, delay p50 {} p99 {} frames",
                out.queued,
                out.full,
                percentile(&out.delays, 0.5),
                percentile(&out.delays, 0.99)
            );
        }
    }
}

/// At 20 % loss each way and a latency of 6 frames, a record is sent about 1/(1 − 0.2) =
/// 1.25 times, not once per frame of a round trip (13).
#[test]
fn a_record_is_sent_again_only_when_its_packet_is_lost() {
    for seed in 1..=3 {
        let setup = Setup {
            seed,
            budget: 4096,
            loss: 0.2,
            duplicate: 0.0,
            latency: (6, 6),
            frames: 600,
            acks: true,
        };
        let out = stream(setup);
        assert_eq!(out.applied, out.queued);
        let mean = out.sends as f64 / f64::from(out.queued);
        println!("seed {seed}: {mean:.3} sends per record over {} records", out.queued);
        assert!(mean <= 1.6, "seed {seed}: {mean:.3} sends per record");
    }
}

/// At 5 % loss and a latency of 6 frames each way (a round trip of 12), 99 % of records reach
/// the client within a round trip and two frames of the frame they were queued at: a lost
/// record is repaired by the first ack that shows a later packet. Applied in order, a record
/// also waits for those before it: a record lost twice (one in 400) holds back those queued
/// in the two round trips after it, so the delay until records are applied has a longer tail
/// (p95 within a round trip and two frames; here p99 is 37 frames, after one record of seed 2
/// was lost four times in a row, so the bound asserted is four round trips).
#[test]
fn delivery_delay_stays_within_a_round_trip_and_two_frames() {
    let (mut arrivals, mut applied) = (Vec::new(), Vec::new());
    for seed in 1..=4 {
        let setup = Setup {
            seed,
            budget: 4096,
            loss: 0.05,
            duplicate: 0.0,
            latency: (6, 6),
            frames: 600,
            acks: true,
        };
        let out = stream(setup);
        assert_eq!(out.applied, out.queued);
        assert_eq!(out.arrivals.len(), out.queued as usize);
        arrivals.extend(out.arrivals.into_values());
        applied.extend(out.delays);
    }
    let (p50, p99) = (percentile(&arrivals, 0.5), percentile(&arrivals, 0.99));
    let (a50, a99) = (percentile(&applied, 0.5), percentile(&applied, 0.99));
    let a95 = percentile(&applied, 0.95);
    println!("reached the client: p50 {p50} p99 {p99}; applied: p50 {a50} p95 {a95} p99 {a99}");
    assert!(p99 <= 12 + 2, "p99 {p99} frames");
    assert!(a95 <= 12 + 2, "applied p95 {a95} frames");
    assert!(a99 <= 4 * 12, "applied p99 {a99} frames");
}

/// A client that stops acknowledging fills its queue: the peer refuses more records with
/// the typed error, and nothing queued is lost once acks come back.
#[test]
fn a_queue_fills_when_the_client_stops_acknowledging() {
    let (mut world, mut peer, mut client) = session(&SCHEMA, ENTITIES, HANDLES);
    let mut sim = Sim::new(9, ENTITIES);
    let mut buf = vec![0u8; 1200];
    let mut queued = 0u32;
    let mut full = None;
    for _ in 0..200 {
        sim.step(&mut world);
        match peer.queue_record(&record_bytes(queued)) {
            Ok(_) => queued += 1,
            Err(e) => {
                full = Some(e);
                break;
            }
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        client.decode(&buf[..len]).unwrap();
    }
    let (records, bytes) = peer.unacked_records();
    assert_eq!(full, Some(Error::RecordQueueFull { records, bytes }));
    assert!(records == RECORD_LIMIT || bytes + record_bytes(queued).len() > RECORD_BYTES);
    assert_eq!(peer.queue_record(&[0; 256]), Err(Error::RecordTooLong { len: 256, max: 255 }));
    // The client applied them all already; once it acknowledges, the queue empties.
    let mut applied = 0;
    for _ in 0..4 {
        sim.step(&mut world);
        let len = peer.encode(&world, &mut buf).unwrap();
        client.decode(&buf[..len]).unwrap();
        applied += client.records().count();
        peer.receive_ack(&client.ack().unwrap());
    }
    assert_eq!(applied, 0, "records are applied once");
    assert_eq!(peer.unacked_records(), (0, 0));
    assert_eq!(peer.queue_record(b"again"), Ok(queued));
}

/// Records survive a restart of the state stream: those in flight are sent again and
/// applied once.
#[test]
fn records_go_on_across_a_restart() {
    let (mut world, mut peer, mut client) = session(&SCHEMA, ENTITIES, HANDLES);
    let mut sim = Sim::new(5, ENTITIES);
    let mut buf = vec![0u8; 1200];
    let mut applied = Vec::new();
    for now in 0..40u32 {
        sim.step(&mut world);
        peer.queue_record(&record_bytes(now)).unwrap();
        let len = peer.encode(&world, &mut buf).unwrap();
        if now == 20 {
            client.restart();
        }
        // The packets right after the restart are lost.
        if (21..24).contains(&now) {
            continue;
        }
        if client.decode(&buf[..len]).is_ok() {
            applied.extend(client.records().map(|r| r.number));
        }
        if let Some(ack) = client.ack() {
            peer.receive_ack(&ack);
        }
    }
    assert!(peer.stats().restarts > 0);
    assert_eq!(applied, (0..40).collect::<Vec<u32>>());
}

/// Damaged copies of packets that carry records, and random bytes, given to a client in step
/// with the server (so that damaged record sections are read against baselines it holds),
/// never panic it; whatever it accepts applies records in order.
#[test]
fn hostile_record_sections_never_panic() {
    let (mut world, mut peer, mut client) = session(&SCHEMA, ENTITIES, HANDLES);
    let mut sim = Sim::new(11, ENTITIES);
    let mut rng = Rng(0xbad);
    let mut buf = vec![0u8; 1200];
    let mut next = 0;
    let mut check = |records: netschema_runtime::engine::records::Records<'_>| {
        for r in records {
            assert_eq!(r.number, next);
            next += 1;
        }
    };
    for now in 0..120u32 {
        sim.step(&mut world);
        for _ in 0..1 + now % 3 {
            peer.queue_record(&[now as u8; 40]).ok();
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        let packet = buf[..len].to_vec();
        for _ in 0..200 {
            let mut bad = packet.clone();
            match rng.below(4) {
                0 => {
                    let i = rng.below(bad.len() as u64) as usize;
                    bad[i] ^= 1 << rng.below(8);
                }
                1 => bad.truncate(rng.below(bad.len() as u64) as usize),
                2 => {
                    let from = 1 + rng.below(8) as usize;
                    bad.iter_mut().skip(from).for_each(|b| *b = rng.next() as u8);
                }
                _ => bad = (0..rng.below(64)).map(|_| rng.next() as u8).collect(),
            }
            if client.decode(&bad).is_ok() {
                check(client.records());
            }
        }
        if client.decode(&packet).is_ok() {
            check(client.records());
        }
        if let Some(ack) = client.ack() {
            peer.receive_ack(&ack);
        }
    }
    assert!(next > 100, "{next} records applied");
}

/// Adds up the ideal cost of the record section of each packet.
#[derive(Default)]
struct RecordCost(u32);

impl Probe for RecordCost {
    fn field(&mut self, _: usize, _: usize, _: u32, _: Option<u8>, _: bool) {}

    fn structure(&mut self, part: Part, cost: u32) {
        if part == Part::Records {
            self.0 += cost;
        }
    }
}

/// A packet without records pays for one adaptive flag: at most a bit, on a cold start, and a
/// small fraction of a bit once its model has learned.
#[test]
fn a_packet_without_records_costs_at_most_a_bit_more() {
    let (mut world, mut peer, mut client) = session(&SCHEMA, ENTITIES, HANDLES);
    let mut sim = Sim::new(21, ENTITIES);
    let mut buf = vec![0u8; 1200];
    (0..ENTITIES).for_each(|id| peer.set_visible(id, true).unwrap());
    let mut warm = 0;
    for now in 0..300u32 {
        sim.step(&mut world);
        let mut cost = RecordCost::default();
        let len = peer.encode_probed(&world, &mut buf, &mut cost).unwrap();
        assert!(cost.0 <= COST_ONE_BIT, "frame {now}: {} units", cost.0);
        if now >= 100 {
            warm += cost.0;
        }
        if now % 10 != 3 && client.decode(&buf[..len]).is_ok() {
            peer.receive_ack(&client.ack().unwrap());
        }
    }
    let mean = f64::from(warm) / 200.0 / f64::from(COST_ONE_BIT);
    println!("a packet without records: {mean:.4} bits for the record section once warm");
    assert!(mean < 0.01, "{mean} bits");
}
