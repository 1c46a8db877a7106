//! Strings of entities through the owned server and client, over links that lose one datagram
//! in five each way, reorder and duplicate them: each client that sees an entity gets its name
//! once when the entity enters its view and once per change, and no other client gets it; a
//! name never shows on another entity that took the handle later; names cost no bits in the
//! state stream.

mod link;

use netschema::owned::{Client, ClientId, Server, ServerConfig};
use netschema::{Protocol, Snapshot, Text};

use link::{Rng, Wire};

/// A player: its game id (so that a client can tell whose name it shows) and its name.
#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Player {
    #[netschema(int(0, 10_000))]
    id: u16,
    name: Text<16>,
}

/// The same player without a name, for the size of the state stream.
#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Nameless {
    #[netschema(int(0, 10_000))]
    id: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "lobby")]
enum Lobby {
    Player(Player),
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "lobby")]
enum Quiet {
    Player(Nameless),
}

/// Player `id`'s name at version `v`: it names the player, so a client can check it shows the
/// name of the entity it shows.
fn name(id: u16, v: u32) -> Text<16> {
    Text::try_from(format!("p{id}-v{v}").as_str()).unwrap()
}

/// A client of `P` over its own lossy links.
struct Remote<P: Protocol> {
    id: ClientId,
    client: Client<P>,
    down: Wire,
    up: Wire,
    rng: Rng,
}

/// A server of `entities` entities and `handles` handles per client, with `n` clients.
fn lobby<P: Protocol>(n: u64, entities: usize, handles: usize) -> (Server<P>, Vec<Remote<P>>) {
    let mut server = Server::<P>::new(ServerConfig::new(entities, handles)).unwrap();
    let remotes = (0..n)
        .map(|seed| {
            let mut msg = [0; 64];
            let len = Client::<P>::hello(&mut msg).unwrap();
            let id = server.connect(&msg[..len]).unwrap();
            let len = server.welcome(&mut msg).unwrap();
            let client = Client::<P>::connect(&msg[..len], handles).unwrap();
            let (down, up, rng) = (Wire::default(), Wire::default(), Rng(seed * 7919 + 1));
            Remote { id, client, down, up, rng }
        })
        .collect();
    (server, remotes)
}

/// One frame of traffic for every client: its packet down, its acks up; `check` runs on the
/// client after each packet it accepts. Returns the bytes sent down.
fn exchange<P: Protocol>(
    server: &mut Server<P>,
    remotes: &mut [Remote<P>],
    now: u32,
    mut check: impl FnMut(usize, &Client<P>),
) -> usize {
    let mut buf = [0u8; 1200];
    let mut bytes = 0;
    for (i, r) in remotes.iter_mut().enumerate() {
        let n = server.encode(r.id, &mut buf).unwrap();
        bytes += n;
        r.down.send(&mut r.rng, now, &buf[..n]);
        for packet in r.down.receive(now) {
            if r.client.decode(&packet).is_err() {
                continue;
            }
            check(i, &r.client);
            let mut ack = [0u8; netschema::Ack::MAX_LEN];
            let len = r.client.ack().unwrap().write(&mut ack).unwrap();
            r.up.send(&mut r.rng, now, &ack[..len]);
        }
        for ack in r.up.receive(now) {
            let _ = server.receive_ack(r.id, &netschema::Ack::read(&ack).unwrap());
        }
    }
    bytes
}

/// The names a client shows, by player id.
fn shown(client: &Client<Lobby>) -> Vec<(u16, String)> {
    let mut names: Vec<_> =
        client.iter::<Player>().map(|(_, p)| (p.id, p.name.to_string())).collect();
    names.sort();
    names
}

#[test]
fn names_arrive_once_per_change_to_exactly_the_clients_that_see_them() {
    for seed in 0..4 {
        once_per_change(seed);
    }
}

/// Players 1 and 2; client 0 sees player 1, client 1 both, client 2 neither. Player 1 is
/// renamed every 40 frames, ten times; then 200 quiet frames.
fn once_per_change(seed: u64) {
    let (mut server, mut remotes) = lobby::<Lobby>(3, 8, 8);
    for r in &mut remotes {
        r.rng = Rng(r.rng.0 + seed * 104_729);
    }
    let (a, b) = (remotes[0].id, remotes[1].id);
    let mut version = 0;
    for now in 0..600u32 {
        server.begin_frame();
        if now % 40 == 20 && now < 400 {
            version += 1;
        }
        server.set(1, &Player { id: 1, name: name(1, version) }).unwrap();
        server.set(2, &Player { id: 2, name: name(2, 0) }).unwrap();
        server.set_visible(a, 1, true).unwrap();
        server.set_visible(b, 1, true).unwrap();
        server.set_visible(b, 2, true).unwrap();
        exchange(&mut server, &mut remotes, now, |_, client| {
            for (id, shown) in shown(client) {
                assert!(shown.is_empty() || shown.starts_with(&format!("p{id}-")), "{shown}");
            }
        });
    }
    assert_eq!(version, 10);
    let (one, two) = (name(1, 10).to_string(), name(2, 0).to_string());
    assert_eq!(shown(&remotes[0].client), [(1, one.clone())]);
    assert_eq!(shown(&remotes[1].client), [(1, one), (2, two)]);
    assert_eq!(shown(&remotes[2].client), []);
    // Client 0: player 1's name on entering and ten changes; client 1: both names and the ten
    // changes; client 2: nothing.
    for (r, expected) in remotes.iter().zip([11, 12, 0]) {
        let stats = server.record_stats(r.id).unwrap();
        assert_eq!((stats.queued, stats.delivered), (expected, expected), "seed {seed}");
        assert_eq!(server.unacked_records(r.id), Ok((0, 0)));
        if expected > 0 {
            println!(
                "seed {seed}, {}: {expected} text records, {} sends ({:.2} per record)",
                r.id,
                stats.sent,
                stats.sent as f64 / expected as f64
            );
        }
    }
}

