//! Glam's vectors and quaternions as derived fields (feature `glam`): the same class table and
//! raw values as arrays. Run with `cargo test --features glam --test glam`.
#![cfg(feature = "glam")]

use glam::{DVec2, Quat, Vec3};
use netschema::Snapshot;

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Ship {
    #[netschema(vec3(fixed(-512.0, 512.0, res = 1 / 64)))]
    pos: Vec3,
    #[netschema(quat(bits = 12))]
    rot: Quat,
    #[netschema(vec2(fixed(-8.0, 8.0, res = 1 / 1024)))]
    drift: DVec2,
    #[netschema(vec3(fixed(-1.0, 1.0, res = 1 / 512)))]
    trail: [Vec3; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
#[netschema(crate = "netschema")]
struct ShipArrays {
    #[netschema(vec3(fixed(-512.0, 512.0, res = 1 / 64)))]
    pos: [f32; 3],
    #[netschema(quat(bits = 12))]
    rot: [f32; 4],
    #[netschema(vec2(fixed(-8.0, 8.0, res = 1 / 1024)))]
    drift: [f64; 2],
    #[netschema(vec3(fixed(-1.0, 1.0, res = 1 / 512)))]
    trail: [[f32; 3]; 2],
}

#[test]
fn glam_fields_quantise_as_arrays_do() {
    assert_eq!(Ship::CLASS.fields, ShipArrays::CLASS.fields);
    let ship = Ship {
        pos: Vec3::new(1.5, -2.25, 100.0),
        rot: Quat::from_rotation_z(0.7),
        drift: DVec2::new(0.5, -0.25),
        trail: [Vec3::new(0.5, 0.0, -0.5), Vec3::ZERO],
    };
    let arrays = ShipArrays {
        pos: ship.pos.to_array(),
        rot: ship.rot.to_array(),
        drift: ship.drift.to_array(),
        trail: ship.trail.map(|v| v.to_array()),
    };
    let n = Ship::CLASS.fields.len();
    let (mut a, mut b) = (vec![0; n], vec![0; n]);
    ship.try_quantise(&mut a).unwrap();
    arrays.try_quantise(&mut b).unwrap();
    assert_eq!(a, b);
    let back = Ship::dequantise(&a);
    assert_eq!(back.pos, ship.pos);
    assert!(back.rot.dot(ship.rot).abs() > 0.9999);
    assert_eq!(back.trail, ship.trail);
}
