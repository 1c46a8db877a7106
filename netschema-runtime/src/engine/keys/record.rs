//! A keyframe record's bytes: blocks of varints as an event's
//! ([`event::coding`](crate::event::coding)), one block per entity, until the record ends.
//!
//! | part | value |
//! | --- | --- |
//! | entity | twice (the handle the client holds the entity under times the schema's class count, plus the entity's class), plus 1 if an earlier record named the same entity under the handle |
//! | birth | the frame the handle got the entity, in full; only if 1 was not added |
//! | slots | each: how many of its class's keyframe slots lie between the entity's previous slot in the block (or the row's start) and it, times 16, plus 8 if another slot of the entity follows, 4 if its values are those of the slot before, and its flag (0: empty; 1 or 2: a keyframe); then, for a keyframe, its frame and (unless 4 was added) its values, each as its step from the same field of the slot before (the last slot's, for slot 0) as the client holds it when it reads this slot, zig-zag, within half the field's span (wrapping round it) |
//!
//! An entity's slots come in field order, each at most once.

use super::stride;
use crate::engine::records::MAX_RECORD_LEN;
use crate::event::coding::{get, put};
use crate::schema::{Class, Field, MAX_SLOT_STRIDE, Schema};
use crate::{Error, Result};

/// What follows a slot's place in its code.
const MORE: u64 = 8;
/// Added to a slot's code when its values are those of the slot before.
const SAME: u64 = 4;

/// The values of one slot: its flag, frame and values, or their steps.
pub(super) type SlotValues<T> = [T; MAX_SLOT_STRIDE as usize];

/// A keyframe record being written, block by block.
pub(super) struct Writer {
    buf: [u8; MAX_RECORD_LEN],
    len: usize,
    /// The head of the block being written, until its first slot writes it.
    pending: Option<Head<u64>>,
    /// Where the code of the block's last slot starts, once it has one.
    last: Option<usize>,
    /// The field after the block's last slot.
    next: usize,
    /// Where the block being written starts.
    start: usize,
    /// The longest the record may be.
    cap: usize,
}

impl Writer {
    /// An empty record of at most `cap` bytes (and [`MAX_RECORD_LEN`]).
    pub(super) fn new(cap: usize) -> Writer {
        let cap = cap.min(MAX_RECORD_LEN);
        Writer {
            buf: [0; MAX_RECORD_LEN],
            len: 0,
            pending: None,
            last: None,
            next: 0,
            start: 0,
            cap,
        }
    }

    /// Whether it has no slot.
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Its bytes.
    pub(super) fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// Starts the block of the entity of `class` (of a schema of `classes`) under `handle`,
    /// born at `birth`, which an earlier record named if `named` (its head is written with its
    /// first slot).
    pub(super) fn begin(
        &mut self,
        (handle, birth, named): (u32, u32, bool),
        (class, classes): (usize, usize),
    ) {
        let entity = (u64::from(handle) * classes as u64 + class as u64) << 1;
        let head = if named { Head::Named(entity | 1) } else { Head::Born(entity, birth) };
        (self.pending, self.last, self.next, self.start) = (Some(head), None, 0, self.len);
    }

    /// Whether blocks of other entities come before the one being written.
    pub(super) fn follows_others(&self) -> bool {
        self.start > 0
    }

    /// Drops the block being written.
    pub(super) fn drop_block(&mut self) {
        (self.len, self.pending, self.last) = (self.start, None, None);
    }

    /// Ends the block being written: its last slot says none follows. Whether it has slots.
    pub(super) fn end(&mut self) -> bool {
        self.pending = None;
        let last = self.last.take();
        if let Some(b) = last.and_then(|at| self.buf.get_mut(at)) {
            *b &= !(MORE as u8);
        }
        last.is_some()
    }

    /// Adds to the block the slot of `class` whose flag is field `f`, as `now` holds it;
    /// `held[i]` is field `f + i` of the slot before as the client holds it when it reads
    /// this one. [`Error::BufferFull`] if it does not fit, and the record is as it was.
    pub(super) fn slot(
        &mut self,
        class: &Class,
        f: usize,
        now: &[i32],
        held: &SlotValues<i32>,
    ) -> Result<()> {
        let (start, n) = (self.len, stride(class, f));
        let flag = now.get(f).copied().unwrap_or(0);
        let mut steps = [0i64; MAX_SLOT_STRIDE as usize];
        for (i, s) in steps.iter_mut().enumerate().take(n).skip(1) {
            let (Some(field), Some(&v)) = (class.fields.get(f + i), now.get(f + i)) else {
                continue;
            };
            *s = step(field, held[i], v);
        }
        let same = steps.get(2..n).is_some_and(|s| s.iter().all(|&s| s == 0));
        let place = (self.next..f).filter(|&i| class.is_key_flag(i));
        let code =
            (place.count() as u64) << 4 | MORE | if same { SAME } else { 0 } | (flag as u64 & 3);
        let mut at = Ok(self.len);
        match self.pending {
            Some(Head::Named(entity)) => at = put(&mut self.buf, self.len, entity),
            Some(Head::Born(entity, birth)) => {
                at = put(&mut self.buf, self.len, entity);
                at = at.and_then(|at| put(&mut self.buf, at, u64::from(birth)));
            }
            None => {}
        }
        let code_at = at;
        at = at.and_then(|at| put(&mut self.buf, at, code));
        let values = if same { 2 } else { n };
        for &s in steps.get(1..values).unwrap_or(&[]).iter().filter(|_| flag != 0) {
            at = at.and_then(|at| put(&mut self.buf, at, zigzag(s)));
        }
        let end = at.and_then(|end| if end > self.cap { Err(Error::BufferFull) } else { Ok(end) });
        match (end, code_at) {
            (Ok(end), Ok(code_at)) => {
                (self.len, self.last, self.pending, self.next) = (end, Some(code_at), None, f + n);
                Ok(())
            }
            (Err(e), _) | (_, Err(e)) => {
                self.len = start;
                Err(e)
            }
        }
    }
}

