//! The server's view of one client: its visible set, its handles, what it has acknowledged,
//! and the models stored with each frame sent to it. [`Peer::encode`] writes one packet.

use crate::codec::coder::{BinaryCoder, Encoder};
use crate::engine::ack::Ack;
use crate::engine::bitset::{put_bit, test_bit, words};
use crate::engine::frame::{NO_FRAME, WINDOW, age, to_wire};
use crate::engine::packet::{self, BASE_BITS, BASE_ID_BITS, CHECK_BITS, FRAME_BITS, Refs, Side};
use crate::engine::probe::{NoProbe, Probe};
use crate::engine::slots::{SLOTS, Slots};
use crate::engine::world::World;
use crate::model::predict::MAX_SAMPLES;
use crate::model::{Model, ModelLayout};
use crate::schema::Schema;
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
    /// Whether each handle was given to an entity marked as the client's own.
    pub handle_own: &'a mut [u64],
    /// Models stored with each frame slot.
    pub models: &'a mut [Model],
}

/// Lengths of the slices of a [`PeerStorage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerSizes {
    /// Length of [`PeerStorage::presence`].
    pub presence: usize,
    /// Length of [`PeerStorage::handle_entity`], [`PeerStorage::since`] and
    /// [`PeerStorage::released`].
    pub handles: usize,
    /// Length of [`PeerStorage::entity_handle`].
    pub entities: usize,
    /// Length of [`PeerStorage::visible`] and [`PeerStorage::owned`].
    pub visible: usize,
    /// Length of [`PeerStorage::handle_own`].
    pub handle_words: usize,
    /// Length of [`PeerStorage::models`].
    pub models: usize,
}

impl PeerSizes {
    /// Bytes of storage these sizes take.
    pub const fn bytes(&self) -> usize {
        self.presence * 8
            + self.handles * 12
            + self.entities * 4
            + self.visible * 16
            + self.handle_words * 8
            + self.models * core::mem::size_of::<Model>()
    }
}

impl PeerStorage<'_> {
    /// Slice lengths for a peer of `handles` handles (the most entities the client may see at
    /// once) over a world of `entities` ids.
    pub fn sizes(schema: &Schema, handles: usize, entities: usize) -> PeerSizes {
        PeerSizes {
            presence: SLOTS * words(handles),
            handles,
            entities,
            visible: words(entities),
            handle_words: words(handles),
            models: SLOTS * ModelLayout::new(schema).len,
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
    /// Visible entities left out of a frame because every handle was taken.
    pub deferred: u64,
}

/// What a [`Peer`] keeps besides its storage, for the owned layer to resume it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PeerState {
    layout: ModelLayout,
    handles: u32,
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    entities: usize,
    slots: Slots,
    acked: [bool; SLOTS],
    newest_sent: u32,
    acked_high: u32,
    stats: PeerStats,
}

/// The server side of one client connection.
#[derive(Debug)]
pub struct Peer<'a> {
    schema: &'a Schema,
    store: PeerStorage<'a>,
    state: PeerState,
}

