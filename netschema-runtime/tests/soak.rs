//! The soak: sessions over lossy links with damaged copies of packets mixed in, each accepted
//! packet checked against what the server records that its client holds. Damaged packets are
//! counted by kind; none may be accepted as what was sent (a packet is only its encoder's
//! bytes), and one the client accepts with values the server never sent is a false
//! acceptance, the event the 16-bit check value makes rare. The stream must go on after one.
//! One session in four has a round trip longer than the frame slots, so packets stretch them.
//! Hostile traffic rides along: junk datagrams to the client, forged and replayed acks and
//! forged restart requests to the server, and now and then an honest restart. The peer must
//! never fail to encode, and restart only when asked honestly or when a false acceptance
//! broke the stream.
//!
//! By default it runs a fixed number of sessions (a few seconds). To soak for as long as you
//! like: `NETSCHEMA_SOAK_SECONDS=3600 cargo test --release -p netschema-runtime --test soak --
//! --nocapture` (see also `.ci/soak`).

mod support;

use netschema_runtime::{Ack, AckOutcome};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use support::*;

const ENTITIES: usize = 120;
const HANDLES: usize = 96;
const FRAMES: u32 = 400;
/// Damaged copies of each datagram decoded before it.
const DAMAGED_COPIES: usize = 4;

/// Ways a datagram gets damaged.
#[derive(Clone, Copy, Debug)]
enum Damage {
    /// One to three bits flipped anywhere.
    Flip,
    /// The first bytes (the header) rewritten at random.
    Header,
    /// Cut short.
    Truncate,
    /// Random bytes appended.
    Append,
    /// Every byte random, the length kept.
    Garbage,
    /// The start of this packet and the end of an older one.
    Splice,
}

const DAMAGES: [Damage; 6] = [
    Damage::Flip,
    Damage::Header,
    Damage::Truncate,
    Damage::Append,
    Damage::Garbage,
    Damage::Splice,
];

fn damage(kind: Damage, packet: &[u8], older: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = packet.to_vec();
    let len = out.len() as u64;
    match kind {
        Damage::Flip => {
            for _ in 0..=rng.below(3) {
                let i = rng.below(len) as usize;
                out[i] ^= 1 << rng.below(8);
            }
        }
        Damage::Header => {
            for b in out.iter_mut().take(1 + rng.below(4) as usize) {
                *b = rng.next() as u8;
            }
        }
        Damage::Truncate => out.truncate(rng.below(len) as usize),
        Damage::Append => out.extend((0..=rng.below(8)).map(|_| rng.next() as u8)),
        Damage::Garbage => out.iter_mut().for_each(|b| *b = rng.next() as u8),
        Damage::Splice => {
            let cut = rng.below(len) as usize;
            out.truncate(cut);
            out.extend(older.iter().skip(cut));
        }
    }
    out
}

#[derive(Default)]
struct Tally {
    sessions: u64,
    frames: u64,
    accepted: u64,
    /// Damaged packets decoded, per kind.
    tried: [u64; DAMAGES.len()],
    /// Damaged packets accepted as what was sent (the damage changed nothing decoded): none
    /// may be, as only the encoder's own bytes end where a stream ends.
    harmless: [u64; DAMAGES.len()],
    /// Damaged packets accepted with values or a frame the server never sent.
    false_accepts: [u64; DAMAGES.len()],
    refused_acks: u64,
    /// Junk datagrams, forged acks, replayed acks and forged restart requests sent.
    junk: u64,
    forged: u64,
    replayed: u64,
    forged_restarts: u64,
    /// Restarts the clients asked for honestly, and restarts the peers made.
    asked: u64,
    restarts: u64,
    view_mismatches: u64,
}

