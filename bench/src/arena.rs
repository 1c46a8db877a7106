//! A first-person arena (`schemas/arena.netidl`): players driven by a model of people at a
//! mouse and a keyboard, seen by player 0 (and, when recording a trace, by every player).
//!
//! The map is 64 m square, with walls and pillars, two platforms 3 m up reached by ramps, a
//! 6 m tower in the middle with a ramp of its own, two teleporters and four items. Every player
//! is a person:
//!
//! - **View**: the mouse moves in counts of 0.066° (a sensitivity of 3 at 0.022° a count), so
//!   yaw and pitch change by whole counts. The hand rests for 0.2–1.5 s at a time (the angles
//!   hold exactly), sweeps in smooth random turns of 0.2–1 s, flicks toward an enemy that comes into sight
//!   (in 0.1–0.25 s, overshooting by up to a tenth) and then tracks it with a lag and a tremor.
//!   Pitch stays within ±89°.
//! - **Movement**: the keys change a few times a second (forward, forward and a strafe, a
//!   strafe, back, none; more strafing in a fight), and Quake's ground and air acceleration and
//!   friction turn them into velocity: 8 m/s on the ground, gravity 20 m/s², jumps at 7 m/s.
//!   Walls stop a player and it slides along them, platform edges drop it, teleporters move it.
//! - **Fighting**: every player fights every other. A player takes on the nearest enemy in
//!   sight within 60° of where it looks, keeps it while it stays in sight and alive, and fires
//!   when its aim is within 4°; a shot hits with a chance that falls with the
//!   aim's error and the distance; armour takes two thirds of the damage. A dead player lies
//!   still for 2 s, then respawns at a spawn point: the same entity, its position jumping.
//!   Weapons change now and then; items restore health and armour.
//! - **Animation**: the frame of the current animation (run, idle, jump, attack, death) at
//!   10 frames a second.
//! - **Sight**: a player sees the others within 12 m, and those within 48 m that no wall
//!   hides, so players enter and leave each other's view.
//! - **Time**: frames come `1 / rate` s apart with a jitter of 3 %, and one in a hundred comes
//!   late by half to one and a half frames; the simulation steps by the actual interval,
//!   which a recorded trace's `time` gives.

use std::f64::consts::{PI, TAU};
use std::path::Path;

use plotters::prelude::*;

use netschema::SnapshotEnum as _;
use netschema_lab::trace::TraceFrame;
use netschema_lab::{Event, Rng, Snapshot};

use crate::{Recording, event, push};
use wire::{Action, Weapon};

/// The code generated from `schemas/arena.netidl`.
// Generated items are `pub`; the scenario module keeps them to this crate.
#[allow(unreachable_pub)]
mod wire {
    netschema::include_schema!("arena");
}

/// The schema's source.
pub(crate) const NETIDL: &str = include_str!("../schemas/arena.netidl");

/// The arena's options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Config {
    /// Players, 1 to [`MAX_PLAYERS`].
    pub(crate) players: usize,
    /// Nominal frames per second.
    pub(crate) rate: f64,
    /// Whether each frame also sends player 0 its events (hits and deaths of players it sees).
    pub(crate) events: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config { players: 16, rate: 30.0, events: false }
    }
}

/// Most players `--players` allows.
pub(crate) const MAX_PLAYERS: usize = 64;

const MAP: f64 = 64.0;
const RADIUS: f64 = 0.4;
const MAX_SPEED: f64 = 8.0;
const GROUND_ACCEL: f64 = 10.0;
const AIR_ACCEL: f64 = 1.0;
/// The most speed a player adds toward its wish direction in the air (Quake's 30 units).
const AIR_WISH: f64 = 0.76;
const FRICTION: f64 = 6.0;
const STOP_SPEED: f64 = 2.5;
const GRAVITY: f64 = 20.0;
const JUMP: f64 = 7.0;
/// The highest ledge a player walks up.
const STEP: f64 = 0.5;
/// One mouse count, in radians.
const COUNT: f64 = 0.066 * PI / 180.0;
const NEAR: f64 = 12.0;
const FAR: f64 = 48.0;
const DEAD_TIME: f64 = 2.0;
const ITEM_RESPAWN: f64 = 20.0;

