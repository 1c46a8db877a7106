//! Connections follow replicon's: a client of another schema is refused by replicon's protocol
//! check, a disconnected client loses its connection on the server and its entities, and one
//! whose acks never come back is connected again.

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy_replicon::prelude::*;
use bevy_replicon::test_app::{ServerTestAppExt, TestClientEntity};
use netschema::Protocol;
use netschema_bevy::prelude::*;

mod ours {
    use super::*;

    #[derive(Component, Snapshot, Clone, Copy, Debug, PartialEq)]
    pub(crate) struct Ship {
        #[netschema(vec2(fixed(-512.0, 512.0, res = 1 / 64)))]
        pub(crate) pos: [f32; 2],
    }

    #[derive(Clone, Copy, Protocol)]
    #[netschema(name = "fleet")]
    pub(crate) enum Fleet {
        Ship(Ship),
    }
}

mod theirs {
    use super::*;

    /// The same class with another range: another schema hash.
    #[derive(Component, Snapshot, Clone, Copy, Debug, PartialEq)]
    pub(crate) struct Ship {
        #[netschema(vec2(fixed(-1024.0, 1024.0, res = 1 / 64)))]
        pub(crate) pos: [f32; 2],
    }

    #[derive(Clone, Copy, Protocol)]
    #[netschema(name = "fleet")]
    pub(crate) enum Fleet {
        Ship(Ship),
    }
}

fn app<P, C>() -> App
where
    P: Protocol,
    C: netschema::ClassOf<P> + Component<Mutability = bevy::ecs::component::Mutable>,
{
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        StatesPlugin,
        RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
        NetschemaPlugins::<P>::new(ServerConfig::new(64, 64)).class::<C>(),
    ));
    app.finish();
    app
}

fn run(server: &mut App, client: &mut App, ticks: usize) {
    for _ in 0..ticks {
        server.update();
        server.exchange_with_client(client);
        client.update();
    }
}

#[test]
fn a_client_of_another_schema_is_refused() {
    assert_ne!(ours::Fleet::SCHEMA.hash, theirs::Fleet::SCHEMA.hash);
    let mut server = app::<ours::Fleet, ours::Ship>();
    let mut client = app::<theirs::Fleet, theirs::Ship>();
    server.world_mut().spawn((ours::Ship { pos: [1.0, 2.0] }, NsReplicate));
    server.connect_client(&mut client);
    run(&mut server, &mut client, 3);
    let peer = **client.world().resource::<TestClientEntity>();
    assert!(server.world().get::<AuthorizedClient>(peer).is_none());
    assert!(server.world().get::<NsPeer>(peer).is_none());
    assert_eq!(server.world().resource::<NsServer<ours::Fleet>>().server().clients().count(), 0);
    assert!(client.world().resource::<NsClient<theirs::Fleet>>().client().is_none());
    assert_eq!(client.world_mut().query::<&NsHandle>().iter(client.world()).count(), 0);
}

#[test]
fn a_disconnected_client_loses_its_connection_and_entities() {
    let mut server = app::<ours::Fleet, ours::Ship>();
    let mut client = app::<ours::Fleet, ours::Ship>();
    for x in 0..5 {
        server.world_mut().spawn((ours::Ship { pos: [x as f32, 0.0] }, NsReplicate));
    }
    server.connect_client(&mut client);
    run(&mut server, &mut client, 3);
    let peer = **client.world().resource::<TestClientEntity>();
    assert!(server.world().get::<NsPeer>(peer).is_some());
    assert_eq!(client.world_mut().query::<&ours::Ship>().iter(client.world()).count(), 5);

    server.disconnect_client(&mut client);
    assert_eq!(server.world().resource::<NsServer<ours::Fleet>>().server().clients().count(), 0);
    assert!(client.world().resource::<NsClient<ours::Fleet>>().client().is_none());
    assert_eq!(client.world_mut().query::<&ours::Ship>().iter(client.world()).count(), 0);

    // Reconnecting starts a new session that shows everything again.
    server.connect_client(&mut client);
    run(&mut server, &mut client, 3);
    assert_eq!(server.world().resource::<NsServer<ours::Fleet>>().server().clients().count(), 1);
    assert_eq!(client.world_mut().query::<&ours::Ship>().iter(client.world()).count(), 5);
}

#[test]
fn a_client_whose_acks_never_come_back_is_connected_again() {
    let mut server = app::<ours::Fleet, ours::Ship>();
    let mut client = app::<ours::Fleet, ours::Ship>();
    for x in 0..5 {
        server.world_mut().spawn((ours::Ship { pos: [x as f32, 0.0] }, NsReplicate));
    }
    server.connect_client(&mut client);
    server.update();
    let peer = **client.world().resource::<TestClientEntity>();
    let first = server.world().get::<NsPeer>(peer).unwrap().client();

    // Nothing reaches the client, so no ack comes back, for as long as a connection waits.
    for _ in 0..ServerConfig::new(64, 64).pending_frames {
        server.update();
    }
    let second = server.world().get::<NsPeer>(peer).unwrap().client();
    assert_ne!(first, second);
    let ns = server.world().resource::<NsServer<ours::Fleet>>().server();
    assert_eq!(ns.clients().collect::<Vec<_>>(), [second]);

    // The client starts over from the second welcome.
    run(&mut server, &mut client, 40);
    let ns = server.world().resource::<NsServer<ours::Fleet>>().server();
    assert!(ns.is_proven(second).unwrap());
    assert_eq!(client.world_mut().query::<&ours::Ship>().iter(client.world()).count(), 5);
}
