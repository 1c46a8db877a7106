//! The peer's outbox: records queued for one client or not yet acknowledged, in a fixed
//! ring of entries and a ring of their bytes.

use super::{MAX_RECORD_LEN, RECORD_BYTES, RECORD_LIMIT, RecordStats};
use crate::engine::frame::NO_FRAME;
use crate::{Error, Result};

/// One record of the outbox.
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    /// The frame it belongs to: that of the first packet that carried it ([`NO_FRAME`] until
    /// one did).
    pub(super) frame: u32,
    /// The frame of the last packet that carried it; [`NO_FRAME`] while it is due: queued and
    /// never sent, or its packet known lost.
    pub(super) carried: u32,
    /// Where its bytes start in the byte ring.
    pub(super) start: u16,
    /// Its length in bytes.
    pub(super) len: u16,
    /// Whether an ack showed the client received it.
    pub(super) delivered: bool,
    /// Whether the engine queued it (a keyframe record) rather than the game.
    pub(super) engine: bool,
}

const EMPTY: Entry =
    Entry { frame: NO_FRAME, carried: NO_FRAME, start: 0, len: 0, delivered: false, engine: false };

/// Records queued for one client or not yet acknowledged, oldest first: a record leaves once
/// it and every record before it are delivered.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Outbox {
    /// The number of the oldest record kept.
    first: u32,
    /// The ring position of the oldest record kept.
    head: usize,
    /// Records kept.
    count: usize,
    /// The ring position of the oldest record's first byte.
    byte_head: usize,
    /// Bytes kept.
    byte_len: usize,
    entries: [Entry; RECORD_LIMIT],
    bytes: [u8; RECORD_BYTES],
    pub(super) stats: RecordStats,
}

impl Outbox {
    /// An empty outbox whose first record will be number 0.
    pub(crate) const fn new() -> Outbox {
        Outbox {
            first: 0,
            head: 0,
            count: 0,
            byte_head: 0,
            byte_len: 0,
            entries: [EMPTY; RECORD_LIMIT],
            bytes: [0; RECORD_BYTES],
            stats: RecordStats { queued: 0, sent: 0, resent: 0, bytes: 0, delivered: 0 },
        }
    }

    /// Queues `bytes` as the next record (the engine's own if `engine`, else the game's) and
    /// returns its number; refuses a record longer than [`MAX_RECORD_LEN`], or one that would
    /// keep more than [`RECORD_LIMIT`] records or [`RECORD_BYTES`] bytes, changing nothing.
    pub(crate) fn push(&mut self, bytes: &[u8], engine: bool) -> Result<u32> {
        if bytes.len() > MAX_RECORD_LEN {
            return Err(Error::RecordTooLong { len: bytes.len(), max: MAX_RECORD_LEN });
        }
        if self.count == RECORD_LIMIT || self.byte_len + bytes.len() > RECORD_BYTES {
            return Err(Error::RecordQueueFull { records: self.count, bytes: self.byte_len });
        }
        let start = (self.byte_head + self.byte_len) % RECORD_BYTES;
        for (k, &b) in bytes.iter().enumerate() {
            self.bytes[(start + k) % RECORD_BYTES] = b;
        }
        self.entries[(self.head + self.count) % RECORD_LIMIT] =
            Entry { start: start as u16, len: bytes.len() as u16, engine, ..EMPTY };
        self.byte_len += bytes.len();
        self.count += 1;
        self.stats.queued += 1;
        Ok(self.first.wrapping_add(self.count as u32 - 1))
    }

    /// Records kept: queued or not yet acknowledged.
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// Bytes of the records kept.
    pub(crate) fn bytes(&self) -> usize {
        self.byte_len
    }

    /// The number of the record `i` places after the oldest kept.
    pub(super) fn number(&self, i: usize) -> u32 {
        self.first.wrapping_add(i as u32)
    }

    /// The record `i` places after the oldest kept (`i` below [`Outbox::len`]).
    pub(super) fn entry(&self, i: usize) -> &Entry {
        &self.entries[(self.head + i) % RECORD_LIMIT]
    }

    /// The record `i` places after the oldest kept, to change.
    pub(super) fn entry_mut(&mut self, i: usize) -> &mut Entry {
        &mut self.entries[(self.head + i) % RECORD_LIMIT]
    }

    /// Byte `k` of `entry`.
    pub(super) fn byte(&self, entry: &Entry, k: usize) -> u8 {
        self.bytes[(usize::from(entry.start) + k) % RECORD_BYTES]
    }

    /// The places after the oldest kept of the records due, in order: never sent, or their
    /// packet known lost.
    pub(super) fn due(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.count).filter(|&i| {
            let e = self.entry(i);
            !e.delivered && e.carried == NO_FRAME
        })
    }

    /// Records that the packet for `frame` carried the records at the places in `mask` (bit
    /// `i`: `i` places after the oldest kept).
    pub(crate) fn carried(&mut self, mask: u64, frame: u32) {
        for i in (0..self.count.min(64)).filter(|i| mask >> i & 1 != 0) {
            let e = self.entry_mut(i);
            let again = e.frame != NO_FRAME;
            if !again {
                e.frame = frame;
            }
            e.carried = frame;
            let len = u64::from(e.len);
            self.stats.sent += 1;
            self.stats.resent += u64::from(again);
            self.stats.bytes += len;
        }
    }

    /// Lets go of the oldest records while they are delivered.
    pub(super) fn pop_delivered(&mut self) {
        while self.count > 0 && self.entry(0).delivered {
            let len = usize::from(self.entry(0).len);
            self.byte_head = (self.byte_head + len) % RECORD_BYTES;
            self.byte_len -= len;
            self.head = (self.head + 1) % RECORD_LIMIT;
            self.first = self.first.wrapping_add(1);
            self.count -= 1;
        }
    }

    /// Counters.
    pub(crate) fn stats(&self) -> RecordStats {
        self.stats
    }
}

const _: () = assert!(RECORD_LIMIT <= 64, "a packet's records are a mask of 64 bits");
const _: () = assert!(RECORD_BYTES <= u16::MAX as usize + 1 && MAX_RECORD_LEN <= RECORD_BYTES);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_queue_refuses_and_changes_nothing() {
        let mut out = Outbox::new();
        // 8 records of 255 bytes leave 8 of the 2048.
        for n in 0..8u32 {
            assert_eq!(out.push(&[n as u8; 255], n % 2 == 0), Ok(n));
        }
        assert_eq!(
            out.push(&[0; 9], false),
            Err(Error::RecordQueueFull { records: 8, bytes: 2040 })
        );
        assert_eq!(out.push(&[0; 256], false), Err(Error::RecordTooLong { len: 256, max: 255 }));
        assert_eq!(out.push(&[7; 8], true), Ok(8));
        let mut short = Outbox::new();
        for n in 0..RECORD_LIMIT as u32 {
            assert_eq!(short.push(&[], false), Ok(n));
        }
        assert_eq!(short.push(&[], false), Err(Error::RecordQueueFull { records: 64, bytes: 0 }));
    }

    #[test]
    fn bytes_wrap_round_the_ring() {
        let mut out = Outbox::new();
        for round in 0..20u8 {
            let n = out.push(&[round; 200], false).unwrap();
            out.carried(1 << (out.len() - 1), u32::from(round));
            let i = n.wrapping_sub(out.number(0)) as usize;
            let e = *out.entry(i);
            assert!((0..200).all(|k| out.byte(&e, k) == round));
            out.entry_mut(i).delivered = true;
            out.pop_delivered();
            assert_eq!((out.len(), out.bytes()), (0, 0));
        }
    }
}
