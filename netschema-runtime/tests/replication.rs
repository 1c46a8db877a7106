//! End-to-end replication over simulated lossy links.

mod support;

use netschema_runtime::engine::MAX_HANDLES;
use netschema_runtime::owned::{ClientBuffers, PeerBuffers, WorldBuffers};
use netschema_runtime::schema::Schema;
use netschema_runtime::{Ack, Client, Error, Peer, World};
use std::collections::BTreeMap;
use support::*;

const ENTITIES: usize = 300;
const HANDLES: usize = 256;

/// The rows a client should hold for `frame`: handle → (class, values).
fn expected(world: &World<'_>, peer: &Peer<'_>, frame: u32) -> BTreeMap<u32, (usize, Vec<i32>)> {
    (0..ENTITIES)
        .filter_map(|id| {
            let h = peer.handle_of(id)?;
            let (class, row) = world.get(frame, id)?;
            Some((h, (class, row.to_vec())))
        })
        .collect()
}

struct Outcome {
    accepted: usize,
    rejected: usize,
    /// Rejected as coded with a model the client does not keep.
    unknown_model: usize,
    /// Accepted, but with no pooled model set free to keep the frame's models.
    unkept: usize,
    bytes: usize,
}

/// Runs `frames` frames of `schema` over a link and checks every accepted packet: the
/// client's view equals the server's rows, both ends' models equal, and under the batched
/// policy the model the server codes with is, if the client keeps it, the same. Acks travel
/// back over the same kind of link (lost, duplicated, reordered).
fn run(
    schema: &'static Schema,
    seed: u64,
    frames: u32,
    latency: (u32, u32),
    loss: f64,
    duplicate: f64,
    corrupt: f64,
) -> Outcome {
    let link = (latency, loss, duplicate, corrupt);
    run_world(schema, &mut Sim::new(seed, ENTITIES), seed, frames, link)
}

