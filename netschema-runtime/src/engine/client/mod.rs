//! The client: decodes packets into its own archive of recent frames, yields what changed,
//! and writes acknowledgements.
//!
//! This module owns the client's state and decoding; the rest is in one module per job:
//! `storage` (the caller's slices and their sizes), `row` (frame rows packed at their fields'
//! widths), `reader` (the current and previous views read over the storage: values, samples,
//! events, acks), `side` (the decoder's side of the packet walk), `accept` (what an accepted
//! packet records) and `lineage` (which entity a frame slot holds under a handle).

use crate::codec::coder::{BinaryCoder, Decoder};
use crate::engine::MAX_HANDLES;
use crate::engine::ack::{Ack, datagram_hash};
use crate::engine::bitset::clear_bits;
use crate::engine::frame::{NO_FRAME, REACH, WINDOW, age, reach_after};
use crate::engine::keys::{self, Store};
use crate::engine::lags::LagView;
use crate::engine::models::{Book, End};
use crate::engine::packet::{self, BASE_ID_BITS, FRAME_BITS, Refs};
use crate::engine::probe::NoProbe;
use crate::engine::records::{self, Inbox, Records};
use crate::engine::slots::{SLOTS, Slots};
use crate::engine::world::NO_CLASS;
use crate::model::ModelLayout;
use crate::model::predict::{MAX_SAMPLES, Predictor, Rate};
use crate::schema::Schema;
use crate::{Error, Result};

mod accept;
mod keyed;
mod lineage;
mod reader;
mod row;
mod side;
mod storage;

pub(crate) use reader::Reader;
pub use reader::{Event, Sample};
use side::{DecoderSide, OldRows, layouts};
pub use storage::{ClientSizes, ClientStorage};

/// Genuine packets (their check value matched) refused in a row as stale, with none accepted
/// between, after which a client forgets what it held and asks its server to start over
/// ([`Client::restart`]). A client wedged ahead of its server (by a packet that named a frame
/// far ahead) refuses the server's packets against frames it does not hold until the server,
/// hearing no ack it can use, codes packets without baseline: those it can check, and refuse
/// as stale. Datagrams it cannot check never count, so junk cannot force a restart.
pub const RESTART_AFTER: u32 = WINDOW / 2;

/// A packet's baseline: its frame and the slot holding it.
type Base = Option<(u32, usize)>;

/// The two tables of `view` that take turns ([`ClientStorage::view`]), `table` values each:
/// the current frame's (the one `shown` names) and the one a packet is decoded into.
fn turns(view: &mut [i32], table: usize, shown: usize) -> (&[i32], &mut [i32]) {
    let (first, second) = view.split_at_mut(table.min(view.len()));
    let second = second.get_mut(..table).unwrap_or(&mut []);
    match shown {
        0 => (first, second),
        _ => (second, first),
    }
}

/// What a [`Client`] keeps besides its storage, for the owned layer to resume it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClientState {
    /// Where packets' models start from and go.
    pub(super) book: Book,
    pub(super) handles: u32,
    /// Bytes of a handle's packed row in a frame slot ([`row::stride`]).
    pub(super) stride: usize,
    /// Where a row says which class it holds.
    mark: row::ClassMark,
    /// Which of the two tables of [`ClientStorage::view`] that take turns holds the current
    /// frame's values.
    pub(super) shown: usize,
    pub(super) slots: Slots,
    pub(super) newest: u32,
    pub(super) previous: Option<usize>,
    /// The check value of the packet of each frame slot, which acks prove receipt with.
    pub(super) checks: [u16; SLOTS],
    /// Genuine packets refused in a row as stale (see [`RESTART_AFTER`]).
    pub(super) refused: u32,
    /// Whether the client forgot what it held and asks for a packet from scratch.
    pub(super) restarted: bool,
    /// The hashes of the last two datagrams given to [`Client::decode`], newest first, which a
    /// restart request proves receipt with.
    pub(super) seen: [u32; 2],
    /// The session packets' check values cover (see [`Client::set_session`]).
    pub(super) session: u64,
    /// The record stream: the next record to apply, those waiting and those applied.
    pub(super) records: Inbox,
}

impl ClientState {
    /// The newest frame decoded, if any.
    pub(crate) fn frame(&self) -> Option<u32> {
        (self.newest != NO_FRAME).then_some(self.newest)
    }

