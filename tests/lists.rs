//! Lists (`tests/schemas/lists.netidl`, generated into `tests/generated/lists.rs`): their
//! flattened paths and hash, lossless replication while they grow, shrink, reorder and have
//! elements inserted and removed in the middle over a link that loses, duplicates and
//! reorders datagrams, what changing one element costs, and malformed chains.
//!
//! `NETSCHEMA_BLESS=1 cargo test --test lists` regenerates the checked-in file.

mod golden;
mod link;

use std::collections::HashMap;

use link::Rng;
use netschema::engine::probe::Probe;
use netschema::owned::{Client, ClientBuffers, PeerBuffers, Server, ServerConfig, WorldBuffers};
use netschema::schema::Coding;
use netschema::{Error, List, Peer, Protocol, Snapshot, SnapshotEnum, World};

/// The code generated from `tests/schemas/lists.netidl`.
#[allow(clippy::all, dead_code, unreachable_pub)]
mod idl {
    include!("generated/lists.rs");
}

use idl::{Hero, Item, Lists, Plain, Row, Stack};

#[test]
fn checked_in_code_is_up_to_date() {
    golden::assert_generated_is_current("lists");
}

#[test]
fn paths_kinds_and_hash() {
    let fields = <Row as Snapshot>::CLASS.fields;
    let names: Vec<&str> = fields.iter().map(|f| f.name).collect();
    assert_eq!(
        names[..5],
        ["values.head", "values[0].next", "values[0]", "values[1].next", "values[1]"]
    );
    assert_eq!(names.len(), 1 + 8 * 2);
    let link = fields[0];
    assert_eq!((link.coding, link.min, link.max), (Coding::Categorical, 0, 8));
    assert_eq!(link.meaning, netschema::schema::list_link_meaning(8));
    assert_ne!(link.meaning, netschema::schema::list_link_meaning(7), "the bound is hashed");
    let hero: Vec<&str> = <Hero as Snapshot>::CLASS.fields.iter().map(|f| f.name).collect();
    assert_eq!(
        hero[2..6],
        ["inventory.head", "inventory[0].next", "inventory[0].item", "inventory[0].count"]
    );
    assert!(hero.contains(&"quest.value[2].next"));
    assert_ne!(<Row as Snapshot>::CLASS, <Plain as Snapshot>::CLASS);
}

#[test]
fn values_round_trip_through_a_row() {
    let mut hero = Hero::default();
    for (i, item) in Item::ALL.iter().enumerate() {
        hero.inventory.push(Stack { item: *item, count: i as i32 * 10 }).unwrap();
    }
    hero.path.push([1.5, -2.0]).unwrap();
    hero.quest = Some(List::try_from(&[Item::Key, Item::Sword][..]).unwrap());
    let mut raw = vec![0; <Hero as Snapshot>::CLASS.fields.len()];
    hero.quantise(&mut raw);
    assert_eq!(Hero::dequantise(&raw), hero);
    // Removing the first stack over the same row moves no other stack: one link changes.
    let before = raw.clone();
    hero.inventory.remove(0);
    hero.quantise(&mut raw);
    assert_eq!(Hero::dequantise(&raw), hero);
    assert_eq!((0..raw.len()).filter(|&i| raw[i] != before[i]).count(), 1);
}

/// An empty row (a new entity's) reads as empty lists, and a list written over it takes its
/// slots in order: what a trace reads back, and what the owned server starts an entity from.
#[test]
fn an_empty_row_holds_empty_lists_and_fills_in_order() {
    let class = <Row as Snapshot>::CLASS;
    let mut raw = vec![-1; class.fields.len()];
    class.empty_row(&mut raw);
    assert_eq!(raw[0], 8, "the head is the end");
    assert!((0..8).all(|s| raw[1 + 2 * s] == 8 && raw[2 + 2 * s] == 0), "{raw:?}");
    assert!(Row::dequantise(&raw).values.is_empty());
    let row = Row { values: List::try_from(&[7, 7, 3][..]).unwrap() };
    row.quantise(&mut raw);
    assert_eq!(raw[..7], [0, 1, 7, 2, 7, 8, 3]);
    assert_eq!(Row::dequantise(&raw), row);
}

