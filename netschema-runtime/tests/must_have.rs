//! Must-have entities, the client's own and those the game marks essential: they get handles
//! before a crowd that outnumbers the handles, a client that cannot hold them all is
//! reported, and under a saturated byte budget they are sent every frame they change.

mod support;

use netschema_runtime::{Ack, World};
use support::*;

/// Moves every entity of the world (all of class 0) every frame, unpredictably, so that each
/// one has an update due in every packet and costs bytes.
fn step(world: &mut World<'_>, entities: usize) {
    let t = world.begin_frame();
    for id in 0..entities as u32 {
        let noise = |salt: u32| {
            (id ^ salt).wrapping_mul(0x9e37_79b9).wrapping_add(t).wrapping_mul(0x85eb_ca6b) >> 22
        };
        let x = (id * 97 + 3 * t + noise(1)) % 65_536;
        let y = (id * 13 + t * (1 + id % 5) + noise(2)) % 65_536;
        let row = [x as i32, y as i32, (7 * t + noise(3)) as i32 % 1024, 0, 0];
        world.set(id as usize, 0, &row).unwrap();
    }
}

/// A crowd of 300 visible entities against 64 handles: an avatar marked own after the crowd
/// took every handle gets one (taken from the entity the game weighs least) and reaches the
/// client within a few frames; an essential entity too; with more must-have entities than
/// handles, the peer says which one it cannot hold.
#[test]
fn own_and_essential_entities_get_handles_before_a_crowd() {
    const ENTITIES: usize = 300;
    const HANDLES: usize = 64;
    let (mut world, mut peer, mut client) = session(&SCHEMA, ENTITIES, HANDLES);
    for id in 0..ENTITIES {
        peer.set_visible(id, true).unwrap();
    }
    let mut buf = vec![0u8; 64 * 1024];
    let mut exchange = |world: &mut World<'_>, peer: &mut netschema_runtime::Peer<'_>| {
        step(world, ENTITIES);
        let len = peer.encode(world, &mut buf).unwrap();
        client.decode(&buf[..len]).unwrap();
        peer.receive_ack(&client.ack().unwrap());
        client.view().filter(|&(h, ..)| client.is_own(h)).count()
    };
    for _ in 0..10 {
        assert_eq!(exchange(&mut world, &mut peer), 0);
    }
    assert_eq!(peer.stats().deferred, 10 * (ENTITIES - HANDLES) as u64);
    let (avatar, ball) = (250, 260);
    peer.set_own(avatar, true).unwrap();
    peer.set_essential(ball, true).unwrap();
    let mut held = None;
    for frame in 0..5 {
        if exchange(&mut world, &mut peer) == 1 {
            held.get_or_insert(frame);
        }
    }
    assert!(held.is_some_and(|f| f <= 3), "the avatar reached the client at {held:?}");
    assert!(peer.handle_of(ball).is_some(), "the essential entity has no handle");
    assert_eq!(peer.starved(), None);
    assert_eq!(peer.stats().evicted, 2);

    // More must-have entities than handles: the peer names one it cannot hold.
    for id in 0..HANDLES + 1 {
        peer.set_essential(id, true).unwrap();
    }
    for _ in 0..4 {
        exchange(&mut world, &mut peer);
    }
    let starved = peer.starved().expect("a must-have entity without a handle is reported");
    assert!(peer.is_essential(starved) && peer.handle_of(starved).is_none());
    assert!(peer.stats().starved > 0);
}

/// 300 moving entities through a budget of 150 bytes a packet: most wait, but the client's
/// avatar and an essential entity are sent in every packet, their values never more than a
/// frame or two old at the client.
#[test]
fn own_and_essential_entities_stay_fresh_under_a_saturated_budget() {
    const ENTITIES: usize = 300;
    let (mut world, mut peer, mut client) = session(&SCHEMA, ENTITIES, 320);
    let (avatar, ball) = (299, 150);
    for id in 0..ENTITIES {
        peer.set_visible(id, true).unwrap();
    }
    peer.set_own(avatar, true).unwrap();
    peer.set_essential(ball, true).unwrap();
    let mut rng = Rng(3);
    let (mut down, mut up) = (Link::new((1, 1), 0.0), Link::new((1, 1), 0.0));
    let mut buf = vec![0u8; 150];
    let (mut ages, mut others) = (Vec::new(), Vec::new());
    for now in 0..200 {
        step(&mut world, ENTITIES);
        let len = peer.encode(&world, &mut buf).unwrap();
        down.send(&mut rng, now, &buf[..len]);
        for packet in down.receive(now) {
            client.decode(&packet).unwrap();
            up.send(&mut rng, now, &ack_bytes(client.ack().unwrap()));
        }
        for ack in up.receive(now) {
            peer.receive_ack(&Ack::read(&ack).unwrap());
        }
        if now >= 20 {
            for id in [avatar, ball] {
                let h = peer.handle_of(id).unwrap();
                ages.push(client.age(h).expect("a must-have entity is held"));
            }
            let h = peer.handle_of(7).unwrap();
            others.extend(client.age(h));
        }
    }
    let mean = |a: &[u32]| a.iter().sum::<u32>() as f64 / a.len() as f64;
    println!(
        "age of must-have entities: mean {:.2}, max {}; of an ordinary one: mean {:.2}",
        mean(&ages),
        ages.iter().max().unwrap(),
        mean(&others)
    );
    assert!(ages.iter().all(|&a| a <= 2), "{ages:?}");
    assert!(mean(&others) > 4.0, "the budget is not saturated");
}
