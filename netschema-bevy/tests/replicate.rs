//! A server app and two client apps over replicon's test carrier, 10 % of unreliable messages
//! dropped: after every packet a client decodes, its components equal what the server records
//! it holds, entity by entity (spawns, updates and despawns), its own entity is marked, and a
//! client shown half the ships sees only those.

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_replicon::prelude::*;
use bevy_replicon::test_app::{ServerTestAppExt, TestClientEntity};
use netschema::owned::ServerConfig;
use netschema::{Protocol, Snapshot};
use netschema_bevy::loopback::LossyLink;
use netschema_bevy::{
    NetschemaPlugins, NetschemaSystems, NsClient, NsHandle, NsOwn, NsOwner, NsPeer, NsReplicate,
    NsServer, ns_id,
};

#[derive(Component, Snapshot, Clone, Copy, Debug, PartialEq)]
struct Ship {
    #[netschema(vec2(fixed(-512.0, 512.0, res = 1 / 64)))]
    pos: [f32; 2],
    #[netschema(angle(bits = 10))]
    heading: f32,
    shields: bool,
}

#[derive(Component, Snapshot, Clone, Copy, Debug, PartialEq)]
struct Rock {
    #[netschema(vec2(fixed(-512.0, 512.0, res = 1 / 16)))]
    pos: [f32; 2],
    #[netschema(int(0, 255))]
    size: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "fleet")]
enum Fleet {
    Ship(Ship),
    Rock(Rock),
}

/// Marks a client entity that sees only ships east of x = 0.
#[derive(Component)]
struct East;

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        StatesPlugin,
        RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
    ))
    .add_plugins(
        NetschemaPlugins::<Fleet>::new(ServerConfig::new(256, 128)).class::<Ship>().class::<Rock>(),
    )
    .add_systems(PostUpdate, east_only.in_set(NetschemaSystems::Visibility));
    app.finish();
    app
}