impl<'a> Peer<'a> {
    /// A peer for a client that may see up to `handles` entities at once, over a world of
    /// `entities` ids. Nothing is visible until [`Peer::set_visible`].
    pub fn new(
        schema: &'a Schema,
        handles: usize,
        entities: usize,
        store: PeerStorage<'a>,
    ) -> Result<Self> {
        schema.validate()?;
        let sizes = PeerStorage::sizes(schema, handles, entities);
        if handles > u32::MAX as usize / 2 || !Self::fits(&store, &sizes) {
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
        store.handle_own.fill(0);
        let state = PeerState {
            layout: ModelLayout::new(schema),
            handles: handles as u32,
            entities,
            slots: Slots::new(),
            acked: [false; SLOTS],
            newest_sent: NO_FRAME,
            acked_high: NO_FRAME,
            stats: PeerStats::default(),
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
            && store.handle_own.len() >= sizes.handle_words
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
            handle_own: &mut store.handle_own[..sizes.handle_words],
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

    /// Counters.
    pub fn stats(&self) -> PeerStats {
        self.state.stats
    }

    /// Takes an acknowledgement from the client. Acks for frames never sent, too old, or from
    /// the future are ignored; duplicates and reordering are harmless.
    pub fn receive_ack(&mut self, ack: &Ack) {
        if self.state.newest_sent == NO_FRAME {
            return;
        }
        for frame in ack.frames(self.state.newest_sent) {
            if let Some(p) = self.state.slots.find(frame) {
                self.state.acked[p] = true;
                if self.state.acked_high == NO_FRAME
                    || (age(frame, self.state.acked_high) as i32) > 0
                {
                    self.state.acked_high = frame;
                }
            }
        }
    }

    /// Digest of the models stored with `frame`, if it is held (for checking both ends agree).
    pub fn model_digest(&self, frame: u32) -> Option<u64> {
        let p = self.state.slots.find(frame)?;
        Some(digest(&self.store.models[p * self.state.layout.len..][..self.state.layout.len]))
    }

    /// The model of scalar `field` of `class` stored with `frame`, if the frame is held: what
    /// the peer has learned about that field by then.
    pub fn field_model(&self, frame: u32, class: usize, field: usize) -> Option<&Model> {
        let p = self.state.slots.find(frame)?;
        let fields = self.schema.classes.get(class)?.fields.len();
        if field >= fields {
            return None;
        }
        let at = ModelLayout::class_base(self.schema, class) + 1 + field;
        self.store.models.get(p * self.state.layout.len + at)
    }

    /// Acknowledged frames used as references for `frame`, newest first, at most
    /// [`MAX_SAMPLES`], inside the window: the newest acknowledged frame as the baseline, then
    /// frames as near as possible to twice, three and four times its distance.
    ///
    /// Spacing the samples like the baseline keeps the predictor weights those of evenly
    /// spaced samples (2, −1 for linear; 3, −3, 1 for quadratic), so quantisation noise is not
    /// amplified when the baseline is several frames old; with a baseline one frame old this is
    /// simply the four newest frames.
    fn references(&self, frame: u32) -> ([u32; MAX_SAMPLES], usize) {
        let acked = |back: u32| {
            self.state.slots.find(frame.wrapping_sub(back)).is_some_and(|p| self.state.acked[p])
        };
        let mut out = [0u32; MAX_SAMPLES];
        let Some(base) = (1..WINDOW).find(|&back| acked(back)) else {
            return (out, 0);
        };
        out[0] = frame.wrapping_sub(base);
        let mut len = 1;
        let mut previous = base;
        while len < MAX_SAMPLES {
            let target = base * (len as u32 + 1);
            let nearest = (previous + 1..WINDOW)
                .filter(|&back| acked(back))
                .min_by_key(|&back| back.abs_diff(target));
            let Some(back) = nearest else { break };
            out[len] = frame.wrapping_sub(back);
            previous = back;
            len += 1;
        }
        (out, len)
    }

    /// Brings handles in line with the visible set at `frame`, recording presence in `slot`.
    fn assign_handles(&mut self, world: &World<'_>, frame: u32, slot: usize) {
        let s = &mut self.store;
        let w = words(self.state.handles as usize);
        for (id, handle) in s.entity_handle.iter_mut().enumerate() {
            let visible = test_bit(s.visible, id) && world.get(frame, id).is_some();
            let own = test_bit(s.owned, id);
            if *handle != NO_HANDLE {
                let h = *handle as usize;
                let respawned = age(world.spawned(id), s.since[h]) as i32 > 0;
                if !visible || respawned || test_bit(s.handle_own, h) != own {
                    s.handle_entity[h] = NO_HANDLE;
                    s.released[h] = frame;
                    *handle = NO_HANDLE;
                }
            }
            if visible && *handle == NO_HANDLE {
                let acked = self.state.acked_high;
                let free = s.handle_entity.iter().zip(s.released.iter()).position(|(&e, &r)| {
                    e == NO_HANDLE
                        && (r == NO_FRAME || (acked != NO_FRAME && age(acked, r) as i32 >= 0))
                });
                match free {
                    Some(h) => {
                        s.handle_entity[h] = id as u32;
                        s.since[h] = frame;
                        put_bit(s.handle_own, h, own);
                        *handle = h as u32;
                    }
                    None => self.state.stats.deferred += 1,
                }
            }
        }
        let presence = &mut s.presence[slot * w..(slot + 1) * w];
        presence.fill(0);
        for (h, &e) in s.handle_entity.iter().enumerate() {
            if e != NO_HANDLE {
                put_bit(presence, h, true);
            }
        }
    }

    /// Writes the packet for the world's current frame into `buf` and returns its length.
    ///
    /// The packet is coded against the newest frame the client has acknowledged (or from
    /// scratch if there is none within the window). Fails with [`Error::BufferFull`] if it
    /// does not fit — nothing is written past `buf`, and the frame is then simply not sent —
    /// and with [`Error::StalePacket`] if this frame was already encoded.
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
        let spare = self.state.slots.spare();
        self.assign_handles(world, frame, spare);
        let (history, len) = self.references(frame);
        let len = history[..len].iter().take_while(|&&t| world.holds(t)).count();
        let refs = Refs::new(frame, &history[..len]);

        let m = self.state.layout.len;
        match refs.base().and_then(|b| self.state.slots.find(b)) {
            Some(p) => self.store.models.copy_within(p * m..(p + 1) * m, spare * m),
            None => {
                ModelLayout::reset(self.schema, &mut self.store.models[spare * m..(spare + 1) * m])
            }
        }
        let models = &mut self.store.models[spare * m..(spare + 1) * m];

        let w = words(self.state.handles as usize);
        let mut history_presence: [&[u64]; MAX_SAMPLES] = [&[]; MAX_SAMPLES];
        for (hp, &t) in history_presence.iter_mut().zip(&refs.history[..refs.len]) {
            if let Some(p) = self.state.slots.find(t) {
                *hp = &self.store.presence[p * w..(p + 1) * w];
            }
        }
        let mut history_rows: [&[i32]; MAX_SAMPLES] = [&[]; MAX_SAMPLES];
        for (rows, &t) in history_rows.iter_mut().zip(&refs.history[..refs.len]) {
            *rows = world.frame_rows(t);
        }
        let mut side = EncoderSide {
            refs: &refs,
            handles: self.state.handles,
            stride: self.schema.max_fields,
            classes: world.frame_classes(frame),
            rows: world.frame_rows(frame),
            history_rows,
            presence: &self.store.presence[spare * w..(spare + 1) * w],
            history_presence,
            handle_entity: self.store.handle_entity,
            since: self.store.since,
            handle_own: self.store.handle_own,
            cursor: 0,
            entering: 0,
        };
        side.entering = (0..self.state.handles).filter(|&h| side.enters(h)).count() as u32;

        let mut enc = Encoder::new(buf);
        match refs.base() {
            // The baseline is named by the low bits of its number (see `BASE_ID_BITS`).
            Some(b) => {
                enc.direct(age(frame, b), BASE_BITS);
                enc.direct(b, BASE_ID_BITS);
            }
            None => {
                enc.direct(0, BASE_BITS);
                enc.direct(u32::from(to_wire(frame)), FRAME_BITS);
            }
        }
        let mut refs_coded = refs;
        packet::code_history(&mut enc, &mut models[ModelLayout::PACKET], &mut refs_coded)?;
        let check = packet::code_body(&mut enc, &mut side, probe, self.schema, models, &refs)?;
        enc.direct(check, CHECK_BITS);
        let written = enc.finish()?;

        self.state.slots.commit(frame);
        self.state.acked[spare] = false;
        self.state.newest_sent = frame;
        self.state.stats.packets += 1;
        self.state.stats.cold_packets += u64::from(refs.len == 0);
        Ok(written)
    }
}

/// Digest of a model set.
pub(crate) fn digest(models: &[Model]) -> u64 {
    models.iter().fold(0xcbf2_9ce4_8422_2325, |h, m| m.digest(h))
}

/// The encoder's side of the packet walk: reads targets and history from the world.
struct EncoderSide<'s> {
    refs: &'s Refs,
    handles: u32,
    /// Values per row in the world.
    stride: usize,
    /// Class of every id at the new frame.
    classes: &'s [u16],
    /// Rows of every id at the new frame.
    rows: &'s [i32],
    /// Rows of every id at each history frame.
    history_rows: [&'s [i32]; MAX_SAMPLES],
    presence: &'s [u64],
    history_presence: [&'s [u64]; MAX_SAMPLES],
    handle_entity: &'s [u32],
    since: &'s [u32],
    handle_own: &'s [u64],
    cursor: u32,
    entering: u32,
}

impl EncoderSide<'_> {
    fn enters(&self, h: u32) -> bool {
        test_bit(self.presence, h as usize) && !self.base_present(h)
    }

    #[inline]
    fn entity(&self, h: u32) -> usize {
        self.handle_entity[h as usize] as usize
    }
}

impl<'s> Side<'s> for EncoderSide<'s> {
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

    fn keep_hint(&self, h: u32) -> bool {
        test_bit(self.presence, h as usize)
    }

    fn enter_count_hint(&self) -> u32 {
        self.entering
    }

    fn next_enter_hint(&mut self) -> (u32, usize, u32, bool) {
        while self.cursor < self.handles && !self.enters(self.cursor) {
            self.cursor += 1;
        }
        let h = self.cursor;
        self.cursor += 1;
        let class = self.base_class(h);
        let own = test_bit(self.handle_own, h as usize);
        (h, class, age(self.refs.frame, self.since[h as usize]), own)
    }

    fn begin(&mut self, _h: u32, _class: usize, _age: Option<u32>, _own: bool) -> Result<()> {
        Ok(())
    }

    #[inline]
    fn history_len(&self, h: u32) -> usize {
        let since = self.since[h as usize];
        self.refs.history[..self.refs.len]
            .iter()
            .zip(&self.history_presence)
            .take_while(|&(&t, p)| test_bit(p, h as usize) && age(t, since) as i32 >= 0)
            .count()
    }

    #[inline]
    fn history_rows(&self, h: u32, k: usize) -> [&'s [i32]; MAX_SAMPLES] {
        let at = self.entity(h) * self.stride;
        let mut rows: [&'s [i32]; MAX_SAMPLES] = [&[]; MAX_SAMPLES];
        for (row, frame) in rows.iter_mut().zip(&self.history_rows).take(k) {
            *row = frame.get(at..at + self.stride).unwrap_or(&[]);
        }
        rows
    }

    #[inline]
    fn target_row(&self, h: u32) -> &'s [i32] {
        let at = self.entity(h) * self.stride;
        self.rows.get(at..at + self.stride).unwrap_or(&[])
    }

    fn store(&mut self, _h: u32, _field: usize, _value: i32) {}
}
