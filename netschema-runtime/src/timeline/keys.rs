//! A timeline's keyframes in fixed storage: lookup, edits and forgetting history.

use super::curve::{self, Window};
use super::slots::{HEAD, Slots};
use super::{Interp, Kind, Spec, Time};
use crate::{Error, Result};

/// One keyframe: a whole frame and the raw values of the field's `W` components.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Keyframe<const W: usize> {
    /// The frame it is at.
    pub time: u32,
    /// Raw values, one per component.
    pub value: [i32; W],
}

/// One entity's timeline of one field: up to `CAP` keyframes of `W` components, sorted by
/// time, in inline storage (see the [module documentation](super)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timeline<const W: usize, const CAP: usize> {
    spec: Spec,
    keys: [Keyframe<W>; CAP],
    len: usize,
    now: u32,
    slots: Slots<W, CAP>,
}

impl<const W: usize, const CAP: usize> Timeline<W, CAP> {
    /// An empty timeline at frame 0; [`Error::InvalidSchema`] unless `spec` passes
    /// [`Spec::validate`] for `W` components and `CAP` keyframes.
    pub const fn new(spec: Spec) -> Result<Self> {
        if let Err(e) = spec.validate(W, CAP) {
            return Err(e);
        }
        let keys = [Keyframe { time: 0, value: [0; W] }; CAP];
        Ok(Timeline { spec, keys, len: 0, now: 0, slots: Slots::EMPTY })
    }

    /// The declaration it follows.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// Its keyframes, sorted by time.
    pub fn keys(&self) -> &[Keyframe<W>] {
        &self.keys[..self.len]
    }

    /// Its current frame: keyframes at or before it are history and cannot be edited.
    pub fn now(&self) -> u32 {
        self.now
    }

    /// The value at `t` (see the [module documentation](super) for the formula); `None` when
    /// the timeline is empty. O(log n), no allocation.
    pub fn value_at(&self, t: Time) -> Option<[i32; W]> {
        let keys = self.keys();
        let after = keys.partition_point(|k| Time::frame(k.time) <= t);
        let (Some(a), Some(b)) = (after.checked_sub(1).and_then(|i| keys.get(i)), keys.get(after))
        else {
            // Before the first keyframe, after the last, or none: hold.
            return keys.get(after.min(keys.len().saturating_sub(1))).map(|k| k.value);
        };
        if Time::frame(a.time) == t || self.spec.interp == Interp::Step {
            return Some(a.value);
        }
        let prev = after.checked_sub(2).and_then(|i| keys.get(i));
        let next = keys.get(after + 1);
        Some(match self.spec.kind {
            Kind::Quat(q) => {
                let mut out = a.value;
                let raw = curve::quat(&q, (a.time, &a.value), (b.time, &b.value), t);
                out.iter_mut().zip(raw).for_each(|(o, r)| *o = r);
                out
            }
            Kind::Scalars => {
                let mut out = [0; W];
                for (c, (o, field)) in out.iter_mut().zip(self.spec.fields).enumerate() {
                    let point = |k: &Keyframe<W>| (k.time, k.value[c]);
                    let w = Window {
                        prev: prev.map(point),
                        a: point(a),
                        b: point(b),
                        next: next.map(point),
                    };
                    *o = curve::scalar(field, self.spec.interp, w, t);
                }
                out
            }
        })
    }

    /// Adds a keyframe at frame `time` (after the current frame) with raw `value`.
    ///
    /// Errors: [`Error::KeyframeInPast`] at or before the current frame,
    /// [`Error::KeyframeExists`] if one is already there, [`Error::TimelineFull`] if
    /// [`Spec::ahead`] future keyframes are already held, [`Error::OutOfRange`] if a value is
    /// outside its field's raw range (or the frame past `i32::MAX`).
    pub fn add(&mut self, time: u32, value: [i32; W]) -> Result<()> {
        self.check_future(time)?;
        if value.iter().zip(self.spec.fields).any(|(&v, f)| f.clamp(i64::from(v)) != v) {
            return Err(Error::OutOfRange);
        }
        if self.find(time).is_ok() {
            return Err(Error::KeyframeExists { time });
        }
        if self.future() >= usize::from(self.spec.ahead) {
            return Err(Error::TimelineFull { ahead: self.spec.ahead });
        }
        self.pin_if_touched(time)?;
        self.insert(Keyframe { time, value })
    }

