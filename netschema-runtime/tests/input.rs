//! The input stream from client to server: redundancy under loss, duplication and reordering,
//! refusal of bad datagrams, and the target delay under jitter.

mod support;

use netschema_runtime::engine::input::{
    InputAck, InputReceiver, InputSender, InputStorage, PACKETS, Source,
};
use netschema_runtime::model::Model;
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::{Class, Field, Schema};
use netschema_runtime::{AckOutcome, Error};
use proptest::prelude::*;
use std::collections::BTreeMap;
use support::Rng;

const STICK: &[Predictor] = &[Predictor::Hold, Predictor::Linear];
static FIELDS: [Field; 4] = [
    Field::numeric("dir.x", -127, 127, false, STICK),
    Field::numeric("dir.y", -127, 127, false, STICK),
    Field::numeric("yaw", 0, 65_535, true, STICK),
    Field::categorical("fire", 2),
];
static CLASSES: [Class; 1] = [Class::new("Move", &FIELDS)];
static MOVE: Schema = Schema::new("Move", &CLASSES);

/// A player turning, strafing and firing: the input of `tick`.
fn script(tick: u32) -> [i32; 4] {
    let phase = tick / 40;
    let strafe = [0, 127, 0, -127, 90][phase as usize % 5];
    let forward = if phase.is_multiple_of(3) { 0 } else { 127 };
    let turn = [0i64, 120, 120, -300, 0, 40][(tick / 25) as usize % 6];
    let yaw = (i64::from(tick) * turn + 7 * i64::from(tick % 3)).rem_euclid(65_536) as i32;
    let fire = i32::from(tick % 50 < 8);
    [strafe, forward, yaw, fire]
}

/// Storage for one end, for the length of the test.
fn storage(schema: &Schema) -> InputStorage<'static> {
    let (models, words) = InputStorage::sizes(schema);
    InputStorage {
        models: Vec::leak(vec![Model::default(); models]),
        stored: Vec::leak(vec![0u16; words]),
    }
}

fn ends(session: u64) -> (InputSender<'static>, InputReceiver<'static>) {
    let mut sender = InputSender::new(&MOVE, storage(&MOVE)).unwrap();
    let mut receiver = InputReceiver::new(&MOVE, storage(&MOVE)).unwrap();
    sender.set_session(session);
    receiver.set_session(session);
    (sender, receiver)
}

/// Whether an event of `percent` in a hundred happens.
fn chance(rng: &mut Rng, percent: u64) -> bool {
    rng.next() % 100 < percent
}

#[test]
fn a_clean_link_hands_out_every_input_once_in_order() {
    let (mut sender, mut receiver) = ends(3);
    let mut buf = [0u8; 512];
    for tick in 100..400 {
        sender.push(tick, &script(tick)).unwrap();
        let len = sender.encode(&mut buf).unwrap();
        assert_eq!(receiver.receive(&buf[..len]), Ok(1), "tick {tick}");
        let ack = receiver.ack().unwrap();
        assert_eq!(sender.receive_ack(&ack), AckOutcome::Accepted);
        let taken = receiver.take(tick);
        assert_eq!((taken.source, taken.values()), (Source::Received, &script(tick)[..]));
    }
    assert_eq!(sender.stats().cold, 1);
    assert_eq!(sender.encode(&mut buf), Ok(0), "everything acknowledged: nothing to send");
    assert_eq!(sender.push(399, &script(399)), Err(Error::InputTick { tick: 399, newest: 399 }));
    assert_eq!(
        sender.push(400, &[0; 3]),
        Err(Error::RowLength { class: 0, expected: 4, actual: 3 })
    );
    assert_eq!(sender.push(400, &[0, 0, 0, 2]), Err(Error::OutOfRange));
}

/// What one simulated session saw.
struct Run {
    /// Per input tick: whether a copy of a datagram carrying it arrived before it was taken.
    deliverable: BTreeMap<u32, bool>,
    /// Per input tick: what its take got.
    taken: BTreeMap<u32, (Source, Vec<i32>)>,
}

