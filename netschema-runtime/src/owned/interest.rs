//! Interest management: which entities each client should see, from positions on a uniform
//! grid, with an enter and a leave radius so that nothing flickers on a boundary.
//!
//! The game places each entity at a point in its own units, `[f32; 3]` or `[f32; 2]`
//! ([`Interest::set_entity`]), and gives each client a [`View`]: where it looks from, the
//! `enter` radius within which an entity becomes visible, and the larger `leave` radius beyond
//! which a visible entity stops being visible. Between the two radii an entity keeps the state
//! it had, so one that wobbles across a boundary is not shown and hidden frame after frame.
//! [`Interest::set_always`] keeps an entity visible to a client wherever it is (its avatar).
//!
//! After an update, an entity is visible to a client if it is always visible to it, within
//! `enter`, or visible before the update and within `leave` (distances are Euclidean, boundaries
//! included). [`Interest::update`] returns only the [`Change`]s, ordered by client, then entity
//! id, a leave before an enter of the same id (an id removed and added again);
//! [`Interest::update_server`] applies them to an owned [`Server`].
//!
//! Entities sit in the cells of a uniform grid of squares (2-D) or cubes (3-D) of a chosen
//! edge; only occupied cells are stored, in a hash map. An update visits, per client, the cells
//! of the box around its larger radius and measures the distance to every entity in them, then
//! looks up its always-visible entities and walks the entities it saw before. Its cost is about
//! clients × (cells in that box + entities in them), however large the world: an edge of half
//! to one leave radius does well (a larger one measures more entities, a smaller one looks up
//! more cells). Buffers are reused, so nothing is allocated per update once they have grown to
//! the largest sets seen.

use core::array;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::mem;
use std::vec::Vec;

use super::ids::IdMap;
use super::server::{ClientId, Server};
use crate::{Protocol, Result};

/// Where a client looks from, and how far.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View<const D: usize = 3> {
    /// Its position, in the game's units.
    pub pos: [f32; D],
    /// An entity at most this far away becomes visible.
    pub enter: f32,
    /// A visible entity stays visible up to this distance: a little more than `enter`.
    pub leave: f32,
}

/// An entity that became visible to a client, or stopped being visible to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Change<K> {
    /// The client.
    pub client: K,
    /// The entity's id.
    pub id: u64,
    /// Whether the entity is now visible to the client.
    pub visible: bool,
}

/// Which entities each client sees, from positions in `D` dimensions (2 or 3).
///
/// Clients are keyed by any `K: Copy + Ord`: the owned server's [`ClientId`], or the index a
/// program driving the core's [`crate::Peer`]s gives each; the order of `K` is the order of
/// the changes. Entities are keyed by the game's `u64` ids, as in [`Server`].
///
/// Per tick: [`Interest::set_entity`] for entities that moved or appeared and
/// [`Interest::remove_entity`] for those that went away, [`Interest::set_view`] for clients
/// that moved or joined, then [`Interest::update`] (or [`Interest::update_server`]).
pub struct Interest<K, const D: usize = 3> {
    grid: Grid<D>,
    /// Sorted by client.
    clients: Vec<Viewer<K, D>>,
    scratch: Scratch<K>,
}

impl<K, const D: usize> fmt::Debug for Interest<K, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Interest")
            .field("edge", &self.grid.edge)
            .field("entities", &self.grid.slot_of.len())
            .field("clients", &self.clients.len())
            .finish_non_exhaustive()
    }
}

impl<K: Copy + Ord, const D: usize> Interest<K, D> {
    /// No entity and no client, on a grid of cells `edge` wide.
    ///
    /// # Panics
    ///
    /// If `edge` is not a positive, finite number.
    pub fn new(edge: f32) -> Self {
        assert!(edge > 0.0 && edge.is_finite(), "cell edge {edge} is not positive and finite");
        Interest {
            grid: Grid {
                edge,
                slot_of: IdMap::default(),
                slots: Vec::new(),
                free: Vec::new(),
                removed: Vec::new(),
                cells: IdMap::default(),
                lists: Vec::new(),
                spare: Vec::new(),
            },
            clients: Vec::new(),
            scratch: Scratch { marks: Vec::new(), pass: 0, next: Vec::new(), changes: Vec::new() },
        }
    }

    /// Places entity `id` at `pos`, adding it if it is new.
    pub fn set_entity(&mut self, id: u64, pos: [f32; D]) {
        self.grid.set(id, pos);
    }

    /// Removes entity `id`; returns whether it existed. Clients that saw it see it leave at
    /// the next update.
    pub fn remove_entity(&mut self, id: u64) -> bool {
        self.grid.remove(id)
    }

    /// Sets `client`'s view, adding the client (seeing nothing yet) if it is new.
    pub fn set_view(&mut self, client: K, view: View<D>) {
        match self.find(client) {
            Ok(at) => self.clients[at].view = view,
            Err(at) => self
                .clients
                .insert(at, Viewer { client, view, always: Vec::new(), visible: Vec::new() }),
        }
    }

