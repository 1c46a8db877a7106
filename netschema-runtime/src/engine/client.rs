//! The client: decodes packets into its own archive of recent frames, yields what changed,
//! and writes acknowledgements.

use crate::codec::coder::{BinaryCoder, Decoder};
use crate::engine::ack::{Ack, VIEW_EVERY, ViewDigest, datagram_hash};
use crate::engine::bitset::{put_bit, test_bit, words};
use crate::engine::frame::{NO_FRAME, REACH, WINDOW, age, reach_after};
use crate::engine::models::{Book, End};
use crate::engine::pack::Budget;
use crate::engine::packet::{
    self, BASE_ID_BITS, FRAME_BITS, Refs, Samples, Side, in_window, write_lags,
};
use crate::engine::probe::NoProbe;
use crate::engine::slots::{SLOTS, Slots, split};
use crate::engine::world::NO_CLASS;
use crate::model::predict::{MAX_SAMPLES, Predictor, Rate};
use crate::model::{Model, ModelLayout, ModelPolicy};
use crate::schema::{Class, Schema};
use crate::{Error, Result};

/// Caller-owned storage of a [`Client`]; [`ClientStorage::sizes`] gives every length.
#[derive(Debug)]
pub struct ClientStorage<'a> {
    /// Raw values of every handle in every frame slot.
    pub rows: &'a mut [i32],
    /// Class of every handle in every frame slot.
    pub classes: &'a mut [u16],
    /// Frame at which every handle got its entity, in every frame slot.
    pub born: &'a mut [u32],
    /// Whether every handle names one of the client's own entities, in every frame slot (one
    /// bit each).
    pub own: &'a mut [u64],
    /// For every handle and update group in every frame slot, how many frames before the
    /// slot's frame the server sent the values held.
    pub lags: &'a mut [u8],
    /// Model sets (see [`ModelPolicy`]): per frame, one stored with
    /// each frame slot; batched, the models kept, the accumulator of the batch being decoded
    /// and the set a packet is decoded in.
    pub models: &'a mut [Model],
}

/// Lengths of the slices of a [`ClientStorage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientSizes {
    /// Length of [`ClientStorage::rows`].
    pub rows: usize,
    /// Length of [`ClientStorage::classes`] and [`ClientStorage::born`].
    pub handles: usize,
    /// Length of [`ClientStorage::own`].
    pub own: usize,
    /// Length of [`ClientStorage::lags`].
    pub lags: usize,
    /// Length of [`ClientStorage::models`].
    pub models: usize,
}

impl ClientSizes {
    /// Bytes of storage these sizes take.
    pub const fn bytes(&self) -> usize {
        self.rows * 4
            + self.handles * 6
            + self.own * 8
            + self.lags
            + self.models * core::mem::size_of::<Model>()
    }
}

impl ClientStorage<'_> {
    /// Slice lengths for a client that sees up to `handles` entities at once.
    pub fn sizes(schema: &Schema, handles: usize) -> ClientSizes {
        ClientSizes {
            rows: SLOTS.saturating_mul(handles).saturating_mul(schema.max_fields),
            handles: SLOTS.saturating_mul(handles),
            own: words(SLOTS.saturating_mul(handles)),
            lags: SLOTS.saturating_mul(handles).saturating_mul(schema.max_groups),
            models: Book::sets(schema, End::Client).saturating_mul(ModelLayout::new(schema).len),
        }
    }
}

/// Genuine packets (their check value matched) refused in a row as stale, with none accepted
/// between, after which a client forgets what it held and asks its server to start over
/// ([`Client::restart`]). A client wedged ahead of its server (by a packet that named a frame
/// far ahead) refuses the server's packets against frames it does not hold until the server,
/// hearing no ack it can use, codes packets without baseline: those it can check, and refuse
/// as stale. Datagrams it cannot check never count, so junk cannot force a restart.
pub const RESTART_AFTER: u32 = WINDOW / 2;

/// A change between the previous view and the current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// An entity became visible.
    Created {
        /// Its handle.
        handle: u32,
        /// Its class.
        class: usize,
    },
    /// An entity's values changed.
    Updated {
        /// Its handle.
        handle: u32,
    },
    /// An entity is no longer visible.
    Removed {
        /// Its handle.
        handle: u32,
    },
}

/// What a [`Client`] keeps besides its storage, for the owned layer to resume it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClientState {
    /// Where packets' models start from and go.
    book: Book,
    handles: u32,
    slots: Slots,
    newest: u32,
    previous: Option<usize>,
    /// The check value of the packet of each frame slot, which acks prove receipt with.
    checks: [u16; SLOTS],
    /// Genuine packets refused in a row as stale (see [`RESTART_AFTER`]).
    refused: u32,
    /// Whether the client forgot what it held and asks for a packet from scratch.
    restarted: bool,
    /// The hashes of the last two datagrams given to [`Client::decode`], newest first, which a
    /// restart request proves receipt with.
    seen: [u32; 2],
    /// The session packets' check values cover (see [`Client::set_session`]).
    session: u64,
}

