//! Which entity a handle names in each frame slot, from one byte per handle and slot: the
//! frames since the handle got its entity (its age), saturated at [`OLD`].
//!
//! A handle names one entity at a time and gets a new one only at a later frame, so the
//! entity a slot holds under a handle is the one whose handle was given last by the slot's
//! frame. Two slots at most [`OLD`] frames apart therefore hold the same entity exactly when
//! the newer one's entity had its handle by the older one's frame, which the newer one's age
//! tells, saturated or not: an age of [`OLD`] or more reaches back past any slot held.
//!
//! One packet breaks that order: one that holds everything against a baseline from before a
//! handle was given another entity shows the baseline's entity again. The server counts that
//! entity as given its handle anew then (it leaves at the next packet), and so does the
//! client: its age restarts at 0 in that frame.

use crate::engine::frame::age;

/// The saturated age: "at least this many frames".
pub(super) const OLD: u8 = u8::MAX;

/// The age byte of an entity whose handle is `frames` frames old.
#[inline]
pub(super) fn age_byte(frames: u32) -> u8 {
    frames.min(u32::from(OLD)) as u8
}

/// The age byte `frames` frames after one of `age`.
#[inline]
pub(super) fn aged(age: u8, frames: u32) -> u8 {
    age_byte(u32::from(age).saturating_add(frames))
}

/// Whether a handle present at frame `older` and at frame `newer` (not before `older`, fewer
/// than [`OLD`] frames after it), where its entity's age is `newer_age`, names the same entity
/// at both: that entity had its handle by `older`.
#[inline]
pub(super) fn same(older: u32, newer: u32, newer_age: u8) -> bool {
    newer_age == OLD || age(older, newer.wrapping_sub(u32::from(newer_age))) as i32 >= 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_tell_entities_apart_by_the_newer_age() {
        // An entity given its handle at frame 100, another at 400 under the same handle.
        let (first, second) = (100u32, 400u32);
        let at = |frame: u32, born: u32| age_byte(frame - born);
        // Slots of the first entity agree with each other, however old it gets.
        assert!(same(150, 399, at(399, first)));
        assert!(same(101, 200, at(200, first)));
        assert!(same(300, 399, at(399, first)));
        // A slot of the first and one of the second do not, right after the change or later.
        assert!(!same(399, 400, at(400, second)));
        assert!(!same(350, 460, at(460, second)));
        // Ages that keep counting across a hold stay exact until they saturate.
        assert_eq!(aged(at(390, first), 5), at(395, first));
        assert_eq!(aged(250, 10), OLD);
        // Frames across the counter's wrap.
        let born = u32::MAX - 3;
        assert!(same(u32::MAX - 1, 5, age_byte(5u32.wrapping_sub(born))));
        assert!(!same(u32::MAX - 5, 5, age_byte(5u32.wrapping_sub(born))));
    }
}