/// An axis-aligned rectangle of the map, `[x0, y0, x1, y1]`.
type Rect = [f64; 4];

fn inside(r: &Rect, x: f64, y: f64, margin: f64) -> bool {
    x > r[0] - margin && x < r[2] + margin && y > r[1] - margin && y < r[3] + margin
}

/// Walls and pillars, as high as anyone jumps.
const WALLS: [Rect; 8] = [
    [16.0, 20.0, 17.0, 44.0],
    [47.0, 20.0, 48.0, 44.0],
    [26.0, 10.0, 38.0, 11.0],
    [26.0, 53.0, 38.0, 54.0],
    [8.0, 8.0, 10.0, 10.0],
    [54.0, 54.0, 56.0, 56.0],
    [22.0, 22.0, 24.0, 24.0],
    [40.0, 40.0, 42.0, 42.0],
];

/// Raised floors: a rectangle and its height at its low-x and high-x edges (a ramp rises or
/// falls along x; a platform has both the same).
const FLOORS: [(Rect, f64, f64); 6] = [
    ([2.0, 46.0, 14.0, 62.0], 3.0, 3.0),
    ([14.0, 48.0, 20.0, 54.0], 3.0, 0.0),
    ([50.0, 2.0, 62.0, 18.0], 3.0, 3.0),
    ([44.0, 10.0, 50.0, 16.0], 0.0, 3.0),
    ([28.0, 28.0, 36.0, 36.0], 6.0, 6.0),
    ([36.0, 30.0, 46.0, 34.0], 6.0, 0.0),
];

/// Teleporter pads and where each sends a player.
const TELEPORTERS: [(Rect, [f64; 2]); 2] =
    [([4.0, 4.0, 6.0, 6.0], [56.0, 48.0]), ([57.0, 57.0, 59.0, 59.0], [8.0, 14.0])];

const SPAWNS: [[f64; 2]; 8] = [
    [4.0, 32.0],
    [60.0, 32.0],
    [32.0, 4.0],
    [32.0, 60.0],
    [8.0, 56.0],
    [56.0, 8.0],
    [20.0, 8.0],
    [44.0, 56.0],
];

/// Items: where, and how much health (or, negative, armour) they give.
const ITEMS: [([f64; 2], i32); 4] =
    [([32.0, 7.0], 25), ([32.0, 57.0], -50), ([32.0, 32.0], 50), ([6.0, 32.0], -50)];

/// Cooldown (s) and damage of each weapon, in the schema's order.
const WEAPONS: [(f64, i32); 4] = [(0.1, 7), (1.0, 50), (0.8, 90), (1.5, 80)];

/// The height of the floor at `(x, y)`.
fn ground(x: f64, y: f64) -> f64 {
    FLOORS
        .iter()
        .filter(|(r, ..)| inside(r, x, y, 0.0))
        .fold(0.0, |g, (r, h0, h1)| g.max(h0 + (h1 - h0) * (x - r[0]) / (r[2] - r[0])))
}

/// Whether a player with its feet at `z` cannot stand at `(x, y)`: off the map, in a wall, or
/// before a ledge higher than a step.
fn blocked(x: f64, y: f64, z: f64) -> bool {
    let off = !(RADIUS..=MAP - RADIUS).contains(&x) || !(RADIUS..=MAP - RADIUS).contains(&y);
    off || WALLS.iter().any(|w| inside(w, x, y, RADIUS)) || ground(x, y) - z > STEP
}

