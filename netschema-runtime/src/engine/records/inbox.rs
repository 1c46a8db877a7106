//! The client's inbox: the records of the packet being decoded, staged until it is accepted;
//! those that arrived after a lost one, waiting; and those the last accepted packet applied.

use super::{MAX_RECORD_LEN, RECORD_BYTES, RECORD_LIMIT, Record};
use crate::{Error, Result};

/// Records the inbox holds at once: those the last packet applied and those waiting (at most
/// [`RECORD_LIMIT`]: every one is in the server's outbox when a packet is sent), and those
/// staged (as many again).
const HELD: usize = 2 * RECORD_LIMIT;
/// Bytes of the records the inbox holds at once (see [`HELD`]).
const HELD_BYTES: usize = 2 * RECORD_BYTES;

/// A record the inbox holds: its frame, and in one word the low 8 bits of its number, where
/// its bytes start in the inbox's bytes (13 bits), its length (8 bits) and whether it is a
/// keyframe record of the engine's (a bit).
#[derive(Clone, Copy, Debug)]
struct Held {
    frame: u32,
    packed: u32,
}

const START_SHIFT: u32 = 8;
const LEN_SHIFT: u32 = 21;
const ENGINE_SHIFT: u32 = 29;
const START_MASK: u32 = (1 << (LEN_SHIFT - START_SHIFT)) - 1;
const _: () = assert!(HELD_BYTES <= START_MASK as usize && MAX_RECORD_LEN <= 0xFF);
// The records held are at most `HELD` before the next to apply and fewer than `RECORD_LIMIT`
// after it, so the low 8 bits of a number, read as a signed step from the next, tell it.
const _: () = assert!(HELD <= 128 && RECORD_LIMIT <= 128);

impl Held {
    fn new(number: u32, frame: u32, start: usize, len: usize, engine: bool) -> Held {
        let packed = (number & 0xFF)
            | (start as u32 & START_MASK) << START_SHIFT
            | (len as u32 & 0xFF) << LEN_SHIFT
            | u32::from(engine) << ENGINE_SHIFT;
        Held { frame, packed }
    }

    /// Its number, given `next`, the number of the next record to apply.
    fn number(&self, next: u32) -> u32 {
        let step = (self.packed as u8).wrapping_sub(next as u8) as i8;
        next.wrapping_add(i32::from(step) as u32)
    }

    fn start(&self) -> usize {
        (self.packed >> START_SHIFT & START_MASK) as usize
    }

    fn set_start(&mut self, start: usize) {
        let packed = self.packed & !(START_MASK << START_SHIFT);
        self.packed = packed | (start as u32 & START_MASK) << START_SHIFT;
    }

    fn len(&self) -> usize {
        (self.packed >> LEN_SHIFT & 0xFF) as usize
    }

    fn engine(&self) -> bool {
        self.packed >> ENGINE_SHIFT & 1 != 0
    }
}

const EMPTY: Held = Held { frame: 0, packed: 0 };

/// What a client keeps of the record stream: the next number to apply, and the records it
/// holds in `held`: the `applied` ones the last accepted packet applied, in order; then the
/// `waiting` ones, which came after a record still missing, by number; then the `staged` ones
/// of the packet being decoded. The bytes of the applied and waiting ones are packed from the
/// start of `bytes`, `used` in all; those staged follow.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Inbox {
    next: u32,
    held: [Held; HELD],
    applied: usize,
    waiting: usize,
    staged: usize,
    bytes: [u8; HELD_BYTES],
    used: usize,
    /// The end of the staged bytes.
    staged_end: usize,
    /// Whether the record being staged is kept (else it is one the client has, whose bytes
    /// are read past).
    keeping: bool,
}

impl Inbox {
    /// An empty inbox that expects record 0 first.
    pub(crate) const fn new() -> Inbox {
        Inbox {
            next: 0,
            held: [EMPTY; HELD],
            applied: 0,
            waiting: 0,
            staged: 0,
            bytes: [0; HELD_BYTES],
            used: 0,
            staged_end: 0,
            keeping: false,
        }
    }

    /// The number of the next record to apply.
    pub(crate) fn next(&self) -> u32 {
        self.next
    }

    /// Forgets what a packet not accepted staged.
    pub(crate) fn begin_staging(&mut self) {
        (self.staged, self.staged_end, self.keeping) = (0, self.used, false);
    }