/// [`run`] on the world `sim` simulates, over a link of (latency, loss, duplicate, corrupt);
/// a schema with tolerances is checked against what the server records the client holds.
fn run_world(
    schema: &'static Schema,
    sim: &mut impl Step,
    seed: u64,
    frames: u32,
    (latency, loss, duplicate, corrupt): ((u32, u32), f64, f64, f64),
) -> Outcome {
    let (mut world, mut peer, mut client) = session(schema, ENTITIES, HANDLES);
    let mut rng = Rng(seed ^ 0xabcdef);
    let mut down = Link::new(latency, loss);
    down.duplicate = duplicate;
    down.corrupt = corrupt;
    let mut up = Link::new(latency, loss);
    up.duplicate = duplicate;
    let mut sent: BTreeMap<u32, BTreeMap<u32, (usize, Vec<i32>)>> = BTreeMap::new();
    let mut young = YoungLog::default();
    let mut models: BTreeMap<u32, Option<u64>> = BTreeMap::new();
    let mut out = Outcome { accepted: 0, rejected: 0, unknown_model: 0, unkept: 0, bytes: 0 };
    let mut buf = vec![0u8; 64 * 1024];

    for now in 0..frames {
        sim.step(&mut world);
        let frame = world.frame().unwrap();
        for id in 0..ENTITIES {
            // Visibility drifts: most entities visible, some flicker.
            if rng.chance(0.01) || now == 0 {
                peer.set_visible(id, rng.chance(0.8)).unwrap();
            }
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        out.bytes += len;
        // Taken now: a later frame of a longer reach may take the frame's slot on the server
        // before the client decodes it.
        models.insert(frame, peer.model_digest(frame));
        models.retain(|&f, _| frame.wrapping_sub(f) < 64);
        // Tolerant fields hold what the server records, within tolerance of the world.
        let want = if schema.max_tolerant > 0 {
            record(schema, &world, &peer)
        } else {
            expected(&world, &peer, frame)
        };
        sent.insert(frame, want);
        sent.retain(|&f, _| frame.wrapping_sub(f) < 64);
        young.sent(&peer, frame);
        down.send(&mut rng, now, &buf[..len]);

        for packet in down.receive(now) {
            let before: Vec<_> = client.view().map(|(h, c, r)| (h, c, r.to_vec())).collect();
            let before_frame = client.frame();
            match client.decode(&packet) {
                Ok(f) => {
                    out.accepted += 1;
                    let want = &young.decoded(f, &sent[&f]);
                    let got: BTreeMap<u32, (usize, Vec<i32>)> =
                        client.view().map(|(h, c, r)| (h, (c, r.to_vec()))).collect();
                    assert_eq!(&got, want, "frame {f}: client view differs from server rows");
                    // A frame keeps its models only if its number is a multiple of the stride
                    // its baseline distance gives, as on the server, and on the client only if
                    // it found a pooled set free (else it never acknowledges it); those it
                    // keeps equal the server's.
                    match client.model_digest(f) {
                        Some(d) => assert_eq!(Some(d), models[&f], "frame {f}: models differ"),
                        None if models[&f].is_some() => out.unkept += 1,
                        None => {}
                    }
                    if let Some((start, digest)) = peer.batch_model() {
                        let kept = client.batch_model_digest(start);
                        assert!(kept.is_none_or(|d| d == digest), "model {start} differs");
                    }
                    if let Some(ack) = client.ack() {
                        up.send(&mut rng, now, &ack_bytes(ack));
                    }
                }
                Err(e) => {
                    assert!(
                        matches!(
                            e,
                            Error::StalePacket
                                | Error::UnknownBaseline
                                | Error::UnknownModel
                                | Error::CheckMismatch
                                | Error::Corrupt
                                | Error::UnexpectedEnd
                        ),
                        "unexpected error {e:?}"
                    );
                    out.rejected += 1;
                    out.unknown_model += usize::from(e == Error::UnknownModel);
                    let after: Vec<_> = client.view().map(|(h, c, r)| (h, c, r.to_vec())).collect();
                    assert_eq!(before, after, "a rejected packet changed the view");
                    assert_eq!(before_frame, client.frame());
                }
            }
        }
        for ack in up.receive(now) {
            peer.receive_ack(&Ack::read(&ack).unwrap());
        }
    }
    assert!(
        out.unkept * 20 <= out.accepted,
        "{} of {} frames kept no models",
        out.unkept,
        out.accepted
    );
    let stats = peer.stats();
    assert_eq!(stats.view_mismatches, 0, "an honest client's views match the record");
    assert_eq!(stats.restarts, 0, "an honest session never restarts");
    out
}

#[test]
fn lossless_link_replicates_exactly() {
    let o = run(&SCHEMA, 1, 600, (0, 0), 0.0, 0.0, 0.0);
    assert_eq!(o.rejected, 0);
    assert_eq!(o.accepted, 600);
}

#[test]
fn lossy_links_replicate_exactly() {
    for (seed, latency, loss) in
        [(2, (6, 6), 0.05), (3, (0, 10), 0.2), (4, (2, 10), 0.5), (5, (1, 4), 0.0)]
    {
        let o = run(&SCHEMA, seed, 1500, latency, loss, 0.05, 0.0);
        assert!(o.accepted > 300, "seed {seed}: only {} accepted", o.accepted);
    }
}

/// More frames in flight than the 32 frame slots hold (a round trip of 60 to 68 frames, so
/// packets stretch their slots), under loss, duplication and reordering: every accepted packet
/// is exact and both ends' models agree, under both policies.
#[test]
fn frames_in_flight_past_the_window_replicate_exactly() {
    for (schema, seed, loss) in [(&SCHEMA, 31, 0.05), (&SCHEMA, 32, 0.2), (&BATCHED, 33, 0.05)] {
        let o = run(schema, seed, 1000, (30, 34), loss, 0.05, 0.0);
        assert!(o.accepted > 500, "seed {seed}: only {} accepted", o.accepted);
    }
}

/// A round trip of 18 to 22 frames, longer than the 16 model sets a server pools per frame
/// keep: the peer gives up some frames in flight as baselines, and every accepted packet is
/// still exact, both ends' models agree and the stream never restarts.
#[test]
fn round_trips_longer_than_the_model_pool_replicate_exactly() {
    for (seed, loss) in [(41, 0.0), (42, 0.05), (43, 0.2)] {
        let o = run(&SCHEMA, seed, 800, (9, 11), loss, 0.05, 0.0);
        assert!(o.accepted > 500, "seed {seed}: only {} accepted", o.accepted);
    }
}

/// A handle released is given to another entity in the same frame: with as many handles as
/// entities visible and the visible set moving by one id a frame, under loss, duplication and
/// reordering, every accepted frame is exact, both ends' models agree, and the client sees
/// handles change entity (leave and enter in one packet) without a restart.
#[test]
fn a_released_handle_serves_another_entity_at_once() {
    const IDS: usize = 48;
    const VISIBLE: usize = 16;
    let (mut world, mut peer, mut client) = session(&SCHEMA, IDS, VISIBLE);
    let mut rng = Rng(52);
    let (mut down, mut up) = (Link::new((2, 4), 0.1), Link::new((2, 4), 0.1));
    down.duplicate = 0.05;
    let mut sent: BTreeMap<u32, (View, Option<u64>)> = BTreeMap::new();
    let mut young = YoungLog::default();
    let (mut accepted, mut changed_hands) = (0, 0);
    let mut buf = vec![0u8; 16 * 1024];
    for now in 0..600u32 {
        world.begin_frame();
        for id in 0..IDS {
            // Crates (class 1) whose value drifts, every one of them in the world.
            let value = (id as i32 * 13 + now as i32 / 3) % 201 - 100;
            world.set(id, 1, &[value, (id as i32 + now as i32 / 20) % 2]).unwrap();
            let offset = (id + IDS - (now as usize / 2) % IDS) % IDS;
            peer.set_visible(id, offset < VISIBLE).unwrap();
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        let frame = world.frame().unwrap();
        sent.insert(frame, (record(&SCHEMA, &world, &peer), peer.model_digest(frame)));
        young.sent(&peer, frame);
        down.send(&mut rng, now, &buf[..len]);
        for packet in down.receive(now) {
            let Ok(f) = client.decode(&packet) else { continue };
            accepted += 1;
            let want = young.decoded(f, &sent[&f].0);
            assert_eq!(frame_view(&client), want, "frame {f}: view differs from record");
            assert_eq!(client.model_digest(f), sent[&f].1, "frame {f}: models differ");
            let removed: Vec<u32> = client
                .events()
                .filter_map(|e| match e {
                    netschema_runtime::Event::Removed { handle } => Some(handle),
                    _ => None,
                })
                .collect();
            changed_hands += client
                .events()
                .filter(|e| {
                    matches!(e, netschema_runtime::Event::Created { handle, .. }
                        if removed.contains(handle))
                })
                .count();
            up.send(&mut rng, now, &ack_bytes(client.ack().unwrap()));
        }
        for ack in up.receive(now) {
            peer.receive_ack(&Ack::read(&ack).unwrap());
        }
    }
    let stats = peer.stats();
    assert!(accepted > 400, "only {accepted} accepted");
    assert!(changed_hands > 100, "handles changed entity {changed_hands} times");
    assert_eq!((stats.restarts, stats.view_mismatches), (0, 0));
}

/// Rotations whose largest component changes, coded against history samples of another
/// basis re-expressed in the new one: exact, and both ends' models agree, with and without
/// loss.
#[test]
fn spinning_rotations_replicate_exactly() {
    for (seed, latency, loss) in [(21, (0, 0), 0.0), (22, (6, 6), 0.05), (23, (0, 10), 0.2)] {
        let o = run(&SPINNING, seed, 1500, latency, loss, 0.05, 0.0);
        assert!(o.accepted > 300, "seed {seed}: only {} accepted", o.accepted);
    }
}

/// The batched model policy under 0 to 50 % loss both ways, reordering (latency spread),
/// duplicated packets and acks (so lost, late and repeated model requests): every accepted
/// packet is exact and both ends' models agree.
#[test]
fn batched_models_replicate_exactly_under_loss() {
    for (seed, latency, loss) in
        [(12, (0, 0), 0.0), (13, (6, 6), 0.05), (14, (0, 10), 0.2), (15, (2, 10), 0.5)]
    {
        for schema in [&BATCHED, &BATCHED_SMALL] {
            let o = run(schema, seed, 1500, latency, loss, 0.05, 0.0);
            assert!(o.accepted > 300, "seed {seed}: only {} accepted", o.accepted);
            if loss == 0.0 {
                assert_eq!(o.unknown_model, 0, "seed {seed}");
            }
        }
    }
}

/// Bursts of short-lived entities, most of each packet's values entering (against the zero
/// predictor or the previous entering entity of their class), round-trip exactly and keep both
/// ends' models equal, under either policy, over clean, lossy, late and corrupting links.
#[test]
fn short_lived_entities_entering_in_bursts_replicate_exactly() {
    let links = [
        ((0, 0), 0.0, 0.0, 0.0),
        ((6, 6), 0.05, 0.05, 0.0),
        ((1, 8), 0.2, 0.05, 0.0),
        ((0, 6), 0.05, 0.05, 0.1),
    ];
    for (seed, link) in (20..).zip(links) {
        for schema in [&SPARKS, &SPARKS_BATCHED] {
            let o = run_world(schema, &mut Bursts::new(seed, ENTITIES), seed, 600, link);
            assert!(o.accepted > 200, "seed {seed}: only {} accepted", o.accepted);
        }
    }
}

#[test]
fn corrupted_batched_packets_are_rejected_without_effect() {
    let o = run(&BATCHED, 16, 1500, (0, 6), 0.05, 0.05, 0.1);
    assert!(o.rejected > 50);
    assert!(o.accepted > 600);
}

#[test]
fn corrupted_packets_are_rejected_without_effect() {
    let o = run(&SCHEMA, 6, 1500, (0, 6), 0.05, 0.05, 0.1);
    assert!(o.rejected > 50);
    assert!(o.accepted > 600);
}

#[test]
fn frame_numbers_wrap_past_65536() {
    let o = run(&SCHEMA, 7, 66_000, (3, 3), 0.02, 0.0, 0.0);
    assert!(o.accepted > 60_000);
}

#[test]
fn arbitrary_bytes_never_panic() {
    let schema = &SCHEMA;
    let mut cb = ClientBuffers::new(schema, HANDLES);
    let mut client: Client<'_> = cb.client(schema, HANDLES).unwrap();
    let mut rng = Rng(99);
    for _ in 0..20_000 {
        let len = rng.below(200) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let _ = client.decode(&bytes);
    }
}

#[test]
fn packets_delayed_past_the_window_are_rejected_without_effect() {
    let schema = &SCHEMA;
    let (mut world, mut peer, mut client) = session(schema, ENTITIES, HANDLES);
    for id in 0..ENTITIES {
        peer.set_visible(id, true).unwrap();
    }
    let mut sim = Sim::new(5, ENTITIES);
    let mut buf = [0u8; 1 << 16];
    let mut held = Vec::new();
    // Each packet is decoded and acked at once; copies of some are kept back.
    for frame in 0..200u32 {
        sim.step(&mut world);
        let len = peer.encode(&world, &mut buf).unwrap();
        held.push(buf[..len].to_vec());
        client.decode(&buf[..len]).unwrap();
        peer.receive_ack(&client.ack().unwrap());
        // Replay old packets: every one is refused and changes nothing. Up to three windows
        // late (96 frames, less the baseline distance) the header alone tells; later, a
        // baseline named by the same low bits may be taken and the check value refuses it.
        if frame >= 140 {
            let current = client.frame().unwrap();
            let digest = client.model_digest(current);
            for delay in [1usize, 31, 32, 33, 63, 64, 95, 96, 127, 128, 140] {
                let old = &held[held.len() - 1 - delay];
                let result = client.decode(old);
                assert!(result.is_err(), "frame {frame}, delay {delay}: {result:?}");
                if delay < 96 {
                    assert!(
                        matches!(result, Err(Error::StalePacket | Error::UnknownBaseline)),
                        "frame {frame}, delay {delay}: {result:?}"
                    );
                }
                assert_eq!(client.frame(), Some(current));
                assert_eq!(client.model_digest(current), digest);
            }
        }
    }
}

/// A flipped bit in a warm packet's header (the baseline distance, the baseline's number, the
/// history list) is caught by the check value, even in a still world whose values a wrong
/// frame would not change: no packet is accepted under a frame that was not sent.
#[test]
fn damaged_headers_are_rejected() {
    const N: usize = 16;
    let schema = &SCHEMA;
    let (mut world, mut peer, mut client) = session(schema, N, N);
    for id in 0..N {
        peer.set_visible(id, true).unwrap();
    }
    let mut buf = [0u8; 1024];
    let (mut accepted, mut tried) = (0, 0);
    for now in 0..300u32 {
        let frame = world.begin_frame();
        for id in 0..N {
            world.set(id, 1, &[id as i32, 0]).unwrap();
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        // Acks every other frame, so that baselines and histories vary.
        let packet = &buf[..len];
        if now > 10 {
            for bit in 0..(len * 8).min(24) {
                let mut damaged = packet.to_vec();
                damaged[bit / 8] ^= 1 << (bit % 8);
                tried += 1;
                if let Ok(f) = client.decode(&damaged) {
                    assert_eq!(f, frame, "frame {frame}: bit {bit} made a frame never sent");
                    accepted += 1;
                    break;
                }
            }
        }
        if client.frame() != Some(frame) {
            client.decode(packet).unwrap();
        }
        if now % 2 == 0 {
            peer.receive_ack(&client.ack().unwrap());
        }
    }
    assert!(tried > 3000, "{tried} damaged packets");
    assert!(accepted * 1000 < tried, "{accepted} of {tried} damaged packets accepted");
}

/// Bytes appended to a packet are refused (see `Decoder::at_end`) unless they mislead the
/// decoder into decoding past them, where only the 16-bit check value stands (one in 65,536:
/// once here, in 1,600 tries).
#[test]
fn packets_with_bytes_appended_are_refused() {
    let schema = &SCHEMA;
    let (mut world, mut peer, mut client) = session(schema, ENTITIES, HANDLES);
    let mut sim = Sim::new(9, ENTITIES);
    let mut rng = Rng(9);
    for id in 0..ENTITIES {
        peer.set_visible(id, true).unwrap();
    }
    let mut buf = vec![0u8; 64 * 1024];
    let mut accepted = [0u32; 9];
    for _ in 0..200 {
        sim.step(&mut world);
        let len = peer.encode(&world, &mut buf).unwrap();
        for (extra, count) in accepted.iter_mut().enumerate().skip(1) {
            let mut longer = buf[..len].to_vec();
            longer.extend((0..extra).map(|_| rng.below(256) as u8));
            if client.decode(&longer).is_ok() {
                *count += 1;
                break;
            }
        }
        if client.frame() != world.frame() {
            client.decode(&buf[..len]).unwrap();
        }
        peer.receive_ack(&client.ack().unwrap());
    }
    let longer: u32 = accepted.iter().sum();
    assert!(longer <= 1, "accepted with bytes appended: {accepted:?}");
}

/// A short piece of a packet cannot make the client work through the rest as zeros: once the
/// decoder has read past anything that could have been sent it stops, so the work a packet
/// causes is bounded by its length.
#[test]
fn truncated_packets_stop_early() {
    const N: usize = 4096;
    let schema = &SCHEMA;
    let mut wb = WorldBuffers::new(schema, N);
    let mut world = wb.world(schema, N).unwrap();
    let mut pb = PeerBuffers::new(schema, N, N);
    let mut peer = pb.peer(schema, N, N).unwrap();
    world.begin_frame();
    // Entities unlike each other, so that each costs bytes.
    let mut rng = Rng(1);
    for id in 0..N {
        world.set(id, 0, &[rng.below(65_536) as i32, 100, 5, 1, 0]).unwrap();
        peer.set_visible(id, true).unwrap();
    }
    let mut buf = vec![0u8; 1 << 17];
    let len = peer.encode(&world, &mut buf).unwrap();
    assert!(len > 8_000, "{len} bytes");
    // The start of a cold packet announces entities entering: the decoder stops once it has
    // read four bytes past the end (or, reading zeros, ends the list and fails the check)
    // rather than decode thousands of entities from zeros.
    for cut in 4..12 {
        let mut cb = ClientBuffers::new(schema, N);
        let mut client = cb.client(schema, N).unwrap();
        let result = client.decode(&buf[..cut]);
        let stopped = matches!(result, Err(Error::UnexpectedEnd | Error::CheckMismatch));
        assert!(stopped, "{cut} bytes: {result:?}");
        assert_eq!(client.frame(), None);
    }
}

/// Degenerate set-ups either work or are refused with a typed error; none panics. A class
/// without fields (a marker, present or not) replicates; a client with no handles is refused.
#[test]
fn degenerate_set_ups_work_or_are_refused() {
    use netschema_runtime::schema::{Class, Schema};
    static MARKER: [Class; 1] = [Class::new("marker", &[])];
    static MARKERS: Schema = Schema::new("markers", &MARKER);
    let schema = &MARKERS;
    let (mut world, mut peer, mut client) = session(schema, 8, 8);
    let mut buf = [0u8; 64];
    for t in 0..20 {
        world.begin_frame();
        for id in 0..8 {
            if (id + t) % 3 == 0 {
                world.set(id, 0, &[]).unwrap();
            } else {
                world.remove(id);
            }
            peer.set_visible(id, true).unwrap();
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        client.decode(&buf[..len]).unwrap();
        peer.receive_ack(&client.ack().unwrap());
        let present = (0..8).filter(|id| (id + t) % 3 == 0).count();
        assert_eq!(client.view().count(), present);
    }
    let mut none = ClientBuffers::new(&SCHEMA, 0);
    assert_eq!(none.client(&SCHEMA, 0).err(), Some(Error::NoHandles));
    let mut none = PeerBuffers::new(&SCHEMA, 0, 4);
    assert_eq!(none.peer(&SCHEMA, 0, 4).err(), Some(Error::NoHandles));
    // A link holds a handle in 16 bits: no end takes more handles than that.
    let too_many = MAX_HANDLES + 1;
    let mut few = ClientBuffers::new(&SCHEMA, 1);
    assert_eq!(few.client(&SCHEMA, too_many).err(), Some(Error::CapacityExceeded));
    let mut few = PeerBuffers::new(&SCHEMA, 1, 4);
    assert_eq!(few.peer(&SCHEMA, too_many, 4).err(), Some(Error::CapacityExceeded));
}

/// A client that acks frames it never received (every frame of the window, as if nothing were
/// lost) is refused: its packets keep decoding at the honest rate, and the lies are counted.
#[test]
fn forged_acks_are_refused_and_counted() {
    let run = |lie: bool| {
        let schema = &SCHEMA;
        let (mut world, mut peer, mut client) = session(schema, ENTITIES, HANDLES);
        let mut sim = Sim::new(11, ENTITIES);
        let mut rng = Rng(11);
        let (mut down, mut up) = (Link::new((2, 2), 0.05), Link::new((2, 2), 0.05));
        for id in 0..ENTITIES {
            peer.set_visible(id, id % 3 != 0).unwrap();
        }
        let (mut buf, mut accepted) = (vec![0u8; 64 * 1024], 0);
        for now in 0..600 {
            sim.step(&mut world);
            let len = peer.encode(&world, &mut buf).unwrap();
            down.send(&mut rng, now, &buf[..len]);
            for packet in down.receive(now) {
                if client.decode(&packet).is_ok() {
                    accepted += 1;
                }
                let Some(mut ack) = client.ack() else { continue };
                if lie && now % 16 == 0 {
                    ack.bits = u32::MAX;
                }
                up.send(&mut rng, now, &ack_bytes(ack));
            }
            for ack in up.receive(now) {
                peer.receive_ack(&Ack::read(&ack).unwrap());
            }
        }
        (accepted, peer.stats().refused_acks)
    };
    let (honest, none) = run(false);
    let (lied, refused) = run(true);
    assert_eq!(none, 0, "an honest client's acks are all proven");
    assert!(refused > 20, "{refused} lies counted");
    assert!(lied * 100 >= honest * 95, "{lied} packets accepted with lies, {honest} without");
}

/// A packet that names a frame far ahead (here a real one, from a server 30,000 frames on)
/// wedges a client only for a while: its acks name frames the server never sent, so within a
/// window the server codes without baseline; the client checks those packets, refuses
/// `RESTART_AFTER` of them as stale, asks its server to start over, and takes the server's
/// next packet, coded from scratch.
#[test]
fn a_client_wedged_far_ahead_recovers() {
    use netschema_runtime::AckOutcome;
    use netschema_runtime::engine::client::RESTART_AFTER;
    use netschema_runtime::engine::frame::WINDOW;
    const N: usize = 16;
    let schema = &SCHEMA;
    let mut wb = WorldBuffers::new(schema, N);
    let mut world = wb.world(schema, N).unwrap();
    let mut pb = PeerBuffers::new(schema, N, N);
    let mut peer = pb.peer(schema, N, N).unwrap();
    let mut fb = WorldBuffers::new(schema, N);
    let mut far = fb.world(schema, N).unwrap();
    let mut fpb = PeerBuffers::new(schema, N, N);
    let mut forger = fpb.peer(schema, N, N).unwrap();
    let mut cb = ClientBuffers::new(schema, N);
    let mut client = cb.client(schema, N).unwrap();
    for id in 0..N {
        peer.set_visible(id, true).unwrap();
        forger.set_visible(id, true).unwrap();
    }
    for _ in 0..30_000 {
        far.begin_frame();
    }
    let mut buf = [0u8; 4096];
    let (mut wedged_at, mut recovered_at, mut restarts) = (None, None, 0);
    let mut in_flight: Vec<Ack> = Vec::new();
    for now in 0..400u32 {
        world.begin_frame();
        far.begin_frame();
        for id in 0..N {
            world.set(id, 1, &[id as i32 + (now % 7) as i32, 0]).unwrap();
            far.set(id, 1, &[5, 1]).unwrap();
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        let accepted = client.decode(&buf[..len]).is_ok();
        if now == 100 {
            let len = forger.encode(&far, &mut buf).unwrap();
            client.decode(&buf[..len]).unwrap();
            wedged_at = Some(now);
        } else if accepted && wedged_at.is_some() && recovered_at.is_none() {
            recovered_at = Some(now);
        }
        // Acks arrive two frames later.
        in_flight.extend(client.ack());
        if in_flight.len() > 2 && peer.receive_ack(&in_flight.remove(0)) == AckOutcome::Restart {
            restarts += 1;
        }
    }
    let (wedged, recovered) = (wedged_at.unwrap(), recovered_at.expect("recovered"));
    assert!(restarts >= 1);
    let most = WINDOW + RESTART_AFTER + 5;
    assert!(recovered - wedged <= most, "wedged for {} frames", recovered - wedged);
}

/// A session value given to both ends salts the check value: a client of another session (or
/// of none) refuses every packet, one of the same session accepts them all, and the
/// packets are as long as those of a twin without a session, to the trimmed byte.
#[test]
fn packets_of_another_session_are_refused() {
    let schema = &SCHEMA;
    let mut wb = WorldBuffers::new(schema, ENTITIES);
    let mut world = wb.world(schema, ENTITIES).unwrap();
    let mut pbs = [0, 1].map(|_| PeerBuffers::new(schema, HANDLES, ENTITIES));
    let [a, b] = &mut pbs;
    let mut salted = a.peer(schema, HANDLES, ENTITIES).unwrap();
    let mut plain = b.peer(schema, HANDLES, ENTITIES).unwrap();
    salted.set_session(0x1234_5678_9abc_def0);
    let mut cbs = [0, 1, 2, 3].map(|_| ClientBuffers::new(schema, HANDLES));
    let [a, b, c, d] = &mut cbs;
    let mut same = a.client(schema, HANDLES).unwrap();
    let mut other = b.client(schema, HANDLES).unwrap();
    let mut none = c.client(schema, HANDLES).unwrap();
    let mut plain_client = d.client(schema, HANDLES).unwrap();
    same.set_session(0x1234_5678_9abc_def0);
    other.set_session(0x1234_5678_9abc_def1);
    let mut sim = Sim::new(11, ENTITIES);
    for id in 0..ENTITIES {
        salted.set_visible(id, true).unwrap();
        plain.set_visible(id, true).unwrap();
    }
    let (mut buf, mut plain_buf) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    for _ in 0..50 {
        sim.step(&mut world);
        let len = salted.encode(&world, &mut buf).unwrap();
        let plain_len = plain.encode(&world, &mut plain_buf).unwrap();
        // The same bits but the check value's, whose last zero bytes the encoder trims.
        assert!(len.abs_diff(plain_len) <= 1, "{len} and {plain_len} bytes");
        let packet = &buf[..len];
        assert_eq!(same.decode(packet), Ok(world.frame().unwrap()));
        // Warm packets name baselines only clients of the session hold.
        for client in [&mut other, &mut none] {
            let refused = client.decode(packet);
            assert!(matches!(refused, Err(Error::CheckMismatch | Error::UnknownBaseline)));
            assert_eq!(client.frame(), None);
        }
        assert!(plain_client.decode(&plain_buf[..plain_len]).is_ok());
        salted.receive_ack(&same.ack().unwrap());
        plain.receive_ack(&plain_client.ack().unwrap());
    }
}

/// Schemas whose balls list the contract candidate, with a contract that predicts them well,
/// one that predicts nonsense, one that panics on some entities, and none: every accepted
/// packet is exact and both ends' models agree, lossless and lossy alike.
#[test]
fn contracts_replicate_exactly_and_cannot_break_decoding() {
    quiet_contract_panics();
    for schema in [&FALLING, &GARBAGE, &PANICKY, &UNATTACHED] {
        let o = run(schema, 21, 600, (0, 0), 0.0, 0.0, 0.0);
        assert_eq!(
            (o.rejected, o.accepted),
            (0, 600),
            "{}",
            schema.contract.map_or("", |c| c.name)
        );
        for (seed, latency, loss) in [(22, (6, 6), 0.05), (23, (0, 10), 0.2)] {
            let o = run(schema, seed, 1500, latency, loss, 0.05, 0.0);
            assert!(o.accepted > 300, "seed {seed}: only {} accepted", o.accepted);
        }
        let o = run(schema, 24, 1500, (0, 6), 0.05, 0.05, 0.1);
        assert!(o.rejected > 50 && o.accepted > 600);
    }
}

/// A good contract saves bytes; one that is never right, or missing, costs little, as the
/// learned choice leaves it aside.
#[test]
fn a_contract_is_used_only_where_it_pays() {
    quiet_contract_panics();
    let bytes = |schema| run(schema, 25, 1500, (6, 6), 0.05, 0.0, 0.0).bytes as f64;
    let plain = bytes(&SCHEMA);
    let falling = bytes(&FALLING);
    assert!(falling < plain * 0.99, "falling {falling} vs plain {plain}");
    for schema in [&GARBAGE, &UNATTACHED, &PANICKY] {
        let b = bytes(schema);
        assert!(b < plain * 1.03, "{:?}: {b} vs plain {plain}", schema.contract);
    }
}

/// A contract is part of the protocol: attaching one, or listing the candidate, changes the
/// hash, so a client without it refuses the packets of a server with it.
#[test]
fn ends_with_and_without_a_contract_refuse_each_other() {
    let hashes = [SCHEMA.hash, UNATTACHED.hash, FALLING.hash, GARBAGE.hash];
    for (i, a) in hashes.iter().enumerate() {
        assert!(!hashes[..i].contains(a));
    }
    let (mut world, mut peer, _) = session(&FALLING, ENTITIES, HANDLES);
    let (_, _, mut client) = session(&UNATTACHED, ENTITIES, HANDLES);
    let mut sim = Sim::new(26, ENTITIES);
    let mut buf = vec![0u8; 64 * 1024];
    for _ in 0..3 {
        sim.step(&mut world);
    }
    let len = peer.encode(&world, &mut buf).unwrap();
    assert_eq!(client.decode(&buf[..len]), Err(Error::CheckMismatch));
}

/// A world of one idle entity, acknowledged at once, costs the header (with the model frame's
/// bit), the check value and a few flags: about 3.5 bytes a packet once the models have
/// learned it (2 kbit/s at 72 Hz).
#[test]
fn an_idle_world_costs_about_three_and_a_half_bytes_a_packet() {
    let (mut world, mut peer, mut client) = session(&SCHEMA, 1, 4);
    peer.set_visible(0, true).unwrap();
    let mut buf = [0u8; 64];
    let mut bytes = 0;
    for now in 0..400u32 {
        world.begin_frame();
        world.set(0, 1, &[7, 1]).unwrap();
        let len = peer.encode(&world, &mut buf).unwrap();
        client.decode(&buf[..len]).unwrap();
        peer.receive_ack(&client.ack().unwrap());
        if now >= 100 {
            bytes += len;
        }
    }
    let mean = bytes as f64 / 300.0;
    println!("{mean:.2} bytes per packet");
    assert!(mean < 3.6, "{mean:.2} bytes per packet");
}