/// Whether a wall stands between `a` and `b` (seen from above).
fn hidden(a: [f64; 3], b: [f64; 3]) -> bool {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    WALLS.iter().any(|w| {
        // The part of the segment inside the rectangle's slabs, as fractions of its length.
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for (d, p, lo, hi) in [(dx, a[0], w[0], w[2]), (dy, a[1], w[1], w[3])] {
            if d.abs() < 1e-12 {
                if p < lo || p > hi {
                    return false;
                }
            } else {
                let (u, v) = ((lo - p) / d, (hi - p) / d);
                t0 = t0.max(u.min(v));
                t1 = t1.min(u.max(v));
            }
        }
        t0 <= t1
    })
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// About normally distributed, mean 0 and deviation 1 (the sum of four uniforms).
fn normal(rng: &mut Rng) -> f64 {
    ((0..4).map(|_| rng.unit()).sum::<f64>() - 2.0) * 3f64.sqrt()
}

/// `a - b` as an angle in `(-π, π]`.
fn turn(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(TAU);
    if d > PI { d - TAU } else { d }
}

/// What the hand on the mouse is doing.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Hand {
    /// Resting: the view holds.
    Still,
    /// Sweeping in a smooth random turn.
    Sweep,
    /// Flicking from one view to another.
    Flick { from: [f64; 2], to: [f64; 2], t: f64, length: f64 },
    /// Following the target.
    Track,
}

struct Player {
    pos: [f64; 3],
    vel: [f64; 3],
    on_ground: bool,
    /// Yaw and pitch, radians.
    view: [f64; 2],
    /// Turn rates of a sweep, rad/s.
    rate: [f64; 2],
    /// Turns not yet a whole mouse count.
    residue: [f64; 2],
    hand: Hand,
    hand_left: f64,
    /// Forward and sideways keys, each -1, 0 or 1.
    keys: [f64; 2],
    keys_left: f64,
    target: Option<usize>,
    health: i32,
    armour: i32,
    weapon: usize,
    cooldown: f64,
    action: Action,
    action_left: f64,
    dead_left: f64,
    /// The current animation's first frame and the time it has played.
    anim: (i32, f64),
}

impl Player {
    fn spawn(rng: &mut Rng, at: [f64; 2]) -> Player {
        Player {
            pos: [at[0], at[1], ground(at[0], at[1])],
            vel: [0.0; 3],
            on_ground: true,
            // Facing any whole number of mouse counts.
            view: [rng.below((TAU / COUNT) as u64) as f64 * COUNT, 0.0],
            rate: [0.0; 2],
            residue: [0.0; 2],
            hand: Hand::Still,
            hand_left: rng.range(0.1, 1.2),
            keys: [0.0; 2],
            keys_left: 0.0,
            target: None,
            health: 100,
            armour: 0,
            weapon: 0,
            cooldown: 0.0,
            action: Action::Idle,
            action_left: 0.0,
            dead_left: 0.0,
            anim: (12, 0.0),
        }
    }

    fn alive(&self) -> bool {
        self.dead_left <= 0.0
    }

    /// The eyes, 1.6 m above the feet.
    fn eyes(&self) -> [f64; 3] {
        [self.pos[0], self.pos[1], self.pos[2] + 1.6]
    }

    /// The yaw and pitch that look at `p`'s chest.
    fn aim_at(&self, p: &Player) -> [f64; 2] {
        let (e, t) = (self.eyes(), [p.pos[0], p.pos[1], p.pos[2] + 1.2]);
        let flat = ((t[0] - e[0]).powi(2) + (t[1] - e[1]).powi(2)).sqrt();
        [(t[1] - e[1]).atan2(t[0] - e[0]), (t[2] - e[2]).atan2(flat)]
    }

    /// Moves the view by `delta` radians, in whole mouse counts.
    fn look(&mut self, delta: [f64; 2]) {
        for ((view, residue), d) in self.view.iter_mut().zip(&mut self.residue).zip(delta) {
            let want = d + *residue;
            let counts = (want / COUNT).round();
            *residue = want - counts * COUNT;
            *view += counts * COUNT;
        }
        let limit = 89f64.to_radians();
        self.view[1] = self.view[1].clamp(-limit, limit);
        self.view[0] = self.view[0].rem_euclid(TAU);
    }