/// Inputs over a link losing `loss` % of datagrams and acks, duplicating `dup` %, delaying
/// each by up to `jitter` ticks (so reordering them); the server takes tick `t` at tick
/// `t + delay`. Every honest datagram decodes (a duplicate copy is `StalePacket`), every ack
/// is accepted or stale.
fn run(seed: u64, ticks: u32, (loss, dup, jitter): (u64, u64, u64), delay: u32) -> Run {
    let mut rng = Rng(seed);
    let (mut sender, mut receiver) = ends(seed);
    let mut buf = [0u8; 1024];
    // Datagrams and acks in flight, by arrival tick: (datagram id, bytes).
    let mut to_server: BTreeMap<u32, Vec<(usize, Vec<u8>)>> = BTreeMap::new();
    let mut to_client: BTreeMap<u32, Vec<InputAck>> = BTreeMap::new();
    let mut carried: Vec<(u32, u32)> = Vec::new();
    let mut delivered = vec![false; 0];
    let mut run = Run { deliverable: BTreeMap::new(), taken: BTreeMap::new() };
    let mut arrivals: BTreeMap<u32, u32> = BTreeMap::new(); // input tick -> first arrival
    for now in 0..ticks + delay + jitter as u32 + 2 {
        if now < ticks {
            sender.push(now, &script(now)).unwrap();
            let len = sender.encode(&mut buf).unwrap();
            assert!(len > 0);
            let id = carried.len();
            carried.push(sender.last_carried().unwrap());
            delivered.push(false);
            let copies = if chance(&mut rng, dup) { 2 } else { 1 };
            for _ in 0..copies {
                if !chance(&mut rng, loss) {
                    let at = now + rng.below(jitter + 1) as u32;
                    to_server.entry(at).or_default().push((id, buf[..len].to_vec()));
                }
            }
        }
        for (id, bytes) in to_server.remove(&now).unwrap_or_default() {
            let result = receiver.receive(&bytes);
            if delivered[id] {
                assert_eq!(result, Err(Error::StalePacket), "a copy of datagram {id}");
                continue;
            }
            assert!(result.is_ok(), "datagram {id} refused: {result:?}");
            delivered[id] = true;
            let (first, last) = carried[id];
            for tick in first..=last {
                arrivals.entry(tick).or_insert(now);
            }
            if let Some(ack) = receiver.ack()
                && !chance(&mut rng, loss)
            {
                to_client.entry(now + rng.below(jitter + 1) as u32).or_default().push(ack);
            }
        }
        for ack in to_client.remove(&now).unwrap_or_default() {
            let outcome = sender.receive_ack(&ack);
            assert!(matches!(outcome, AckOutcome::Accepted | AckOutcome::Stale), "{outcome:?}");
        }
        if let Some(tick) = now.checked_sub(delay).filter(|&t| t < ticks) {
            let taken = receiver.take(tick);
            run.taken.insert(tick, (taken.source, taken.values().to_vec()));
            run.deliverable.insert(tick, arrivals.get(&tick).is_some_and(|&at| at <= now));
        }
    }
    run
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Under 20 % loss with duplication and reordering an input is missing only when every
    /// datagram that carried it was lost (or came after its tick was taken), and each is
    /// handed out once, in tick order, as pushed.
    #[test]
    fn inputs_survive_loss_duplication_and_reordering(seed in any::<u64>(), jitter in 0u64..4) {
        let run = run(seed, 300, (20, 15, jitter), 6);
        let mut last_applied = None;
        for (&tick, (source, values)) in &run.taken {
            prop_assert_eq!(*source == Source::Received, run.deliverable[&tick], "tick {}", tick);
            if *source == Source::Received {
                prop_assert_eq!(&values[..], &script(tick)[..]);
                prop_assert!(last_applied < Some(tick));
                last_applied = Some(tick);
            }
        }
    }
}

#[test]
fn redundancy_leaves_few_inputs_missing_at_twenty_percent_loss() {
    let run = run(11, 2000, (20, 10, 2), 6);
    let missing = run.taken.values().filter(|(s, _)| *s != Source::Received).count();
    // An input is missing only if every datagram from its tick to the server's take was
    // lost: 0.2^6 of them at most.
    assert!(missing <= 2, "{missing} of 2000 inputs missing");
}

