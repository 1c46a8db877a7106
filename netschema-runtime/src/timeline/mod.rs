//! Keyframe timelines: a field's values given ahead of time as `(frame, value)` keyframes,
//! looked up at any time (Brand 2019, after Planetary Annihilation's Chronocam).
//!
//! A [`Timeline`] holds one entity's keyframes of one field, sorted by time, in fixed storage:
//! up to [`Spec::ahead`] keyframes after the timeline's current frame and up to
//! [`Spec::history`] at or before it, kept for [`Spec::keep`] frames so that a client can
//! rewind. The server edits it ([`Timeline::add`], [`Timeline::remove`],
//! [`Timeline::move_key`]); the client looks values up ([`Timeline::value_at`]).
//!
//! # Lookup
//!
//! [`Timeline::value_at`] finds the keyframes around `t` by binary search (O(log n), no
//! allocation) and returns raw values:
//! - no keyframes: `None`;
//! - before the first keyframe: the first keyframe's value; after the last: the last's (hold,
//!   as the seed's §3.4 specifies; a rewind past the kept history therefore holds the oldest
//!   kept value);
//! - at a keyframe's time: exactly its value;
//! - between keyframes `a` and `b`, with `s = (t - a.time) / (b.time - a.time)`, by the field's
//!   [`Interp`]: [`Interp::Step`] gives `a`; [`Interp::Linear`] gives `a + s (b - a)` rounded to
//!   the nearest raw step (halves away from `a`); [`Interp::Cubic`] gives the monotone cubic
//!   Hermite curve (Fritsch–Carlson, tangents by Fritsch–Butland's weighted harmonic mean of
//!   the neighbouring slopes, 0 at a local extremum, the segment's slope at the ends), rounded
//!   the same way.
//!
//! Per kind ([`Kind`]): numeric components interpolate their raw values and stay inside the
//! field's range; wrapping components (angles) take the shortest arc and wrap; a quaternion
//! ([`Kind::Quat`]) is normalised-lerped on the shorter great circle and requantised;
//! categorical components (bools, enums) and integers declared step-only use
//! [`Interp::Step`] (a [`Spec`] that asks more is refused by [`Spec::validate`]).
//!
//! Why monotone Hermite and not Catmull-Rom: quantised fields have hard ranges (a progress bar
//! from 0 to 100 %, a position inside the map) and waypoint paths stop; Catmull-Rom overshoots
//! past a keyframe next to a change of direction or a stop, a monotone curve never leaves the
//! range of the two keyframes around it. Both pass through every keyframe, and both follow
//! constant-velocity motion exactly.
//!
//! # Edits and the past
//!
//! The server's timeline has a current frame ([`Timeline::advance`]): what it sent for times up
//! to it is final. Editing a keyframe at or before it is [`Error::KeyframeInPast`]; adding past
//! [`Spec::ahead`] future keyframes is [`Error::TimelineFull`]; nothing is dropped silently.
//! An edit that would change the curve at the current frame first pins it: a keyframe is
//! inserted at the current frame with the value looked up there, so values already shown stay
//! as they were: exactly for step curves and at every keyframe; between the previous keyframe
//! and the pin, within the one raw step by which the pinned value was rounded for linear
//! curves; for cubic ones the shape there may change by more, as its tangents move.
//! Edits beyond the first keyframe after the current frame (the second, for cubic curves)
//! need no pin. A timeline that was empty at a time holds its first keyframe's value there
//! once it has one.
//!
//! A keyframe that reaches a client after its time has passed there makes the client's value
//! jump: lookups from then on use the new curve, as the seed describes (§2.6.4). Sending
//! keyframes further ahead than the link's latency avoids it.
//!
//! Times: keyframes sit on whole frames, from the start of the session, up to `i32::MAX`
//! (a keyframe later than that is [`Error::OutOfRange`]); lookups take a [`Time`], frames in
//! 16.16 fixed point, so a client can sample between frames.
//! A schema that declares its frame rate (`rate 60;`) turns [`Seconds`] into keyframe frames
//! ([`Schema::frame_at`](crate::schema::Schema::frame_at)) and lookup times
//! ([`Schema::time_at`](crate::schema::Schema::time_at)).
//!
//! A timeline is scalar fields of its class's row, slot by slot ([`Timeline::write_row`],
//! [`Timeline::read_row`]), which the engine sends as keyframe records, once per edit, rather
//! than in the state stream (`docs/protocol.md`, "Timeline fields").

mod curve;
mod keys;
mod slots;

pub use keys::{Keyframe, Timeline};

use crate::quant::QuatQuant;
use crate::schema::{Coding, Field};
use crate::{Error, Result};

