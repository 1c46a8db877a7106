//! Heap-owned storage for the engine's structures.
//!
//! The engine itself only borrows storage; these types own it in `Vec`s for programs that have
//! a heap. They allocate when created and never while coding; a peer's id table grows when the
//! game marks more entities for it than it was sized for.

use std::vec;
use std::vec::Vec;

use crate::engine::client::{ClientState, ClientStorage, Reader};
use crate::engine::input::InputStorage;
use crate::engine::peer::{
    IdSlot, PeerScratch, PeerState, PeerStorage, ScratchSizes, marked_visible, rehash, table_len,
};
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
    changed: Vec<u32>,
    links: Vec<u32>,
    keys: Vec<i32>,
}

impl WorldBuffers {
    /// Buffers for a world of `capacity` entities.
    pub fn new(schema: &Schema, capacity: usize) -> Self {
        WorldBuffers {
            rows: vec![0; WorldStorage::rows_len(schema, capacity)],
            classes: vec![0; WorldStorage::classes_len(capacity)],
            spawned: vec![0; capacity],
            changed: vec![0; capacity],
            links: vec![0; WorldStorage::links_len(schema, capacity)],
            keys: vec![0; WorldStorage::keys_len(schema, capacity)],
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
            changed: &mut self.changed,
            links: &mut self.links,
            keys: &mut self.keys,
        }
    }

    /// The world these buffers hold, as it was when `state` was taken.
    pub(crate) fn resume<'a>(&'a mut self, schema: &'a Schema, state: WorldState) -> World<'a> {
        World::resume(schema, self.storage(), state)
    }
}

/// Owned storage for one peer, with scratch room of its own to encode in (see
/// [`PeerScratch`]).
#[derive(Debug)]
pub struct PeerBuffers {
    presence: Vec<u64>,
    handle_entity: Vec<u32>,
    since: Vec<u32>,
    since_before: Vec<u32>,
    ids: Vec<IdSlot>,
    handle_own: Vec<u64>,
    handle_essential: Vec<u64>,
    young: Vec<u64>,
    entries: Vec<u64>,
    sends: Vec<u128>,
    chains: Vec<u128>,
    diffs: Vec<i8>,
    links: Vec<u16>,
    weights: Vec<u16>,
    cost: Vec<u16>,
    sent_at: Vec<u32>,
    models: Vec<Model>,
    stored: Vec<u16>,
    keys: Vec<i32>,
    scratch: ScratchBuffers,
}

impl PeerBuffers {
    /// Buffers for a peer of `handles` handles that the game may mark up to `interest`
    /// entities for at once (see [`Peer::new`]).
    pub fn new(schema: &Schema, handles: usize, interest: usize) -> Self {
        let mut buffers = Self::without_scratch(schema, handles, interest);
        buffers.scratch.reserve(PeerScratch::sizes(schema, handles));
        buffers
    }

