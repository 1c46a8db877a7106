//! The server's view of one client: its visible set, its handles, what it has acknowledged,
//! and the models stored with each frame sent to it. [`Peer::encode`] writes one packet.

use crate::codec::coder::{BinaryCoder, Encoder, Metered};
use crate::codec::prob::COST_FRAC_BITS;
use crate::engine::ack::{Ack, AckOutcome, Proof, ViewDigest, datagram_hash};
use crate::engine::bitset::{put_bit, test_bit, words};
use crate::engine::frame::{NO_FRAME, REACH, WINDOW, age, from_wire, reach_after, span};
use crate::engine::models::{Book, End};
use crate::engine::pack::{self, Budget, Candidate, Rank};
use crate::engine::packet::{
    self, BASE_ID_BITS, CHECK_BITS, FRAME_BITS, Refs, Samples, Side, history_target, in_window,
    write_lags,
};
use crate::engine::probe::{NoProbe, Part, Probe};
use crate::engine::slots::{SLOTS, Slots, split};
use crate::engine::world::World;
use crate::model::predict::MAX_SAMPLES;
use crate::model::{Model, ModelLayout, ModelPolicy};
use crate::schema::{Class, MAX_GROUPS, Schema};

pub use crate::engine::pack::FORCE_AGE;
use crate::{Error, Result};

const NO_HANDLE: u32 = u32::MAX;

/// Caller-owned storage of a [`Peer`]; [`PeerStorage::sizes`] gives every length.
#[derive(Debug)]
pub struct PeerStorage<'a> {
    /// Handle presence bitsets, one per frame slot.
    pub presence: &'a mut [u64],
    /// Entity id of each handle.
    pub handle_entity: &'a mut [u32],
    /// Frame at which each handle was given its entity.
    pub since: &'a mut [u32],
    /// Frame at which each handle was last released.
    pub released: &'a mut [u32],
    /// Handle of each entity id.
    pub entity_handle: &'a mut [u32],
    /// Visible set: one bit per entity id.
    pub visible: &'a mut [u64],
    /// Entities marked as the client's own: one bit per entity id.
    pub owned: &'a mut [u64],
    /// Entities the game marks essential to this client (see [`Peer::set_essential`]): one bit
    /// per entity id.
    pub essential: &'a mut [u64],
    /// Whether each handle was given to an entity marked as the client's own.
    pub handle_own: &'a mut [u64],
    /// What the client holds, per frame slot, handle and update group: how many frames before
    /// the slot's frame the world held the values the client has.
    pub lags: &'a mut [u8],
    /// What the client holds, per frame slot, handle and field with a tolerance: how far its
    /// value is from the world's at the frame it came from.
    pub diffs: &'a mut [i8],
    /// The game's weight of each entity id for this client (see [`Peer::set_priority`]).
    pub weights: &'a mut [u16],
    /// Estimated cost of each handle's next update, in bits.
    pub cost: &'a mut [u16],
    /// The frame each handle was last sent in (or given its entity).
    pub sent_at: &'a mut [u32],
    /// Scratch room for ordering handles by priority.
    pub order: &'a mut [u64],
    /// Scratch bitsets of the handles selected for, sent in, and at the core of a packet
    /// (three bits per handle).
    pub marks: &'a mut [u64],
    /// Model sets (see [`ModelPolicy`]): per frame, one stored with
    /// each frame slot; batched, the model in use, one accumulator per batch in flight and the
    /// set a packet is coded in; and one more set for undoing an entity that did not fit.
    pub models: &'a mut [Model],
}

/// Lengths of the slices of a [`PeerStorage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerSizes {
    /// Length of [`PeerStorage::presence`].
    pub presence: usize,
    /// Length of [`PeerStorage::handle_entity`], [`PeerStorage::since`],
    /// [`PeerStorage::released`], [`PeerStorage::cost`] and
    /// [`PeerStorage::order`].
    pub handles: usize,
    /// Length of [`PeerStorage::entity_handle`] and [`PeerStorage::weights`].
    pub entities: usize,
    /// Length of [`PeerStorage::visible`] and [`PeerStorage::owned`].
    pub visible: usize,
    /// Length of [`PeerStorage::handle_own`]; [`PeerStorage::marks`] is three times as long.
    pub handle_words: usize,
    /// Length of [`PeerStorage::lags`].
    pub lags: usize,
    /// Length of [`PeerStorage::diffs`].
    pub diffs: usize,
    /// Length of [`PeerStorage::models`].
    pub models: usize,
}

impl PeerSizes {
    /// Bytes of storage these sizes take.
    pub const fn bytes(&self) -> usize {
        self.presence * 8
            + self.handles * (4 + 4 + 4 + 2 + 4 + 8)
            + self.entities * (4 + 2)
            + self.visible * 24
            + self.handle_words * 8 * 4
            + self.lags
            + self.diffs
            + self.models * core::mem::size_of::<Model>()
    }
}

impl PeerStorage<'_> {
    /// Slice lengths for a peer of `handles` handles (the most entities the client may see at
    /// once) over a world of `entities` ids.
    pub fn sizes(schema: &Schema, handles: usize, entities: usize) -> PeerSizes {
        PeerSizes {
            presence: SLOTS.saturating_mul(words(handles)),
            handles,
            entities,
            visible: words(entities),
            handle_words: words(handles),
            lags: SLOTS.saturating_mul(handles).saturating_mul(schema.max_groups),
            diffs: SLOTS.saturating_mul(handles).saturating_mul(schema.max_tolerant),
            models: Book::sets(schema, End::Server).saturating_mul(ModelLayout::new(schema).len),
        }
    }
}

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
    /// ([`AckOutcome::Refused`]): a client that keeps sending them is lying about what it
    /// holds, and the game may disconnect it.
    pub refused_acks: u64,
    /// Restarts: asked for by the client ([`Ack::restart`]) and proven, or after a view
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
}

/// What a [`Peer`] keeps besides its storage, for the owned layer to resume it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PeerState {
    layout: ModelLayout,
    /// Where packets' models start from and go.
    book: Book,
    handles: u32,
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    entities: usize,
    slots: Slots,
    acked: [bool; SLOTS],
    newest_sent: u32,
    acked_high: u32,
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
    /// Packets in a row that carried no entity because the budget could not carry the one
    /// tried (see [`Error::BudgetTooSmall`]).
    short_packets: u32,
    /// The scale of the packing's cost estimates, in 1/256 (see `engine::pack`).
    scale: u32,
    stats: PeerStats,
    /// The session packets' check values cover (see [`Peer::set_session`]).
    session: u64,
}

