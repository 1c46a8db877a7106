//! Keyframe records: a timeline's keyframes travel in the record stream, sent once per edit,
//! rather than in the state stream (see `docs/protocol.md`, "Timeline fields").
//!
//! The world keeps the timeline fields of each entity apart from its archived row
//! ([`World::set`](crate::World::set)), so the state stream codes them as their empty values.
//! Before each packet the peer compares each handle's timeline slots in the world with a
//! shadow of what it has queued to the client and queues one keyframe record for the slots
//! that changed (`shadow`). The client applies the records in order, once each, to a store per
//! handle and shows the slots from it in the rows it hands out (`store`). A record names the
//! handle, the handle's birth frame and the entity's class, so that it only ever reaches the
//! entity born then.
//!
//! - `record`: the record's bytes, written and read;
//! - `shadow`: the peer's side;
//! - `store`: the client's side.

mod record;
mod shadow;
mod store;

pub(crate) use record::check;
pub(crate) use shadow::Shadow;
pub(crate) use store::Store;

use crate::schema::Class;

/// The fields of keyframe slot whose flag is field `f` of `class`: the flag, the frame, the
/// values (0 if `f` is no slot's flag).
fn stride(class: &Class, f: usize) -> usize {
    class.fields.get(f + 1).and_then(|n| n.slot).map_or(0, |s| usize::from(s.stride))
}

/// The index of the flag of the slot before the one whose flag is field `f` of `class` (the
/// last slot's, for slot 0).
fn previous_flag(class: &Class, f: usize) -> usize {
    let time = class.fields.get(f + 1).and_then(|n| n.slot);
    time.map_or(f, |s| s.flag_field(s.previous_field(f + 1)))
}

/// Whether keyframe slot `f..f + stride` differs between `held` (what the client holds) and
/// `now`: in its flag, or in its frame and values while it holds a keyframe (an empty slot
/// keeps the frame and values it last held).
fn differs(held: &[i32], now: &[i32], f: usize, stride: usize) -> bool {
    let (a, b) = (held.get(f..f + stride), now.get(f..f + stride));
    match (a, b) {
        (Some(a), Some(b)) => a[0] != b[0] || (b[0] != 0 && a[1..] != b[1..]),
        _ => false,
    }
}

/// `held` (what the client holds) takes slot `f..f + stride` from `now` as a keyframe record
/// sends it: the flag, and the frame and values if it holds a keyframe.
fn take(held: &mut [i32], now: &[i32], f: usize, stride: usize) {
    if let (Some(a), Some(b)) = (held.get_mut(f..f + stride), now.get(f..f + stride)) {
        a[0] = b[0];
        if b[0] != 0 {
            a[1..].copy_from_slice(&b[1..]);
        }
    }
}
