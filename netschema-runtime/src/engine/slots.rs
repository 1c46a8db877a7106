//! Frame slots: which physical slot holds which frame, with one spare slot so that a new
//! frame is built beside the old ones and committed only once it is complete. A frame of
//! reach `r` goes to the logical slot of its number shifted right by `r`, modulo [`WINDOW`].

use crate::engine::frame::{MAX_REACH, NO_FRAME, WINDOW};
use crate::model::predict::MAX_SAMPLES;

/// Physical slots: one per frame of the window plus the spare.
pub(crate) const SLOTS: usize = WINDOW as usize + 1;

/// Maps frames of the window to physical slots.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slots {
    frame: [u32; SLOTS],
    /// The largest lag (see `engine::packet`) any handle has in each physical slot: while it
    /// and a frame's age are small, no value held there can have left the window.
    max_lag: [u8; SLOTS],
    /// The baseline distance of the packet that made each physical slot's frame (0: none).
    distance: [u8; SLOTS],
    /// The reach of the packet that made each physical slot's frame.
    reach: [u8; SLOTS],
    logical: [u8; WINDOW as usize],
    spare: u8,
}

impl Slots {
    pub(crate) fn new() -> Self {
        let mut logical = [0u8; WINDOW as usize];
        for (i, l) in logical.iter_mut().enumerate() {
            *l = i as u8;
        }
        Slots {
            frame: [NO_FRAME; SLOTS],
            max_lag: [0; SLOTS],
            distance: [0; SLOTS],
            reach: [0; SLOTS],
            logical,
            spare: WINDOW as u8,
        }
    }

    /// The physical slot holding `frame`, if it is held (under whichever reach stored it).
    #[inline]
    pub(crate) fn find(&self, frame: u32) -> Option<usize> {
        (0..=MAX_REACH).find_map(|reach| {
            let p = usize::from(self.logical[((frame >> reach) % WINDOW) as usize]);
            (frame != NO_FRAME && self.frame[p] == frame).then_some(p)
        })
    }

    /// The name of the frame in physical slot `p`: its number shifted right by its reach,
    /// whose low bits name it among the frames held (see [`Slots::held_at`]).
    #[inline]
    pub(crate) fn name(&self, p: usize) -> u32 {
        self.frame_of(p) >> self.reach(p)
    }

    /// The frame held whose name ([`Slots::name`]) is `name` modulo `2^bits` (`bits >= 5`), if
    /// any: at most one frame per name modulo [`WINDOW`] is held.
    #[inline]
    pub(crate) fn held_at(&self, name: u32, bits: u32) -> Option<u32> {
        let p = usize::from(self.logical[(name % WINDOW) as usize]);
        let mask = (1u32 << bits.min(31)) - 1;
        let frame = self.frame[p];
        (frame != NO_FRAME && self.name(p) & mask == name & mask).then_some(frame)
    }

    /// The slot a new frame is built in.
    #[inline]
    pub(crate) fn spare(&self) -> usize {
        usize::from(self.spare)
    }

    /// The frame physical slot `p` holds ([`NO_FRAME`] if none).
    #[inline]
    pub(crate) fn frame_of(&self, p: usize) -> u32 {
        self.frame.get(p).copied().unwrap_or(NO_FRAME)
    }

    /// The largest lag of any handle in physical slot `p`.
    #[inline]
    pub(crate) fn max_lag(&self, p: usize) -> u8 {
        self.max_lag.get(p).copied().unwrap_or(u8::MAX)
    }

    /// The baseline distance of the packet that made the frame in physical slot `p` (0 for a
    /// packet without baseline).
    #[inline]
    pub(crate) fn distance(&self, p: usize) -> u32 {
        self.distance.get(p).copied().map_or(0, u32::from)
    }

    /// The reach of the packet that made the frame in physical slot `p`.
    #[inline]
    pub(crate) fn reach(&self, p: usize) -> u32 {
        self.reach.get(p).copied().map_or(0, u32::from)
    }

    /// The physical slot whose frame committing `frame` with reach `reach` will drop (see
    /// [`Slots::commit`]).
    #[inline]
    pub(crate) fn replaced(&self, frame: u32, reach: u32) -> usize {
        usize::from(self.logical[((frame >> reach.min(MAX_REACH)) % WINDOW) as usize])
    }

    /// Makes the spare slot hold `frame`, whose largest lag is `max_lag` and whose packet had
    /// a baseline `distance` frames old (0: none) and reach `reach` (at most [`MAX_REACH`]);
    /// the slot it replaces becomes the spare.
    pub(crate) fn commit(&mut self, frame: u32, max_lag: u8, distance: u32, reach: u32) {
        let reach = reach.min(MAX_REACH);
        self.max_lag[usize::from(self.spare)] = max_lag;
        self.distance[usize::from(self.spare)] = distance.min(u32::from(u8::MAX)) as u8;
        self.reach[usize::from(self.spare)] = reach as u8;
        let l = ((frame >> reach) % WINDOW) as usize;
        let old = self.logical[l];
        self.logical[l] = self.spare;
        self.frame[usize::from(self.spare)] = frame;
        self.spare = old;
        self.frame[usize::from(old)] = NO_FRAME;
    }
}

/// Splits `all`, `per` items per physical slot, into the slot `write` (mutable) and the slots
/// `read` (shared, in order, distinct from `write` and each other; the rest empty). Empty slices throughout when `per` is 0.
pub(crate) fn split<'a, T>(
    all: &'a mut [T],
    per: usize,
    write: usize,
    read: &[usize],
) -> (&'a mut [T], [&'a [T]; MAX_SAMPLES]) {
    let mut shared: [&'a [T]; MAX_SAMPLES] = [&[]; MAX_SAMPLES];
    if per == 0 {
        return (&mut [], shared);
    }
    let mut chunks = all.chunks_mut(per);
    let mut slots: [Option<&'a mut [T]>; SLOTS] = core::array::from_fn(|_| chunks.next());
    let written = slots.get_mut(write).and_then(Option::take).unwrap_or(&mut []);
    for (s, &p) in shared.iter_mut().zip(read) {
        *s = slots.get_mut(p).and_then(Option::take).map_or(&[], |m| &*m);
    }
    (written, shared)
}
