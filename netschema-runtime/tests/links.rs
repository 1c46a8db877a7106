//! Links: an entity's reference to another reaches each client as the handle it holds the
//! target under, or as none while it does not hold the target; it follows the target as it
//! leaves and enters again, under loss and byte budgets, and never reveals a hidden entity.

mod support;

use std::collections::VecDeque;

use netschema_runtime::engine::probe::{Part, Probe};
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::{Class, Field, Link, Schema};
use netschema_runtime::{Client, Peer, World};
use support::{Rng, View, YoungLog, frame_view, record, session};

const HOLD: &[Predictor] = &[Predictor::Hold, Predictor::Linear];
static SHIP_FIELDS: [Field; 1] = [Field::numeric("x", 0, 1023, false, HOLD)];
static BULLET_FIELDS: [Field; 1] = [Field::numeric("x", 0, 1023, false, HOLD)];
static BULLET_LINKS: [Link; 1] = [Link::new("owner", Some(0))];
static CLASSES: [Class; 2] = [
    Class::new("ship", &SHIP_FIELDS),
    Class::new("bullet", &BULLET_FIELDS).with_links(&BULLET_LINKS),
];
static SCHEMA: Schema = Schema::new("links", &CLASSES);

const SHIPS: usize = 8;
const BULLETS: usize = 16;
const ENTITIES: usize = SHIPS + BULLETS;
const HANDLES: usize = ENTITIES;

/// A world of ships and bullets whose owners, positions and visibility change at random.
struct Game {
    rng: Rng,
    owners: [Option<usize>; BULLETS],
    visible: [bool; ENTITIES],
}

impl Game {
    fn new(seed: u64) -> Game {
        Game { rng: Rng(seed), owners: [None; BULLETS], visible: [true; ENTITIES] }
    }

    /// One frame: a few owners and visibilities change; ships drift.
    fn step(&mut self, world: &mut World<'_>, frame: u32, churn: bool) {
        world.begin_frame();
        for id in 0..ENTITIES {
            let class = usize::from(id >= SHIPS);
            world.set(id, class, &[(id as i32 * 37 + frame as i32) % 1024]).unwrap();
        }
        if churn {
            for b in 0..BULLETS {
                if self.rng.chance(0.1) {
                    self.owners[b] = (!self.rng.chance(0.2)).then(|| self.rng.below(8) as usize);
                }
            }
            for v in &mut self.visible {
                if self.rng.chance(0.08) {
                    *v = !*v;
                }
            }
        }
        for (b, owner) in self.owners.iter().enumerate() {
            world.set_link(SHIPS + b, 0, *owner).unwrap();
        }
    }

    fn mark(&self, peer: &mut Peer<'_>) {
        for (id, &v) in self.visible.iter().enumerate() {
            peer.set_visible(id, v).unwrap();
        }
    }

    /// What the client should see of every bullet's owner once the packet for the world's
    /// frame is decoded: the owner's handle when the owner is visible, else none.
    fn expected(&self, peer: &Peer<'_>) -> Vec<(u32, Option<u32>)> {
        (0..BULLETS)
            .filter(|&b| self.visible[SHIPS + b])
            .map(|b| {
                let owner = self.owners[b].filter(|&o| self.visible[o]);
                (peer.handle_of(SHIPS + b).unwrap(), owner.and_then(|o| peer.handle_of(o)))
            })
            .collect()
    }
}

/// Every bullet the client holds with the ship its owner link names (by handle).
fn links_of(client: &Client<'_>) -> Vec<(u32, Option<u32>)> {
    let mut out: Vec<(u32, Option<u32>)> = client
        .frame_view()
        .filter(|&(_, class, _)| class == 1)
        .map(|(h, _, _)| (h, client.link(h, 0)))
        .collect();
    out.sort_unstable();
    out
}

/// Every link the client holds names a ship it holds in its current frame.
fn no_dangling(client: &Client<'_>) {
    for (h, class, _) in client.frame_view() {
        if class == 1
            && let Some(target) = client.link(h, 0)
        {
            let ship = client.frame_view().find(|&(t, _, _)| t == target);
            assert!(ship.is_some_and(|(_, c, _)| c == 0), "bullet {h} names {target}");
        }
    }
}