/// Bad datagrams are refused with typed errors and change nothing: the next honest datagram
/// decodes, the ack and the buffer are as before.
#[test]
fn malformed_truncated_and_foreign_datagrams_change_nothing() {
    let (mut sender, mut receiver) = ends(7);
    let mut buf = [0u8; 512];
    for tick in 0..40 {
        sender.push(tick, &script(tick)).unwrap();
        let len = sender.encode(&mut buf).unwrap();
        receiver.receive(&buf[..len]).unwrap();
        if tick % 4 == 0 {
            sender.receive_ack(&receiver.ack().unwrap());
        }
    }
    sender.push(40, &script(40)).unwrap();
    let len = sender.encode(&mut buf).unwrap();
    let honest = buf[..len].to_vec();
    let before = (receiver.ack(), receiver.stats().buffer);
    let mut bad: Vec<Vec<u8>> = vec![Vec::new(), vec![0], vec![0xff; 3], honest.repeat(2)];
    bad.extend((0..honest.len()).map(|n| honest[..n].to_vec()));
    for extra in [0u8, 1, 0x80] {
        bad.push([&honest[..], &[extra]].concat());
    }
    for bit in 0..honest.len() * 8 {
        let mut flipped = honest.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        bad.push(flipped);
    }
    let mut rng = Rng(5);
    bad.extend((0..2000).map(|i| (0..1 + i % 40).map(|_| rng.next() as u8).collect()));
    // Another session's datagram, and one of another input schema.
    let (mut foreign, _) = ends(8);
    foreign.push(40, &script(40)).unwrap();
    let n = foreign.encode(&mut buf).unwrap();
    bad.push(buf[..n].to_vec());
    for datagram in &bad {
        let result = receiver.receive(datagram);
        assert!(
            matches!(
                result,
                Err(Error::Corrupt
                    | Error::CheckMismatch
                    | Error::UnknownBaseline
                    | Error::StalePacket)
            ),
            "{datagram:?}: {result:?}"
        );
        assert_eq!((receiver.ack(), receiver.stats().buffer), before);
    }
    assert_eq!(receiver.stats().refused, bad.len() as u32);
    assert_eq!(receiver.receive(&honest), Ok(1));

    static OTHER_FIELDS: [Field; 4] = [
        Field::numeric("dir.x", -127, 127, false, STICK),
        Field::numeric("dir.y", -127, 127, false, STICK),
        Field::numeric("yaw", 0, 65_535, true, STICK),
        Field::categorical("jump", 2),
    ];
    static OTHER_CLASSES: [Class; 1] = [Class::new("Move", &OTHER_FIELDS)];
    static OTHER: Schema = Schema::new("Move", &OTHER_CLASSES);
    let mut other = InputReceiver::new(&OTHER, storage(&OTHER)).unwrap();
    other.set_session(8);
    assert_eq!(other.receive(&buf[..n]), Err(Error::CheckMismatch));
}

#[test]
fn forged_acks_are_refused_and_change_nothing() {
    let (mut sender, mut receiver) = ends(9);
    let mut buf = [0u8; 512];
    let mut sizes = Vec::new();
    for tick in 0..10 {
        sender.push(tick, &script(tick)).unwrap();
        let len = sender.encode(&mut buf).unwrap();
        receiver.receive(&buf[..len]).unwrap();
        sizes.push(len);
    }
    let ack = receiver.ack().unwrap();
    let forged = InputAck { proof: ack.proof ^ 1, ..ack };
    assert_eq!(sender.receive_ack(&forged), AckOutcome::Refused);
    let ahead = InputAck { latest: ack.latest + 1, ..ack };
    assert_eq!(sender.receive_ack(&ahead), AckOutcome::Refused);
    assert_eq!(sender.stats().refused_acks, 2);
    assert_eq!(sender.stats().cold, 10, "no ack accepted: every datagram from scratch");
    assert_eq!(sender.receive_ack(&ack), AckOutcome::Accepted);
    assert_eq!(sender.receive_ack(&ack), AckOutcome::Accepted, "idempotent");
    let mut bytes = [0u8; InputAck::LEN];
    ack.write(&mut bytes).unwrap();
    assert_eq!(InputAck::read(&bytes), Ok(ack));
}

