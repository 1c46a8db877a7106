//! The decoder's side of the packet walk ([`Side`]): history read from, and the new frame
//! written into, the client's archive of frames.

use super::lineage;
use super::row::{self, ClassMark, Layout};
use crate::engine::bitset::{put_bit, test_bit};
use crate::engine::frame::{NO_FRAME, age};
use crate::engine::lags::{self, LagView};
use crate::engine::pack::Budget;
use crate::engine::packet::{Check, Refs, Samples, Side, in_window, links};
use crate::engine::slots::Slots;
use crate::engine::world::NO_CLASS;
use crate::model::predict::MAX_SAMPLES;
use crate::schema::{Class, Field, Schema};
use crate::{Error, Result};

/// The `len` items of `all` at `read` (shared) and at `write` (mutable), which must not
/// overlap.
fn split_pair<T>(all: &mut [T], read: usize, write: usize, len: usize) -> Option<(&[T], &mut [T])> {
    if read + len <= write {
        let (a, b) = all.split_at_mut(write);
        Some((a.get(read..read + len)?, b.get_mut(..len)?))
    } else if write + len <= read {
        let (a, b) = all.split_at_mut(read);
        Some((b.get(..len)?, a.get_mut(write..write + len)?))
    } else {
        None
    }
}

/// The packed rows of every frame slot but the one a packet is decoded into.
#[derive(Clone, Copy)]
pub(super) struct OldRows<'s> {
    before: &'s [u8],
    after: &'s [u8],
    new: usize,
    len: usize,
}

impl<'s> OldRows<'s> {
    /// Splits `all`, `len` bytes per slot, into the rows of slot `new` (to write) and the
    /// others.
    pub(super) fn split(all: &'s mut [u8], len: usize, new: usize) -> (&'s mut [u8], Self) {
        let (before, rest) = all.split_at_mut(new.saturating_mul(len).min(all.len()));
        let (new_rows, after) = rest.split_at_mut(len.min(rest.len()));
        (new_rows, OldRows { before, after, new, len })
    }

    /// The rows of slot `p`: empty for the new one.
    pub(super) fn slot(&self, p: usize) -> &'s [u8] {
        let (rows, at) = match p {
            p if p < self.new => (self.before, p),
            p if p > self.new => (self.after, p - self.new - 1),
            _ => return &[],
        };
        rows.get(at * self.len..(at + 1) * self.len).unwrap_or(&[])
    }
}

/// Classes whose rows' layout a decoder works out once a packet ([`Layout`]); the values of
/// later classes are placed field by field.
const LAYOUTS: usize = 8;

/// The layouts of the first [`LAYOUTS`] classes of `schema`.
pub(super) fn layouts(schema: &Schema) -> [Layout; LAYOUTS] {
    core::array::from_fn(|c| schema.classes.get(c).map_or(Layout::EMPTY, |c| Layout::new(c.fields)))
}

