//! A small game replicated end to end, without a network: players and projectiles on a
//! server, each projectile naming the player that fired it, two clients that each see part of
//! the world, and a link that delays and drops packets and acks. Each client checks its view,
//! owners followed to the players it holds, against what the server held for it (but for a
//! shot whose first packet it lost: coded against that packet since, it shows up a round trip
//! later), and counts the `Fired` events it received, each once, from the players it sees.
//!
//! ```sh
//! cargo run --release --example replicate
//! ```
//!
//! The lines that talk to netschema are marked `// ns`; the rest is the game and the link.

use std::collections::{HashMap, VecDeque};

use netschema::owned::{Client, ClientId, Event, Server, ServerConfig};
use netschema::{Ack, Error, Protocol, Ref, Snapshot, SnapshotEnum};

#[derive(Clone, Copy, Debug, PartialEq, SnapshotEnum)] // ns
enum State {
    Idle,
    Running,
    Dead,
}

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)] // ns
struct Player {
    #[netschema(vec3(fixed(-512.0, 512.0, res = 1 / 64)))] // ns
    pos: [f32; 3],
    #[netschema(angle(bits = 10))] // ns
    yaw: f32,
    #[netschema(int(0, 100))] // ns
    health: u8,
    state: State,
}

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)] // ns
#[netschema(protocol = "Game")] // ns
struct Projectile {
    #[netschema(vec3(fixed(-512.0, 512.0, res = 1 / 64)))] // ns
    pos: [f32; 3],
    /// The player that fired it: its id on the server, its handle on a client (or none while
    /// the client does not see it).
    owner: Ref<Player>,
}

/// A player fired a projectile: the event is about the shooter, so only the clients that see
/// the shooter get it.
#[derive(Clone, Copy, Debug, PartialEq, netschema::Event)] // ns
#[netschema(protocol = "Game")] // ns
struct Fired {
    shooter: Ref<Player>,
    #[netschema(int(0, 19))] // ns
    shot: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)] // ns
#[netschema(events(Fired))] // ns
enum Game {
    Player(Player),
    Projectile(Projectile),
}

/// Packets in flight to one client and acks on their way back: each arrives `DELAY` ticks
/// later unless dropped.
#[derive(Default)]
struct Link {
    down: VecDeque<(u32, Option<Vec<u8>>)>,
    up: VecDeque<(u32, Option<Ack>)>,
}

const DELAY: u32 = 3;

/// Drops about one datagram in ten, deterministically.
fn lost(tick: u32, salt: u32) -> bool {
    (tick.wrapping_mul(2_654_435_761) ^ salt.wrapping_mul(40_503)).is_multiple_of(10)
}

/// One connected player: the server's id for it, its client, its link and its avatar.
struct Remote {
    id: ClientId,
    client: Client<Game>,
    link: Link,
    avatar: u64,
    /// The values the server held for this client at each tick, each with the tick of the
    /// packet that brought it in if this one codes it against that packet (a young entity,
    /// which a client that lost that packet shows a round trip later).
    sent: HashMap<u32, Vec<(String, Option<u32>)>>,
    /// The ticks whose packets this client decoded.
    ticks: Vec<u32>,
    decoded: u32,
    mismatched: u32,
    dropped: u32,
    /// `Fired` events received.
    fired: usize,
}