    /// Removes the keyframe at frame `time` (after the current frame) and returns its value.
    ///
    /// Errors: [`Error::KeyframeInPast`] at or before the current frame, [`Error::NoKeyframe`]
    /// if there is none there.
    pub fn remove(&mut self, time: u32) -> Result<[i32; W]> {
        self.check_future(time)?;
        self.find(time).map_err(|_| Error::NoKeyframe { time })?;
        self.pin_if_touched(time)?;
        // The pin is at the current frame, before `time`: look the index up again.
        let i = self.find(time).map_err(|_| Error::NoKeyframe { time })?;
        self.slots.retime(time, None);
        Ok(self.unplace(i).value)
    }

    /// Moves the keyframe at frame `from` to frame `to`, both after the current frame.
    ///
    /// Errors: [`Error::KeyframeInPast`] if either is at or before the current frame,
    /// [`Error::NoKeyframe`] if none is at `from`, [`Error::KeyframeExists`] if another is at
    /// `to`.
    pub fn move_key(&mut self, from: u32, to: u32) -> Result<()> {
        self.check_future(from)?;
        self.check_future(to)?;
        self.find(from).map_err(|_| Error::NoKeyframe { time: from })?;
        if from != to && self.find(to).is_ok() {
            return Err(Error::KeyframeExists { time: to });
        }
        self.pin_if_touched(from.min(to))?;
        let i = self.find(from).map_err(|_| Error::NoKeyframe { time: from })?;
        let value = self.unplace(i).value;
        self.place(Keyframe { time: to, value })?;
        self.slots.retime(from, Some(to));
        Ok(())
    }

    /// Moves the current frame forward to `now` (a smaller `now` is ignored) and forgets
    /// history: keyframes more than [`Spec::keep`] frames before `now` except the newest of
    /// them, and the oldest ones beyond [`Spec::history`] at or before `now`.
    pub fn advance(&mut self, now: u32) {
        self.now = self.now.max(now);
        let horizon = self.now.saturating_sub(self.spec.keep);
        let older = self.keys().partition_point(|k| k.time < horizon).saturating_sub(1);
        let past = self.keys().partition_point(|k| k.time <= self.now);
        let over = past.saturating_sub(usize::from(self.spec.history));
        self.forget(older.max(over));
    }

    /// Replaces the keyframes with `keys` (sorted by time, at most `CAP`), giving them slots in
    /// order; [`Error::Corrupt`] if they are unsorted or too many, leaving the timeline
    /// unchanged.
    pub fn replace(&mut self, keys: &[Keyframe<W>]) -> Result<()> {
        if keys.len() > CAP || keys.windows(2).any(|w| w[0].time >= w[1].time) {
            return Err(Error::Corrupt);
        }
        self.keys[..keys.len()].copy_from_slice(keys);
        self.len = keys.len();
        self.slots = Slots::EMPTY;
        keys.iter().for_each(|k| self.slots.take(k.time, k.value));
        Ok(())
    }

    /// Scalar fields the timeline takes in its class's row: [`Spec::capacity`] slots of
    /// `2 + W` (see [`Timeline::write_row`]).
    pub fn row_len(&self) -> usize {
        self.spec.capacity() * (HEAD + W)
    }

    /// Writes the keyframes into `row`, this field's part of its class's row, as the server
    /// captures it: slot by slot, 1 if it holds a keyframe (else 0), the frame, then the raw
    /// values. A keyframe keeps its slot while it exists and a new one takes the lowest free
    /// slot, so an edit changes only the slots it touches. [`Error::StorageTooSmall`] if `row` is shorter than
    /// [`Timeline::row_len`].
    pub fn write_row(&self, row: &mut [i32]) -> Result<()> {
        let row = row.get_mut(..self.row_len()).ok_or(Error::StorageTooSmall)?;
        self.slots.write(row);
        Ok(())
    }

