//! Inputs through the plugin: a server app and two client apps over a link that drops 10 % of
//! unreliable messages each way and delays every message by two exchanges. Each client's game
//! sets `NsInput` every update to a numbered step; the server's game moves the client's own
//! ship by each client's `NsClientInput` and rewinds to what the client showed for each input
//! it received (`NsServer::seen_by`). Inputs arrive in order and whole, steer the ships (which
//! the clients see), and every rewind gives exactly the ships the client showed when it sent
//! that input. A client that does not send the server's inputs is refused by replicon's
//! protocol check.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy::time::TimeUpdateStrategy;
use bevy_replicon::prelude::*;
use bevy_replicon::test_app::{ServerTestAppExt, TestClientEntity};
use netschema_bevy::loopback::LossyLink;
use netschema_bevy::prelude::*;

#[derive(Component, Snapshot, Clone, Copy, Debug, PartialEq)]
struct Ship {
    #[netschema(vec2(fixed(-512.0, 512.0, res = 1 / 64)))]
    pos: [f32; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "fleet")]
enum Fleet {
    Ship(Ship),
}

/// The input: which update of the client's it was set in, and a step sideways.
#[derive(Input, Clone, Copy, Debug, PartialEq)]
struct Stick {
    #[netschema(int(0, 65535))]
    seq: u16,
    #[netschema(int(-4, 4))]
    dx: i8,
}

const HZ: f32 = 60.0;
const TICKS: u32 = 600;
/// Metres a ship moves per unit of `dx`.
const STEP: f32 = 0.25;

/// The step a client sets in its update `seq`: runs of each direction.
fn dx(seq: u16) -> i8 {
    [3, 3, 0, -2, -4, 1][usize::from(seq / 20) % 6]
}

/// An app whose clients send `Stick`s, or no inputs.
fn app_with(inputs: bool) -> App {
    let plugins = NetschemaPlugins::<Fleet>::new(ServerConfig::new(64, 64))
        .class::<Ship>()
        .interpolate(2, HZ);
    let plugins = if inputs { plugins.inputs::<Stick>(HZ) } else { plugins };
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        StatesPlugin,
        RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
        plugins,
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / f64::from(HZ),
    )));
    app
}

fn app() -> App {
    app_with(true)
}

/// Ships as a client shows them: sorted positions, exactly.
type Shown = Vec<[u32; 2]>;

fn shown(ships: impl Iterator<Item = Ship>) -> Shown {
    let mut shown: Shown = ships.map(|s| s.pos.map(f32::to_bits)).collect();
    shown.sort_unstable();
    shown
}

/// The server's log: each client's inputs as taken, and what each received input's rewind
/// gave, by client entity and tick.
#[derive(Resource, Default)]
struct Log {
    taken: HashMap<Entity, Vec<(u32, Stick, Source)>>,
    seen: BTreeMap<(Entity, u32), Shown>,
}

/// Moves each client's own ship by its input, and rewinds to what it showed.
fn steer(
    mut inputs: MessageReader<NsClientInput<Stick>>,
    mut ships: Query<(&NsOwner, &mut Ship)>,
    peers: Query<&NsPeer>,
    mut ns: ResMut<NsServer<Fleet>>,
    mut log: ResMut<Log>,
) {
    for &NsClientInput { client, tick, input: stick, source } in inputs.read() {
        log.taken.entry(client).or_default().push((tick, stick, source));
        for (owner, mut ship) in &mut ships {
            if owner.0 == client {
                ship.pos[0] += f32::from(stick.dx) * STEP;
            }
        }
        // The inputs a client sent before it showed anything came without a render time.
        if source == Source::Received
            && let Some(mut seen) = ns.seen_by(peers.get(client).unwrap(), tick).unwrap()
        {
            let ships = shown(seen.iter::<Ship>().map(|(_, ship)| ship));
            log.seen.insert((client, tick), ships);
        }
    }
}

/// A ship of the client's own when replicon authorises it.
fn welcome_pilot(add: On<Add, AuthorizedClient>, mut commands: Commands) {
    commands.spawn((Ship { pos: [0.0, 0.0] }, NsReplicate, NsOwner(add.entity)));
}

/// Ships that are nobody's, on circles.
fn sail(mut ships: Query<&mut Ship, Without<NsOwner>>, mut tick: Local<u32>) {
    *tick += 1;
    for (i, mut ship) in ships.iter_mut().enumerate() {
        let phase = *tick as f32 * 0.05 + i as f32;
        ship.pos = [100.0 * phase.cos(), 100.0 * phase.sin()];
    }
}

