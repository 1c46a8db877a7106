//! The server's view of one client: its visible set, its handles, what it has acknowledged,
//! and the models stored with each frame sent to it. [`Peer::encode`] writes one packet.
//!
//! This module owns the peer's state and its public setters and getters; the rest is in one
//! module per job: `storage` (the caller's slices and their sizes), `acks` (what the client
//! proves it holds), `handles` (the visible set onto the client's handles), `encode` (one
//! packet: references, attempts under the budget, the record of what was sent) and `side`
//! (the encoder's side of the packet walk).

use crate::engine::MAX_HANDLES;
use crate::engine::bitset::{put_bit, test_bit, words};
use crate::engine::frame::{NO_FRAME, REACH, WINDOW, age};
use crate::engine::keys::Shadow;
use crate::engine::lags::LagView;
use crate::engine::models::{Book, End};
use crate::engine::records::{Outbox, RecordStats};
use crate::engine::slots::{SLOTS, Slots};
use crate::engine::world::World;
use crate::model::{Model, ModelLayout};
use crate::schema::{MAX_GROUPS, Schema};

pub use crate::engine::pack::FORCE_AGE;
use crate::{Error, Result};

mod acks;
mod encode;
mod handles;
mod ids;
mod keyed;
mod side;
mod storage;
mod young;

pub use ids::IdSlot;
use ids::{ESSENTIAL, Ids, OWN, VISIBLE};
#[cfg(feature = "std")]
pub(crate) use ids::{rehash, table_len, visible as marked_visible};

use side::held_values;
pub use storage::{PeerScratch, PeerSizes, PeerStorage, ScratchSizes};

const NO_HANDLE: u32 = u32::MAX;

/// Counters of a peer, for monitoring.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PeerStats {
    /// Packets written.
    pub packets: u64,
    /// Packets written without a baseline.
    pub cold_packets: u64,
    /// Packets that held everything because nothing else fitted the budget.
    pub held_packets: u64,
    /// Visible entities left out of a frame because every handle was taken.
    pub deferred: u64,
    /// Entities (entering, or kept with an update due) that waited for the byte budget, summed
    /// over packets.
    pub waited: u64,
    /// Acks refused because they named frames never sent or their proof did not match
    /// ([`AckOutcome::Refused`](crate::engine::ack::AckOutcome::Refused)): a client that keeps sending them is lying about what it
    /// holds, and the game may disconnect it.
    pub refused_acks: u64,
    /// Restarts: asked for by the client ([`Ack::restart`](crate::Ack::restart)) and proven, or after a view
    /// mismatch.
    pub restarts: u64,
    /// Acks whose view digest differed from what this peer records the client holds: the
    /// client accepted a packet that decoded wrongly yet passed its check value, and the
    /// stream restarted.
    pub view_mismatches: u64,
    /// Packets whose reach was above 0: the round trip came near the [`WINDOW`] of frames
    /// a client's slots hold, so they kept one frame in two or four for longer (see
    /// [`crate::engine::frame::span`]). A game may warn when this grows: baselines are then
    /// older and packets larger.
    pub stretched_packets: u64,
    /// Packets sent without baseline while acks came back, because the round trip exceeded
    /// even the longest reach ([`REACH`] frames): every entity was sent whole.
    pub beyond_reach: u64,
    /// The round trip in frames the newest ack showed: frames sent after the one it names
    /// (0 before the first).
    pub round_trip: u32,
    /// Frames in which a visible must-have entity (own or essential, see
    /// [`Peer::set_essential`]) had no handle ([`Peer::starved`] names one).
    pub starved: u64,
    /// Handles taken from other entities to give them to must-have entities.
    pub evicted: u64,
    /// Packets before which a timeline edit waited because the record queue was full (see
    /// [`Peer::encode`]): the client's keyframes lag the world's until acks free room.
    pub keys_waiting: u64,
}

