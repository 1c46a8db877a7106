//! What each end keeps of the input datagrams of the last [`PACKETS`]: the datagram's check
//! value, the newest inputs it leaves the stream with, and the models it ended with (stored
//! without the parts its fields never change, [`crate::model::stored`]). A datagram is coded
//! from the models and inputs kept with its base, a datagram the receiver acknowledged.

use crate::engine::frame::NO_FRAME;
use crate::engine::input::PACKETS;
use crate::engine::input::body::BASE_BITS;
use crate::engine::input::recent::Recent;
use crate::model::{Model, ModelLayout, stored};
use crate::schema::Schema;
use crate::{Error, Result};

/// The storage of one end of an input stream, the caller's: the model set a datagram is
/// coded in and the stored sets of the last [`PACKETS`] datagrams.
#[derive(Debug)]
pub struct InputStorage<'a> {
    /// The set a datagram is coded in: [`InputStorage::sizes`]`.0` models.
    pub models: &'a mut [Model],
    /// The stored sets: [`InputStorage::sizes`]`.1` words.
    pub stored: &'a mut [u16],
}

impl InputStorage<'_> {
    /// The models and stored words an end of an input stream of `schema` needs.
    pub fn sizes(schema: &Schema) -> (usize, usize) {
        (ModelLayout::new(schema).len, PACKETS * stored::words(schema))
    }

    /// Whether the storage holds what [`InputStorage::sizes`] asks for; else
    /// [`Error::StorageTooSmall`].
    pub(crate) fn check(&self, schema: &Schema) -> Result<()> {
        let (models, words) = Self::sizes(schema);
        if self.models.len() < models || self.stored.len() < words {
            return Err(Error::StorageTooSmall);
        }
        Ok(())
    }
}

/// What an end keeps of one datagram.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    /// The datagram's sequence number ([`NO_FRAME`]: none).
    pub seq: u32,
    /// Its check value.
    pub check: u32,
    /// The newest inputs of the stream after it.
    pub recent: Recent,
}

/// The slots of the last [`PACKETS`] datagrams, by sequence number modulo [`PACKETS`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slots {
    slots: [Slot; PACKETS],
    /// Words of one stored set.
    words: usize,
}

impl Slots {
    /// Empty slots for `schema`.
    pub(crate) fn new(schema: &Schema) -> Slots {
        let empty = Slot { seq: NO_FRAME, check: 0, recent: Recent::EMPTY };
        Slots { slots: [empty; PACKETS], words: stored::words(schema) }
    }

    /// The slot of datagram `seq`, if it holds it.
    pub(crate) fn get(&self, seq: u32) -> Option<&Slot> {
        let slot = &self.slots[seq as usize % PACKETS];
        (slot.seq == seq && seq != NO_FRAME).then_some(slot)
    }

    /// The slot whose datagram's sequence number ends in the low [`BASE_BITS`] bits `low`,
    /// if any.
    pub(crate) fn by_low_bits(&self, low: u32) -> Option<&Slot> {
        let slot = &self.slots[low as usize % PACKETS];
        (slot.seq != NO_FRAME && slot.seq & ((1 << BASE_BITS) - 1) == low).then_some(slot)
    }

    /// Fills `storage.models` with the models kept with datagram `base` (cold ones without a
    /// base) and returns the inputs kept with it; a base not held is
    /// [`Error::UnknownBaseline`].
    pub(crate) fn start(
        &self,
        schema: &Schema,
        storage: &mut InputStorage<'_>,
        base: Option<u32>,
    ) -> Result<Recent> {
        let set = storage.models.get_mut(..ModelLayout::new(schema).len).unwrap_or(&mut []);
        let Some(base) = base else {
            ModelLayout::reset(schema, set);
            return Ok(Recent::EMPTY);
        };
        let slot = self.get(base).ok_or(Error::UnknownBaseline)?;
        let at = base as usize % PACKETS * self.words;
        stored::load(schema, storage.stored.get(at..at + self.words).unwrap_or(&[]), set);
        Ok(slot.recent)
    }

    /// Keeps datagram `seq`, its check value, the inputs it left and the models it ended
    /// with (`storage.models`), unless its slot holds a newer datagram.
    pub(crate) fn commit(
        &mut self,
        schema: &Schema,
        storage: &mut InputStorage<'_>,
        seq: u32,
        check: u32,
        recent: Recent,
    ) {
        let i = seq as usize % PACKETS;
        let held = self.slots[i].seq;
        if held != NO_FRAME && held.wrapping_sub(seq) as i32 >= 0 {
            return;
        }
        self.slots[i] = Slot { seq, check, recent };
        let at = i * self.words;
        if let Some(out) = storage.stored.get_mut(at..at + self.words) {
            stored::store(schema, storage.models, out);
        }
    }
}
