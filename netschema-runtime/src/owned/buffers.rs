//! Heap-owned storage for the engine's structures.
//!
//! The engine itself only borrows storage; these types own it in `Vec`s for programs that have
//! a heap. They allocate once, when created, never while coding.

use std::vec;
use std::vec::Vec;

use crate::engine::bitset::{put_bit, test_bit};
use crate::engine::client::{ClientState, ClientStorage, Reader};
use crate::engine::peer::{PeerState, PeerStorage};
use crate::engine::world::{WorldState, WorldStorage};
use crate::model::Model;
use crate::schema::Schema;
use crate::{Client, Peer, Result, World};

/// Owned storage for one world.
#[derive(Debug)]
pub struct WorldBuffers {
    rows: Vec<i32>,
    classes: Vec<u16>,
    spawned: Vec<u32>,
}

impl WorldBuffers {
    /// Buffers for a world of `capacity` entities.
    pub fn new(schema: &Schema, capacity: usize) -> Self {
        WorldBuffers {
            rows: vec![0; WorldStorage::rows_len(schema, capacity)],
            classes: vec![0; WorldStorage::classes_len(capacity)],
            spawned: vec![0; capacity],
        }
    }
    /// Borrows the buffers as a new world of `capacity` entities.
    pub fn world<'a>(&'a mut self, schema: &'a Schema, capacity: usize) -> Result<World<'a>> {
        World::new(schema, capacity, self.storage())
    }

    fn storage(&mut self) -> WorldStorage<'_> {
        WorldStorage {
            rows: &mut self.rows,
            classes: &mut self.classes,
            spawned: &mut self.spawned,
        }
    }

    /// The world these buffers hold, as it was when `state` was taken.
    pub(crate) fn resume<'a>(&'a mut self, schema: &'a Schema, state: WorldState) -> World<'a> {
        World::resume(schema, self.storage(), state)
    }
}

/// Owned storage for one peer.
#[derive(Debug)]
pub struct PeerBuffers {
    presence: Vec<u64>,
    handle_entity: Vec<u32>,
    since: Vec<u32>,
    entity_handle: Vec<u32>,
    visible: Vec<u64>,
    owned: Vec<u64>,
    essential: Vec<u64>,
    handle_own: Vec<u64>,
    lags: Vec<u8>,
    diffs: Vec<i8>,
    weights: Vec<u16>,
    cost: Vec<u16>,
    sent_at: Vec<u32>,
    order: Vec<u64>,
    marks: Vec<u64>,
    models: Vec<Model>,
    stored: Vec<u16>,
}