/// A point in time in frames, 16.16 fixed point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    /// Fractional bits.
    pub const FRAC_BITS: u32 = 16;

    /// The start of frame `frame`.
    pub const fn frame(frame: u32) -> Time {
        Time((frame as u64) << Self::FRAC_BITS)
    }

    /// The time `seconds` after frame 0 at `rate` frames per second (saturating).
    pub const fn from_seconds(seconds: Seconds, rate: u32) -> Time {
        Time(seconds.0.saturating_mul(rate as u64))
    }

    /// The frame nearest to this time (halves round up; saturating at `u32::MAX`).
    pub const fn nearest_frame(self) -> u32 {
        Time(self.0.saturating_add(1 << (Self::FRAC_BITS - 1))).whole_frame()
    }

    /// The whole frame at or before this time (saturating at `u32::MAX`).
    pub const fn whole_frame(self) -> u32 {
        let f = self.0 >> Self::FRAC_BITS;
        if f > u32::MAX as u64 { u32::MAX } else { f as u32 }
    }
}

/// A point in time in seconds after frame 0, 16.16 fixed point: `Seconds(5 << 16 | 1 << 15)`
/// is 5.5 s. A schema that declares its frame rate turns it into frames
/// ([`Schema::frame_at`](crate::schema::Schema::frame_at)) and lookup times
/// ([`Schema::time_at`](crate::schema::Schema::time_at)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seconds(pub u64);

impl Seconds {
    /// Fractional bits.
    pub const FRAC_BITS: u32 = 16;

    /// `ms` milliseconds, to the nearest 1/65 536 s (saturating).
    pub const fn from_millis(ms: u64) -> Seconds {
        Seconds(ms.saturating_mul(1 << Self::FRAC_BITS).saturating_add(500) / 1000)
    }
}

/// The fingerprint of a timeline slot's flag field (its `Field::meaning`): 0 for an empty
/// slot, 1 or 2 for a keyframe, alternating each time the slot takes a new one.
pub const FLAG_MEANING: u64 = crate::quant::fingerprint(0x7132, &[3]);

/// How values between two keyframes are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interp {
    /// The earlier keyframe's value until the next keyframe.
    Step,
    /// A straight line between the two keyframes.
    Linear,
    /// A monotone cubic Hermite curve through the keyframes (see the module documentation).
    Cubic,
}

impl Interp {
    /// The fingerprint of a timeline slot's time field (its `Field::meaning`) for this
    /// interpolation: builds that look keyframes up differently refuse each other.
    pub const fn fingerprint(self) -> u64 {
        crate::quant::fingerprint(0x7131, &[self as u64])
    }
}

/// What a timeline's components are.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// Independent scalar components, each interpolated on its own: numeric ones on their raw
    /// values, wrapping ones (angles) on the shortest arc, categorical ones by step.
    Scalars,
    /// One quaternion in the raw "smallest three" form of this quantiser (four components):
    /// normalised lerp on the shorter arc.
    Quat(QuatQuant),
}

/// A timeline field's declaration: what the schema compiler emits as a `const`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spec {
    /// The scalar fields of one keyframe's value, in order (their ranges and wrapping).
    pub fields: &'static [Field],
    /// What the components are.
    pub kind: Kind,
    /// Interpolation between keyframes.
    pub interp: Interp,
    /// Most keyframes after the current frame.
    pub ahead: u16,
    /// Most keyframes at or before the current frame (at least 1).
    pub history: u16,
    /// Frames of history kept: keyframes older than this are forgotten, except the newest
    /// of them, which the lookup at the horizon needs.
    pub keep: u32,
}

impl Spec {
    /// Keyframes a timeline of this spec may hold: `ahead + history`.
    pub const fn capacity(&self) -> usize {
        self.ahead as usize + self.history as usize
    }

    /// Checks the spec for a timeline of `width` components and `capacity` keyframes:
    /// `width` fields, `history >= 1`, `ahead >= 1`, room for `ahead + history` keyframes,
    /// categorical fields step-only (but a quaternion's largest-component index), quaternions
    /// four components and not cubic.
    pub const fn validate(&self, width: usize, capacity: usize) -> Result<()> {
        let mut categorical = false;
        let mut f = 0;
        while f < self.fields.len() {
            categorical |= matches!(self.fields[f].coding, Coding::Categorical);
            f += 1;
        }
        let step = matches!(self.interp, Interp::Step);
        let cubic = matches!(self.interp, Interp::Cubic);
        let quat = matches!(self.kind, Kind::Quat(_));
        let bad = self.fields.len() != width
            || self.history == 0
            || self.ahead == 0
            || self.capacity() > capacity
            || (categorical && !step && !quat)
            || (quat && (width != 4 || cubic));
        if bad { Err(Error::InvalidSchema) } else { Ok(()) }
    }
}
