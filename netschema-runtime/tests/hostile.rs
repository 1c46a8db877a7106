//! Hostile and unlucky peers: restarts with acks in flight, junk datagrams, forged restarts
//! and acks, floods of hellos, long silences and more frames in flight than the window.

mod support;

use netschema_runtime::engine::ack::VIEW_EVERY;
use netschema_runtime::engine::peer::PeerStats;
use netschema_runtime::schema::Schema;
use netschema_runtime::{Ack, AckOutcome, Client, Peer};
use support::*;

const ENTITIES: usize = 200;
const HANDLES: usize = 256;

/// A client that restarts every `every` frames while acks sent before the restart are still
/// in flight: the peer must never fail to encode.
fn restarts_with_acks_in_flight(
    schema: &'static Schema,
    seed: u64,
    every: u32,
    loss: f64,
    frames: u32,
) -> (u32, u64) {
    let (mut world, mut peer, mut client) = session(schema, ENTITIES, HANDLES);
    let mut sim = Sim::new(seed, ENTITIES);
    let mut rng = Rng(seed);
    let (mut down, mut up) = (Link::new((2, 4), loss), Link::new((2, 4), loss));
    for id in 0..ENTITIES {
        peer.set_visible(id, true).unwrap();
    }
    let (mut buf, mut errors) = (vec![0u8; 64 * 1024], 0);
    for now in 0..frames {
        sim.step(&mut world);
        match peer.encode(&world, &mut buf) {
            Ok(len) => down.send(&mut rng, now, &buf[..len]),
            Err(e) => {
                eprintln!("frame {now}: {e:?}");
                errors += 1;
            }
        }
        for packet in down.receive(now) {
            let _ = client.decode(&packet);
        }
        if let Some(ack) = client.ack() {
            up.send(&mut rng, now, &ack_bytes(ack));
        }
        if now % every == every - 1 {
            // The client restarts, and its request overtakes the acks in flight.
            client.restart();
            peer.receive_ack(&client.ack().unwrap());
        }
        for ack in up.receive(now) {
            peer.receive_ack(&Ack::read(&ack).unwrap());
        }
    }
    (errors, peer.stats().restarts)
}

#[test]
fn encoding_never_fails_after_a_restart_with_acks_in_flight() {
    for schema in [&SCHEMA, &BATCHED, &BATCHED_SMALL] {
        for (seed, every, loss) in [(1, 60, 0.05), (2, 7, 0.0), (3, 13, 0.05), (4, 5, 0.2)] {
            let (errors, restarts) = restarts_with_acks_in_flight(schema, seed, every, loss, 2000);
            assert!(restarts > 0);
            assert_eq!(errors, 0, "seed {seed}, a restart every {every}, loss {loss}");
        }
    }
}

/// Any sequence of acks (honest ones replayed late, out of order and mixed, restarts, and
/// forgeries) leaves the peer able to encode every frame.
#[test]
fn encoding_never_fails_on_any_sequence_of_acks() {
    for (schema, seed) in [(&SCHEMA, 5), (&BATCHED, 6), (&BATCHED_SMALL, 7), (&SCHEMA, 8)] {
        let (mut world, mut peer, mut client) = session(schema, ENTITIES, HANDLES);
        let mut sim = Sim::new(seed, ENTITIES);
        let mut rng = Rng(seed);
        let mut buf = vec![0u8; 64 * 1024];
        let mut seen: Vec<Ack> = Vec::new();
        for now in 0..1500u32 {
            sim.step(&mut world);
            for _ in 0..3 {
                let id = rng.below(ENTITIES as u64) as usize;
                peer.set_visible(id, rng.chance(0.8)).unwrap();
            }
            let len =
                peer.encode(&world, &mut buf).unwrap_or_else(|e| panic!("frame {now}: {e:?}"));
            if rng.chance(0.9) {
                let _ = client.decode(&buf[..len]);
            }
            if rng.chance(0.02) {
                client.restart();
            }
            seen.extend(client.ack());
            for _ in 0..rng.below(4) {
                let ack = match rng.below(10) {
                    0 => Ack::restart([rng.next() as u32, rng.next() as u32]),
                    1 => Ack {
                        latest: rng.next() as u16,
                        bits: rng.next() as u32,
                        proof: rng.next() as u32,
                        ..Ack::default()
                    },
                    _ if seen.is_empty() => continue,
                    _ => seen[seen.len() - 1 - rng.below(seen.len().min(80) as u64) as usize],
                };
                peer.receive_ack(&ack);
            }
        }
    }
}