    /// Forgets `client`, without changes for what it saw (a disconnected client needs none);
    /// returns whether it existed.
    pub fn remove_client(&mut self, client: K) -> bool {
        self.find(client).map(|at| self.clients.remove(at)).is_ok()
    }

    /// Makes entity `id` visible to `client` wherever it is (from the next update, while the
    /// entity exists), or only when near again; returns whether the client exists.
    pub fn set_always(&mut self, client: K, id: u64, always: bool) -> bool {
        let Ok(at) = self.find(client) else { return false };
        let ids = &mut self.clients[at].always;
        match (ids.binary_search(&id), always) {
            (Err(i), true) => ids.insert(i, id),
            (Ok(i), false) => {
                ids.remove(i);
            }
            _ => {}
        }
        true
    }

    /// The entities visible to `client` since the last update, in no particular order (none
    /// for an unknown client).
    pub fn visible(&self, client: K) -> impl ExactSizeIterator<Item = u64> + '_ {
        let slots = self.find(client).map_or(&[][..], |at| &self.clients[at].visible);
        slots.iter().map(|&slot| self.grid.slots[slot as usize].id)
    }

    /// Decides what each client sees now and returns what changed since the previous update,
    /// ordered by client, then entity id, a leave first.
    pub fn update(&mut self) -> &[Change<K>] {
        self.scratch.changes.clear();
        for viewer in &mut self.clients {
            self.scratch.refresh(&self.grid, viewer);
        }
        self.grid.free.append(&mut self.grid.removed);
        &self.scratch.changes
    }

    fn find(&self, client: K) -> core::result::Result<usize, usize> {
        self.clients.binary_search_by_key(&client, |v| v.client)
    }
}

impl<const D: usize> Interest<ClientId, D> {
    /// [`Interest::update`], applied to `server` through [`Server::set_visible`]. The leave of
    /// an entity the server no longer has is skipped ([`Server::remove`] hid it). Call it
    /// after setting this frame's entities in both.
    ///
    /// An entity or client the grid has and the server does not is an error; the changes
    /// after it are not applied.
    pub fn update_server<P: Protocol>(&mut self, server: &mut Server<P>) -> Result<()> {
        for c in self.update() {
            if c.visible || server.contains(c.id) {
                server.set_visible(c.client, c.id, c.visible)?;
            }
        }
        Ok(())
    }
}

/// A client's view, the entities it always sees and those it saw at the last update.
struct Viewer<K, const D: usize> {
    client: K,
    view: View<D>,
    /// Entity ids, sorted.
    always: Vec<u64>,
    /// Slots of the entities visible since the last update.
    visible: Vec<u32>,
}

/// A grid cell: its coordinates, in cell edges.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Cell<const D: usize>([i32; D]);

impl<const D: usize> Hash for Cell<D> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for c in self.0 {
            state.write_u64(u64::from(c.cast_unsigned()));
        }
    }
}

/// Where an entity is: its cell, and its index in the cell's list.
#[derive(Clone, Copy)]
struct Place<const D: usize> {
    cell: Cell<D>,
    list: u32,
    at: u32,
}

/// An entity in a cell's list, with its position, so that a scan reads one array.
#[derive(Clone, Copy)]
struct Member<const D: usize> {
    slot: u32,
    pos: [f32; D],
}

/// An entity's id and place (stale once it is removed).
struct Slot<const D: usize> {
    id: u64,
    place: Place<D>,
}

/// The entities, by id and by cell.
struct Grid<const D: usize> {
    edge: f32,
    /// Slot of each entity present.
    slot_of: IdMap<u64, u32>,
    slots: Vec<Slot<D>>,
    free: Vec<u32>,
    /// Slots removed since the last update: freed once every client has seen them leave.
    removed: Vec<u32>,
    /// Index in `lists` of each occupied cell.
    cells: IdMap<Cell<D>, u32>,
    lists: Vec<Vec<Member<D>>>,
    /// Indices of the lists no cell uses, empty and kept for their capacity.
    spare: Vec<u32>,
}

impl<const D: usize> Grid<D> {
    fn coord(&self, x: f32) -> i32 {
        (x / self.edge).floor() as i32
    }

    fn set(&mut self, id: u64, pos: [f32; D]) {
        let cell = Cell(pos.map(|x| self.coord(x)));
        if let Some(&slot) = self.slot_of.get(&id) {
            let place = self.slots[slot as usize].place;
            if place.cell == cell {
                self.lists[place.list as usize][place.at as usize].pos = pos;
            } else {
                self.leave(place);
                self.slots[slot as usize].place = self.enter(slot, cell, pos);
            }
            return;
        }
        let slot = self.free.pop().unwrap_or(self.slots.len() as u32);
        let entry = Slot { id, place: self.enter(slot, cell, pos) };
        match self.slots.get_mut(slot as usize) {
            Some(s) => *s = entry,
            None => self.slots.push(entry),
        }
        self.slot_of.insert(id, slot);
    }

    fn remove(&mut self, id: u64) -> bool {
        let Some(slot) = self.slot_of.remove(&id) else { return false };
        self.leave(self.slots[slot as usize].place);
        self.removed.push(slot);
        true
    }