    /// Whether record `number` is applied or held.
    fn has(&self, number: u32) -> bool {
        let live = self.applied + self.waiting;
        (number.wrapping_sub(self.next) as i32) < 0
            || self.held[self.applied..live + self.staged]
                .iter()
                .any(|h| h.number(self.next) == number)
    }

    /// Stages record `number` of `len` bytes, belonging to `frame`, a keyframe record of the
    /// engine's if `engine`: its bytes follow ([`Inbox::put`]). A record held already is read
    /// past. One at or past [`RECORD_LIMIT`] after the next to apply, or past the room, is
    /// [`Error::Corrupt`]: no honest server sends it.
    pub(crate) fn stage(
        &mut self,
        number: u32,
        frame: u32,
        len: usize,
        engine: bool,
    ) -> Result<()> {
        self.keeping = false;
        if self.has(number) {
            return Ok(());
        }
        let at = self.applied + self.waiting + self.staged;
        if number.wrapping_sub(self.next) >= RECORD_LIMIT as u32
            || at >= HELD
            || self.staged_end + len > HELD_BYTES
        {
            return Err(Error::Corrupt);
        }
        self.held[at] = Held::new(number, frame, self.staged_end, len, engine);
        self.staged += 1;
        self.keeping = true;
        Ok(())
    }

    /// The next byte of the record staged last.
    pub(crate) fn put(&mut self, b: u8) {
        if let (true, Some(slot)) = (self.keeping, self.bytes.get_mut(self.staged_end)) {
            *slot = b;
            self.staged_end += 1;
        }
    }

    /// The bytes of the record staged last, if it is a keyframe record kept (not one read
    /// past).
    pub(crate) fn staged_keys(&self) -> Option<&[u8]> {
        let at = (self.applied + self.waiting + self.staged).checked_sub(1)?;
        let h = self.held.get(at).filter(|h| self.keeping && h.engine())?;
        self.bytes.get(h.start()..h.start() + h.len())
    }

    /// The packet whose records were staged is accepted: the records the previous packet
    /// applied go, the staged ones join the waiting ones, and those that follow the last
    /// applied without a gap are applied, in order.
    pub(crate) fn commit(&mut self) {
        let (old, live) = (self.applied, self.applied + self.waiting + self.staged);
        self.held.copy_within(old..live, 0);
        let n = live - old;
        let next = self.next;
        self.sort(0, n);
        let applied = self.held[..n]
            .iter()
            .enumerate()
            .take_while(|(i, h)| h.number(next) == next.wrapping_add(*i as u32))
            .count();
        self.next = next.wrapping_add(applied as u32);
        (self.applied, self.waiting, self.staged) = (applied, n - applied, 0);
        self.pack();
        self.begin_staging();
    }

    /// The packet whose records were staged is genuine but refused as stale (it came after a
    /// newer one): its records join the waiting ones, to be applied with the next packet
    /// accepted, and what the last accepted packet applied stays as it is.
    pub(crate) fn keep_staged(&mut self) {
        let n = self.waiting + self.staged;
        self.sort(self.applied, n);
        (self.waiting, self.staged, self.used) = (n, 0, self.staged_end);
        self.begin_staging();
    }

    /// Sorts the `n` records held from `from` by number, from the next to apply on (an
    /// insertion sort: they are two runs in order, the waiting ones and the staged ones).
    fn sort(&mut self, from: usize, n: usize) {
        let next = self.next;
        let key = |h: &Held| h.number(next).wrapping_sub(next);
        let held = &mut self.held[from..from + n];
        for i in 1..n {
            let mut j = i;
            while j > 0 && key(&held[j - 1]) > key(&held[j]) {
                held.swap(j - 1, j);
                j -= 1;
            }
        }
    }

    /// Packs the bytes of the applied and waiting records at the start of `bytes`, in the
    /// order they lie there (each moves down, never over bytes still to move).
    fn pack(&mut self) {
        let live = self.applied + self.waiting;
        let mut moved: u128 = 0;
        let mut cursor = 0;
        for _ in 0..live {
            let Some(i) = (0..live)
                .filter(|&i| moved >> i & 1 == 0)
                .min_by_key(|&i| (self.held[i].start(), i))
            else {
                break;
            };
            moved |= 1 << i;
            let h = &mut self.held[i];
            let (start, len) = (h.start(), h.len());
            self.bytes.copy_within(start..start + len, cursor);
            h.set_start(cursor);
            cursor += len;
        }
        self.used = cursor;
    }

