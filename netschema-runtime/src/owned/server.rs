//! The owned, typed server: the world and every client connection, keyed by the game's ids.

use core::cell::RefCell;
use core::fmt;
use core::marker::PhantomData;
use std::boxed::Box;
use std::vec;
use std::vec::Vec;

use super::buffers::{PeerBuffers, ScratchBuffers, WorldBuffers};
use super::frame::{Down, Up};
use super::ids::{IdMap, Ids};
use super::inputs::{ReceiverEnd, TakenInput};
use super::rewind::{Rewind, Seen};
use super::texts::server::{EntityTexts, SentTexts};
use crate::engine::ack::{Ack, AckOutcome};
use crate::engine::frame::WINDOW;
use crate::engine::handshake::{self, Welcome};
use crate::engine::input::{InputStats, Taken, Timing, check_schema};
use crate::engine::peer::{PeerScratch, PeerState, PeerStats};
use crate::engine::records::RecordStats;
use crate::engine::world::WorldState;
use crate::schema::{MAX_LINKS, Schema};
use crate::{ClassOf, Error, Input, Peer, PeerStorage, Protocol, Result, Value, World};

/// The world ids of a value's link targets, by link.
type Targets = [Option<usize>; MAX_LINKS];

/// The capacities of a server: set once, here, for the world and every connection.
///
/// A connection holds a peer's storage ([`PeerStorage::sizes`]) from [`Server::connect`] on:
/// the server holds at most `max_clients` of them, and at most `max_pending` for clients that
/// have not yet shown they receive its packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    /// Most entities the world holds at once.
    pub entities: usize,
    /// Most entities one client may see at once: its handles, at most
    /// [`MAX_HANDLES`](crate::engine::MAX_HANDLES). Sent in the welcome, so a client that
    /// cannot hold this many refuses to connect.
    pub handles: usize,
    /// Entities the game may mark for one client at once — visible (with a handle or waiting
    /// for one), own, essential or given a weight (see [`Peer::new`]) — before its connection's
    /// table of them doubles. A connection's storage follows this and `handles`, never
    /// `entities`.
    pub interest: usize,
    /// Most clients connected at once, proven or not: [`Server::connect`] refuses more with
    /// [`Error::TooManyClients`].
    pub max_clients: usize,
    /// Most clients connected at once that have not yet proven they receive (no ack of theirs
    /// accepted yet, [`Server::is_proven`]): [`Server::connect`] refuses more with
    /// [`Error::TooManyPending`]. Counted within `max_clients`.
    pub max_pending: usize,
    /// Frames a client has to prove it receives: one still unproven when this many frames
    /// have begun since it connected is dropped by the next [`Server::begin_frame`]
    /// ([`Server::expired`]). `u32::MAX`: never.
    pub pending_frames: u32,
}

impl ServerConfig {
    /// `entities` and `handles` as given, an interest of twice the handles (at most
    /// `entities`), at most 256 clients, 64 of them unproven, and 128 frames (four windows)
    /// for a client to prove it receives.
    pub const fn new(entities: usize, handles: usize) -> Self {
        let twice = handles.saturating_mul(2);
        ServerConfig {
            entities,
            handles,
            interest: if twice < entities { twice } else { entities },
            max_clients: 256,
            max_pending: 64,
            pending_frames: 4 * WINDOW,
        }
    }
}

/// A connected client, as the server names it. Ids are not reused while the server runs, so
/// a stale id is an error rather than another client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClientId(u64);

impl fmt::Display for ClientId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "client {}", self.0)
    }
}

/// What an up frame brought ([`Server::receive`]): each part's outcome, as it would be had
/// the part come alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FromClient {
    /// The state ack's, if the frame carried one ([`Server::receive_ack`]).
    pub ack: Option<AckOutcome>,
    /// The input datagram's, if the frame carried one: how many inputs were new
    /// ([`InputReceiver::receive`](crate::engine::input::InputReceiver::receive));
    /// [`Error::NoInputs`] on a server without inputs.
    pub inputs: Option<Result<usize>>,
}

/// One client's connection: what the server knows the client holds, and its inputs.
/// Obtained from [`Server::split`] to encode clients' packets on several threads.
#[derive(Debug)]
pub struct Connection {
    id: ClientId,
    buffers: PeerBuffers,
    state: PeerState,
    /// Frames begun since the client connected, until an ack of its is accepted.
    pending: Option<u32>,
    /// The client's input stream, boxed: a server without inputs keeps connections small.
    inputs: Option<Box<ReceiverEnd>>,
    /// What the client was sent of the entities' texts.
    texts: SentTexts,
}

impl Connection {
    /// The client this connection serves.
    pub fn client(&self) -> ClientId {
        self.id
    }

