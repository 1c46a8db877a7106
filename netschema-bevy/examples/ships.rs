//! A headless server and client in one process: 300 ships fly circles on the server, each
//! client-to-be gets a ship of its own, and the client mirrors them, interpolated 2 ticks
//! behind, through netschema packets carried by replicon (an in-process link that drops 5 % of
//! them). Both apps step 1/60 s per update.
//!
//! ```sh
//! cargo run --release --example ships              # from netschema-bevy/
//! cargo run --release --example ships -- 1200      # ticks to run (default 600, 10 s at 60 Hz)
//! ```

use bevy::prelude::*;
use std::time::Duration;

use bevy::state::app::StatesPlugin;
use bevy::time::TimeUpdateStrategy;
use bevy_replicon::prelude::*;
use bevy_replicon::test_app::ServerTestAppExt;
use netschema::owned::ServerConfig;
use netschema::{Protocol, Snapshot};
use netschema_bevy::loopback::LossyLink;
use netschema_bevy::{NetschemaPlugins, NsHandle, NsOwn, NsOwner, NsPacket, NsReplicate};

#[derive(Component, Snapshot, Clone, Copy, Debug, PartialEq)]
struct Ship {
    #[netschema(vec2(fixed(-512.0, 512.0, res = 1 / 64)), predict(hold, linear, quadratic))]
    pos: [f32; 2],
    #[netschema(angle(bits = 10))]
    heading: f32,
    shields: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "fleet")]
enum Fleet {
    Ship(Ship),
}

const SHIPS: usize = 300;
const HZ: f64 = 60.0;

/// Server and client alike: replicon, and netschema replicating `Ship`, 60 updates a second.
fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        StatesPlugin,
        RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
        NetschemaPlugins::<Fleet>::new(ServerConfig::new(1024, 512))
            .class::<Ship>()
            .interpolate(2, HZ as f32),
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / HZ)));
    app
}

fn spawn_fleet(mut commands: Commands) {
    for i in 0..SHIPS {
        let a = i as f32 * 0.37;
        let ship =
            Ship { pos: [a.cos() * i as f32, a.sin() * i as f32], heading: a, shields: i % 3 == 0 };
        commands.spawn((ship, NsReplicate));
    }
}

/// Each ship turns a little and moves forward.
fn fly(mut ships: Query<&mut Ship>) {
    for mut ship in &mut ships {
        ship.heading = (ship.heading + 0.02).rem_euclid(std::f32::consts::TAU);
        let (sin, cos) = ship.heading.sin_cos();
        ship.pos =
            [(ship.pos[0] + cos).clamp(-500.0, 500.0), (ship.pos[1] + sin).clamp(-500.0, 500.0)];
    }
}

/// A ship for every client replicon authorises, owned by it.
fn welcome_pilot(add: On<Add, AuthorizedClient>, mut commands: Commands) {
    let ship = Ship { pos: [0.0, 0.0], heading: 0.0, shields: true };
    commands.spawn((ship, NsReplicate, NsOwner(add.entity)));
}

/// Packet sizes the client received.
#[derive(Resource, Default)]
struct Received {
    packets: u64,
    bytes: u64,
    largest: usize,
}

fn measure(mut packets: MessageReader<NsPacket>, mut received: ResMut<Received>) {
    for NsPacket(bytes) in packets.read() {
        received.packets += 1;
        received.bytes += bytes.len() as u64;
        received.largest = received.largest.max(bytes.len());
    }
}

fn main() {
    let ticks: u32 = std::env::args().nth(1).map_or(600, |t| t.parse().expect("ticks: a number"));
    let mut server = app();
    server.add_systems(Startup, spawn_fleet).add_systems(Update, fly).add_observer(welcome_pilot);
    let mut client = app();
    client.init_resource::<Received>().add_systems(Update, measure);
    server.finish();
    client.finish();

    server.connect_client(&mut client);
    let mut link = LossyLink::new(42, 0.05);
    for tick in 1..=ticks {
        server.update();
        link.exchange(&mut server, &mut client);
        client.update();
        if tick % 120 == 0 || tick == ticks {
            let world = client.world_mut();
            let shown = world.query::<(&Ship, &NsHandle)>().iter(world).count();
            let own = world.query_filtered::<&Ship, With<NsOwn>>().iter(world).next().copied();
            let r = world.resource::<Received>();
            let mean = r.bytes as f64 / r.packets.max(1) as f64;
            println!(
                "tick {tick:4}: client shows {shown} ships (own at {:?}), {} packets, mean {mean:.0} B, largest {} B, {:.1} kbit/s at {HZ} Hz",
                own.map(|s| s.pos),
                r.packets,
                r.largest,
                mean * 8.0 * HZ / 1000.0,
            );
        }
    }
    let (delivered, dropped) = link.counts();
    println!("link: {delivered} unreliable messages delivered, {dropped} dropped");
    let shown = client.world_mut().query::<&NsHandle>().iter(client.world()).count();
    assert_eq!(shown, SHIPS + 1, "the client shows every ship");
}