    /// The hand on the mouse for one frame of `dt` seconds, aiming at `aim` when there is a
    /// target (and `new_target` when it just appeared).
    fn mouse(&mut self, rng: &mut Rng, dt: f64, aim: Option<[f64; 2]>, new_target: bool) {
        match (aim, self.hand) {
            (Some(to), _) if new_target => {
                // A flick overshoots by up to a tenth of the turn.
                let over = 1.0 + rng.range(0.0, 0.1);
                let to = [
                    self.view[0] + turn(to[0], self.view[0]) * over,
                    self.view[1] + (to[1] - self.view[1]) * over,
                ];
                let length = rng.range(0.1, 0.25);
                self.hand = Hand::Flick { from: self.view, to, t: 0.0, length };
            }
            (None, Hand::Track | Hand::Flick { .. }) => {
                self.hand = Hand::Still;
                self.hand_left = rng.range(0.1, 0.6);
            }
            _ => {}
        }
        let delta = match &mut self.hand {
            Hand::Still => [0.0; 2],
            Hand::Sweep => {
                let decay = (-dt / 0.3).exp();
                for (axis, scale) in [(0, 2.5), (1, 0.7)] {
                    self.rate[axis] = self.rate[axis] * decay + normal(rng) * scale * dt.sqrt();
                }
                // Pitch drifts back toward the horizon.
                self.rate[1] -= self.view[1] * dt;
                [self.rate[0] * dt, self.rate[1] * dt]
            }
            Hand::Flick { from, to, t, length } => {
                *t = (*t + dt / *length).min(1.0);
                let ease = *t * *t * (3.0 - 2.0 * *t);
                let at = [from[0] + (to[0] - from[0]) * ease, from[1] + (to[1] - from[1]) * ease];
                if *t >= 1.0 {
                    self.hand = Hand::Track;
                }
                [turn(at[0], self.view[0]), at[1] - self.view[1]]
            }
            Hand::Track => {
                let to = aim.unwrap_or(self.view);
                let tremor = [normal(rng) * 0.3 * dt, normal(rng) * 0.1 * dt];
                let follow = (8.0 * dt).min(1.0);
                [
                    turn(to[0], self.view[0]) * follow + tremor[0],
                    (to[1] - self.view[1]) * follow + tremor[1],
                ]
            }
        };
        self.look(delta);
        if matches!(self.hand, Hand::Still | Hand::Sweep) {
            self.hand_left -= dt;
            if self.hand_left <= 0.0 {
                let still = rng.chance(0.55);
                self.hand = if still { Hand::Still } else { Hand::Sweep };
                self.hand_left = if still { rng.range(0.2, 1.5) } else { rng.range(0.2, 1.0) };
                self.rate = [0.0; 2];
            }
        }
    }

    /// New keys when the old ones have been held long enough.
    fn keyboard(&mut self, rng: &mut Rng, dt: f64) {
        self.keys_left -= dt;
        if self.keys_left > 0.0 {
            return;
        }
        self.keys_left = rng.range(0.15, 1.0);
        let side = if rng.chance(0.5) { 1.0 } else { -1.0 };
        let r = rng.unit();
        self.keys = match self.target.is_some() {
            // In a fight: mostly strafing.
            true if r < 0.2 => [1.0, 0.0],
            true if r < 0.6 => [0.0, side],
            true if r < 0.9 => [1.0, side],
            true => [-1.0, side],
            false if r < 0.45 => [1.0, 0.0],
            false if r < 0.65 => [1.0, side],
            false if r < 0.8 => [0.0, side],
            false if r < 0.85 => [-1.0, 0.0],
            false => [0.0, 0.0],
        };
    }