#[cfg(feature = "std")]
impl PeerState {
    /// What [`Peer::starved`] says of the peer this state was taken from.
    pub(crate) fn starved(&self) -> Option<usize> {
        self.starved
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
    /// [`Error::NoHandles`]), over a world of `entities` ids. Nothing is visible until
    /// [`Peer::set_visible`].
    pub fn new(
        schema: &'a Schema,
        handles: usize,
        entities: usize,
        store: PeerStorage<'a>,
    ) -> Result<Self> {
        schema.validate()?;
        if handles == 0 {
            return Err(Error::NoHandles);
        }
        let sizes = PeerStorage::sizes(schema, handles, entities);
        if handles > u32::MAX as usize / 2
            || entities > u32::MAX as usize / 2
            || !Self::fits(&store, &sizes)
        {
            return Err(Error::StorageTooSmall);
        }
        let store = Self::trim(store, &sizes);
        store.presence.fill(0);
        store.handle_entity.fill(NO_HANDLE);
        store.since.fill(NO_FRAME);
        store.released.fill(NO_FRAME);
        store.entity_handle.fill(NO_HANDLE);
        store.visible.fill(0);
        store.owned.fill(0);
        store.essential.fill(0);
        store.handle_own.fill(0);
        store.weights.fill(DEFAULT_WEIGHT);
        let state = PeerState {
            layout: ModelLayout::new(schema),
            book: Book::new(schema, End::Server),
            handles: handles as u32,
            entities,
            slots: Slots::new(),
            acked: [false; SLOTS],
            newest_sent: NO_FRAME,
            acked_high: NO_FRAME,
            floor: NO_FRAME,
            checks: [(NO_FRAME, 0, 0); PROVEN as usize],
            strict_until: NO_FRAME,
            first_proof: [None; SLOTS],
            pending_view: None,
            acked_latest: NO_FRAME,
            unacked_since: NO_FRAME,
            starved: None,
            short_packets: 0,
            scale: 256,
            stats: PeerStats::default(),
            session: 0,
        };
        Ok(Peer { schema, store, state })
    }

    fn fits(store: &PeerStorage<'_>, sizes: &PeerSizes) -> bool {
        store.presence.len() >= sizes.presence
            && store.handle_entity.len() >= sizes.handles
            && store.since.len() >= sizes.handles
            && store.released.len() >= sizes.handles
            && store.entity_handle.len() >= sizes.entities
            && store.visible.len() >= sizes.visible
            && store.owned.len() >= sizes.visible
            && store.essential.len() >= sizes.visible
            && store.handle_own.len() >= sizes.handle_words
            && store.lags.len() >= sizes.lags
            && store.diffs.len() >= sizes.diffs
            && store.weights.len() >= sizes.entities
            && store.cost.len() >= sizes.handles
            && store.sent_at.len() >= sizes.handles
            && store.order.len() >= sizes.handles
            && store.marks.len() >= 3 * sizes.handle_words
            && store.models.len() >= sizes.models
    }

    /// `store` cut to `sizes` (which it fits).
    fn trim<'s>(store: PeerStorage<'s>, sizes: &PeerSizes) -> PeerStorage<'s> {
        PeerStorage {
            presence: &mut store.presence[..sizes.presence],
            handle_entity: &mut store.handle_entity[..sizes.handles],
            since: &mut store.since[..sizes.handles],
            released: &mut store.released[..sizes.handles],
            entity_handle: &mut store.entity_handle[..sizes.entities],
            visible: &mut store.visible[..sizes.visible],
            owned: &mut store.owned[..sizes.visible],
            essential: &mut store.essential[..sizes.visible],
            handle_own: &mut store.handle_own[..sizes.handle_words],
            lags: &mut store.lags[..sizes.lags],
            diffs: &mut store.diffs[..sizes.diffs],
            weights: &mut store.weights[..sizes.entities],
            cost: &mut store.cost[..sizes.handles],
            sent_at: &mut store.sent_at[..sizes.handles],
            order: &mut store.order[..sizes.handles],
            marks: &mut store.marks[..3 * sizes.handle_words],
            models: &mut store.models[..sizes.models],
        }
    }

    #[cfg(feature = "std")]
    /// The peer in `store` as it was when `state` was taken from it (storage that
    /// [`Peer::new`] initialised).
    pub(crate) fn resume(schema: &'a Schema, store: PeerStorage<'a>, state: PeerState) -> Self {
        let sizes = PeerStorage::sizes(schema, state.handles as usize, state.entities);
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

    /// Shows or hides entity `id` to this client from the next packet on.
    pub fn set_visible(&mut self, id: usize, visible: bool) {
        put_bit(self.store.visible, id, visible);
    }

    /// Marks entity `id` as this client's own (its avatar, its units) or not. The client sees
    /// the mark on the entity's handle; a change while the entity is visible re-enters it
    /// under a new handle.
    pub fn set_own(&mut self, id: usize, own: bool) {
        put_bit(self.store.owned, id, own);
    }

    /// Marks entity `id` as essential to this client (a ball, a flag carrier) or not. Its own
    /// entities and essential ones are *must-have*: they get handles before any other entity
    /// (taking one from another entity when none is free) and, under a byte budget, are sent
    /// ahead of everything else whenever they have an update due. Nothing of this mark reaches
    /// the client.
    pub fn set_essential(&mut self, id: usize, essential: bool) {
        put_bit(self.store.essential, id, essential);
    }

    /// Whether entity `id` is marked essential to this client.
    pub fn is_essential(&self, id: usize) -> bool {
        test_bit(self.store.essential, id)
    }

    /// A must-have entity (own or essential, visible) that has no handle at the last packet,
    /// if any: the client cannot hold everything it must, because its other must-have entities
    /// take every handle (or the handle taken for it is still waiting for the client to
    /// acknowledge its release). [`PeerStats::starved`] counts the frames this happened.
    pub fn starved(&self) -> Option<usize> {
        self.state.starved
    }

    /// Sets how much entity `id` matters to this client ([`DEFAULT_WEIGHT`] until set;
    /// typically larger near the client's camera). When a packet's byte budget cannot carry
    /// every update, an entity's priority is the frames since it was last sent times its due
    /// groups' priorities times this weight, and the highest go first: twice the weight, about
    /// twice as often.
    pub fn set_priority(&mut self, id: usize, weight: u16) {
        if let Some(w) = self.store.weights.get_mut(id) {
            *w = weight;
        }
    }

    /// Whether entity `id` is marked as this client's own.
    pub fn is_own(&self, id: usize) -> bool {
        test_bit(self.store.owned, id)
    }

    /// Whether entity `id` is in the visible set.
    pub fn is_visible(&self, id: usize) -> bool {
        test_bit(self.store.visible, id)
    }

    /// The handle the client knows entity `id` by, if it is visible to it.
    pub fn handle_of(&self, id: usize) -> Option<u32> {
        self.store.entity_handle.get(id).copied().filter(|&h| h != NO_HANDLE)
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
        let h = self.store.entity_handle.get(id).copied().filter(|&h| h != NO_HANDLE)? as usize;
        self.held_entity(world, frame, p, h, id, |f, v| {
            if let Some(o) = out.get_mut(f) {
                *o = v;
            }
        })
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
        let w = words(handles);
        if !test_bit(&self.store.presence[p * w..(p + 1) * w], h) || !world.holds(frame) {
            return None;
        }
        let (class, _) = world.get(frame, id)?;
        let c = &self.schema.classes[class];
        let (g, d) = (self.schema.max_groups, self.schema.max_tolerant);
        let lags = &self.store.lags[(p * handles + h) * g..][..g];
        let diffs = &self.store.diffs[(p * handles + h) * d..][..d];
        let at = id * self.schema.max_fields;
        held_values(world, c, at, frame, lags, diffs, 0, put);
        Some(class)
    }

    /// How stale what the client holds of entity `id` at `frame` is: the most frames, over
    /// its update groups, since the values it holds were the world's (0: all sent in `frame`),
    /// or `None` if the client does not hold it there (or `frame` is no longer held).
    pub fn staleness(&self, frame: u32, id: usize) -> Option<u32> {
        let p = self.state.slots.find(frame)?;
        let handles = self.state.handles as usize;
        let h = self.store.entity_handle.get(id).copied().filter(|&h| h != NO_HANDLE)? as usize;
        let w = words(handles);
        if !test_bit(&self.store.presence[p * w..(p + 1) * w], h) {
            return None;
        }
        let g = self.schema.max_groups;
        self.store.lags[(p * handles + h) * g..][..g].iter().map(|&l| u32::from(l)).max()
    }

    /// Counters.
    pub fn stats(&self) -> PeerStats {
        self.state.stats
    }

    /// Takes an acknowledgement from the client.
    ///
    /// A restart request ([`Ack::restart`]) makes the next packet start from scratch
    /// ([`AckOutcome::Restart`]) if it proves receipt of a packet sent since the last restart;
    /// one proving an older packet is [`AckOutcome::Stale`], one proving none is refused.
    ///
    /// Otherwise its frames count as held only if it proves them: its proof must hash the check
    /// values of exactly the packets it names ([`Ack::proven`]). An ack naming frames older
    /// than this peer keeps, sent before the last restart, or from the future, is
    /// [`AckOutcome::Stale`] and ignored; one naming frames never sent or with a wrong proof
    /// is [`AckOutcome::Refused`], ignored and counted. For 64 frames after a refusal,
    /// a frame counts as held only once two acks with different proofs name it, so that
    /// guessing proofs does not pay. An ack whose view digest differs from this peer's record
    /// of the client's view restarts the stream. Duplicates and reordering are harmless.
    pub fn receive_ack(&mut self, ack: &Ack) -> AckOutcome {
        if let Some(seen) = ack.restart {
            return self.receive_restart(seen);
        }
        if self.state.newest_sent == NO_FRAME {
            return AckOutcome::Stale;
        }
        let (mut proof, mut named, mut stale, mut unsent) = (Proof::new(), 0, false, false);
        for frame in ack.frames(self.state.newest_sent) {
            named += 1;
            match self.sent_check(frame) {
                Some(check) => proof.add(frame, check),
                None if age(self.state.newest_sent, frame) >= PROVEN => stale = true,
                None => unsent = true,
            }
        }
        if named == 0 || (stale && !unsent) {
            return AckOutcome::Stale;
        }
        if unsent || proof.value() != ack.proof {
            self.state.stats.refused_acks += 1;
            self.state.strict_until = self.state.newest_sent.wrapping_add(STRICT);
            return AckOutcome::Refused;
        }
        if ack.frames(self.state.newest_sent).all(|f| self.before_floor(f)) {
            // Every frame it names was sent before the client restarted.
            return AckOutcome::Stale;
        }
        let (newest, floor) = (self.state.newest_sent, self.state.floor);
        let strict = self.state.strict_until != NO_FRAME
            && (age(newest, self.state.strict_until) as i32) < 0;
        let mut held = [false; SLOTS];
        for frame in ack.frames(newest).filter(|&f| !before_restart(floor, f)) {
            let Some(p) = self.state.slots.find(frame) else { continue };
            held[p] = !strict
                || self.state.acked[p]
                || self.state.first_proof[p].is_some_and(|first| first != ack.proof);
            if !held[p] {
                self.state.first_proof[p] = Some(ack.proof);
                continue;
            }
            self.state.acked[p] = true;
            if self.state.acked_high == NO_FRAME || (age(frame, self.state.acked_high) as i32) > 0 {
                self.state.acked_high = frame;
            }
        }
        let slots = self.state.slots;
        let holds = |f: u32| slots.find(f).is_some_and(|p| held[p]);
        self.state.book.acked(self.store.models, newest, holds);
        let latest = from_wire(newest, ack.latest);
        self.state.unacked_since = NO_FRAME;
        if self.state.acked_latest == NO_FRAME || (age(latest, self.state.acked_latest) as i32) > 0
        {
            self.state.acked_latest = latest;
            self.state.stats.round_trip = age(newest, latest);
        }
        if let Some(view) = ack.view.filter(|_| holds(latest)) {
            // Compared at the next packet, which has the world to read the record from.
            self.state.pending_view = Some((latest, view));
        }
        AckOutcome::Accepted
    }

    /// Takes a restart request proving receipt of the datagrams whose hashes are `seen`.
    fn receive_restart(&mut self, seen: [u32; 2]) -> AckOutcome {
        let mut outcome = AckOutcome::Refused;
        for &(frame, _, hash) in &self.state.checks {
            if frame != NO_FRAME && seen.contains(&hash) {
                if !self.before_floor(frame) {
                    outcome = AckOutcome::Restart;
                    break;
                }
                outcome = AckOutcome::Stale;
            }
        }
        match outcome {
            AckOutcome::Restart => self.restart(),
            AckOutcome::Refused => self.state.stats.refused_acks += 1,
            _ => {}
        }
        outcome
    }

    /// Starts the stream over: the client holds nothing this peer sent so far, so no frame is a
    /// baseline any more and no model built.
    fn restart(&mut self) {
        self.state.acked = [false; SLOTS];
        self.state.pending_view = None;
        self.state.floor = self.state.newest_sent;
        self.state.book.restart();
        self.state.stats.restarts += 1;
    }

    /// Digest of what this peer records its client holds at `frame`, as the client's
    /// [`Client::view_digest`](crate::Client::view_digest) computes it; `None` if the frame is
    /// no longer held by this peer or `world`, or a handle present there has been released or
    /// given another entity since.
    fn view_digest(&self, world: &World<'_>, frame: u32) -> Option<u32> {
        let p = self.state.slots.find(frame)?;
        let w = words(self.state.handles as usize);
        let mut digest = ViewDigest::new();
        for (word, &bits) in self.store.presence[p * w..(p + 1) * w].iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let h = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let id = self.store.handle_entity[h];
                if id == NO_HANDLE || (age(frame, self.store.since[h]) as i32) < 0 {
                    return None;
                }
                // The class comes first: the values follow it.
                let class = world.get(frame, id as usize)?.0;
                digest.entity(h as u32, class);
                self.held_entity(world, frame, p, h, id as usize, |_, v| digest.value_of(v))?;
            }
        }
        Some(digest.value())
    }

    /// Compares the view digest of the last ack that carried one with this peer's record, and
    /// restarts the stream if they differ (see [`PeerStats::view_mismatches`]).
    fn check_view(&mut self, world: &World<'_>) {
        let Some((frame, view)) = self.state.pending_view.take() else { return };
        if self.view_digest(world, frame).is_some_and(|ours| ours != view) {
            self.state.stats.view_mismatches += 1;
            self.restart();
        }
    }

    /// The ack a client that decoded `latest` and every older frame `holds` names would send,
    /// with its proof: for simulations of a link, and tests, without a client. `None` unless
    /// this peer sent `latest` and keeps it.
    pub fn ack_of(&self, latest: u32, mut holds: impl FnMut(u32) -> bool) -> Option<Ack> {
        self.state.slots.find(latest)?;
        let check = |f: u32| self.state.slots.find(f).and_then(|_| self.sent_check(f));
        Some(Ack::proven(latest, |f| if f == latest || holds(f) { check(f) } else { None }))
    }

    /// Whether `frame` was sent before the last restart (see [`PeerState::floor`]).
    fn before_floor(&self, frame: u32) -> bool {
        before_restart(self.state.floor, frame)
    }

    /// The check value of the packet sent for `frame`, if it was sent in the last [`PROVEN`]
    /// frames.
    fn sent_check(&self, frame: u32) -> Option<u16> {
        let (sent, check, _) = self.state.checks[(frame % PROVEN) as usize];
        (sent == frame && frame != NO_FRAME).then_some(check)
    }

    /// Digest of the models the packet for `frame` ended with, if the frame is held (for
    /// checking both ends agree: [`Client::model_digest`](crate::Client::model_digest)).
    pub fn model_digest(&self, frame: u32) -> Option<u64> {
        let p = self.state.slots.find(frame)?;
        Some(self.state.book.digest(self.store.models, p))
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
    /// still held: [`ModelLayout::write_prior`] turns it into a prior.
    pub fn learned(&self) -> Option<&[Model]> {
        let p = self.state.slots.find(self.state.newest_sent)?;
        let (set, len) = (self.state.book.ended_in(p, true)?, self.state.layout.len);
        self.store.models.get(set * len..(set + 1) * len)
    }

    /// The model of scalar `field` of `class` as the packet for `frame` left it, if the frame
    /// is held (batched: only the newest frame sent): what the peer has learned about that
    /// field by then.
    pub fn field_model(&self, frame: u32, class: usize, field: usize) -> Option<&Model> {
        let p = self.state.slots.find(frame)?;
        let fields = self.schema.classes.get(class)?.fields.len();
        if field >= fields {
            return None;
        }
        let at = ModelLayout::class_base(self.schema, class) + 1 + field;
        let set = self.state.book.ended_in(p, frame == self.state.newest_sent)?;
        self.store.models.get(set * self.state.layout.len + at)
    }

    /// Acknowledged frames used as references for `frame`, newest first, at most
    /// [`MAX_SAMPLES`], and the packet's reach: the newest acknowledged frame less than
    /// [`REACH`] back as the baseline, then frames within the span of the reach as near as
    /// possible to twice, three and four times its distance. No baseline if the newest frame
    /// acknowledged is no longer held (a later frame of a longer reach took its slot): handles
    /// may have been given again since the frames before it.
    ///
    /// Spacing the samples like the baseline keeps the predictor weights those of evenly
    /// spaced samples (2, −1 for linear; 3, −3, 1 for quadratic), so quantisation noise is not
    /// amplified when the baseline is several frames old; with a baseline one frame old this is
    /// simply the four newest frames.
    fn references(&self, frame: u32) -> ([u32; MAX_SAMPLES], usize, u32) {
        let acked = |back: u32| {
            self.state.slots.find(frame.wrapping_sub(back)).is_some_and(|p| self.state.acked[p])
        };
        let mut out = [0u32; MAX_SAMPLES];
        let high = self.state.acked_high;
        let base = age(frame, high);
        let slots = &self.state.slots;
        let Some(p) = slots.find(high).filter(|&p| self.state.acked[p]) else {
            return (out, 0, 0);
        };
        if high == NO_FRAME || !(1..REACH).contains(&base) {
            return (out, 0, 0);
        }
        let reach = reach_after(base, slots.reach(p));
        out[0] = frame.wrapping_sub(base);
        let mut len = 1;
        let mut previous = base;
        while let Some(target) =
            history_target(base, len, previous, reach).filter(|_| len < MAX_SAMPLES)
        {
            let nearest = (previous + 1..span(reach))
                .filter(|&back| acked(back))
                .min_by_key(|&back| back.abs_diff(target));
            let Some(back) = nearest else { break };
            out[len] = frame.wrapping_sub(back);
            previous = back;
            len += 1;
        }
        (out, len, reach)
    }

    /// Whether what the client holds of `h` at baseline slot `p` came from frames the world
    /// still holds at `frame` (`base` is the baseline frame).
    fn base_in_window(&self, p: usize, base: u32, frame: u32, h: usize, groups: usize) -> bool {
        let g = self.schema.max_groups;
        let at = (p * self.state.handles as usize + h) * g;
        self.store.lags[at..at + groups].iter().all(|&lag| in_window(frame, base, lag))
    }

    /// Whether entity `id` must have a handle before any other: the client's own or essential.
    #[inline]
    fn must_have(&self, id: usize) -> bool {
        test_bit(self.store.owned, id) || test_bit(self.store.essential, id)
    }

    /// Brings handles in line with the visible set at `frame`: releases the handles of
    /// entities no longer visible, respawned, re-marked, or held so long that the world no
    /// longer has the frame their values came from, and gives new handles to newly visible
    /// entities, which then wait to enter: must-have entities first (own or essential, taking
    /// a handle from another entity if none is free), then the others, by id.
    fn assign_handles(&mut self, world: &World<'_>, frame: u32, refs: &Refs) {
        // Values held at the baseline can have left the window only if its lags are large.
        let base = refs
            .base()
            .and_then(|b| Some((b, self.state.slots.find(b)?)))
            .filter(|&(b, p)| !in_window(frame, b, self.state.slots.max_lag(p)));
        let w = words(self.state.handles as usize);
        // The handles free to give, lowest first, in scratch room the packet's plan uses later:
        // found once per frame rather than searched for every entity that needs one.
        let acked = self.state.acked_high;
        let s = &mut self.store;
        let free = &mut s.marks[..w];
        free.fill(0);
        for (h, (&e, &r)) in s.handle_entity.iter().zip(s.released.iter()).enumerate() {
            let reusable = r == NO_FRAME || (acked != NO_FRAME && age(acked, r) as i32 >= 0);
            put_bit(free, h, e == NO_HANDLE && reusable);
        }
        self.state.starved = None;
        let mut pass = Pass { frame, base, word: 0, pending: None };
        // Must-have entities first, from the bits of their marks.
        for i in 0..words(self.state.entities) {
            let mut bits = self.store.owned[i] | self.store.essential[i];
            while bits != 0 {
                let id = i * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                self.update_handle(world, &mut pass, id, true);
            }
        }
        for id in 0..self.state.entities {
            if !self.must_have(id) {
                self.update_handle(world, &mut pass, id, false);
            }
        }
        self.state.stats.starved += u64::from(self.state.starved.is_some());
    }

    /// Brings entity `id`'s handle in line with the visible set (see
    /// [`Peer::assign_handles`]); `must` says whether it is must-have.
    #[inline(always)]
    fn update_handle(&mut self, world: &World<'_>, pass: &mut Pass, id: usize, must: bool) {
        let (frame, w) = (pass.frame, words(self.state.handles as usize));
        let entity = world.get(frame, id);
        let visible = test_bit(self.store.visible, id) && entity.is_some();
        let handle = self.store.entity_handle[id];
        if handle != NO_HANDLE {
            let h = handle as usize;
            let respawned = age(world.spawned(id), self.store.since[h]) as i32 > 0;
            let stale = entity.zip(pass.base).is_some_and(|((class, _), (b, p))| {
                let groups = self.schema.classes[class].group_count();
                test_bit(&self.store.presence[p * w..(p + 1) * w], h)
                    && !self.base_in_window(p, b, frame, h, groups)
            });
            let own = test_bit(self.store.owned, id);
            if !visible || respawned || stale || test_bit(self.store.handle_own, h) != own {
                self.release(id, frame);
            } else {
                return;
            }
        }
        if !visible {
            return;
        }
        let free = &self.store.marks[..w];
        while pass.word < w && free[pass.word] == 0 {
            pass.word += 1;
        }
        let found =
            free.get(pass.word).map(|&bits| pass.word * 64 + bits.trailing_zeros() as usize);
        match found.filter(|&h| h < self.state.handles as usize) {
            Some(h) => self.give(id, h, world, frame),
            None if must => {
                self.state.starved.get_or_insert(id);
                // Handles released and not yet free each serve a must-have entity before a
                // handle is taken from another entity for it.
                let pending = pass.pending.get_or_insert_with(|| {
                    let free = &self.store.marks[..w];
                    let released = |h: &usize| self.store.handle_entity[*h] == NO_HANDLE;
                    (0..self.state.handles as usize)
                        .filter(released)
                        .filter(|&h| !test_bit(free, h))
                        .count()
                });
                match pending.checked_sub(1) {
                    Some(left) => *pending = left,
                    None => self.evict(frame),
                }
            }
            None => self.state.stats.deferred += 1,
        }
    }

    /// Releases the handle of entity `id` at `frame`: the client sees the entity leave.
    fn release(&mut self, id: usize, frame: u32) {
        let h = self.store.entity_handle[id] as usize;
        self.store.handle_entity[h] = NO_HANDLE;
        self.store.released[h] = frame;
        self.store.entity_handle[id] = NO_HANDLE;
    }

    /// Gives free handle `h` to entity `id` at `frame`.
    fn give(&mut self, id: usize, h: usize, world: &World<'_>, frame: u32) {
        let own = test_bit(self.store.owned, id);
        let class = world.get(frame, id).map_or(0, |(c, _)| c);
        let s = &mut self.store;
        put_bit(&mut s.marks[..words(self.state.handles as usize)], h, false);
        s.handle_entity[h] = id as u32;
        s.since[h] = frame;
        s.cost[h] = pack::entry_estimate_bits(&self.schema.classes[class]);
        s.sent_at[h] = frame;
        put_bit(s.handle_own, h, own);
        s.entity_handle[id] = h as u32;
    }

    /// Takes a handle from an entity that is not must-have, for a must-have one that found
    /// none free: the one the game weighs least (the highest handle among equals). It is free
    /// to give once the client acknowledges the release.
    fn evict(&mut self, frame: u32) {
        let victim = (0..self.state.handles as usize)
            .filter_map(|h| {
                let id = self.store.handle_entity[h];
                (id != NO_HANDLE && !self.must_have(id as usize)).then_some((h, id as usize))
            })
            .min_by_key(|&(h, id)| (self.store.weights[id], core::cmp::Reverse(h)));
        if let Some((_, id)) = victim {
            self.release(id, frame);
            self.state.stats.evicted += 1;
        }
    }

    /// Writes the packet for the world's current frame into `buf` and returns its length.
    ///
    /// The packet never exceeds `buf.len()` bytes, its byte budget ([`DEFAULT_BUDGET`] is the
    /// usual choice). It is coded against the newest frame the client has acknowledged (or from
    /// scratch if there is none within the window). When not everything fits, entering
    /// entities and updates go in order of urgency and priority (frames waited times weight,
    /// see [`Peer::set_priority`]) until nothing more fits; the rest stay as the client holds them
    /// and wait. Fails with [`Error::BufferFull`] only if not even the header fits, with
    /// [`Error::BudgetTooSmall`] (naming the length needed) once [`SHORT_PACKETS`] packets in a
    /// row could not carry the one entity they tried, and with [`Error::StalePacket`] if this
    /// frame was already encoded.
    pub fn encode(&mut self, world: &World<'_>, buf: &mut [u8]) -> Result<usize> {
        self.encode_probed(world, buf, &mut NoProbe)
    }

    /// [`Peer::encode`], reporting the cost of every value coded to `probe` (see
    /// [`crate::engine::probe`]). The packet is the one [`Peer::encode`] would have written.
    pub fn encode_probed<P: Probe>(
        &mut self,
        world: &World<'_>,
        buf: &mut [u8],
        probe: &mut P,
    ) -> Result<usize> {
        let frame = world.frame().ok_or(Error::StalePacket)?;
        if self.state.newest_sent != NO_FRAME && age(frame, self.state.newest_sent) as i32 <= 0 {
            return Err(Error::StalePacket);
        }
        self.check_view(world);
        let (history, len, reach) = self.references(frame);
        let len = history[..len].iter().take_while(|&&t| world.holds(t)).count();
        let mut refs = Refs::new(self.state.session, frame, &history[..len]);
        // Without a baseline there is no distance to give the reach: the round trip does, or
        // the frames sent since the last ack if more.
        let waited = match self.state.unacked_since {
            NO_FRAME => 0,
            since => age(frame, since),
        };
        let round_trip = self.state.stats.round_trip.max(waited);
        refs.reach = if len > 0 { reach } else { reach_after(round_trip, 0) };
        refs.model = self.state.book.in_use(refs.base().unwrap_or(frame));
        self.assign_handles(world, frame, &refs);

        // First with nothing held if everything seems to fit, then with "held" flags, then
        // holding everything.
        let mark = probe.mark();
        let mut attempt = |this: &mut Self, mode| {
            probe.rewind(mark);
            this.write(world, buf, probe, &refs, mode)
        };
        let (written, held_all) = match attempt(self, Attempt::Plain) {
            Err(Error::BufferFull) if refs.base().is_some() => {
                match attempt(self, Attempt::MayHold) {
                    Err(Error::BufferFull) => (attempt(self, Attempt::HoldAll)?, true),
                    other => (other?, false),
                }
            }
            other => (other?, false),
        };
        // A packet without baseline carries more header and check value: one that carries no
        // entity still starts the stream, and packets with a baseline may then carry them; and
        // as models learn, headers and flags get cheaper. Only a budget short packet after
        // packet is refused.
        match written.shortfall.filter(|_| refs.base().is_some()) {
            Some(needed) if self.state.short_packets >= SHORT_PACKETS => {
                return Err(Error::BudgetTooSmall { budget: buf.len(), needed });
            }
            Some(_) => self.state.short_packets += 1,
            None => self.state.short_packets = 0,
        }
        let hash = datagram_hash(self.state.session, buf.get(..written.len).unwrap_or(&[]));
        self.commit(&refs, written, held_all, hash);
        Ok(written.len)
    }

    /// Codes one attempt at the packet for `refs` into `buf`; fails with
    /// [`Error::BufferFull`] if it does not fit.
    fn write<P: Probe>(
        &mut self,
        world: &World<'_>,
        buf: &mut [u8],
        probe: &mut P,
        refs: &Refs,
        mode: Attempt,
    ) -> Result<Written> {
        let spare = self.state.slots.spare();
        let base = refs.base().and_then(|b| self.state.slots.find(b));
        let (models, saved) =
            self.state.book.start_encode(self.schema, self.store.models, base, spare, refs.model);

        let mut history = [0usize; MAX_SAMPLES];
        let mut history_max_lag = [0u8; MAX_SAMPLES];
        for ((slot, lag), &t) in history.iter_mut().zip(&mut history_max_lag).zip(&refs.history) {
            *slot = self.state.slots.find(t).unwrap_or(spare);
            *lag = self.state.slots.max_lag(*slot);
        }
        let read = &history[..refs.len];
        let handles = self.state.handles as usize;
        let (w, g, d) = (words(handles), self.schema.max_groups, self.schema.max_tolerant);
        let (presence, history_presence) = split(self.store.presence, w, spare, read);
        let (lags, history_lags) = split(self.store.lags, handles * g, spare, read);
        let (diffs, history_diffs) = split(self.store.diffs, handles * d, spare, read);
        presence.fill(0);
        let (selected, rest) = self.store.marks.split_at_mut(w);
        let (sent, core) = rest.split_at_mut(w);
        // A packet without baseline ends with the longer check value: the budget keeps room.
        let room = buf.len().saturating_sub(((packet::check_bits(refs) - CHECK_BITS) / 8) as usize);
        let budget = Budget::new(room, [selected, sent, core], self.store.cost, self.state.scale);
        let mut side = EncoderSide {
            world,
            refs,
            schema: self.schema,
            handles: self.state.handles,
            stride: self.schema.max_fields,
            groups: g,
            tolerant: d,
            classes: world.frame_classes(refs.frame),
            rows: world.frame_rows(refs.frame),
            history_rows: core::array::from_fn(|j| world.frame_rows(refs.history[j])),
            presence,
            history_presence,
            lags,
            history_lags,
            history_max_lag,
            history_held: history_max_lag.iter().any(|&l| l > 0),
            max_lag: 0,
            diffs,
            history_diffs,
            handle_entity: self.store.handle_entity,
            since: self.store.since,
            handle_own: self.store.handle_own,
            essential: self.store.essential,
            weights: self.store.weights,
            sent_at: self.store.sent_at,
            order: self.store.order,
            budget: match mode {
                Attempt::Plain => budget,
                _ => budget.without_complete(),
            },
            cursor: 0,
        };

        let mut enc = Encoder::new(buf);
        let mut header = Metered::new(&mut enc);
        header.direct(u32::from(refs.base().is_some()), 1);
        let reference = match refs.base() {
            // The baseline is named by the low bits of its name (see `BASE_ID_BITS`).
            Some(b) => {
                header.direct(base.map_or(0, |p| self.state.slots.name(p)), BASE_ID_BITS);
                b
            }
            None => {
                header.direct(refs.frame, FRAME_BITS);
                packet::code_cold_reach(&mut header, refs.reach)?;
                refs.frame
            }
        };
        let mut refs_coded = *refs;
        if self.schema.policy != ModelPolicy::PerFrame {
            packet::code_model(&mut header, &mut refs_coded.model, reference)?;
        }
        let packet = &mut models[ModelLayout::PACKET];
        if let Some(p) = base {
            let before = self.state.slots.distance(p);
            packet::code_distance(&mut header, packet, refs.distance(), before)?;
        }
        packet::code_history(&mut header, packet, &mut refs_coded)?;
        probe.structure(Part::Header, header.cost);
        let check = packet::code_body(
            &mut enc,
            &mut side,
            probe,
            self.schema,
            models,
            saved,
            refs,
            mode == Attempt::HoldAll,
        )?;
        let (max_lag, waited, scale) =
            (side.max_lag, side.budget.waited(), side.budget.next_scale());
        let shortfall = side.budget.shortfall();
        let check_bits = packet::check_bits(refs);
        enc.direct(check, check_bits);
        probe.structure(Part::Check, check_bits << COST_FRAC_BITS);
        Ok(Written { len: enc.finish()?, max_lag, waited, scale, check: check as u16, shortfall })
    }

    /// Makes the packet just written for `refs`, whose datagram hash is `hash`, the newest
    /// frame sent. Handles a packet holding everything kept stay unreleased until a later
    /// packet sends their leaving.
    fn commit(&mut self, refs: &Refs, written: Written, held_all: bool, hash: u32) {
        let frame = refs.frame;
        let spare = self.state.slots.spare();
        let w = words(self.state.handles as usize);
        if held_all {
            let presence = &self.store.presence[spare * w..(spare + 1) * w];
            for (h, released) in self.store.released.iter_mut().enumerate() {
                if test_bit(presence, h) && self.store.handle_entity[h] == NO_HANDLE {
                    *released = frame.wrapping_add(1);
                }
            }
        }
        self.state.stats.waited += u64::from(written.waited);
        for (word, bits) in self.store.marks[w..2 * w].iter().enumerate() {
            let mut bits = *bits;
            while bits != 0 {
                let h = word * 64 + bits.trailing_zeros() as usize;
                if let Some(at) = self.store.sent_at.get_mut(h) {
                    *at = frame;
                }
                bits &= bits - 1;
            }
        }
        self.state.checks[(frame % PROVEN) as usize] = (frame, written.check, hash);
        self.state.book.commit(self.schema, self.store.models, frame, spare);
        self.state.slots.commit(frame, written.max_lag, refs.distance(), refs.reach);
        self.state.scale = written.scale;
        self.state.acked[spare] = false;
        self.state.first_proof[spare] = None;
        self.state.newest_sent = frame;
        if self.state.unacked_since == NO_FRAME {
            self.state.unacked_since = frame;
        }
        self.state.stats.packets += 1;
        self.state.stats.cold_packets += u64::from(refs.len == 0);
        self.state.stats.stretched_packets += u64::from(refs.reach > 0);
        self.state.stats.beyond_reach +=
            u64::from(refs.len == 0 && self.state.stats.round_trip >= REACH);
        self.state.stats.held_packets += u64::from(held_all);
    }
}