/// What a [`Peer`] keeps besides its storage, for the owned layer to resume it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PeerState {
    layout: ModelLayout,
    /// Where packets' models start from and go.
    book: Book,
    handles: u32,
    /// The most entities the game may mark for the client at once (see [`Peer::new`]).
    interest: usize,
    /// Entries of the id table in use.
    marked: u32,
    /// Whether the id table may have entries nothing keeps (weights of entities neither
    /// marked nor held), which the next packet drops.
    loose: bool,
    slots: Slots,
    acked: [bool; SLOTS],
    /// Frame slots (bit per slot) whose young handles cannot be resolved (see
    /// `Peer::settle_young`): their frames are never taken as held.
    unresolvable: u64,
    /// Frame slots (bit per slot) whose frames a proven ack named: the client decoded them,
    /// whether or not they count as held.
    named: u64,
    newest_sent: u32,
    /// The newest frame whose packet's sends [`PeerStorage::sends`] may hold (one whose
    /// encoding was tried): lags are read as of it, or of a newer frame.
    ring: u32,
    /// The newest frame acknowledged: the next packet's baseline.
    acked_high: u32,
    /// Per frame, the newest acknowledged frame whose models are kept (see
    /// `models::MODEL_STRIDE`): the next packet's model frame.
    acked_model: u32,
    /// The newest frame sent before the last restart ([`NO_FRAME`]: none): the client holds
    /// none of the frames up to it, so acks naming them, still in flight when the restart
    /// came, are stale.
    floor: u32,
    /// The frame, check value and datagram hash of each packet sent in the last [`PROVEN`]
    /// frames, by frame modulo [`PROVEN`]: what an ack or a restart request must prove.
    checks: [(u32, u16, u32); PROVEN as usize],
    /// Until this frame is sent ([`NO_FRAME`]: not since the start), acks are held to the strict
    /// standard: a refused ack came in the last [`STRICT`] frames.
    strict_until: u32,
    /// Under the strict standard, the proof of the first ack that named each frame slot's
    /// frame: a second ack with another proof makes it held.
    first_proof: [Option<u32>; SLOTS],
    /// The frame and view digest of the last proven ack that carried one, to compare with the
    /// record at the next packet.
    pending_view: Option<(u32, u32)>,
    /// The newest frame a proven ack named as its newest ([`NO_FRAME`]: none yet), whose
    /// arrival gave the round trip.
    acked_latest: u32,
    /// The first frame sent since the last ack this peer accepted ([`NO_FRAME`]: none): the
    /// round trip is at least as long as the frames since.
    unacked_since: u32,
    /// A visible must-have entity without a handle at the last packet.
    starved: Option<usize>,
    /// The frame of the last packet whose handles served every visible entity, if no mark
    /// changed since ([`NO_FRAME`]: not so): until an entity is spawned or removed, the
    /// handles stay as they are.
    settled: u32,
    /// Packets in a row that carried no entity because the budget could not carry the one
    /// tried (see [`Error::BudgetTooSmall`]).
    short_packets: u32,
    /// The scale of the packing's cost estimates, in 1/256 (see `engine::pack`).
    scale: u32,
    stats: PeerStats,
    /// The session packets' check values cover (see [`Peer::set_session`]).
    session: u64,
    /// The record stream's queued and unacknowledged records.
    records: Outbox,
}

#[cfg(feature = "std")]
impl PeerState {
    /// What [`Peer::starved`] says of the peer this state was taken from.
    pub(crate) fn starved(&self) -> Option<usize> {
        self.starved
    }

    /// The most entities the client may see at once (see [`Peer::new`]).
    pub(crate) fn handles(&self) -> usize {
        self.handles as usize
    }

    /// The most entities the game may mark for the client at once (see [`Peer::new`]).
    pub(crate) fn interest(&self) -> usize {
        self.interest
    }

    /// The state of the peer once its id table was copied into one for `interest` entities.
    pub(crate) fn grown(self, interest: usize) -> PeerState {
        PeerState { interest, ..self }
    }
}

/// Frames back a peer remembers the check values of the packets it sent: an ack names frames
/// up to [`WINDOW`] before its newest, which is less than [`REACH`] behind the newest sent
/// while it can still serve.
const PROVEN: u32 = REACH + WINDOW;
/// Frames after a refused ack during which a frame counts as held only once two acks with
/// different proofs name it.
const STRICT: u32 = 2 * WINDOW;

/// Packets in a row a budget may fail to carry any entity before [`Peer::encode`] refuses it
/// with [`Error::BudgetTooSmall`].
pub const SHORT_PACKETS: u32 = 64;

/// The weight of an entity for a client until the game sets one (see [`Peer::set_priority`]).
pub const DEFAULT_WEIGHT: u16 = 16;

/// The byte budget to give a packet when nothing else decides it: the payload a datagram
/// carries without fragmenting on common paths, as the usual game transports assume.
pub const DEFAULT_BUDGET: usize = 1200;

