//! The game: a fleet of ships on circular courses, a pure function of a seed and the frame
//! number, so that a client can recompute the server's world at any frame and check what it
//! shows; and a pilot per player, steered by the player's inputs, that fires at the fleet.

use netschema::owned::Client;
use netschema::schema::Schema;
use netschema::{Input, Protocol, Snapshot};

/// A ship. Its `id` is replicated (it never changes, so it costs next to nothing once the
/// ship has entered) so that a client can recompute the ship's course.
#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
pub(crate) struct Ship {
    /// Which ship: `0..ships`.
    #[netschema(int(0, 65535))]
    pub(crate) id: u16,
    /// Position, metres.
    #[netschema(vec2(fixed(-1024.0, 1024.0, res = 1 / 64)))]
    pub(crate) pos: [f32; 2],
    /// Heading, radians.
    #[netschema(angle(bits = 10))]
    pub(crate) heading: f32,
}

/// A player's own ship, which its inputs steer.
#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
pub(crate) struct Pilot {
    /// Position, metres.
    #[netschema(vec2(fixed(-1024.0, 1024.0, res = 1 / 64)))]
    pub(crate) pos: [f32; 2],
    /// Heading, radians.
    #[netschema(angle(bits = 10))]
    pub(crate) heading: f32,
}

/// The schema the server and its clients share.
#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "fleet")]
pub(crate) enum Fleet {
    /// A ship of the fleet.
    Ship(Ship),
    /// A player's ship.
    Pilot(Pilot),
}

/// A player's input for one tick: how it steers its pilot, and whether it fires.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Input)]
pub(crate) struct Helm {
    /// 1 turns counter-clockwise, −1 clockwise, 0 holds the heading.
    #[netschema(int(-1, 1))]
    pub(crate) turn: i8,
    /// Whether the engine pushes the pilot forward.
    pub(crate) thrust: bool,
    /// Whether the pilot fires along its heading.
    pub(crate) fire: bool,
}

/// The schema of the inputs clients send: [`Helm`]'s.
pub(crate) const INPUT: &Schema = <Helm as Input>::SCHEMA;

/// A ship of the game's next version, with a finer heading: another schema.
#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
pub(crate) struct ShipV2 {
    /// Which ship.
    #[netschema(int(0, 65535))]
    pub(crate) id: u16,
    /// Position, metres.
    #[netschema(vec2(fixed(-1024.0, 1024.0, res = 1 / 64)))]
    pub(crate) pos: [f32; 2],
    /// Heading, radians, to a quarter of the old step.
    #[netschema(angle(bits = 12))]
    pub(crate) heading: f32,
}

/// The game's next version: a client built with it is refused by this server.
#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "fleet")]
pub(crate) enum FleetV2 {
    /// A ship.
    Ship(ShipV2),
}

/// The frame rate of the simulation.
pub(crate) const HZ: u32 = 60;

/// Frames in a ship's cycle: it sails for most of it and is docked (absent) for the rest.
const CYCLE: u32 = 1200;
const DOCKED: u32 = 150;

/// A deterministic hash of `seed`, `id` and a `salt`, as a number in [0, 1).
fn unit(seed: u64, id: u16, salt: u64) -> f32 {
    let mut x = seed ^ (u64::from(id) << 32) ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((x ^ (x >> 31)) >> 40) as f32 / (1u64 << 24) as f32
}

/// Ship `id` at `frame` of the world seeded with `seed`, or `None` while it is docked. Ships
/// dock in turn, so a few leave and enter every second.
pub(crate) fn ship(seed: u64, id: u16, frame: u32) -> Option<Ship> {
    let offset = (unit(seed, id, 0) * CYCLE as f32) as u32;
    if frame.wrapping_add(offset) % CYCLE < DOCKED {
        return None;
    }
    let centre = [unit(seed, id, 1) * 1600.0 - 800.0, unit(seed, id, 2) * 1600.0 - 800.0];
    let radius = 20.0 + unit(seed, id, 3) * 180.0;
    let speed = (0.2 + unit(seed, id, 4)) * if unit(seed, id, 5) < 0.5 { -1.0 } else { 1.0 };
    let phase = unit(seed, id, 6) * core::f32::consts::TAU + speed * frame as f32 / HZ as f32;
    let heading = phase + core::f32::consts::FRAC_PI_2.copysign(speed);
    Some(Ship {
        id,
        pos: [centre[0] + radius * phase.cos(), centre[1] + radius * phase.sin()],
        heading: heading.rem_euclid(core::f32::consts::TAU) - core::f32::consts::PI,
    })
}

