//! What a client holds, read: the current and previous views over its storage (values,
//! samples, rates, events) and the ack to send.

use super::{ClientState, lineage, row};
use crate::engine::ack::{Ack, VIEW_EVERY, ViewDigest};
use crate::engine::bitset::test_bit;
use crate::engine::frame::{NO_FRAME, WINDOW, age};
use crate::engine::lags::LagView;
use crate::engine::slots::SLOTS;
use crate::model::predict::{MAX_SAMPLES, Predictor, Rate};
use crate::schema::Schema;

/// A change between the previous view and the current one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// An entity became visible.
    Created {
        /// Its handle.
        handle: u32,
        /// Its class.
        class: usize,
    },
    /// An entity's values changed.
    Updated {
        /// Its handle.
        handle: u32,
    },
    /// An entity is no longer visible.
    Removed {
        /// Its handle.
        handle: u32,
    },
}
/// An entity as the current view shows it, with where its values come from: what a client
/// that interpolates keeps (see [`crate::blend`] and
/// [`owned::Interpolator`](crate::owned::Interpolator)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample<'s> {
    /// Its class.
    pub class: usize,
    /// Its newest raw values ([`Client::get`](super::Client::get)).
    pub row: &'s [i32],
    /// The frame at which its handle got it: a later entity at the same handle has a later
    /// one, so samples with different `born` are of different entities.
    pub born: u32,
    /// The frame at which the server's world had the values of its default update group
    /// ([`Client::age`](super::Client::age) frames before the current one for a class of one group).
    pub source: u32,
}

/// Read access to a client's current and previous views over shared storage, for the
/// [`Client`] and the owned layer alike.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reader<'s> {
    pub(crate) schema: &'s Schema,
    /// Every frame slot's packed rows ([`row`]).
    pub(crate) rows: &'s [u8],
    /// The tables of unpacked values (see
    /// [`ClientStorage::view`](super::ClientStorage::view)).
    pub(crate) view: &'s [i32],
    /// Whether every handle holds an entity in every slot.
    pub(crate) present: &'s [u64],
    pub(crate) ages: &'s [u8],
    pub(crate) born: &'s [u32],
    pub(crate) own: &'s [u64],
    /// See [`ClientStorage::sends`](super::ClientStorage::sends).
    pub(crate) sends: &'s [u128],
    /// See [`ClientStorage::chains`](super::ClientStorage::chains).
    pub(crate) chains: &'s [u128],
    pub(crate) links: &'s [u16],
    pub(crate) state: &'s ClientState,
}

impl<'s> Reader<'s> {
    /// The acknowledgement to send.
    pub(crate) fn ack(&self) -> Option<Ack> {
        let Some(newest) = self.state.frame() else {
            return self.state.restarting().then(|| Ack::restart(self.state.seen));
        };
        let (state, slots) = (&self.state, &self.state.slots);
        // Every frame held is named. One whose packet kept its models while this client could
        // not keep them (its pool was full) must never start a packet: it is marked as such
        // when it is among the 32 frames the mark covers, and not named when older.
        let unkept = |f: u32, p: usize| !state.book.may_start(f, slots.distance(p));
        let marked = |f: u32| newest.wrapping_sub(f) < 32;
        let ack = Ack::proven(newest, |f| {
            let p = slots.find(f)?;
            (marked(f) || !unkept(f, p)).then(|| state.checks[p])
        });
        let unkept = (0..32u32).fold(0, |marks, back| {
            let f = newest.wrapping_sub(back);
            let mark = slots.find(f).is_some_and(|p| unkept(f, p));
            marks | u32::from(mark) << back
        });
        let view = (newest % VIEW_EVERY == 0).then(|| self.view_digest()).flatten();
        Some(Ack { view, unkept, ..ack })
    }

    /// Digest of the current frame's view, as the state stream set it (timeline fields empty:
    /// the keyframe records set what the view shows of them).
    pub(crate) fn view_digest(&self) -> Option<u32> {
        self.state.frame()?;
        let mut digest = ViewDigest::new();
        let keyed = self.schema.has_keys();
        for (h, class, row) in self.frame_view() {
            digest.entity(h, class);
            let c = &self.schema.classes[class];
            for (f, &v) in row.iter().enumerate() {
                digest.value_of(if keyed && c.is_key(f) { c.fields[f].empty() } else { v });
            }
        }
        Some(digest.value())
    }

    fn current_slot(&self) -> Option<usize> {
        self.state.slots.find(self.state.newest)
    }

    /// Class and raw values of `handle` in the current view: the newest values the client
    /// has of it (see [`Reader::freshest`]).
    pub(crate) fn get(&self, handle: u32) -> Option<(usize, &'s [i32])> {
        self.sample(handle).map(|s| (s.class, s.row))
    }

