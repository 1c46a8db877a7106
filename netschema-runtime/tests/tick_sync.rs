//! Tick synchronisation on simulated clocks: a 60 Hz client and server, datagrams each way
//! delayed 50 ± 20 ms (so reordered), the server's clock on time or drifting by 1 %. The
//! server takes each client's input of its own tick; the client runs the input tick
//! [`TickSync`] gives it.

mod support;

use netschema_runtime::engine::input::{
    Arrival, InputAck, InputReceiver, InputSender, InputStorage, Source, SyncStats, TickSync,
    Timing,
};
use netschema_runtime::model::Model;
use netschema_runtime::schema::{Class, Field, Schema};
use std::collections::BTreeMap;
use support::Rng;

static FIELDS: [Field; 2] = [Field::categorical("fire", 2), Field::categorical("jump", 2)];
static CLASSES: [Class; 1] = [Class::new("Buttons", &FIELDS)];
static BUTTONS: Schema = Schema::new("Buttons", &CLASSES);

/// The client's tick, in microseconds of its clock.
const TICK_US: u64 = 16_667;

fn storage() -> InputStorage<'static> {
    let (models, words) = InputStorage::sizes(&BUTTONS);
    InputStorage {
        models: Vec::leak(vec![Model::default(); models]),
        stored: Vec::leak(vec![0u16; words]),
    }
}

/// A one-way delay of 50 ± 20 ms, spread evenly.
fn delay(rng: &mut Rng) -> u64 {
    30_000 + rng.next() % 40_001
}

enum Event {
    ClientTick,
    ServerTick,
    ToServer(Vec<u8>),
    ToClient(Timing, Option<InputAck>),
}

/// What a run measured after it settled.
#[derive(Debug, Default)]
struct Measured {
    /// Largest |server tick estimate − the server's tick| at a client tick.
    tick_error: i64,
    /// Largest |lead − target| of the receiver, in sixteenths of a tick, at a server tick.
    lead_error: i32,
    /// The sum of lead − target at each server tick.
    lead_sum: i64,
    /// Server ticks taken, and of those, ticks whose input had not arrived.
    taken: u32,
    missing: u32,
    /// The client's synchronisation at the end of the settling time and at the end.
    settled: SyncStats,
    end: SyncStats,
}