    /// Writes this client's packet for `frame` into `buf`, never past its end; the same bytes
    /// as [`Server::encode`]. First queues the text records the client lacks (see
    /// [`Server::set`]).
    pub fn encode<P: Protocol>(&mut self, frame: &Frame<'_, P>, buf: &mut [u8]) -> Result<usize> {
        let sizes = PeerScratch::sizes(P::SCHEMA, self.state.handles());
        SCRATCH.with_borrow_mut(|room| {
            room.reserve(sizes);
            let mut peer = self.buffers.resume_with(P::SCHEMA, self.state, room.room());
            self.texts.sync(&mut peer, frame.texts, P::SCHEMA);
            let written = peer.encode(&frame.world, buf);
            self.state = peer.state();
            written
        })
    }

    /// Writes this client's frame for `frame` into `buf`, never past its end: the server's
    /// timing report, the input ack and this client's packet in what is left of `buf` (see
    /// the framing in `docs/protocol.md`); the same bytes as [`Server::write`].
    pub fn write<P: Protocol>(&mut self, frame: &Frame<'_, P>, buf: &mut [u8]) -> Result<usize> {
        let down = match frame.world.frame() {
            Some(now) => {
                let (input_ack, timing) = match &mut self.inputs {
                    Some(inputs) => inputs.report(now),
                    None => (None, Timing { frame: now, arrival: None }),
                };
                Down { timing: Some(timing), input_ack }
            }
            None => Down::default(),
        };
        down.write(buf, |rest| self.encode(frame, rest))
    }
}

std::thread_local! {
    /// The scratch room every connection encodes in on this thread (see [`PeerScratch`]):
    /// grown to the largest asked, the first time on each thread.
    static SCRATCH: RefCell<ScratchBuffers> = RefCell::new(ScratchBuffers::default());
}

/// The server's current frame, read-only, shared by the threads that encode packets; see
/// [`Server::split`].
pub struct Frame<'a, P: Protocol> {
    world: World<'a>,
    texts: &'a EntityTexts,
    _schema: PhantomData<fn() -> P>,
}

impl<P: Protocol> fmt::Debug for Frame<'_, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Frame").field("frame", &self.world.frame()).finish_non_exhaustive()
    }
}

/// The server of a schema `P`: owns the world archive and every client connection, takes
/// entities by the game's own `u64` ids, and writes one packet per client per frame.
///
/// Per tick: [`Server::begin_frame`], [`Server::set`] (or [`Server::set_clamped`]) for what
/// changed and [`Server::remove`] for what went away, [`Server::set_visible`] for what each
/// client may see, then [`Server::encode`] per client; [`Server::receive_ack`] whenever an
/// ack arrives. Packets are byte-identical to those of the borrowed [`crate::World`] and [`Peer`]
/// for the same inputs.
pub struct Server<P: Protocol> {
    config: ServerConfig,
    world: WorldBuffers,
    world_state: WorldState,
    ids: Ids,
    connections: Vec<Connection>,
    /// Index in `connections` of each client.
    index: IdMap<ClientId, usize>,
    /// Clients the last [`Server::begin_frame`] dropped, unproven.
    expired: Vec<ClientId>,
    next_client: u64,
    /// The input schema, once set up ([`Server::with_inputs`]).
    input: Option<&'static Schema>,
    row: Vec<i32>,
    /// What rewinding to a client's view needs ([`Server::seen_by`]).
    rewind: Rewind,
    /// The entities' strings and byte blobs.
    texts: EntityTexts,
    /// Clamped values per scalar field, classes one after another.
    clamped: Vec<u64>,
    /// Index in `clamped` of each class's first field.
    clamped_at: Vec<usize>,
    _schema: PhantomData<fn() -> P>,
}

impl<P: Protocol> fmt::Debug for Server<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("schema", &P::SCHEMA.name)
            .field("config", &self.config)
            .field("entities", &self.ids.len())
            .field("clients", &self.connections.len())
            .finish_non_exhaustive()
    }
}

impl<P: Protocol> Server<P> {
    /// A server with no entity and no client.
    pub fn new(config: ServerConfig) -> Result<Self> {
        let schema = P::SCHEMA;
        let mut world = WorldBuffers::new(schema, config.entities);
        let world_state = world.world(schema, config.entities)?.state();
        // Checks the peer capacities once, so that `connect` only fails on the handshake.
        PeerBuffers::new(schema, config.handles, config.interest).peer(
            schema,
            config.handles,
            config.interest,
        )?;
        let mut clamped_at = Vec::with_capacity(schema.classes.len());
        let mut fields = 0;
        for class in schema.classes {
            clamped_at.push(fields);
            fields += class.fields.len();
        }
        Ok(Server {
            config,
            world,
            world_state,
            ids: Ids::new(config.entities),
            connections: Vec::new(),
            index: IdMap::default(),
            expired: Vec::new(),
            next_client: 0,
            input: None,
            row: vec![0; schema.max_fields],
            rewind: Rewind::new(schema),
            texts: EntityTexts::new(schema, config.entities),
            clamped: vec![0; fields],
            clamped_at,
            _schema: PhantomData,
        })
    }

