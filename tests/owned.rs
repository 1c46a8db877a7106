//! The owned, typed server and client over a lossy, reordering link, with clients joining and
//! leaving while the game runs: every packet a client accepts leaves its typed view equal to
//! what the server held for it at that frame.

use std::collections::{HashMap, VecDeque};

use netschema::owned::{Client, ClientId, Event, Server, ServerConfig};
use netschema::{Error, Protocol, Snapshot, SnapshotEnum};

#[derive(Clone, Copy, Debug, PartialEq, SnapshotEnum)]
enum Stance {
    Idle,
    Running,
    Dead,
}

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Player {
    #[netschema(vec3(fixed(-512.0, 512.0, res = 1 / 64)))]
    pos: [f32; 3],
    #[netschema(angle(bits = 10))]
    yaw: f32,
    #[netschema(int(0, 100))]
    health: u8,
    stance: Stance,
}

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Projectile {
    #[netschema(vec3(fixed(-512.0, 512.0, res = 1 / 64)))]
    pos: [f32; 3],
    #[netschema(vec3(fixed(-64.0, 64.0, res = 1 / 32)))]
    vel: [f32; 3],
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "arena")]
enum Arena {
    Player(Player),
    Projectile(Projectile),
}

const CONFIG: ServerConfig = ServerConfig::new(64, 64);

/// A deterministic pseudo-random sequence.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 =
            self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() % 1_000_000) as f64 / 1e6 < p
    }
    fn real(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * (self.next() % 1_000_000) as f32 / 1e6
    }
}

/// Datagrams in flight one way: each arrives after `latency` frames plus a random extra frame
/// (so some overtake others), or never.
struct Link {
    queue: VecDeque<(u32, Vec<u8>)>,
    latency: u32,
    loss: f64,
}

impl Link {
    fn send(&mut self, rng: &mut Rng, now: u32, bytes: Vec<u8>) {
        if !rng.chance(self.loss) {
            let at = now + self.latency + (rng.next() % 2) as u32;
            self.queue.push_back((at, bytes));
        }
    }
    fn receive(&mut self, now: u32) -> Vec<Vec<u8>> {
        let (due, later): (Vec<_>, Vec<_>) = self.queue.drain(..).partition(|(at, _)| *at <= now);
        self.queue = later.into();
        due.into_iter().rev().map(|(_, b)| b).collect()
    }
}

/// One client's end: its typed client, its links, and what the server sent it per frame.
struct Remote {
    id: ClientId,
    client: Client<Arena>,
    down: Link,
    up: Link,
    /// What the server held for this client at each frame it encoded: values, each with the
    /// frame of its entry if the packet coded it young (`Server::young_entry`).
    sent: HashMap<u32, Vec<(String, Option<u32>)>>,
    /// The frames this client decoded: a young entity whose entry it did not decode is not
    /// in the frame.
    decoded: std::collections::BTreeSet<u32>,
    /// Ids this client may see.
    sees: fn(u64) -> bool,
    accepted: u32,
    /// Whether the server has disconnected it.
    gone: bool,
}

fn connect(server: &mut Server<Arena>, sees: fn(u64) -> bool) -> Remote {
    let mut hello = [0; 64];
    let n = Client::<Arena>::hello(&mut hello).unwrap();
    let id = server.connect(&hello[..n]).unwrap();
    let mut welcome = [0; 64];
    let n = server.welcome(&mut welcome).unwrap();
    let client = Client::<Arena>::connect(&welcome[..n], 1024).unwrap();
    assert_eq!(client.handles(), CONFIG.handles);
    let link = |latency| Link { queue: VecDeque::new(), latency, loss: 0.1 };
    Remote {
        id,
        client,
        down: link(3),
        up: link(2),
        sent: HashMap::new(),
        decoded: Default::default(),
        sees,
        accepted: 0,
        gone: false,
    }
}

/// The value the client should decode for `value`: quantised and back.
fn quantised(value: &Arena) -> String {
    let class = value.class();
    let mut raw = vec![0; Arena::SCHEMA.classes[class].fields.len()];
    value.quantise_with(&mut raw, &mut |_, _| panic!("in range"));
    format!("{:?}", Arena::dequantise(class, &raw).unwrap())
}