#[test]
fn a_name_never_shows_on_an_entity_that_took_its_handle_later() {
    for seed in 0..4 {
        handle_reuse(seed);
    }
}

/// Players come and go faster than the lossy link settles, under few handles, so that handles
/// pass from one player to the next while text records are in flight; each life is a new id
/// with its own names. Every name a client ever shows is its entity's; once the churn stops,
/// every client shows every name it sees, the latest.
fn handle_reuse(seed: u64) {
    let (mut server, mut remotes) = lobby::<Lobby>(2, 16, 3);
    for r in &mut remotes {
        r.rng = Rng(r.rng.0 + seed * 15_485_863);
    }
    let mut live: Vec<u16> = Vec::new();
    let (mut next, mut shows) = (1u16, 0usize);
    for now in 0..500u32 {
        server.begin_frame();
        if now < 400 && now % 7 == 0 {
            if live.len() >= 5 {
                let gone = live.remove((now as usize / 7) % live.len());
                assert!(server.remove(u64::from(gone)));
            }
            live.push(next);
            next += 1;
        }
        for &id in &live {
            let v = if now < 400 { now / 13 } else { 400 / 13 };
            server.set(u64::from(id), &Player { id, name: name(id, v) }).unwrap();
            for r in &remotes {
                let sees = r.id == remotes[0].id || id % 2 == 0;
                server.set_visible(r.id, u64::from(id), sees).unwrap();
            }
        }
        exchange(&mut server, &mut remotes, now, |_, client| {
            for (id, shown) in shown(client) {
                assert!(shown.is_empty() || shown.starts_with(&format!("p{id}-")), "{shown}");
                shows += usize::from(!shown.is_empty());
            }
        });
    }
    assert!(shows > 1000, "names were shown {shows} times");
    let latest = |id: u16| name(id, 400 / 13).to_string();
    for (i, r) in remotes.iter().enumerate() {
        let want: Vec<_> =
            live.iter().filter(|&&id| i == 0 || id % 2 == 0).map(|&id| (id, latest(id))).collect();
        let have: Vec<_> = shown(&r.client)
            .into_iter()
            .filter(|(id, _)| want.iter().any(|w| w.0 == *id))
            .collect();
        assert_eq!(have.len(), want.len().min(3), "seed {seed}, client {i}");
        for (id, shown) in have {
            assert_eq!(shown, latest(id), "seed {seed}, client {i}");
        }
    }
}

#[test]
fn names_cost_no_bits_in_the_state_stream() {
    let (mut named, mut named_remotes) = lobby::<Lobby>(1, 8, 8);
    let (mut quiet, mut quiet_remotes) = lobby::<Quiet>(1, 8, 8);
    let (mut with, mut without) = (0, 0);
    for now in 0..300u32 {
        named.begin_frame();
        quiet.begin_frame();
        for id in 1..=4u16 {
            let name = name(id, 0);
            named.set(u64::from(id), &Player { id, name }).unwrap();
            quiet.set(u64::from(id), &Nameless { id }).unwrap();
            named.set_visible(named_remotes[0].id, u64::from(id), true).unwrap();
            quiet.set_visible(quiet_remotes[0].id, u64::from(id), true).unwrap();
        }
        with += exchange(&mut named, &mut named_remotes, now, |_, _| {});
        without += exchange(&mut quiet, &mut quiet_remotes, now, |_, _| {});
    }
    let names: usize = (1..=4).map(|id| name(id, 0).len()).sum();
    // The four names go once each as records: their bytes and a few of framing each, and
    // repairs of the ones lost; nothing else differs.
    let records = named.record_stats(named_remotes[0].id).unwrap();
    assert_eq!(records.queued, 4);
    println!("{with} bytes with names, {without} without; the names are {names} bytes");
    assert!(with > without && with - without < 4 * records.sent as usize * 12, "{with} {without}");
}