/// The step from `r` to `v` of `field`, within half its span (wrapping round it).
fn step(field: &Field, r: i32, v: i32) -> i64 {
    let span = field.span() as i64;
    let d = (i64::from(v) - i64::from(r)).rem_euclid(span);
    if d > span / 2 { d - span } else { d }
}

/// The value `d` steps from `r` of `field`, wrapped into its range (`r` in it, `|d|` at most
/// half its span).
fn stepped(field: &Field, r: i32, d: i64) -> i32 {
    let span = field.span() as i64;
    let mut v = i64::from(r) + d;
    if v > i64::from(field.max) {
        v -= span;
    } else if v < i64::from(field.min) {
        v += span;
    }
    v as i32
}

fn zigzag(d: i64) -> u64 {
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag(z: u64) -> i64 {
    (z >> 1) as i64 ^ -((z & 1) as i64)
}

/// The head of a block, `E` its entity's code: with the entity's birth, or naming the
/// entity an earlier record named under the handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Head<E> {
    Born(E, u32),
    Named(E),
}

/// What a block of a keyframe record names: a handle, its entity's class and its birth (if
/// given).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Block {
    pub(super) handle: u32,
    pub(super) class: usize,
    pub(super) birth: Option<u32>,
}

/// What [`read`] finds in a record, in order.
pub(super) enum Item<'s> {
    /// A block starts.
    Block(Block),
    /// A slot of the block: its flag field, its flag and the steps of its frame and values
    /// (`steps[i]` for field `f + i`, `i` from 1).
    Slot(usize, i32, &'s [i64]),
}