/// What an honest session over a lossy link came to.
struct Honest {
    /// Packets sent, packets the client accepted, and their bytes.
    sent: usize,
    accepted: usize,
    bytes: usize,
    stats: PeerStats,
}

/// An honest session of `frames` frames of 200 visible entities over links of `latency` and
/// 5 % loss, with acks sent back every frame; `attack(frame, peer, client)` runs each frame
/// after the packet is sent and before anything is delivered.
fn honest_session(
    seed: u64,
    frames: u32,
    latency: (u32, u32),
    mut attack: impl FnMut(u32, &mut Peer<'_>, &mut Client<'_>),
) -> Honest {
    let (mut world, mut peer, mut client) = session(&SCHEMA, ENTITIES, HANDLES);
    let mut sim = Sim::new(seed, ENTITIES);
    let mut rng = Rng(seed);
    let (mut down, mut up) = (Link::new(latency, 0.05), Link::new(latency, 0.05));
    for id in 0..ENTITIES {
        peer.set_visible(id, true).unwrap();
    }
    let mut buf = vec![0u8; 64 * 1024];
    let mut out = Honest { sent: 0, accepted: 0, bytes: 0, stats: PeerStats::default() };
    for now in 0..frames {
        sim.step(&mut world);
        let len = peer.encode(&world, &mut buf).unwrap();
        down.send(&mut rng, now, &buf[..len]);
        (out.sent, out.bytes) = (out.sent + 1, out.bytes + len);
        attack(world.frame().unwrap(), &mut peer, &mut client);
        for packet in down.receive(now) {
            out.accepted += usize::from(client.decode(&packet).is_ok());
        }
        if let Some(ack) = client.ack() {
            up.send(&mut rng, now, &ack_bytes(ack));
        }
        for ack in up.receive(now) {
            peer.receive_ack(&Ack::read(&ack).unwrap());
        }
    }
    out.stats = peer.stats();
    out
}

/// Sends `junk` 3-byte datagrams a frame (each naming a baseline the client does not hold)
/// alongside an honest stream; returns the share of honest packets accepted and the restarts
/// the server saw.
fn junk_flood(junk: usize) -> (f64, u64) {
    let mut noise = Rng(99);
    let run = honest_session(9, 3000, (2, 2), |_, _, client| {
        for _ in 0..junk {
            let b = noise.next().to_le_bytes();
            let _ = client.decode(&[b[0] | 1, b[1], b[2]]);
        }
    });
    (run.accepted as f64 / run.sent as f64, run.stats.restarts)
}

#[test]
fn junk_datagrams_cannot_restart_a_client() {
    let (quiet, _) = junk_flood(0);
    let (flooded, restarts) = junk_flood(32);
    println!("accepted {quiet:.3} quiet, {flooded:.3} under 32 junk datagrams a frame");
    assert_eq!(restarts, 0, "junk drove restarts");
    assert!(flooded >= quiet - 0.02, "accepted {flooded:.3} under junk against {quiet:.3}");
}

/// A client that restarted accepts a packet without baseline whatever frame it names: such a
/// packet's 32-bit check value keeps short random datagrams out. `NETSCHEMA_SHORT_DATAGRAMS`
/// sets how many random ones to try (300,000 by default; `.ci/soak` tries 10⁸).
#[test]
fn short_random_datagrams_are_not_accepted_after_a_restart() {
    let schema = &SCHEMA;
    let (mut world, mut peer, mut client) = session(schema, ENTITIES, HANDLES);
    let mut sim = Sim::new(12, ENTITIES);
    for id in 0..ENTITIES {
        peer.set_visible(id, true).unwrap();
    }
    let mut buf = vec![0u8; 64 * 1024];
    for _ in 0..20 {
        sim.step(&mut world);
        let len = peer.encode(&world, &mut buf).unwrap();
        client.decode(&buf[..len]).unwrap();
        peer.receive_ack(&client.ack().unwrap());
    }
    client.restart();
    let mut accepted = 0;
    let mut try_one = |client: &mut netschema_runtime::Client<'_>, bytes: &[u8]| {
        if client.decode(bytes).is_ok() {
            accepted += 1;
            client.restart();
        }
    };
    // Every datagram of one and two bytes, then random ones of 3 to 26.
    for len in 1..=2usize {
        for v in 0..1u32 << (8 * len) {
            try_one(&mut client, &v.to_le_bytes()[..len]);
        }
    }
    let mut rng = Rng(13);
    let tries = std::env::var("NETSCHEMA_SHORT_DATAGRAMS").ok().and_then(|s| s.parse().ok());
    let tries: u64 = tries.unwrap_or(300_000);
    for _ in 0..tries {
        let len = 3 + rng.below(24) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        try_one(&mut client, &bytes);
    }
    println!("{accepted} of {} short datagrams accepted", tries + 65_792);
    assert_eq!(accepted, 0);
}

