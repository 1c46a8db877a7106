//! The server's side of text fields: the texts of the world's entities, each with the stamp of
//! its last change, and per connection what it sent of them, per handle.

use std::vec;
use std::vec::Vec;

use super::slots::TextSlots;
use super::{TextRecord, write};
use crate::Peer;
use crate::engine::records::MAX_RECORD_LEN;
use crate::error::Result;
use crate::schema::{Class, Schema};

/// The texts of the world's entities, by slot.
#[derive(Debug, Default)]
pub(crate) struct EntityTexts {
    slots: TextSlots,
    /// Per slot and text field, the [`EntityTexts::clock`] at its last change.
    stamps: Vec<u64>,
    /// Per slot, its class's text fields (0 for a free slot).
    counts: Vec<u8>,
    /// Text fields per slot in `stamps`.
    per_row: usize,
    /// Counts the changes.
    clock: u64,
}

impl EntityTexts {
    /// Room for the texts of `entities` entities of `schema`.
    pub(crate) fn new(schema: &Schema, entities: usize) -> EntityTexts {
        let per_row = schema.classes.iter().map(|c| c.texts.len()).max().unwrap_or(0);
        let rows = if per_row == 0 { 0 } else { entities };
        EntityTexts {
            slots: TextSlots::new(schema, rows),
            stamps: vec![0; rows * per_row],
            counts: vec![0; rows],
            per_row,
            clock: 0,
        }
    }

    /// Sets the texts of the entity at `slot`, of `class` (`text` gives each field's bytes,
    /// checked against its field first: nothing changes if one is refused); `fresh` for an
    /// entity new to the slot, whose texts start empty.
    pub(crate) fn set<'v>(
        &mut self,
        slot: usize,
        class: &Class,
        fresh: bool,
        text: impl Fn(usize) -> &'v [u8],
    ) -> Result<()> {
        for (t, field) in class.texts.iter().enumerate() {
            field.check(text(t))?;
        }
        let Some(count) = self.counts.get_mut(slot) else { return Ok(()) };
        if fresh || usize::from(*count) != class.texts.len() {
            self.slots.clear(slot);
        }
        *count = class.texts.len() as u8;
        for t in 0..class.texts.len() {
            if self.slots.set(slot, t, text(t)) {
                self.clock += 1;
                self.stamps[slot * self.per_row + t] = self.clock;
            }
        }
        Ok(())
    }

    /// Forgets the texts of the entity at `slot`, removed.
    pub(crate) fn remove(&mut self, slot: usize) {
        if let Some(count) = self.counts.get_mut(slot) {
            *count = 0;
            self.slots.clear(slot);
        }
    }
}

/// What one connection sent of the entities' texts: per handle, the entity's slot and birth
/// and the [`EntityTexts::clock`] when its texts were last all queued.
#[derive(Debug)]
pub(crate) struct SentTexts {
    synced: Vec<Option<(usize, u32, u64)>>,
}

impl SentTexts {
    /// For a connection of `handles` handles to a server of `schema` (nothing to keep if it
    /// has no text fields).
    pub(crate) fn new(schema: &Schema, handles: usize) -> SentTexts {
        let rows = if super::has_texts(schema) { handles } else { 0 };
        SentTexts { synced: vec![None; rows] }
    }

    /// Queues on `peer` the text records its client lacks: every non-empty text of an entity
    /// whose handle it got since the last call (or that has another birth), and every text
    /// that changed since for the others. Returns how many it queued. A record the queue
    /// refuses waits, with the rest of its entity's texts, for the next call.
    pub(crate) fn sync(
        &mut self,
        peer: &mut Peer<'_>,
        texts: &EntityTexts,
        schema: &Schema,
    ) -> usize {
        let mut queued = 0;
        for (h, synced) in self.synced.iter_mut().enumerate() {
            let Some((slot, birth)) = peer.handle_entity(h as u32) else {
                *synced = None;
                continue;
            };
            let since = match *synced {
                Some((s, b, stamp)) if (s, b) == (slot, birth) => Some(stamp),
                _ => None,
            };
            if since == Some(texts.clock) {
                continue;
            }
            match send(peer, texts, schema, (h as u32, slot, birth), since) {
                Ok(n) => {
                    queued += n;
                    *synced = Some((slot, birth, texts.clock));
                }
                Err(n) => return queued + n,
            }
        }
        queued
    }
}

/// Queues the texts of the entity at `slot`, under handle `h` born at `birth`, that changed
/// after `since` (all that are not empty for `None`): how many, or how many before the queue
/// refused one.
fn send(
    peer: &mut Peer<'_>,
    texts: &EntityTexts,
    schema: &Schema,
    (handle, slot, birth): (u32, usize, u32),
    since: Option<u64>,
) -> core::result::Result<usize, usize> {
    let count = texts.counts.get(slot).map_or(0, |&c| usize::from(c));
    let mut queued = 0;
    for t in 0..count {
        let (bytes, stamp) = (texts.slots.get(slot, t), texts.stamps[slot * texts.per_row + t]);
        let due = since.map_or(!bytes.is_empty(), |since| stamp > since);
        if !due {
            continue;
        }
        let mut buf = [0u8; MAX_RECORD_LEN];
        let record = TextRecord { handle, birth, text: t, bytes };
        let sent = write(schema, &record, &mut buf).and_then(|n| peer.queue_record(&buf[..n]));
        if sent.is_err() {
            return Err(queued);
        }
        queued += 1;
    }
    Ok(queued)
}
