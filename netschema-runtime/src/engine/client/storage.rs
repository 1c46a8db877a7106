//! A client's caller-owned storage: the slices and the lengths [`ClientStorage::sizes`] gives.

use super::{Client, row};
use crate::engine::bitset::words;
use crate::engine::keys::Store;
use crate::engine::models::{Book, End};
use crate::engine::records::Inbox;
use crate::engine::slots::SLOTS;
use crate::model::{Model, ModelLayout};
use crate::schema::Schema;

/// Caller-owned storage of a [`Client`]; [`ClientStorage::sizes`] gives every length.
#[derive(Debug)]
pub struct ClientStorage<'a> {
    /// Raw values of every handle in every frame slot, packed: each as its distance from its
    /// field's minimum, in the fewest bits that hold the field's span, one after another, and
    /// which class the row holds (if any) in the fewest bits that hold the class count.
    pub rows: &'a mut [u8],
    /// Raw values of every handle, in three tables of [`ClientSizes::view`]: two that take
    /// turns holding the current frame's values ([`Client::frame_view`]) and the values of the
    /// frame being decoded, and one holding the newest values of the handles whose current
    /// frame holds older ones than another frame the client has ([`Client::get`]).
    pub view: &'a mut [i32],
    /// Scratch room: the class of every handle at the baseline, then in the frame being
    /// decoded (`u16::MAX`: none), read from and written to the rows' class marks.
    pub classes: &'a mut [u16],
    /// How many frames before the slot's frame every handle got its entity, in every frame
    /// slot, saturated at 255: which entity each slot holds under the handle.
    pub ages: &'a mut [u8],
    /// Frame at which every handle got the entity it names in the current frame.
    pub born: &'a mut [u32],
    /// Scratch room: the frame at which every handle got the entity it names in the packet
    /// being decoded, if the entity enters there.
    pub entered: &'a mut [u32],
    /// The frame from which every frame held shows every handle's entity with the values it
    /// has in the current frame (as far as the client knows): a history of one row, which
    /// decoding need not read.
    pub steady: &'a mut [u32],
    /// Whether every handle holds an entity, in every frame slot (one bit each): what the
    /// rows' class marks say, kept apart for the packets' many tests.
    pub present: &'a mut [u64],
    /// Whether every handle names one of the client's own entities, in every frame slot (one
    /// bit each).
    pub own: &'a mut [u64],
    /// What the client holds, per handle and update group: which of the last 128 frames'
    /// packets sent the group's values, frame `f` at bit `−f mod 128`. With `chains`, they
    /// tell how many frames before each slot's frame the server sent the values held there.
    pub sends: &'a mut [u128],
    /// Per frame slot, the frames of its chain of baselines: bit `i` set when the frame `i`
    /// frames before the slot's is in it (the slot's own, bit 0, always).
    pub chains: &'a mut [u128],
    /// Scratch room: which update groups of every handle the packet being decoded sent, one
    /// bit each, written into `sends` once the packet is accepted.
    pub sent: &'a mut [u64],
    /// For every handle and link in every frame slot, the handle of the link's target plus 1
    /// (0: none).
    pub links: &'a mut [u16],
    /// Whole model sets (see [`ModelPolicy`](crate::model::ModelPolicy)): the set a packet is
    /// decoded in, batched also the models kept and the accumulator of the batch being
    /// decoded.
    pub models: &'a mut [Model],
    /// Per frame, the model sets of the frames that may still become a baseline, stored
    /// without the parts their fields never change (empty batched).
    pub stored: &'a mut [u16],
    /// Per handle, the entity and the timeline slots the keyframe records applied so far set
    /// (see `engine::keys`); empty for a schema without timelines.
    pub keys: &'a mut [i32],
}