impl ClientState {
    /// The newest frame decoded, if any.
    pub(crate) fn frame(&self) -> Option<u32> {
        (self.newest != NO_FRAME).then_some(self.newest)
    }

    /// Whether the client forgot what it held and waits for the server to start over.
    pub(crate) fn restarting(&self) -> bool {
        self.newest == NO_FRAME && self.restarted
    }
}

/// The client side of a connection.
#[derive(Debug)]
pub struct Client<'a> {
    schema: &'a Schema,
    store: ClientStorage<'a>,
    state: ClientState,
}

impl<'a> Client<'a> {
    /// A client that sees up to `handles` entities at once (as its server peer was set up; at
    /// least one, else [`Error::NoHandles`]). It does not check that the server's schema is
    /// `schema`: connect through [`crate::engine::handshake`] first, or every packet of another
    /// schema is refused as [`Error::CheckMismatch`].
    pub fn new(schema: &'a Schema, handles: usize, store: ClientStorage<'a>) -> Result<Self> {
        schema.validate()?;
        if handles == 0 {
            return Err(Error::NoHandles);
        }
        let sizes = ClientStorage::sizes(schema, handles);
        if handles > u32::MAX as usize / 2
            || store.rows.len() < sizes.rows
            || store.classes.len() < sizes.handles
            || store.born.len() < sizes.handles
            || store.own.len() < sizes.own
            || store.lags.len() < sizes.lags
            || store.models.len() < sizes.models
        {
            return Err(Error::StorageTooSmall);
        }
        let store = Self::trim(store, &sizes);
        store.classes.fill(NO_CLASS);
        let state = ClientState {
            book: Book::new(schema, End::Client),
            handles: handles as u32,
            slots: Slots::new(),
            newest: NO_FRAME,
            previous: None,
            checks: [0; SLOTS],
            refused: 0,
            restarted: false,
            seen: [0; 2],
            session: 0,
        };
        Ok(Client { schema, store, state })
    }