struct Game {
    rng: Rng,
    entities: HashMap<u64, Arena>,
    next_id: u64,
}

impl Game {
    /// Moves every entity, kills and spawns some, and writes the frame into `server`.
    fn tick(&mut self, server: &mut Server<Arena>) {
        server.begin_frame();
        let ids: Vec<u64> = self.entities.keys().copied().collect();
        for id in ids {
            if self.rng.chance(0.02) {
                self.entities.remove(&id);
                assert!(server.remove(id));
                continue;
            }
            let rng = &mut self.rng;
            let e = self.entities.get_mut(&id).unwrap();
            match e {
                Arena::Player(p) => {
                    p.pos[0] = (p.pos[0] + rng.real(-0.5, 0.5)).clamp(-500.0, 500.0);
                    p.yaw += 0.05;
                    if rng.chance(0.05) {
                        p.health = (rng.next() % 101) as u8;
                        p.stance = Stance::ALL[(rng.next() % 3) as usize];
                    }
                }
                Arena::Projectile(s) => {
                    for (x, v) in s.pos.iter_mut().zip(s.vel) {
                        *x = (*x + v / 60.0).clamp(-500.0, 500.0);
                    }
                }
            }
        }
        while self.entities.len() < 40 {
            let id = self.next_id * 7919 + (u64::MAX / 3);
            self.next_id += 1;
            let r = &mut self.rng;
            let e = if r.chance(0.5) {
                Arena::Player(Player {
                    pos: [r.real(-100.0, 100.0), r.real(-100.0, 100.0), 0.0],
                    yaw: r.real(0.0, 6.0),
                    health: 100,
                    stance: Stance::Idle,
                })
            } else {
                Arena::Projectile(Projectile {
                    pos: [r.real(-100.0, 100.0), 5.0, 1.0],
                    vel: [r.real(-30.0, 30.0), r.real(-30.0, 30.0), 0.0],
                })
            };
            self.entities.insert(id, e);
        }
        for (&id, e) in &self.entities {
            server.set_entity(id, e).unwrap();
        }
    }
}

fn even(id: u64) -> bool {
    id.is_multiple_of(2)
}

fn all(_: u64) -> bool {
    true
}

