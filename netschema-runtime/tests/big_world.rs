//! A peer over a world far larger than what its client sees: its storage follows its handles
//! and its interest (the entities the game may mark for it at once), a mark past the interest
//! is refused with nothing changed, and hiding entities or letting weights lapse makes room.

mod support;

use netschema_runtime::owned::{ClientBuffers, PeerBuffers, WorldBuffers};
use netschema_runtime::{Error, Peer, PeerStorage, World};
use support::*;

/// World ids: the entities live at scattered ids across the whole world.
const WORLD: usize = 10_000;
const HANDLES: usize = 64;
const INTEREST: usize = 96;

/// The world id of the `k`-th entity.
fn id(k: usize) -> usize {
    k * 49 + 13
}

/// Moves the first `n` entities.
fn step(world: &mut World<'_>, n: usize) -> u32 {
    let t = world.begin_frame();
    for k in 0..n {
        let x = (k as u32 * 311 + t * (1 + k as u32 % 7)) % 65_536;
        let row = [x as i32, (k as i32 * 5 + t as i32) % 65_536, (t as i32 * 3) % 1024, 1, 0];
        world.set(id(k), 0, &row).unwrap();
    }
    t
}

/// Checks that the client holds exactly the entities with handles, with the world's values.
fn check(world: &World<'_>, frame: u32, peer: &Peer<'_>, client: &netschema_runtime::Client<'_>) {
    let mut held = 0;
    for k in 0..200 {
        let Some(h) = peer.handle_of(id(k)) else { continue };
        let (_, row) = world.get(frame, id(k)).unwrap();
        let (_, values) = client.get(h).expect("the client holds every entity with a handle");
        assert_eq!(values, row, "entity {} under handle {h}", id(k));
        held += 1;
    }
    assert_eq!(client.view().count(), held);
}

#[test]
fn a_client_of_a_big_world_costs_what_it_may_see() {
    // Nothing in the peer's storage is sized by the world: its id table follows the interest.
    let sizes = PeerStorage::sizes(&SCHEMA, HANDLES, INTEREST);
    assert!(sizes.ids < 2 * INTEREST, "{} entries", sizes.ids);

    let mut wb = WorldBuffers::new(&SCHEMA, WORLD);
    let mut world = wb.world(&SCHEMA, WORLD).unwrap();
    let mut pb = PeerBuffers::new(&SCHEMA, HANDLES, INTEREST);
    let mut peer = pb.peer(&SCHEMA, HANDLES, INTEREST).unwrap();
    let mut cb = ClientBuffers::new(&SCHEMA, HANDLES);
    let mut client = cb.client(&SCHEMA, HANDLES).unwrap();
    let mut buf = vec![0u8; 64 * 1024];
    let mut exchange = |world: &mut World<'_>, peer: &mut Peer<'_>| {
        let frame = step(world, 200);
        let len = peer.encode(world, &mut buf).unwrap();
        client.decode(&buf[..len]).unwrap();
        peer.receive_ack(&client.ack().unwrap());
        check(world, frame, peer, &client);
    };

    for k in 0..INTEREST {
        peer.set_visible(id(k), true).unwrap();
    }
    // One more is refused, and changes nothing.
    let full = Err(Error::InterestFull { capacity: INTEREST });
    assert_eq!(peer.set_visible(id(INTEREST), true), full);
    assert!(!peer.is_visible(id(INTEREST)));
    assert_eq!(peer.set_own(id(INTEREST), true), full);
    // Marks on entities already marked still change.
    peer.set_priority(id(3), 40).unwrap();
    peer.set_visible(id(5), false).unwrap();
    peer.set_visible(id(5), true).unwrap();
    for _ in 0..20 {
        exchange(&mut world, &mut peer);
    }
    // Handles go to the lowest ids first; the rest wait.
    assert!((0..HANDLES).all(|k| peer.handle_of(id(k)).is_some()));
    assert_eq!(peer.stats().deferred, 20 * (INTEREST - HANDLES) as u64);

    // Hiding 40 makes room for 40 more marks once the next packet has released their
    // handles: first weights on entities not marked, which last only until the packet after.
    for k in 0..40 {
        peer.set_visible(id(k), false).unwrap();
    }
    assert_eq!(peer.set_priority(id(100), 20), full, "held entities keep their entries");
    exchange(&mut world, &mut peer);
    for k in 100..140 {
        peer.set_priority(id(k), 20).unwrap();
    }
    assert_eq!(peer.set_visible(id(140), true), full);
    exchange(&mut world, &mut peer);
    for k in 100..140 {
        peer.set_visible(id(k), true).unwrap();
    }
    assert_eq!(peer.set_visible(id(140), true), full);
    for _ in 0..10 {
        exchange(&mut world, &mut peer);
    }
    assert!((0..40).all(|k| peer.handle_of(id(k)).is_none()));
    // The 40 handles freed went to the lowest ids waiting: the 32 from 64 on, then 8 of the
    // newly shown.
    assert_eq!((100..140).filter(|&k| peer.handle_of(id(k)).is_some()).count(), 8);
}