/// What one [`Peer::assign_handles`] carries from entity to entity.
struct Pass {
    frame: u32,
    /// The baseline and its slot, when values held there may have left the window.
    base: Option<(u32, usize)>,
    /// The first word of the free handles that may have a bit set.
    word: usize,
    /// Handles released and not yet free, once a must-have entity found none free.
    pending: Option<usize>,
}

/// Whether `frame` is at or before `floor`, the newest frame sent before a restart
/// ([`NO_FRAME`]: none).
fn before_restart(floor: u32, frame: u32) -> bool {
    floor != NO_FRAME && age(frame, floor) as i32 <= 0
}

/// How [`Peer::write`] tries a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attempt {
    /// As the budget allows: with no "held" flags if every candidate seems to fit.
    Plain,
    /// With "held" flags, after a plain attempt did not fit.
    MayHold,
    /// Holding everything, after the others did not fit.
    HoldAll,
}

/// What [`Peer::write`] made of a packet.
#[derive(Clone, Copy, Debug)]
struct Written {
    /// Its length.
    len: usize,
    /// The largest lag of any handle it leaves the client with.
    max_lag: u8,
    /// Candidates that waited.
    waited: u32,
    /// The scale of cost estimates for the next packet.
    scale: u32,
    /// Its check value.
    check: u16,
    /// The length it needed to carry an entity, if it carries none although one was tried.
    shortfall: Option<usize>,
}

