//! An RTS-like battle (`schemas/rts.netidl`), seen by player 0 (and, when recording a trace,
//! by each of the four players).
//!
//! Four players start in the corners of a 256 m map with a base, a barracks and 60 units each.
//! Workers walk between their base and a mine; soldiers and archers march along jittered paths
//! through the centre towards an enemy base, and fight any enemy unit they see: they close in,
//! strike when in range and their cooldown has run out, and a unit whose hit points reach zero
//! dies; each unit names the enemy it engages (a reference). Bases train workers and barracks
//! train soldiers and archers from a queue of up to five orders (a list: the head is trained,
//! new orders join the tail), which replace the dead (each player keeps at most 110 units).
//! The client is player 0: it sees its own units and buildings, and enemies within sight of
//! them (10 m of a unit, 20 m of a building); a reference to a unit it does not see names
//! nothing.

use std::collections::HashSet;

use netschema::{List, Ref, SnapshotEnum as _};
use netschema_lab::trace::TraceFrame;
use netschema_lab::{Rng, Snapshot};

use crate::{Recording, push};
use wire::{Player, UnitKind, UnitState};

/// The code generated from `schemas/rts.netidl`.
// Generated items are `pub`; the scenario module keeps them to this crate.
#[allow(unreachable_pub)]
mod wire {
    netschema::include_schema!("rts");
}

/// The schema's source.
pub(crate) const NETIDL: &str = include_str!("../schemas/rts.netidl");

const RATE: f64 = 60.0;
const MAP: f64 = 256.0;
const PLAYERS: usize = 4;
const START_UNITS: usize = 60;
const MAX_UNITS: usize = 110;
const SIGHT: f64 = 10.0;
const BUILDING_SIGHT: f64 = 20.0;
const CELL: f64 = 16.0;
const CELLS: usize = (MAP / CELL) as usize;
/// Most orders a building's queue holds.
const QUEUE: usize = 5;
/// Chance per frame that a building with room in its queue takes a new order.
const ORDER_CHANCE: f64 = 1.0 / 45.0;

/// Speed (m/s), hit points, range (m), damage and cooldown (frames) of a kind of unit.
fn stats(kind: UnitKind) -> (f64, i32, f64, i32, i32) {
    match kind {
        UnitKind::Worker => (3.0, 60, 0.0, 0, 0),
        UnitKind::Soldier => (3.5, 150, 1.5, 12, 40),
        UnitKind::Archer => (3.2, 90, 9.0, 8, 60),
    }
}

struct Unit {
    id: u32,
    owner: usize,
    kind: UnitKind,
    pos: [f64; 2],
    heading: f64,
    hp: i32,
    cooldown: i32,
    state: UnitState,
    /// The id of the enemy unit it engages.
    target: Option<u32>,
    path: Vec<[f64; 2]>,
    next: usize,
    wait: u32,
    /// Workers: whether the unit is walking to the mine.
    outbound: bool,
}

struct Building {
    id: u32,
    owner: usize,
    pos: [f64; 2],
    hp: i32,
    progress: i32,
    rate: i32,
    trains_workers: bool,
    /// The units ordered, the next to train first.
    queue: Vec<UnitKind>,
}

impl Building {
    fn new(id: u32, owner: usize, pos: [f64; 2], hp: i32, rate: i32, trains_workers: bool) -> Self {
        let queue = Vec::with_capacity(QUEUE);
        Building { id, owner, pos, hp, progress: 0, rate, trains_workers, queue }
    }

    /// A kind of unit this building trains, drawn from `rng`.
    fn order(&self, rng: &mut Rng) -> UnitKind {
        if self.trains_workers {
            UnitKind::Worker
        } else if rng.chance(0.5) {
            UnitKind::Soldier
        } else {
            UnitKind::Archer
        }
    }

    /// What a client is sent of it. Its queue is written from scratch, its orders in their
    /// slots in order (as a trace reads a list back), rather than over the row last sent:
    /// training the head moves every later order up a slot.
    fn sent(&self) -> wire::Building {
        wire::Building {
            owner: Player::ALL[self.owner],
            pos: self.pos,
            hp: self.hp,
            progress: self.progress,
            queue: List::try_from(&self.queue[..]).unwrap_or_default(),
        }
    }
}

