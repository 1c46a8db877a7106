//! Hostile and unlucky peers: restarts with acks in flight, junk datagrams, forged restarts
//! and acks, floods of hellos, long silences and more frames in flight than the window.

mod support;

use netschema_runtime::Ack;
use netschema_runtime::schema::Schema;
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
        peer.set_visible(id, true);
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
            // The restart overtakes the acks in flight.
            peer.receive_ack(&Ack::restart());
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
                peer.set_visible(id, rng.chance(0.8));
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
                    0 => Ack::restart(),
                    1 => Ack {
                        latest: rng.next() as u16,
                        bits: rng.next() as u32,
                        proof: rng.next() as u16,
                    },
                    _ if seen.is_empty() => continue,
                    _ => seen[seen.len() - 1 - rng.below(seen.len().min(80) as u64) as usize],
                };
                peer.receive_ack(&ack);
            }
        }
    }
}

/// Sends `junk` 3-byte datagrams a frame (each naming a baseline the client does not hold)
/// alongside an honest stream at 5 % loss; returns the share of honest packets accepted and
/// the restarts the server saw.
fn junk_flood(junk: usize) -> (f64, u64) {
    let schema = &SCHEMA;
    let (mut world, mut peer, mut client) = session(schema, ENTITIES, HANDLES);
    let mut sim = Sim::new(9, ENTITIES);
    let (mut rng, mut noise) = (Rng(9), Rng(99));
    let (mut down, mut up) = (Link::new((2, 2), 0.05), Link::new((2, 2), 0.05));
    for id in 0..ENTITIES {
        peer.set_visible(id, true);
    }
    let (mut buf, mut sent, mut accepted) = (vec![0u8; 64 * 1024], 0, 0);
    for now in 0..3000u32 {
        sim.step(&mut world);
        let len = peer.encode(&world, &mut buf).unwrap();
        down.send(&mut rng, now, &buf[..len]);
        sent += 1;
        for _ in 0..junk {
            let b = noise.next().to_le_bytes();
            let _ = client.decode(&[b[0] | 1, b[1], b[2]]);
        }
        for packet in down.receive(now) {
            accepted += usize::from(client.decode(&packet).is_ok());
        }
        if let Some(ack) = client.ack() {
            up.send(&mut rng, now, &ack_bytes(ack));
        }
        for ack in up.receive(now) {
            peer.receive_ack(&Ack::read(&ack).unwrap());
        }
    }
    (accepted as f64 / sent as f64, peer.stats().restarts)
}

#[test]
fn junk_datagrams_cannot_restart_a_client() {
    let (quiet, _) = junk_flood(0);
    let (flooded, restarts) = junk_flood(32);
    assert_eq!(restarts, 0, "junk drove restarts");
    assert!(flooded >= quiet - 0.02, "accepted {flooded:.3} under junk against {quiet:.3}");
}

/// A client that restarted accepts a packet without baseline whatever frame it names: such a
/// packet's 32-bit check value keeps short random datagrams out.
#[test]
fn short_random_datagrams_are_not_accepted_after_a_restart() {
    let schema = &SCHEMA;
    let (mut world, mut peer, mut client) = session(schema, ENTITIES, HANDLES);
    let mut sim = Sim::new(12, ENTITIES);
    for id in 0..ENTITIES {
        peer.set_visible(id, true);
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
    for _ in 0..300_000 {
        let len = 3 + rng.below(24) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        try_one(&mut client, &bytes);
    }
    assert_eq!(accepted, 0);
}