    /// Takes the keyframes from `row`, as a client does with what it holds of the entity.
    /// [`Error::Corrupt`] if `row` is shorter than [`Timeline::row_len`] or two slots hold the
    /// same frame, leaving the timeline unchanged. Frames are not checked against the
    /// timeline's current frame: a client follows whatever the server sent.
    pub fn read_row(&mut self, row: &[i32]) -> Result<()> {
        let row = row.get(..self.row_len()).ok_or(Error::Corrupt)?;
        let mut slots = Slots::EMPTY;
        slots.read(row, self.spec.capacity());
        let (mut keys, mut len) = ([Keyframe { time: 0, value: [0; W] }; CAP], 0);
        for (time, value) in slots.keys() {
            // Insertion sort: a timeline holds a handful of keyframes.
            let i = keys[..len].partition_point(|k: &Keyframe<W>| k.time < time);
            if keys[..len].get(i).is_some_and(|k| k.time == time) {
                return Err(Error::Corrupt);
            }
            keys.copy_within(i..len, i + 1);
            keys[i] = Keyframe { time, value };
            len += 1;
        }
        (self.keys, self.len, self.slots) = (keys, len, slots);
        Ok(())
    }

    fn check_future(&self, time: u32) -> Result<()> {
        if time <= self.now {
            Err(Error::KeyframeInPast { time, now: self.now })
        } else if time > i32::MAX as u32 {
            Err(Error::OutOfRange)
        } else {
            Ok(())
        }
    }

    fn find(&self, time: u32) -> core::result::Result<usize, usize> {
        self.keys().binary_search_by_key(&time, |k| k.time)
    }

    /// Number of keyframes after the current frame.
    fn future(&self) -> usize {
        self.len - self.keys().partition_point(|k| k.time <= self.now)
    }

    /// Before an edit at `time` (after the current frame): if it changes the curve at the
    /// current frame, inserts a keyframe there holding the value looked up now, forgetting the
    /// oldest history if that is full. The value at the current frame depends on the keyframes
    /// at or before it and on the first `depends` after it: none for step curves, one for
    /// linear ones, two for cubic ones, and at least the first when none is at or before it
    /// (the hold before the first keyframe).
    fn pin_if_touched(&mut self, time: u32) -> Result<()> {
        let first_future = self.keys().partition_point(|k| k.time <= self.now);
        let depends = match self.spec.interp {
            Interp::Step => 0,
            Interp::Linear => 1,
            Interp::Cubic => 2,
        }
        .max(usize::from(first_future == 0));
        if depends == 0 {
            return Ok(());
        }
        let touched = self.keys().get(first_future + depends - 1).is_none_or(|k| time <= k.time);
        if !touched || self.find(self.now).is_ok() {
            return Ok(());
        }
        let Some(value) = self.value_at(Time::frame(self.now)) else { return Ok(()) };
        if first_future >= usize::from(self.spec.history) {
            self.forget(1);
        }
        self.insert(Keyframe { time: self.now, value })
    }

    /// Inserts a new keyframe in time order and gives it a slot.
    fn insert(&mut self, key: Keyframe<W>) -> Result<()> {
        self.place(key)?;
        self.slots.take(key.time, key.value);
        Ok(())
    }

    /// Puts `key` in time order: [`Error::KeyframeExists`] if its time is taken,
    /// [`Error::TimelineFull`] if all `CAP` places are (only after [`Timeline::replace`] put
    /// more keyframes than the spec allows).
    fn place(&mut self, key: Keyframe<W>) -> Result<()> {
        let i = self.find(key.time).err().ok_or(Error::KeyframeExists { time: key.time })?;
        if self.len >= CAP {
            return Err(Error::TimelineFull { ahead: self.spec.ahead });
        }
        self.keys.copy_within(i..self.len, i + 1);
        self.keys[i] = key;
        self.len += 1;
        Ok(())
    }

    /// Takes the keyframe at index `i` out of the order (`i < len`).
    fn unplace(&mut self, i: usize) -> Keyframe<W> {
        let key = self.keys[i];
        self.keys.copy_within(i + 1..self.len, i);
        self.len -= 1;
        key
    }

    /// Forgets the `n` oldest keyframes, freeing their slots.
    fn forget(&mut self, n: usize) {
        let n = n.min(self.len);
        for k in &self.keys[..n] {
            self.slots.retime(k.time, None);
        }
        self.keys.copy_within(n..self.len, 0);
        self.len -= n;
    }
}
