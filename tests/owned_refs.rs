//! References through the owned, typed API over a lossy, reordering link: projectiles name the
//! ship that fired them (`Ref<Ship>`) and what they home in on (`Ref<Fleet>`, any class). On
//! the client a reference is the handle of its target while the client holds it, none while
//! the target is hidden from it, and it follows the target as it leaves and enters again.

use std::collections::VecDeque;

use netschema::owned::{Client, ClientId, Server, ServerConfig};
use netschema::{Error, Protocol, Ref, Snapshot};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Ship {
    #[netschema(int(0, 15))]
    number: u8,
    #[netschema(fixed(-100.0, 100.0, res = 1 / 16))]
    x: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
#[netschema(protocol = "Fleet")]
struct Shot {
    #[netschema(fixed(-100.0, 100.0, res = 1 / 16))]
    x: f32,
    /// The number of the ship that fired it: what its owner must resolve to.
    #[netschema(int(0, 15))]
    shooter: u8,
    owner: Ref<Ship>,
    target: Ref<Fleet>,
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
enum Fleet {
    Ship(Ship),
    Shot(Shot),
}

/// The game's id of ship `n`; its shots are `100 + 10 × n + k`.
fn ship_id(n: u8) -> u64 {
    u64::from(n) * 1000 + 7
}

/// Ship 1 is hidden from the client from this frame on, until `BACK`.
const GONE: u32 = 30;
/// Ship 1 is visible again from this frame on.
const BACK: u32 = 50;
/// Ship 2 is never visible to the client.
const HIDDEN: u8 = 2;

fn visible(ship: u8, frame: u32) -> bool {
    ship != HIDDEN && !(ship == 1 && (GONE..BACK).contains(&frame))
}

/// A deterministic pseudo-random sequence.
struct Rng(u64);

impl Rng {
    fn chance(&mut self, p: f64) -> bool {
        self.0 =
            self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % 1_000_000) as f64 / 1e6 < p
    }
}

/// Datagrams one way: each arrives after `latency` frames, or is lost.
struct Link {
    queue: VecDeque<(u32, Vec<u8>)>,
    latency: u32,
}

impl Link {
    fn send(&mut self, rng: &mut Rng, now: u32, bytes: &[u8], loss: f64) {
        if !rng.chance(loss) {
            self.queue.push_back((now + self.latency, bytes.to_vec()));
        }
    }
    fn receive(&mut self, now: u32) -> Vec<Vec<u8>> {
        let mut due = Vec::new();
        while self.queue.front().is_some_and(|(at, _)| *at <= now) {
            due.extend(self.queue.pop_front().map(|(_, b)| b));
        }
        due
    }
}

fn connect(server: &mut Server<Fleet>) -> (ClientId, Client<Fleet>) {
    let mut msg = [0; 64];
    let n = Client::<Fleet>::hello(&mut msg).unwrap();
    let id = server.connect(&msg[..n]).unwrap();
    let n = server.welcome(&mut msg).unwrap();
    (id, Client::<Fleet>::connect(&msg[..n], 64).unwrap())
}

/// Writes frame `frame`: four ships, and three shots of each, every shot homing in on the
/// next ship's first shot (or on a ship every third frame).
fn write_frame(server: &mut Server<Fleet>, player: ClientId, frame: u32) {
    server.begin_frame();
    for n in 1..=4u8 {
        let x = f32::from(n) * 10.0 + frame as f32 * 0.125;
        server.set(ship_id(n), &Ship { number: n, x }).unwrap();
        server.set_visible(player, ship_id(n), visible(n, frame)).unwrap();
    }
    for n in 1..=4u8 {
        for k in 0..3 {
            let id = 100 + 10 * u64::from(n) + k;
            let prey = if frame.is_multiple_of(3) {
                ship_id(n % 4 + 1)
            } else {
                100 + 10 * u64::from(n % 4 + 1)
            };
            let shot = Shot {
                x: -f32::from(n) - frame as f32 * 0.25,
                shooter: n,
                owner: Ref::to(ship_id(n)),
                target: if k == 0 { Ref::to(prey) } else { Ref::NONE },
            };
            // The first shots exist before the others refer to them: set in two passes.
            if frame == 0 && k == 0 {
                server.set(id, &Shot { target: Ref::NONE, ..shot }).unwrap();
                continue;
            }
            server.set(id, &shot).unwrap();
            server.set_visible(player, id, true).unwrap();
        }
    }
    if frame == 0 {
        for n in 1..=4u8 {
            let id = 100 + 10 * u64::from(n);
            let shot = Shot {
                x: -f32::from(n),
                shooter: n,
                owner: Ref::to(ship_id(n)),
                target: Ref::to(ship_id(n % 4 + 1)),
            };
            server.set(id, &shot).unwrap();
            server.set_visible(player, id, true).unwrap();
        }
    }
}

/// Checks every shot the client holds: its owner is none exactly when the owner is not
/// visible at the client's frame, and else the client's ship with the shooter's number.
fn check_view(client: &Client<Fleet>, settled: bool) -> usize {
    let frame = client.frame().unwrap();
    let ships: Vec<(u32, Ship)> = client.iter::<Ship>().collect();
    let mut resolved = 0;
    for (_, shot) in client.iter::<Shot>() {
        match client.follow(shot.owner) {
            Some(ship) => {
                assert_eq!(ship.number, shot.shooter, "frame {frame}: the owner is another ship");
                assert!(visible(ship.number, frame), "frame {frame}: a hidden owner resolved");
                let handle = ships.iter().find(|(_, s)| s.number == ship.number).unwrap().0;
                assert_eq!(shot.owner.handle(), Some(handle), "the reference is the ship's handle");
                resolved += 1;
            }
            None => {
                assert!(shot.owner.is_none(), "frame {frame}: a reference names no entity held");
                assert!(
                    !settled || !visible(shot.shooter, frame),
                    "frame {frame}: the visible owner of a shot of ship {} reads none",
                    shot.shooter
                );
            }
        }
        if let Some(h) = shot.target.handle() {
            match client.follow(shot.target) {
                Some(Fleet::Ship(s)) => assert!(visible(s.number, frame)),
                Some(Fleet::Shot(s)) => {
                    assert_eq!(s.target.is_none(), client.get::<Shot>(h).unwrap().target.is_none())
                }
                None => panic!("frame {frame}: a reference to any class names nothing held"),
            }
        }
    }
    resolved
}

#[test]
fn references_follow_their_targets_over_a_lossy_link() {
    let mut server = Server::<Fleet>::new(ServerConfig::new(64, 64)).unwrap();
    let (player, mut client) = connect(&mut server);
    let mut rng = Rng(7);
    let (mut down, mut up) =
        (Link { queue: VecDeque::new(), latency: 2 }, Link { queue: VecDeque::new(), latency: 1 });
    // The frames (and handles) at which the shots of ship 1 named it.
    let mut handles_of_ship_1 = Vec::new();
    let mut checked = 0;
    let frames = 160;
    for frame in 0..frames {
        write_frame(&mut server, player, frame);
        let mut packet = [0; 1200];
        let n = server.encode(player, &mut packet).unwrap();
        // Lossless for the last frames, so the view settles.
        let loss = if frame < frames - 20 { 0.2 } else { 0.0 };
        down.send(&mut rng, frame, &packet[..n], loss);
        for p in down.receive(frame) {
            let Ok(_) = client.decode(&p) else { continue };
            let settled = frame >= frames - 10;
            let resolved = check_view(&client, settled);
            if settled {
                assert_eq!(resolved, 9, "frame {frame}: the shots of ships 1, 3, 4 resolve");
            }
            let fired_by_1 = client.iter::<Shot>().filter(|(_, s)| s.shooter == 1);
            let resolved_1 = fired_by_1.filter(|(_, s)| client.follow(s.owner).is_some()).count();
            let at = client.frame().unwrap();
            if resolved_1 > 0 {
                let (h, _) = client.iter::<Ship>().find(|(_, s)| s.number == 1).unwrap();
                handles_of_ship_1.push((at, h));
            }
            checked += 1;
            if let Some(ack) = client.ack() {
                let mut bytes = [0; 64];
                let n = ack.write(&mut bytes).unwrap();
                up.send(&mut rng, frame, &bytes[..n], loss);
            }
        }
        for a in up.receive(frame) {
            let _ = server.receive_ack(player, &netschema::Ack::read(&a).unwrap());
        }
    }
    assert!(checked > 100, "{checked} packets decoded");
    // The shots of ship 1 named it before it left and again after it came back.
    assert!(handles_of_ship_1.iter().any(|&(f, _)| f < GONE));
    assert!(handles_of_ship_1.iter().any(|&(f, _)| f >= BACK));
    assert!(handles_of_ship_1.iter().all(|&(f, _)| !(GONE..BACK).contains(&f)));
}

#[test]
fn a_reference_to_an_entity_not_in_the_world_is_refused() {
    let mut server = Server::<Fleet>::new(ServerConfig::new(16, 16)).unwrap();
    server.begin_frame();
    server.set(ship_id(1), &Ship { number: 1, x: 0.0 }).unwrap();
    let shot = Shot { x: 1.0, shooter: 1, owner: Ref::to(ship_id(1)), target: Ref::NONE };
    server.set(5, &shot).unwrap();
    let stray = Shot { x: 2.0, owner: Ref::to(999), ..shot };
    let err = server.set(5, &stray).unwrap_err();
    assert_eq!(err, Error::BadTarget { class: "Shot", link: "owner", id: 999 });
    assert_eq!(
        err.to_string(),
        "`Shot.owner` names entity 999, which is not in the world or not of the class it refers to"
    );
    // A shot is not a ship.
    let wrong = Shot { owner: Ref::to(5), ..shot };
    assert!(matches!(
        server.set_entity(6, &Fleet::Shot(wrong)),
        Err(Error::BadTarget { link: "owner", id: 5, .. })
    ));
    assert!(!server.contains(6), "nothing changes");
    // Any class will do for `target`.
    server.set(6, &Shot { target: Ref::to(5), ..shot }).unwrap();
}