/// The values a client holds of the entity whose row starts at `at` in the world's rows, of
/// `class`, at frame `t`, given its `lags` (per group) and `diffs` (per tolerant field) there:
/// calls `put(f, value)` for each field `f` from `lo` on.
#[allow(clippy::too_many_arguments)]
#[inline]
fn held_values(
    world: &World<'_>,
    class: &Class,
    at: usize,
    t: u32,
    lags: &[u8],
    diffs: &[i8],
    lo: usize,
    mut put: impl FnMut(usize, i32),
) {
    let stride = world.schema().max_fields;
    let row = |group: usize| {
        let lag = u32::from(lags.get(group).copied().unwrap_or(0));
        world.frame_rows(t.wrapping_sub(lag)).get(at + lo..at + stride).unwrap_or(&[])
    };
    let fields = class.fields.get(lo..).unwrap_or(&[]);
    let mut rows: [&[i32]; MAX_GROUPS] = [&[]; MAX_GROUPS];
    for (group, r) in rows.iter_mut().enumerate().take(class.group_count()) {
        *r = row(group);
    }
    let mut tolerant =
        class.fields[..lo.min(class.fields.len())].iter().filter(|f| f.tolerance > 0).count();
    for (f, field) in fields.iter().enumerate() {
        let v = rows[usize::from(field.group) % MAX_GROUPS].get(f).copied().unwrap_or(0);
        put(
            f,
            if field.tolerance > 0 {
                tolerant += 1;
                field.reconstruct(v, i32::from(diffs.get(tolerant - 1).copied().unwrap_or(0)))
            } else {
                v
            },
        );
    }
}

