//! With `visible_to_all(false)` a client sees nothing until the game shows it something; here
//! netschema's `Interest` decides, from a game system, which ships lie near the client's eye.

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_replicon::prelude::*;
use bevy_replicon::test_app::{ServerTestAppExt, TestClientEntity};
use netschema::owned::{ClientId, Interest, View};
use netschema_bevy::ns_id;
use netschema_bevy::prelude::*;

#[derive(Component, Snapshot, Clone, Copy, Debug, PartialEq)]
struct Ship {
    #[netschema(vec2(fixed(-512.0, 512.0, res = 1 / 64)))]
    pos: [f32; 2],
}

#[derive(Clone, Copy, Protocol)]
enum Fleet {
    Ship(Ship),
}

/// Where a client looks from: a component of the game's on the client's replicon entity.
#[derive(Component)]
struct Eye([f32; 2]);

#[derive(Resource, Deref, DerefMut)]
struct Near(Interest<ClientId, 2>);

fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        StatesPlugin,
        RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
        NetschemaPlugins::<Fleet>::new(ServerConfig::new(64, 64))
            .class::<Ship>()
            .visible_to_all(false),
    ));
    app
}

fn look(
    mut near: ResMut<Near>,
    mut ns: ResMut<NsServer<Fleet>>,
    eyes: Query<(&NsPeer, &Eye)>,
    ships: Query<(Entity, &Ship)>,
) {
    for (entity, ship) in &ships {
        near.set_entity(ns_id(entity), ship.pos);
    }
    for (peer, eye) in &eyes {
        near.set_view(peer.client(), View { pos: eye.0, enter: 100.0, leave: 120.0 });
    }
    near.update_server(ns.server_mut()).unwrap();
}

fn run(server: &mut App, client: &mut App) {
    for _ in 0..3 {
        server.update();
        server.exchange_with_client(client);
        client.update();
    }
}

/// The x of every ship the client shows, in order.
fn shown(client: &mut App) -> Vec<f32> {
    let mut xs: Vec<f32> =
        client.world_mut().query::<&Ship>().iter(client.world()).map(|s| s.pos[0]).collect();
    xs.sort_by(f32::total_cmp);
    xs
}

#[test]
fn a_client_sees_what_the_game_shows_it() {
    let mut server = app();
    server
        .insert_resource(Near(Interest::new(50.0)))
        .add_systems(PostUpdate, look.in_set(NetschemaSystems::Visibility))
        .finish();
    let mut client = app();
    client.finish();
    for i in 0..40 {
        server.world_mut().spawn((Ship { pos: [i as f32 * 10.0 - 200.0, 0.0] }, NsReplicate));
    }
    server.connect_client(&mut client);
    // No eye yet: nothing is shown.
    run(&mut server, &mut client);
    assert!(shown(&mut client).is_empty());

    // An eye at the origin sees the ships within 100.
    let peer = **client.world().resource::<TestClientEntity>();
    server.world_mut().entity_mut(peer).insert(Eye([0.0, 0.0]));
    run(&mut server, &mut client);
    let expected: Vec<f32> = (-10..=10).map(|i| i as f32 * 10.0).collect();
    assert_eq!(shown(&mut client), expected);
}