/// A round trip longer than the datagrams each end keeps: datagrams go out without a base,
/// and are still decoded.
#[test]
fn acks_older_than_the_kept_datagrams_fall_back_to_cold_datagrams() {
    let (mut sender, mut receiver) = ends(1);
    let mut buf = [0u8; 1024];
    let mut acks = std::collections::VecDeque::new();
    let lag = PACKETS + 4;
    for tick in 0..200u32 {
        sender.push(tick, &script(tick)).unwrap();
        let len = sender.encode(&mut buf).unwrap();
        assert!(receiver.receive(&buf[..len]).is_ok(), "tick {tick}");
        acks.push_back(receiver.ack().unwrap());
        if acks.len() > lag {
            sender.receive_ack(&acks.pop_front().unwrap());
        }
        assert_eq!(receiver.take(tick).source, Source::Received);
    }
    assert_eq!(sender.stats().cold, 200);
}

/// Datagrams sent every tick of a 60 Hz client, each delayed 50 ± 20 ms (spread evenly, so
/// reordered), and acks likewise: the target delay settles, and the receiver then takes
/// nearly every input on time without adjusting.
#[test]
fn the_target_delay_follows_jitter() {
    const TICK_US: u64 = 16_667;
    let (mut sender, mut receiver) = ends(4);
    let mut rng = Rng(99);
    let mut buf = [0u8; 1024];
    let mut to_server: BTreeMap<u64, Vec<Vec<u8>>> = BTreeMap::new();
    let mut to_client: BTreeMap<u64, Vec<InputAck>> = BTreeMap::new();
    let (ticks, settle) = (3600u32, 600u32);
    let mut targets = Vec::new();
    let mut settled = None;
    let mut late_inputs = 0;
    for tick in 0..ticks {
        let now = u64::from(tick) * TICK_US;
        sender.push(tick, &script(tick)).unwrap();
        let len = sender.encode(&mut buf).unwrap();
        let delay = 30_000 + rng.below(40_001);
        to_server.entry(now + delay).or_default().push(buf[..len].to_vec());
        let due: Vec<u64> = to_server.range(..=now).map(|(&t, _)| t).collect();
        for t in due {
            for datagram in to_server.remove(&t).unwrap() {
                let _ = receiver.receive(&datagram);
                let ack = receiver.ack().unwrap();
                to_client.entry(now + 30_000 + rng.below(40_001)).or_default().push(ack);
            }
        }
        let due: Vec<u64> = to_client.range(..=now).map(|(&t, _)| t).collect();
        for t in due {
            for ack in to_client.remove(&t).unwrap() {
                sender.receive_ack(&ack);
            }
        }
        let Some(taken) = receiver.take_next() else { continue };
        let stats = receiver.stats();
        targets.push(stats.playout.target);
        if tick == settle {
            settled = Some(stats);
        }
        if tick > settle && taken.source != Source::Received {
            late_inputs += 1;
        }
    }
    let (settled, end) = (settled.unwrap(), receiver.stats());
    let after = &targets[targets.len() - (ticks - settle) as usize..];
    let changes = after.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(changes <= 4 && after.iter().all(|t| (3..=5).contains(t)), "{changes} changes");
    assert!((3..=6).contains(&end.playout.target), "{end:?}");
    // 40 ms of spread is 2.4 ticks: the jitter (RFC 3550's) is about a third of it.
    assert!((8..=24).contains(&end.playout.jitter), "{end:?}");
    let adjustments =
        |s: &netschema_runtime::engine::input::InputStats| s.playout.skips + s.playout.stalls;
    assert!(adjustments(&end) - adjustments(&settled) <= 6, "{settled:?} {end:?}");
    assert!(late_inputs * 100 <= ticks - settle, "{late_inputs} inputs not on time");
    assert!(end.playout.error().abs() <= 16, "{end:?}");
}