/// One session: `FRAMES` frames over links with the session's loss and delay, damaged copies
/// of each datagram delivered just before the real one.
fn soak_session(seed: u64, tally: &mut Tally) {
    let schema = &SCHEMA;
    let mut rng = Rng(seed);
    let budget = [200, 600, 1200, 4000][rng.below(4) as usize];
    // One session in four has more frames in flight than the 32 frame slots (see "Reach").
    let latency = match rng.below(4) {
        0 => (28 + rng.below(3) as u32, 31 + rng.below(6) as u32),
        _ => (rng.below(3) as u32, 3 + rng.below(6) as u32),
    };
    let loss = [0.0, 0.05, 0.2][rng.below(3) as usize];
    // Freed at the end of the session: a soak runs many thousands.
    let mut buffers = SessionBuffers::new(schema, ENTITIES, HANDLES);
    let (mut world, mut peer, mut client) = buffers.session(schema, ENTITIES, HANDLES);
    let mut sim = Sim::new(seed, ENTITIES);
    let (mut down, mut up) = (Link::new(latency, loss), Link::new(latency, loss));
    down.duplicate = 0.05;
    let mut sent: BTreeMap<u32, (View, Option<u64>)> = BTreeMap::new();
    let mut young = YoungLog::default();
    let mut older = Vec::new();
    let mut buf = vec![0u8; budget];
    let mut accepted_after_false = None;
    let (mut history, mut asked, mut false_accepts) = (Vec::new(), 0, 0);
    for now in 0..FRAMES {
        sim.step(&mut world);
        for id in 0..ENTITIES {
            if now == 0 || rng.chance(0.01) {
                peer.set_visible(id, rng.chance(0.8)).unwrap();
            }
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        let frame = world.frame().unwrap();
        sent.insert(frame, (record(schema, &world, &peer), peer.model_digest(frame)));
        sent.retain(|&f, _| frame.wrapping_sub(f) < 64);
        young.sent(&peer, frame);
        down.send(&mut rng, now, &buf[..len]);

        for packet in down.receive(now) {
            for _ in 0..DAMAGED_COPIES {
                let k = rng.below(DAMAGES.len() as u64) as usize;
                let damaged = damage(DAMAGES[k], &packet, &older, &mut rng);
                // A splice can give back a whole genuine datagram (the older one): a replay, not
                // an alteration.
                if damaged == packet || damaged == older {
                    continue;
                }
                tally.tried[k] += 1;
                if let Ok(f) = client.decode(&damaged) {
                    let held = sent.get(&f).map(|(view, _)| young.decoded(f, view));
                    if held.is_some_and(|view| view == frame_view(&client)) {
                        tally.harmless[k] += 1;
                    } else {
                        tally.false_accepts[k] += 1;
                        false_accepts += 1;
                        accepted_after_false = Some(0);
                    }
                }
            }
            for _ in 0..rng.below(3) {
                let junk: Vec<u8> = (0..1 + rng.below(12)).map(|_| rng.next() as u8).collect();
                tally.junk += 1;
                let _ = client.decode(&junk);
            }
            if client.frame().is_none() {
                young.restarted();
            }
            if let Ok(f) = client.decode(&packet) {
                tally.accepted += 1;
                accepted_after_false = accepted_after_false.map(|n| n + 1);
                // The peer's models as it sent the frame: a later frame of a longer reach may
                // have taken its slot since.
                let (view, models) = &sent[&f];
                let view = young.decoded(f, view);
                assert_eq!(view, frame_view(&client), "seed {seed}, frame {f}");
                // Unless no pooled set was free for them, the client keeps the same models.
                if let Some(digest) = client.model_digest(f) {
                    assert_eq!(&Some(digest), models, "seed {seed}, frame {f}");
                }
                if let Some(ack) = client.ack() {
                    up.send(&mut rng, now, &ack_bytes(ack));
                    history.push(ack);
                }
            }
            older = packet;
        }
        if rng.chance(0.005) {
            client.restart();
            asked += 1;
            up.send(&mut rng, now, &ack_bytes(client.ack().unwrap()));
        }
        for ack in up.receive(now) {
            if peer.receive_ack(&Ack::read(&ack).unwrap()) == AckOutcome::Refused {
                tally.refused_acks += 1;
            }
        }
        // Hostile acks: forged, replayed from earlier in the session, and forged restarts.
        for _ in 0..rng.below(4) {
            let ack = match rng.below(3) {
                0 => {
                    tally.forged += 1;
                    let r = rng.next();
                    let latest = frame.wrapping_sub(r as u32 % 40) as u16;
                    Ack {
                        latest,
                        bits: (r >> 16) as u32,
                        proof: rng.next() as u32,
                        ..Ack::default()
                    }
                }
                1 if !history.is_empty() => {
                    tally.replayed += 1;
                    history[rng.below(history.len() as u64) as usize]
                }
                _ => {
                    tally.forged_restarts += 1;
                    Ack::restart([rng.next() as u32, rng.next() as u32])
                }
            };
            peer.receive_ack(&ack);
        }
        if history.len() > 256 {
            history.drain(..128);
        }
        tally.frames += 1;
    }
    if let Some(n) = accepted_after_false {
        assert!(n > 0 || loss > 0.0, "seed {seed}: no packet accepted after a false acceptance");
    }
    let stats = peer.stats();
    // A restart asked for may be proven twice (a late request after the first); a false
    // acceptance may cost one restart by its view digest and one by a wedged client.
    assert!(
        stats.restarts <= 2 * (asked + false_accepts),
        "seed {seed}: {} restarts, {asked} asked, {false_accepts} false acceptances",
        stats.restarts
    );
    tally.asked += asked;
    tally.restarts += stats.restarts;
    tally.view_mismatches += stats.view_mismatches;
    tally.sessions += 1;
}

#[test]
fn damaged_packets_are_refused_and_the_stream_goes_on() {
    let seconds = std::env::var("NETSCHEMA_SOAK_SECONDS").ok().and_then(|s| s.parse().ok());
    let deadline = seconds.map(|s| Instant::now() + Duration::from_secs(s));
    let started = Instant::now();
    let mut tally = Tally::default();
    let mut seed = 0x50a4;
    while match deadline {
        Some(d) => Instant::now() < d,
        None => tally.sessions < 40,
    } {
        soak_session(seed, &mut tally);
        seed += 1;
    }
    let tried: u64 = tally.tried.iter().sum();
    let false_accepts: u64 = tally.false_accepts.iter().sum();
    println!(
        "{} sessions, {} frames, {} packets accepted, {} acks refused in {:.1} s",
        tally.sessions,
        tally.frames,
        tally.accepted,
        tally.refused_acks,
        started.elapsed().as_secs_f64()
    );
    println!(
        "hostile traffic: {} junk datagrams, {} forged acks, {} replayed acks, {} forged \
         restarts; {} restarts asked, {} made, {} after a view mismatch",
        tally.junk,
        tally.forged,
        tally.replayed,
        tally.forged_restarts,
        tally.asked,
        tally.restarts,
        tally.view_mismatches
    );
    println!("{:<9} {:>10} {:>9} {:>6}", "damage", "decoded", "harmless", "false");
    for (k, kind) in DAMAGES.iter().enumerate() {
        println!(
            "{:<9} {:>10} {:>9} {:>6}",
            format!("{kind:?}"),
            tally.tried[k],
            tally.harmless[k],
            tally.false_accepts[k]
        );
    }
    println!(
        "false acceptances: {false_accepts} of {tried} ({:.2e}; 2^-16 = {:.2e})",
        false_accepts as f64 / tried.max(1) as f64,
        1.0 / 65536.0
    );
    assert_eq!(tally.harmless, [0; DAMAGES.len()], "altered packets accepted as sent");
    // Far above what a 16-bit check lets through, far below a broken one.
    assert!(false_accepts <= 3 + tried / 8192, "{false_accepts} of {tried} accepted falsely");
    assert!(tally.accepted > tally.frames / 2, "{} of {} frames", tally.accepted, tally.frames);
}