/// Lengths of the slices of a [`ClientStorage`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientSizes {
    /// Length of [`ClientStorage::rows`].
    pub rows: usize,
    /// A third of the length of [`ClientStorage::view`]: every handle's values in one table.
    pub view: usize,
    /// Length of [`ClientStorage::classes`]: every handle twice.
    pub classes: usize,
    /// Length of [`ClientStorage::ages`]: every handle in every frame slot.
    pub handles: usize,
    /// Length of [`ClientStorage::born`], [`ClientStorage::entered`] and
    /// [`ClientStorage::steady`]: the handles.
    pub born: usize,
    /// Length of [`ClientStorage::present`] and [`ClientStorage::own`].
    pub own: usize,
    /// Length of [`ClientStorage::sends`]: every handle's update groups.
    pub sends: usize,
    /// Length of [`ClientStorage::chains`]: the frame slots.
    pub chains: usize,
    /// Length of [`ClientStorage::sent`]: a bit per handle and update group.
    pub sent: usize,
    /// Length of [`ClientStorage::links`].
    pub links: usize,
    /// Length of [`ClientStorage::models`].
    pub models: usize,
    /// Length of [`ClientStorage::stored`].
    pub stored: usize,
    /// Length of [`ClientStorage::keys`]: handles × (2 + max fields) with timelines, else 0.
    pub keys: usize,
    /// Bytes of the record stream's inbox, which the client keeps inline rather than in a
    /// slice (see [`crate::engine::records`]).
    pub records: usize,
}

impl ClientSizes {
    /// Bytes of storage these sizes take.
    pub const fn bytes(&self) -> usize {
        self.rows
            + self.view * 3 * 4
            + self.classes * 2
            + self.handles
            + self.born * 12
            + self.own * 2 * 8
            + (self.sends + self.chains) * 16
            + self.sent * 8
            + self.links * 2
            + self.models * core::mem::size_of::<Model>()
            + self.stored * 2
            + self.keys * 4
            + self.records
    }
}

impl ClientStorage<'_> {
    /// Slice lengths for a client that sees up to `handles` entities at once.
    pub fn sizes(schema: &Schema, handles: usize) -> ClientSizes {
        ClientSizes {
            rows: SLOTS.saturating_mul(handles).saturating_mul(row::stride(schema)),
            view: handles.saturating_mul(schema.max_fields),
            classes: handles.saturating_mul(2),
            handles: SLOTS.saturating_mul(handles),
            born: handles,
            own: words(SLOTS.saturating_mul(handles)),
            sends: handles.saturating_mul(schema.max_groups),
            chains: SLOTS,
            sent: words(handles.saturating_mul(schema.max_groups)),
            links: SLOTS.saturating_mul(handles).saturating_mul(schema.max_links),
            models: Book::sets(schema, End::Client).saturating_mul(ModelLayout::new(schema).len),
            stored: Book::stored(schema, End::Client),
            keys: Store::len(schema, handles),
            records: core::mem::size_of::<Inbox>(),
        }
    }
}

impl Client<'_> {
    /// `store` cut to `sizes` (which it fits).
    pub(super) fn trim<'s>(store: ClientStorage<'s>, sizes: &ClientSizes) -> ClientStorage<'s> {
        ClientStorage {
            rows: &mut store.rows[..sizes.rows],
            view: &mut store.view[..3 * sizes.view],
            classes: &mut store.classes[..sizes.classes],
            ages: &mut store.ages[..sizes.handles],
            born: &mut store.born[..sizes.born],
            entered: &mut store.entered[..sizes.born],
            steady: &mut store.steady[..sizes.born],
            present: &mut store.present[..sizes.own],
            own: &mut store.own[..sizes.own],
            sends: &mut store.sends[..sizes.sends],
            chains: &mut store.chains[..sizes.chains],
            sent: &mut store.sent[..sizes.sent],
            links: &mut store.links[..sizes.links],
            models: &mut store.models[..sizes.models],
            stored: &mut store.stored[..sizes.stored],
            keys: &mut store.keys[..sizes.keys],
        }
    }
}