/// Writing a list over the previous row and reading it back allocate nothing.
#[test]
fn lists_are_written_and_read_without_allocating() {
    let mut rng = Rng(3);
    let mut hero = Hero::default();
    let mut raw = vec![0; <Hero as Snapshot>::CLASS.fields.len()];
    for frame in 0..200 {
        step(&mut rng, &mut hero, frame);
        let counted = allocation_counter::measure(|| {
            hero.quantise(&mut raw);
            let back = Hero::dequantise(&raw);
            assert_eq!(
                (back.inventory, back.path, back.summons),
                (hero.inventory, hero.path, hero.summons)
            );
            assert_eq!(back.quest, hero.quest);
        });
        assert_eq!(counted.count_total, 0, "frame {frame}");
    }
}

/// `n` drawn uniformly below `n` (at least 1).
fn below(rng: &mut Rng, n: usize) -> usize {
    (rng.next() % n.max(1) as u64) as usize
}

/// One random edit of `list`: a push, pop, insertion or removal anywhere, a swap, a change in
/// place, rarely a clear, or nothing; `fresh` draws a new element.
fn edit<T: Default + Clone, const N: usize>(
    rng: &mut Rng,
    list: &mut List<T, N>,
    fresh: impl Fn(&mut Rng) -> T,
) {
    let len = list.len();
    match below(rng, 12) {
        0 | 1 => {
            let _ = list.push(fresh(rng));
        }
        2 => {
            list.pop();
        }
        3 | 4 => {
            let at = below(rng, len + 1);
            let _ = list.insert(at, fresh(rng));
        }
        5 | 6 if len > 0 => {
            list.remove(below(rng, len));
        }
        7 if len > 1 => {
            let (a, b) = (below(rng, len), below(rng, len));
            list.swap(a, b);
        }
        8 if len > 0 => {
            let at = below(rng, len);
            list[at] = fresh(rng);
        }
        9 if below(rng, 8) == 0 => list.clear(),
        _ => {}
    }
}

fn stack(rng: &mut Rng) -> Stack {
    Stack { item: Item::from_index(below(rng, 4) as u32), count: below(rng, 100) as i32 }
}

fn point(rng: &mut Rng) -> [f32; 2] {
    [below(rng, 16_000) as f32 / 32.0 - 250.0, below(rng, 16_000) as f32 / 32.0 - 250.0]
}

/// The next frame of `hero`: it moves, and each of its lists is edited.
fn step(rng: &mut Rng, hero: &mut Hero, frame: u32) {
    let t = frame as f32 * 0.05;
    hero.pos = [t.sin() * 100.0, t.cos() * 100.0];
    edit(rng, &mut hero.inventory, stack);
    edit(rng, &mut hero.path, point);
    edit(rng, &mut hero.summons, |rng| below(rng, 1001) as i32);
    if below(rng, 30) == 0 {
        hero.quest = hero.quest.is_none().then(List::new);
    }
    if let Some(quest) = &mut hero.quest {
        edit(rng, quest, |rng| Item::from_index(below(rng, 4) as u32));
    }
}

/// The value a client should decode for `value`: quantised and back.
fn quantised(value: &Lists) -> String {
    let class = value.class();
    let mut raw = vec![0; Lists::SCHEMA.classes[class].fields.len()];
    value.quantise_with(&mut raw, &mut |_, _| panic!("in range"));
    format!("{:?}", Lists::dequantise(class, &raw).unwrap())
}

/// Datagrams in flight one way: each is lost, or arrives after `latency` frames plus up to
/// `jitter` more (so they overtake each other), and some arrive twice.
struct Link {
    queue: Vec<(u32, Vec<u8>)>,
    latency: u32,
    jitter: usize,
    /// Datagrams lost in every 100.
    loss: usize,
    /// Datagrams duplicated in every 100.
    duplicate: usize,
}

impl Link {
    fn send(&mut self, rng: &mut Rng, now: u32, bytes: &[u8]) {
        if below(rng, 100) < self.loss {
            return;
        }
        let copies = if below(rng, 100) < self.duplicate { 2 } else { 1 };
        for _ in 0..copies {
            let at = now + self.latency + below(rng, self.jitter + 1) as u32;
            self.queue.push((at, bytes.to_vec()));
        }
    }

    fn receive(&mut self, now: u32) -> Vec<Vec<u8>> {
        let (due, later): (Vec<_>, Vec<_>) = self.queue.drain(..).partition(|(at, _)| *at <= now);
        self.queue = later;
        due.into_iter().map(|(_, b)| b).collect()
    }
}