/// A packet that decodes to values never sent yet passes its 16-bit check value (here made on
/// purpose: a twin server's packet for the same frame, searched until its check value matches
/// the real one) is acknowledged with a valid proof. The view digest of a later ack shows the
/// difference: the server restarts the stream, and the client's view is right again within a
/// few frames.
#[test]
fn a_falsely_accepted_packet_is_found_by_the_view_digest() {
    use netschema_runtime::owned::{ClientBuffers, PeerBuffers, WorldBuffers};
    const N: usize = 4;
    const FIRST: u32 = 15;
    let schema = &SCHEMA;
    let crates = |world: &mut netschema_runtime::World<'_>, hp: [i32; N]| {
        for (id, &hp) in hp.iter().enumerate() {
            world.set(id, 1, &[hp, 0]).unwrap();
        }
    };
    // Frames up to FIRST are empty and unsent; FIRST is sent cold, FIRST + 1 against it.
    let start = |world: &mut netschema_runtime::World<'_>| {
        while world.begin_frame() < FIRST {}
        crates(world, [10, 20, 30, 40]);
    };
    let (mut wb, mut pb) = (WorldBuffers::new(schema, N), PeerBuffers::new(schema, N, N));
    let mut world = wb.world(schema, N).unwrap();
    let mut peer = pb.peer(schema, N, N).unwrap();
    let mut cb = ClientBuffers::new(schema, N);
    let mut client = cb.client(schema, N).unwrap();
    for id in 0..N {
        peer.set_visible(id, true).unwrap();
    }
    let mut buf = [0u8; 1024];
    start(&mut world);
    let len = peer.encode(&world, &mut buf).unwrap();
    let first = buf[..len].to_vec();
    client.decode(&first).unwrap();
    let ack = client.ack().unwrap();
    peer.receive_ack(&ack);
    world.begin_frame();
    crates(&mut world, [10, 20, 30, 40]);
    let len = peer.encode(&world, &mut buf).unwrap();
    let real = buf[..len].to_vec();
    let proof = peer.ack_of(FIRST + 1, |f| f == FIRST).unwrap().proof;

    // The twin sends the same first packet, receives the same ack, then other values; a
    // second client with the same history tells when the twin's packet has the real one's
    // check value (its ack then has the same proof).
    let (mut twb, mut tpb) = (WorldBuffers::new(schema, N), PeerBuffers::new(schema, N, N));
    let mut tcb = ClientBuffers::new(schema, N);
    let forged = (0..2_000_000i32)
        .find_map(|i| {
            let mut tw = twb.world(schema, N).unwrap();
            let mut twin = tpb.peer(schema, N, N).unwrap();
            let mut probe = tcb.client(schema, N).unwrap();
            for id in 0..N {
                twin.set_visible(id, true).unwrap();
            }
            start(&mut tw);
            twin.encode(&tw, &mut buf).unwrap();
            twin.receive_ack(&ack);
            tw.begin_frame();
            crates(&mut tw, [9 - i % 101, 19 - i / 101 % 101, 29 - i / 10_201 % 101, 40]);
            let len = twin.encode(&tw, &mut buf).unwrap();
            probe.decode(&first).unwrap();
            probe.decode(&buf[..len]).unwrap();
            (probe.ack().unwrap().proof == proof).then(|| buf[..len].to_vec())
        })
        .expect("a twin packet that passes the check");
    assert_ne!(forged, real);
    let frame = client.decode(&forged).unwrap();
    assert_eq!(frame % VIEW_EVERY, 0, "the ack of this frame carries the view digest");
    assert_ne!(frame_view(&client), record(schema, &world, &peer), "the client holds a lie");
    assert_eq!(peer.receive_ack(&client.ack().unwrap()), AckOutcome::Accepted);

    // The real stream goes on, values unchanged.
    let mut right_at = None;
    for t in 1..40 {
        world.begin_frame();
        crates(&mut world, [10, 20, 30, 40]);
        let len = peer.encode(&world, &mut buf).unwrap();
        if client.decode(&buf[..len]).is_ok() {
            peer.receive_ack(&client.ack().unwrap());
            if right_at.is_none() && frame_view(&client) == record(schema, &world, &peer) {
                right_at = Some(t);
            }
        }
    }
    assert_eq!(peer.stats().view_mismatches, 1);
    assert!(right_at.is_some_and(|t| t <= 3), "the view was right again after {right_at:?}");
}