#[test]
fn clients_join_and_leave_over_a_lossy_link() {
    let mut server = Server::<Arena>::new(CONFIG).unwrap();
    let mut game = Game { rng: Rng(42), entities: HashMap::new(), next_id: 0 };
    let mut remotes: Vec<Remote> = Vec::new();
    let mut buf = [0u8; 4096];
    let mut own_seen = false;
    // Frame 70,000 is reached by ticking with nobody connected in between.
    let schedule = (0..600u32).chain(69_700..70_300);
    for frame in schedule {
        match frame {
            150 | 69_900 => remotes.push(connect(&mut server, even)),
            400 | 599 => {
                // Leaves with packets in flight; its acks still arrive after it is gone.
                let at = usize::from(frame == 599);
                server.disconnect(remotes[at].id).unwrap();
                remotes[at].gone = true;
            }
            _ => {}
        }
        while server.frame().is_some_and(|f| f + 1 < frame) {
            server.begin_frame();
        }
        if frame == 0 || frame == 69_700 {
            remotes.push(connect(&mut server, all));
        }
        game.tick(&mut server);
        let f = server.frame().unwrap();
        for r in remotes.iter_mut().filter(|r| !r.gone) {
            for id in game.entities.keys() {
                server.set_visible(r.id, *id, (r.sees)(*id)).unwrap();
            }
            if let Some(&avatar) = game.entities.keys().filter(|&&id| (r.sees)(id)).min() {
                server.set_own(r.id, avatar, true).unwrap();
            }
            let n = server.encode(r.id, &mut buf).unwrap();
            let held: Vec<(String, Option<u32>)> = game
                .entities
                .iter()
                .filter(|(id, _)| (r.sees)(**id))
                .map(|(&id, e)| (quantised(e), server.young_entry(r.id, id).unwrap()))
                .collect();
            r.sent.insert(f, held);
            r.down.send(&mut game.rng, frame, buf[..n].to_vec());
        }
        for r in remotes.iter_mut() {
            for packet in r.down.receive(frame) {
                match r.client.decode(&packet) {
                    Ok(decoded) => {
                        r.accepted += 1;
                        let mut view: Vec<String> =
                            r.client.entities().map(|(_, e)| format!("{e:?}")).collect();
                        view.sort();
                        let sent = r.sent.get(&decoded).unwrap_or_else(|| {
                            panic!(
                                "{} decoded frame {decoded} at {frame}, sent {:?}",
                                r.id,
                                r.sent.keys().min()
                            )
                        });
                        let held =
                            |entry: &Option<u32>| entry.is_none_or(|e| r.decoded.contains(&e));
                        let mut want: Vec<String> =
                            sent.iter().filter(|(_, e)| held(e)).map(|(v, _)| v.clone()).collect();
                        want.sort();
                        r.decoded.insert(decoded);
                        assert_eq!(view, want, "frame {decoded}");
                        let created = r
                            .client
                            .events()
                            .any(|e| matches!(e, Event::Created { own: true, .. }));
                        own_seen |= created;
                    }
                    Err(Error::StalePacket | Error::UnknownBaseline) => {}
                    Err(e) => panic!("decode failed: {e}"),
                }
                if let Some(ack) = r.client.ack() {
                    let mut bytes = [0; netschema::Ack::MAX_LEN];
                    let n = ack.write(&mut bytes).unwrap();
                    r.up.send(&mut game.rng, frame, bytes[..n].to_vec());
                }
            }
            for ack in r.up.receive(frame) {
                let ack = netschema::Ack::read(&ack).unwrap();
                match server.receive_ack(r.id, &ack) {
                    Ok(_) => {}
                    Err(Error::UnknownClient { .. }) => assert!(r.gone),
                    Err(e) => panic!("{e}"),
                }
            }
        }
    }
    assert!(own_seen, "no client was told of its own entity");
    assert_eq!(remotes.len(), 4);
    for r in &remotes {
        assert!(r.accepted > 100, "{} accepted only {} packets", r.id, r.accepted);
        let own: Vec<u32> =
            r.client.entities().map(|(h, _)| h).filter(|&h| r.client.is_own(h)).collect();
        assert!(own.len() <= 1, "{own:?}");
    }
}

mod equivalence {
    use netschema::owned::{PeerBuffers, WorldBuffers};
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// The owned server writes the same bytes as the borrowed world and peers for the same
        /// values, visibility and acks: for several clients, each under its own byte budget,
        /// whose packets it codes in turn in one scratch room, where each borrowed peer has a
        /// room of its own.
        #[test]
        fn owned_and_borrowed_packets_are_identical(
            seed in any::<u64>(),
            entities in 1usize..12,
            frames in 2usize..40,
            ack_loss in 0.0f64..0.6,
        ) {
            const BUDGETS: [usize; 3] = [2048, 160, 90];
            let schema = Arena::SCHEMA;
            let mut server = Server::<Arena>::new(CONFIG).unwrap();
            let mut hello = [0; 64];
            let n = Client::<Arena>::hello(&mut hello).unwrap();
            let clients = BUDGETS.map(|_| server.connect(&hello[..n]).unwrap());
            let mut wb = WorldBuffers::new(schema, CONFIG.entities);
            let mut world = wb.world(schema, CONFIG.entities).unwrap();
            let mut pbs = BUDGETS.map(|_| PeerBuffers::new(schema, CONFIG.handles, CONFIG.entities));
            let mut peers: Vec<_> = pbs
                .iter_mut()
                .map(|pb| pb.peer(schema, CONFIG.handles, CONFIG.entities).unwrap())
                .collect();
            let mut rng = Rng(seed);
            let (mut a, mut b) = ([0u8; 2048], [0u8; 2048]);
            for _ in 0..frames {
                server.begin_frame();
                world.begin_frame();
                for slot in 0..entities {
                    let value = if slot % 3 == 0 {
                        Arena::Projectile(Projectile { pos: [rng.real(-9.0, 9.0), 1.0, 2.0], vel: [1.0, 0.0, rng.real(-1.0, 1.0)] })
                    } else {
                        Arena::Player(Player { pos: [rng.real(-9.0, 9.0), 0.0, 0.0], yaw: rng.real(0.0, 6.0), health: (rng.next() % 101) as u8, stance: Stance::Running })
                    };
                    let id = 1_000_000 + slot as u64 * 13;
                    server.set_entity(id, &value).unwrap();
                    let mut raw = vec![0; schema.classes[value.class()].fields.len()];
                    value.quantise_with(&mut raw, &mut |_, _| {});
                    world.set(slot, value.class(), &raw).unwrap();
                    for (c, (&client, peer)) in clients.iter().zip(&mut peers).enumerate() {
                        let visible = rng.chance(0.8);
                        let own = slot == c;
                        server.set_visible(client, id, visible).unwrap();
                        server.set_own(client, id, own).unwrap();
                        peer.set_visible(slot, visible).unwrap();
                        peer.set_own(slot, own).unwrap();
                    }
                }
                for ((&client, peer), budget) in clients.iter().zip(&mut peers).zip(BUDGETS) {
                    let n = server.encode(client, &mut a[..budget]).unwrap();
                    let m = peer.encode(&world, &mut b[..budget]).unwrap();
                    prop_assert_eq!(&a[..n], &b[..m]);
                    if !rng.chance(ack_loss) {
                        let frame = world.frame().unwrap();
                        let ack = peer.ack_of(frame, |f| frame.wrapping_sub(f) < 3).unwrap();
                        server.receive_ack(client, &ack).unwrap();
                        peer.receive_ack(&ack);
                    }
                }
            }
        }
    }
}

