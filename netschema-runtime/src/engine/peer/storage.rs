//! A peer's caller-owned storage: the slices and the lengths [`PeerStorage::sizes`] gives.

use super::Peer;
use super::ids::{IdSlot, table_len};
use crate::engine::bitset::words;
use crate::engine::models::{Book, End};
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
    /// The entities the game has marked for this client (visible, own, essential, weighted)
    /// and their handles, by entity id: a table sized by how many it may mark at once.
    pub ids: &'a mut [IdSlot],
    /// Whether each handle was given to an entity marked as the client's own.
    pub handle_own: &'a mut [u64],
    /// Whether each handle's entity is marked essential to the client.
    pub handle_essential: &'a mut [u64],
    /// The game's weight of each handle's entity (see [`Peer::set_priority`]).
    pub weights: &'a mut [u16],
    /// What the client holds, per frame slot, handle and update group: how many frames before
    /// the slot's frame the world held the values the client has.
    pub lags: &'a mut [u8],
    /// What the client holds, per frame slot, handle and field with a tolerance: how far its
    /// value is from the world's at the frame it came from.
    pub diffs: &'a mut [i8],
    /// Estimated cost of each handle's next update, in bits.
    pub cost: &'a mut [u16],
    /// The frame each handle was last sent in (or, until it is, the frame before it was given
    /// its entity).
    pub sent_at: &'a mut [u32],
    /// Scratch room for ordering handles by priority.
    pub order: &'a mut [u64],
    /// Scratch bitsets of the handles selected for, sent in, and at the core of a packet
    /// (three bits per handle).
    pub marks: &'a mut [u64],
    /// Whole model sets (see [`ModelPolicy`](crate::model::ModelPolicy)): the set a packet is
    /// coded in, batched also the model in use and one accumulator per batch in flight; and
    /// one more set for undoing an entity that did not fit.
    pub models: &'a mut [Model],
    /// Per frame, the model sets of the frames that may still become a baseline, stored
    /// without the parts their fields never change (empty batched).
    pub stored: &'a mut [u16],
}

/// Lengths of the slices of a [`PeerStorage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerSizes {
    /// Length of [`PeerStorage::presence`].
    pub presence: usize,
    /// Length of [`PeerStorage::handle_entity`], [`PeerStorage::since`],
    /// [`PeerStorage::weights`], [`PeerStorage::cost`], [`PeerStorage::sent_at`] and
    /// [`PeerStorage::order`].
    pub handles: usize,
    /// Length of [`PeerStorage::ids`].
    pub ids: usize,
    /// Length of [`PeerStorage::handle_own`] and [`PeerStorage::handle_essential`];
    /// [`PeerStorage::marks`] is three times as long.
    pub handle_words: usize,
    /// Length of [`PeerStorage::lags`].
    pub lags: usize,
    /// Length of [`PeerStorage::diffs`].
    pub diffs: usize,
    /// Length of [`PeerStorage::models`].
    pub models: usize,
    /// Length of [`PeerStorage::stored`].
    pub stored: usize,
}

impl PeerSizes {
    /// Bytes of storage these sizes take.
    pub const fn bytes(&self) -> usize {
        self.presence * 8
            + self.handles * (4 + 4 + 2 + 2 + 4 + 8)
            + self.ids * core::mem::size_of::<IdSlot>()
            + self.handle_words * 8 * 5
            + self.lags
            + self.diffs
            + self.models * core::mem::size_of::<Model>()
            + self.stored * 2
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
            lags: SLOTS.saturating_mul(handles).saturating_mul(schema.max_groups),
            diffs: SLOTS.saturating_mul(handles).saturating_mul(schema.max_tolerant),
            models: Book::sets(schema, End::Server).saturating_mul(ModelLayout::new(schema).len),
            stored: Book::stored(schema, End::Server),
        }
    }
}

impl Peer<'_> {
    pub(super) fn fits(store: &PeerStorage<'_>, sizes: &PeerSizes) -> bool {
        store.presence.len() >= sizes.presence
            && store.handle_entity.len() >= sizes.handles
            && store.since.len() >= sizes.handles
            && store.ids.len() >= sizes.ids
            && store.handle_own.len() >= sizes.handle_words
            && store.handle_essential.len() >= sizes.handle_words
            && store.lags.len() >= sizes.lags
            && store.diffs.len() >= sizes.diffs
            && store.weights.len() >= sizes.handles
            && store.cost.len() >= sizes.handles
            && store.sent_at.len() >= sizes.handles
            && store.order.len() >= sizes.handles
            && store.marks.len() >= 3 * sizes.handle_words
            && store.models.len() >= sizes.models
            && store.stored.len() >= sizes.stored
    }

    /// `store` cut to `sizes` (which it fits).
    pub(super) fn trim<'s>(store: PeerStorage<'s>, sizes: &PeerSizes) -> PeerStorage<'s> {
        PeerStorage {
            presence: &mut store.presence[..sizes.presence],
            handle_entity: &mut store.handle_entity[..sizes.handles],
            since: &mut store.since[..sizes.handles],
            ids: &mut store.ids[..sizes.ids],
            handle_own: &mut store.handle_own[..sizes.handle_words],
            handle_essential: &mut store.handle_essential[..sizes.handle_words],
            lags: &mut store.lags[..sizes.lags],
            diffs: &mut store.diffs[..sizes.diffs],
            weights: &mut store.weights[..sizes.handles],
            cost: &mut store.cost[..sizes.handles],
            sent_at: &mut store.sent_at[..sizes.handles],
            order: &mut store.order[..sizes.handles],
            marks: &mut store.marks[..3 * sizes.handle_words],
            models: &mut store.models[..sizes.models],
            stored: &mut store.stored[..sizes.stored],
        }
    }
}