    /// The game's records the last accepted packet applied, in order.
    pub(crate) fn applied(&self) -> Records<'_> {
        Records { inbox: self, at: 0, end: self.applied, engine: false }
    }

    /// The engine's keyframe records the last accepted packet applied, in order.
    pub(crate) fn applied_keys(&self) -> Records<'_> {
        Records { inbox: self, at: 0, end: self.applied, engine: true }
    }

    /// The game's records received that wait for an earlier one, by number.
    pub(crate) fn waiting(&self) -> Records<'_> {
        Records { inbox: self, at: self.applied, end: self.applied + self.waiting, engine: false }
    }
}

/// Records a client holds, by number, of one kind (the game's, or the engine's keyframe
/// records): those the last packet it accepted applied
/// ([`Client::records`](crate::Client::records)) or those waiting for an earlier one
/// ([`Client::waiting_records`](crate::Client::waiting_records)).
#[derive(Clone, Debug)]
pub struct Records<'c> {
    inbox: &'c Inbox,
    at: usize,
    end: usize,
    /// Whether it yields the engine's keyframe records rather than the game's.
    engine: bool,
}

impl<'c> Iterator for Records<'c> {
    type Item = Record<'c>;

    fn next(&mut self) -> Option<Record<'c>> {
        let h = loop {
            if self.at >= self.end {
                return None;
            }
            let h = self.inbox.held.get(self.at)?;
            self.at += 1;
            if h.engine() == self.engine {
                break h;
            }
        };
        let (start, len) = (h.start(), h.len());
        let bytes = self.inbox.bytes.get(start..start + len).unwrap_or(&[]);
        Some(Record { number: h.number(self.inbox.next), frame: h.frame, bytes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    fn deliver(inbox: &mut Inbox, records: &[(u32, &[u8])], accept: bool) -> Vec<(u32, Vec<u8>)> {
        inbox.begin_staging();
        for &(number, bytes) in records {
            inbox.stage(number, 7, bytes.len(), false).unwrap();
            bytes.iter().for_each(|&b| inbox.put(b));
        }
        if accept {
            inbox.commit();
        }
        inbox.applied().map(|r| (r.number, r.bytes.to_vec())).collect()
    }

    #[test]
    fn records_apply_in_order_once() {
        let mut inbox = Inbox::new();
        assert_eq!(deliver(&mut inbox, &[(0, b"a"), (1, b"bc")], true).len(), 2);
        // 2 is lost: 3 and 4 wait.
        assert!(deliver(&mut inbox, &[(3, b"ddd"), (4, b"")], true).is_empty());
        // A packet not accepted changes nothing.
        assert!(deliver(&mut inbox, &[(2, b"x")], false).is_empty());
        let got = deliver(&mut inbox, &[(1, b"bc"), (2, b"ee"), (3, b"ddd")], true);
        assert_eq!(got, [(2, b"ee".to_vec()), (3, b"ddd".to_vec()), (4, Vec::new())]);
        assert_eq!((inbox.next(), inbox.waiting, inbox.used), (5, 0, 5));
        assert!(deliver(&mut inbox, &[(4, b"")], true).is_empty());
        assert_eq!(inbox.used, 0);
    }

    #[test]
    fn records_of_a_stale_packet_wait_for_the_next_accepted() {
        let mut inbox = Inbox::new();
        assert_eq!(deliver(&mut inbox, &[(0, b"a")], true).len(), 1);
        assert!(deliver(&mut inbox, &[(2, b"cc")], true).is_empty());
        // A stale packet brings 1: the records applied last stay, 1 and 2 wait.
        inbox.begin_staging();
        inbox.stage(1, 7, 1, false).unwrap();
        inbox.put(b'b');
        inbox.keep_staged();
        assert_eq!((inbox.applied, inbox.waiting, inbox.used), (0, 2, 3));
        let got = deliver(&mut inbox, &[], true);
        assert_eq!(got, [(1, b"b".to_vec()), (2, b"cc".to_vec())]);
    }

    #[test]
    fn records_beyond_the_window_are_corrupt() {
        let mut inbox = Inbox::new();
        inbox.begin_staging();
        assert_eq!(inbox.stage(RECORD_LIMIT as u32, 0, 1, false), Err(Error::Corrupt));
        assert_eq!(inbox.stage(3, 0, HELD_BYTES + 1, false), Err(Error::Corrupt));
    }
}