/// A forged restart request every frame costs nothing: it proves no packet, so it is refused
/// and counted, and the stream goes on as without it.
#[test]
fn forged_restarts_are_refused_and_counted() {
    let run = |forge: bool| {
        let mut forger = Rng(22);
        let run = honest_session(21, 1000, (2, 3), |_, peer, _| {
            if forge {
                let seen = [forger.next() as u32, forger.next() as u32];
                assert_eq!(peer.receive_ack(&Ack::restart(seen)), AckOutcome::Refused);
            }
        });
        (run.bytes, run.stats)
    };
    let (quiet, _) = run(false);
    let (forged, stats) = run(true);
    println!("{quiet} bytes quiet, {forged} under a forged restart a frame");
    assert_eq!(stats.restarts, 0);
    assert_eq!(stats.refused_acks, 1000, "every forged restart is counted");
    assert!(forged * 100 <= quiet * 105, "{forged} bytes under forged restarts, {quiet} without");
}

/// Guessing ack proofs does not pay: 4,096 forged acks a frame, each naming recent frames
/// with a random proof, leave an honest client's share of accepted packets where it was.
#[test]
fn a_flood_of_forged_acks_changes_nothing() {
    let run = |flood: usize| {
        let mut forger = Rng(32);
        let run = honest_session(31, 400, (2, 2), |newest, peer, _| {
            for _ in 0..flood {
                let r = forger.next();
                let ack = Ack {
                    latest: newest.wrapping_sub(r as u32 % 3) as u16,
                    bits: (r >> 8) as u32 & 7,
                    proof: (r >> 32) as u32,
                    ..Ack::default()
                };
                peer.receive_ack(&ack);
            }
        });
        (run.accepted, run.stats.refused_acks)
    };
    let (quiet, _) = run(0);
    let (flooded, refused) = run(4096);
    println!("{quiet} packets accepted quiet, {flooded} under {refused} forged acks");
    assert!(refused >= 4000 * 400, "{refused} forged acks refused");
    assert!(
        flooded * 100 >= quiet * 98,
        "{flooded} packets accepted under the flood, {quiet} without"
    );
}

/// After a refused ack, a frame counts as held only once two acks with different proofs name
/// it: one lucky guess does not make a baseline.
#[test]
fn after_a_refusal_a_frame_needs_two_proofs() {
    let schema = &SCHEMA;
    let (mut world, mut peer, mut client) = session(schema, ENTITIES, HANDLES);
    let mut sim = Sim::new(41, ENTITIES);
    for id in 0..ENTITIES {
        peer.set_visible(id, true).unwrap();
    }
    let mut buf = vec![0u8; 64 * 1024];
    let mut step = |peer: &mut netschema_runtime::Peer<'_>| {
        sim.step(&mut world);
        let len = peer.encode(&world, &mut buf).unwrap();
        client.decode(&buf[..len]).unwrap();
        client.ack().unwrap()
    };
    let first = step(&mut peer);
    let forged = Ack { proof: first.proof ^ 1, ..first };
    assert_eq!(peer.receive_ack(&forged), AckOutcome::Refused);
    assert_eq!(peer.receive_ack(&first), AckOutcome::Accepted);
    let second = step(&mut peer);
    assert_eq!(peer.stats().cold_packets, 2, "one proof is not enough after a refusal");
    assert_eq!(peer.receive_ack(&second), AckOutcome::Accepted);
    step(&mut peer);
    assert_eq!(peer.stats().cold_packets, 2, "a second proof is");
}

