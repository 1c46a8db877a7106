//! Which row slot each keyframe occupies, so that a timeline travels as plain scalar fields.
//!
//! A timeline of capacity `n` (its [`Spec::capacity`](super::Spec::capacity)) and `W`
//! components is `n` slots of `1 + W` scalar fields in its class's row: the keyframe's frame
//! plus one (0: the slot is empty), then its raw values. A keyframe keeps its slot for as long
//! as it exists and a new one takes the lowest free slot, so an edit changes only the slots it
//! touches: adding writes one slot, removing clears one slot's time (its values stay, as they
//! were), moving rewrites one slot's time. The engine codes rows against what the client holds,
//! so unchanged slots cost a fraction of a bit and the client's list follows the server's under
//! loss like any other field.

/// Each slot's keyframe frame (`None` when empty) and the values it last held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slots<const W: usize, const CAP: usize>([(Option<u32>, [i32; W]); CAP]);

impl<const W: usize, const CAP: usize> Slots<W, CAP> {
    /// All empty.
    pub(super) const EMPTY: Self = Slots([(None, [0; W]); CAP]);

    /// Gives the keyframe at `time` the lowest free slot (there is one while the timeline has
    /// room).
    pub(super) fn take(&mut self, time: u32, value: [i32; W]) {
        if let Some(s) = self.0.iter_mut().find(|s| s.0.is_none()) {
            *s = (Some(time), value);
        }
    }

    /// The keyframe at `from` moves to `to` (or leaves, with `None`), keeping its slot.
    pub(super) fn retime(&mut self, from: u32, to: Option<u32>) {
        if let Some(s) = self.0.iter_mut().find(|s| s.0 == Some(from)) {
            s.0 = to;
        }
    }

    /// Writes the slots into `row`, `1 + W` fields each: frame + 1 (0 when empty), values.
    pub(super) fn write(&self, row: &mut [i32]) {
        for ((time, value), out) in self.0.iter().zip(row.chunks_exact_mut(1 + W)) {
            out[0] = time.map_or(0, |t| t as i32 + 1);
            out[1..].copy_from_slice(value);
        }
    }

    /// Reads the first `n` slots from `row` (as [`Slots::write`] writes them) and empties the
    /// rest; a negative time field counts as empty.
    pub(super) fn read(&mut self, row: &[i32], n: usize) {
        *self = Self::EMPTY;
        for (slot, chunk) in self.0.iter_mut().zip(row.chunks_exact(1 + W)).take(n) {
            slot.0 = u32::try_from(chunk[0]).ok().and_then(|t| t.checked_sub(1));
            slot.1.copy_from_slice(&chunk[1..]);
        }
    }

    /// The occupied slots' keyframes, in slot order.
    pub(super) fn keys(&self) -> impl Iterator<Item = (u32, [i32; W])> + '_ {
        self.0.iter().filter_map(|&(t, v)| t.map(|t| (t, v)))
    }
}
