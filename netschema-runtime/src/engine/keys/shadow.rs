//! The peer's side: per handle, a shadow of the timeline slots it has queued to the client,
//! and the keyframe records that bring the client's up to the world's.

use super::record::Writer;
use super::{differs, previous_flag, stride, take};
use crate::engine::records::Outbox;
use crate::schema::{Class, Schema};
use crate::{Error, Result};

/// Words before a handle's values in the shadow: the entity's id, its birth frame and class.
const HEAD: usize = 3;

/// The peer's shadow: per handle, the entity it is of and the values of its timeline fields
/// as the client holds them once it has applied every record queued (the other fields unused).
pub(crate) struct Shadow<'a> {
    keys: &'a mut [i32],
    width: usize,
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

    /// The shadow in `keys` (of [`Shadow::len`]) for `schema`.
    pub(crate) fn new(schema: &Schema, keys: &'a mut [i32]) -> Shadow<'a> {
        Shadow { keys, width: HEAD + schema.max_fields }
    }

    /// Whether the schema has timelines.
    pub(crate) fn is_used(&self) -> bool {
        !self.keys.is_empty()
    }

    /// Every handle of no entity.
    pub(crate) fn clear(&mut self) {
        self.keys.chunks_exact_mut(self.width).for_each(|k| k[0] = -1);
    }

    /// Queues the keyframe records that bring what the client holds of handle `h`, naming
    /// entity `id` of `class` (`c`) born at `birth`, up to `now`, the entity's timeline
    /// fields in the world (all its slots that hold keyframes, if the shadow was of another
    /// entity). Fails with [`Error::RecordQueueFull`] when `outbox` refuses a record: the
    /// slots not queued stay as they were in the shadow, for the next packet.
    pub(crate) fn sync(
        &mut self,
        outbox: &mut Outbox,
        (h, id, birth): (u32, u32, u32),
        (class, c): (usize, &Class),
        now: &[i32],
    ) -> Result<()> {
        let Some(row) = self.keys.chunks_exact_mut(self.width).nth(h as usize) else {
            return Ok(());
        };
        let (head, held) = row.split_at_mut(HEAD);
        let named = [id as i32, birth as i32, class as i32];
        if head != named {
            head.copy_from_slice(&named);
            c.empty_row(held);
        }
        let n = c.fields.len().min(now.len());
        let mut record = Writer::new(h, birth, class);
        // The first slot the record being written covers.
        let mut lo = 0;
        for f in 0..n {
            if !c.is_key_flag(f) || !differs(held, now, f, stride(c, f)) {
                continue;
            }
            // The client holds the slot before as this record leaves it.
            let value = |i: usize| {
                let pf = previous_flag(c, f);
                let sent = (lo..f).contains(&pf)
                    && differs(held, now, pf, stride(c, pf))
                    && now.get(pf) != Some(&0);
                if sent { now.get(i) } else { held.get(i) }.copied().unwrap_or(0)
            };
            if let Err(Error::BufferFull) = record.slot(c, f, now, value) {
                flush(outbox, &record, held, now, (c, lo..f))?;
                (record, lo) = (Writer::new(h, birth, class), f);
                let value = |i: usize| held.get(i).copied().unwrap_or(0);
                record.slot(c, f, now, value)?;
            }
        }
        if !record.is_empty() {
            flush(outbox, &record, held, now, (c, lo..n))?;
        }
        Ok(())
    }
}

/// Queues `record`, which covers the slots of `c` whose flags are in `range`, and makes the
/// shadow `held` take them from `now`.
fn flush(
    outbox: &mut Outbox,
    record: &Writer,
    held: &mut [i32],
    now: &[i32],
    (c, range): (&Class, core::ops::Range<usize>),
) -> Result<()> {
    outbox.push(record.bytes(), true)?;
    for f in range.filter(|&f| c.is_key_flag(f)) {
        take(held, now, f, stride(c, f));
    }
    Ok(())
}