/// A client numbers frames as its server does, however it joined and however long it heard
/// nothing: a raw client joining a server 100,000 frames in, and the same client after a
/// silence of 40,000 frames, hold the server's frame numbers, and their models match.
#[test]
fn frame_numbers_match_the_server_after_a_late_join_and_a_long_silence() {
    let schema = &SCHEMA;
    let (mut world, mut peer, mut client) = session(schema, ENTITIES, HANDLES);
    let mut sim = Sim::new(51, ENTITIES);
    for id in 0..ENTITIES {
        peer.set_visible(id, true).unwrap();
    }
    for _ in 0..100_000 {
        world.begin_frame();
    }
    let mut buf = vec![0u8; 64 * 1024];
    for silence in [0u32, 40_000, 65_536, 70_000] {
        for _ in 0..silence {
            world.begin_frame();
        }
        for _ in 0..40 {
            sim.step(&mut world);
            let len = peer.encode(&world, &mut buf).unwrap();
            let frame = client.decode(&buf[..len]).unwrap();
            assert_eq!(Some(frame), world.frame(), "after a silence of {silence}");
            assert_eq!(client.model_digest(frame), peer.model_digest(frame));
            peer.receive_ack(&client.ack().unwrap());
        }
    }
}

/// A packet's bytes are its content and nothing else: real packets with a bit flipped
/// anywhere, a byte dropped, or bytes appended (zeros or random) are refused, including those
/// that decode to the same values (the range coder's last bytes can carry slack, which the
/// client's end check refuses: see `Decoder::at_end`).
#[test]
fn packets_cannot_be_altered_and_still_accepted() {
    let (mut world, mut peer, mut client) = session(&SCHEMA, ENTITIES, HANDLES);
    let mut sim = Sim::new(61, ENTITIES);
    let mut rng = Rng(61);
    for id in 0..ENTITIES {
        peer.set_visible(id, true).unwrap();
    }
    let mut buf = vec![0u8; 64 * 1024];
    let (mut tried, mut accepted) = (0u32, Vec::new());
    for now in 0..400u32 {
        sim.step(&mut world);
        let len = peer.encode(&world, &mut buf).unwrap();
        let packet = &buf[..len];
        let mut variants: Vec<Vec<u8>> = (0..16)
            .map(|_| {
                let bit = rng.below(len as u64 * 8) as usize;
                let mut flipped = packet.to_vec();
                flipped[bit / 8] ^= 1 << (bit % 8);
                flipped
            })
            .collect();
        variants.push(packet[..len - 1].to_vec());
        for extra in 1..=4 {
            let random = (0..extra).map(|_| rng.next() as u8);
            variants.push(packet.iter().copied().chain(random).collect());
            variants.push(packet.iter().copied().chain((0..extra).map(|_| 0)).collect());
        }
        for variant in &variants {
            tried += 1;
            if client.decode(variant).is_ok() {
                accepted.push((now, variant.len(), len));
                break;
            }
        }
        let _ = client.decode(packet);
        peer.receive_ack(&client.ack().unwrap());
    }
    println!("{} of {tried} altered packets accepted", accepted.len());
    assert!(tried > 9_000, "{tried} altered packets");
    assert!(accepted.is_empty(), "accepted (frame, length, honest length): {accepted:?}");
}

/// More frames in flight than the window of 32 frame slots: with a round trip of 64 frames the
/// packets stretch their slots (reach) so that frames stay held until their acks come back,
/// and only the packets of the first round trip go without baseline; a round trip of 24
/// frames or less never stretches them, and one past the longest reach is counted.
#[test]
fn more_frames_in_flight_than_the_window_keep_their_baselines() {
    let short = honest_session(71, 1500, (6, 6), |_, _, _| {});
    assert_eq!(short.stats.stretched_packets, 0);
    assert!(short.stats.cold_packets <= 13, "{:?}", short.stats);
    let long = honest_session(71, 1500, (32, 32), |_, _, _| {});
    let stats = long.stats;
    println!(
        "round trip {} frames: {:.1} B/frame, {} of {} packets without baseline, {} stretched",
        stats.round_trip,
        long.bytes as f64 / long.sent as f64,
        stats.cold_packets,
        long.sent,
        stats.stretched_packets
    );
    assert_eq!(stats.round_trip, 64);
    assert!(stats.cold_packets <= 66, "{stats:?}");
    assert!(stats.stretched_packets > 1400, "{stats:?}");
    assert_eq!(stats.beyond_reach, 0);
    assert!(long.accepted * 10 > long.sent * 9, "{} of {}", long.accepted, long.sent);
    let beyond = honest_session(71, 400, (70, 70), |_, _, _| {});
    assert_eq!(beyond.stats.cold_packets, 400);
    assert!(beyond.stats.beyond_reach > 200, "{:?}", beyond.stats);
}