/// The server side of one client connection.
#[derive(Debug)]
pub struct Peer<'a> {
    schema: &'a Schema,
    store: PeerStorage<'a>,
    state: PeerState,
}

impl<'a> Peer<'a> {
    /// A peer for a client that may see up to `handles` entities at once (at least one, else
    /// [`Error::NoHandles`]; at most [`MAX_HANDLES`], else [`Error::CapacityExceeded`]) and
    /// that the game may mark up to `interest` entities for at once: visible ones, whether or
    /// not they have a handle yet, its own and essential ones, and those given a weight in the
    /// frame. Its storage follows these two numbers, not the
    /// world's size; a mark past `interest` is refused with [`Error::InterestFull`]. Nothing
    /// is visible until [`Peer::set_visible`].
    pub fn new(
        schema: &'a Schema,
        handles: usize,
        interest: usize,
        store: PeerStorage<'a>,
    ) -> Result<Self> {
        schema.validate()?;
        if handles == 0 {
            return Err(Error::NoHandles);
        }
        if handles > MAX_HANDLES {
            return Err(Error::CapacityExceeded);
        }
        let sizes = PeerStorage::sizes(schema, handles, interest);
        if interest > u32::MAX as usize / 4 || !Self::fits(&store, &sizes) {
            return Err(Error::StorageTooSmall);
        }
        let store = Self::trim(store, &sizes);
        store.presence.fill(0);
        store.handle_entity.fill(NO_HANDLE);
        store.since.fill(NO_FRAME);
        store.since_before.fill(NO_FRAME);
        store.ids.fill(IdSlot::default());
        store.handle_own.fill(0);
        store.handle_essential.fill(0);
        store.young.fill(0);
        store.entries.fill(0);
        store.sends.fill(0);
        store.chains.fill(1);
        store.weights.fill(DEFAULT_WEIGHT);
        Shadow::new(schema, store.keys, 0).clear();
        let state = PeerState {
            layout: ModelLayout::new(schema),
            book: Book::new(schema, End::Server),
            handles: handles as u32,
            interest,
            marked: 0,
            loose: false,
            slots: Slots::new(),
            acked: [false; SLOTS],
            unresolvable: 0,
            named: 0,
            newest_sent: NO_FRAME,
            ring: NO_FRAME,
            acked_high: NO_FRAME,
            acked_model: NO_FRAME,
            floor: NO_FRAME,
            checks: [(NO_FRAME, 0, 0); PROVEN as usize],
            strict_until: NO_FRAME,
            first_proof: [None; SLOTS],
            pending_view: None,
            acked_latest: NO_FRAME,
            unacked_since: NO_FRAME,
            starved: None,
            settled: NO_FRAME,
            short_packets: 0,
            scale: 256,
            stats: PeerStats::default(),
            session: 0,
            records: Outbox::new(),
        };
        Ok(Peer { schema, store, state })
    }

    #[cfg(feature = "std")]
    /// The peer in `store` as it was when `state` was taken from it (storage that
    /// [`Peer::new`] initialised).
    pub(crate) fn resume(schema: &'a Schema, store: PeerStorage<'a>, state: PeerState) -> Self {
        let sizes = PeerStorage::sizes(schema, state.handles as usize, state.interest);
        Peer { schema, store: Self::trim(store, &sizes), state }
    }

    #[cfg(feature = "std")]
    /// What [`Peer::resume`] needs besides the storage.
    pub(crate) fn state(&self) -> PeerState {
        self.state
    }

    /// The schema hash a client must present to connect (see [`crate::engine::handshake`]).
    pub fn schema_hash(&self) -> u64 {
        self.schema.hash
    }

    /// Binds this peer to a session: a value its client was given too, from the transport (a
    /// connection id, a token's nonce); see [`Client::set_session`](crate::Client::set_session).
    /// Set it before the first packet; 0 (the default) is no session.
    pub fn set_session(&mut self, session: u64) {
        self.state.session = session;
    }

    /// Shows or hides entity `id` to this client from the next packet on. Showing one more
    /// entity than the peer's `interest` (see [`Peer::new`]) is refused with
    /// [`Error::InterestFull`], and nothing changes.
    pub fn set_visible(&mut self, id: usize, visible: bool) -> Result<()> {
        self.mark(id, VISIBLE, visible)
    }