/// The decoder's side of the packet walk: reads history from, and writes the new frame into,
/// the client's archive.
pub(super) struct DecoderSide<'s> {
    pub(super) schema: &'s Schema,
    pub(super) refs: &'s Refs,
    pub(super) handles: u32,
    /// Bytes of a handle's packed row in a frame slot ([`row::stride`]).
    pub(super) stride: usize,
    /// Lags per handle and slot.
    pub(super) groups: usize,
    pub(super) history: [usize; MAX_SAMPLES],
    /// The largest lag in each history slot.
    pub(super) history_max_lag: [u8; MAX_SAMPLES],
    /// Whether any history slot holds values from an earlier frame.
    pub(super) history_held: bool,
    /// The largest lag written for the new frame.
    pub(super) max_lag: u8,
    pub(super) history_rows: [&'s [u8]; MAX_SAMPLES],
    /// Every slot's rows but the new frame's, and which frame each slot holds: what a young
    /// entity's entry is read from.
    pub(super) old_rows: OldRows<'s>,
    pub(super) slots: &'s Slots,
    /// The slot of the entry of the young entity being decoded.
    pub(super) entry_slot: usize,
    /// Young entities decoded whose entries this client does not hold: they leave the new
    /// frame when the walk ends ([`Side::finish`]).
    pub(super) unresolved: u32,
    pub(super) new: usize,
    pub(super) new_rows: &'s mut [u8],
    /// Whether the schema has timelines, whose fields the values handed out show from the
    /// keyframe records rather than the state stream.
    pub(super) keyed: bool,
    /// The current frame's values unpacked, the schema's most fields per handle.
    pub(super) values: &'s [i32],
    /// The new frame's values unpacked, likewise.
    pub(super) new_values: &'s mut [i32],
    /// Where the values of the first classes lie in their rows.
    pub(super) layouts: [Layout; LAYOUTS],
    /// Where a row says which class it holds.
    pub(super) mark: ClassMark,
    /// The class of every handle at the baseline and in the new frame ([`NO_CLASS`]: none),
    /// as the rows' marks say: read once a packet.
    pub(super) base_classes: &'s [u16],
    pub(super) new_classes: &'s mut [u16],
    /// Whether every handle holds an entity in every slot
    /// ([`ClientStorage::present`](super::ClientStorage::present)).
    pub(super) present: &'s mut [u64],
    /// The packet's frame, its baseline's (the frame itself without one) and the distance
    /// between them.
    pub(super) frames: (u32, u32, u32),
    /// Every handle's age byte in every slot ([`lineage`]).
    pub(super) ages: &'s mut [u8],
    /// The birth frame of every handle's entity entering in this packet.
    pub(super) entered: &'s mut [u32],
    /// The birth frame of every handle's entity in the current frame (before this packet).
    pub(super) born: &'s [u32],
    /// The frame from which every frame held shows every handle's current values
    /// ([`ClientStorage::steady`](super::ClientStorage::steady)), before this packet.
    pub(super) steady: &'s [u32],
    pub(super) own: &'s mut [u64],
    /// What the client holds of every handle's update groups, by the frames that sent them
    /// ([`ClientStorage::sends`](super::ClientStorage::sends)), before this packet.
    pub(super) sends: &'s [u128],
    /// How the packet reads the lags of each history slot from `sends`.
    pub(super) history_lags: [LagView; MAX_SAMPLES],
    /// Which update groups of every handle this packet sent
    /// ([`ClientStorage::sent`](super::ClientStorage::sent)).
    pub(super) sent: &'s mut [u64],
    /// Every handle's links in every slot
    /// ([`ClientStorage::links`](super::ClientStorage::links)).
    pub(super) links: &'s mut [u16],
}

impl<'s> DecoderSide<'s> {
    #[inline]
    fn at(&self, slot: usize, h: u32) -> usize {
        slot * self.handles as usize + h as usize
    }

    /// The class the row of `h` in `rows` (a slot's) holds, if any.
    #[inline(always)]
    fn class_in(&self, rows: &[u8], h: u32) -> Option<usize> {
        self.mark.get(rows, h as usize * self.stride)
    }

    /// Marks the new frame's row of `h` as holding `class`, or nothing.
    #[inline(always)]
    fn set_class(&mut self, h: u32, class: Option<usize>) {
        self.mark.set(self.new_rows, h as usize * self.stride, class);
        if let Some(c) = self.new_classes.get_mut(h as usize) {
            *c = class.map_or(NO_CLASS, |c| c as u16);
        }
        let at = self.at(self.new, h);
        put_bit(self.present, at, class.is_some());
    }

    /// The lag of `h`'s group `g` at history frame `j`.
    #[inline]
    fn lag(&self, j: usize, h: u32, g: usize) -> u8 {
        self.history_lags[j].lag_of(self.sends, self.groups, h, g)
    }

    /// Whether the rows of `h` at the first `k` history frames are equal (what
    /// [`Side::still`] vouches for, checked in debug builds).
    fn one_row(&self, h: u32, k: usize, class: &Class) -> bool {
        let at = h as usize * self.stride;
        let row = |j: usize| self.history_rows[j].get(at..at + row::len(class.fields));
        (1..k).all(|j| row(j) == row(0))
    }