    /// `store` cut to `sizes` (which it fits).
    fn trim<'s>(store: ClientStorage<'s>, sizes: &ClientSizes) -> ClientStorage<'s> {
        ClientStorage {
            rows: &mut store.rows[..sizes.rows],
            classes: &mut store.classes[..sizes.handles],
            born: &mut store.born[..sizes.handles],
            own: &mut store.own[..sizes.own],
            lags: &mut store.lags[..sizes.lags],
            models: &mut store.models[..sizes.models],
        }
    }

    #[cfg(feature = "std")]
    /// The client in `store` as it was when `state` was taken from it (storage that
    /// [`Client::new`] initialised).
    pub(crate) fn resume(schema: &'a Schema, store: ClientStorage<'a>, state: ClientState) -> Self {
        let sizes = ClientStorage::sizes(schema, state.handles as usize);
        Client { schema, store: Self::trim(store, &sizes), state }
    }

    #[cfg(feature = "std")]
    /// What [`Client::resume`] needs besides the storage.
    pub(crate) fn state(&self) -> ClientState {
        self.state
    }

    fn reader(&self) -> Reader<'_> {
        Reader {
            schema: self.schema,
            rows: self.store.rows,
            classes: self.store.classes,
            born: self.store.born,
            own: self.store.own,
            lags: self.store.lags,
            state: self.state,
        }
    }

    /// The schema hash this client presents when connecting.
    pub fn schema_hash(&self) -> u64 {
        self.schema.hash
    }

    /// The newest frame decoded, if any.
    pub fn frame(&self) -> Option<u32> {
        self.state.frame()
    }

    /// The acknowledgement to send: the newest frame held and the ones before it, with their
    /// proof (and, when the newest frame is a multiple of [`VIEW_EVERY`], the digest of its
    /// view); [`Ack::restart`] after [`Client::restart`] until a packet is accepted; `None`
    /// before the first packet.
    pub fn ack(&self) -> Option<Ack> {
        self.reader().ack()
    }

    /// Digest of the current frame's view ([`Client::frame_view`]): what an ack carries now
    /// and then for the server to compare with its record of what this client holds.
    pub fn view_digest(&self) -> Option<u32> {
        self.reader().view_digest()
    }

    /// Digest of the models the packet for `frame` ended with, if it is held (for checking
    /// both ends agree: [`Peer::model_digest`](crate::Peer::model_digest)).
    pub fn model_digest(&self, frame: u32) -> Option<u64> {
        let p = self.state.slots.find(frame)?;
        Some(self.state.book.digest(self.store.models, p))
    }

    /// Batched policy: the digest of the model this client built from the batch whose first
    /// frame is `start`, if it keeps it (see [`Peer::batch_model`](crate::Peer::batch_model)).
    pub fn batch_model_digest(&self, start: u32) -> Option<u64> {
        self.state.book.kept_digest(self.store.models, start)
    }

    /// Decodes a packet and makes its frame the current view; returns the frame number.
    ///
    /// A packet that is truncated, corrupted, refers to a frame this client does not hold,
    /// or is not newer than the current view is rejected with an error and changes nothing.
    pub fn decode(&mut self, packet: &[u8]) -> Result<u32> {
        self.state.seen = [datagram_hash(self.state.session, packet), self.state.seen[0]];
        let decoded = self.decode_packet(packet);
        match decoded {
            Ok(_) => (self.state.refused, self.state.restarted) = (0, false),
            // Only a genuine packet proves the session wedged: one that names a frame not held
            // proves nothing, as any datagram can.
            Err(Error::StalePacket) => {
                self.state.refused += 1;
                if self.state.refused >= RESTART_AFTER {
                    self.restart();
                }
            }
            Err(_) => {}
        }
        decoded
    }

    /// Binds this client to a session: a value its server's [`Peer`](crate::Peer) was given
    /// too, from the transport (a connection id, a token's nonce). Check values and ack proofs
    /// then cover it at no cost on the wire, so packets of another session or another client
    /// fail as [`Error::CheckMismatch`]. Set it before the first packet; 0 (the default) is
    /// no session.
    pub fn set_session(&mut self, session: u64) {
        self.state.session = session;
    }

    /// Forgets every frame held and asks the server to start over: until a packet is
    /// accepted, [`Client::ack`] is [`Ack::restart`], and the server's next packet after it is
    /// coded from scratch. [`Client::decode`] does this itself after [`RESTART_AFTER`] genuine
    /// packets in a row refused as stale (a wedged session: for instance after a packet that
    /// named a frame far ahead); a game may call it when it detects a desync itself.
    pub fn restart(&mut self) {
        self.store.classes.fill(NO_CLASS);
        self.state.slots = Slots::new();
        self.state.book.restart();
        self.state.previous = None;
        (self.state.refused, self.state.restarted) = (0, true);
        self.state.newest = NO_FRAME;
    }

    fn decode_packet(&mut self, packet: &[u8]) -> Result<u32> {
        let mut dec = Decoder::new(packet);
        let mut cold_reach = 0;
        // The baseline's frame and slot, or without one the packet's frame.
        let (reference, base) = if dec.direct(0, 1) == 0 {
            // The whole number: frames are numbered as on the server, whatever was missed.
            let frame = dec.direct(0, FRAME_BITS);
            cold_reach = packet::code_cold_reach(&mut dec, 0)?;
            (frame, None)
        } else {
            let name = dec.direct(0, BASE_ID_BITS);
            let base =
                self.state.slots.held_at(name, BASE_ID_BITS).ok_or(Error::UnknownBaseline)?;
            let p = self.state.slots.find(base).ok_or(Error::UnknownBaseline)?;
            // A frame kept from longer ago than any packet reaches only aliases the baseline
            // named.
            if self.state.newest != NO_FRAME && age(self.state.newest, base) >= REACH {
                return Err(Error::UnknownBaseline);
            }
            (base, Some(p))
        };
        let mut model = NO_FRAME;
        if self.schema.policy != ModelPolicy::PerFrame {
            packet::code_model(&mut dec, &mut model, reference)?;
        }
        let spare = self.state.slots.spare();
        let models =
            self.state.book.start_decode(self.schema, self.store.models, base, spare, model)?;
        let packet = &mut models[ModelLayout::PACKET];
        let mut refs = match base {
            Some(p) => {
                let before = self.state.slots.distance(p);
                let distance = packet::code_distance(&mut dec, packet, 0, before)?;
                let frame = reference.wrapping_add(distance);
                let mut refs = Refs::new(self.state.session, frame, &[reference]);
                refs.reach = reach_after(distance, self.state.slots.reach(p));
                refs
            }
            None => {
                let mut refs = Refs::new(self.state.session, reference, &[]);
                refs.reach = cold_reach;
                refs
            }
        };
        refs.model = model;
        let frame = refs.frame;
        // The server's frames skip u32::MAX (the empty slot's mark), so no packet names it.
        if frame == NO_FRAME {
            return Err(Error::Corrupt);
        }
        // An old packet is decoded all the same, and refused only once its check value proves
        // it genuine: refusals of genuine packets are what drives a restart.
        let stale = self.state.newest != NO_FRAME && age(frame, self.state.newest) as i32 <= 0;
        packet::code_history(&mut dec, packet, &mut refs)?;
        let mut history = [0usize; MAX_SAMPLES];
        for (slot, &t) in history.iter_mut().zip(&refs.history[..refs.len]) {
            *slot = self.state.slots.find(t).ok_or(Error::UnknownBaseline)?;
        }
        let h = self.state.handles as usize;
        self.store.classes[spare * h..(spare + 1) * h].fill(NO_CLASS);
        let read = &history[..refs.len];
        let (new_rows, history_rows) =
            split(self.store.rows, h * self.schema.max_fields, spare, read);
        let mut history_max_lag = [0u8; MAX_SAMPLES];
        for (lag, &p) in history_max_lag.iter_mut().zip(read) {
            *lag = self.state.slots.max_lag(p);
        }
        let mut side = DecoderSide {
            refs: &refs,
            handles: self.state.handles,
            stride: self.schema.max_fields,
            groups: self.schema.max_groups,
            history,
            history_max_lag,
            history_held: history_max_lag.iter().any(|&l| l > 0),
            max_lag: 0,
            history_rows,
            new: spare,
            new_rows,
            classes: self.store.classes,
            born: self.store.born,
            own: self.store.own,
            lags: self.store.lags,
        };
        let check = packet::code_body(
            &mut dec,
            &mut side,
            &mut NoProbe,
            self.schema,
            models,
            &mut [],
            &refs,
            false,
        )?;
        let max_lag = side.max_lag;
        if dec.direct(0, packet::check_bits(&refs)) != check {
            return Err(Error::CheckMismatch);
        }
        if !dec.at_end() {
            return Err(Error::Corrupt);
        }
        if stale {
            return Err(Error::StalePacket);
        }
        self.state.previous = (self.state.newest != NO_FRAME)
            .then(|| self.state.slots.find(self.state.newest))
            .flatten();
        if age(frame, self.state.newest) >= WINDOW {
            self.state.previous = None;
        }
        self.state.checks[spare] = check as u16;
        self.state.book.commit(self.schema, self.store.models, frame, spare);
        self.state.slots.commit(frame, max_lag, refs.distance(), refs.reach);
        self.state.newest = frame;
        Ok(frame)
    }

    /// Class and raw values of `handle` in the current view (its newest values, as
    /// [`Client::view`] gives them).
    pub fn get(&self, handle: u32) -> Option<(usize, &[i32])> {
        self.reader().get(handle)
    }

    /// Whether the server marked the entity at `handle` in the current view as this client's
    /// own.
    pub fn is_own(&self, handle: u32) -> bool {
        self.reader().is_own(handle)
    }

    /// Every entity of the current view: handle, class and raw values, by handle. Each
    /// entity shows the newest values the client has of it: an entity a byte budget held in
    /// the current frame keeps its values from a later frame than the packet's baseline if
    /// one arrived (see [`Client::age`]).
    pub fn view(&self) -> impl Iterator<Item = (u32, usize, &[i32])> + '_ {
        self.reader().view()
    }

    /// Every entity of the current frame exactly as its packet set it (what the server
    /// records its client holds, [`Peer::client_view`](crate::Peer::client_view)), by handle.
    pub fn frame_view(&self) -> impl Iterator<Item = (u32, usize, &[i32])> + '_ {
        self.reader().frame_view()
    }

    /// The entity at `handle` in the current view with where its values come from.
    pub fn sample(&self, handle: u32) -> Option<Sample<'_>> {
        self.reader().sample(handle)
    }

    /// How many frames before the current one the world had the values [`Client::get`] gives
    /// for `handle` (0: sent in the current frame), the oldest of its update groups.
    pub fn age(&self, handle: u32) -> Option<u32> {
        self.reader().age(handle)
    }

    /// What changed from the previous view to the current one, by handle.
    pub fn events(&self) -> impl Iterator<Item = Event> + '_ {
        self.reader().events()
    }

    /// The rate of change of field `field` of the entity at `handle`, in raw steps per frame
    /// at the frame its newest value came from: the slope there of the polynomial `order`
    /// fits ([`Predictor::Linear`], [`Predictor::Quadratic`] or [`Predictor::Cubic`]) through
    /// the entity's newest distinct values the client holds, each at the frame the server had
    /// it (Orsten 2011, §5.5–5.6). Computed from what was decoded: nothing more is sent.
    /// `None` without enough values, for other orders, or for a categorical field.
    pub fn rate(&self, handle: u32, field: usize, order: Predictor) -> Option<Rate> {
        self.reader().rate(handle, field, order)
    }
}

