//! The UDP example's game loop in one process, over real loopback sockets, every datagram in
//! both directions through the seeded loss shim (dropped, delayed, reordered, duplicated,
//! damaged), on a simulated 60 Hz clock so that the run is quick and reproducible:
//!
//! - every packet a client accepts equals what the server records that client holds at that
//!   frame (`Server::client_view` against `Client::frame_view`), and every ship it shows
//!   equals the recomputed world at the frame its values came from;
//! - every client sends the bot's input each tick, the server plays them (its pilot moves as
//!   they steer it), and every shot the server judges on the world rewound to what that client
//!   showed ([`Server::seen_by`](netschema::owned::Server::seen_by)) hits exactly the ship the
//!   client saw it hit when it fired, which the server's current world would not always give;
//! - a client killed without a word is timed out by the server, and its replacement plays;
//! - a client frozen past its timeout reconnects and plays again, and one frozen within it
//!   catches up on what queued meanwhile;
//! - a client of another schema is refused, and told why;
//! - the server keeps no more connections than live players, and memory stays flat.

#![allow(dead_code)] // The example's modules, of which the test uses most but not all.

#[path = "../examples/udp/bot.rs"]
mod bot;
#[path = "../examples/udp/client.rs"]
mod client;
#[path = "../examples/udp/encode.rs"]
mod encode;
#[path = "../examples/udp/game.rs"]
mod game;
#[path = "../examples/udp/netcode.rs"]
mod netcode;
#[path = "../examples/udp/pilots.rs"]
mod pilots;
#[path = "../examples/udp/player.rs"]
mod player;
#[path = "../examples/udp/server.rs"]
mod server;
#[path = "../examples/udp/shim.rs"]
mod shim;
#[path = "../examples/udp/socket.rs"]
mod socket;
#[path = "../examples/udp/wire.rs"]
mod wire;

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::time::Duration;

use client::GameClient;
use game::Fleet;
use netschema::Protocol;
use netschema::owned::{Client, ClientId};
use server::{Encoding, GameServer};
use shim::{Impairment, Shim};

const STEP: Duration = Duration::from_nanos(1_000_000_000 / 60);
/// Frames of the server's record kept for checking: more than a frozen client lags behind.
const KEPT: u32 = 256;

/// 5 % loss, `delay` ms ± 10 ms, `reorder` of the datagrams overtaken, 3 % duplicated and 3 %
/// damaged.
fn bad_network(delay: u64, reorder: f64) -> Impairment {
    Impairment {
        loss: 0.05,
        delay: Duration::from_millis(delay),
        jitter: Duration::from_millis(10),
        reorder,
        duplicate: 0.03,
        corrupt: 0.03,
    }
}

/// What a client holds of a frame, as a count of entities and the sum of digests of each
/// one's handle, class and values (so that entities can be added in any order).
fn digest<'a>(view: impl Iterator<Item = (u32, usize, &'a [i32])>) -> (usize, u64) {
    view.fold((0, 0), |(count, sum), entity| (count + 1, sum.wrapping_add(entity_digest(entity))))
}

/// The digest of one entity: handle, class and values.
fn entity_digest((handle, class, values): (u32, usize, &[i32])) -> u64 {
    let mut hasher = DefaultHasher::new();
    (handle, class, values).hash(&mut hasher);
    hasher.finish()
}

/// What the server records one client holds at one frame: the [`digest`] of the entities it
/// holds but young ones, and each young one's entry frame and digest.
type Record = ((usize, u64), Vec<(u32, u64)>);

/// A server of `ships` ships, its clients by slot (`None` once killed), the server's record of
/// what each player holds at each recent frame, how many packets each slot had checked, and
/// how many shots were checked against what their client showed and how many of them the
/// server's current world would have judged otherwise.
struct Harness {
    ships: u16,
    network: Impairment,
    server: GameServer,
    clients: Vec<Option<GameClient>>,
    records: HashMap<(ClientId, u32), Record>,
    checked: Vec<u64>,
    /// The frames each slot's client decoded.
    decoded: Vec<BTreeSet<u32>>,
    shots: u64,
    agreed: u64,
    rewound: u64,
}

impl Harness {
    fn new(ships: u16, network: Impairment) -> Self {
        let config = server::Config {
            addr: "127.0.0.1:0".parse().unwrap(),
            key: netcode::DEMO_KEY,
            seed: 7,
            ships,
            players: 8,
            encoding: Encoding::Alternate(2),
            shim: Some(Shim::new(network, 99)),
        };
        let server = GameServer::bind(config, Duration::ZERO).unwrap();
        Harness {
            ships,
            network,
            server,
            clients: Vec::new(),
            records: HashMap::new(),
            checked: Vec::new(),
            decoded: Vec::new(),
            shots: 0,
            agreed: 0,
            rewound: 0,
        }
    }