fn corner(p: usize) -> [f64; 2] {
    [if p.is_multiple_of(2) { 32.0 } else { MAP - 32.0 }, if p < 2 { 32.0 } else { MAP - 32.0 }]
}

fn toward(from: [f64; 2], to: [f64; 2], d: f64) -> [f64; 2] {
    let (dx, dy) = (to[0] - from[0], to[1] - from[1]);
    let len = (dx * dx + dy * dy).sqrt().max(1e-9);
    [from[0] + dx / len * d, from[1] + dy / len * d]
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

fn mine(p: usize) -> [f64; 2] {
    let c = corner(p);
    [c[0], if p < 2 { c[1] + 36.0 } else { c[1] - 36.0 }]
}

fn jitter(rng: &mut Rng, p: [f64; 2], r: f64) -> [f64; 2] {
    [
        (p[0] + rng.range(-r, r)).clamp(2.0, MAP - 2.0),
        (p[1] + rng.range(-r, r)).clamp(2.0, MAP - 2.0),
    ]
}

/// A march from `from` through the centre to a random enemy base.
fn war_path(rng: &mut Rng, owner: usize, from: [f64; 2]) -> Vec<[f64; 2]> {
    let enemy = (owner + 1 + rng.below(PLAYERS as u64 - 1) as usize) % PLAYERS;
    let centre = [MAP / 2.0, MAP / 2.0];
    let goal = corner(enemy);
    let mid1 = [(from[0] + centre[0]) / 2.0, (from[1] + centre[1]) / 2.0];
    let mid2 = [(goal[0] + centre[0]) / 2.0, (goal[1] + centre[1]) / 2.0];
    vec![
        jitter(rng, mid1, 12.0),
        jitter(rng, centre, 20.0),
        jitter(rng, mid2, 12.0),
        jitter(rng, goal, 10.0),
    ]
}

fn new_unit(rng: &mut Rng, id: u32, owner: usize, kind: UnitKind, at: [f64; 2]) -> Unit {
    let (_, hp, ..) = stats(kind);
    Unit {
        id,
        owner,
        kind,
        pos: jitter(rng, at, 6.0),
        heading: rng.range(-3.1, 3.1),
        hp,
        cooldown: 0,
        state: UnitState::Idle,
        target: None,
        path: Vec::new(),
        next: 0,
        wait: rng.below(120) as u32,
        outbound: true,
    }
}

fn cell_of(p: [f64; 2]) -> (usize, usize) {
    (
        (p[0] / CELL).clamp(0.0, CELLS as f64 - 1.0) as usize,
        (p[1] / CELL).clamp(0.0, CELLS as f64 - 1.0) as usize,
    )
}

/// Unit indices by grid cell.
fn grid(units: &[Unit]) -> Vec<Vec<usize>> {
    let mut g = vec![Vec::new(); CELLS * CELLS];
    for (i, u) in units.iter().enumerate() {
        let (cx, cy) = cell_of(u.pos);
        g[cy * CELLS + cx].push(i);
    }
    g
}

/// Units within `r` (< CELL) of `p` for which `keep` holds.
fn near(
    g: &[Vec<usize>],
    units: &[Unit],
    p: [f64; 2],
    r: f64,
    mut keep: impl FnMut(&Unit) -> bool,
) -> Vec<usize> {
    let (cx, cy) = cell_of(p);
    let mut out = Vec::new();
    for y in cy.saturating_sub(1)..(cy + 2).min(CELLS) {
        for x in cx.saturating_sub(1)..(cx + 2).min(CELLS) {
            for &i in &g[y * CELLS + x] {
                if keep(&units[i]) && dist(units[i].pos, p) <= r {
                    out.push(i);
                }
            }
        }
    }
    out
}

/// Simulates `frames` frames and records what player 0 sees; with `all_players`, also every
/// unit and building of the world and what each player (clients `0` to `3`) sees.
pub(crate) fn record(frames: usize, seed: u64, all_players: bool) -> Recording {
    let mut rng = Rng(seed ^ 0x0072_7473);
    let mut buildings = Vec::new();
    for p in 0..PLAYERS {
        let c = corner(p);
        let barracks = toward(c, [MAP / 2.0, MAP / 2.0], 14.0);
        buildings.push(Building::new((2 * p) as u32, p, c, 2000, 1, true));
        buildings.push(Building::new((2 * p + 1) as u32, p, barracks, 1500, 3, false));
    }
    let mut next_id = 100u32;
    let mut units = Vec::new();
    for p in 0..PLAYERS {
        for i in 0..START_UNITS {
            let kind = match i % 3 {
                0 => UnitKind::Worker,
                1 => UnitKind::Soldier,
                _ => UnitKind::Archer,
            };
            // Fighters start on their way, between their corner and the centre, so that the
            // armies meet within seconds.
            let c = corner(p);
            let at = match kind {
                UnitKind::Worker => c,
                _ => {
                    let f = rng.range(0.35, 0.85);
                    [c[0] + (MAP / 2.0 - c[0]) * f, c[1] + (MAP / 2.0 - c[1]) * f]
                }
            };
            units.push(new_unit(&mut rng, next_id, p, kind, at));
            next_id += 1;
        }
    }
    let dt = 1.0 / RATE;
    let mut snapshots = Vec::with_capacity(frames);
    let mut world = all_players.then(|| Vec::with_capacity(frames));
    for _ in 0..frames {
        // Combat and movement.
        let g = grid(&units);
        let mut damage = vec![0i32; units.len()];
        // Decide first (every unit sees the others as they were), then act.
        let decisions: Vec<Option<usize>> = (0..units.len())
            .map(|i| {
                let u = &units[i];
                if u.kind == UnitKind::Worker {
                    return None;
                }
                near(&g, &units, u.pos, SIGHT, |o| o.owner != u.owner && o.hp > 0)
                    .into_iter()
                    .min_by(|&a, &b| {
                        dist(units[a].pos, u.pos).total_cmp(&dist(units[b].pos, u.pos))
                    })
            })
            .collect();
        let positions: Vec<[f64; 2]> = units.iter().map(|u| u.pos).collect();
        let ids: Vec<u32> = units.iter().map(|u| u.id).collect();
        for (i, target) in decisions.into_iter().enumerate() {
            let (speed, _, range, hit, cd) = stats(units[i].kind);
            let u = &mut units[i];
            u.target = target.map(|e| ids[e]);
            u.cooldown = (u.cooldown - 1).max(0);
            match target {
                Some(e) => {
                    let ep = positions[e];
                    u.heading = (ep[1] - u.pos[1]).atan2(ep[0] - u.pos[0]);
                    if dist(ep, u.pos) <= range {
                        u.state = UnitState::Attacking;
                        if u.cooldown == 0 {
                            damage[e] += hit;
                            u.cooldown = cd;
                        }
                    } else {
                        u.state = UnitState::Moving;
                        u.pos = toward(u.pos, ep, speed * dt);
                    }
                }
                None if u.next < u.path.len() => {
                    let wp = u.path[u.next];
                    u.state = UnitState::Moving;
                    u.heading = (wp[1] - u.pos[1]).atan2(wp[0] - u.pos[0]);
                    if dist(wp, u.pos) <= speed * dt {
                        u.pos = wp;
                        u.next += 1;
                        u.wait = 30 + rng.below(150) as u32;
                    } else {
                        u.pos = toward(u.pos, wp, speed * dt);
                    }
                }
                None => {
                    u.state = UnitState::Idle;
                    if u.wait > 0 {
                        u.wait -= 1;
                    } else {
                        u.next = 0;
                        u.path = if u.kind == UnitKind::Worker {
                            u.outbound = !u.outbound;
                            let to = if u.outbound { corner(u.owner) } else { mine(u.owner) };
                            vec![jitter(&mut rng, to, 4.0)]
                        } else {
                            war_path(&mut rng, u.owner, u.pos)
                        };
                    }
                }
            }
        }
        for (u, d) in units.iter_mut().zip(&damage) {
            u.hp -= d;
        }
        units.retain(|u| u.hp > 0);
        // A unit whose target died engages nothing.
        let alive: HashSet<u32> = units.iter().map(|u| u.id).collect();
        for u in units.iter_mut() {
            u.target = u.target.filter(|t| alive.contains(t));
        }
        // Orders and training: a building trains the head of its queue.
        for b in buildings.iter_mut() {
            if b.queue.len() < QUEUE && rng.chance(ORDER_CHANCE) {
                let kind = b.order(&mut rng);
                b.queue.push(kind);
            }
            if !b.queue.is_empty() {
                b.progress += b.rate;
            }
            if b.progress >= 255 {
                b.progress = 0;
                let kind = b.queue.remove(0);
                let count = units.iter().filter(|u| u.owner == b.owner).count();
                if count < MAX_UNITS {
                    units.push(new_unit(&mut rng, next_id, b.owner, kind, b.pos));
                    next_id += 1;
                }
            }
        }
        // What player 0 sees, and with `all_players`, the world and every player's view.
        let g = grid(&units);
        let (own_buildings, own_units) = sight(0, &units, &buildings, &g);
        snapshots.push(view(&units, &buildings, &own_units, &own_buildings));
        if let Some(frames) = world.as_mut() {
            let everything =
                view(&units, &buildings, &vec![true; units.len()], &vec![true; buildings.len()]);
            let clients = (0..PLAYERS)
                .map(|p| {
                    let ids = if p == 0 {
                        snapshots.last().map(|s| s.ids.clone()).unwrap_or_default()
                    } else {
                        let (b, u) = sight(p, &units, &buildings, &g);
                        view(&units, &buildings, &u, &b).ids
                    };
                    (p.to_string(), ids)
                })
                .collect();
            let (frame, time) = (Some(frames.len() as u64), Some(frames.len() as f64 / RATE));
            frames.push(TraceFrame {
                frame,
                time,
                world: everything,
                clients: Some(clients),
                events: Vec::new(),
            });
        }
    }
    let capacity = snapshots.iter().map(|s| s.len()).max().unwrap_or(0).max(1);
    Recording {
        name: "rts",
        rate_hz: RATE,
        schema: &wire::SCHEMA,
        capacity,
        snapshots,
        events: Vec::new(),
        world,
    }
}

/// What `player` sees: which buildings, and which units. A player sees its own units and
/// buildings, enemy units within sight of its units or buildings, and enemy buildings near
/// its units.
fn sight(
    player: usize,
    units: &[Unit],
    buildings: &[Building],
    g: &[Vec<usize>],
) -> (Vec<bool>, Vec<bool>) {
    let mut seen = vec![false; units.len()];
    for (i, u) in units.iter().enumerate() {
        if u.owner == player {
            seen[i] = true;
            for j in near(g, units, u.pos, SIGHT, |o| o.owner != player) {
                seen[j] = true;
            }
        }
    }
    let mut visible = vec![false; buildings.len()];
    for (b, v) in buildings.iter().zip(visible.iter_mut()) {
        *v = b.owner == player
            || units.iter().any(|u| u.owner == player && dist(u.pos, b.pos) <= SIGHT + 6.0);
        if b.owner == player {
            // Own buildings see around them.
            for (u, s) in units.iter().zip(seen.iter_mut()) {
                if u.owner != player && dist(u.pos, b.pos) <= BUILDING_SIGHT {
                    *s = true;
                }
            }
        }
    }
    (visible, seen)
}

/// The quantised snapshot of the chosen units and buildings (ids ascend: buildings first).
fn view(
    units: &[Unit],
    buildings: &[Building],
    units_seen: &[bool],
    buildings_seen: &[bool],
) -> Snapshot {
    let mut s = Snapshot::new();
    for (b, _) in buildings.iter().zip(buildings_seen).filter(|(_, v)| **v) {
        push(&mut s, b.id, wire::Building::CLASS_INDEX, &b.sent());
    }
    let seen: HashSet<u32> =
        units.iter().zip(units_seen).filter(|(_, v)| **v).map(|(u, _)| u.id).collect();
    for (u, _) in units.iter().zip(units_seen).filter(|(_, v)| **v) {
        let sent = wire::Unit {
            owner: Player::ALL[u.owner],
            kind: u.kind,
            pos: u.pos,
            heading: u.heading,
            hp: u.hp,
            cooldown: u.cooldown,
            state: u.state,
            target: u.target.filter(|t| seen.contains(t)).map_or(Ref::NONE, |t| Ref::to(t.into())),
        };
        push(&mut s, u.id, wire::Unit::CLASS_INDEX, &sent);
    }
    s
}