/// An entity as the current view shows it, with where its values come from: what a client
/// that interpolates keeps (see [`crate::blend`] and
/// [`owned::Interpolator`](crate::owned::Interpolator)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample<'s> {
    /// Its class.
    pub class: usize,
    /// Its newest raw values ([`Client::get`]).
    pub row: &'s [i32],
    /// The frame at which its handle got it: a later entity at the same handle has a later
    /// one, so samples with different `born` are of different entities.
    pub born: u32,
    /// The frame at which the server's world had the values of its default update group
    /// ([`Client::age`] frames before the current one for a class of one group).
    pub source: u32,
}

/// Read access to a client's current and previous views over shared storage, for the
/// [`Client`] and the owned layer alike.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reader<'s> {
    pub(crate) schema: &'s Schema,
    pub(crate) rows: &'s [i32],
    pub(crate) classes: &'s [u16],
    pub(crate) born: &'s [u32],
    pub(crate) own: &'s [u64],
    pub(crate) lags: &'s [u8],
    pub(crate) state: ClientState,
}

impl<'s> Reader<'s> {
    /// The acknowledgement to send.
    pub(crate) fn ack(&self) -> Option<Ack> {
        let Some(newest) = self.state.frame() else {
            return self.state.restarting().then(|| Ack::restart(self.state.seen));
        };
        let state = &self.state;
        let ack = Ack::proven(newest, |f| state.slots.find(f).map(|p| state.checks[p]));
        let view = (newest % VIEW_EVERY == 0).then(|| self.view_digest()).flatten();
        Some(Ack { view, ..ack })
    }