#[test]
fn capture_is_checked() {
    let mut server = Server::<Arena>::new(CONFIG).unwrap();
    let player =
        |health: u8, x: f32| Player { pos: [x, 0.0, 0.0], yaw: 0.0, health, stance: Stance::Idle };
    assert_eq!(server.set(1, &player(50, 1.0)), Err(Error::FrameNotStarted));
    server.begin_frame();
    for (value, field, shown) in [
        (player(150, 1.0), "health", "150"),
        (player(50, f32::NAN), "pos.x", "NaN"),
        (player(50, f32::INFINITY), "pos.x", "inf"),
        (player(50, -600.0), "pos.x", "-600"),
    ] {
        let err = server.set(7, &value).unwrap_err();
        let Error::Capture(c) = err else { panic!("{err:?}") };
        assert_eq!((c.class, c.field), ("Player", field));
        assert!(err.to_string().contains(shown), "{err}");
        assert!(!server.contains(7), "a refused value leaves nothing behind");
    }
    let mut raw = [0; 6];
    assert!(player(50, f32::NEG_INFINITY).try_quantise(&mut raw).is_err());
    assert!(player(50, 3.0).try_quantise(&mut raw).is_ok());

    server.set_clamped(7, &player(150, f32::NAN)).unwrap();
    server.set_clamped(8, &player(200, 1.0)).unwrap();
    let counts: Vec<_> = server.clamped().collect();
    assert_eq!(counts, [("Player", "pos.x", 1), ("Player", "health", 2)]);
    assert!(!server.remove(99));
    let mut hello = [0; 64];
    let n = Client::<Arena>::hello(&mut hello).unwrap();
    let client = server.connect(&hello[..n]).unwrap();
    assert_eq!(server.set_visible(client, 99, true), Err(Error::UnknownEntity { id: 99 }));
    server.disconnect(client).unwrap();
    assert!(matches!(server.set_visible(client, 7, true), Err(Error::UnknownClient { .. })));
}

#[test]
fn owned_types_can_move_across_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Server<Arena>>();
    send_sync::<Client<Arena>>();
}

