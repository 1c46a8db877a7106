//! A peer's caller-owned storage: the slices and the lengths [`PeerStorage::sizes`] gives,
//! and the scratch room it codes a packet in, which the peers of one server can share.

use super::Peer;
use super::ids::{IdSlot, table_len};
use crate::engine::bitset::words;
use crate::engine::keys::Shadow;
use crate::engine::models::{Book, End, SCRATCH_SETS};
use crate::engine::records::Outbox;
use crate::engine::slots::SLOTS;
use crate::model::{Model, ModelLayout};
use crate::schema::Schema;

/// Caller-owned storage of a [`Peer`]; [`PeerStorage::sizes`] gives every length.
#[derive(Debug)]
pub struct PeerStorage<'a> {
    /// Handle presence bitsets, one per frame slot.
    pub presence: &'a mut [u64],
    /// Entity id of each handle.
    pub handle_entity: &'a mut [u32],
    /// Frame at which each handle was given its entity.
    pub since: &'a mut [u32],
    /// Frame at which each handle was given the entity it had before (see `engine::young`).
    pub since_before: &'a mut [u32],
    /// The entities the game has marked for this client (visible, own, essential, weighted)
    /// and their handles, by entity id: a table sized by how many it may mark at once.
    pub ids: &'a mut [IdSlot],
    /// Whether each handle was given to an entity marked as the client's own.
    pub handle_own: &'a mut [u64],
    /// Whether each handle's entity is marked essential to the client.
    pub handle_essential: &'a mut [u64],
    /// The game's weight of each handle's entity (see [`Peer::set_priority`]).
    pub weights: &'a mut [u16],
    /// What the client holds, per handle and update group: which of the last 128 frames' packets
    /// sent the group's values, frame `f` at bit `−f mod 128`. With `chains`, they tell how
    /// many frames before each slot's frame the world held the values the client has.
    pub sends: &'a mut [u128],
    /// Per frame slot, the frames of its chain of baselines: bit `i` set when the frame `i`
    /// frames before the slot's is in it (the slot's own, bit 0, always).
    pub chains: &'a mut [u128],
    /// What the client holds, per frame slot, handle and field with a tolerance: how far its
    /// value is from the world's at the frame it came from.
    pub diffs: &'a mut [i8],
    /// What the client holds, per frame slot, handle and link: the handle of the link's target
    /// plus 1, 0 for none.
    pub links: &'a mut [u16],
    /// Handles coded young (see `engine::young`) per frame slot, until an ack resolves them.
    pub young: &'a mut [u64],
    /// Whether each handle's entity came in whole in the packet of the frame its handle was
    /// given: the entry a young entity is coded against.
    pub entries: &'a mut [u64],
    /// Estimated cost of each handle's next update, in bits.
    pub cost: &'a mut [u16],
    /// The frame each handle was last sent in (or, until it is, the frame before it was given
    /// its entity).
    pub sent_at: &'a mut [u32],
    /// Batched (see [`ModelPolicy`](crate::model::ModelPolicy)): whole model sets, the model
    /// in use and one accumulator per batch in flight (empty per frame).
    pub models: &'a mut [Model],
    /// Per frame, the model sets of the frames that may still become a baseline, stored
    /// without the parts their fields never change (empty batched).
    pub stored: &'a mut [u16],
    /// Per handle, the entity and the timeline slots the keyframe records queued to the client
    /// leave it with (see `engine::keys`); empty for a schema without timelines.
    pub keys: &'a mut [i32],
    /// Room used only while a packet is encoded.
    pub scratch: PeerScratch<'a>,
}