    /// Copies the packed row of `h` at the baseline into the new frame; returns it.
    fn copy_packed(&mut self, h: u32) -> &'s [u8] {
        let at = h as usize * self.stride;
        let from = self.history_rows[0].get(at..at + self.stride).unwrap_or(&[]);
        if let Some(to) = self.new_rows.get_mut(at..at + from.len()) {
            to.copy_from_slice(from);
        }
        from
    }

    /// Copies the values of `h`, of `fields`, at the baseline into the new frame.
    fn copy_row(&mut self, h: u32, fields: &[Field]) {
        let from = self.copy_packed(h);
        let at = h as usize * self.schema.max_fields;
        row::unpack(
            fields,
            from,
            self.new_values.get_mut(at..at + fields.len()).unwrap_or(&mut []),
        );
    }
}

impl<'s> Side<'s> for DecoderSide<'s> {
    const ENCODER: bool = false;

    fn handles(&self) -> u32 {
        self.handles
    }

    #[inline]
    fn base_present(&self, h: u32) -> bool {
        self.refs.len > 0 && self.base_classes.get(h as usize).is_some_and(|&c| c != NO_CLASS)
    }

    fn base_class(&self, h: u32) -> usize {
        usize::from(self.base_classes.get(h as usize).copied().unwrap_or(NO_CLASS))
    }

    #[inline]
    fn new_class(&self, h: u32) -> usize {
        usize::from(self.new_classes.get(h as usize).copied().unwrap_or(NO_CLASS))
    }

    #[inline]
    fn staleness(&self, h: u32, g: usize) -> u32 {
        u32::from(self.lag(0, h, g)) + self.refs.distance()
    }

    #[inline]
    fn present(&self, h: u32) -> bool {
        self.new_classes.get(h as usize).is_some_and(|&c| c != NO_CLASS)
    }

    #[inline]
    fn kept(&self, h: u32) -> bool {
        // An entity entering under a handle present at the baseline has another birth.
        let (n, b, _) = self.frames;
        let new = self.at(self.new, h);
        self.base_present(h) && self.present(h) && lineage::same(b, n, self.ages[new])
    }

    fn must_have(&self, _h: u32) -> bool {
        false
    }

    fn forced_entry(&self, _h: u32) -> bool {
        false
    }

    fn keep_hint(&self, _h: u32) -> bool {
        false
    }

    fn next_enter_hint(&mut self) -> Option<(u32, usize, u32, bool)> {
        None
    }

    fn plan(&mut self, _len: usize) {}

    fn packer(&mut self) -> Option<&mut Budget<'s>> {
        None
    }

    #[inline(always)]
    fn begin(&mut self, h: u32, class: usize, handle_age: Option<u32>, own: bool) -> Result<()> {
        let at = self.at(self.new, h);
        if h >= self.handles || self.present(h) || class >= self.schema.classes.len() {
            return Err(Error::Corrupt);
        }
        self.set_class(h, Some(class));
        let (age, own) = match handle_age {
            Some(a) => {
                self.entered[h as usize] = self.frames.0.wrapping_sub(a);
                (lineage::age_byte(a), own)
            }
            None => {
                let base = self.at(self.history[0], h);
                (lineage::aged(self.ages[base], self.frames.2), test_bit(self.own, base))
            }
        };
        self.ages[at] = age;
        put_bit(self.own, at, own);
        Ok(())
    }

    fn unbegin(&mut self, _h: u32) {}

    fn young_hint(&self, _h: u32, _age: u32) -> bool {
        false
    }

    fn young(&mut self, h: u32, class: usize, entry: u32) -> bool {
        // The entry brought the entity in whole, at its handle's first frame.
        // Not the slot this frame takes over when it is committed: the entry would not outlast
        // the packet, and the ack that names the packet would not name it.
        let replaced = self.slots.replaced(self.frames.0, self.refs.reach);
        let slot = self.slots.find(entry).filter(|&p| p != self.new && p != replaced);
        let held = slot.is_some_and(|p| {
            let at = self.at(p, h);
            self.class_in(self.old_rows.slot(p), h) == Some(class) && self.ages[at] == 0
        });
        match slot {
            Some(p) if held => self.entry_slot = p,
            _ => {
                self.entered[h as usize] = NO_FRAME;
                self.unresolved += 1;
            }
        }
        held
    }

    fn entry_value(&self, h: u32, f: usize) -> i32 {
        let fields = self.schema.classes.get(self.new_class(h)).map_or(&[][..], |c| c.fields);
        let at = h as usize * self.stride;
        let row = self.old_rows.slot(self.entry_slot).get(at..at + self.stride).unwrap_or(&[]);
        row::value(fields, row, f).unwrap_or(0)
    }

    fn finish(&mut self) {
        if self.unresolved == 0 {
            return;
        }
        // Entering handles only: `begin` set their marks in this packet (a packet refused
        // part-way may have left a mark on a handle kept since).
        for h in 0..self.handles {
            let at = self.at(self.new, h);
            if self.present(h) && !self.kept(h) && self.entered[h as usize] == NO_FRAME {
                self.set_class(h, None);
                self.entered[h as usize] = self.frames.0;
                put_bit(self.own, at, false);
            }
        }
    }

    #[inline]
    fn history_len(&self, h: u32, class: &Class) -> usize {
        let base_age = self.ages[self.at(self.history[0], h)];
        let b = self.frames.1;
        let groups = class.group_count();
        (0..self.refs.len)
            .take_while(|&j| {
                let (p, t) = (self.history[j], self.refs.history[j]);
                let frame = self.refs.frame;
                test_bit(self.present, self.at(p, h))
                    && lineage::same(t, b, base_age)
                    && (in_window(frame, t, self.history_max_lag[j]) || {
                        (0..groups).all(|g| in_window(frame, t, self.lag(j, h, g)))
                    })
            })
            .count()
    }

    #[inline]
    fn sources(&self, h: u32, k: usize) -> Option<[u32; MAX_SAMPLES]> {
        if !self.history_held || self.history_max_lag[..k].iter().all(|&l| l == 0) {
            return None;
        }
        Some(core::array::from_fn(|j| {
            self.refs.history[j].wrapping_sub(u32::from(self.lag(j, h, 0)))
        }))
    }

    #[inline]
    fn still(&self, h: u32, k: usize, class: &Class) -> bool {
        let Some(&oldest) = self.refs.history.get(k.wrapping_sub(1)) else { return false };
        // Steady by the oldest sample's frame (not after it: an old packet is decoded too).
        let still = self.steady.get(h as usize).is_some_and(|&s| age(oldest, s) as i32 >= 0);
        debug_assert!(!still || self.one_row(h, k, class), "handle {h} is not still");
        still
    }

    #[inline]
    fn keep_still(&mut self, h: u32, class: &Class, check: &mut Check) {
        let from = self.copy_packed(h);
        // Steady since before the baseline: the current frame shows the baseline's values.
        let (n, at) = (class.fields.len(), h as usize * self.schema.max_fields);
        let values = self.values.get(at..at + n).unwrap_or(&[]);
        // The values handed out show timeline fields from the keyframe records; the state
        // stream holds them empty.
        let state = |f: usize, v: i32| match self.keyed && class.is_key(f) {
            true => class.fields[f].empty(),
            false => v,
        };
        debug_assert!(
            values
                .iter()
                .enumerate()
                .all(|(f, &v)| row::value(class.fields, from, f) == Some(state(f, v))),
            "handle {h}: the current frame is not the baseline"
        );
        if let Some(to) = self.new_values.get_mut(at..at + values.len()) {
            to.copy_from_slice(values);
        }
        values.iter().enumerate().for_each(|(f, &v)| check.add(state(f, v) as u32));
    }

    #[inline(always)]
    fn samples(&self, h: u32, k: usize, lo: usize, class: &Class, samples: &mut Samples) {
        let base = h as usize * self.stride;
        let rows = self.history_rows.map(|rows| rows.get(base..).unwrap_or(&[]));
        let history = &rows[..k.min(MAX_SAMPLES)];
        let slow;
        let layout = match self.layouts.iter().find(|l| core::ptr::eq(l.fields, class.fields)) {
            Some(layout) => layout,
            None => {
                slow = Layout::new(class.fields);
                &slow
            }
        };
        let n = class.fields.len().saturating_sub(lo);
        for (i, s) in samples.iter_mut().enumerate().take(n) {
            let place = layout.place(lo + i);
            for (s, row) in s.iter_mut().zip(history) {
                *s = place.get(row);
            }
        }
    }

    fn target_row(&self, _h: u32) -> &'s [i32] {
        &[]
    }

    #[inline(always)]
    fn store(&mut self, h: u32, f: usize, value: i32, _coded: bool, _tolerant: Option<usize>) {
        let class = self.new_class(h);
        let slow;
        let layout = match self.layouts.get(class) {
            Some(layout) => layout,
            None => {
                let Some(c) = self.schema.classes.get(class) else { return };
                slow = Layout::new(c.fields);
                &slow
            }
        };
        let row = self.new_rows.get_mut(h as usize * self.stride..).unwrap_or(&mut []);
        layout.place(f).put(value, row);
        if f + 1 == layout.fields.len() {
            layout.clear_tail(row, self.mark);
        }
        if let Some(v) = self.new_values.get_mut(h as usize * self.schema.max_fields + f) {
            *v = value;
        }
    }

    #[inline]
    fn sent_groups(&mut self, h: u32, class: &Class, due: u32) {
        let (g, groups) = (self.groups, class.group_count());
        if g == 1 && (self.refs.len == 0 || due & 1 != 0) {
            // One group, sent: the common case.
            put_bit(self.sent, h as usize, true);
            return;
        }
        for group in 0..g {
            // Without a baseline every group is sent.
            let sent = self.refs.len == 0 || lags::sends_group(group, groups, due);
            put_bit(self.sent, h as usize * g + group, sent);
            if !sent {
                self.max_lag = self.max_lag.max(lags::lag_byte(self.staleness(h, group)));
            }
        }
    }

    fn hold(&mut self, h: u32, class: &Class) {
        self.copy_row(h, class.fields);
        self.sent_groups(h, class, 0);
        links::hold(self, h, class);
    }

    fn hold_all(&mut self) {
        let (base, new, hs) = (self.history[0], self.new, self.handles as usize);
        let (_, b, distance) = self.frames;
        for h in 0..hs {
            // A handle given another entity since the baseline shows the baseline's entity
            // again, as one of its own from this frame on, as the server counts it (see
            // `lineage`): born now, so that no slot of the entity in between is taken for it.
            let renewed = self.born.get(h).is_some_and(|&born| age(born, b) as i32 > 0);
            let old = lineage::aged(self.ages[base * hs + h], distance);
            self.ages[new * hs + h] = if renewed { 0 } else { old };
        }
        for h in 0..self.handles {
            let own = test_bit(self.own, self.at(base, h));
            put_bit(self.own, self.at(new, h), own);
            let class = self.base_class(h);
            if let Some(c) = self.new_classes.get_mut(h as usize) {
                *c = class as u16;
            }
            let present = test_bit(self.present, self.at(base, h));
            put_bit(self.present, self.at(new, h), present);
            if let Some(c) = self.schema.classes.get(class) {
                self.copy_row(h, c.fields);
            }
        }
        // No group of any handle is sent (none is marked in `sent`): every lag is the
        // baseline's, `distance` frames more.
        let largest = u32::from(self.history_max_lag[0]) + distance;
        self.max_lag = self.max_lag.max(lags::lag_byte(largest));
        let l = self.schema.max_links;
        if let Some((base_links, links)) =
            split_pair(self.links, base * hs * l, new * hs * l, hs * l)
        {
            links.copy_from_slice(base_links);
        }
    }

    #[inline]
    fn base_link(&self, h: u32, r: usize) -> u32 {
        let at = self.at(self.history[0], h) * self.schema.max_links + r;
        self.links.get(at).map_or(0, |&l| u32::from(l))
    }

    #[inline]
    fn link_truth(&self, _h: u32, _r: usize) -> u32 {
        0
    }

    #[inline]
    fn set_link(&mut self, h: u32, r: usize, target: u32) {
        let at = self.at(self.new, h) * self.schema.max_links + r;
        if let Some(l) = self.links.get_mut(at) {
            // A link names a handle (plus 1) the packet holds: at most `MAX_HANDLES`.
            *l = target as u16;
        }
    }
}