    /// The records the last accepted packet applied (see [`Client::records`]).
    pub(crate) fn records(&self) -> Records<'_> {
        self.records.applied()
    }

    /// The records waiting for an earlier one (see [`Client::waiting_records`]).
    pub(crate) fn waiting_records(&self) -> Records<'_> {
        self.records.waiting()
    }

    /// Whether the client forgot what it held and waits for the server to start over.
    pub(crate) fn restarting(&self) -> bool {
        self.newest == NO_FRAME && self.restarted
    }

    #[cfg(feature = "std")]
    /// The session packets' check values cover.
    pub(crate) fn session(&self) -> u64 {
        self.session
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
    /// least one, else [`Error::NoHandles`]; at most [`MAX_HANDLES`], else
    /// [`Error::CapacityExceeded`]). It does not check that the server's schema is
    /// `schema`: connect through [`crate::engine::handshake`] first, or every packet of another
    /// schema is refused as [`Error::CheckMismatch`].
    pub fn new(schema: &'a Schema, handles: usize, store: ClientStorage<'a>) -> Result<Self> {
        schema.validate()?;
        if handles == 0 {
            return Err(Error::NoHandles);
        }
        if handles > MAX_HANDLES {
            return Err(Error::CapacityExceeded);
        }
        let sizes = ClientStorage::sizes(schema, handles);
        if store.rows.len() < sizes.rows
            || store.view.len() < 3 * sizes.view
            || store.classes.len() < sizes.classes
            || store.ages.len() < sizes.handles
            || store.born.len() < sizes.born
            || store.entered.len() < sizes.born
            || store.steady.len() < sizes.born
            || store.own.len() < sizes.own
            || store.present.len() < sizes.own
            || store.sends.len() < sizes.sends
            || store.chains.len() < sizes.chains
            || store.sent.len() < sizes.sent
            || store.links.len() < sizes.links
            || store.models.len() < sizes.models
            || store.stored.len() < sizes.stored
            || store.keys.len() < sizes.keys
        {
            return Err(Error::StorageTooSmall);
        }
        let store = Self::trim(store, &sizes);
        store.rows.fill(0);
        store.present.fill(0);
        Store::new(schema, store.keys).clear();
        let state = ClientState {
            book: Book::new(schema, End::Client),
            handles: handles as u32,
            stride: row::stride(schema),
            mark: row::ClassMark::of(schema),
            shown: 0,
            slots: Slots::new(),
            newest: NO_FRAME,
            previous: None,
            checks: [0; SLOTS],
            refused: 0,
            restarted: false,
            seen: [0; 2],
            session: 0,
            records: Inbox::new(),
        };
        Ok(Client { schema, store, state })
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
            view: self.store.view,
            present: self.store.present,
            ages: self.store.ages,
            born: self.store.born,
            own: self.store.own,
            sends: self.store.sends,
            chains: self.store.chains,
            links: self.store.links,
            state: &self.state,
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
    /// proof (and, when the newest frame is a multiple of [`VIEW_EVERY`](crate::engine::ack::VIEW_EVERY), the digest of its
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

    /// Digest of the models the packet for `frame` ended with, if they are kept (for checking
    /// both ends agree: [`Peer::model_digest`](crate::Peer::model_digest)). Per frame a client
    /// keeps those of the frames that keep their models and may still start a packet, in a
    /// pool that a round trip of more such frames than it holds can fill: a frame decoded then
    /// keeps none, and is never acknowledged.
    pub fn model_digest(&self, frame: u32) -> Option<u64> {
        let p = self.state.slots.find(frame)?;
        self.state.book.digest(self.store.stored, p, frame)
    }

    /// Batched policy: the digest of the model this client built from the batch whose first
    /// frame is `start`, if it keeps it (see [`Peer::batch_model`](crate::Peer::batch_model)).
    pub fn batch_model_digest(&self, start: u32) -> Option<u64> {
        self.state.book.kept_digest(self.store.models, start)
    }

    /// Decodes a packet and makes its frame the current view; returns the frame number.
    ///
    /// A packet that is truncated, corrupted, refers to a frame this client does not hold,
    /// or is not newer than the current view is rejected with an error and changes nothing,
    /// but that the records of a genuine packet refused as stale wait, to be applied with the
    /// next packet accepted ([`Client::records`]). An entity the packet codes against the
    /// packet that brought it in, which this client lost, is not in the frame: it appears when
    /// it enters whole again, about a round trip later.
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
    /// The record stream goes on: records are not frames, and none is applied twice.
    pub fn restart(&mut self) {
        self.store.rows.fill(0);
        self.store.present.fill(0);
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
        let before = base.map(|p| self.state.slots.distance(p));
        packet::code_packet_model(&mut dec, &mut model, self.schema.policy, (reference, before))?;
        let spare = self.state.slots.spare();
        let models = self.state.book.start_decode(
            self.schema,
            self.store.models,
            self.store.stored,
            model,
        )?;
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
        let handles = self.state.handles;
        let schema = self.schema;
        let check = |bytes: &[u8]| keys::check(schema, handles, bytes);
        let kinds = self.schema.has_keys().then_some(&check as &dyn Fn(&[u8]) -> Result<()>);
        let records =
            records::read_records(&mut dec, packet, &mut self.state.records, frame, kinds)?;
        let mut history = [0usize; MAX_SAMPLES];
        for (slot, &t) in history.iter_mut().zip(&refs.history[..refs.len]) {
            *slot = self.state.slots.find(t).ok_or(Error::UnknownBaseline)?;
        }
        let h = self.state.handles as usize;
        let (stride, mark) = (self.state.stride, self.state.mark);
        let spare_rows = spare * h * stride..(spare + 1) * h * stride;
        self.store.rows.get_mut(spare_rows).unwrap_or(&mut []).fill(0);
        let read = &history[..refs.len];
        clear_bits(self.store.present, spare * h, (spare + 1) * h);
        let (base_classes, new_classes) = self.store.classes.split_at_mut(h);
        new_classes.fill(NO_CLASS);
        for (handle, class) in base_classes.iter_mut().enumerate() {
            let row = |p: usize| (p * h + handle) * stride;
            let at = read.first().and_then(|&p| mark.get(self.store.rows, row(p)));
            *class = at.map_or(NO_CLASS, |c| c as u16);
        }
        let (new_rows, old_rows) = OldRows::split(self.store.rows, h * self.state.stride, spare);
        let history_rows =
            core::array::from_fn(|j| read.get(j).map_or(&[][..], |&p| old_rows.slot(p)));
        let (values, new_values) =
            turns(self.store.view, h * self.schema.max_fields, self.state.shown);
        let mut history_max_lag = [0u8; MAX_SAMPLES];
        for (lag, &p) in history_max_lag.iter_mut().zip(read) {
            *lag = self.state.slots.max_lag(p);
        }
        // Lags read as the server read them, at the packet's frame; an old packet's at the
        // newest frame, whose sends the ring holds.
        let now = if stale { self.state.newest } else { frame };
        let mut history_lags = [LagView::NONE; MAX_SAMPLES];
        for ((view, &p), &t) in history_lags.iter_mut().zip(read).zip(&refs.history) {
            *view = LagView::of(self.store.chains, p, t, now);
        }
        self.store.sent.fill(0);
        let mut side = DecoderSide {
            schema: self.schema,
            refs: &refs,
            handles: self.state.handles,
            stride: self.state.stride,
            groups: self.schema.max_groups,
            history,
            history_max_lag,
            history_held: history_max_lag.iter().any(|&l| l > 0),
            max_lag: 0,
            history_rows,
            old_rows,
            slots: &self.state.slots,
            entry_slot: spare,
            unresolved: 0,
            new: spare,
            new_rows,
            keyed: !self.store.keys.is_empty(),
            values,
            new_values,
            layouts: layouts(self.schema),
            mark,
            base_classes,
            new_classes,
            present: self.store.present,
            frames: (frame, refs.base().unwrap_or(frame), refs.distance()),
            ages: self.store.ages,
            entered: self.store.entered,
            born: self.store.born,
            steady: self.store.steady,
            own: self.store.own,
            sends: self.store.sends,
            history_lags,
            sent: self.store.sent,
            links: self.store.links,
        };
        let check = packet::code_body(
            &mut dec,
            &mut side,
            &mut NoProbe,
            self.schema,
            models,
            &mut [],
            &refs,
            (records, false),
        )?;
        let max_lag = side.max_lag;
        if dec.direct(0, packet::check_bits(&refs)) != check {
            return Err(Error::CheckMismatch);
        }
        if !dec.at_end() {
            return Err(Error::Corrupt);
        }
        if stale {
            // Its records are genuine: they wait, to be applied with the next packet accepted.
            self.state.records.keep_staged();
            return Err(Error::StalePacket);
        }
        self.accept(&refs, (spare, check as u16, max_lag), base.map(|p| (reference, p)));
        self.state.records.commit();
        self.apply_keys();
        Ok(frame)
    }

    /// Class and raw values of `handle` in the current view (its newest values, as
    /// [`Client::view`] gives them).
    pub fn get(&self, handle: u32) -> Option<(usize, &[i32])> {
        self.reader().get(handle)
    }

    /// The entity link `link` of the entity at `handle` names in the current frame
    /// ([`Class::links`](crate::schema::Class::links)): the handle this client holds it under,
    /// or `None` while it holds no entity the link names (the target is not visible to it, or
    /// not yet entered). It follows the target when the target leaves and enters again.
    pub fn link(&self, handle: u32, link: usize) -> Option<u32> {
        self.reader().link(handle, link)
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

    /// The records the last accepted packet applied, in order, each with its number and the
    /// frame it belongs to (see [`Peer::queue_record`](crate::Peer::queue_record)): every
    /// record the game queued comes here once, after every record before it (the keyframe
    /// records the engine queues itself set the timelines the rows show, and do not come
    /// here). A record
    /// that arrives after one still missing waits for it. The records stay until the next
    /// packet is accepted; a refused packet does not change them.
    pub fn records(&self) -> Records<'_> {
        self.state.records()
    }

    /// The records received that wait for an earlier one still missing (its packet was lost
    /// and is being repaired), or that a genuine packet refused as stale brought, by number:
    /// [`Client::records`] yields them with the next packet accepted that leaves none missing
    /// before them.
    pub fn waiting_records(&self) -> Records<'_> {
        self.state.waiting_records()
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
            peer.set_visible(id, true).unwrap();
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

    /// Storage one element short in any slice is refused with a typed error, not a panic.
    #[test]
    fn storage_short_in_any_slice_is_refused() {
        use super::{Client, ClientStorage};
        use crate::Error;
        use crate::model::Model;
        const N: usize = 8;
        let s = ClientStorage::sizes(&S, N);
        let lens = [
            s.rows,
            3 * s.view,
            s.classes,
            s.handles,
            s.born,
            s.born,
            s.born,
            s.own,
            s.own,
            s.sends,
            s.chains,
            s.sent,
            s.links,
            s.models,
            s.stored,
        ];
        for short in 0..=lens.len() {
            let len = |i: usize| lens[i].saturating_sub(usize::from(i == short));
            let (mut rows, mut view, mut classes) =
                (vec![0; len(0)], vec![0; len(1)], vec![0; len(2)]);
            let (mut ages, mut born, mut entered) =
                (vec![0; len(3)], vec![0; len(4)], vec![0; len(5)]);
            let (mut steady, mut present, mut own) =
                (vec![0; len(6)], vec![0; len(7)], vec![0; len(8)]);
            let (mut sends, mut chains, mut sent) =
                (vec![0; len(9)], vec![0; len(10)], vec![0; len(11)]);
            let (mut links, mut stored) = (vec![0; len(12)], vec![0; len(14)]);
            let mut models = vec![Model::default(); len(13)];
            let store = ClientStorage {
                rows: &mut rows,
                view: &mut view,
                classes: &mut classes,
                ages: &mut ages,
                born: &mut born,
                entered: &mut entered,
                steady: &mut steady,
                present: &mut present,
                own: &mut own,
                sends: &mut sends,
                chains: &mut chains,
                sent: &mut sent,
                links: &mut links,
                models: &mut models,
                stored: &mut stored,
                keys: &mut [],
            };
            let made = Client::new(&S, N, store).map(|_| ());
            let expected = if short < lens.len() && lens[short] > 0 {
                Err(Error::StorageTooSmall)
            } else {
                Ok(())
            };
            assert_eq!(made, expected, "slice {short} short");
        }
    }
}
