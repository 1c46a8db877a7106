//! With interpolation, a client's components show the server's quantised values `delay` ticks
//! back: exactly a frame's values when render frames and server ticks keep step, and the
//! blend between two frames when the render clock falls between them.

use std::time::Duration;

use bevy::prelude::*;
use bevy::state::app::StatesPlugin;
use bevy::time::TimeUpdateStrategy;
use bevy_replicon::prelude::*;
use bevy_replicon::test_app::ServerTestAppExt;
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

const DELAY: u32 = 2;

/// Apps whose frames last `frame` seconds, for a server of 60 ticks a second.
fn app(frame: f64) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        StatesPlugin,
        RepliconPlugins.set(ServerPlugin::new(PostUpdate)),
        NetschemaPlugins::<Fleet>::new(ServerConfig::new(16, 16))
            .class::<Ship>()
            .interpolate(DELAY, 60.0),
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(frame)));
    app.finish();
    app
}

/// Runs `ticks` server ticks, the ship moving 1.5 a tick, with `renders` client frames per
/// tick; returns the x the client shows after each client frame, and the server's x per tick.
fn run(ticks: usize, renders: usize) -> (Vec<f32>, Vec<f32>) {
    let mut server = app(1.0 / 60.0);
    let mut client = app(1.0 / 60.0 / renders as f64);
    let ship = server.world_mut().spawn((Ship { pos: [0.0, 0.0] }, NsReplicate)).id();
    server.connect_client(&mut client);
    let (mut shown, mut sent) = (Vec::new(), Vec::new());
    for _ in 0..ticks {
        server.world_mut().get_mut::<Ship>(ship).unwrap().pos[0] += 1.5;
        sent.push(server.world().get::<Ship>(ship).unwrap().pos[0]);
        server.update();
        server.exchange_with_client(&mut client);
        for _ in 0..renders {
            client.update();
            let mut ships = client.world_mut().query_filtered::<&Ship, With<NsHandle>>();
            shown.push(ships.single(client.world()).unwrap().pos[0]);
        }
    }
    (shown, sent)
}

#[test]
fn a_frame_per_tick_shows_the_frame_delay_ticks_back() {
    let (shown, sent) = run(60, 1);
    for tick in 20..60 {
        assert_eq!(shown[tick], sent[tick - DELAY as usize], "tick {tick}");
    }
}

#[test]
fn frames_between_ticks_blend_the_ticks_around_them() {
    let (shown, sent) = run(60, 2);
    for tick in 20..60 {
        let (before, after) = (sent[tick - DELAY as usize - 1], sent[tick - DELAY as usize]);
        // Half a tick after the one before, then on the tick.
        assert_eq!(shown[2 * tick], (before + after) / 2.0, "tick {tick}, first frame");
        assert_eq!(shown[2 * tick + 1], after, "tick {tick}, second frame");
    }
}