/// Room a [`Peer`] uses only while it encodes a packet: nothing in it lasts from one packet
/// to the next. A peer made with [`Peer::new`] holds its room as long as it lives; the owned
/// [`Server`](crate::owned::Server), which takes up each client's peer only to use it, keeps
/// one room per thread that encodes, shared by every client, rather than one per client.
/// [`PeerScratch::sizes`] gives its lengths.
#[derive(Debug)]
pub struct PeerScratch<'a> {
    /// Two whole model sets: the set a packet is coded in, and one for undoing an entity that
    /// did not fit.
    pub models: &'a mut [Model],
    /// Room for ordering handles by priority, one word per handle.
    pub order: &'a mut [u64],
    /// Bitsets of the handles selected for, sent in, and at the core of a packet (three bits
    /// per handle).
    pub marks: &'a mut [u64],
}

/// Lengths of the slices of a [`PeerScratch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScratchSizes {
    /// Length of [`PeerScratch::models`].
    pub models: usize,
    /// Length of [`PeerScratch::order`].
    pub order: usize,
    /// Length of [`PeerScratch::marks`].
    pub marks: usize,
}

impl ScratchSizes {
    /// Bytes of storage these sizes take.
    pub const fn bytes(&self) -> usize {
        self.models * core::mem::size_of::<Model>() + (self.order + self.marks) * 8
    }
}

impl<'a> PeerScratch<'a> {
    /// Slice lengths for encoding the packets of peers of `schema` with up to `handles`
    /// handles.
    pub fn sizes(schema: &Schema, handles: usize) -> ScratchSizes {
        ScratchSizes {
            models: SCRATCH_SETS.saturating_mul(ModelLayout::new(schema).len),
            order: handles,
            marks: words(handles).saturating_mul(3),
        }
    }

    /// Whether this room fits `sizes`.
    pub(super) fn fits(&self, sizes: &ScratchSizes) -> bool {
        self.models.len() >= sizes.models
            && self.order.len() >= sizes.order
            && self.marks.len() >= sizes.marks
    }

    /// The room cut to `sizes`, or empty if it does not fit them (a peer resumed without
    /// room to encode in).
    fn trim(self, sizes: &ScratchSizes) -> PeerScratch<'a> {
        if !self.fits(sizes) {
            return PeerScratch { models: &mut [], order: &mut [], marks: &mut [] };
        }
        PeerScratch {
            models: &mut self.models[..sizes.models],
            order: &mut self.order[..sizes.order],
            marks: &mut self.marks[..sizes.marks],
        }
    }
}

/// Lengths of the slices of a [`PeerStorage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerSizes {
    /// Length of [`PeerStorage::presence`].
    pub presence: usize,
    /// Length of [`PeerStorage::handle_entity`], [`PeerStorage::since`],
    /// [`PeerStorage::since_before`], [`PeerStorage::weights`], [`PeerStorage::cost`] and [`PeerStorage::sent_at`].
    pub handles: usize,
    /// Length of [`PeerStorage::ids`].
    pub ids: usize,
    /// Length of [`PeerStorage::handle_own`], [`PeerStorage::handle_essential`] and
    /// [`PeerStorage::entries`].
    pub handle_words: usize,
    /// Length of [`PeerStorage::young`].
    pub young: usize,
    /// Length of [`PeerStorage::sends`].
    pub sends: usize,
    /// Length of [`PeerStorage::chains`].
    pub chains: usize,
    /// Length of [`PeerStorage::diffs`].
    pub diffs: usize,
    /// Length of [`PeerStorage::links`].
    pub links: usize,
    /// Length of [`PeerStorage::models`].
    pub models: usize,
    /// Length of [`PeerStorage::stored`].
    pub stored: usize,
    /// Length of [`PeerStorage::keys`]: handles × (3 + max fields) with timelines, else 0.
    pub keys: usize,
    /// Bytes of the record stream's outbox, which the peer keeps inline rather than in a
    /// slice (see [`crate::engine::records`]).
    pub records: usize,
    /// Lengths of [`PeerStorage::scratch`].
    pub scratch: ScratchSizes,
}