#[test]
fn links_name_the_target_by_its_handle_and_follow_it_without_loss() {
    let (mut world, mut peer, mut client) = session(&SCHEMA, ENTITIES, HANDLES);
    let mut game = Game::new(7);
    let mut buf = [0u8; 1500];
    let mut named = 0;
    for frame in 0..400u32 {
        game.step(&mut world, frame, true);
        game.mark(&mut peer);
        let len = peer.encode(&world, &mut buf).unwrap();
        client.decode(&buf[..len]).unwrap();
        assert_eq!(frame_view(&client), record(&SCHEMA, &world, &peer), "frame {frame}");
        let mut expected = game.expected(&peer);
        expected.sort_unstable();
        assert_eq!(links_of(&client), expected, "frame {frame}");
        named += expected.iter().filter(|(_, t)| t.is_some()).count();
        peer.receive_ack(&client.ack().unwrap());
    }
    assert!(named > 1000, "{named}");
}

/// One direction of a lossy link with a latency of `delay` frames.
struct Wire {
    queue: VecDeque<(u32, Vec<u8>)>,
    delay: u32,
    loss: f64,
}

impl Wire {
    fn send(&mut self, rng: &mut Rng, now: u32, bytes: &[u8]) {
        if !rng.chance(self.loss) {
            self.queue.push_back((now + self.delay, bytes.to_vec()));
        }
    }

    fn receive(&mut self, now: u32) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while self.queue.front().is_some_and(|(at, _)| *at <= now) {
            out.push(self.queue.pop_front().unwrap().1);
        }
        out
    }
}

/// Under 20 % loss both ways, a latency of two frames and, every other run, a byte budget
/// that holds entities back: the client's frames are what the server records, no link ever
/// names a handle the client does not hold as a ship, and once the world rests the links are
/// exactly the owners' handles.
#[test]
fn links_follow_their_targets_under_loss_and_budgets() {
    for (seed, budget) in [(1, 1500), (2, 40), (3, 1500), (4, 24)] {
        let (mut world, mut peer, mut client) = session(&SCHEMA, ENTITIES, HANDLES);
        let mut game = Game::new(seed);
        let mut rng = Rng(seed * 31);
        let (mut down, mut up) = (
            Wire { queue: VecDeque::new(), delay: 2, loss: 0.2 },
            Wire { queue: VecDeque::new(), delay: 2, loss: 0.2 },
        );
        let mut buf = vec![0u8; budget];
        let mut sent = std::collections::HashMap::new();
        let mut young = YoungLog::default();
        let (mut decoded, mut named) = (0, 0);
        for frame in 0..700u32 {
            // The last 100 frames rest, lose nothing and have room for everything.
            let rest = frame >= 600;
            if rest {
                (down.loss, up.loss) = (0.0, 0.0);
                buf.resize(1500, 0);
            }
            game.step(&mut world, frame, !rest);
            game.mark(&mut peer);
            let len = match peer.encode(&world, &mut buf) {
                Ok(len) => len,
                Err(netschema_runtime::Error::BudgetTooSmall { .. }) => continue,
                Err(e) => panic!("frame {frame}: {e}"),
            };
            let mut want = game.expected(&peer);
            want.sort_unstable();
            sent.insert(frame, (record(&SCHEMA, &world, &peer), want));
            young.sent(&peer, frame);
            down.send(&mut rng, frame, &buf[..len]);
            for packet in down.receive(frame) {
                let Ok(f) = client.decode(&packet) else { continue };
                let (view, want) = &sent[&f];
                // Young entities whose entry the client lost are not in the frame; links to
                // them read as none.
                let lost = young.lost(f);
                let view: View = view
                    .iter()
                    .filter(|(h, _)| !lost.contains(h))
                    .map(|(&h, v)| (h, v.clone()))
                    .collect();
                let want: Vec<_> = want
                    .iter()
                    .filter(|(h, _)| !lost.contains(h))
                    .map(|&(h, t)| (h, t.filter(|t| !lost.contains(t))))
                    .collect();
                let (view, want) = (&view, &want);
                assert_eq!(&frame_view(&client), view, "seed {seed}, frame {f}");
                no_dangling(&client);
                decoded += 1;
                named += links_of(&client).iter().filter(|(_, t)| t.is_some()).count();
                if budget >= 1500 {
                    assert_eq!(&links_of(&client), want, "seed {seed}, frame {f}");
                }
                if let Some(ack) = client.ack() {
                    let mut b = [0u8; netschema_runtime::Ack::MAX_LEN];
                    let n = ack.write(&mut b).unwrap();
                    up.send(&mut rng, frame, &b[..n]);
                }
            }
            for ack in up.receive(frame) {
                peer.receive_ack(&netschema_runtime::Ack::read(&ack).unwrap());
            }
        }
        let mut want = game.expected(&peer);
        want.sort_unstable();
        assert_eq!(links_of(&client), want, "seed {seed} at rest");
        eprintln!("seed {seed}, budget {budget}: {decoded} frames decoded, {named} links named");
        assert!(decoded > 400 && named > 500, "seed {seed}: {decoded} decoded, {named} named");
    }
}