    /// The server, taking inputs of `input` (see [`check_schema`]; an input type's schema is
    /// [`Input::SCHEMA`]) from its clients: its welcome names the input schema's hash, and it
    /// accepts only clients whose hello names the same
    /// ([`Client::hello_with_inputs`](super::Client::hello_with_inputs); a client without
    /// inputs, or with others, is refused with [`Error::InputSchemaMismatch`]). Each
    /// connection allocates its input storage when it is made. Set it up before clients
    /// connect: a connection made before has no inputs.
    pub fn with_inputs(mut self, input: &'static Schema) -> Result<Self> {
        check_schema(input)?;
        self.input = Some(input);
        Ok(self)
    }

    /// The capacities.
    pub fn config(&self) -> ServerConfig {
        self.config
    }

    /// Writes the welcome a connecting client needs (schema hash, input schema hash, wire
    /// version, handle capacity) into `buf`; see [`crate::engine::handshake`].
    pub fn welcome(&self, buf: &mut [u8]) -> Result<usize> {
        let welcome = Welcome { handles: self.config.handles, frame: self.frame().unwrap_or(0) };
        handshake::write_welcome(P::SCHEMA, self.input, welcome, buf)
    }

    /// Accepts a client whose hello matches this server's schema, input schema (or lack of
    /// inputs; [`Error::InputSchemaMismatch`] otherwise) and wire version, and allocates its
    /// connection. Refuses, allocating nothing, a client beyond
    /// [`ServerConfig::max_clients`] ([`Error::TooManyClients`]) or beyond
    /// [`ServerConfig::max_pending`] of those not yet proven ([`Error::TooManyPending`]).
    ///
    /// The client is pending until [`Server::receive_ack`] accepts an ack of its, which only a
    /// receiver of its packets can write: hellos from forged addresses hold at most
    /// `max_pending` connections, each for at most [`ServerConfig::pending_frames`].
    pub fn connect(&mut self, hello: &[u8]) -> Result<ClientId> {
        handshake::check_hello(P::SCHEMA, self.input, hello)?;
        let (max_clients, max_pending) = (self.config.max_clients, self.config.max_pending);
        if self.connections.len() >= max_clients {
            return Err(Error::TooManyClients { max: max_clients });
        }
        if self.connections.iter().filter(|c| c.pending.is_some()).count() >= max_pending {
            return Err(Error::TooManyPending { max: max_pending });
        }
        let schema = P::SCHEMA;
        let (handles, interest) = (self.config.handles, self.config.interest);
        let mut buffers = PeerBuffers::without_scratch(schema, handles, interest);
        let sizes = PeerScratch::sizes(schema, handles);
        let state = SCRATCH.with_borrow_mut(|room| {
            room.reserve(sizes);
            buffers.peer_with(schema, (handles, interest), room.room()).map(|p| p.state())
        })?;
        let inputs = self.input.map(|s| ReceiverEnd::new(s).map(Box::new)).transpose()?;
        let id = ClientId(self.next_client);
        self.next_client += 1;
        self.index.insert(id, self.connections.len());
        let texts = SentTexts::new(schema, handles);
        self.connections.push(Connection { id, buffers, state, pending: Some(0), inputs, texts });
        Ok(id)
    }

    /// Forgets a client; packets in flight to it are simply never acknowledged.
    pub fn disconnect(&mut self, client: ClientId) -> Result<()> {
        let at = self.index.remove(&client).ok_or(Error::UnknownClient { client: client.0 })?;
        self.connections.swap_remove(at);
        if let Some(moved) = self.connections.get(at) {
            self.index.insert(moved.id, at);
        }
        Ok(())
    }

    /// Whether `client` has proven it receives this server's packets: an ack of its was
    /// accepted ([`AckOutcome::Accepted`]) since it connected.
    pub fn is_proven(&self, client: ClientId) -> Result<bool> {
        Ok(self.connections[self.index_of(client)?].pending.is_none())
    }

    /// The clients the last [`Server::begin_frame`] dropped because they had not proven they
    /// receive within [`ServerConfig::pending_frames`]: forget them as if disconnected.
    pub fn expired(&self) -> &[ClientId] {
        &self.expired
    }

    /// Bytes of storage the server holds for its connections: a peer's
    /// ([`PeerStorage::sizes`]) per connected client.
    pub fn connection_bytes(&self) -> usize {
        let handles = self.config.handles;
        let peer = |c: &Connection| PeerStorage::sizes(P::SCHEMA, handles, c.state.interest());
        self.connections.iter().map(|c| peer(c).bytes()).sum()
    }