/// Digest of a model set.
pub(crate) fn digest(models: &[Model]) -> u64 {
    models.iter().fold(0xcbf2_9ce4_8422_2325, |h, m| m.digest(h))
}

/// The encoder's side of the packet walk: reads targets from the world and what the client
/// holds from the peer's record, writes that record for the new frame, and packs the budget.
struct EncoderSide<'s, 'w> {
    world: &'s World<'w>,
    refs: &'s Refs,
    schema: &'s Schema,
    handles: u32,
    /// Values per row in the world.
    stride: usize,
    /// Lags per handle (the schema's most update groups).
    groups: usize,
    /// Differences per handle (the schema's most fields with a tolerance).
    tolerant: usize,
    /// Class of every id at the new frame.
    classes: &'s [u16],
    /// Rows of every id at the new frame.
    rows: &'s [i32],
    /// Rows of every id at each history frame.
    history_rows: [&'s [i32]; MAX_SAMPLES],
    /// Handles present at the new frame.
    presence: &'s mut [u64],
    history_presence: [&'s [u64]; MAX_SAMPLES],
    /// Lags of every handle and group at the new frame, then at each history frame.
    lags: &'s mut [u8],
    history_lags: [&'s [u8]; MAX_SAMPLES],
    /// The largest lag in each history slot.
    history_max_lag: [u8; MAX_SAMPLES],
    /// Whether any history slot holds values from an earlier frame.
    history_held: bool,
    /// The largest lag written for the new frame.
    max_lag: u8,
    /// Differences of every handle's tolerant fields at the new frame, then at each history
    /// frame.
    diffs: &'s mut [i8],
    history_diffs: [&'s [i8]; MAX_SAMPLES],
    handle_entity: &'s [u32],
    since: &'s [u32],
    handle_own: &'s [u64],
    /// Entities essential to the client, one bit per entity id.
    essential: &'s [u64],
    /// The game's weight of each entity id.
    weights: &'s [u16],
    /// The frame each handle was last sent in.
    sent_at: &'s [u32],
    order: &'s mut [u64],
    budget: Budget<'s>,
    cursor: u32,
}

impl EncoderSide<'_, '_> {
    #[inline]
    fn entity(&self, h: u32) -> usize {
        self.handle_entity[h as usize] as usize
    }

    #[inline]
    fn live(&self, h: u32) -> bool {
        self.handle_entity[h as usize] != NO_HANDLE
    }

    #[inline]
    fn class_of(&self, h: u32) -> Option<&Class> {
        let c = *self.classes.get(self.entity(h))?;
        self.schema.classes.get(usize::from(c))
    }

    #[inline]
    fn groups(&self) -> usize {
        self.groups
    }

    #[inline]
    fn tolerant(&self) -> usize {
        self.tolerant
    }
}

impl<'s> Side<'s> for EncoderSide<'s, '_> {
    const ENCODER: bool = true;

    fn handles(&self) -> u32 {
        self.handles
    }

    #[inline]
    fn base_present(&self, h: u32) -> bool {
        self.refs.len > 0 && test_bit(self.history_presence[0], h as usize)
    }

    #[inline]
    fn base_class(&self, h: u32) -> usize {
        self.classes.get(self.entity(h)).map_or(0, |&c| usize::from(c))
    }

    #[inline]
    fn staleness(&self, h: u32, g: usize) -> u32 {
        let lag = self.history_lags[0].get(h as usize * self.groups() + g).copied().unwrap_or(0);
        u32::from(lag) + self.refs.distance()
    }

    #[inline]
    fn present(&self, h: u32) -> bool {
        test_bit(self.presence, h as usize)
    }

    #[inline]
    fn must_have(&self, h: u32) -> bool {
        test_bit(self.handle_own, h as usize) || test_bit(self.essential, self.entity(h))
    }

    fn keep_hint(&self, h: u32) -> bool {
        self.live(h)
    }

    fn next_enter_hint(&mut self) -> Option<(u32, usize, u32, bool)> {
        while self.cursor < self.handles {
            // Handles from the cursor on absent at the baseline, a word at a time.
            let word = self.cursor as usize / 64;
            let base = match self.refs.len {
                0 => 0,
                _ => self.history_presence[0].get(word).copied().unwrap_or(0),
            };
            let absent = !base >> (self.cursor % 64);
            if absent == 0 {
                self.cursor = (word as u32 + 1) * 64;
                continue;
            }
            let h = self.cursor + absent.trailing_zeros();
            self.cursor = h + 1;
            if h < self.handles && self.live(h) && self.budget.selected(h) {
                let own = test_bit(self.handle_own, h as usize);
                let age = age(self.refs.frame, self.since[h as usize]);
                return Some((h, self.base_class(h), age, own));
            }
        }
        None
    }

    fn plan(&mut self, len: usize) {
        let mut budget = core::mem::replace(
            &mut self.budget,
            Budget::new(0, [&mut [], &mut [], &mut []], &mut [], 256),
        );
        let order = core::mem::take(&mut self.order);
        let this = &*self;
        let candidates = |emit: &mut dyn FnMut(Candidate)| {
            for h in 0..this.handles {
                let Some(class) = this.class_of(h).filter(|_| this.live(h)) else { continue };
                let weight = u32::from(this.weights.get(this.entity(h)).copied().unwrap_or(0));
                let must = this.must_have(h);
                let groups = (0..class.group_count()).map(|g| (g, class.group(g)));
                let (rank, urgency) = if !this.base_present(h) {
                    // Waiting to enter since its handle was given.
                    let waited = age(this.refs.frame, this.since[h as usize]) + 1;
                    let rate: u32 = groups.map(|(_, g)| u32::from(g.priority)).sum();
                    (Rank::Enter, rate.saturating_mul(waited))
                } else if !this.present(h) {
                    continue;
                } else {
                    // How old the newest values the client has are (the frames since the entity
                    // was last sent), over its due groups.
                    let (mut urgency, mut oldest) = (0u32, 0);
                    let shown = age(this.refs.frame, this.sent_at[h as usize]);
                    for (i, g) in groups {
                        let stale = this.staleness(h, i);
                        oldest = oldest.max(stale);
                        if stale >= u32::from(g.interval) {
                            urgency = urgency.saturating_add(u32::from(g.priority) * shown.max(1));
                        }
                    }
                    if urgency == 0 {
                        continue;
                    }
                    let forced = pack::forced(oldest, this.refs.distance());
                    (if forced { Rank::Forced } else { Rank::Update }, urgency)
                };
                // Must-have entities go first, entering or with an update due.
                let (rank, priority) = match must {
                    true => (Rank::Forced, u32::MAX),
                    false => (rank, urgency.saturating_mul(weight)),
                };
                emit(Candidate { h, rank, priority });
            }
        };
        let live = |h: usize| this.handle_entity.get(h).is_some_and(|&e| e != NO_HANDLE);
        budget.select(len, pack::schema_bound_bits(self.schema), live, candidates, order);
        self.budget = budget;
        self.order = order;
    }

    fn packer(&mut self) -> Option<&mut Budget<'s>> {
        Some(&mut self.budget)
    }

    fn begin(&mut self, h: u32, _class: usize, _age: Option<u32>, _own: bool) -> Result<()> {
        put_bit(self.presence, h as usize, true);
        Ok(())
    }

    fn unbegin(&mut self, h: u32) {
        put_bit(self.presence, h as usize, false);
    }

    #[inline]
    fn history_len(&self, h: u32, class: &Class) -> usize {
        let (since, g) = (self.since[h as usize], self.groups());
        let groups = class.group_count();
        (0..self.refs.len)
            .take_while(|&j| {
                let (t, frame) = (self.refs.history[j], self.refs.frame);
                test_bit(self.history_presence[j], h as usize)
                    && age(t, since) as i32 >= 0
                    && (in_window(frame, t, self.history_max_lag[j]) || {
                        let lags = self.history_lags[j].get(h as usize * g..).unwrap_or(&[]);
                        lags.iter().take(groups).all(|&lag| in_window(frame, t, lag))
                    })
            })
            .count()
    }

    #[inline]
    fn sources(&self, h: u32, k: usize) -> Option<[u32; MAX_SAMPLES]> {
        if !self.history_held || self.history_max_lag[..k].iter().all(|&l| l == 0) {
            return None;
        }
        let g = self.groups;
        Some(core::array::from_fn(|j| {
            let lag = self.history_lags[j].get(h as usize * g).copied().unwrap_or(0);
            self.refs.history[j].wrapping_sub(u32::from(lag))
        }))
    }

    #[inline(always)]
    fn samples(&self, h: u32, k: usize, lo: usize, class: &Class, samples: &mut Samples) {
        let at = self.entity(h) * self.stride;
        let (g, d) = (self.groups(), self.tolerant());
        let n = class.fields.len().saturating_sub(lo);
        for j in 0..k {
            let lags = || {
                let lags = self.history_lags[j].get(h as usize * g..).unwrap_or(&[]);
                &lags[..g.min(lags.len())]
            };
            if d == 0 && (self.history_max_lag[j] == 0 || lags().iter().all(|&l| l == 0)) {
                // The common case: the client holds the world's row at the history frame.
                let row = self.history_rows[j].get(at + lo..at + self.stride).unwrap_or(&[]);
                // Zipped with slices alone, the copy compiles to a plain counted loop.
                for (s, &v) in samples.iter_mut().zip(&row[..n.min(row.len())]) {
                    s[j] = v;
                }
                continue;
            }
            let diffs = self.history_diffs[j].get(h as usize * d..).unwrap_or(&[]);
            let diffs = &diffs[..d.min(diffs.len())];
            let t = self.refs.history[j];
            held_values(self.world, class, at, t, lags(), diffs, lo, |f, v| {
                if let Some(s) = samples.get_mut(f) {
                    s[j] = v;
                }
            });
        }
    }

    #[inline]
    fn target_row(&self, h: u32) -> &'s [i32] {
        let at = self.entity(h) * self.stride;
        self.rows.get(at..at + self.stride).unwrap_or(&[])
    }

    #[inline(always)]
    fn store(&mut self, h: u32, f: usize, value: i32, coded: bool, tolerant: Option<usize>) {
        let Some(t) = tolerant else { return };
        let at = h as usize * self.tolerant() + t;
        let diff = if coded {
            let truth = self.target_row(h).get(f).copied().unwrap_or(value);
            let field = self.class_of(h).and_then(|c| c.fields.get(f));
            field.map_or(0, |field| field.residual(value, truth)) as i8
        } else {
            self.history_diffs[0].get(at).copied().unwrap_or(0)
        };
        if let Some(d) = self.diffs.get_mut(at) {
            *d = diff;
        }
    }

    #[inline]
    fn sent_groups(&mut self, h: u32, class: &Class, due: u32) {
        let (g, base, distance) = (self.groups, self.history_lags[0], self.refs.distance());
        let at = h as usize * g;
        let staleness =
            |group: usize| u32::from(base.get(at + group).copied().unwrap_or(0)) + distance;
        if let Some(lags) = self.lags.get_mut(at..at + g) {
            let largest = write_lags(lags, class.group_count(), due, staleness);
            self.max_lag = self.max_lag.max(largest);
        }
    }

    fn hold(&mut self, h: u32, class: &Class) {
        self.sent_groups(h, class, 0);
        let d = self.tolerant();
        let at = h as usize * d;
        if let (Some(to), Some(from)) =
            (self.diffs.get_mut(at..at + d), self.history_diffs[0].get(at..at + d))
        {
            to.copy_from_slice(from);
        }
    }

    fn hold_all(&mut self) {
        self.presence.copy_from_slice(self.history_presence[0]);
        let (base, distance) = (self.history_lags[0], self.refs.distance());
        let staleness = |at: usize| u32::from(base.get(at).copied().unwrap_or(0)) + distance;
        // Every lag of every handle is held: one run over all of them.
        let largest = write_lags(self.lags, usize::MAX, 0, staleness);
        self.max_lag = self.max_lag.max(largest);
        self.diffs.copy_from_slice(self.history_diffs[0]);
    }
}