    /// Digest of the current frame's view.
    pub(crate) fn view_digest(&self) -> Option<u32> {
        self.state.frame()?;
        let mut digest = ViewDigest::new();
        for (h, class, row) in self.frame_view() {
            digest.entity(h, class);
            row.iter().for_each(|&v| digest.value_of(v));
        }
        Some(digest.value())
    }

    fn current_slot(&self) -> Option<usize> {
        self.state.slots.find(self.state.newest)
    }

    /// Class and raw values of `handle` in the current view: the newest values the client
    /// has of it (see [`Reader::freshest`]).
    pub(crate) fn get(&self, handle: u32) -> Option<(usize, &'s [i32])> {
        self.sample(handle).map(|s| (s.class, s.row))
    }

    /// The entity at `handle` in the current view with where its values come from: what
    /// [`Reader::get`] gives, the frame its handle got it and the frame its default update
    /// group's values were the world's.
    pub(crate) fn sample(&self, handle: u32) -> Option<Sample<'s>> {
        let slot = self.current_slot()?;
        self.entry(slot, handle)?;
        let p = self.freshest(slot, handle);
        let (class, row) = self.entry(p, handle)?;
        let born = *self.born.get(p * self.state.handles as usize + handle as usize)?;
        let lag = self.lags_of(p, handle).first().copied().unwrap_or(0);
        let source = self.state.slots.frame_of(p).wrapping_sub(u32::from(lag));
        Some(Sample { class, row, born, source })
    }

    /// Class and raw values of `handle` in the current frame exactly as its packet set it.
    pub(crate) fn frame_entry(&self, handle: u32) -> Option<(usize, &'s [i32])> {
        self.entry(self.current_slot()?, handle)
    }

    /// How many frames before the current one the world had the values [`Reader::get`]
    /// gives for `handle` (the oldest of its update groups).
    pub(crate) fn age(&self, handle: u32) -> Option<u32> {
        let slot = self.current_slot()?;
        self.entry(slot, handle)?;
        let p = self.freshest(slot, handle);
        let frame = self.state.slots.frame_of(p);
        let oldest = self.lags_of(p, handle).iter().copied().max().unwrap_or(0);
        Some(age(self.state.newest, frame) + u32::from(oldest))
    }

    /// The lags of `handle` in `slot`, one per update group.
    fn lags_of(&self, slot: usize, handle: u32) -> &'s [u8] {
        let g = self.schema.max_groups;
        let at = (slot * self.state.handles as usize + handle as usize) * g;
        self.lags.get(at..at + g).unwrap_or(&[])
    }

    /// The slot holding the newest values the client has of `handle`, as of the frame in
    /// `slot` (where it is present): among that frame and the frames before it that hold the
    /// same entity, the one whose default update group came from the latest frame. A packet
    /// that holds an entity keeps the values of its baseline, which can be older than a
    /// frame decoded since; showing the newest keeps entities from stepping back.
    fn freshest(&self, slot: usize, handle: u32) -> usize {
        let lag = |p: usize| u32::from(self.lags_of(p, handle).first().copied().unwrap_or(0));
        if lag(slot) == 0 {
            return slot;
        }
        let hs = self.state.handles as usize;
        let at = |p: usize| p * hs + handle as usize;
        let now = self.state.slots.frame_of(slot);
        let born = self.born.get(at(slot)).copied();
        let mut best = (now.wrapping_sub(lag(slot)), slot);
        for p in 0..SLOTS {
            let frame = self.state.slots.frame_of(p);
            let before = age(now, frame);
            if frame == NO_FRAME || before == 0 || before > WINDOW {
                continue;
            }
            let present = self.classes.get(at(p)).is_some_and(|&c| c != NO_CLASS);
            let source = frame.wrapping_sub(lag(p));
            if present && self.born.get(at(p)).copied() == born && age(source, best.0) as i32 > 0 {
                best = (source, p);
            }
        }
        best.1
    }

    /// The rate of change of `field` of `handle` (see [`Client::rate`]).
    pub(crate) fn rate(&self, handle: u32, field: usize, order: Predictor) -> Option<Rate> {
        let m = order.samples();
        if order == Predictor::Contract || m < 2 {
            return None;
        }
        let slot = self.current_slot()?;
        let (class, _) = self.entry(slot, handle)?;
        let f = self.schema.classes.get(class)?.fields.get(field)?;
        if f.coding == crate::schema::Coding::Categorical {
            return None;
        }
        let hs = self.state.handles as usize;
        let born = self.born.get(slot * hs + handle as usize).copied();
        // The newest `m` distinct source frames, as frames before the current one.
        let (mut ages, mut values, mut n) = ([0u32; MAX_SAMPLES], [0i32; MAX_SAMPLES], 0);
        for p in 0..SLOTS {
            let frame = self.state.slots.frame_of(p);
            if frame == NO_FRAME || age(self.state.newest, frame) >= WINDOW {
                continue;
            }
            let Some((c, row)) = self.entry(p, handle) else { continue };
            if c != class || self.born.get(p * hs + handle as usize).copied() != born {
                continue;
            }
            let lag = self.lags_of(p, handle).get(usize::from(f.group)).copied().unwrap_or(0);
            let a = age(self.state.newest, frame) + u32::from(lag);
            if ages[..n].contains(&a) || (n == m && a > ages[n - 1]) {
                continue;
            }
            // Insert in ascending order of age, keeping the `m` newest.
            let at = ages[..n].iter().position(|&b| b > a).unwrap_or(n);
            n = (n + 1).min(m);
            for i in (at + 1..n).rev() {
                (ages[i], values[i]) = (ages[i - 1], values[i - 1]);
            }
            (ages[at], values[at]) = (a, *row.get(field)?);
        }
        if n < m {
            return None;
        }
        let offsets: [u32; MAX_SAMPLES] = core::array::from_fn(|i| ages[i].wrapping_sub(ages[0]));
        Rate::of(f, &offsets[..m], &values[..m])
    }

    /// Whether `handle` names one of the client's own entities in the current view.
    pub(crate) fn is_own(&self, handle: u32) -> bool {
        self.get(handle).is_some()
            && self.current_slot().is_some_and(|p| {
                test_bit(self.own, p * self.state.handles as usize + handle as usize)
            })
    }

    fn entry(&self, slot: usize, handle: u32) -> Option<(usize, &'s [i32])> {
        if handle >= self.state.handles {
            return None;
        }
        let at = slot * self.state.handles as usize + handle as usize;
        let class = usize::from(*self.classes.get(at)?);
        let fields = self.schema.classes.get(class)?.fields.len();
        self.rows.get(at * self.schema.max_fields..)?.get(..fields).map(|row| (class, row))
    }

    /// Every entity of the current view: handle, class and its newest raw values, by handle.
    pub(crate) fn view(self) -> impl Iterator<Item = (u32, usize, &'s [i32])> {
        (0..self.state.handles).filter_map(move |h| {
            let (class, row) = self.get(h)?;
            Some((h, class, row))
        })
    }

    /// Every entity of the current frame exactly as its packet set it, by handle.
    pub(crate) fn frame_view(self) -> impl Iterator<Item = (u32, usize, &'s [i32])> {
        (0..self.state.handles).filter_map(move |h| {
            let (class, row) = self.frame_entry(h)?;
            Some((h, class, row))
        })
    }

    /// What changed from the previous view to the current one, by handle.
    pub(crate) fn events(self) -> impl Iterator<Item = Event> + 's {
        let now = self.current_slot();
        let before = self.state.previous;
        let hs = self.state.handles as usize;
        (0..self.state.handles).flat_map(move |h| {
            let born = |p: usize| self.born.get(p * hs + h as usize).copied();
            let newest = |p: usize| {
                self.entry(p, h)?;
                self.entry(self.freshest(p, h), h).map(|e| (e, born(p)))
            };
            let old = before.and_then(newest);
            let new = now.and_then(newest);
            let (removed, created, updated) = match (old, new) {
                (Some(_), None) => (true, false, false),
                (None, Some(_)) => (false, true, false),
                (Some((a, born_a)), Some((b, born_b))) if born_a != born_b || a.0 != b.0 => {
                    (true, true, false)
                }
                (Some((a, _)), Some((b, _))) => (false, false, a.1 != b.1),
                (None, None) => (false, false, false),
            };
            let class = new.map_or(0, |((c, _), _)| c);
            [
                removed.then_some(Event::Removed { handle: h }),
                created.then_some(Event::Created { handle: h, class }),
                updated.then_some(Event::Updated { handle: h }),
            ]
            .into_iter()
            .flatten()
        })
    }
}