    /// Adds a client in a new slot: netcode id `id`, timing out after `timeout` seconds, its
    /// clock at `now`.
    fn add(&mut self, id: u64, next_version: bool, timeout: i32, now: Duration) {
        let config = client::Config {
            server: self.server.addr(),
            key: netcode::DEMO_KEY,
            id,
            timeout,
            next_version,
            shim: Some(Shim::new(self.network, id)),
        };
        self.clients.push(Some(GameClient::connect(config, now).unwrap()));
        self.checked.push(0);
        self.decoded.push(BTreeSet::new());
    }

    fn stats(&self, slot: usize) -> client::Stats {
        self.clients[slot].as_ref().unwrap().stats()
    }

    /// One frame at `now`: the server's, its record and its shots, then every client not
    /// `frozen`, each packet it accepts checked against the record.
    fn step(&mut self, now: Duration, frozen: impl Fn(usize) -> bool) {
        self.server.tick(now).unwrap();
        self.record();
        let players: HashMap<u64, ClientId> = self.server.players().collect();
        self.check_shots(&players);
        for (slot, c) in self.clients.iter_mut().enumerate() {
            let Some(c) = c.as_mut().filter(|_| !frozen(slot)) else { continue };
            let (id, records, checked) = (c.id(), &self.records, &mut self.checked[slot]);
            let decoded = &mut self.decoded[slot];
            c.tick(now, |client: &Client<game::Fleet>| {
                let frame = client.frame().unwrap();
                let who = players[&id];
                let ((count, sum), young) = records.get(&(who, frame)).unwrap_or_else(|| {
                    panic!("{who} decoded frame {frame}, which the server has no record of")
                });
                // A young entity whose entry the client did not decode is not in the frame.
                let held = young.iter().filter(|(entry, _)| decoded.contains(entry));
                let want = held.fold((*count, *sum), |(n, s), (_, d)| (n + 1, s.wrapping_add(*d)));
                assert_eq!(digest(client.frame_view()), want, "{who}, frame {frame}");
                decoded.insert(frame);
                decoded.retain(|&f| frame.wrapping_sub(f) < 256);
                *checked += 1;
            });
        }
    }

    /// Checks each shot the server judged against what its client showed when it fired, and
    /// counts those the server judged as the client did: the same ship hit, or none.
    fn check_shots(&mut self, players: &HashMap<u64, ClientId>) {
        for shot in self.server.take_shots() {
            let client =
                self.clients.iter().flatten().find(|c| players.get(&c.id()) == Some(&shot.client));
            let Some(client) = client else { continue };
            self.shots += 1;
            self.agreed += u64::from(client.shot(shot.tick) == Some(shot.hit));
            self.rewound += u64::from(shot.hit != shot.hit_now);
        }
    }

    /// Records what the server says each player holds at the current frame.
    fn record(&mut self) {
        let frame = self.server.netschema.frame().unwrap();
        let players: Vec<ClientId> = self.server.players().map(|(_, c)| c).collect();
        let mut row = [0; 4];
        for who in players {
            let (mut held, mut young) = ((0, 0u64), Vec::new());
            let pilots = pilots::FIRST..pilots::FIRST + self.server.events.joined;
            for id in (0..u64::from(self.ships)).chain(pilots) {
                let view = self.server.netschema.client_view(who, id, &mut row);
                if let Ok(Some((handle, class))) = view {
                    let fields = Fleet::SCHEMA.classes[class].fields.len();
                    let d = entity_digest((handle, class, &row[..fields]));
                    match self.server.netschema.young_entry(who, id) {
                        Ok(Some(entry)) => young.push((entry, d)),
                        _ => held = (held.0 + 1, held.1.wrapping_add(d)),
                    }
                }
            }
            self.records.insert((who, frame), (held, young));
        }
        self.records.retain(|&(_, f), _| f + KEPT > frame);
    }

    /// Asserts that the client in `slot` checked at least `packets` packets against the
    /// record, decoded and verified every one it accepted, refused none but stale ones, saw
    /// some loss but not much, sent an input for about every tick and saw its own pilot move.
    fn assert_played(&self, slot: usize, packets: u64) {
        let s = self.stats(slot);
        println!("slot {slot}: {} packets checked against the record, {s:?}", self.checked[slot]);
        assert!(self.checked[slot] >= packets, "slot {slot}: {} checked", self.checked[slot]);
        assert_eq!(s.verified, s.decoded, "slot {slot}: {s:?}");
        assert_eq!((s.wrong, s.refused), (0, 0), "slot {slot}: {s:?}");
        assert!(s.loss() > 0.0 && s.loss() < 0.25, "slot {slot}: loss {}", s.loss());
        let played = s.played;
        assert!(played.inputs >= packets && played.moves >= packets / 2, "slot {slot}: {s:?}");
    }