#[test]
fn lists_replicate_losslessly_under_loss_duplication_and_reordering() {
    const HEROES: u64 = 6;
    const FRAMES: u32 = 1500;
    let mut server = Server::<Lists>::new(ServerConfig::new(64, 64)).unwrap();
    let mut hello = [0; 64];
    let n = Client::<Lists>::hello(&mut hello).unwrap();
    let player = server.connect(&hello[..n]).unwrap();
    let mut welcome = [0; 64];
    let n = server.welcome(&mut welcome).unwrap();
    let mut client = Client::<Lists>::connect(&welcome[..n], 256).unwrap();
    let (mut rng, mut net) = (Rng(11), Rng(12));
    let link = |latency| Link { queue: Vec::new(), latency, jitter: 3, loss: 10, duplicate: 10 };
    let (mut down, mut up) = (link(3), link(2));
    let mut heroes: Vec<Hero> = (0..HEROES).map(|_| Hero::default()).collect();
    let mut sent: HashMap<u32, Vec<String>> = HashMap::new();
    let (mut accepted, mut longest) = (0, 0);
    let mut buf = [0u8; 8192];
    for frame in 0..FRAMES {
        server.begin_frame();
        for (id, hero) in heroes.iter_mut().enumerate() {
            step(&mut rng, hero, frame);
            longest = longest.max(hero.inventory.len());
            server.set(id as u64, hero).unwrap();
            server.set_visible(player, id as u64, true).unwrap();
        }
        let mut held: Vec<String> = heroes.iter().map(|h| quantised(&Lists::Hero(*h))).collect();
        held.sort();
        sent.insert(server.frame().unwrap(), held);
        let n = server.encode(player, &mut buf).unwrap();
        down.send(&mut net, frame, &buf[..n]);
        for packet in down.receive(frame) {
            match client.decode(&packet) {
                Ok(decoded) => {
                    accepted += 1;
                    let mut view: Vec<String> =
                        client.entities().map(|(_, e)| format!("{e:?}")).collect();
                    view.sort();
                    assert_eq!(&view, &sent[&decoded], "frame {decoded}");
                }
                Err(Error::StalePacket | Error::UnknownBaseline | Error::UnknownModel) => {}
                Err(e) => panic!("decode failed: {e}"),
            }
            if let Some(ack) = client.ack() {
                let mut bytes = [0; netschema::Ack::MAX_LEN];
                let n = ack.write(&mut bytes).unwrap();
                up.send(&mut net, frame, &bytes[..n]);
            }
        }
        for ack in up.receive(frame) {
            server.receive_ack(player, &netschema::Ack::read(&ack).unwrap()).unwrap();
        }
    }
    assert!(accepted > FRAMES / 2, "accepted only {accepted} packets of {FRAMES}");
    assert_eq!(longest, 8, "the inventory filled up at some point");
}

/// The ideal cost of each field of one packet, in bits.
#[derive(Default)]
struct Costs(Vec<f64>);

impl Probe for Costs {
    fn field(&mut self, _: usize, field: usize, cost: u32, _: Option<u8>, _: bool) {
        if self.0.len() <= field {
            self.0.resize(field + 1, 0.0);
        }
        self.0[field] += f64::from(cost) / f64::from(netschema::codec::prob::COST_ONE_BIT);
    }
}

/// The row index of the value of the element at `position` of the list of `Row` in `row`.
fn value_index(row: &[i32], position: usize) -> usize {
    let mut slot = row[0] as usize;
    for _ in 0..position {
        slot = row[1 + 2 * slot] as usize;
    }
    2 + 2 * slot
}

/// A world of one entity, a peer that sees it and the peer's client, on storage kept for the
/// rest of the test.
fn session() -> (World<'static>, Peer<'static>, netschema::Client<'static>) {
    let schema = &Lists::SCHEMA;
    let world = Box::leak(Box::new(WorldBuffers::new(schema, 1)));
    let peer = Box::leak(Box::new(PeerBuffers::new(schema, 4, 1)));
    let client = Box::leak(Box::new(ClientBuffers::new(schema, 4)));
    let mut peer = peer.peer(schema, 4, 1).unwrap();
    peer.set_visible(0, true).unwrap();
    (world.world(schema, 1).unwrap(), peer, client.client(schema, 4).unwrap())
}