fn main() -> Result<(), Error> {
    let mut server = Server::<Game>::new(ServerConfig::new(256, 128))?; // ns
    let mut remotes = Vec::new();
    for avatar in [1000, 2000] {
        let mut hello = [0; 64];
        let n = Client::<Game>::hello(&mut hello)?; // ns
        let id = server.connect(&hello[..n])?; // ns
        let n = server.welcome(&mut hello)?; // ns
        let client = Client::<Game>::connect(&hello[..n], 128)?; // ns
        let (link, sent) = (Link::default(), HashMap::new());
        remotes.push(Remote {
            id,
            client,
            link,
            avatar,
            sent,
            ticks: Vec::new(),
            decoded: 0,
            mismatched: 0,
            dropped: 0,
            fired: 0,
        });
    }

    // The game: two players (the clients' avatars) and projectiles fired by them.
    let mut world: HashMap<u64, Game> = HashMap::new();
    let mut buf = [0u8; 1200];
    let mut bytes = 0;
    let mut fired = 0;
    for tick in 0..600u32 {
        for (i, avatar) in [1000u64, 2000].into_iter().enumerate() {
            let t = tick as f32 / 60.0;
            let state = if tick % 200 < 150 { State::Running } else { State::Idle };
            let pos = [i as f32 * 50.0 + 20.0 * t.cos(), 20.0 * t.sin(), 0.0];
            let health = 100 - (tick / 10 % 100) as u8;
            world.insert(avatar, Game::Player(Player { pos, yaw: t, health, state }));
            if tick % 15 == 0 {
                let shot = avatar + 1 + u64::from(tick / 15 % 20);
                let owner = Ref::to(avatar);
                world.insert(shot, Game::Projectile(Projectile { pos, owner }));
            }
        }
        for (id, entity) in world.iter_mut() {
            if let Game::Projectile(p) = entity {
                p.pos[0] += if id / 1000 == 1 { 0.5 } else { -0.5 };
            }
        }

        server.begin_frame(); // ns
        // Players first: a projectile's owner must be in the world when it is set.
        let (players, shots): (Vec<_>, Vec<_>) =
            world.iter().partition(|(_, e)| matches!(e, Game::Player(_)));
        for (&id, entity) in players.into_iter().chain(shots) {
            server.set_entity(id, entity)?; // ns
        }
        // Every client that saw the shooter last tick hears that it fired (until 60 ticks before
        // the end, so that every event is delivered by then).
        if tick % 15 == 0 && tick < 540 {
            for avatar in [1000u64, 2000] {
                let event = Fired { shooter: Ref::to(avatar), shot: (tick / 15 % 20) as u8 };
                fired += server.send_event_to_viewers(avatar, &event)?; // ns
            }
        }
        for r in &mut remotes {
            // Each client sees its own avatar and shots, and whatever lies within 40 m.
            let me = match world[&r.avatar] {
                Game::Player(p) => p.pos,
                Game::Projectile(_) => unreachable!("avatars are players"),
            };
            let mut visible = Vec::new();
            for (&id, entity) in &world {
                let pos = match entity {
                    Game::Player(p) => p.pos,
                    Game::Projectile(p) => p.pos,
                };
                let sees = sees(r.avatar, me, id, pos);
                server.set_visible(r.id, id, sees)?; // ns
                if sees {
                    visible.push((id, shown(&world, entity, |o, w| sees_id(r.avatar, me, o, w))));
                }
            }
            server.set_own(r.id, r.avatar, true)?; // ns
            let n = server.encode(r.id, &mut buf)?; // ns
            let mut held = Vec::new();
            for (id, value) in visible {
                held.push((value, server.young_entry(r.id, id)?)); // ns
            }
            r.sent.insert(tick, held);
            bytes += n;
            let packet = (!lost(tick, r.avatar as u32)).then(|| buf[..n].to_vec());
            r.link.down.push_back((tick + DELAY, packet));
        }

        for r in &mut remotes {
            while r.link.down.front().is_some_and(|(at, _)| *at <= tick) {
                let Some((_, packet)) = r.link.down.pop_front() else { break };
                let Some(packet) = packet else { continue };
                let decoded = r.client.decode(&packet); // ns
                match decoded {
                    Ok(frame) => {
                        let client = &r.client;
                        let mut view: Vec<String> = client
                            .entities() // ns
                            .map(|(_, e)| shown_by(client, e))
                            .collect();
                        view.sort();
                        r.decoded += 1;
                        // What the server held, but young entities whose entry was lost.
                        let ticks = &r.ticks;
                        let mut want: Vec<String> = r.sent[&frame]
                            .iter()
                            .filter(|(_, entry)| entry.is_none_or(|e| ticks.contains(&e)))
                            .map(|(value, _)| value.clone())
                            .collect();
                        want.sort();
                        r.ticks.push(frame);
                        r.mismatched += u32::from(want != view);
                        // Each event once, its shooter a player this client holds.
                        let events = r.client.received_events(); // ns
                        for fired in events.filter_map(|e| e.get::<Fired>().transpose()) {
                            let shooter = fired?.shooter; // ns
                            r.fired += usize::from(r.client.follow(shooter).is_some()); // ns
                        }
                        let mut events = r.client.events(); // ns
                        if let Some(Event::Created { value: Game::Player(p), .. }) = // ns
                            events.find(|e| matches!(e, Event::Created { own: true, .. }))
                        {
                            println!("{}: tick {tick}: my player entered at {:?}", r.id, p.pos);
                        }
                    }
                    // A packet overtaken by a newer one, or coded against a frame that was lost:
                    // normal on a lossy link.
                    Err(Error::StalePacket | Error::UnknownBaseline) => r.dropped += 1, // ns
                    Err(e) => return Err(e),
                }
                let ack = r.client.ack(); // ns
                r.link.up.push_back((tick + DELAY, ack.filter(|_| !lost(tick, 7))));
            }
            while r.link.up.front().is_some_and(|(at, _)| *at <= tick) {
                if let Some((_, Some(ack))) = r.link.up.pop_front() {
                    server.receive_ack(r.id, &ack)?; // ns
                }
            }
        }
    }

    for r in &remotes {
        println!(
            "{}: {} packets decoded, {} refused as stale or unreferenced; every view equal to the server's: {}",
            r.id,
            r.decoded,
            r.dropped,
            if r.mismatched == 0 && r.decoded > 0 { "yes" } else { "NO" },
        );
    }
    println!("{:.0} bytes per packet on average", bytes as f64 / (600.0 * remotes.len() as f64));
    let heard: usize = remotes.iter().map(|r| r.fired).sum();
    println!("`Fired` events: {fired} sent, {heard} received, each once");
    if remotes.iter().any(|r| r.mismatched > 0 || r.decoded == 0) || heard != fired {
        return Err(Error::CheckMismatch);
    }
    Ok(())
}