impl PeerSizes {
    /// Bytes of storage these sizes take, the scratch room aside (see
    /// [`ScratchSizes::bytes`]): what a peer keeps between packets.
    pub const fn bytes(&self) -> usize {
        self.presence * 8
            + self.handles * (4 + 4 + 4 + 2 + 2 + 4)
            + self.ids * core::mem::size_of::<IdSlot>()
            + self.handle_words * 8 * 3
            + self.young * 8
            + (self.sends + self.chains) * 16
            + self.diffs
            + self.links * 2
            + self.models * core::mem::size_of::<Model>()
            + self.stored * 2
            + self.keys * 4
            + self.records
    }
}

impl PeerStorage<'_> {
    /// Slice lengths for a peer of `handles` handles (the most entities the client may see at
    /// once) that the game may mark up to `interest` entities for at once (see
    /// [`Peer::new`]).
    pub fn sizes(schema: &Schema, handles: usize, interest: usize) -> PeerSizes {
        PeerSizes {
            presence: SLOTS.saturating_mul(words(handles)),
            handles,
            ids: table_len(interest),
            handle_words: words(handles),
            young: SLOTS.saturating_mul(words(handles)),
            sends: handles.saturating_mul(schema.max_groups),
            chains: SLOTS,
            diffs: SLOTS.saturating_mul(handles).saturating_mul(schema.max_tolerant),
            links: SLOTS.saturating_mul(handles).saturating_mul(schema.max_links),
            models: Book::sets(schema, End::Server).saturating_mul(ModelLayout::new(schema).len),
            stored: Book::stored(schema, End::Server),
            keys: Shadow::len(schema, handles),
            records: core::mem::size_of::<Outbox>(),
            scratch: PeerScratch::sizes(schema, handles),
        }
    }
}

impl Peer<'_> {
    pub(super) fn fits(store: &PeerStorage<'_>, sizes: &PeerSizes) -> bool {
        store.presence.len() >= sizes.presence
            && store.handle_entity.len() >= sizes.handles
            && store.since.len() >= sizes.handles
            && store.since_before.len() >= sizes.handles
            && store.ids.len() >= sizes.ids
            && store.handle_own.len() >= sizes.handle_words
            && store.handle_essential.len() >= sizes.handle_words
            && store.entries.len() >= sizes.handle_words
            && store.young.len() >= sizes.young
            && store.sends.len() >= sizes.sends
            && store.chains.len() >= sizes.chains
            && store.diffs.len() >= sizes.diffs
            && store.links.len() >= sizes.links
            && store.weights.len() >= sizes.handles
            && store.cost.len() >= sizes.handles
            && store.sent_at.len() >= sizes.handles
            && store.models.len() >= sizes.models
            && store.stored.len() >= sizes.stored
            && store.keys.len() >= sizes.keys
            && store.scratch.fits(&sizes.scratch)
    }

    /// `store` cut to `sizes` (which it fits).
    pub(super) fn trim<'s>(store: PeerStorage<'s>, sizes: &PeerSizes) -> PeerStorage<'s> {
        PeerStorage {
            presence: &mut store.presence[..sizes.presence],
            handle_entity: &mut store.handle_entity[..sizes.handles],
            since: &mut store.since[..sizes.handles],
            since_before: &mut store.since_before[..sizes.handles],
            ids: &mut store.ids[..sizes.ids],
            handle_own: &mut store.handle_own[..sizes.handle_words],
            handle_essential: &mut store.handle_essential[..sizes.handle_words],
            young: &mut store.young[..sizes.young],
            entries: &mut store.entries[..sizes.handle_words],
            sends: &mut store.sends[..sizes.sends],
            chains: &mut store.chains[..sizes.chains],
            diffs: &mut store.diffs[..sizes.diffs],
            links: &mut store.links[..sizes.links],
            weights: &mut store.weights[..sizes.handles],
            cost: &mut store.cost[..sizes.handles],
            sent_at: &mut store.sent_at[..sizes.handles],
            models: &mut store.models[..sizes.models],
            stored: &mut store.stored[..sizes.stored],
            keys: &mut store.keys[..sizes.keys],
            scratch: store.scratch.trim(&sizes.scratch),
        }
    }
}