    /// The entity at `handle` in the current view with where its values come from: what
    /// [`Reader::get`] gives, the frame its handle got it and the frame its default update
    /// group's values were the world's.
    pub(crate) fn sample(&self, handle: u32) -> Option<Sample<'s>> {
        let slot = self.current_slot()?;
        let (class, _) = self.packed(slot, handle)?;
        let p = self.freshest(slot, handle);
        let row = self.shown(if p == slot { self.state.shown } else { 2 }, handle, class)?;
        // The current frame's entity, which every slot `freshest` picks holds.
        let born = *self.born.get(handle as usize)?;
        let source = self.state.slots.frame_of(p).wrapping_sub(u32::from(self.lag(p, handle, 0)));
        Some(Sample { class, row, born, source })
    }

    /// The target of link `link` of the entity at `handle` in the current frame: the handle
    /// the client holds it under, `None` if the link names nothing the client holds (or the
    /// entity or the link does not exist).
    pub(crate) fn link(&self, handle: u32, link: usize) -> Option<u32> {
        let slot = self.current_slot()?;
        let (class, _) = self.packed(slot, handle)?;
        let links = self.schema.classes.get(class)?.links.len();
        if link >= links {
            return None;
        }
        let at = (slot * self.state.handles as usize + handle as usize) * self.schema.max_links;
        // A young target whose entry this client lost is not in the frame: none.
        let target = u32::from(*self.links.get(at + link)?).checked_sub(1)?;
        self.packed(slot, target).map(|_| target)
    }

    /// Class and raw values of `handle` in the current frame exactly as its packet set it.
    pub(crate) fn frame_entry(&self, handle: u32) -> Option<(usize, &'s [i32])> {
        let (class, _) = self.packed(self.current_slot()?, handle)?;
        Some((class, self.shown(self.state.shown, handle, class)?))
    }

    /// How many frames before the current one the world had the values [`Reader::get`]
    /// gives for `handle` (the oldest of its update groups).
    pub(crate) fn age(&self, handle: u32) -> Option<u32> {
        let slot = self.current_slot()?;
        self.packed(slot, handle)?;
        let p = self.freshest(slot, handle);
        let frame = self.state.slots.frame_of(p);
        let oldest = self.lag_view(p).groups(self.sends_of(handle)).into_iter().max().unwrap_or(0);
        Some(age(self.state.newest, frame) + u32::from(oldest))
    }

    /// How the lags of frame slot `slot` read now: its chain was cut when the newest frame
    /// was accepted (see `engine::lags`).
    #[inline]
    fn lag_view(&self, slot: usize) -> LagView {
        let chain = self.chains.get(slot).copied().unwrap_or(0);
        LagView::cut(chain, self.state.slots.frame_of(slot))
    }

    /// The sends of `handle`'s update groups.
    fn sends_of(&self, handle: u32) -> &'s [u128] {
        let g = self.schema.max_groups;
        let at = handle as usize * g;
        self.sends.get(at..at + g).unwrap_or(&[])
    }

    /// The lag of `handle`'s update group `group` in `slot`.
    fn lag(&self, slot: usize, handle: u32, group: usize) -> u8 {
        self.lag_view(slot).lag_of(self.sends, self.schema.max_groups, handle, group)
    }

    /// The slot holding the newest values the client has of `handle`, as of the frame in
    /// `slot` (where it is present): among that frame and the frames before it that hold the
    /// same entity, the one whose default update group came from the latest frame. A packet
    /// that holds an entity keeps the values of its baseline, which can be older than a
    /// frame decoded since; showing the newest keeps entities from stepping back.
    pub(super) fn freshest(&self, slot: usize, handle: u32) -> usize {
        let sends = self.sends_of(handle).first().copied().unwrap_or(0);
        let lag = |p: usize| u32::from(self.lag_view(p).lag(sends));
        if lag(slot) == 0 {
            return slot;
        }
        let hs = self.state.handles as usize;
        let at = |p: usize| p * hs + handle as usize;
        let now = self.state.slots.frame_of(slot);
        let now_age = self.ages.get(at(slot)).copied().unwrap_or(0);
        let mut best = (now.wrapping_sub(lag(slot)), slot);
        for p in 0..SLOTS {
            let frame = self.state.slots.frame_of(p);
            let before = age(now, frame);
            // A frame no newer than the best source holds no newer values.
            if frame == NO_FRAME || before == 0 || before > WINDOW || age(frame, best.0) as i32 <= 0
            {
                continue;
            }
            if !test_bit(self.present, at(p)) || !lineage::same(frame, now, now_age) {
                continue;
            }
            let source = frame.wrapping_sub(lag(p));
            if age(source, best.0) as i32 > 0 {
                best = (source, p);
            }
        }
        best.1
    }

    /// The rate of change of `field` of `handle` (see [`Client::rate`]).
    pub(crate) fn rate(&self, handle: u32, field: usize, order: Predictor) -> Option<Rate> {
        let m = order.samples();
        if order == Predictor::Contract || m < 2 {
            return None;
        }
        let slot = self.current_slot()?;
        let (class, _) = self.packed(slot, handle)?;
        let fields = self.schema.classes.get(class)?.fields;
        let f = fields.get(field)?;
        if f.coding == crate::schema::Coding::Categorical {
            return None;
        }
        let hs = self.state.handles as usize;
        let now_age = self.ages.get(slot * hs + handle as usize).copied().unwrap_or(0);
        // The newest `m` distinct source frames, as frames before the current one.
        let (mut ages, mut values, mut n) = ([0u32; MAX_SAMPLES], [0i32; MAX_SAMPLES], 0);
        for p in 0..SLOTS {
            let frame = self.state.slots.frame_of(p);
            if frame == NO_FRAME || age(self.state.newest, frame) >= WINDOW {
                continue;
            }
            let Some((c, row)) = self.packed(p, handle) else { continue };
            if c != class || !lineage::same(frame, self.state.newest, now_age) {
                continue;
            }
            let lag = self.lag(p, handle, usize::from(f.group));
            let a = age(self.state.newest, frame) + u32::from(lag);
            if ages[..n].contains(&a) || (n == m && a > ages[n - 1]) {
                continue;
            }
            // Insert in ascending order of age, keeping the `m` newest.
            let at = ages[..n].iter().position(|&b| b > a).unwrap_or(n);
            n = (n + 1).min(m);
            for i in (at + 1..n).rev() {
                (ages[i], values[i]) = (ages[i - 1], values[i - 1]);
            }
            (ages[at], values[at]) = (a, row::value(fields, row, field)?);
        }
        if n < m {
            return None;
        }
        let offsets: [u32; MAX_SAMPLES] = core::array::from_fn(|i| ages[i].wrapping_sub(ages[0]));
        Rate::of(f, &offsets[..m], &values[..m])
    }

    /// Whether `handle` names one of the client's own entities in the current view.
    pub(crate) fn is_own(&self, handle: u32) -> bool {
        self.get(handle).is_some()
            && self.current_slot().is_some_and(|p| {
                test_bit(self.own, p * self.state.handles as usize + handle as usize)
            })
    }

    /// Class and packed row of `handle` in frame slot `slot`, if present there.
    pub(super) fn packed(&self, slot: usize, handle: u32) -> Option<(usize, &'s [u8])> {
        if handle >= self.state.handles {
            return None;
        }
        let at = slot * self.state.handles as usize + handle as usize;
        let row = at * self.state.stride;
        let class = self.state.mark.get(self.rows, row)?;
        let len = row::len(self.schema.classes.get(class)?.fields);
        self.rows.get(row..row + len).map(|row| (class, row))
    }

    /// The values of `handle`, of `class`, in table `table` of
    /// [`ClientStorage::view`](super::ClientStorage::view).
    fn shown(&self, table: usize, handle: u32, class: usize) -> Option<&'s [i32]> {
        let n = self.schema.max_fields;
        let fields = self.schema.classes.get(class)?.fields.len();
        let at = (table * self.state.handles as usize + handle as usize) * n;
        self.view.get(at..at + fields)
    }

    /// Every entity of the current view: handle, class and its newest raw values, by handle.
    pub(crate) fn view(self) -> impl Iterator<Item = (u32, usize, &'s [i32])> {
        (0..self.state.handles).filter_map(move |h| {
            let (class, row) = self.get(h)?;
            Some((h, class, row))
        })
    }

    /// Every entity of the current frame exactly as its packet set it, by handle.
    pub(crate) fn frame_view(self) -> impl Iterator<Item = (u32, usize, &'s [i32])> {
        (0..self.state.handles).filter_map(move |h| {
            let (class, row) = self.frame_entry(h)?;
            Some((h, class, row))
        })
    }

    /// What changed from the previous view to the current one, by handle.
    pub(crate) fn events(self) -> impl Iterator<Item = Event> + 's {
        let now = self.current_slot();
        let before = self.state.previous;
        let hs = self.state.handles as usize;
        (0..self.state.handles).flat_map(move |h| {
            let newest = |p: usize| {
                self.packed(p, h)?;
                self.packed(self.freshest(p, h), h)
            };
            let old = before.and_then(newest);
            let new = now.and_then(newest);
            // Whether the handle names another entity now than before (both present).
            let another = || {
                let (Some(b), Some(n)) = (before, now) else { return false };
                let (fb, fnow) = (self.state.slots.frame_of(b), self.state.slots.frame_of(n));
                !lineage::same(fb, fnow, self.ages.get(n * hs + h as usize).copied().unwrap_or(0))
            };
            let (removed, created, updated) = match (old, new) {
                (Some(_), None) => (true, false, false),
                (None, Some(_)) => (false, true, false),
                (Some(a), Some(b)) if a.0 != b.0 || another() => (true, true, false),
                (Some(a), Some(b)) => (false, false, a.1 != b.1),
                (None, None) => (false, false, false),
            };
            let class = new.map_or(0, |(c, _)| c);
            [
                removed.then_some(Event::Removed { handle: h }),
                created.then_some(Event::Created { handle: h, class }),
                updated.then_some(Event::Updated { handle: h }),
            ]
            .into_iter()
            .flatten()
        })
    }
}