/// The packets of a client that sees the bullets but not their owner are byte for byte the
/// same whether the owner exists, is named by the bullets, or is not there at all.
#[test]
fn a_hidden_target_leaves_no_trace_in_the_packets() {
    let run = |owner: Option<usize>, ship: bool| -> Vec<Vec<u8>> {
        let (mut world, mut peer, mut client) = session(&SCHEMA, ENTITIES, HANDLES);
        let mut packets = Vec::new();
        let mut buf = [0u8; 1500];
        for frame in 0..80u32 {
            world.begin_frame();
            if ship {
                world.set(0, 0, &[frame as i32 % 1024]).unwrap();
            }
            for b in 1..5 {
                world.set(b, 1, &[(b as i32 * 50 + frame as i32) % 1024]).unwrap();
                world.set_link(b, 0, owner.filter(|_| ship && frame % 20 < 15)).unwrap();
                peer.set_visible(b, true).unwrap();
            }
            let len = peer.encode(&world, &mut buf).unwrap();
            client.decode(&buf[..len]).unwrap();
            assert!(links_of(&client).iter().all(|(_, t)| t.is_none()));
            peer.receive_ack(&client.ack().unwrap());
            packets.push(buf[..len].to_vec());
        }
        packets
    };
    let named = run(Some(0), true);
    assert_eq!(named, run(None, true));
    assert_eq!(named, run(None, false));
}

static PLAIN_CLASSES: [Class; 2] =
    [Class::new("ship", &SHIP_FIELDS), Class::new("bullet", &BULLET_FIELDS)];
/// [`SCHEMA`] without the bullets' links.
static PLAIN: Schema = Schema::new("links", &PLAIN_CLASSES);

/// Sums the ideal cost of the packets' links.
#[derive(Default)]
struct LinkCost(u64);

impl Probe for LinkCost {
    fn field(&mut self, _: usize, _: usize, _: u32, _: Option<u8>, _: bool) {}

    fn structure(&mut self, part: Part, cost: u32) {
        if part == Part::Links {
            self.0 += u64::from(cost);
        }
    }
}

/// A link that keeps naming the same target costs under 0.05 bits a packet: the packets of a
/// world whose bullets each name one ship are at most that much longer per bullet than those
/// of the same world without links, and the probe's ideal cost agrees.
#[test]
fn an_unchanged_link_costs_almost_nothing() {
    let frames = 2000u32;
    let run = |schema: &'static Schema| -> (usize, u64) {
        let (mut world, mut peer, mut client) = session(schema, ENTITIES, HANDLES);
        let mut probe = LinkCost::default();
        let mut buf = [0u8; 1500];
        let mut bytes = 0;
        for frame in 0..frames {
            world.begin_frame();
            for id in 0..ENTITIES {
                let class = usize::from(id >= SHIPS);
                world.set(id, class, &[(id as i32 * 37 + frame as i32) % 1024]).unwrap();
                peer.set_visible(id, true).unwrap();
            }
            if schema.max_links > 0 {
                for b in 0..BULLETS {
                    world.set_link(SHIPS + b, 0, Some(b % SHIPS)).unwrap();
                }
            }
            if frame == 200 {
                (probe.0, bytes) = (0, 0);
            }
            let len = peer.encode_probed(&world, &mut buf, &mut probe).unwrap();
            client.decode(&buf[..len]).unwrap();
            peer.receive_ack(&client.ack().unwrap());
            bytes += len;
        }
        (bytes, probe.0)
    };
    let ((linked, ideal), (plain, _)) = (run(&SCHEMA), run(&PLAIN));
    let per = |x: f64| x / f64::from(frames - 200) / BULLETS as f64;
    let measured = per((linked as f64 - plain as f64) * 8.0);
    let ideal = per(ideal as f64 / 256.0);
    eprintln!("an unchanged link costs {measured:.4} bits a packet ({ideal:.4} ideal)");
    assert!(measured <= 0.05 && ideal <= 0.05, "{measured:.4} bits, {ideal:.4} ideal");
}
