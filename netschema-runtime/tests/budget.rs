//! Packets within a byte budget: what the client holds, priority, tolerances and update
//! groups.

mod support;

use netschema_runtime::engine::peer::FORCE_AGE;
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::{Class, Field, Group, Schema};
use netschema_runtime::{Ack, Client, Error, Event, Peer, World};
use proptest::prelude::*;
use std::collections::BTreeMap;
use support::*;

/// Replicates the moving test world of `schema` through packets of at most `budget` bytes
/// over a link with `jitter` frames of reordering, `loss` and `duplicate`; checks every
/// packet's length and that every accepted frame is what the server recorded. Returns the
/// packets accepted.
fn replicate(
    schema: &Schema,
    seed: u64,
    budget: usize,
    loss: f64,
    duplicate: f64,
    jitter: u32,
) -> usize {
    const ENTITIES: usize = 200;
    const HANDLES: usize = 160;
    let (mut world, mut peer, mut client) = session(schema, ENTITIES, HANDLES);
    let mut sim = Sim::new(seed, ENTITIES);
    let mut rng = Rng(seed ^ 0x5eed);
    let (mut down, mut up) = (Link::new((1, 1 + jitter), loss), Link::new((1, 1 + jitter), loss));
    down.duplicate = duplicate;
    let mut sent: BTreeMap<u32, View> = BTreeMap::new();
    let mut young = YoungLog::default();
    let mut peer_staleness: BTreeMap<u32, BTreeMap<u32, u32>> = BTreeMap::new();
    // Packets sent with a stretched reach by each frame (see `PeerStats::stretched_packets`).
    let mut stretched: BTreeMap<u32, u64> = BTreeMap::new();
    let mut models: BTreeMap<u32, Option<u64>> = BTreeMap::new();
    // The frame each handle's shown values came from.
    let mut shown_since: BTreeMap<u32, u32> = BTreeMap::new();
    let mut buf = vec![0u8; budget];
    let mut accepted = 0;
    for now in 0..120 {
        sim.step(&mut world);
        for id in 0..ENTITIES {
            if now == 0 || rng.chance(0.01) {
                peer.set_visible(id, rng.chance(0.8)).unwrap();
            }
            if rng.chance(0.05) {
                peer.set_priority(id, 1 + rng.below(64) as u16).unwrap();
            }
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        assert!(len <= budget, "{len} bytes over a budget of {budget}");
        let frame = world.frame().unwrap();
        sent.insert(frame, record(schema, &world, &peer));
        young.sent(&peer, frame);
        models.insert(frame, peer.model_digest(frame));
        let ages =
            (0..ENTITIES).filter_map(|id| Some((peer.handle_of(id)?, peer.staleness(frame, id)?)));
        peer_staleness.insert(frame, ages.collect::<BTreeMap<u32, u32>>());
        stretched.insert(frame, peer.stats().stretched_packets);
        down.send(&mut rng, now, &buf[..len]);
        for packet in down.receive(now) {
            match client.decode(&packet) {
                Ok(f) => {
                    accepted += 1;
                    assert_eq!(
                        frame_view(&client),
                        young.decoded(f, &sent[&f]),
                        "frame {f}: frame differs from record"
                    );
                    // What it shows is never older than what the frame holds, nor than what it
                    // showed before: entities do not step back.
                    for event in client.events() {
                        if let Event::Created { handle, .. } | Event::Removed { handle } = event {
                            shown_since.remove(&handle);
                        }
                    }
                    for (h, _, _) in client.frame_view() {
                        let held = peer_staleness[&f].get(&h).copied().unwrap_or(0);
                        let age = client.age(h).unwrap();
                        assert!(age <= held, "frame {f}: {h}");
                        // The client keeps the last 32 frames: values older than that may be
                        // gone, and with them a newer value shown before. So may the frame
                        // that held them when packets stretch their reach (the client then
                        // keeps one frame in two or four).
                        let source = f - age;
                        let before = shown_since.insert(h, source).unwrap_or(0);
                        let window = netschema_runtime::engine::frame::WINDOW;
                        let since = stretched.range(..=f.saturating_sub(window)).next_back();
                        let calm = since.map_or(0, |(_, &n)| n) == stretched[&f];
                        let kept = age < window && calm;
                        assert!(!kept || source >= before, "frame {f}: {h} stepped back");
                    }
                    // A client whose pool is full keeps no models for the frame (its acks
                    // say so); those it keeps are the server's.
                    if let Some(d) = client.model_digest(f) {
                        assert_eq!(Some(d), models[&f], "frame {f}: models differ");
                    }
                    up.send(&mut rng, now, &ack_bytes(client.ack().unwrap()));
                }
                Err(e) => assert!(
                    matches!(e, Error::StalePacket | Error::UnknownBaseline | Error::UnknownModel),
                    "unexpected {e:?}"
                ),
            }
        }
        for ack in up.receive(now) {
            peer.receive_ack(&Ack::read(&ack).unwrap());
        }
    }
    accepted
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn packets_never_exceed_their_budget_and_clients_hold_what_the_server_records(
        seed in any::<u64>(),
        budget in 64usize..1600,
        loss in 0.0f64..0.5,
        duplicate in 0.0f64..0.2,
        jitter in 0u32..3,
        batched in any::<bool>(),
    ) {
        let schema = if batched { &BATCHED_SMALL } else { &SCHEMA };
        replicate(schema, seed, budget, loss, duplicate, jitter);
    }
}

#[test]
fn tiny_budgets_still_make_progress() {
    for budget in [24, 64] {
        for schema in [&SCHEMA, &BATCHED_SMALL] {
            assert!(replicate(schema, 7, budget, 0.1, 0.0, 1) > 50, "budget {budget}");
        }
    }
}

/// A budget that cannot carry a single entity, packet after packet, is refused with a typed
/// error naming the length a packet needed; with that budget the entities enter.
#[test]
fn a_budget_that_carries_nothing_is_refused_with_what_it_needs() {
    const ENTITIES: usize = 40;
    let run = |budget: usize| {
        let (mut world, mut peer, mut client) = session(&SCHEMA, ENTITIES, 64);
        let mut sim = Sim::new(4, ENTITIES);
        for id in 0..ENTITIES {
            peer.set_visible(id, true).unwrap();
        }
        let mut buf = vec![0u8; budget];
        for _ in 0..300 {
            sim.step(&mut world);
            match peer.encode(&world, &mut buf) {
                Ok(len) => {
                    client.decode(&buf[..len]).unwrap();
                    peer.receive_ack(&client.ack().unwrap());
                }
                Err(Error::BudgetTooSmall { budget: b, needed }) => {
                    assert_eq!(b, budget);
                    return Err((needed, client.view().count()));
                }
                Err(e) => panic!("{e:?}"),
            }
        }
        Ok(client.view().count())
    };
    let (needed, held) = run(12).expect_err("a budget of 12 bytes carries no entity");
    println!("a budget of 12 bytes is refused: a packet needed {needed}");
    assert_eq!(held, 0);
    assert!((13..=40).contains(&needed), "{needed}");
    let held = run(needed).expect("the budget the error names carries entities");
    assert!(held > 10, "{held} entities held");
}

const MOVING: &[Predictor] = &[Predictor::Hold, Predictor::Linear];
static DOT: [Field; 2] = [
    Field::numeric("x", 0, 1 << 20, false, MOVING),
    Field::numeric("y", 0, 1 << 20, false, MOVING),
];
static DOTS: [Class; 1] = [Class::new("dot", &DOT)];
static DOT_SCHEMA: Schema = Schema::new("dots", &DOTS);

/// A dot that moves every frame, at its own speed and with noise of up to 8 steps that no
/// predictor can foresee, so that an update costs about as much however long it waited.
fn dot(id: usize, t: u32) -> [i32; 2] {
    let t = t as i32;
    let noise = |salt: i32| {
        let h = (id as i32).wrapping_mul(0x2c1b_3c6d) ^ t.wrapping_mul(0x297a_2d39) ^ salt;
        (h.wrapping_mul(0x5bd1_e995) >> 16).rem_euclid(17) - 8
    };
    [1000 + id as i32 * 100 + t * (1 + id as i32 % 9) + noise(1), 5000 + t * 3 + noise(2)]
}

/// Runs `n` dots for `frames` frames over a lossless link with one frame of latency, packets
/// of `budget` bytes; calls `each(now, world, peer, client, len)` after every packet.
fn dots(
    schema: &'static Schema,
    n: usize,
    budget: usize,
    frames: u32,
    row: impl Fn(usize, u32) -> Vec<i32>,
    mut each: impl FnMut(u32, &World<'_>, &mut Peer<'_>, &Client<'_>, usize),
) {
    let (mut world, mut peer, mut client) = session(schema, n, n);
    for id in 0..n {
        peer.set_visible(id, true).unwrap();
    }
    let mut buf = vec![0u8; budget];
    let mut in_flight: Option<Vec<u8>> = None;
    for now in 0..frames {
        world.begin_frame();
        for id in 0..n {
            world.set(id, 0, &row(id, now)).unwrap();
        }
        if let Some(packet) = in_flight.take() {
            client.decode(&packet).unwrap();
            peer.receive_ack(&client.ack().unwrap());
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        assert!(len <= budget);
        in_flight = Some(buf[..len].to_vec());
        each(now, &world, &mut peer, &client, len);
    }
}

/// The bytes `n` dots take at their fields' raw widths (21 bits each): the size of the world,
/// however well entering dots predict each other.
fn raw_size(n: usize) -> usize {
    n * DOT.len() * 21 / 8
}

/// The mean size of the packets of `n` dots once every dot is held and updated every frame.
fn steady_size(n: usize) -> usize {
    let mut steady = 0;
    let row = |id, t| dot(id, t).to_vec();
    dots(&DOT_SCHEMA, n, 1 << 16, 40, row, |now, _, _, _, len| {
        if now >= 30 {
            steady += len / 10;
        }
    });
    steady
}

#[test]
fn a_world_ten_times_the_budget_converges_from_cold() {
    const N: usize = 500;
    let budget = raw_size(N) / 10;
    let mut whole = None;
    dots(
        &DOT_SCHEMA,
        N,
        budget,
        60,
        |id, t| dot(id, t).to_vec(),
        |now, _, _, client, _| {
            if whole.is_none() && client.view().count() == N {
                whole = Some(now);
            }
        },
    );
    let frames = whole.expect("every dot entered");
    assert!(frames <= 20, "took {frames} frames at {budget} bytes per packet");
}

#[test]
fn a_client_joining_late_converges() {
    const N: usize = 500;
    const JOIN: u32 = 50;
    let schema = &DOT_SCHEMA;
    let budget = raw_size(N) / 10;
    let (mut world, mut peer, mut client) = session(schema, N, N);
    for id in 0..N {
        peer.set_visible(id, true).unwrap();
    }
    let mut buf = vec![0u8; budget];
    let mut whole = None;
    for now in 0..JOIN + 40 {
        world.begin_frame();
        for id in 0..N {
            world.set(id, 0, &dot(id, now)).unwrap();
        }
        // The client connects at JOIN: the world has been running, and its first packet is
        // the first its peer writes.
        if now < JOIN {
            continue;
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        assert!(len <= budget);
        client.decode(&buf[..len]).unwrap();
        peer.receive_ack(&client.ack().unwrap());
        if whole.is_none() && client.view().count() == N {
            whole = Some(now - JOIN);
        }
    }
    let frames = whole.expect("every dot entered");
    assert!(frames <= 20, "took {frames} frames after joining");
}

#[test]
fn every_entity_is_refreshed_in_bounded_time_and_weight_buys_frequency() {
    const N: usize = 400;
    const WARMUP: u32 = 150;
    const FRAMES: u32 = 450;
    // A budget that carries about a tenth of the entities each frame (an update that waited
    // costs about twice one sent every frame).
    let budget = steady_size(N) / 5;
    let mut last = vec![0u32; N];
    let mut sends = vec![0u32; N];
    let mut worst = 0;
    let mut out = [0i32; 2];
    dots(
        &DOT_SCHEMA,
        N,
        budget,
        FRAMES,
        |id, t| dot(id, t).to_vec(),
        |now, world, peer, _, _| {
            if now == 0 {
                for id in 0..N {
                    peer.set_priority(id, if id % 2 == 0 { 32 } else { 16 }).unwrap();
                }
            }
            let frame = world.frame().unwrap();
            for id in 0..N {
                let held = peer.client_view(world, frame, id, &mut out).is_some();
                if held && out[..] == dot(id, now)[..] {
                    if now > WARMUP {
                        worst = worst.max(now - last[id]);
                        sends[id] += 1;
                    }
                    last[id] = now;
                }
            }
        },
    );
    let per_frame = f64::from(sends.iter().sum::<u32>()) / f64::from(FRAMES - WARMUP);
    assert!((30.0..60.0).contains(&per_frame), "{per_frame} of {N} entities sent per frame");
    // Forced once what it would hold is FORCE_AGE frames old, sent within the round trip.
    assert!(worst <= FORCE_AGE + 2, "an entity waited {worst} frames");
    let even: u32 = sends.iter().step_by(2).sum();
    let odd: u32 = sends.iter().skip(1).step_by(2).sum();
    let ratio = f64::from(even) / f64::from(odd);
    assert!((1.6..=2.4).contains(&ratio), "twice the weight was sent {ratio:.2} times as often");
}

static LOOSE: [Field; 2] = [
    Field::numeric("x", 0, 1 << 20, false, MOVING).with_tolerance(3),
    Field::numeric("y", 0, 1 << 20, false, MOVING).with_tolerance(3),
];
static LOOSE_DOTS: [Class; 1] = [Class::new("dot", &LOOSE)];
static LOOSE_SCHEMA: Schema = Schema::new("loose", &LOOSE_DOTS);

/// Total bytes of 200 frames of 64 noisy dots under `schema`, checking that every decoded
/// value is within its field's tolerance of the truth.
fn noisy_dots(schema: &'static Schema) -> usize {
    let noisy = |id: usize, t: u32| {
        let [x, y] = dot(id, t);
        vec![x + ((id as i32 + t as i32 * 5) % 3), y]
    };
    let mut bytes = 0;
    dots(schema, 64, 1 << 16, 200, noisy, |_, _, peer, client, len| {
        bytes += len;
        let Some(f) = client.frame() else { return };
        for (h, _, row) in client.view() {
            let id = (0..64).find(|&id| peer.handle_of(id) == Some(h)).unwrap();
            for (field, (&got, want)) in
                schema.classes[0].fields.iter().zip(row.iter().zip(noisy(id, f)))
            {
                assert!(
                    got.abs_diff(want) <= field.tolerance,
                    "frame {f}: {got} for {want} (tolerance {})",
                    field.tolerance
                );
            }
        }
    });
    bytes
}

#[test]
fn tolerant_fields_stay_within_their_bounds_for_fewer_bytes() {
    let loose = noisy_dots(&LOOSE_SCHEMA);
    let exact = noisy_dots(&DOT_SCHEMA);
    assert!(loose * 10 < exact * 7, "{loose} bytes with tolerance, {exact} without");
}

static GROUPED: [Field; 2] = [
    Field::numeric("x", 0, 1 << 20, false, MOVING),
    Field::numeric("hp", 0, 1 << 20, false, MOVING).in_group(1),
];
static SLOW: [Group; 2] = [Group::DEFAULT, Group { name: "slow", interval: 4, priority: 1 }];
static GROUPED_DOTS: [Class; 1] = [Class::new("dot", &GROUPED).with_groups(&SLOW)];
static GROUPED_SCHEMA: Schema = Schema::new("grouped", &GROUPED_DOTS);

#[test]
fn a_group_with_an_interval_is_sent_at_most_that_often() {
    let row = |id: usize, t: u32| vec![id as i32 * 10 + t as i32 * 2, 100_000 - t as i32 * 3];
    let mut previous: Option<(u32, i32)> = None;
    let mut changes = Vec::new();
    dots(&GROUPED_SCHEMA, 8, 1 << 16, 120, row, |now, _, _, client, _| {
        let Some(t) = client.frame() else { return };
        let (_, _, values) = client.view().next().unwrap();
        assert_eq!(values[0], row(0, t)[0], "position is sent every frame");
        let age = (0..8).find(|&d| t >= d && values[1] == row(0, t - d)[1]);
        assert!(age.is_some_and(|d| d < 4), "hit points {} frames old", age.unwrap_or(99));
        if previous.is_some_and(|(_, hp)| hp != values[1]) {
            changes.push(now);
        }
        previous = Some((now, values[1]));
    });
    assert!(changes.windows(2).all(|w| w[1] - w[0] >= 4), "{changes:?}");
    assert!(changes.len() >= 25);
}

/// A packet that holds everything, against a baseline from before a handle was given another
/// entity, brings the earlier entity back under that handle: the client shows it with its own
/// values, as another entity than the one it replaced (its birth differs, and the events say
/// so), even when it held its handle for longer than an age byte counts.
#[test]
fn a_hold_all_back_past_a_renewal_shows_the_earlier_entity() {
    let (mut world, mut peer, mut client) = session(&DOT_SCHEMA, 2, 1);
    peer.set_visible(0, true).unwrap();
    let mut buf = vec![0u8; 1200];
    let step = |world: &mut World<'_>, t: u32| {
        world.begin_frame();
        for id in 0..2 {
            world.set(id, 0, &dot(id, t)).unwrap();
        }
    };
    // Entity 0 holds the only handle for 300 frames, every packet acknowledged.
    for t in 0..300 {
        step(&mut world, t);
        let len = peer.encode(&world, &mut buf).unwrap();
        client.decode(&buf[..len]).unwrap();
        peer.receive_ack(&client.ack().unwrap());
    }
    let a = world.frame().unwrap();
    let a_born = client.sample(0).unwrap().born;
    // Entity 1 takes the handle; the client decodes it, but its ack is lost.
    step(&mut world, 300);
    peer.set_visible(0, false).unwrap();
    peer.set_visible(1, true).unwrap();
    let len = peer.encode(&world, &mut buf).unwrap();
    let renewed = client.decode(&buf[..len]).unwrap();
    let b_born = client.sample(0).unwrap().born;
    assert_eq!(b_born, renewed, "entity 1 got the handle in its own frame");
    assert_ne!(a_born, b_born);
    // The smallest budget a packet fits: one that holds what the client holds at frame `a`.
    step(&mut world, 301);
    let held = peer.stats().held_packets;
    let len = (1..buf.len())
        .find_map(|budget| match peer.encode(&world, &mut buf[..budget]) {
            Err(Error::BufferFull) => None,
            written => Some(written.unwrap()),
        })
        .unwrap();
    assert_eq!(peer.stats().held_packets, held + 1, "the packet holds everything");
    client.decode(&buf[..len]).unwrap();
    let (_, row) = client.get(0).unwrap();
    assert_eq!(row, world.get(a, 0).unwrap().1, "entity 0's values at frame {a}");
    assert_ne!(client.sample(0).unwrap().born, b_born, "shown as another entity than 1");
    let events: Vec<Event> = client.events().collect();
    assert!(events.contains(&Event::Removed { handle: 0 }), "{events:?}");
    assert!(events.contains(&Event::Created { handle: 0, class: 0 }), "{events:?}");
}

/// An entity a packet brought in stays in the client's view while it stays in the server's:
/// the packets after it, coded against a baseline from before it entered, carry it again
/// before updates that can wait, so a crowd larger than a packet arrives without entities
/// leaving and coming back (which a game would take for a despawn and a new spawn). Only
/// while the first packets, without a baseline, bring in more than one packet can carry
/// again may some leave until a later packet.
#[test]
fn an_entity_brought_in_is_not_taken_away_by_the_next_packets() {
    const ENTITIES: usize = 1000;
    let (mut world, mut peer, mut client) = session(&SCHEMA, ENTITIES, ENTITIES + 50);
    let mut rng = Rng(9);
    let (mut down, mut up) = (Link::new((3, 3), 0.05), Link::new((3, 3), 0.05));
    let mut buf = [0u8; 1200];
    let mut shown: BTreeMap<u32, ()> = BTreeMap::new();
    let mut gone_later = 0;
    for now in 0..200u32 {
        world.begin_frame();
        for id in 0..ENTITIES {
            let (t, i) = (now as i32, id as i32);
            let jitter = rng.below(200) as i32 - 100;
            let row =
                [1000 + i * 50 + t * (i % 7) + jitter, 30_000 + t * 3 + jitter, (i + t) % 1024];
            world.set(id, 0, &[row[0], row[1], row[2], 0, 0]).unwrap();
            if now == 0 {
                peer.set_visible(id, true).unwrap();
            }
        }
        let len = peer.encode(&world, &mut buf).unwrap();
        down.send(&mut rng, now, &buf[..len]);
        for packet in down.receive(now) {
            if client.decode(&packet).is_ok() {
                let view: BTreeMap<u32, ()> =
                    client.frame_view().map(|(h, _, _)| (h, ())).collect();
                let gone = shown.keys().filter(|h| !view.contains_key(h)).count();
                // The first packets with a baseline follow several without: past them, none.
                if now >= 30 {
                    gone_later += gone;
                }
                shown = view;
            }
            if let Some(ack) = client.ack() {
                up.send(&mut rng, now, &ack_bytes(ack));
            }
        }
        for ack in up.receive(now) {
            peer.receive_ack(&Ack::read(&ack).unwrap());
        }
    }
    assert_eq!(shown.len(), ENTITIES, "the whole crowd arrived");
    assert_eq!(gone_later, 0, "entities left the client's view and came back");
}