#[test]
fn packets_encoded_on_several_threads_equal_serial_ones() {
    fn sync<T: Sync>() {}
    fn send<T: Send>() {}
    sync::<netschema::owned::Frame<'_, Arena>>();
    send::<netschema::owned::Connection>();

    let mut serial = Server::<Arena>::new(CONFIG).unwrap();
    let mut parallel = Server::<Arena>::new(CONFIG).unwrap();
    let mut games = [0, 1].map(|_| Game { rng: Rng(7), entities: HashMap::new(), next_id: 0 });
    let remotes: Vec<[Remote; 2]> =
        (0..4).map(|_| [connect(&mut serial, all), connect(&mut parallel, all)]).collect();
    for frame in 0..120 {
        games[0].tick(&mut serial);
        games[1].tick(&mut parallel);
        let expected: Vec<Vec<u8>> = remotes
            .iter()
            .map(|[r, _]| {
                let mut buf = [0; 300];
                let n = serial.encode(r.id, &mut buf).unwrap();
                buf[..n].to_vec()
            })
            .collect();
        let (world, connections) = parallel.split();
        let got: HashMap<ClientId, Vec<u8>> = std::thread::scope(|s| {
            let jobs: Vec<_> = connections
                .iter_mut()
                .map(|c| {
                    let world = &world;
                    s.spawn(move || {
                        let mut buf = [0; 300];
                        let n = c.encode(world, &mut buf).unwrap();
                        (c.client(), buf[..n].to_vec())
                    })
                })
                .collect();
            jobs.into_iter().map(|j| j.join().unwrap()).collect()
        });
        for ([_, r], packet) in remotes.iter().zip(&expected) {
            assert_eq!(&got[&r.id], packet, "frame {frame}");
        }
        // Acks reach both twins alike: every other frame, for the frame just sent.
        if frame % 2 == 0 {
            for [a, b] in &remotes {
                let ack = serial.ack_of(a.id, serial.frame().unwrap(), |_| true).unwrap();
                if let Some(ack) = ack {
                    serial.receive_ack(a.id, &ack).unwrap();
                    parallel.receive_ack(b.id, &ack).unwrap();
                }
            }
        }
    }
}

/// A crowd of 40 players against 8 handles: the avatar marked own after the crowd took every
/// handle reaches its client within a few frames, and when more entities are essential than
/// the client has handles, the server names one it cannot hold by the game's id.
#[test]
fn the_own_avatar_is_served_before_a_crowd() {
    let mut server = Server::<Arena>::new(ServerConfig::new(64, 8)).unwrap();
    let mut hello = [0; 64];
    let n = Client::<Arena>::hello(&mut hello).unwrap();
    let id = server.connect(&hello[..n]).unwrap();
    let mut welcome = [0; 64];
    let n = server.welcome(&mut welcome).unwrap();
    let mut client = Client::<Arena>::connect(&welcome[..n], 8).unwrap();
    let player = |i: u64| Player {
        pos: [i as f32, 0.5 * i as f32, 0.0],
        yaw: 0.0,
        health: 100,
        stance: Stance::Idle,
    };
    let mut frame = |server: &mut Server<Arena>, t: u64| {
        server.begin_frame();
        for i in 0..40 {
            let mut p = player(i);
            p.pos[2] = (t % 100) as f32;
            server.set(1000 + i, &p).unwrap();
            server.set_visible(id, 1000 + i, true).unwrap();
        }
        let mut buf = [0u8; 1200];
        let n = server.encode(id, &mut buf).unwrap();
        client.decode(&buf[..n]).unwrap();
        server.receive_ack(id, &client.ack().unwrap()).unwrap();
        client.iter::<Player>().filter(|&(h, _)| client.is_own(h)).count()
    };
    let before = server.connection_bytes();
    for t in 0..5 {
        assert_eq!(frame(&mut server, t), 0);
    }
    // 40 entities shown to a connection sized for twice its 8 handles: its table of marks grew.
    assert!(server.connection_bytes() > before);
    server.set_own(id, 1039, true).unwrap();
    let arrived = (5..10).find(|&t| frame(&mut server, t) == 1);
    assert!(arrived.is_some_and(|t| t <= 8), "the avatar arrived at frame {arrived:?}");
    assert_eq!(server.starved(id).unwrap(), None);

    for i in 0..9 {
        server.set_essential(id, 1000 + i, true).unwrap();
    }
    for t in 10..14 {
        frame(&mut server, t);
    }
    let starved = server.starved(id).unwrap();
    assert!(starved.is_some_and(|id| (1000..1009).contains(&id)), "{starved:?}");
}