fn east_only(
    mut ns: ResMut<NsServer<Fleet>>,
    peers: Query<&NsPeer, With<East>>,
    ships: Query<(Entity, &Ship)>,
) {
    for peer in &peers {
        for (entity, ship) in &ships {
            ns.set_visible(peer, entity, ship.pos[0] >= 0.0).unwrap();
        }
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 =
            self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn real(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * (self.next() % 1_000_000) as f32 / 1e6
    }
}

fn spawn_ship(world: &mut World, rng: &mut Rng) -> Entity {
    let ship = Ship {
        pos: [rng.real(-300.0, 300.0), rng.real(-300.0, 300.0)],
        heading: rng.real(-3.0, 3.0),
        shields: false,
    };
    world.spawn((ship, NsReplicate)).id()
}

/// Moves the ships, toggles some shields, despawns and spawns some; rocks stay put.
fn play(world: &mut World, rng: &mut Rng, keep: Entity) -> (usize, usize) {
    let mut gone = Vec::new();
    let mut ships = world.query::<(Entity, &mut Ship)>();
    for (entity, mut ship) in ships.iter_mut(world) {
        if entity != keep && rng.next() % 100 < 3 {
            gone.push(entity);
            continue;
        }
        ship.heading = (ship.heading + 0.05 + 3.2).rem_euclid(6.4) - 3.2;
        ship.pos[0] = (ship.pos[0] + 2.0 * ship.heading.cos()).clamp(-500.0, 500.0);
        ship.pos[1] = (ship.pos[1] + 2.0 * ship.heading.sin()).clamp(-500.0, 500.0);
        if rng.next().is_multiple_of(10) {
            ship.shields = !ship.shields;
        }
    }
    for &entity in &gone {
        world.despawn(entity);
    }
    let born = gone.len();
    for _ in 0..born {
        spawn_ship(world, rng);
    }
    (born, gone.len())
}

/// Checks `client`'s components against what the server records it holds; returns how many
/// entities it holds.
fn check(server: &mut App, client: &mut App) -> usize {
    let peer_entity = **client.world().resource::<TestClientEntity>();
    let peer = *server.world().get::<NsPeer>(peer_entity).unwrap();
    let ids: Vec<u64> = server
        .world_mut()
        .query_filtered::<Entity, With<NsReplicate>>()
        .iter(server.world())
        .map(ns_id)
        .collect();
    // The frames the client holds: a young entity (coded against the packet that brought it
    // in) is in its frame only if it holds that packet's frame.
    let ns_client = client.world().resource::<NsClient<Fleet>>().client();
    let ack = ns_client.and_then(|c| c.ack());
    let mut ns = server.world_mut().resource_mut::<NsServer<Fleet>>();
    let newest = ns.server().frame().unwrap();
    let holds = |frame: u32| ack.is_some_and(|a| a.frames(newest).any(|f| f == frame));
    let mut raw = [0; 8];
    let mut held = 0;
    for id in ids {
        let Some((handle, class)) =
            ns.server_mut().client_view(peer.client(), id, &mut raw).unwrap()
        else {
            continue;
        };
        if ns.server_mut().young_entry(peer.client(), id).unwrap().is_some_and(|e| !holds(e)) {
            continue;
        }
        held += 1;
        let expected = Fleet::dequantise(class, &raw).unwrap();
        let entity = client
            .world()
            .resource::<NsClient<Fleet>>()
            .entity(handle)
            .expect("an entity per held handle");
        let got = match expected {
            Fleet::Ship(_) => client.world().get::<Ship>(entity).map(|s| Fleet::Ship(*s)),
            Fleet::Rock(_) => client.world().get::<Rock>(entity).map(|r| Fleet::Rock(*r)),
        };
        assert_eq!(got, Some(expected), "handle {handle}");
    }
    let shown = client.world_mut().query::<&NsHandle>().iter(client.world()).count();
    assert_eq!(shown, held, "the client shows exactly the entities it holds");
    held
}

#[test]
fn clients_hold_what_the_server_records_under_loss() {
    let mut server = app();
    let (mut all, mut east) = (app(), app());
    let mut rng = Rng(7);
    for _ in 0..24 {
        spawn_ship(server.world_mut(), &mut rng);
    }
    for size in 0..6 {
        let pos = [rng.real(-400.0, 400.0), rng.real(-400.0, 400.0)];
        server.world_mut().spawn((Rock { pos, size: size * 40 }, NsReplicate));
    }
    server.connect_client(&mut all);
    server.connect_client(&mut east);
    let east_peer = **east.world().resource::<TestClientEntity>();
    server.world_mut().entity_mut(east_peer).insert(East);
    let all_peer = **all.world().resource::<TestClientEntity>();
    let mine = spawn_ship(server.world_mut(), &mut rng);
    server.world_mut().entity_mut(mine).insert(NsOwner(all_peer));

    let mut links = [LossyLink::new(1, 0.1), LossyLink::new(2, 0.1)];
    let (mut checked, mut spawned, mut despawned) = ([0; 2], 0, 0);
    for _ in 0..400 {
        let (born, gone) = play(server.world_mut(), &mut rng, mine);
        (spawned, despawned) = (spawned + born, despawned + gone);
        server.update();
        let frame = server.world().resource::<NsServer<Fleet>>().server().frame();
        for (i, (client, link)) in [&mut all, &mut east].into_iter().zip(&mut links).enumerate() {
            link.exchange(&mut server, client);
            client.update();
            let decoded =
                client.world().resource::<NsClient<Fleet>>().client().and_then(|c| c.frame());
            if decoded == frame {
                let held = check(&mut server, client);
                assert!(held > 0);
                checked[i] += 1;
            }
        }
    }
    for (i, link) in links.iter().enumerate() {
        let (delivered, dropped) = link.counts();
        let loss = dropped as f64 / (delivered + dropped) as f64;
        assert!((0.07..0.13).contains(&loss), "link {i} lost {loss}");
        assert!(checked[i] > 300, "client {i} checked on {} of 400 frames", checked[i]);
    }
    assert!(spawned > 100 && despawned > 100, "{spawned} spawns, {despawned} despawns");

    let own: Vec<Ship> =
        all.world_mut().query_filtered::<&Ship, With<NsOwn>>().iter(all.world()).copied().collect();
    assert_eq!(own.len(), 1, "the client's own ship is marked");
    assert_eq!(east.world_mut().query::<&NsOwn>().iter(east.world()).count(), 0);
    let west =
        east.world_mut().query::<&Ship>().iter(east.world()).filter(|s| s.pos[0] < 0.0).count();
    assert_eq!(west, 0, "the east client sees no ship west of 0");
    assert_eq!(east.world_mut().query::<&Rock>().iter(east.world()).count(), 6);
}
