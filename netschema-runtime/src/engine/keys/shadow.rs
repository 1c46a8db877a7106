//! The peer's side: per handle, a shadow of the timeline slots it has queued to the client,
//! and the keyframe records that bring the client's up to the world's, the blocks of several
//! entities to a record.

use super::record::{SlotValues, Writer};
use super::{differs, previous_flag, stride, take};
use crate::engine::records::{MAX_RECORD_LEN, Outbox, RECORD_SHARE};
use crate::engine::world::World;
use crate::schema::{Class, Schema};
use crate::{Error, Result};

/// Words before a handle's values in the shadow: the entity's id, its birth frame and class,
/// and whether a record queued named it (1) or not yet (0).
const HEAD: usize = 4;

/// Bytes of a packet's half for records that its header and the record section's own bits
/// may take (a header without baseline, the section's flag and first number, a record's
/// length, age and kind).
const RECORD_ROOM: usize = 24;

/// The most blocks a record holds: each takes at least two bytes (its entity and a slot's
/// code), so every block of a record is recorded, and its slots taken when it is queued.
const BLOCKS: usize = MAX_RECORD_LEN / 2 + 1;

/// The peer's shadow: per handle, the entity it is of and the values of its timeline fields
/// as the client holds them once it has applied every record queued (the other fields
/// unused); and the record being filled.
pub(crate) struct Shadow<'a> {
    keys: &'a mut [i32],
    width: usize,
    record: Writer,
    /// The blocks of the record: handle, entity id, and the flag fields it covers.
    blocks: [(u32, u32, usize, usize); BLOCKS],
    count: usize,
    /// The longest a record may be.
    cap: usize,
}

impl<'a> Shadow<'a> {
    /// Length of the storage of a shadow of `schema` for `handles` handles: none without
    /// timelines.
    pub(crate) fn len(schema: &Schema, handles: usize) -> usize {
        match schema.has_keys() {
            true => handles.saturating_mul(HEAD + schema.max_fields),
            false => 0,
        }
    }