/// Whether the client of `avatar` (at `me`) sees entity `id` at `pos`: its own avatar and
/// shots, and whatever lies within 40 m.
fn sees(avatar: u64, me: [f32; 3], id: u64, pos: [f32; 3]) -> bool {
    id / 1000 == avatar / 1000 || (pos[0] - me[0]).hypot(pos[1] - me[1]) < 40.0
}

/// [`sees`] for the entity `id` of the world.
fn sees_id(avatar: u64, me: [f32; 3], id: u64, world: &HashMap<u64, Game>) -> bool {
    let pos = match world.get(&id) {
        Some(Game::Player(p)) => p.pos,
        Some(Game::Projectile(p)) => p.pos,
        None => return false,
    };
    sees(avatar, me, id, pos)
}

/// How a client that `sees` what it sees should show `entity` (quantised as it decodes it): a
/// projectile with the player its owner names, when the client sees that player, else none.
fn shown(
    world: &HashMap<u64, Game>,
    entity: &Game,
    sees: impl Fn(u64, &HashMap<u64, Game>) -> bool,
) -> String {
    match (entity, quantised(entity)) {
        (Game::Projectile(p), Game::Projectile(q)) => {
            let owner = p.owner.id().filter(|&o| sees(o, world)).map(|o| quantised(&world[&o]));
            format!("{:?} fired by {owner:?}", q.pos)
        }
        (_, value) => format!("{value:?}"),
    }
}

/// How `client` shows `entity`: a projectile with the player its owner names, followed to the
/// player it holds.
fn shown_by(client: &Client<Game>, entity: Game) -> String {
    match entity {
        Game::Projectile(p) => {
            let owner = client.follow(p.owner).map(Game::Player); // ns
            format!("{:?} fired by {owner:?}", p.pos)
        }
        other => format!("{other:?}"),
    }
}

/// The value a client decodes for `entity`: quantised and back (references aside).
fn quantised(entity: &Game) -> Game {
    let class = entity.class();
    let mut raw = vec![0; Game::SCHEMA.classes[class].fields.len()];
    entity.quantise_with(&mut raw, &mut |_, _| {});
    Game::dequantise(class, &raw).unwrap_or(*entity)
}