    /// Buffers as [`PeerBuffers::new`] makes them but without scratch room: for a peer that
    /// is only ever resumed with a room of its thread's to encode in
    /// ([`PeerBuffers::resume_with`]).
    pub(crate) fn without_scratch(schema: &Schema, handles: usize, interest: usize) -> Self {
        let s = PeerStorage::sizes(schema, handles, interest);
        PeerBuffers {
            presence: vec![0; s.presence],
            handle_entity: vec![0; s.handles],
            since: vec![0; s.handles],
            since_before: vec![0; s.handles],
            ids: vec![IdSlot::default(); s.ids],
            handle_own: vec![0; s.handle_words],
            handle_essential: vec![0; s.handle_words],
            young: vec![0; s.young],
            entries: vec![0; s.handle_words],
            sends: vec![0; s.sends],
            chains: vec![0; s.chains],
            diffs: vec![0; s.diffs],
            links: vec![0; s.links],
            weights: vec![0; s.handles],
            cost: vec![0; s.handles],
            sent_at: vec![0; s.handles],
            models: vec![Model::default(); s.models],
            stored: vec![0; s.stored],
            keys: vec![0; s.keys],
            scratch: ScratchBuffers::default(),
        }
    }
    /// Borrows the buffers as a new peer.
    pub fn peer<'a>(
        &'a mut self,
        schema: &'a Schema,
        handles: usize,
        interest: usize,
    ) -> Result<Peer<'a>> {
        let (storage, scratch) = self.storage();
        Peer::new(schema, handles, interest, PeerStorage { scratch: scratch.room(), ..storage })
    }

    /// Borrows the buffers as a new peer of `handles` and `interest` (see [`Peer::new`]) that
    /// encodes in `scratch`.
    pub(crate) fn peer_with<'a>(
        &'a mut self,
        schema: &'a Schema,
        (handles, interest): (usize, usize),
        scratch: PeerScratch<'a>,
    ) -> Result<Peer<'a>> {
        let (storage, _) = self.storage();
        Peer::new(schema, handles, interest, PeerStorage { scratch, ..storage })
    }

    /// The buffers as storage (with empty scratch room), and their own scratch room.
    fn storage(&mut self) -> (PeerStorage<'_>, &mut ScratchBuffers) {
        let storage = PeerStorage {
            presence: &mut self.presence,
            handle_entity: &mut self.handle_entity,
            since: &mut self.since,
            since_before: &mut self.since_before,
            ids: &mut self.ids,
            handle_own: &mut self.handle_own,
            handle_essential: &mut self.handle_essential,
            young: &mut self.young,
            entries: &mut self.entries,
            sends: &mut self.sends,
            chains: &mut self.chains,
            diffs: &mut self.diffs,
            links: &mut self.links,
            weights: &mut self.weights,
            cost: &mut self.cost,
            sent_at: &mut self.sent_at,
            models: &mut self.models,
            stored: &mut self.stored,
            keys: &mut self.keys,
            scratch: PeerScratch { models: &mut [], order: &mut [], marks: &mut [] },
        };
        (storage, &mut self.scratch)
    }

    /// Doubles the entities the game may mark for the peer at once (its interest, see
    /// [`Peer::new`]): the only allocation after these buffers are made, when the game marks
    /// more than the interest it was given.
    pub(crate) fn grow(&mut self, state: PeerState) -> PeerState {
        let interest = state.interest().saturating_mul(2).max(16);
        let mut ids = vec![IdSlot::default(); table_len(interest)];
        rehash(&self.ids, &mut ids);
        self.ids = ids;
        state.grown(interest)
    }

    /// Whether entity `id` is visible, as [`Peer::is_visible`] says.
    pub(crate) fn is_visible(&self, id: usize) -> bool {
        marked_visible(&self.ids, id)
    }

    /// The peer these buffers hold, as it was when `state` was taken, with their own scratch
    /// room (none if made [`PeerBuffers::without_scratch`]).
    pub(crate) fn resume<'a>(&'a mut self, schema: &'a Schema, state: PeerState) -> Peer<'a> {
        let (storage, scratch) = self.storage();
        Peer::resume(schema, PeerStorage { scratch: scratch.room(), ..storage }, state)
    }

    /// The peer these buffers hold, as it was when `state` was taken, encoding in `scratch`.
    pub(crate) fn resume_with<'a>(
        &'a mut self,
        schema: &'a Schema,
        state: PeerState,
        scratch: PeerScratch<'a>,
    ) -> Peer<'a> {
        let (storage, _) = self.storage();
        Peer::resume(schema, PeerStorage { scratch, ..storage }, state)
    }
}

/// Owned scratch room for encoding packets (see [`PeerScratch`]), grown on demand: one serves
/// every peer that encodes on a thread.
#[derive(Debug, Default)]
pub(crate) struct ScratchBuffers {
    models: Vec<Model>,
    order: Vec<u64>,
    marks: Vec<u64>,
}

impl ScratchBuffers {
    /// Grows the room to fit `sizes` (allocating only if it does not yet).
    pub(crate) fn reserve(&mut self, sizes: ScratchSizes) {
        fn at_least<T: Clone>(v: &mut Vec<T>, len: usize, fill: T) {
            if v.len() < len {
                v.resize(len, fill);
            }
        }
        at_least(&mut self.models, sizes.models, Model::default());
        at_least(&mut self.order, sizes.order, 0);
        at_least(&mut self.marks, sizes.marks, 0);
    }

