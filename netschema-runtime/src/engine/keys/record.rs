//! A keyframe record's bytes: a run of varints as an event's
//! ([`event::coding`](crate::event::coding)).
//!
//! | part | value |
//! | --- | --- |
//! | handle | the handle the client holds the entity under |
//! | birth | the frame the handle got the entity, in full |
//! | class | the entity's class |
//! | slots | each: its flag field's index in the class times 4 plus its flag (0: empty; 1 or 2: a keyframe), then, for a keyframe, its frame and values, each as its step from the same field of the slot before (the last slot's, for slot 0) as the client holds it when it reads this slot, zig-zag, within half the field's span (wrapping round it) |
//!
//! Slots come in field order, each at most once; nothing follows the last.

use super::stride;
use crate::engine::records::MAX_RECORD_LEN;
use crate::event::coding::{get, put};
use crate::schema::{Class, Field, MAX_SLOT_STRIDE, Schema};
use crate::{Error, Result};

/// A keyframe record being written.
pub(super) struct Writer {
    buf: [u8; MAX_RECORD_LEN],
    len: usize,
    /// The length of its head.
    head: usize,
}

impl Writer {
    /// A record for the entity of `class` under `handle`, born at `birth`, with no slots yet.
    pub(super) fn new(handle: u32, birth: u32, class: usize) -> Writer {
        let mut w = Writer { buf: [0; MAX_RECORD_LEN], len: 0, head: 0 };
        for v in [u64::from(handle), u64::from(birth), class as u64] {
            // Three varints of at most 5 bytes, even at u64 width 10: they fit.
            w.len = put(&mut w.buf, w.len, v).unwrap_or(w.len);
        }
        w.head = w.len;
        w
    }

    /// Whether it has no slot.
    pub(super) fn is_empty(&self) -> bool {
        self.len == self.head
    }

    /// Its bytes.
    pub(super) fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// Adds the slot of `class` whose flag is field `f`, as `now` holds it; `held(i)` is field
    /// `i` as the client holds it when it reads this slot. [`Error::BufferFull`] if it does
    /// not fit, and the record is as it was.
    pub(super) fn slot(
        &mut self,
        class: &Class,
        f: usize,
        now: &[i32],
        held: impl Fn(usize) -> i32,
    ) -> Result<()> {
        let (start, n) = (self.len, stride(class, f));
        let flag = now.get(f).copied().unwrap_or(0);
        let mut at = put(&mut self.buf, self.len, (f as u64) << 2 | (flag as u64 & 3));
        if flag != 0 {
            let slot = class.fields.get(f + 1).and_then(|x| x.slot);
            for i in f + 1..f + n {
                let (field, v) = (&class.fields[i], now.get(i).copied().unwrap_or(0));
                let r = slot.map_or(v, |s| held(s.previous_field(i)));
                at = at.and_then(|at| put(&mut self.buf, at, zigzag(step(field, r, v))));
            }
        }
        match at {
            Ok(end) => {
                self.len = end;
                Ok(())
            }
            Err(e) => {
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

/// What a keyframe record names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Head {
    pub(super) handle: u32,
    pub(super) birth: u32,
    pub(super) class: usize,
    /// Where its slots start.
    pub(super) at: usize,
}

/// Reads the head of a keyframe record of `schema`: [`Error::Corrupt`] for a handle or
/// birth past 32 bits or a class the schema does not have.
pub(super) fn head(schema: &Schema, bytes: &[u8]) -> Result<Head> {
    let (handle, at) = get(bytes, 0)?;
    let (birth, at) = get(bytes, at)?;
    let (class, at) = get(bytes, at)?;
    let handle = u32::try_from(handle).map_err(|_| Error::Corrupt)?;
    let birth = u32::try_from(birth).map_err(|_| Error::Corrupt)?;
    let class = usize::try_from(class).ok().filter(|&c| c < schema.classes.len());
    Ok(Head { handle, birth, class: class.ok_or(Error::Corrupt)?, at })
}

/// Reads the slots of a keyframe record of `class` from `bytes[at..]` and calls
/// `slot(f, flag, steps)` for each: its flag field, its flag and the steps of its frame and
/// values (`steps[i]` for field `f + i`, `i` from 1). [`Error::Corrupt`] for a field that is
/// no slot's flag or not after the previous slot's, a flag past 2, a step past half its
/// field's span or a varint past 5 bytes; [`Error::UnexpectedEnd`] for a record cut short.
pub(super) fn slots(
    class: &Class,
    bytes: &[u8],
    mut at: usize,
    mut slot: impl FnMut(usize, i32, &[i64]),
) -> Result<()> {
    let mut next = 0;
    while at < bytes.len() {
        let (code, after) = get(bytes, at)?;
        at = after;
        let (f, flag) = (usize::try_from(code >> 2).unwrap_or(usize::MAX), (code & 3) as i32);
        let n = stride(class, f);
        if f < next || !class.is_key_flag(f) || flag > 2 || n > usize::from(MAX_SLOT_STRIDE) {
            return Err(Error::Corrupt);
        }
        let mut steps = [0i64; MAX_SLOT_STRIDE as usize];
        for (i, s) in steps.iter_mut().enumerate().take(n).skip(1).filter(|_| flag != 0) {
            let (z, after) = get(bytes, at)?;
            at = after;
            let field = class.fields.get(f + i).ok_or(Error::Corrupt)?;
            *s = unzigzag(z);
            if s.unsigned_abs() > field.span() / 2 {
                return Err(Error::Corrupt);
            }
        }
        slot(f, flag, &steps[..n]);
        next = f + n;
    }
    Ok(())
}

/// Checks a keyframe record of `schema` for a client of `handles` handles, as the client
/// stages it: [`Error::Corrupt`] for a handle past them and as [`head`] and [`slots`] say.
pub(crate) fn check(schema: &Schema, handles: u32, bytes: &[u8]) -> Result<()> {
    let h = head(schema, bytes)?;
    if h.handle >= handles {
        return Err(Error::Corrupt);
    }
    slots(&schema.classes[h.class], bytes, h.at, |_, _, _| {})
}

/// Applies slot `f` of `class` with `flag` and `steps` (as [`slots`] gives them) to `held`,
/// the client's values of the entity's fields.
pub(super) fn apply(class: &Class, held: &mut [i32], (f, flag, steps): (usize, i32, &[i64])) {
    if let Some(v) = held.get_mut(f) {
        *v = flag;
    }
    if flag == 0 {
        return;
    }
    for (i, &d) in steps.iter().enumerate().skip(1) {
        let (Some(field), Some(slot)) =
            (class.fields.get(f + i), class.fields.get(f + i).and_then(|x| x.slot))
        else {
            continue;
        };
        let r = held.get(slot.previous_field(f + i)).copied().unwrap_or(field.min);
        if let Some(v) = held.get_mut(f + i) {
            *v = stepped(field, r, d);
        }
    }
}