impl PeerBuffers {
    /// Buffers for a peer of `handles` handles over `entities` entity ids.
    pub fn new(schema: &Schema, handles: usize, entities: usize) -> Self {
        let s = PeerStorage::sizes(schema, handles, entities);
        PeerBuffers {
            presence: vec![0; s.presence],
            handle_entity: vec![0; s.handles],
            since: vec![0; s.handles],
            entity_handle: vec![0; s.entities],
            visible: vec![0; s.visible],
            owned: vec![0; s.visible],
            essential: vec![0; s.visible],
            handle_own: vec![0; s.handle_words],
            lags: vec![0; s.lags],
            diffs: vec![0; s.diffs],
            weights: vec![0; s.entities],
            cost: vec![0; s.handles],
            sent_at: vec![0; s.handles],
            order: vec![0; s.handles],
            marks: vec![0; 3 * s.handle_words],
            models: vec![Model::default(); s.models],
            stored: vec![0; s.stored],
        }
    }
    /// Borrows the buffers as a new peer.
    pub fn peer<'a>(
        &'a mut self,
        schema: &'a Schema,
        handles: usize,
        entities: usize,
    ) -> Result<Peer<'a>> {
        Peer::new(schema, handles, entities, self.storage())
    }

    fn storage(&mut self) -> PeerStorage<'_> {
        PeerStorage {
            presence: &mut self.presence,
            handle_entity: &mut self.handle_entity,
            since: &mut self.since,
            entity_handle: &mut self.entity_handle,
            visible: &mut self.visible,
            owned: &mut self.owned,
            essential: &mut self.essential,
            handle_own: &mut self.handle_own,
            lags: &mut self.lags,
            diffs: &mut self.diffs,
            weights: &mut self.weights,
            cost: &mut self.cost,
            sent_at: &mut self.sent_at,
            order: &mut self.order,
            marks: &mut self.marks,
            models: &mut self.models,
            stored: &mut self.stored,
        }
    }

    /// Shows or hides entity `id`, as [`Peer::set_visible`] does, without resuming the peer.
    pub(crate) fn set_visible(&mut self, id: usize, visible: bool) {
        put_bit(&mut self.visible, id, visible);
    }

    /// Whether entity `id` is visible, as [`Peer::is_visible`] says.
    pub(crate) fn is_visible(&self, id: usize) -> bool {
        test_bit(&self.visible, id)
    }

    /// Sets the weight of entity `id`, as [`Peer::set_priority`] does.
    pub(crate) fn set_priority(&mut self, id: usize, weight: u16) {
        if let Some(w) = self.weights.get_mut(id) {
            *w = weight;
        }
    }

    /// Marks entity `id` as the client's own or not, as [`Peer::set_own`] does.
    pub(crate) fn set_own(&mut self, id: usize, own: bool) {
        put_bit(&mut self.owned, id, own);
    }

    /// Marks entity `id` as essential to the client or not, as [`Peer::set_essential`] does.
    pub(crate) fn set_essential(&mut self, id: usize, essential: bool) {
        put_bit(&mut self.essential, id, essential);
    }

    /// The peer these buffers hold, as it was when `state` was taken.
    pub(crate) fn resume<'a>(&'a mut self, schema: &'a Schema, state: PeerState) -> Peer<'a> {
        Peer::resume(schema, self.storage(), state)
    }
}

/// Owned storage for one client.
#[derive(Debug)]
pub struct ClientBuffers {
    rows: Vec<i32>,
    classes: Vec<u16>,
    born: Vec<u32>,
    own: Vec<u64>,
    lags: Vec<u8>,
    models: Vec<Model>,
    stored: Vec<u16>,
}

impl ClientBuffers {
    /// Buffers for a client of `handles` handles.
    pub fn new(schema: &Schema, handles: usize) -> Self {
        let s = ClientStorage::sizes(schema, handles);
        ClientBuffers {
            rows: vec![0; s.rows],
            classes: vec![0; s.handles],
            born: vec![0; s.handles],
            own: vec![0; s.own],
            lags: vec![0; s.lags],
            models: vec![Model::default(); s.models],
            stored: vec![0; s.stored],
        }
    }
    /// Borrows the buffers as a new client.
    pub fn client<'a>(&'a mut self, schema: &'a Schema, handles: usize) -> Result<Client<'a>> {
        Client::new(schema, handles, self.storage())
    }

    fn storage(&mut self) -> ClientStorage<'_> {
        ClientStorage {
            rows: &mut self.rows,
            classes: &mut self.classes,
            born: &mut self.born,
            own: &mut self.own,
            lags: &mut self.lags,
            models: &mut self.models,
            stored: &mut self.stored,
        }
    }

    /// The client these buffers hold, as it was when `state` was taken.
    pub(crate) fn resume<'a>(&'a mut self, schema: &'a Schema, state: ClientState) -> Client<'a> {
        Client::resume(schema, self.storage(), state)
    }

    /// Read access to the views of the client these buffers hold.
    pub(crate) fn reader<'a>(&'a self, schema: &'a Schema, state: ClientState) -> Reader<'a> {
        Reader {
            schema,
            rows: &self.rows,
            classes: &self.classes,
            born: &self.born,
            own: &self.own,
            lags: &self.lags,
            state,
        }
    }
}
