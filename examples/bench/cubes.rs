//! Seed 001's cube scene under rapier3d (`schemas/cubes.netidl`).
//!
//! 900 one-metre cubes stand in a 30 × 30 grid (1.5 m apart) on a ground plane; a 3 m player
//! cube (cube 0) is driven along a figure of eight through the grid at up to 8 m/s and hops
//! every four seconds, scattering the cubes. Bodies fall asleep when they come to rest, so
//! resting cubes keep exactly the same pose. Gravity is −z; 60 Hz. `interacting` is set for
//! cubes whose centre is within 3.5 m of the player's.

use netschema_idl::compare::Snapshot;
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::quant::{FixedQuant, QuatQuant};
use netschema_runtime::schema::{Class, Field, Schema};
use rapier3d::prelude::*;

use crate::Recording;

/// The schema's source.
pub(crate) const NETIDL: &str = include_str!("schemas/cubes.netidl");

const XY: FixedQuant = match FixedQuant::with_resolution(-256.0, 255.998046875, 1.0 / 512.0) {
    Ok(q) => q,
    Err(_) => panic!("xy"),
};
const Z: FixedQuant = match FixedQuant::with_resolution(0.0, 31.998046875, 1.0 / 512.0) {
    Ok(q) => q,
    Err(_) => panic!("z"),
};
const ORIENTATION: QuatQuant = match QuatQuant::new(9) {
    Ok(q) => q,
    Err(_) => panic!("orientation"),
};
const C: FixedQuant = ORIENTATION.component();
const DEFAULT: &[Predictor] = &[Predictor::Hold, Predictor::Linear, Predictor::Quadratic];
static FIELDS: [Field; 8] = [
    Field::categorical("interacting", 2),
    Field::numeric("position.x", XY.raw_min(), XY.raw_max(), false, DEFAULT),
    Field::numeric("position.y", XY.raw_min(), XY.raw_max(), false, DEFAULT),
    Field::numeric("height", Z.raw_min(), Z.raw_max(), false, DEFAULT),
    Field::categorical("orientation.largest", 4),
    Field::numeric("orientation.c0", C.raw_min(), C.raw_max(), false, DEFAULT),
    Field::numeric("orientation.c1", C.raw_min(), C.raw_max(), false, DEFAULT),
    Field::numeric("orientation.c2", C.raw_min(), C.raw_max(), false, DEFAULT),
];
static CLASSES: [Class; 1] = [Class { name: "Cube", fields: &FIELDS }];
/// The runtime descriptors of `cubes.netidl`, written by hand until code generation lands.
pub(crate) static SCHEMA: Schema = Schema::new("cubes", &CLASSES);

const RATE: f64 = 60.0;
const GRID: usize = 30;
const SPACING: f32 = 1.5;
const PLAYER_HALF: f32 = 1.5;

/// Simulates `frames` frames and records what a client sees (every cube).
pub(crate) fn record(frames: usize, _seed: u64) -> Recording {
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
        let t = frame as f32 / RATE as f32;
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
            let o = ORIENTATION.quantise([
                f64::from(q[0]),
                f64::from(q[1]),
                f64::from(q[2]),
                f64::from(q[3]),
            ]);
            let row = [
                i32::from(near),
                XY.quantise(f64::from(pos.x)),
                XY.quantise(f64::from(pos.y)),
                Z.quantise(f64::from(pos.z)),
                o[0],
                o[1],
                o[2],
                o[3],
            ];
            s.push(id as u32, 0, &row);
        }
        snapshots.push(s);
    }
    Recording {
        name: "cubes",
        rate_hz: RATE,
        schema: &SCHEMA,
        capacity: GRID * GRID + 1,
        snapshots,
        world: None,
    }
}
