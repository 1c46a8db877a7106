//! Seed 001's cube scene under rapier3d (`schemas/cubes.netidl`).
//!
//! 900 one-metre cubes stand in a 30 × 30 grid (1.5 m apart) on a ground plane; a 3 m player
//! cube (cube 0) is driven along a figure of eight through the grid at up to 8 m/s and hops
//! every four seconds, scattering the cubes. Bodies fall asleep when they come to rest, so
//! resting cubes keep exactly the same pose. Gravity is −z; 60 Hz. `interacting` is set for
//! cubes whose centre is within 3.5 m of the player's. The seed picks where on the figure of
//! eight (a 16-second loop) the player's target starts: `(seed - 1) mod 16` seconds in, so
//! seed 1 starts at the beginning.

use netschema_lab::Snapshot;
use rapier3d::prelude::*;

use crate::{Recording, push};

/// The code generated from `schemas/cubes.netidl`.
// Generated items are `pub`; the scenario module keeps them to this crate.
#[allow(unreachable_pub)]
mod wire {
    netschema::include_schema!("cubes");
}

/// The schema's source.
pub(crate) const NETIDL: &str = include_str!("../schemas/cubes.netidl");

const RATE: f64 = 60.0;
const GRID: usize = 30;
const SPACING: f32 = 1.5;
const PLAYER_HALF: f32 = 1.5;

/// Simulates `frames` frames and records what a client sees (every cube).
pub(crate) fn record(frames: usize, seed: u64) -> Recording {
    let phase = (seed.wrapping_sub(1) % 16) as f32;
    let mut world = PhysicsWorld {
        gravity: Vector::new(0.0, 0.0, -9.81),
        integration_parameters: IntegrationParameters {
            dt: (1.0 / RATE) as f32,
            ..IntegrationParameters::default()
        },
        ..PhysicsWorld::default()
    };
    world.insert(
        RigidBodyBuilder::fixed().translation(Vector::new(0.0, 0.0, -1.0)),
        ColliderBuilder::cuboid(200.0, 200.0, 1.0).friction(0.8),
    );
    let mut bodies = Vec::with_capacity(GRID * GRID + 1);
    let (player, _) = world.insert(
        RigidBodyBuilder::dynamic().translation(Vector::new(-30.0, 0.0, PLAYER_HALF)),
        ColliderBuilder::cuboid(PLAYER_HALF, PLAYER_HALF, PLAYER_HALF).density(4.0).friction(0.8),
    );
    bodies.push(player);
    let offset = (GRID as f32 - 1.0) * SPACING / 2.0;
    for i in 0..GRID {
        for j in 0..GRID {
            let at = Vector::new(i as f32 * SPACING - offset, j as f32 * SPACING - offset, 0.5);
            let (h, _) = world.insert(
                RigidBodyBuilder::dynamic().translation(at),
                ColliderBuilder::cuboid(0.5, 0.5, 0.5).friction(0.8),
            );
            bodies.push(h);
        }
    }
    let mut snapshots = Vec::with_capacity(frames);
    for frame in 0..frames {
        let t = phase + frame as f32 / RATE as f32;
        // The player steers towards a point running along a figure of eight.
        let w = std::f32::consts::TAU / 16.0;
        let target = Vector::new(24.0 * (w * t).sin(), 16.0 * (2.0 * w * t).sin(), 0.0);
        let p = &mut world.bodies[player];
        let pos = p.translation();
        let mut v = (target - pos) * 2.0;
        v.z = 0.0;
        let speed = v.length();
        if speed > 8.0 {
            v *= 8.0 / speed;
        }
        let vz = if frame % 240 == 120 { 7.0 } else { p.linvel().z };
        p.set_linvel(Vector::new(v.x, v.y, vz), true);
        world.step();

        let player_pos = world.bodies[player].translation();
        let mut s = Snapshot::new();
        for (id, &h) in bodies.iter().enumerate() {
            let b = &world.bodies[h];
            let pos = b.translation();
            let q = b.rotation().to_array();
            let near = id != 0 && (pos - player_pos).length() < 3.5;
            let sent = wire::Cube {
                interacting: near,
                position: [f64::from(pos.x), f64::from(pos.y)],
                height: f64::from(pos.z),
                orientation: q.map(f64::from),
            };
            push(&mut s, id as u32, wire::Cube::CLASS_INDEX, &sent);
        }
        snapshots.push(s);
    }
    Recording {
        name: "cubes",
        rate_hz: RATE,
        schema: &wire::SCHEMA,
        capacity: GRID * GRID + 1,
        snapshots,
        events: Vec::new(),
        world: None,
    }
}