    /// The shadow in `keys` (of [`Shadow::len`]) for `schema`, writing records of at most
    /// `cap` bytes.
    pub(crate) fn new(schema: &Schema, keys: &'a mut [i32], cap: usize) -> Shadow<'a> {
        let (record, blocks) = (Writer::new(cap), [(0, 0, 0, 0); BLOCKS]);
        Shadow { keys, width: HEAD + schema.max_fields, record, blocks, count: 0, cap }
    }

    /// The longest record a packet of `budget` bytes carries: half of it
    /// ([`RECORD_SHARE`]) less room for the header and the record section's own bits.
    pub(crate) fn cap(budget: usize) -> usize {
        (budget / RECORD_SHARE).saturating_sub(RECORD_ROOM).min(MAX_RECORD_LEN)
    }

    /// Whether the schema has timelines.
    pub(crate) fn is_used(&self) -> bool {
        !self.keys.is_empty()
    }

    /// Every handle of no entity.
    pub(crate) fn clear(&mut self) {
        self.keys.chunks_exact_mut(self.width).for_each(|k| k[0] = -1);
    }

    /// Handle `h`'s entity and values.
    fn row(&mut self, h: u32) -> Option<(&mut [i32], &mut [i32])> {
        let row = self.keys.chunks_exact_mut(self.width).nth(h as usize)?;
        Some(row.split_at_mut(HEAD))
    }

    /// Adds to the record what brings the client's slots of handle `h`, naming entity `id` of
    /// `class` (`c`, of a schema of `classes`) born at `birth`, up to the entity's timeline
    /// fields in `world` at `frame` (all its slots that hold keyframes, if the shadow was of
    /// another entity), queuing the record whenever it is full. A keyframe the timeline forgot
    /// (a slot emptied whose keyframe is not after `frame`) alone adds nothing: it goes with
    /// the entity's next edit. Fails with [`Error::RecordQueueFull`] when `outbox` refuses the
    /// record: the slots not queued stay as they were in the shadow, for the next packet.
    pub(crate) fn sync(
        &mut self,
        (outbox, world): (&mut Outbox, &World<'_>),
        (h, id, birth, frame): (u32, u32, u32, u32),
        (class, c, classes): (usize, &Class, usize),
    ) -> Result<()> {
        let now = world.keys(id as usize, c.fields.len());
        let n = c.fields.len().min(now.len());
        let Some((head, held)) = self.row(h) else { return Ok(()) };
        let entity = [id as i32, birth as i32, class as i32];
        if head[..3] != entity {
            head[..3].copy_from_slice(&entity);
            head[3] = 0;
            c.empty_row(held);
        }
        let mut named = head[3] != 0;
        let forgotten = |f: usize| {
            now[f] == 0 && held.get(f + 1).is_some_and(|&t| u32::try_from(t).unwrap_or(0) <= frame)
        };
        let edited = |f: usize| c.is_key_flag(f) && differs(held, now, f, stride(c, f));
        if !(0..n).any(|f| edited(f) && !forgotten(f)) {
            return Ok(());
        }
        self.record.begin((h, birth, named), (class, classes));
        // The first slot of the entity's block in the record.
        let mut lo = 0;
        for f in 0..n {
            let Some((_, held)) = self.row(h) else { return Ok(()) };
            if !c.is_key_flag(f) || !differs(held, now, f, stride(c, f)) {
                continue;
            }
            let before = previous(c, held, now, f, lo);
            match self.record.slot(c, f, now, &before) {
                Ok(()) => {}
                Err(Error::BufferFull) if self.record.follows_others() => {
                    // The entity's slots start a record of their own, so that a client
                    // holds them as the world had them at a frame.
                    self.record.drop_block();
                    self.flush(outbox, world)?;
                    return self.sync((outbox, world), (h, id, birth, frame), (class, c, classes));
                }
                Err(Error::BufferFull) => {
                    // One record cannot hold them all: the rest go in the next.
                    named |= self.close((h, id), lo, f);
                    self.flush(outbox, world)?;
                    self.record.begin((h, birth, named), (class, classes));
                    lo = f;
                    let held = self.row(h).map_or(&[][..], |(_, held)| held);
                    let before = previous(c, held, now, f, lo);
                    self.record.slot(c, f, now, &before)?;
                }
                Err(e) => return Err(e),
            }
        }
        self.close((h, id), lo, n);
        Ok(())
    }

    /// Ends the block being written, of handle `h` naming entity `id`, which covers the flag
    /// fields `lo..hi`; whether it has slots.
    fn close(&mut self, (h, id): (u32, u32), lo: usize, hi: usize) -> bool {
        let some = self.record.end();
        if let Some(b) = self.blocks.get_mut(self.count).filter(|_| some) {
            *b = (h, id, lo, hi);
            self.count += 1;
        }
        some
    }

    /// Queues the record, if it has slots, and makes the shadow take the slots it sends from
    /// `world`. Fails with [`Error::RecordQueueFull`] when `outbox` refuses it.
    pub(crate) fn flush(&mut self, outbox: &mut Outbox, world: &World<'_>) -> Result<()> {
        if self.record.is_empty() {
            return Ok(());
        }
        outbox.push(self.record.bytes(), true)?;
        let schema = world.schema();
        for &(h, id, lo, hi) in &self.blocks[..self.count] {
            let Some(c) = world.class_now(id as usize).and_then(|c| schema.classes.get(c)) else {
                continue;
            };
            let now = world.keys(id as usize, c.fields.len());
            let Some(row) = self.keys.chunks_exact_mut(self.width).nth(h as usize) else {
                continue;
            };
            row[3] = 1;
            let held = &mut row[HEAD..];
            for f in (lo..hi).filter(|&f| c.is_key_flag(f)) {
                take(held, now, f, stride(c, f));
            }
        }
        (self.record, self.count) = (Writer::new(self.cap), 0);
        Ok(())
    }
}

/// The slot before the one whose flag is field `f` of `c`, as the client holds it when it
/// reads that one: as `now` has it if the block, whose first slot is `lo`, sends it before,
/// else as `held` has it; at the same places as the slot's own fields.
fn previous(c: &Class, held: &[i32], now: &[i32], f: usize, lo: usize) -> SlotValues<i32> {
    let pf = previous_flag(c, f);
    let n = stride(c, pf);
    let sent = (lo..f).contains(&pf) && differs(held, now, pf, n) && now.get(pf) != Some(&0);
    let from = if sent { now } else { held };
    let mut out = [0; crate::schema::MAX_SLOT_STRIDE as usize];
    for (i, o) in out.iter_mut().enumerate().take(n) {
        *o = from.get(pf + i).copied().unwrap_or(0);
    }
    out
}