/// The `len` items of `all` at `read` (shared) and at `write` (mutable), which must not
/// overlap.
fn split_pair<T>(all: &mut [T], read: usize, write: usize, len: usize) -> Option<(&[T], &mut [T])> {
    if read + len <= write {
        let (a, b) = all.split_at_mut(write);
        Some((a.get(read..read + len)?, b.get_mut(..len)?))
    } else if write + len <= read {
        let (a, b) = all.split_at_mut(read);
        Some((b.get(..len)?, a.get_mut(write..write + len)?))
    } else {
        None
    }
}

/// The decoder's side of the packet walk: reads history from, and writes the new frame into,
/// the client's archive.
struct DecoderSide<'s> {
    refs: &'s Refs,
    handles: u32,
    stride: usize,
    /// Lags per handle and slot.
    groups: usize,
    history: [usize; MAX_SAMPLES],
    /// The largest lag in each history slot.
    history_max_lag: [u8; MAX_SAMPLES],
    /// Whether any history slot holds values from an earlier frame.
    history_held: bool,
    /// The largest lag written for the new frame.
    max_lag: u8,
    history_rows: [&'s [i32]; MAX_SAMPLES],
    new: usize,
    new_rows: &'s mut [i32],
    classes: &'s mut [u16],
    born: &'s mut [u32],
    own: &'s mut [u64],
    lags: &'s mut [u8],
}