    /// One frame of Quake-like movement: friction and acceleration toward the keys' direction,
    /// gravity, jumps, walls, ledges and teleporters.
    fn physics(&mut self, rng: &mut Rng, dt: f64) {
        let yaw = self.view[0];
        let (forward, right) = ([yaw.cos(), yaw.sin()], [yaw.sin(), -yaw.cos()]);
        let [f, s] = if self.alive() { self.keys } else { [0.0; 2] };
        let mut wish = [forward[0] * f + right[0] * s, forward[1] * f + right[1] * s];
        let len = (wish[0] * wish[0] + wish[1] * wish[1]).sqrt();
        let speed = if len > 0.0 { MAX_SPEED } else { 0.0 };
        if len > 0.0 {
            wish = [wish[0] / len, wish[1] / len];
        }
        let accelerate = |vel: &mut [f64; 3], cap: f64, accel: f64| {
            let current = vel[0] * wish[0] + vel[1] * wish[1];
            let add = cap - current;
            if add > 0.0 {
                let gain = (accel * speed * dt).min(add);
                vel[0] += gain * wish[0];
                vel[1] += gain * wish[1];
            }
        };
        if self.on_ground {
            let v = (self.vel[0].powi(2) + self.vel[1].powi(2)).sqrt();
            if v > 0.0 {
                let drop = v.max(STOP_SPEED) * FRICTION * dt;
                let scale = (v - drop).max(0.0) / v;
                self.vel[0] *= scale;
                self.vel[1] *= scale;
            }
            accelerate(&mut self.vel, speed, GROUND_ACCEL);
            let eager = if self.target.is_some() { 1.2 } else { 0.3 };
            if self.alive() && rng.chance(eager * dt) {
                self.vel[2] = JUMP;
                self.on_ground = false;
            }
        } else {
            accelerate(&mut self.vel, speed.min(AIR_WISH), AIR_ACCEL);
        }
        // Each horizontal axis on its own, so that a player slides along a wall.
        for axis in 0..2 {
            let mut to = self.pos;
            to[axis] += self.vel[axis] * dt;
            if blocked(to[0], to[1], self.pos[2]) {
                self.vel[axis] = 0.0;
            } else {
                self.pos = to;
            }
        }
        let floor = ground(self.pos[0], self.pos[1]);
        if self.on_ground && self.pos[2] - floor <= STEP {
            self.pos[2] = floor;
        } else {
            self.on_ground = false;
            self.vel[2] -= GRAVITY * dt;
            self.pos[2] += self.vel[2] * dt;
            if self.pos[2] <= floor {
                (self.pos[2], self.vel[2], self.on_ground) = (floor, 0.0, true);
            }
        }
        if self.on_ground
            && let Some((_, exit)) =
                TELEPORTERS.iter().find(|(r, _)| inside(r, self.pos[0], self.pos[1], 0.0))
        {
            self.pos = [exit[0], exit[1], ground(exit[0], exit[1])];
        }
    }

    /// One frame of a player's turn: its hand, keys and trigger while alive (given its enemy:
    /// who, the view that aims at it and how far it is), its respawn when dead, then its
    /// movement. Returns the enemy it hit and the damage.
    fn act(
        &mut self,
        rng: &mut Rng,
        dt: f64,
        target: Option<(usize, [f64; 2], f64)>,
    ) -> Option<(usize, i32)> {
        let new_target = target.is_some_and(|(j, ..)| self.target != Some(j));
        self.target = target.map(|(j, ..)| j);
        self.cooldown -= dt;
        self.action_left -= dt;
        if self.action_left <= 0.0 {
            self.action = Action::Idle;
        }
        let mut hit = None;
        if self.alive() {
            self.mouse(rng, dt, target.map(|(_, aim, _)| aim), new_target);
            self.keyboard(rng, dt);
            if self.action == Action::Idle && rng.chance(0.05 * dt) {
                self.weapon = (self.weapon + 1 + rng.below(3) as usize) % WEAPONS.len();
                (self.action, self.action_left) = (Action::Switching, 0.5);
            }
            let ready = self.cooldown <= 0.0 && self.action != Action::Switching;
            if let (Some((j, to, d)), true) = (target, ready) {
                let error = turn(to[0], self.view[0]).hypot(to[1] - self.view[1]).to_degrees();
                if error < 4.0 {
                    let (cooldown, damage) = WEAPONS[self.weapon];
                    self.cooldown = cooldown;
                    (self.action, self.action_left) = (Action::Firing, 0.15);
                    let chance = (1.0 - error / 4.0).clamp(0.1, 0.6) * (1.0 - d / 60.0);
                    hit = rng.chance(chance).then_some((j, damage));
                }
            }
        } else {
            self.dead_left -= dt;
            if self.dead_left <= 0.0 {
                let at = SPAWNS[rng.below(SPAWNS.len() as u64) as usize];
                *self = Player::spawn(rng, at);
            }
        }
        self.physics(rng, dt);
        hit
    }

