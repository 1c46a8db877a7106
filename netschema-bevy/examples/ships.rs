//! A headless server and client in one process: 300 ships fly circles on the server, each
//! client-to-be gets a ship of its own, and the client mirrors them, interpolated 2 ticks
//! behind, through netschema packets carried by replicon (an in-process link that drops 5 % of
//! them). The client steers its own ship with inputs (`NsInput`, set each update by a script)
//! and fires now and then; the server moves the ship by each tick's input (`NsClientInput`)
//! and judges each shot on the world as the client showed it (`NsServer::seen_by`). Both apps
//! step 1/60 s per update.
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
use netschema_bevy::loopback::LossyLink;
use netschema_bevy::prelude::*;
use netschema_bevy::{NsPacket, ns_id};

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

/// A pilot's input for one tick: which way it turns (1: counter-clockwise), and whether it
/// fires straight ahead.
#[derive(Input, Clone, Copy, Debug, PartialEq)]
struct Helm {
    #[netschema(int(-1, 1))]
    turn: i8,
    fire: bool,
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
            .interpolate(2, HZ as f32)
            .inputs::<Helm>(HZ as f32),
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

/// `ship` turned by `turn` radians and moved a metre forward.
fn fly_one(ship: &mut Ship, turn: f32) {
    ship.heading = (ship.heading + turn).rem_euclid(std::f32::consts::TAU);
    let (sin, cos) = ship.heading.sin_cos();
    ship.pos = [(ship.pos[0] + cos).clamp(-500.0, 500.0), (ship.pos[1] + sin).clamp(-500.0, 500.0)];
}

/// Each ship nobody owns turns a little and moves forward.
fn fly(mut ships: Query<&mut Ship, Without<NsOwner>>) {
    for mut ship in &mut ships {
        fly_one(&mut ship, 0.02);
    }
}

/// The client's script: turn one way for two seconds, then the other; fire twice a second.
fn pilot(mut input: ResMut<NsInput<Helm>>, mut update: Local<u32>) {
    *update += 1;
    let turn = if (*update / 120).is_multiple_of(2) { 1 } else { -1 };
    input.0 = Helm { turn, fire: update.is_multiple_of(30) };
}

/// What the server did with the client's inputs.
#[derive(Resource, Default)]
struct Steered {
    received: u64,
    repeated: u64,
    shots: u64,
    hits: u64,
}

/// Moves each client's own ship by its input of the tick, and judges its shots on the world as
/// the client showed it: a hit is a ship within 5 m of the line ahead, up to 200 m.
fn steer(
    mut inputs: MessageReader<NsClientInput<Helm>>,
    mut ships: Query<(Entity, &NsOwner, &mut Ship)>,
    peers: Query<&NsPeer>,
    mut ns: ResMut<NsServer<Fleet>>,
    mut steered: ResMut<Steered>,
) {
    for &NsClientInput { client, tick, input: helm, source } in inputs.read() {
        let received = source == Source::Received;
        (steered.received, steered.repeated) =
            (steered.received + u64::from(received), steered.repeated + u64::from(!received));
        let Some((entity, _, mut ship)) = ships.iter_mut().find(|(_, o, _)| o.0 == client) else {
            continue;
        };
        fly_one(&mut ship, 0.05 * f32::from(helm.turn));
        let Ok(peer) = peers.get(client) else { continue };
        if !(helm.fire && received) {
            continue;
        }
        let Ok(Some(mut seen)) = ns.seen_by(peer, tick) else { continue };
        let Some(me) = seen.get::<Ship>(ns_id(entity)) else { continue };
        let (sin, cos) = me.heading.sin_cos();
        let hit = seen.iter::<Ship>().any(|(id, s)| {
            let (dx, dy) = (s.pos[0] - me.pos[0], s.pos[1] - me.pos[1]);
            let (along, across) = (dx * cos + dy * sin, dy * cos - dx * sin);
            id != ns_id(entity) && (0.0..200.0).contains(&along) && across.abs() < 5.0
        });
        (steered.shots, steered.hits) = (steered.shots + 1, steered.hits + u64::from(hit));
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
    server
        .init_resource::<Steered>()
        .add_systems(Startup, spawn_fleet)
        .add_systems(Update, fly)
        .add_systems(PostUpdate, steer.in_set(NetschemaSystems::Apply))
        .add_observer(welcome_pilot);
    let mut client = app();
    client
        .init_resource::<Received>()
        .add_systems(Update, measure)
        .add_systems(PostUpdate, pilot.in_set(NetschemaClientSystems::Input));
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
    let s = server.world().resource::<Steered>();
    println!(
        "inputs: {} received, {} repeated for want of one; shots: {} judged on what the client showed, {} hits",
        s.received, s.repeated, s.shots, s.hits,
    );
    assert!(s.received > s.repeated && s.shots > 0, "the client's inputs steer its ship");
    let shown = client.world_mut().query::<&NsHandle>().iter(client.world()).count();
    assert_eq!(shown, SHIPS + 1, "the client shows every ship");
}