    /// Adds `slot` at `pos` to `cell`'s list and returns its place.
    fn enter(&mut self, slot: u32, cell: Cell<D>, pos: [f32; D]) -> Place<D> {
        let list = *self.cells.entry(cell).or_insert_with(|| {
            self.spare.pop().unwrap_or_else(|| {
                self.lists.push(Vec::new());
                self.lists.len() as u32 - 1
            })
        });
        let members = &mut self.lists[list as usize];
        members.push(Member { slot, pos });
        Place { cell, list, at: members.len() as u32 - 1 }
    }

    /// Takes the entity at `place` out of its cell's list, dropping the cell once empty.
    fn leave(&mut self, place: Place<D>) {
        let members = &mut self.lists[place.list as usize];
        members.swap_remove(place.at as usize);
        if let Some(moved) = members.get(place.at as usize) {
            self.slots[moved.slot as usize].place.at = place.at;
        } else if members.is_empty() {
            self.cells.remove(&place.cell);
            self.spare.push(place.list);
        }
    }

    /// Calls `visit` with every entity of the cells that may hold a point at most `reach`
    /// from `pos` (and maybe others).
    fn near(&self, pos: [f32; D], reach: f32, mut visit: impl FnMut(Member<D>)) {
        // Widened by more than rounding can move a bound, so that every entity whose computed
        // distance is within `reach` lies in the box.
        let bound = |sign: f32| {
            array::from_fn(|i| {
                let margin = 4.0 * f32::EPSILON * (pos[i].abs() + reach);
                self.coord(pos[i] + sign * (reach + margin))
            })
        };
        let (lo, hi): ([i32; D], [i32; D]) = (bound(-1.0), bound(1.0));
        let cells = (0..D)
            .map(|i| (i64::from(hi[i]) - i64::from(lo[i]) + 1).cast_unsigned())
            .fold(1u64, u64::saturating_mul);
        if cells > self.slot_of.len() as u64 {
            // A box larger than the world's entity count (a huge radius): scan them all.
            self.lists.iter().flatten().for_each(|&m| visit(m));
            return;
        }
        let mut at = lo;
        loop {
            if let Some(&list) = self.cells.get(&Cell(at)) {
                self.lists[list as usize].iter().for_each(|&m| visit(m));
            }
            // The box's next cell, the first coordinate fastest.
            let Some(i) = (0..D).find(|&i| at[i] < hi[i]) else { return };
            at[i] += 1;
            at[..i].copy_from_slice(&lo[..i]);
        }
    }
}

/// Buffers of an update, reused from one to the next.
struct Scratch<K> {
    /// Per slot, the pass that last marked it: `pass - 1` if the current client saw it at the
    /// previous update and it is not visible yet in this one, `pass` once it is.
    marks: Vec<u64>,
    /// Two per client and update, so marks of earlier passes never match.
    pass: u64,
    /// The current client's new visible slots.
    next: Vec<u32>,
    changes: Vec<Change<K>>,
}

impl<K: Copy> Scratch<K> {
    /// Decides what `viewer` sees now and appends its changes.
    fn refresh<const D: usize>(&mut self, grid: &Grid<D>, viewer: &mut Viewer<K, D>) {
        self.pass += 2;
        self.marks.resize(grid.slots.len(), 0);
        for &slot in &viewer.visible {
            self.marks[slot as usize] = self.pass - 1;
        }
        let first = self.changes.len();
        let View { pos, enter, leave } = viewer.view;
        let (enter2, leave2) = (enter * enter, leave * leave);
        grid.near(pos, enter.max(leave).max(0.0), |m| {
            let d2 = distance2(m.pos, pos);
            if d2 <= enter2 || (d2 <= leave2 && self.marks[m.slot as usize] == self.pass - 1) {
                self.show(grid, viewer.client, m.slot);
            }
        });
        for &id in &viewer.always {
            if let Some(&slot) = grid.slot_of.get(&id) {
                self.show(grid, viewer.client, slot);
            }
        }
        for &slot in &viewer.visible {
            if self.marks[slot as usize] == self.pass - 1 {
                let id = grid.slots[slot as usize].id;
                self.changes.push(Change { client: viewer.client, id, visible: false });
            }
        }
        mem::swap(&mut viewer.visible, &mut self.next);
        self.next.clear();
        self.changes[first..].sort_unstable_by_key(|c| (c.id, c.visible));
    }

    /// Makes `slot` visible in this pass, recording an enter if it was not visible before.
    fn show<const D: usize>(&mut self, grid: &Grid<D>, client: K, slot: u32) {
        let mark = &mut self.marks[slot as usize];
        if *mark == self.pass {
            return;
        }
        if *mark != self.pass - 1 {
            let id = grid.slots[slot as usize].id;
            self.changes.push(Change { client, id, visible: true });
        }
        *mark = self.pass;
        self.next.push(slot);
    }
}

fn distance2<const D: usize>(a: [f32; D], b: [f32; D]) -> f32 {
    a.iter().zip(b).map(|(a, b)| (a - b) * (a - b)).sum()
}
