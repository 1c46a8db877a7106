//! The UDP example's game loop in one process, over real loopback sockets, every datagram in
//! both directions through the seeded loss shim (dropped, delayed, reordered, duplicated,
//! damaged), on a simulated 60 Hz clock so that the run is quick and reproducible:
//!
//! - every packet a client accepts equals what the server records that client holds at that
//!   frame (`Server::client_view` against `Client::frame_view`), and every ship it shows
//!   equals the recomputed world at the frame its values came from;
//! - a client killed without a word is timed out by the server, and its replacement plays;
//! - a client frozen past its timeout reconnects and plays again;
//! - a client of another schema is refused, and told why;
//! - the server keeps no more connections than live players, and memory stays flat.

#![allow(dead_code)] // The example's modules, of which the test uses most but not all.

#[path = "../examples/udp/client.rs"]
mod client;
#[path = "../examples/udp/encode.rs"]
mod encode;
#[path = "../examples/udp/game.rs"]
mod game;
#[path = "../examples/udp/netcode.rs"]
mod netcode;
#[path = "../examples/udp/server.rs"]
mod server;
#[path = "../examples/udp/shim.rs"]
mod shim;
#[path = "../examples/udp/socket.rs"]
mod socket;
#[path = "../examples/udp/wire.rs"]
mod wire;

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::time::Duration;

use client::GameClient;
use netschema::owned::{Client, ClientId};
use server::{Encoding, GameServer};
use shim::{Impairment, Shim};

const SHIPS: u16 = 300;
const STEP: Duration = Duration::from_nanos(1_000_000_000 / 60);
const STEPS: u32 = 8 * 60;
/// Frames of the server's record kept for checking.
const KEPT: u32 = 64;

fn bad_network() -> Impairment {
    Impairment {
        loss: 0.05,
        delay: Duration::from_millis(30),
        jitter: Duration::from_millis(10),
        reorder: 0.05,
        duplicate: 0.03,
        corrupt: 0.03,
    }
}

/// A client of `server` with netcode id `id`, its clock at `now`.
fn client(server: &GameServer, id: u64, next_version: bool, now: Duration) -> GameClient {
    let config = client::Config {
        server: server.addr(),
        key: netcode::DEMO_KEY,
        id,
        timeout: 1,
        next_version,
        shim: Some(Shim::new(bad_network(), id)),
    };
    GameClient::connect(config, now).unwrap()
}

/// What a client holds of a frame, as a count of entities and a digest of handle, class and
/// values, by handle.
fn digest<'a>(view: impl Iterator<Item = (u32, usize, &'a [i32])>) -> (usize, u64) {
    let mut hasher = DefaultHasher::new();
    let mut count = 0;
    for (handle, class, values) in view {
        (handle, class, values).hash(&mut hasher);
        count += 1;
    }
    (count, hasher.finish())
}

/// What the server records each player holds at the current frame.
fn record(server: &mut GameServer, records: &mut HashMap<(ClientId, u32), (usize, u64)>) {
    let frame = server.netschema.frame().unwrap();
    let players: Vec<ClientId> = server.players().map(|(_, c)| c).collect();
    let mut row = [0; 4];
    for who in players {
        let mut held = BTreeMap::new();
        for id in 0..u64::from(SHIPS) {
            if let Ok(Some((handle, class))) = server.netschema.client_view(who, id, &mut row) {
                held.insert(handle, (class, row));
            }
        }
        let view = held.iter().map(|(&h, (c, row))| (h, *c, &row[..]));
        records.insert((who, frame), digest(view));
    }
    records.retain(|&(_, f), _| f + KEPT > frame);
}

fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn the_udp_loop_survives_a_bad_network() {
    let config = server::Config {
        addr: "127.0.0.1:0".parse().unwrap(),
        key: netcode::DEMO_KEY,
        seed: 7,
        ships: SHIPS,
        players: 8,
        encoding: Encoding::Alternate(2),
        shim: Some(Shim::new(bad_network(), 99)),
    };
    let mut server = GameServer::bind(config, Duration::ZERO).unwrap();
    // Slots: 0 is killed at 3 s and replaced by slot 3; 1 freezes from 3 s to 5 s; 2 plays
    // throughout; 4 speaks another schema.
    let mut clients: Vec<Option<GameClient>> = vec![
        Some(client(&server, 100, false, Duration::ZERO)),
        Some(client(&server, 200, false, Duration::ZERO)),
        Some(client(&server, 300, false, Duration::ZERO)),
        None,
        Some(client(&server, 500, true, Duration::ZERO)),
    ];
    let mut records = HashMap::new();
    let mut checked = [0u64; 5];
    let mut before_freeze = None;
    let mut rss = None;
    for step in 0..STEPS {
        let now = STEP * step;
        server.tick(now).unwrap();
        record(&mut server, &mut records);
        if step == 3 * 60 {
            clients[0] = None;
            clients[3] = Some(client(&server, 400, false, now));
            before_freeze = clients[1].as_ref().map(GameClient::stats);
        }
        if step == 2 * 60 {
            rss = resident_kib();
        }
        let frozen = (3 * 60..5 * 60).contains(&step);
        for (slot, c) in clients.iter_mut().enumerate() {
            let Some(c) = c.as_mut().filter(|_| !(slot == 1 && frozen)) else { continue };
            let id = c.id();
            let players: HashMap<u64, ClientId> = server.players().collect();
            c.tick(now, |client: &Client<game::Fleet>| {
                let frame = client.frame().unwrap();
                let who = players[&id];
                let want = records.get(&(who, frame)).unwrap_or_else(|| {
                    panic!("{who} decoded frame {frame}, which the server has no record of")
                });
                assert_eq!(&digest(client.frame_view()), want, "{who}, frame {frame}");
                checked[slot] += 1;
            });
        }
    }

    let stats: Vec<_> = clients.iter().map(|c| c.as_ref().map(GameClient::stats)).collect();
    for (slot, s) in stats.iter().enumerate() {
        println!("slot {slot}: {} packets checked against the record, {s:?}", checked[slot]);
    }
    for slot in [1, 2, 3] {
        let s = stats[slot].unwrap();
        assert!(checked[slot] >= 120, "slot {slot}: {} packets checked, {s:?}", checked[slot]);
        assert_eq!(s.verified, s.decoded, "slot {slot}: {s:?}");
        assert_eq!((s.wrong, s.refused), (0, 0), "slot {slot}: {s:?}");
        assert!(s.loss() > 0.0 && s.loss() < 0.25, "slot {slot}: loss {}", s.loss());
    }
    assert_eq!((stats[2].unwrap().reconnects, stats[3].unwrap().reconnects), (0, 0));
    // The frozen client timed out, reconnected and played on.
    let (before, after) = (before_freeze.unwrap(), stats[1].unwrap());
    assert_eq!(after.reconnects, 1, "{after:?}");
    assert!(after.verified >= before.verified + 60, "{before:?} then {after:?}");
    // Refused, with the reason.
    let refusal = clients[4].as_ref().unwrap().stopped().unwrap_or("not refused");
    assert!(refusal.contains("different schema"), "{refusal}");
    assert_eq!(stats[4].unwrap().decoded, 0);
    // Joined: 3 at first, the replacement and the reconnection; left: the killed client and
    // the frozen one's first connection; refused: the other schema, once per hello it sent.
    let events = server.events;
    assert_eq!((events.joined, events.left), (5, 2), "{events:?}");
    assert!(events.refused >= 1, "{events:?}");
    // Bounded: a connection per live player only, and memory flat once warm.
    assert_eq!(server.players().count(), 3);
    assert_eq!(server.netschema.clients().count(), 3);
    if let (Some(warm), Some(end)) = (rss, resident_kib()) {
        assert!(end < warm + 16 * 1024, "resident memory grew from {warm} KiB to {end} KiB");
    }
}