    /// The connected clients, proven or not, oldest first.
    pub fn clients(&self) -> impl Iterator<Item = ClientId> + '_ {
        let mut ids: Vec<ClientId> = self.connections.iter().map(|c| c.id).collect();
        ids.sort_unstable();
        ids.into_iter()
    }

    fn index_of(&self, client: ClientId) -> Result<usize> {
        self.index.get(&client).copied().ok_or(Error::UnknownClient { client: client.0 })
    }

    pub(super) fn slot(&self, id: u64) -> Result<usize> {
        self.ids.get(id).ok_or(Error::UnknownEntity { id })
    }

    /// Starts the next frame, a copy of the current one, and returns its number. Drops the
    /// clients that have not proven they receive within [`ServerConfig::pending_frames`]
    /// ([`Server::expired`]).
    pub fn begin_frame(&mut self) -> u32 {
        self.expired.clear();
        let (limit, expired) = (self.config.pending_frames, &mut self.expired);
        self.connections.retain_mut(|c| {
            let Some(frames) = &mut c.pending else { return true };
            *frames = frames.saturating_add(1);
            if *frames > limit {
                expired.push(c.id);
            }
            *frames <= limit
        });
        if !self.expired.is_empty() {
            self.index.clear();
            self.index.extend(self.connections.iter().enumerate().map(|(at, c)| (c.id, at)));
        }
        let mut world = self.world.resume(P::SCHEMA, self.world_state);
        let frame = world.begin_frame();
        self.world_state = world.state();
        frame
    }

    /// The current frame, or `None` before the first [`Server::begin_frame`].
    pub fn frame(&self) -> Option<u32> {
        self.world_state.frame()
    }

    /// Sets entity `id` to `value` in the current frame, adding it if it is new, and points
    /// its links at the entities its references name ([`Snapshot::link`](crate::Snapshot::link),
    /// by the game's ids: set a target before the entities that refer to it). A value that is
    /// NaN, infinite or outside its field's range is refused with [`Error::Capture`], naming
    /// the class, field and value, and a reference to an entity not in the world, or not of
    /// the class it refers to, with [`Error::BadTarget`], naming the reference; either way the
    /// entity is left as it was.
    ///
    /// The value is quantised over the entity's current raw values (each field's lowest for a
    /// new entity), so that a list keeps each element in the slot it had.
    ///
    /// Its strings and byte blobs ([`Snapshot::text`](crate::Snapshot::text)) are not part of
    /// the row: each client that sees the entity is sent each of them as a record, when the
    /// entity enters its view (the packet after the one it enters in) and again in the next
    /// packet whenever it changes, and reads them in the values [`Client::get`](super::Client::get)
    /// gives (see `docs/protocol.md`, "Text fields"). One longer than its field's bound, or a
    /// string that is not UTF-8, is refused with [`Error::TextTooLong`] or [`Error::NotUtf8`].
    pub fn set<C: ClassOf<P>>(&mut self, id: u64, value: &C) -> Result<()> {
        let fields = self.previous_row(id, C::INDEX);
        value.try_quantise(&mut self.row[..fields]).map_err(Error::Capture)?;
        let targets = self.targets(C::INDEX, |l| value.link(l))?;
        self.store(id, C::INDEX, &targets, &|t| value.text(t))
    }

    /// Like [`Server::set`], but values that do not fit are clamped into their fields (NaN to
    /// the range's minimum) and counted per field ([`Server::clamped`]). A bad reference is
    /// still an error.
    pub fn set_clamped<C: ClassOf<P>>(&mut self, id: u64, value: &C) -> Result<()> {
        let targets = self.targets(C::INDEX, |l| value.link(l))?;
        let fields = self.previous_row(id, C::INDEX);
        let counts = &mut self.clamped[self.clamped_at[C::INDEX]..][..fields];
        value.quantise_with(&mut self.row[..fields], &mut |field, _: Value| {
            if let Some(n) = counts.get_mut(field) {
                *n += 1;
            }
        });
        self.store(id, C::INDEX, &targets, &|t| value.text(t))
    }

    /// [`Server::set`] for a value of any class.
    pub fn set_entity(&mut self, id: u64, value: &P) -> Result<()> {
        let class = value.class();
        let fields = self.previous_row(id, class);
        value.try_quantise(&mut self.row[..fields]).map_err(Error::Capture)?;
        let targets = self.targets(class, |l| value.link(l))?;
        self.store(id, class, &targets, &|t| value.text(t))
    }

    /// Fills the scratch row with entity `id`'s raw values in the current frame if it is of
    /// `class`, else with an empty row ([`Class::empty_row`](crate::schema::Class::empty_row)),
    /// for quantising a new value of `class` over (a list reads its previous slots there);
    /// returns the class's field count.
    fn previous_row(&mut self, id: u64, class: usize) -> usize {
        let Some(c) = P::SCHEMA.classes.get(class) else { return 0 };
        let row = &mut self.row[..c.fields.len()];
        let world = self.world.resume(P::SCHEMA, self.world_state);
        let now = self.ids.get(id).zip(self.world_state.frame());
        match now.and_then(|(slot, frame)| world.get(frame, slot)) {
            Some((was, previous)) if was == class => row.copy_from_slice(previous),
            _ => c.empty_row(row),
        }
        c.fields.len()
    }

    /// The world ids of the targets the links of `class` name (`link` gives each one's game
    /// id), checked: each in the world and of the link's class.
    fn targets(&mut self, class: usize, link: impl Fn(usize) -> Option<u64>) -> Result<Targets> {
        let mut out = [None; MAX_LINKS];
        let links = P::SCHEMA.classes.get(class).map_or(&[][..], |c| c.links);
        let world = self.world.resume(P::SCHEMA, self.world_state);
        for ((i, l), slot) in links.iter().enumerate().zip(&mut out) {
            let Some(id) = link(i) else { continue };
            let target = self.ids.get(id).filter(|&t| {
                let class = world.class_now(t);
                class.is_some() && l.target.is_none_or(|want| class == Some(usize::from(want)))
            });
            let class = P::SCHEMA.classes[class].name;
            *slot = Some(target.ok_or(Error::BadTarget { class, link: l.name, id })?);
        }
        Ok(out)
    }

    /// Writes the quantised row in `self.row` as entity `id` of `class`, its links pointed at
    /// `targets` and its text fields set to what `text` gives (checked first).
    fn store<'v>(
        &mut self,
        id: u64,
        class: usize,
        targets: &Targets,
        text: &dyn Fn(usize) -> &'v [u8],
    ) -> Result<()> {
        if self.world_state.frame().is_none() {
            return Err(Error::FrameNotStarted);
        }
        let c = &P::SCHEMA.classes[class];
        for (t, field) in c.texts.iter().enumerate() {
            field.check(text(t))?;
        }
        let was = self.ids.get(id);
        let capacity = self.config.entities;
        let slot = self.ids.insert(id).ok_or(Error::TooManyEntities { capacity })?;
        let mut world = self.world.resume(P::SCHEMA, self.world_state);
        let fresh = was.is_none() || world.class_now(slot) != Some(class);
        world.set(slot, class, &self.row[..c.fields.len()])?;
        for (link, &target) in targets.iter().enumerate().take(c.links.len()) {
            world.set_link(slot, link, target)?;
        }
        self.texts.set(slot, c, fresh, text)
    }

    /// Points link `link` of entity `id` ([`Class::links`](crate::schema::Class::links)) at
    /// entity `target`, or at nothing, from the current frame on: each client sees the target
    /// under its own handle for it while it holds it, and nothing otherwise (see
    /// [`Client::link`](crate::owned::Client::link)); once the target is removed the link
    /// names nothing. A new entity starts with every link at nothing. Fails with
    /// [`Error::UnknownEntity`] for an `id` or `target` not in the world and
    /// [`Error::UnknownLink`].
    pub fn set_link(&mut self, id: u64, link: usize, target: Option<u64>) -> Result<()> {
        let slot = self.ids.get(id).ok_or(Error::UnknownEntity { id })?;
        let target = match target {
            Some(t) => Some(self.ids.get(t).ok_or(Error::UnknownEntity { id: t })?),
            None => None,
        };
        self.world.resume(P::SCHEMA, self.world_state).set_link(slot, link, target)
    }

    /// Removes entity `id` from the current frame; returns whether it existed. Its slot is
    /// free for a new id at once, hidden from every client and owned by none.
    pub fn remove(&mut self, id: u64) -> bool {
        let Some(slot) = self.ids.remove(id) else { return false };
        self.world.resume(P::SCHEMA, self.world_state).remove(slot);
        self.texts.remove(slot);
        for c in &mut self.connections {
            let mut peer = c.buffers.resume(P::SCHEMA, c.state);
            // Clearing marks never fails.
            let _ = peer.set_visible(slot, false);
            let _ = peer.set_own(slot, false);
            let _ = peer.set_essential(slot, false);
            c.state = peer.state();
        }
        true
    }

    /// Whether entity `id` is in the current frame.
    pub fn contains(&self, id: u64) -> bool {
        self.ids.get(id).is_some()
    }

    /// Entities in the world.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the world has no entity.
    pub fn is_empty(&self) -> bool {
        self.ids.len() == 0
    }

    /// Runs a setter of marks on `client`'s peer, doubling the peer's id table while it
    /// refuses the mark for want of room.
    fn mark(&mut self, client: ClientId, f: impl Fn(&mut Peer<'_>) -> Result<()>) -> Result<()> {
        let at = self.index_of(client)?;
        let c = &mut self.connections[at];
        loop {
            let mut peer = c.buffers.resume(P::SCHEMA, c.state);
            let out = f(&mut peer);
            c.state = peer.state();
            match out {
                Err(Error::InterestFull { .. }) => c.state = c.buffers.grow(c.state),
                out => return out,
            }
        }
    }

    pub(super) fn with_peer<T>(
        &mut self,
        client: ClientId,
        f: impl FnOnce(&mut Peer<'_>) -> T,
    ) -> Result<T> {
        let at = self.index_of(client)?;
        let c = &mut self.connections[at];
        let mut peer = c.buffers.resume(P::SCHEMA, c.state);
        let out = f(&mut peer);
        c.state = peer.state();
        Ok(out)
    }

    /// Binds `client`'s packets to a session its [`Client::set_session`](super::Client::set_session)
    /// names too, from the transport; see [`Peer::set_session`].
    pub fn set_session(&mut self, client: ClientId, session: u64) -> Result<()> {
        self.with_peer(client, |p| p.set_session(session))?;
        if let Some(inputs) = self.connection(client)?.inputs.as_mut() {
            inputs.set_session(session);
        }
        Ok(())
    }

    /// Shows or hides entity `id` to `client` from the next packet on.
    pub fn set_visible(&mut self, client: ClientId, id: u64, visible: bool) -> Result<()> {
        let slot = self.slot(id)?;
        self.mark(client, |p| p.set_visible(slot, visible))
    }

    /// Whether entity `id` is visible to `client`.
    pub fn is_visible(&self, client: ClientId, id: u64) -> Result<bool> {
        let slot = self.slot(id)?;
        Ok(self.connections[self.index_of(client)?].buffers.is_visible(slot))
    }

    /// Marks entity `id` as `client`'s own (its avatar, its units) or not. The client sees
    /// which of its handles are its own ([`super::Client::is_own`]); a change re-enters it as a
    /// new entity (it leaves and enters, perhaps under the same handle). Nothing is revealed about entities it cannot see.
    pub fn set_own(&mut self, client: ClientId, id: u64, own: bool) -> Result<()> {
        let slot = self.slot(id)?;
        self.mark(client, |p| p.set_own(slot, own))
    }

    /// Marks entity `id` as essential to `client` or not (see [`Peer::set_essential`]): its
    /// own entities and essential ones get handles before any other and are sent first under a
    /// byte budget. Nothing of the mark reaches the client.
    pub fn set_essential(&mut self, client: ClientId, id: u64, essential: bool) -> Result<()> {
        let slot = self.slot(id)?;
        self.mark(client, |p| p.set_essential(slot, essential))
    }

    /// An own or essential entity of `client`'s that had no handle at its last packet (see
    /// [`Peer::starved`]): the client cannot hold everything it must, because more of them
    /// are visible than it has handles. `None` when
    /// every one is held.
    pub fn starved(&self, client: ClientId) -> Result<Option<u64>> {
        let at = self.index_of(client)?;
        let slot = self.connections[at].state.starved();
        Ok(slot.and_then(|s| self.ids.id_of(s)))
    }

    /// Sets how much entity `id` matters to `client` when a packet cannot carry every update
    /// (typically from its distance to the client's camera); see [`Peer::set_priority`].
    pub fn set_priority(&mut self, client: ClientId, id: u64, weight: u16) -> Result<()> {
        let slot = self.slot(id)?;
        self.mark(client, |p| p.set_priority(slot, weight))
    }

    /// How stale what `client` was last sent of entity `id` is: the most frames since the values
    /// it holds were the world's (0: all sent in the current frame), `None` if it does not
    /// hold the entity; see [`Peer::staleness`]. Meaningful after [`Server::encode`] for the
    /// current frame.
    pub fn staleness(&mut self, client: ClientId, id: u64) -> Result<Option<u32>> {
        let slot = self.slot(id)?;
        let at = self.index_of(client)?;
        let frame = self.world_state.frame().ok_or(Error::FrameNotStarted)?;
        let c = &mut self.connections[at];
        Ok(c.buffers.resume(P::SCHEMA, c.state).staleness(frame, slot))
    }

    /// What the server records `client` holds of entity `id` at the current frame, for checking
    /// a client against: writes its raw values into `out` (at least as long as the class's
    /// fields) and returns the handle the client knows it by and its class, or `None` if the
    /// client does not hold it. Meaningful after [`Server::encode`] for the current frame; a
    /// client that decodes that packet has exactly this in its
    /// [`frame_view`](super::Client::frame_view), but for the young entities whose entries it
    /// lost ([`Server::young_entry`]). See [`Peer::client_view`].
    pub fn client_view(
        &mut self,
        client: ClientId,
        id: u64,
        out: &mut [i32],
    ) -> Result<Option<(u32, usize)>> {
        let slot = self.slot(id)?;
        let at = self.index_of(client)?;
        let frame = self.world_state.frame().ok_or(Error::FrameNotStarted)?;
        let world = self.world.resume(P::SCHEMA, self.world_state);
        let c = &mut self.connections[at];
        let peer = c.buffers.resume(P::SCHEMA, c.state);
        let Some(handle) = peer.handle_of(slot) else { return Ok(None) };
        Ok(peer.client_view(&world, frame, slot, out).map(|class| (handle, class)))
    }

    /// The frame of the packet that brought entity `id` in, if `client`'s packet for the
    /// current frame codes it young, against that packet's values (see
    /// [`Peer::young_entities`]): a client that decodes the packet holds the entity only if it
    /// decoded that frame too. For checking a client against [`Server::client_view`].
    pub fn young_entry(&mut self, client: ClientId, id: u64) -> Result<Option<u32>> {
        let slot = self.slot(id)?;
        let at = self.index_of(client)?;
        let frame = self.world_state.frame().ok_or(Error::FrameNotStarted)?;
        let c = &mut self.connections[at];
        let peer = c.buffers.resume(P::SCHEMA, c.state);
        let Some(handle) = peer.handle_of(slot) else { return Ok(None) };
        Ok(peer.young_entities(frame).find(|&(h, _)| h == handle).map(|(_, entry)| entry))
    }

    /// Writes `client`'s packet for the current frame into `buf`, never past its end (the
    /// byte budget; [`DEFAULT_BUDGET`](crate::engine::peer::DEFAULT_BUDGET) is the usual
    /// length); see [`Peer::encode`].
    pub fn encode(&mut self, client: ClientId, buf: &mut [u8]) -> Result<usize> {
        let at = self.index_of(client)?;
        let (frame, connections) = self.split();
        connections[at].encode(&frame, buf)
    }

    /// The current frame and every connection, apart, so that packets can be encoded on
    /// several threads: `frame` is [`Sync`] and each [`Connection`] is [`Send`]. Encoding
    /// changes only the connection, so the packets are the same in any order and on any
    /// thread.
    ///
    /// ```ignore
    /// let (frame, connections) = server.split();
    /// std::thread::scope(|s| {
    ///     for c in connections.iter_mut() {
    ///         let frame = &frame;
    ///         s.spawn(move || {
    ///             let mut buf = [0; 1200];
    ///             let n = c.encode(frame, &mut buf)?;
    ///             send(c.client(), &buf[..n])
    ///         });
    ///     }
    /// });
    /// ```
    pub fn split(&mut self) -> (Frame<'_, P>, &mut [Connection]) {
        let world = self.world.resume(P::SCHEMA, self.world_state);
        (Frame { world, texts: &self.texts, _schema: PhantomData }, &mut self.connections)
    }

    /// Takes an acknowledgement from `client`; see [`Peer::receive_ack`]. The first one
    /// [`AckOutcome::Accepted`] proves the client receives ([`Server::is_proven`]).
    pub fn receive_ack(&mut self, client: ClientId, ack: &Ack) -> Result<AckOutcome> {
        let outcome = self.with_peer(client, |p| p.receive_ack(ack))?;
        if outcome == AckOutcome::Accepted {
            let at = self.index_of(client)?;
            self.connections[at].pending = None;
        }
        Ok(outcome)
    }

    /// The ack `client` would send had it decoded `frame` and every older frame `holds`
    /// names, with its proof: for simulations and tests without a client; see
    /// [`Peer::ack_of`].
    pub fn ack_of(
        &mut self,
        client: ClientId,
        frame: u32,
        holds: impl FnMut(u32) -> bool,
    ) -> Result<Option<Ack>> {
        self.with_peer(client, |p| p.ack_of(frame, holds))
    }

    /// Writes `client`'s frame for the current frame into `buf`, never past its end: the
    /// timing report, the input ack and the packet; see [`Connection::write`].
    pub fn write(&mut self, client: ClientId, buf: &mut [u8]) -> Result<usize> {
        let at = self.index_of(client)?;
        let (frame, connections) = self.split();
        connections[at].write(&frame, buf)
    }

    /// Takes a frame from `client`: its state ack ([`Server::receive_ack`]) and its input
    /// datagram, received during the current frame. A malformed frame ([`Error::Corrupt`],
    /// [`Error::UnexpectedEnd`]) changes nothing; otherwise each part is taken on its own and
    /// its outcome returned.
    pub fn receive(&mut self, client: ClientId, frame: &[u8]) -> Result<FromClient> {
        self.index_of(client)?;
        let up = Up::read(frame)?;
        let ack = up.ack.map(|a| self.receive_ack(client, &a)).transpose()?;
        let now = self.frame().unwrap_or(0);
        let inputs = up.inputs.map(|datagram| match &mut self.connection(client)?.inputs {
            Some(inputs) => {
                let new = inputs.receive(datagram, now)?;
                if let Some(part) = up.views {
                    inputs.take_views(part);
                }
                Ok(new)
            }
            None => Err(Error::NoInputs),
        });
        Ok(FromClient { ack, inputs })
    }

    fn connection(&mut self, client: ClientId) -> Result<&mut Connection> {
        let at = self.index_of(client)?;
        Ok(&mut self.connections[at])
    }

    fn receiver(&mut self, client: ClientId) -> Result<&mut ReceiverEnd> {
        self.connection(client)?.inputs.as_deref_mut().ok_or(Error::NoInputs)
    }

    /// `client`'s input of `tick`, chosen by the game (usually the current frame), raw; see
    /// [`InputReceiver::take`](crate::engine::input::InputReceiver::take) for what a missing,
    /// late or repeated tick gets. [`Error::NoInputs`] without [`Server::with_inputs`].
    pub fn take_input(&mut self, client: ClientId, tick: u32) -> Result<Taken> {
        Ok(self.receiver(client)?.take(tick))
    }

    /// `client`'s input of the next tick at its target delay, raw; see
    /// [`InputReceiver::take_next`](crate::engine::input::InputReceiver::take_next).
    pub fn take_next_input(&mut self, client: ClientId) -> Result<Option<Taken>> {
        Ok(self.receiver(client)?.take_next())
    }

    /// `client`'s input of `tick` as [`Server::take_input`] takes it, as a value of the input
    /// type whose schema this server takes ([`Server::with_inputs`]; [`Error::WrongInput`]
    /// for another, checked before anything is taken).
    pub fn take<I: Input>(&mut self, client: ClientId, tick: u32) -> Result<TakenInput<I>> {
        self.check_input::<I>()?;
        self.take_input(client, tick).map(TakenInput::new)
    }

    /// `client`'s input of the next tick at its target delay as [`Server::take_next_input`]
    /// takes it, as a value of the input type whose schema this server takes (as
    /// [`Server::take`]).
    pub fn take_next<I: Input>(&mut self, client: ClientId) -> Result<Option<TakenInput<I>>> {
        self.check_input::<I>()?;
        Ok(self.take_next_input(client)?.map(TakenInput::new))
    }

    /// Whether `I` is the input type of the inputs this server takes: [`Error::NoInputs`]
    /// without inputs, [`Error::WrongInput`] for another.
    fn check_input<I: Input>(&self) -> Result<()> {
        let expected = self.input.ok_or(Error::NoInputs)?;
        if expected.hash == I::SCHEMA.hash {
            Ok(())
        } else {
            Err(Error::WrongInput { expected: expected.name, given: I::SCHEMA.name })
        }
    }

    /// The world as `client` showed it when it pushed its input of `tick`, for judging that
    /// input against what its player saw (lag compensation): see [`Seen`]. The client gives
    /// the server its render time with each input
    /// ([`Client::set_render_time`](super::Client::set_render_time)); `None` if none came
    /// with the input of `tick` or it is older than the last
    /// [`ARCHIVE`](crate::engine::frame::ARCHIVE) ticks. A client chooses its render time, so a
    /// game that fears cheating bounds how far behind the input's tick it accepts
    /// ([`Seen::time`]). [`Error::NoInputs`] without [`Server::with_inputs`].
    pub fn seen_by(&mut self, client: ClientId, tick: u32) -> Result<Option<Seen<'_, P>>> {
        let at = self.index_of(client)?;
        let c = &mut self.connections[at];
        let inputs = c.inputs.as_deref().ok_or(Error::NoInputs)?;
        let Some(time) = inputs.render_time(tick) else { return Ok(None) };
        Ok(Some(Seen {
            world: self.world.resume(P::SCHEMA, self.world_state),
            peer: c.buffers.resume(P::SCHEMA, c.state),
            ids: &self.ids,
            time,
            rewind: &mut self.rewind,
            _schema: PhantomData,
        }))
    }

    /// What `client`'s input stream has seen: datagrams, the buffer's policy at work and the
    /// target delay.
    pub fn input_stats(&mut self, client: ClientId) -> Result<InputStats> {
        Ok(self.receiver(client)?.stats())
    }

    /// `client`'s counters.
    pub fn stats(&mut self, client: ClientId) -> Result<PeerStats> {
        self.with_peer(client, |p| p.stats())
    }

    /// Queues `bytes` as the next record of `client`'s record stream and returns its number:
    /// its next packet carries it, another only if that one is lost, and the client applies
    /// the records in order, each once ([`Client::records`](super::Client::records)). Refused
    /// with [`Error::RecordTooLong`] or [`Error::RecordQueueFull`], queuing nothing; see
    /// [`Peer::queue_record`].
    pub fn send_record(&mut self, client: ClientId, bytes: &[u8]) -> Result<u32> {
        self.with_peer(client, |p| p.queue_record(bytes))?
    }

    /// `client`'s records queued or not yet acknowledged, and their bytes; see
    /// [`Peer::unacked_records`].
    pub fn unacked_records(&mut self, client: ClientId) -> Result<(usize, usize)> {
        self.with_peer(client, |p| p.unacked_records())
    }

    /// The counters of `client`'s record stream.
    pub fn record_stats(&mut self, client: ClientId) -> Result<RecordStats> {
        self.with_peer(client, |p| p.record_stats())
    }

    /// Values clamped by [`Server::set_clamped`] so far, per scalar field that had any:
    /// `(class, field, count)`.
    pub fn clamped(&self) -> impl Iterator<Item = (&'static str, &'static str, u64)> + '_ {
        P::SCHEMA.classes.iter().enumerate().flat_map(move |(c, class)| {
            let counts = &self.clamped[self.clamped_at[c]..][..class.fields.len()];
            class
                .fields
                .iter()
                .zip(counts)
                .filter(|(_, n)| **n > 0)
                .map(move |(f, n)| (class.name, f.name, *n))
        })
    }
}