    /// Marks entity `id` as this client's own (its avatar, its units) or not. The client sees
    /// the mark on the entity's handle; a change while the entity is visible re-enters it as a
    /// new entity (it leaves and enters, perhaps under the same handle). Refused as
    /// [`Peer::set_visible`] is.
    pub fn set_own(&mut self, id: usize, own: bool) -> Result<()> {
        self.mark(id, OWN, own)
    }

    /// Marks entity `id` as essential to this client (a ball, a flag carrier) or not. Its own
    /// entities and essential ones are *must-have*: they get handles before any other entity
    /// (taking one from another entity when none is free) and, under a byte budget, are sent
    /// ahead of everything else whenever they have an update due. Nothing of this mark reaches
    /// the client. Refused as [`Peer::set_visible`] is.
    pub fn set_essential(&mut self, id: usize, essential: bool) -> Result<()> {
        self.mark(id, ESSENTIAL, essential)?;
        if let Some(h) = self.handle_of(id) {
            put_bit(self.store.handle_essential, h as usize, essential);
        }
        Ok(())
    }

    /// Whether entity `id` is marked essential to this client.
    pub fn is_essential(&self, id: usize) -> bool {
        ids::get(self.store.ids, id).is_some_and(|e| e.has(ESSENTIAL))
    }

    /// A must-have entity (own or essential, visible) that has no handle at the last packet,
    /// if any: the client cannot hold everything it must, because its other must-have entities
    /// take every handle. [`PeerStats::starved`] counts the frames this happened.
    pub fn starved(&self) -> Option<usize> {
        self.state.starved
    }

    /// Sets how much entity `id` matters to this client ([`DEFAULT_WEIGHT`] until set;
    /// typically larger near the client's camera). When a packet's byte budget cannot carry
    /// every update, an entity's priority is the frames since it was last sent times its due
    /// groups' priorities times this weight, and the highest go first: twice the weight, about
    /// twice as often. The weight lasts while the entity is marked (visible, own or essential)
    /// or held by the client; one set on an entity that is neither is forgotten at the next
    /// packet. Refused as [`Peer::set_visible`] is.
    pub fn set_priority(&mut self, id: usize, weight: u16) -> Result<()> {
        let i = self.entry(id)?;
        let mut ids = Ids { slots: self.store.ids };
        ids.set_weight(i, weight);
        match ids.slots[i].handle() {
            Some(h) => self.store.weights[h] = weight,
            None => self.state.loose = true,
        }
        Ok(())
    }

    /// Whether entity `id` is marked as this client's own.
    pub fn is_own(&self, id: usize) -> bool {
        ids::get(self.store.ids, id).is_some_and(|e| e.has(OWN))
    }

    /// Whether entity `id` is in the visible set.
    pub fn is_visible(&self, id: usize) -> bool {
        ids::visible(self.store.ids, id)
    }

    /// Whether the client's accepted acks show it holds `frame`, while this peer keeps the
    /// frame: it decoded that frame's packet.
    pub fn client_holds(&self, frame: u32) -> bool {
        self.state.slots.find(frame).is_some_and(|p| self.state.acked[p])
    }

    /// The entity handle `h` names, and the frame the handle got it (the client's birth frame
    /// of the entity: see `docs/protocol.md`, "Handles and visibility"), if it names one.
    pub fn handle_entity(&self, h: u32) -> Option<(usize, u32)> {
        let id = *self.store.handle_entity.get(h as usize)?;
        (id != NO_HANDLE).then(|| (id as usize, self.store.since[h as usize]))
    }

    /// The handle the client knows entity `id` by, if it is visible to it.
    pub fn handle_of(&self, id: usize) -> Option<u32> {
        ids::get(self.store.ids, id).and_then(|e| e.handle()).map(|h| h as u32)
    }

    /// The index of `id`'s entry in the id table, made if it has none. An id from `u32::MAX`
    /// on names no entity of any world.
    fn entry(&mut self, id: usize) -> Result<usize> {
        if id >= u32::MAX as usize {
            return Err(Error::UnknownEntity { id: id as u64 });
        }
        let mut ids = Ids { slots: self.store.ids };
        let capacity = self.state.interest;
        ids.entry(id, &mut self.state.marked, capacity, DEFAULT_WEIGHT)
            .ok_or(Error::InterestFull { capacity })
    }