impl DecoderSide<'_> {
    #[inline]
    fn at(&self, slot: usize, h: u32) -> usize {
        slot * self.handles as usize + h as usize
    }

    /// The lags of `h` in `slot`.
    #[inline]
    fn lags(&self, slot: usize, h: u32) -> &[u8] {
        let at = self.at(slot, h) * self.groups;
        self.lags.get(at..at + self.groups).unwrap_or(&[])
    }

    /// Copies the values of `h` at the baseline into the new frame.
    fn copy_row(&mut self, h: u32) {
        let at = h as usize * self.stride;
        if let (Some(to), Some(from)) =
            (self.new_rows.get_mut(at..at + self.stride), self.history_rows[0].get(at..))
        {
            to.copy_from_slice(&from[..to.len().min(from.len())]);
        }
    }
}

impl<'s> Side<'s> for DecoderSide<'s> {
    const ENCODER: bool = false;

    fn handles(&self) -> u32 {
        self.handles
    }

    #[inline]
    fn base_present(&self, h: u32) -> bool {
        self.refs.len > 0 && self.classes[self.at(self.history[0], h)] != NO_CLASS
    }

    fn base_class(&self, h: u32) -> usize {
        usize::from(self.classes[self.at(self.history[0], h)])
    }

    #[inline]
    fn staleness(&self, h: u32, g: usize) -> u32 {
        let lag = self.lags(self.history[0], h).get(g).copied().unwrap_or(0);
        u32::from(lag) + self.refs.distance()
    }

    #[inline]
    fn present(&self, h: u32) -> bool {
        self.classes[self.at(self.new, h)] != NO_CLASS
    }

    fn must_have(&self, _h: u32) -> bool {
        false
    }

    fn keep_hint(&self, _h: u32) -> bool {
        false
    }

    fn next_enter_hint(&mut self) -> Option<(u32, usize, u32, bool)> {
        None
    }

    fn plan(&mut self, _len: usize) {}

    fn packer(&mut self) -> Option<&mut Budget<'s>> {
        None
    }

    fn begin(&mut self, h: u32, class: usize, handle_age: Option<u32>, own: bool) -> Result<()> {
        let at = self.at(self.new, h);
        if h >= self.handles || self.classes[at] != NO_CLASS {
            return Err(Error::Corrupt);
        }
        self.classes[at] = class as u16;
        let (born, own) = match handle_age {
            Some(a) => (self.refs.frame.wrapping_sub(a), own),
            None => {
                let base = self.at(self.history[0], h);
                (self.born[base], test_bit(self.own, base))
            }
        };
        self.born[at] = born;
        put_bit(self.own, at, own);
        Ok(())
    }

    fn unbegin(&mut self, _h: u32) {}

    #[inline]
    fn history_len(&self, h: u32, class: &Class) -> usize {
        let born = self.born[self.at(self.history[0], h)];
        let groups = class.group_count();
        (0..self.refs.len)
            .take_while(|&j| {
                let (p, t) = (self.history[j], self.refs.history[j]);
                let (at, frame) = (self.at(p, h), self.refs.frame);
                self.classes[at] != NO_CLASS
                    && self.born[at] == born
                    && (in_window(frame, t, self.history_max_lag[j]) || {
                        self.lags(p, h).iter().take(groups).all(|&l| in_window(frame, t, l))
                    })
            })
            .count()
    }

    #[inline]
    fn sources(&self, h: u32, k: usize) -> Option<[u32; MAX_SAMPLES]> {
        if !self.history_held || self.history_max_lag[..k].iter().all(|&l| l == 0) {
            return None;
        }
        Some(core::array::from_fn(|j| {
            let lag = self.lags(self.history[j], h).first().copied().unwrap_or(0);
            self.refs.history[j].wrapping_sub(u32::from(lag))
        }))
    }

    #[inline(always)]
    fn samples(&self, h: u32, k: usize, lo: usize, class: &Class, samples: &mut Samples) {
        let at = h as usize * self.stride + lo;
        let n = class.fields.len().saturating_sub(lo);
        let history = &self.history_rows[..k.min(self.history_rows.len())];
        for (j, rows) in history.iter().enumerate() {
            let row = rows.get(at..).unwrap_or(&[]);
            // Zipped with slices alone, the copy compiles to a plain counted loop.
            for (s, &v) in samples.iter_mut().zip(&row[..n.min(row.len())]) {
                s[j] = v;
            }
        }
    }

    fn target_row(&self, _h: u32) -> &'s [i32] {
        &[]
    }

    #[inline(always)]
    fn store(&mut self, h: u32, f: usize, value: i32, _coded: bool, _tolerant: Option<usize>) {
        if let Some(v) = self.new_rows.get_mut(h as usize * self.stride + f) {
            *v = value;
        }
    }

    #[inline]
    fn sent_groups(&mut self, h: u32, class: &Class, due: u32) {
        let (g, distance) = (self.groups, self.refs.distance());
        let (base, new) = (self.at(self.history[0], h) * g, self.at(self.new, h) * g);
        let largest = match split_pair(self.lags, base, new, g) {
            Some((base_lags, lags)) => {
                let staleness = |group: usize| u32::from(base_lags[group]) + distance;
                write_lags(lags, class.group_count(), due, staleness)
            }
            // Without a baseline, `history[0]` may be the new slot itself; only entering
            // entities, every group sent, are written then, and nothing is read from it.
            None => match self.lags.get_mut(new..new + g) {
                Some(lags) => write_lags(lags, class.group_count(), due, |_| distance),
                None => 0,
            },
        };
        self.max_lag = self.max_lag.max(largest);
    }

    fn hold(&mut self, h: u32, class: &Class) {
        self.copy_row(h);
        self.sent_groups(h, class, 0);
    }

    fn hold_all(&mut self) {
        let (base, new, hs) = (self.history[0], self.new, self.handles as usize);
        self.classes.copy_within(base * hs..(base + 1) * hs, new * hs);
        self.born.copy_within(base * hs..(base + 1) * hs, new * hs);
        for h in 0..self.handles {
            let own = test_bit(self.own, self.at(base, h));
            put_bit(self.own, self.at(new, h), own);
            self.copy_row(h);
        }
        // Every lag of every handle is held: one run over the slot.
        let (g, distance) = (self.groups, self.refs.distance());
        if let Some((base_lags, lags)) = split_pair(self.lags, base * hs * g, new * hs * g, hs * g)
        {
            let staleness = |at: usize| u32::from(base_lags[at]) + distance;
            let largest = write_lags(lags, usize::MAX, 0, staleness);
            self.max_lag = self.max_lag.max(largest);
        }
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use crate::model::predict::Predictor;
    use crate::owned::{ClientBuffers, PeerBuffers, WorldBuffers};
    use crate::schema::{Class, Field, Schema};

    static PREDICTORS: [Predictor; 3] = [Predictor::Hold, Predictor::Linear, Predictor::Zero];
    static F: [Field; 2] =
        [Field::numeric("x", 0, 10_000, false, &PREDICTORS), Field::categorical("on", 2)];
    static C: [Class; 1] = [Class::new("c", &F)];
    static S: Schema = Schema::new("s", &C);

    /// A session that crosses frame `u32::MAX - 1` → 0 (the server skips `u32::MAX`) decodes
    /// every packet that arrives, one in four being lost, to the server's values.
    #[test]
    fn a_session_crosses_the_frame_counter_rollover() {
        const N: usize = 8;
        let mut wb = WorldBuffers::new(&S, N);
        let mut world = wb.world(&S, N).unwrap();
        world.frame = u32::MAX - 70;
        let mut pb = PeerBuffers::new(&S, N, N);
        let mut peer = pb.peer(&S, N, N).unwrap();
        let mut cb = ClientBuffers::new(&S, N);
        let mut client = cb.client(&S, N).unwrap();
        for id in 0..N {
            peer.set_visible(id, true);
        }
        let mut buf = [0u8; 512];
        for step in 0..140i32 {
            let frame = world.begin_frame();
            for id in 0..N {
                world.set(id, 0, &[(step * 13 + id as i32 * 100) % 10_000, step & 1]).unwrap();
            }
            let len = peer.encode(&world, &mut buf).unwrap();
            if step % 4 == 3 {
                continue;
            }
            assert_eq!(client.decode(&buf[..len]), Ok(frame), "step {step}");
            for id in 0..N {
                let h = peer.handle_of(id).unwrap();
                let (_, row) = world.get(frame, id).unwrap();
                assert_eq!(client.get(h).map(|(_, r)| r), Some(row), "frame {frame}");
            }
            peer.receive_ack(&client.ack().unwrap());
        }
        assert!(world.frame().unwrap() < 100, "the counter wrapped");
    }
}