    /// The room, borrowed for a peer to encode in.
    pub(crate) fn room(&mut self) -> PeerScratch<'_> {
        PeerScratch { models: &mut self.models, order: &mut self.order, marks: &mut self.marks }
    }
}

/// Owned storage for one client.
#[derive(Debug)]
pub struct ClientBuffers {
    rows: Vec<u8>,
    view: Vec<i32>,
    ages: Vec<u8>,
    born: Vec<u32>,
    entered: Vec<u32>,
    steady: Vec<u32>,
    present: Vec<u64>,
    own: Vec<u64>,
    classes: Vec<u16>,
    sends: Vec<u128>,
    chains: Vec<u128>,
    sent: Vec<u64>,
    links: Vec<u16>,
    models: Vec<Model>,
    stored: Vec<u16>,
    keys: Vec<i32>,
}

impl ClientBuffers {
    /// Buffers for a client of `handles` handles.
    pub fn new(schema: &Schema, handles: usize) -> Self {
        let s = ClientStorage::sizes(schema, handles);
        ClientBuffers {
            rows: vec![0; s.rows],
            view: vec![0; 3 * s.view],
            classes: vec![0; s.classes],
            ages: vec![0; s.handles],
            born: vec![0; s.born],
            entered: vec![0; s.born],
            steady: vec![0; s.born],
            present: vec![0; s.own],
            own: vec![0; s.own],
            sends: vec![0; s.sends],
            chains: vec![0; s.chains],
            sent: vec![0; s.sent],
            links: vec![0; s.links],
            models: vec![Model::default(); s.models],
            stored: vec![0; s.stored],
            keys: vec![0; s.keys],
        }
    }
    /// Borrows the buffers as a new client.
    pub fn client<'a>(&'a mut self, schema: &'a Schema, handles: usize) -> Result<Client<'a>> {
        Client::new(schema, handles, self.storage())
    }

    fn storage(&mut self) -> ClientStorage<'_> {
        ClientStorage {
            rows: &mut self.rows,
            view: &mut self.view,
            classes: &mut self.classes,
            ages: &mut self.ages,
            born: &mut self.born,
            entered: &mut self.entered,
            steady: &mut self.steady,
            present: &mut self.present,
            own: &mut self.own,
            sends: &mut self.sends,
            chains: &mut self.chains,
            sent: &mut self.sent,
            links: &mut self.links,
            models: &mut self.models,
            stored: &mut self.stored,
            keys: &mut self.keys,
        }
    }

    /// The client these buffers hold, as it was when `state` was taken.
    pub(crate) fn resume<'a>(&'a mut self, schema: &'a Schema, state: ClientState) -> Client<'a> {
        Client::resume(schema, self.storage(), state)
    }

    /// Read access to the views of the client these buffers hold.
    pub(crate) fn reader<'a>(&'a self, schema: &'a Schema, state: &'a ClientState) -> Reader<'a> {
        Reader {
            schema,
            rows: &self.rows,
            view: &self.view,
            present: &self.present,
            ages: &self.ages,
            born: &self.born,
            own: &self.own,
            sends: &self.sends,
            chains: &self.chains,
            links: &self.links,
            state,
        }
    }
}

/// Owned storage for one end of an input stream (see [`InputStorage`]).
#[derive(Debug)]
pub struct InputBuffers {
    models: Vec<Model>,
    stored: Vec<u16>,
}

impl InputBuffers {
    /// Buffers for an end of an input stream of `schema`.
    pub fn new(schema: &Schema) -> Self {
        let (models, words) = InputStorage::sizes(schema);
        InputBuffers { models: vec![Model::default(); models], stored: vec![0; words] }
    }

    /// The buffers as the storage of an end.
    pub fn storage(&mut self) -> InputStorage<'_> {
        InputStorage { models: &mut self.models, stored: &mut self.stored }
    }
}