    /// Sets or clears `mark` on entity `id`; an entry left with no mark and no handle goes.
    fn mark(&mut self, id: usize, mark: u8, on: bool) -> Result<()> {
        let changed = if on {
            let i = self.entry(id)?;
            Ids { slots: self.store.ids }.mark(i, mark, true)
        } else {
            let mut ids = Ids { slots: self.store.ids };
            let i = ids.find(id);
            let changed = i.is_some_and(|i| ids.mark(i, mark, false));
            if let Some(i) = i {
                ids.prune(i, &mut self.state.marked);
            }
            changed
        };
        if changed {
            self.state.settled = NO_FRAME;
        }
        Ok(())
    }

    /// What the client holds of entity `id` at `frame`, a frame sent to it and still held by
    /// both this peer and `world`: writes its values into `out` (at least as long as the
    /// class's fields) and returns its class, or `None` if the client does not hold it there.
    /// Each value is the world's at the frame it was last sent, within the field's tolerance.
    pub fn client_view(
        &self,
        world: &World<'_>,
        frame: u32,
        id: usize,
        out: &mut [i32],
    ) -> Option<usize> {
        let p = self.state.slots.find(frame)?;
        let h = self.handle_of(id)? as usize;
        self.held_entity(world, frame, p, h, id, |f, v| {
            if let Some(o) = out.get_mut(f) {
                *o = v;
            }
        })
    }

    /// The handle the client holds as the target of link `link` of entity `id` at `frame`, as
    /// the peer records it ([`Peer::client_view`]): `None` if the link names nothing there, or
    /// the client does not hold the entity at `frame`.
    pub fn client_link(&self, frame: u32, id: usize, link: usize) -> Option<u32> {
        let p = self.state.slots.find(frame)?;
        let h = self.handle_of(id)? as usize;
        let (handles, l) = (self.state.handles as usize, self.schema.max_links);
        if link >= l || !self.holds_handle(p, frame, h) {
            return None;
        }
        u32::from(*self.store.links.get((p * handles + h) * l + link)?).checked_sub(1)
    }

    /// What the client holds at `frame` (in physical slot `p`) of entity `id` under handle
    /// `h`: calls `put(f, value)` for each field and returns its class, or `None` if it does
    /// not hold it there or the world no longer has the frame.
    fn held_entity(
        &self,
        world: &World<'_>,
        frame: u32,
        p: usize,
        h: usize,
        id: usize,
        put: impl FnMut(usize, i32),
    ) -> Option<usize> {
        let handles = self.state.handles as usize;
        if !self.holds_handle(p, frame, h) || !world.holds(frame) {
            return None;
        }
        let (class, _) = world.get(frame, id)?;
        let c = &self.schema.classes[class];
        let (g, d) = (self.schema.max_groups, self.schema.max_tolerant);
        let lags = self.lags(p, frame, h);
        let diffs = &self.store.diffs[(p * handles + h) * d..][..d];
        let at = id * self.schema.max_fields;
        held_values(world, c, at, frame, &lags[..g], diffs, 0, put);
        Some(class)
    }

    /// How stale what the client holds of entity `id` at `frame` is: the most frames, over
    /// its update groups, since the values it holds were the world's (0: all sent in `frame`),
    /// or `None` if the client does not hold it there (or `frame` is no longer held).
    pub fn staleness(&self, frame: u32, id: usize) -> Option<u32> {
        let p = self.state.slots.find(frame)?;
        let h = self.handle_of(id)? as usize;
        if !self.holds_handle(p, frame, h) {
            return None;
        }
        let g = self.schema.max_groups;
        self.lags(p, frame, h)[..g].iter().map(|&l| u32::from(l)).max()
    }

    /// The lags of handle `h`'s groups at `frame`, in physical slot `p`, as of the newest
    /// frame the sends hold (see [`crate::engine::lags`]).
    fn lags(&self, p: usize, frame: u32, h: usize) -> [u8; MAX_GROUPS] {
        let view = LagView::of(self.store.chains, p, frame, self.state.ring);
        let g = self.schema.max_groups;
        view.groups(self.store.sends.get(h * g..(h + 1) * g).unwrap_or(&[]))
    }

    /// Whether the client holds handle `h`'s current entity at `frame`, in physical slot `p`:
    /// the handle is present there and was given its entity by then.
    fn holds_handle(&self, p: usize, frame: u32, h: usize) -> bool {
        let w = words(self.state.handles as usize);
        test_bit(&self.store.presence[p * w..(p + 1) * w], h)
            && age(frame, self.store.since[h]) as i32 >= 0
    }

