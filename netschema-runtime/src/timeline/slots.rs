//! Which row slot each keyframe occupies, so that a timeline travels as scalar fields of its
//! class's row.
//!
//! A timeline of capacity `n` (its [`Spec::capacity`](super::Spec::capacity)) and `W`
//! components is `n` slots of `2 + W` scalar fields in its class's row: whether the slot holds
//! a keyframe (0: no; 1 or 2, alternating each time the slot takes a new keyframe, so that a
//! new keyframe is told from a moved one), the keyframe's frame, then its raw values. A
//! keyframe keeps its slot for as long as it exists and a new one takes the slot after the
//! latest keyframe's (in a ring) if that is free, else the lowest free slot, so an edit changes
//! only the slots it touches: adding writes one slot, removing clears one slot's flag (its
//! frame and values stay as they were), moving rewrites one slot's frame. The engine sends the
//! slots an edit changed as a keyframe record, once, and the client's slots follow the records
//! it applies (`docs/protocol.md`, "Timeline fields").

/// Scalar fields of a slot before its values: the flag and the frame.
pub(super) const HEAD: usize = 2;

/// One slot: whether it holds a keyframe, its generation (1 or 2, alternating each time the
/// slot takes a keyframe; 0 before the first), and the frame and values it last held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot<const W: usize> {
    live: bool,
    generation: u8,
    time: u32,
    value: [i32; W],
}

/// A timeline's slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slots<const W: usize, const CAP: usize>([Slot<W>; CAP]);

impl<const W: usize, const CAP: usize> Slots<W, CAP> {
    /// All empty.
    pub(super) const EMPTY: Self =
        Slots([Slot { live: false, generation: 0, time: 0, value: [0; W] }; CAP]);

    /// Gives the keyframe at `time` a free slot (there is one while the timeline has room):
    /// the one after the slot of the latest keyframe, in a ring, when that is free, so that a
    /// keyframe added after the others sits in the slot after its predecessor's (which the
    /// engine predicts a new keyframe from, see `KeySlot`); otherwise the lowest free one.
    pub(super) fn take(&mut self, time: u32, value: [i32; W]) {
        let latest = self.0.iter().enumerate().filter(|(_, s)| s.live).max_by_key(|(_, s)| s.time);
        let next = latest.map_or(0, |(i, _)| (i + 1) % CAP);
        let free = match self.0.get(next) {
            Some(s) if !s.live => Some(next),
            _ => self.0.iter().position(|s| !s.live),
        };
        if let Some(s) = free.and_then(|i| self.0.get_mut(i)) {
            let generation = if s.generation == 1 { 2 } else { 1 };
            *s = Slot { live: true, generation, time, value };
        }
    }

    /// The keyframe at `from` moves to `to` (or leaves, with `None`), keeping its slot.
    pub(super) fn retime(&mut self, from: u32, to: Option<u32>) {
        if let Some(s) = self.0.iter_mut().find(|s| s.live && s.time == from) {
            match to {
                Some(t) => s.time = t,
                None => s.live = false,
            }
        }
    }

    /// Writes the slots into `row`, [`HEAD`]` + W` fields each: the generation if live (else
    /// 0), frame, values.
    pub(super) fn write(&self, row: &mut [i32]) {
        for (s, out) in self.0.iter().zip(row.chunks_exact_mut(HEAD + W)) {
            out[0] = if s.live { i32::from(s.generation) } else { 0 };
            out[1] = s.time as i32;
            out[HEAD..].copy_from_slice(&s.value);
        }
    }

    /// Reads the first `n` slots from `row` (as [`Slots::write`] writes them) and empties the
    /// rest; a flag other than 1 or 2 or a negative frame counts as empty.
    pub(super) fn read(&mut self, row: &[i32], n: usize) {
        *self = Self::EMPTY;
        for (s, chunk) in self.0.iter_mut().zip(row.chunks_exact(HEAD + W)).take(n) {
            let time = u32::try_from(chunk[1]).ok();
            s.generation = u8::try_from(chunk[0]).unwrap_or(0).min(2);
            s.live = s.generation > 0 && time.is_some();
            s.time = time.unwrap_or(0);
            s.value.copy_from_slice(&chunk[HEAD..]);
        }
    }

    /// The live slots' keyframes, in slot order.
    pub(super) fn keys(&self) -> impl Iterator<Item = (u32, [i32; W])> + '_ {
        self.0.iter().filter(|s| s.live).map(|s| (s.time, s.value))
    }
}