    /// Takes `damage` (armour first absorbs two thirds of it); a player whose health falls to 0
    /// dies. Returns whether it died.
    fn hurt(&mut self, damage: i32) -> bool {
        if damage <= 0 || !self.alive() {
            return false;
        }
        let absorbed = self.armour.min(damage * 2 / 3);
        self.armour -= absorbed;
        self.health = (self.health - damage + absorbed).max(-40);
        if self.health <= 0 {
            (self.dead_left, self.action, self.target) = (DEAD_TIME, Action::Idle, None);
        }
        !self.alive()
    }

    /// The animation frame: its first frame and length, played at 10 frames a second.
    fn animate(&mut self, dt: f64) -> i32 {
        let moving = self.vel[0].powi(2) + self.vel[1].powi(2) > 0.25;
        let (first, frames, looped) = match () {
            _ if !self.alive() => (40, 8, false),
            _ if !self.on_ground => (20, 1, false),
            _ if self.action == Action::Firing => (30, 4, true),
            _ if moving => (0, 12, true),
            _ => (12, 8, true),
        };
        if self.anim.0 != first {
            self.anim = (first, 0.0);
        }
        self.anim.1 += dt;
        let at = (self.anim.1 * 10.0) as i32;
        first + if looped { at % frames } else { at.min(frames - 1) }
    }
}

/// Whether `a` sees `b`.
fn sees(a: &Player, b: &Player) -> bool {
    let d = distance(a.pos, b.pos);
    d <= NEAR || (d <= FAR && !hidden(a.eyes(), b.eyes()))
}

/// The players and the items' respawn timers.
struct Arena {
    players: Vec<Player>,
    /// Seconds until each item is back.
    items: [f64; ITEMS.len()],
}

impl Arena {
    fn new(rng: &mut Rng, players: usize) -> Arena {
        let players = (0..players).map(|i| Player::spawn(rng, SPAWNS[i % SPAWNS.len()])).collect();
        Arena { players, items: [0.0; ITEMS.len()] }
    }

    /// The enemy player `i` fights, given who sees whom: the one it fought while that one is
    /// still in sight and alive, else the nearest in sight within 60° of where it looks.
    fn target_of(&self, i: usize, sight: &[Vec<bool>]) -> Option<usize> {
        let (players, p) = (&self.players, &self.players[i]);
        let fightable = |j: usize| sight[i][j] && players[j].alive();
        let in_front = |j: usize| turn(p.aim_at(&players[j])[0], p.view[0]).abs() < 1.05;
        let near = |a: &usize, b: &usize| {
            distance(p.pos, players[*a].pos).total_cmp(&distance(p.pos, players[*b].pos))
        };
        match p.target.filter(|&j| p.alive() && fightable(j)) {
            Some(j) => Some(j),
            None if p.alive() => {
                (0..players.len()).filter(|&j| fightable(j) && in_front(j)).min_by(near)
            }
            None => None,
        }
    }

    /// One frame of `dt` seconds; returns each player's animation frame, and the frame's
    /// events by player index.
    fn step(&mut self, rng: &mut Rng, dt: f64) -> (Vec<i32>, Vec<Happened>) {
        let n = self.players.len();
        // Who sees whom, before anyone moves.
        let sight: Vec<Vec<bool>> = (0..n)
            .map(|i| (0..n).map(|j| i != j && sees(&self.players[i], &self.players[j])).collect())
            .collect();
        let (mut damage, mut last_hit, mut events) = (vec![0i32; n], vec![None; n], Vec::new());
        for i in 0..n {
            let target = self.target_of(i, &sight).map(|j| {
                let (p, q) = (&self.players[i], &self.players[j]);
                (j, p.aim_at(q), distance(p.pos, q.pos))
            });
            if let Some((j, hurt)) = self.players[i].act(rng, dt, target) {
                damage[j] += hurt;
                last_hit[j] = Some(i);
                if self.players[j].alive() {
                    events.push(Happened::Hit { target: j, shooter: i, damage: hurt });
                }
            }
        }
        for (j, (p, hurt)) in self.players.iter_mut().zip(damage).enumerate() {
            if p.hurt(hurt) {
                events.push(Happened::Died { player: j, by: last_hit[j] });
            }
        }
        // Items go to the first player standing on them, and come back 20 s later.
        for (left, (at, gives)) in self.items.iter_mut().zip(ITEMS) {
            *left -= dt;
            if *left > 0.0 {
                continue;
            }
            let taker = self.players.iter_mut().find(|p| {
                p.alive() && p.on_ground && (p.pos[0] - at[0]).hypot(p.pos[1] - at[1]) < 1.0
            });
            if let Some(p) = taker {
                if gives > 0 {
                    p.health = (p.health + gives).min(100);
                } else {
                    p.armour = (p.armour - gives).min(200);
                }
                *left = ITEM_RESPAWN;
            }
        }
        (self.players.iter_mut().map(|p| p.animate(dt)).collect(), events)
    }
}