    /// Counters.
    pub fn stats(&self) -> PeerStats {
        self.state.stats
    }

    /// Queues `bytes` as the next record of this client's record stream and returns its
    /// number (0 for the first, then one more each). The next packet carries it, and another
    /// only if that packet is known lost; the client applies the records in order, each once
    /// ([`Client::records`](crate::Client::records)). Refused, with nothing queued, past
    /// [`MAX_RECORD_LEN`](crate::engine::records::MAX_RECORD_LEN) bytes
    /// ([`Error::RecordTooLong`]) or when the records queued or not yet acknowledged would
    /// pass [`RECORD_LIMIT`](crate::engine::records::RECORD_LIMIT) or
    /// [`RECORD_BYTES`](crate::engine::records::RECORD_BYTES) ([`Error::RecordQueueFull`]).
    ///
    /// ```
    /// # use netschema_runtime::owned::{PeerBuffers};
    /// # use netschema_runtime::schema::{Class, Field, Schema};
    /// # static F: [Field; 1] = [Field::categorical("on", 2)];
    /// # static C: [Class; 1] = [Class::new("c", &F)];
    /// # static S: Schema = Schema::new("s", &C);
    /// # let mut buffers = PeerBuffers::new(&S, 4, 4);
    /// # let mut peer = buffers.peer(&S, 4, 4).unwrap();
    /// assert_eq!(peer.queue_record(b"door 7 opened"), Ok(0));
    /// assert_eq!(peer.queue_record(b"score 3:1"), Ok(1));
    /// assert_eq!(peer.unacked_records(), (2, 22));
    /// ```
    pub fn queue_record(&mut self, bytes: &[u8]) -> Result<u32> {
        self.state.records.push(bytes, false)
    }

    /// Records queued or sent and not yet acknowledged, and their bytes: what counts against
    /// [`RECORD_LIMIT`](crate::engine::records::RECORD_LIMIT) and
    /// [`RECORD_BYTES`](crate::engine::records::RECORD_BYTES).
    pub fn unacked_records(&self) -> (usize, usize) {
        (self.state.records.len(), self.state.records.bytes())
    }

    /// Counters of the record stream.
    pub fn record_stats(&self) -> RecordStats {
        self.state.records.stats()
    }

    /// Digest of the models the packet for `frame` ended with, while they are kept (for
    /// checking both ends agree: [`Client::model_digest`](crate::Client::model_digest)): per
    /// frame, those of the frames that keep their models and may still start a packet (the
    /// newest sent, if it keeps them).
    pub fn model_digest(&self, frame: u32) -> Option<u64> {
        let p = self.state.slots.find(frame)?;
        self.state.book.digest(self.store.stored, p, frame)
    }

    /// Batched policy: the first frame of the batch the model the next packet starts from
    /// was built from, and the model's digest (the client's
    /// [`Client::batch_model_digest`](crate::Client::batch_model_digest) of it must match);
    /// `None` while packets start from cold models, and per frame.
    pub fn batch_model(&self) -> Option<(u32, u64)> {
        let start = self.state.book.current()?;
        Some((start, self.state.book.kept_digest(self.store.models, start)?))
    }

    /// The model set the newest packet ended with (what the peer has learned by then), if it is
    /// still held and was coded in this peer's own scratch room: [`ModelLayout::write_prior`]
    /// turns it into a prior.
    pub fn learned(&self) -> Option<&[Model]> {
        self.state.slots.find(self.state.newest_sent)?;
        self.store.scratch.models.get(..self.state.layout.len)
    }

    /// The model of scalar `field` of `class` as the packet for `frame` left it, if `frame` is
    /// the newest frame sent, still held, and was coded in this peer's own scratch room: what
    /// the peer has learned about that field by then.
    pub fn field_model(&self, frame: u32, class: usize, field: usize) -> Option<&Model> {
        self.state.slots.find(frame)?;
        let fields = self.schema.classes.get(class)?.fields.len();
        if field >= fields {
            return None;
        }
        let at = ModelLayout::class_base(self.schema, class) + 1 + field;
        (frame == self.state.newest_sent).then(|| self.store.scratch.models.get(at))?
    }
}

/// Digest of a model set.
pub(crate) fn digest(models: &[Model]) -> u64 {
    models.iter().fold(0xcbf2_9ce4_8422_2325, |h, m| m.digest(h))
}