/// Radians a pilot turns per frame.
const TURN: f32 = 3.0 / HZ as f32;
/// Metres a pilot moves per frame under thrust.
const SPEED: f32 = 60.0 / HZ as f32;
/// How far a pilot may go from the centre, metres.
const EDGE: f32 = 1000.0;
/// How far a shot reaches, metres.
pub(crate) const RANGE: f32 = 400.0;
/// How close to a ship's centre a shot must pass to hit it, metres.
pub(crate) const RADIUS: f32 = 10.0;

/// Where player `n`'s pilot starts.
pub(crate) fn spawn(n: u64) -> Pilot {
    let a = n as f32 * 2.4;
    Pilot { pos: [300.0 * a.cos(), 300.0 * a.sin()], heading: 0.0 }
}

/// `pilot` one frame later under `helm`.
pub(crate) fn steer(pilot: Pilot, helm: Helm) -> Pilot {
    let heading = wrap(pilot.heading + TURN * f32::from(helm.turn));
    let step = if helm.thrust { SPEED } else { 0.0 };
    let pos = [
        (pilot.pos[0] + step * heading.cos()).clamp(-EDGE, EDGE),
        (pilot.pos[1] + step * heading.sin()).clamp(-EDGE, EDGE),
    ];
    Pilot { pos, heading }
}

/// An angle in [−π, π).
pub(crate) fn wrap(angle: f32) -> f32 {
    (angle + core::f32::consts::PI).rem_euclid(core::f32::consts::TAU) - core::f32::consts::PI
}

/// The ship a shot from `pilot` along its heading hits: of the `ships` whose centre the shot
/// passes within [`RADIUS`] of, ahead and within [`RANGE`], the nearest; its `id`. Both ends
/// judge with it: the client on what it shows, the server on what it rewinds to.
pub(crate) fn aim(pilot: &Pilot, ships: impl IntoIterator<Item = Ship>) -> Option<u16> {
    let (sin, cos) = pilot.heading.sin_cos();
    let mut best: Option<(f32, u16)> = None;
    for ship in ships {
        let (dx, dy) = (ship.pos[0] - pilot.pos[0], ship.pos[1] - pilot.pos[1]);
        let (along, across) = (dx * cos + dy * sin, dy * cos - dx * sin);
        let ahead = along > 0.0 && along <= RANGE && across.abs() <= RADIUS;
        if ahead && best.is_none_or(|(d, id)| (along, ship.id) < (d, id)) {
            best = Some((along, ship.id));
        }
    }
    best.map(|(_, id)| id)
}

/// What a check of a client's view against the recomputed world found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Check {
    /// Ships the client shows.
    pub(crate) ships: usize,
    /// Ships whose values are not the world's at the frame they came from.
    pub(crate) wrong: usize,
    /// Sum over the ships of how many frames old their values are.
    pub(crate) age: u64,
}

/// Checks every ship `client` shows at its current frame against the world recomputed from
/// `seed` at the frame each ship's values came from ([`Client::age`] frames earlier).
pub(crate) fn check(seed: u64, client: &Client<Fleet>) -> Check {
    let Some(frame) = client.frame() else { return Check::default() };
    let mut check = Check::default();
    let (mut shown, mut truth) = ([0; 4], [0; 4]);
    for (handle, shown_ship) in client.iter::<Ship>() {
        let age = client.age(handle).unwrap_or(u32::MAX);
        let source = frame.checked_sub(age).and_then(|f| ship(seed, shown_ship.id, f));
        shown_ship.quantise(&mut shown);
        let right = source.is_some_and(|s| {
            s.quantise(&mut truth);
            truth == shown
        });
        check.ships += 1;
        check.wrong += usize::from(!right);
        check.age += u64::from(age);
    }
    check
}