/// An event of a frame of the arena, by player index.
#[derive(Clone, Copy, Debug)]
enum Happened {
    /// `shooter` hit `target` for `damage`.
    Hit { target: usize, shooter: usize, damage: i32 },
    /// `player` died, `by` hitting it last.
    Died { player: usize, by: Option<usize> },
}

impl Happened {
    /// The event as the client of `view` is sent it, if it sees its subject: each player
    /// named as its id in `view`, or none if `view` does not hold it (a recorded trace's
    /// world frame holds every player, and its events every reference).
    fn sent(self, view: &Snapshot) -> Option<Event> {
        let seen = |j: usize| view.ids.binary_search(&(j as u32)).is_ok();
        let id = |j: usize| netschema::Ref::new(seen(j).then_some(j as u64));
        match self {
            Happened::Hit { target, shooter, damage } => seen(target).then(|| {
                let damage = damage.clamp(0, 255);
                event(
                    &wire::SCHEMA,
                    &wire::Hit { target: id(target), shooter: id(shooter), damage },
                )
            }),
            Happened::Died { player, by } => seen(player).then(|| {
                let by = netschema::Ref::new(by.filter(|&j| seen(j)).map(|j| j as u64));
                event(&wire::SCHEMA, &wire::Died { player: id(player), by })
            }),
        }
    }
}

/// Simulates `frames` frames of `config` and records what player 0 sees; with `all_players`,
/// also every player and what each sees (clients `0` to `players − 1`), with the frames' times.
pub(crate) fn record(frames: usize, seed: u64, config: Config, all_players: bool) -> Recording {
    let mut rng = Rng(seed ^ 0x0061_7265_6e61);
    let n = config.players.clamp(1, MAX_PLAYERS);
    let mut arena = Arena::new(&mut rng, n);
    let nominal = 1.0 / config.rate;
    let mut time = 0.0;
    let (mut snapshots, mut events) = (Vec::with_capacity(frames), Vec::new());
    let mut world = all_players.then(|| Vec::with_capacity(frames));
    for frame in 0..frames {
        let mut dt = nominal * (1.0 + 0.03 * normal(&mut rng)).clamp(0.8, 1.2);
        if rng.chance(0.01) {
            dt += nominal * rng.range(0.5, 1.5);
        }
        time += dt;
        let (anims, happened) = arena.step(&mut rng, dt);
        let players = &arena.players;
        // What a player sees (itself too), or with `None` every player.
        let shown = |who: Option<usize>| {
            snapshot(players, &anims, |j| {
                who.is_none_or(|w| j == w || sees(&players[w], &players[j]))
            })
        };
        let view = shown(Some(0));
        if config.events {
            events.push(happened.iter().filter_map(|h| h.sent(&view)).collect());
        }
        snapshots.push(view);
        if let Some(frames) = world.as_mut() {
            // By client name, in name order, as a trace lists them.
            let mut clients: Vec<_> = (0..n).map(|c| (c.to_string(), shown(Some(c)).ids)).collect();
            clients.sort_by(|a, b| a.0.cmp(&b.0));
            let world = shown(None);
            let events = match config.events {
                true => happened.iter().filter_map(|h| h.sent(&world)).collect(),
                false => Vec::new(),
            };
            frames.push(TraceFrame {
                frame: Some(frame as u64),
                time: Some(time),
                world,
                clients: Some(clients),
                events,
            });
        }
    }
    Recording {
        name: "arena",
        rate_hz: config.rate,
        schema: &wire::SCHEMA,
        capacity: n,
        snapshots,
        events,
        world,
    }
}