    /// Asserts that the server applied its players' own inputs to most of its frames, repeated
    /// the last one for the others (a frozen or killed client's among them), and judged at least `shots` shots on rewound views, some of which its
    /// current world would have judged otherwise; returns the shots judged as their client
    /// did, and those judged.
    fn assert_inputs(&self, shots: u64) -> (u64, u64) {
        let i = self.server.events.inputs;
        println!(
            "{i:?}; {} shots checked, {} judged as the client did, {} otherwise without rewind",
            self.shots, self.agreed, self.rewound
        );
        assert!(i.applied > 2 * i.repeated && i.repeated > 0, "{i:?}");
        assert!(i.shots >= shots && i.hits > 0, "{i:?}");
        assert!(self.shots >= shots && self.rewound > 0, "{} shots", self.shots);
        (self.agreed, self.shots)
    }
}

fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn the_udp_loop_survives_a_bad_network() {
    let mut h = Harness::new(300, bad_network(30, 0.05));
    // Slots: 0 is killed at 3 s and replaced by slot 4; 1 freezes from 3 s to 5 s, past its
    // 1 s timeout; 2 plays throughout; 3 speaks another schema.
    for (id, next_version) in [(100, false), (200, false), (300, false), (500, true)] {
        h.add(id, next_version, 1, Duration::ZERO);
    }
    let (mut before_freeze, mut rss) = (None, None);
    for step in 0..8 * 60 {
        let now = STEP * step;
        if step == 2 * 60 {
            rss = resident_kib();
        }
        if step == 3 * 60 {
            h.clients[0] = None;
            h.add(400, false, 1, now);
            before_freeze = Some(h.stats(1));
        }
        h.step(now, |slot| slot == 1 && (3 * 60..5 * 60).contains(&step));
    }

    for slot in [1, 2, 4] {
        h.assert_played(slot, 120);
    }
    assert_eq!((h.stats(2).reconnects, h.stats(4).reconnects), (0, 0));
    // Packets carry every change here: the rewound view is exactly what the client showed.
    let (agreed, shots) = h.assert_inputs(20);
    assert_eq!(agreed, shots);
    // The frozen client timed out, reconnected and played on.
    let (before, after) = (before_freeze.unwrap(), h.stats(1));
    assert_eq!(after.reconnects, 1, "{after:?}");
    assert!(after.verified >= before.verified + 60, "{before:?} then {after:?}");
    // Refused, with the reason.
    let refusal = h.clients[3].as_ref().unwrap().stopped().unwrap_or("not refused");
    assert!(refusal.contains("different schema"), "{refusal}");
    assert_eq!(h.stats(3).decoded, 0);
    // Joined: 3 at first, the replacement and the reconnection; left: the killed client and
    // the frozen one's first connection; refused: the other schema, once per hello it sent.
    let events = h.server.events;
    assert_eq!((events.joined, events.left, events.unwritten), (5, 2, 0), "{events:?}");
    assert!(events.refused >= 1, "{events:?}");
    // Bounded: a connection per live player only, and memory flat once warm.
    assert_eq!(h.server.players().count(), 3);
    assert_eq!(h.server.netschema.clients().count(), 3);
    if let (Some(warm), Some(end)) = (rss, resident_kib()) {
        assert!(end < warm + 16 * 1024, "resident memory grew from {warm} KiB to {end} KiB");
    }
}

/// A client frozen for 2.5 s, within its timeout, reads the packets queued meanwhile (coded
/// against frames long gone: the server has started over from scratch by then) and plays on.
/// With a fleet bigger than a packet, ships wait and their lags grow; this caught a client
/// that kept stale lags for a packet decoded without a baseline, and so showed a wrong age
/// and later refused honest packets.
#[test]
fn a_client_frozen_within_its_timeout_catches_up() {
    let mut h = Harness::new(1000, bad_network(50, 0.1));
    h.add(100, false, 5, Duration::ZERO);
    h.add(200, false, 5, Duration::ZERO);
    let mut before_freeze = None;
    for step in 0..8 * 60 {
        if step == 3 * 60 {
            before_freeze = Some(h.stats(1));
        }
        h.step(STEP * step, |slot| slot == 1 && (3 * 60..3 * 60 + 150).contains(&step));
    }
    h.assert_played(0, 300);
    h.assert_played(1, 200);
    // A fleet bigger than a packet: ships wait, and the rewound view is what the client showed
    // only where the ships shown were sent in the frames their values came from, so shots are
    // counted here but not all judged as the client did. The bot fires only when a ship it
    // shows is in range and in its sights: a handful of shots in this run (3 with this seed,
    // 8 before young entities changed which ships each packet carries).
    h.assert_inputs(2);
    assert_eq!(h.server.events.unwritten, 0);
    let (before, after) = (before_freeze.unwrap(), h.stats(1));
    assert_eq!(after.reconnects, 0, "{after:?}");
    assert!(after.verified >= before.verified + 60, "{before:?} then {after:?}");
}