/// A session of one `Row` entity over a lossless link, its encoder probed: `edit` changes the
/// list each frame and returns the row index of the value it changed or wrote (`None` for a
/// removal); returns, after a warm-up, the mean cost of that value and of the rest of the
/// list, and the most the rest cost in one frame, in bits.
fn list_costs(
    mut edit: impl FnMut(&mut Rng, &mut List<i32, 8>) -> Option<usize>,
) -> (f64, f64, f64) {
    const FRAMES: u32 = 1500;
    const WARMUP: u32 = 200;
    let (mut world, mut peer, mut client) = session();
    let mut rng = Rng(5);
    let mut row = Row::default();
    for i in 0..8 {
        row.values.push(i * 100).unwrap();
    }
    let (mut rest, mut element, mut worst) = (0.0, 0.0, 0.0f64);
    let mut raw = vec![0; Row::CLASS.fields.len()];
    let mut buf = [0u8; 1024];
    for frame in 0..FRAMES {
        let now = world.begin_frame();
        let position = edit(&mut rng, &mut row.values);
        if let Some((_, previous)) = world.get(now, 0) {
            raw.copy_from_slice(previous);
        }
        row.quantise(&mut raw);
        world.set(0, Row::CLASS_INDEX, &raw).unwrap();
        let mut costs = Costs::default();
        let n = peer.encode_probed(&world, &mut buf, &mut costs).unwrap();
        client.decode(&buf[..n]).unwrap();
        peer.receive_ack(&client.ack().unwrap());
        if frame >= WARMUP {
            let changed =
                position.map_or(0.0, |p| costs.0.get(value_index(&raw, p)).copied().unwrap_or(0.0));
            let over = costs.0.iter().sum::<f64>() - changed;
            (rest, element, worst) = (rest + over, element + changed, worst.max(over));
        }
    }
    let frames = f64::from(FRAMES - WARMUP);
    (element / frames, rest / frames, worst)
}

/// An 8-element list with one element changed a frame (to a random value, at times equal to
/// another element's) costs at most that element's cost plus 4 bits in every frame: the ideal
/// costs the encoder's probe reports for every field of the list against the changed element's
/// value field, after a warm-up.
#[test]
fn changing_one_element_costs_that_element() {
    let (element, rest, worst) = list_costs(|rng, values| {
        let position = below(rng, 8);
        values[position] = below(rng, 1001) as i32;
        Some(position)
    });
    let cost = format!(
        "the changed element costs {element:.2} bits, the rest of the list {rest:.3} (at most {worst:.3})"
    );
    println!("{cost}");
    assert!(worst <= 4.0, "{cost}: more than 4 bits beside the element");
}

/// Inserting an element anywhere in a list of 7 or 8, or removing one, costs the new element
/// and a few links, not the elements after it: on average at most 16 bits beside the new
/// element's value (two link changes), where moving the tail would cost some 13 bits for each
/// element after it.
#[test]
fn inserting_or_removing_costs_about_one_element() {
    let (element, rest, worst) = list_costs(|rng, values| {
        if values.is_full() {
            values.remove(below(rng, 8));
            None
        } else {
            let position = below(rng, values.len() + 1);
            values.insert(position, below(rng, 1001) as i32).unwrap();
            Some(position)
        }
    });
    let cost = format!(
        "an inserted element costs {:.2} bits, the links and the rest {rest:.2} a frame (at most {worst:.2})",
        2.0 * element
    );
    println!("{cost}");
    assert!(rest <= 16.0, "{cost}");
}

/// Rows no server writes (chains with cycles, shared tails, links out of range, any values)
/// read back as lists no longer than their bound, without panicking.
#[test]
fn malformed_chains_read_as_shorter_lists() {
    // A cycle: the head at slot 2, which links to slot 5, which links back to slot 2.
    let mut raw = vec![8; Row::CLASS.fields.len()];
    raw[0] = 2;
    (raw[1 + 2 * 2], raw[2 + 2 * 2]) = (5, 20);
    (raw[1 + 2 * 5], raw[2 + 2 * 5]) = (2, 50);
    assert_eq!(Row::dequantise(&raw).values[..], [20, 50]);
    // Sent as it is by a server that writes rows itself, it reaches a client the same way.
    let (mut world, mut peer, mut client) = session();
    world.begin_frame();
    world.set(0, Row::CLASS_INDEX, &raw).unwrap();
    let mut buf = [0u8; 256];
    let n = peer.encode(&world, &mut buf).unwrap();
    client.decode(&buf[..n]).unwrap();
    let (_, _, received) = client.view().next().unwrap();
    assert_eq!(Row::dequantise(received).values[..], [20, 50]);
    let mut rng = Rng(9);
    let fields = <Hero as Snapshot>::CLASS.fields.len();
    for _ in 0..2000 {
        let raw: Vec<i32> = (0..fields).map(|_| rng.next() as i32 % 12).collect();
        let hero = Hero::dequantise(&raw);
        assert!(hero.inventory.len() <= 8 && hero.path.len() <= 6 && hero.summons.len() <= 4);
    }
}
