//! A peer's caller-owned storage: the slices and the lengths [`PeerStorage::sizes`] gives.

use super::Peer;
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
    /// [`PeerStorage::cost`], [`PeerStorage::sent_at`] and [`PeerStorage::order`].
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
    /// Length of [`PeerStorage::stored`].
    pub stored: usize,
}

impl PeerSizes {
    /// Bytes of storage these sizes take.
    pub const fn bytes(&self) -> usize {
        self.presence * 8
            + self.handles * (4 + 4 + 2 + 4 + 8)
            + self.entities * (4 + 2)
            + self.visible * 24
            + self.handle_words * 8 * 4
            + self.lags
            + self.diffs
            + self.models * core::mem::size_of::<Model>()
            + self.stored * 2
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
            stored: Book::stored(schema, End::Server),
        }
    }
}

impl Peer<'_> {
    pub(super) fn fits(store: &PeerStorage<'_>, sizes: &PeerSizes) -> bool {
        store.presence.len() >= sizes.presence
            && store.handle_entity.len() >= sizes.handles
            && store.since.len() >= sizes.handles
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
            && store.stored.len() >= sizes.stored
    }

    /// `store` cut to `sizes` (which it fits).
    pub(super) fn trim<'s>(store: PeerStorage<'s>, sizes: &PeerSizes) -> PeerStorage<'s> {
        PeerStorage {
            presence: &mut store.presence[..sizes.presence],
            handle_entity: &mut store.handle_entity[..sizes.handles],
            since: &mut store.since[..sizes.handles],
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
            stored: &mut store.stored[..sizes.stored],
        }
    }
}