/// A client's game: its updates so far, and what it showed at the tick of each input sent.
#[derive(Resource, Default)]
struct Game {
    seq: u16,
    shown: BTreeMap<u32, Shown>,
}

/// Sets this update's input.
fn drive(mut game: ResMut<Game>, mut input: ResMut<NsInput<Stick>>) {
    game.seq += 1;
    input.0 = Stick { seq: game.seq, dx: dx(game.seq) };
}

/// Notes what the client shows at the tick of the input it sent in this update, if any.
fn note(ns: Res<NsClient<Fleet>>, ships: Query<&Ship, With<NsHandle>>, mut game: ResMut<Game>) {
    if let Some(tick) = ns.newest_input_tick() {
        game.shown.entry(tick).or_insert_with(|| shown(ships.iter().copied()));
    }
}

#[test]
fn inputs_arrive_in_order_under_loss_and_drive_the_server() {
    let mut server = app();
    server
        .init_resource::<Log>()
        .add_systems(Update, sail)
        .add_systems(PostUpdate, steer.in_set(NetschemaSystems::Apply))
        .add_observer(welcome_pilot);
    for _ in 0..3 {
        server.world_mut().spawn((Ship { pos: [100.0, 0.0] }, NsReplicate));
    }
    let mut clients = [app(), app()];
    for client in &mut clients {
        client
            .init_resource::<Game>()
            .add_systems(PostUpdate, drive.in_set(NetschemaClientSystems::Input))
            .add_systems(PostUpdate, note.after(NetschemaClientSystems::Send));
    }
    server.finish();
    for client in &mut clients {
        client.finish();
        server.connect_client(client);
    }
    let mut links = [1, 2].map(|seed| LossyLink::new(seed, 0.1).with_latency(2));
    for _ in 0..TICKS {
        server.update();
        for (client, link) in clients.iter_mut().zip(&mut links) {
            link.exchange(&mut server, client);
            client.update();
        }
    }

    let log = server.world().resource::<Log>();
    for (client, link) in clients.iter_mut().zip(&links) {
        let entity = **client.world().resource::<TestClientEntity>();
        let taken = &log.taken[&entity];
        let received: Vec<&(u32, Stick, Source)> =
            taken.iter().filter(|(_, _, s)| *s == Source::Received).collect();
        println!(
            "{entity}: {} ticks, {} inputs received, link {:?}",
            taken.len(),
            received.len(),
            link.counts()
        );
        // One input per tick, ticks in a row; received ones whole and in the order set (the
        // ticks an update pushes at once carry the same input).
        assert!(taken.windows(2).all(|w| w[1].0 == w[0].0 + 1), "ticks skipped");
        assert!(received.iter().all(|(_, s, _)| s.dx == dx(s.seq)), "an input changed");
        let disorder = received.windows(2).find(|w| w[0].1.seq > w[1].1.seq);
        assert!(disorder.is_none(), "inputs out of order: {disorder:?}");
        assert!(received.len() as u32 > TICKS * 9 / 10, "{} received", received.len());

        // The ship moved by every input taken, and the client shows it there once it settles.
        let moved: f32 = taken.iter().map(|(_, s, _)| f32::from(s.dx) * STEP).sum();
        let own = client.world_mut().query_filtered::<&Ship, With<NsOwn>>().single(client.world());
        let own = own.unwrap().pos[0];
        assert!(moved.abs() > 10.0 && (own - moved).abs() <= 4.0 * 4.0 * STEP, "{own} {moved}");

        // Every rewind gave exactly what the client showed at that input's tick.
        let game = client.world().resource::<Game>();
        let mut compared = 0;
        for ((_, tick), seen) in log.seen.range((entity, 0)..=(entity, u32::MAX)) {
            if let Some(shown) = game.shown.get(tick) {
                assert_eq!(seen, shown, "tick {tick}");
                compared += 1;
            }
        }
        println!("{entity}: {compared} rewinds compared with what the client showed");
        assert!(compared as u32 > TICKS * 3 / 4, "{compared} rewinds compared");
    }
}

#[test]
fn a_client_without_the_servers_inputs_is_refused() {
    let mut server = app();
    let mut client = app_with(false);
    server.finish();
    client.finish();
    server.connect_client(&mut client);
    for _ in 0..3 {
        server.update();
        server.exchange_with_client(&mut client);
        client.update();
    }
    let peer = **client.world().resource::<TestClientEntity>();
    assert!(server.world().get::<AuthorizedClient>(peer).is_none());
    assert!(client.world().resource::<NsClient<Fleet>>().client().is_none());
}