/// The quantised snapshot of the players `keep` names, with their animation frames `anims`.
fn snapshot(players: &[Player], anims: &[i32], keep: impl Fn(usize) -> bool) -> Snapshot {
    let mut s = Snapshot::new();
    for (j, p) in players.iter().enumerate().filter(|&(j, _)| keep(j)) {
        let sent = wire::Player {
            pos: [p.pos[0], p.pos[1]],
            height: p.pos[2],
            yaw: p.view[0],
            pitch: p.view[1],
            anim: anims[j],
            weapon: Weapon::ALL[p.weapon],
            health: p.health,
            armour: p.armour,
            action: p.action,
        };
        push(&mut s, j as u32, wire::Player::CLASS_INDEX, &sent);
    }
    s
}

/// Seconds of the player plot.
const PLOTTED: f64 = 20.0;

/// Plots player 0's yaw (degrees) and speed (m/s, from its positions and the frames' times)
/// over the first 20 s of the arena of `seed` and `config` into the SVG file `path`.
pub(crate) fn plot_player(path: &Path, seed: u64, config: Config) -> Result<(), String> {
    let frames = (PLOTTED * config.rate).ceil() as usize + 1;
    let world = record(frames, seed, config, true).world.unwrap_or_default();
    // Player 0's row (pos.x, pos.y, height, yaw, ...) at each frame, with the frame's time.
    let rows: Vec<(f64, [f64; 3])> = world
        .iter()
        .filter_map(|f| {
            let at = f.world.ids.iter().position(|&id| id == 0)?;
            let row = f.world.row(at);
            let yaw = f64::from(row[3]) * 360.0 / 65_536.0;
            Some((f.time?, [f64::from(row[0]) / 128.0, f64::from(row[1]) / 128.0, yaw]))
        })
        .collect();
    // The yaw unwrapped, so that a turn through north is not a jump of 360°.
    let mut yaw: Vec<(f64, f64)> = Vec::with_capacity(rows.len());
    for &(t, r) in &rows {
        let last = yaw.last().map_or(r[2], |&(_, y)| y);
        yaw.push((t, last + turn(r[2].to_radians(), last.to_radians()).to_degrees()));
    }
    let (low, high) = yaw.iter().fold((f64::MAX, f64::MIN), |(l, h), &(_, y)| (l.min(y), h.max(y)));
    let speed: Vec<(f64, f64)> = rows
        .windows(2)
        .map(|w| {
            let ((t0, a), (t1, b)) = (w[0], w[1]);
            (t1, (b[0] - a[0]).hypot(b[1] - a[1]) / (t1 - t0))
        })
        // A respawn or a teleporter is a jump, not a speed.
        .filter(|&(_, v)| v < 20.0)
        .collect();
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
    }
    let root = SVGBackend::new(path, (1100, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| fail(&e))?;
    let panels = root.split_evenly((2, 1));
    let series = [
        ("player 0's yaw from the mouse (degrees, unwrapped)", low - 20.0..high + 20.0, &yaw),
        ("player 0's speed (m/s)", 0.0..12.0, &speed),
    ];
    for (area, (label, range, points)) in panels.iter().zip(series) {
        let caption = format!("arena, {} players at {} Hz: {label}", config.players, config.rate);
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..PLOTTED, range)
            .map_err(|e| fail(&e))?;
        chart.configure_mesh().x_desc("time (s)").draw().map_err(|e| fail(&e))?;
        chart
            .draw_series(LineSeries::new(points.iter().copied(), BLUE.stroke_width(1)))
            .map_err(|e| fail(&e))?;
    }
    root.present().map_err(|e| fail(&e))
}