/// `seconds` of play; the server's tick lasts `server_tick_us` of the client's
/// microseconds and starts `phase_us` into the client's clock. Measures after `settle`
/// seconds.
fn run(seed: u64, server_tick_us: u64, phase_us: u64, seconds: u64, settle: u64) -> Measured {
    let mut rng = Rng(seed);
    let mut sender = InputSender::new(&BUTTONS, storage()).unwrap();
    let mut receiver = InputReceiver::new(&BUTTONS, storage()).unwrap();
    let mut sync = TickSync::new(TICK_US as u32);
    let mut events: BTreeMap<(u64, u64), Event> = BTreeMap::new();
    let mut order = 0;
    let mut at = |events: &mut BTreeMap<(u64, u64), Event>, time: u64, e: Event| {
        order += 1;
        events.insert((time, order), e);
    };
    at(&mut events, 0, Event::ClientTick);
    at(&mut events, phase_us, Event::ServerTick);
    let (end, settle) = (seconds * 1_000_000, settle * 1_000_000);
    let mut server_frame: Option<u32> = None;
    let mut arrived_at = 0;
    let mut pushed: Option<u32> = None;
    let mut buf = [0u8; 512];
    let mut measured = Measured::default();
    while let Some(((now, _), event)) = events.pop_first() {
        if now > end {
            break;
        }
        match event {
            Event::ClientTick => {
                at(&mut events, now + TICK_US, Event::ClientTick);
                if let (Some(estimate), Some(frame)) = (sync.server_tick(now), server_frame)
                    && now > settle
                {
                    let error = (i64::from(estimate) - i64::from(frame)).abs();
                    measured.tick_error = measured.tick_error.max(error);
                }
                let Some(tick) = sync.input_tick(now) else { continue };
                if pushed.is_some_and(|p| p >= tick) {
                    continue;
                }
                for t in pushed.map_or(tick, |p| p + 1)..=tick {
                    sender.push(t, &[(t % 7 == 0) as i32, (t % 11 == 0) as i32]).unwrap();
                }
                pushed = Some(tick);
                let len = sender.encode(&mut buf).unwrap();
                if len > 0 {
                    sync.sent(tick, now);
                    at(&mut events, now + delay(&mut rng), Event::ToServer(buf[..len].to_vec()));
                }
            }
            Event::ServerTick => {
                at(&mut events, now + server_tick_us, Event::ServerTick);
                let frame = server_frame.map_or(1000, |f| f + 1);
                server_frame = Some(frame);
                let taken = receiver.take(frame);
                let playout = receiver.stats().playout;
                if now > settle {
                    measured.taken += 1;
                    measured.missing += u32::from(taken.source != Source::Received);
                    measured.lead_error = measured.lead_error.max(playout.error().abs());
                    measured.lead_sum += i64::from(playout.error());
                }
                let arrival = receiver.newest_tick().map(|newest| Arrival {
                    newest,
                    at: arrived_at,
                    target: playout.target,
                    error: playout.error(),
                });
                let timing = Timing { frame, arrival };
                at(&mut events, now + delay(&mut rng), Event::ToClient(timing, receiver.ack()));
            }
            Event::ToServer(datagram) => {
                let newest = receiver.newest_tick();
                let _ = receiver.receive(&datagram);
                if receiver.newest_tick() != newest {
                    arrived_at = server_frame.unwrap_or(0);
                }
            }
            Event::ToClient(timing, ack) => {
                sync.received(&timing, now);
                if let Some(ack) = ack {
                    sender.receive_ack(&ack);
                }
            }
        }
        if now <= settle {
            measured.settled = sync.stats();
        }
    }
    measured.end = sync.stats();
    measured
}

fn adjustments(s: &SyncStats) -> u32 {
    s.forward + s.back
}

#[test]
fn converges_within_a_tick_under_jitter() {
    for (seed, phase) in [(1, 0), (2, 5_000), (3, 11_111), (4, 16_000)] {
        let m = run(seed, TICK_US, phase, 60, 10);
        assert!(m.tick_error <= 1, "seed {seed}: {m:?}");
        assert!(m.lead_error <= 16, "seed {seed}: {m:?}");
        assert!(m.missing * 200 <= m.taken, "seed {seed}: {m:?}");
        // Rare: at most one in five seconds.
        assert!(adjustments(&m.end) - adjustments(&m.settled) <= 10, "seed {seed}: {m:?}");
        // 50 ms each way and the server's wait for its next state (the newest input is
        // often one that came fast).
        assert!((90_000..=115_000).contains(&m.end.rtt_us), "seed {seed}: {m:?}");
    }
}

#[test]
fn follows_a_server_clock_that_drifts_one_percent() {
    // The server's ticks 1 % shorter, then 1 % longer, than the client's.
    for (seed, server_tick) in [(5, TICK_US * 100 / 101), (6, TICK_US * 101 / 100)] {
        let m = run(seed, server_tick, 3_000, 60, 10);
        assert!(m.tick_error <= 1, "seed {seed}: {m:?}");
        assert!(m.lead_error <= 16, "seed {seed}: {m:?}");
        assert!(m.missing * 100 <= m.taken, "seed {seed}: {m:?}");
        // 50 s at 1 % is 30 ticks of drift: about one half-tick adjustment per 50 ticks,
        // all one way.
        let (forward, back) = (m.end.forward - m.settled.forward, m.end.back - m.settled.back);
        let (along, against) =
            if server_tick < TICK_US { (forward, back) } else { (back, forward) };
        assert!((40..=90).contains(&along) && against <= 5, "seed {seed}: {m:?}");
    }
}