/// Reads keyframe record `bytes` of `schema` and calls `item` with what it holds, in order.
/// [`Error::Corrupt`] for a handle or birth past 32 bits, a slot place the class does not
/// have or not after the previous slot's, a flag past 2, a step past half its field's span or
/// a varint past 5 bytes; [`Error::UnexpectedEnd`] for a record cut short.
pub(super) fn read(schema: &Schema, bytes: &[u8], mut item: impl FnMut(Item<'_>)) -> Result<()> {
    let classes = schema.classes.len().max(1) as u64;
    let mut at = 0;
    while at < bytes.len() {
        let (code, after) = get(bytes, at)?;
        at = after;
        let birth = match code & 1 {
            0 => {
                let (birth, after) = get(bytes, at)?;
                at = after;
                Some(u32::try_from(birth).map_err(|_| Error::Corrupt)?)
            }
            _ => None,
        };
        let entity = code >> 1;
        let handle = u32::try_from(entity / classes).map_err(|_| Error::Corrupt)?;
        let class = (entity % classes) as usize;
        let c = schema.classes.get(class).ok_or(Error::Corrupt)?;
        item(Item::Block(Block { handle, class, birth }));
        at = slots(c, bytes, at, &mut item)?;
    }
    Ok(())
}

/// Reads the slots of a block of `class` from `bytes[at..]` for [`read`]; the offset after
/// them.
fn slots(
    class: &Class,
    bytes: &[u8],
    mut at: usize,
    item: &mut impl FnMut(Item<'_>),
) -> Result<usize> {
    let mut next = 0;
    loop {
        let (code, after) = get(bytes, at)?;
        at = after;
        let flag = (code & 3) as i32;
        let place = usize::try_from(code >> 4).unwrap_or(usize::MAX);
        let f = (next..class.fields.len()).filter(|&f| class.is_key_flag(f)).nth(place);
        let f = f.filter(|_| flag <= 2).ok_or(Error::Corrupt)?;
        let n = stride(class, f);
        let values = if code & SAME != 0 { 2 } else { n };
        let mut steps = [0i64; MAX_SLOT_STRIDE as usize];
        for (i, s) in steps.iter_mut().enumerate().take(values).skip(1).filter(|_| flag != 0) {
            let (z, after) = get(bytes, at)?;
            at = after;
            *s = unzigzag(z);
            let field = class.fields.get(f + i).ok_or(Error::Corrupt)?;
            if s.unsigned_abs() > field.span() / 2 {
                return Err(Error::Corrupt);
            }
        }
        item(Item::Slot(f, flag, steps.get(..n).ok_or(Error::Corrupt)?));
        next = f + n;
        if code & MORE == 0 {
            return Ok(at);
        }
    }
}

/// Checks a keyframe record of `schema` for a client of `handles` handles, as the client
/// stages it: [`Error::Corrupt`] for a handle past them and as [`read`] says.
pub(crate) fn check(schema: &Schema, handles: u32, bytes: &[u8]) -> Result<()> {
    let mut bad = false;
    read(schema, bytes, |item| {
        if let Item::Block(h) = item {
            bad |= h.handle >= handles;
        }
    })?;
    if bad { Err(Error::Corrupt) } else { Ok(()) }
}

/// Applies slot `f` of `class` with `flag` and `steps` (as [`read`] gives them) to `held`,
/// the client's values of the entity's fields.
pub(super) fn apply(class: &Class, held: &mut [i32], (f, flag, steps): (usize, i32, &[i64])) {
    if let Some(v) = held.get_mut(f) {
        *v = flag;
    }
    if flag == 0 {
        return;
    }
    for (i, &d) in steps.iter().enumerate().skip(1) {
        let Some(field) = class.fields.get(f + i) else { continue };
        let Some(slot) = field.slot else { continue };
        let r = held.get(slot.previous_field(f + i)).copied().unwrap_or(field.min);
        if let Some(v) = held.get_mut(f + i) {
            *v = stepped(field, r, d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::predict::Predictor;
    use crate::schema::KeySlot;
    use std::vec::Vec;

    const fn slot(after_flag: u8, index: u8) -> KeySlot {
        KeySlot { after_flag, stride: 3, index, capacity: 2 }
    }
    const T: Field = Field::numeric("t", 0, i32::MAX, false, &[Predictor::Hold]);
    const V: Field = Field::numeric("v", -100, 100, false, &[Predictor::Hold]);
    static FIELDS: [Field; 7] = [
        Field::numeric("hp", 0, 9, false, &[Predictor::Hold]),
        Field::categorical("k[0].live", 3),
        T.in_slot(slot(1, 0)),
        V.in_slot(slot(2, 0)),
        Field::categorical("k[1].live", 3),
        T.in_slot(slot(1, 1)),
        V.in_slot(slot(2, 1)),
    ];
    static CLASSES: [Class; 1] = [Class::new("c", &FIELDS)];
    static SCHEMA: Schema = Schema::new("s", &CLASSES);

    /// A record of one block of handle 3 born at frame 40 holding `now`'s slots, as the client
    /// holds `held`: slot 0 steps from slot 1 as held, slot 1 from slot 0 as sent.
    fn record(now: &[i32], held: &[i32]) -> Vec<u8> {
        let mut w = Writer::new(MAX_RECORD_LEN);
        w.begin((3, 40, false), (0, 1));
        for (f, pf, from) in [(1, 4, held), (4, 1, now)] {
            let before = core::array::from_fn(|i| from.get(pf + i).copied().unwrap_or(0));
            w.slot(&CLASSES[0], f, now, &before).unwrap();
        }
        w.end();
        w.bytes().to_vec()
    }

    #[test]
    fn slots_read_back_as_written_and_steps_wrap_within_the_range() {
        let held = [0, 0, 0, -100, 0, 0, -100];
        let now = [0, 1, 50, 100, 2, 90, 100];
        let bytes = record(&now, &held);
        assert_eq!(check(&SCHEMA, 4, &bytes), Ok(()));
        assert_eq!(check(&SCHEMA, 3, &bytes), Err(Error::Corrupt), "a handle past the client's");
        let mut got = held;
        read(&SCHEMA, &bytes, |item| {
            if let Item::Slot(f, flag, steps) = item {
                apply(&CLASSES[0], &mut got, (f, flag, steps));
            }
        })
        .unwrap();
        assert_eq!(got, now);
        // From -100 to 100 is one step back round the range; the second slot's value is the
        // first's: its code says so and no value follows.
        assert_eq!(bytes, [6, 40, 1 | 8, 100, 1, 2 | 4, 80]);
    }

    #[test]
    fn damaged_records_are_refused_with_typed_errors_never_a_panic() {
        let whole = record(&[0, 1, 50, 7, 2, 90, -3], &[0; 7]);
        for cut in 1..whole.len() {
            assert!(check(&SCHEMA, 4, &whole[..cut]).is_err(), "cut at {cut}");
        }
        // A slot place past the class's slots, a flag of 3, a step past half the span, a
        // slot code of field 0 (not a flag) and a varint of six bytes.
        for bad in [
            &[6, 40, 2 << 4][..],
            &[6, 40, 3],
            &[6, 40, 1, 0, 250, 1],
            &[6, 40, 0x80, 0x80, 0x80, 0x80, 0x80, 0],
        ] {
            assert_eq!(check(&SCHEMA, 4, bad), Err(Error::Corrupt), "{bad:?}");
        }
        let mut rng = 0x1234_5678_u64;
        for _ in 0..20_000 {
            rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let len = (rng >> 59) as usize;
            let bytes: Vec<u8> = (0..len).map(|i| (rng >> (i % 7 * 8)) as u8).collect();
            let _ = check(&SCHEMA, 8, &bytes);
        }
    }
}
