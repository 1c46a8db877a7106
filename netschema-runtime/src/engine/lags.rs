//! How stale the values a frame holds are, as both ends record it: rather than a lag per frame
//! slot, handle and update group, which frames' packets sent each handle's groups, and each
//! frame's chain of baselines.
//!
//! A packet either sends a group of a handle (its lag there is 0) or holds what its baseline
//! held, `d` frames more stale. So the values a frame `t` holds came from the newest frame of
//! its chain (`t`, its baseline, that one's baseline, …) whose packet sent them, and the lag
//! is how far back that is. Each handle and group keeps one bit per frame of the last
//! [`RING`] (`PeerStorage::sends`, `ClientStorage::sends`), each frame slot the frames of its
//! chain within as many (`PeerStorage::chains`, `ClientStorage::chains`): 16 bytes per handle
//! and group in all, where a lag per slot took 33. Values older than [`RING`] frames are past
//! every window ([`in_window`]), so their lag reads as [`u8::MAX`].
//!
//! [`in_window`]: crate::engine::packet::in_window

use crate::engine::frame::{ARCHIVE, age};
use crate::schema::MAX_GROUPS;

/// Frames a handle's sends are kept for: the server's archive.
pub(crate) const RING: u32 = ARCHIVE;
const _: () = assert!(RING == u128::BITS, "one bit per frame of a u128");

/// The bit of `frame` in a handle's sends: frame `f` at bit `−f mod 128`, so that rotating
/// left by `t mod 128` puts frame `t − i` at bit `i`.
#[inline]
pub(crate) fn bit(frame: u32) -> u128 {
    1 << (frame.wrapping_neg() % RING)
}

/// The chain of a frame sent against a baseline whose chain is `base`, `distance` frames
/// before it, or against none: bit `i` set when frame `t − i` is in it (bit 0, the frame
/// itself, always).
#[inline]
pub(crate) fn chain(base: Option<(u128, u32)>) -> u128 {
    match base {
        Some((chain, distance)) if distance < RING => chain << distance | 1,
        _ => 1,
    }
}

/// Whether an update whose due groups are `due` sends group `group` of a class of `groups`:
/// a due group, or one past the class's (whose lag counts as 0).
#[inline]
pub(crate) fn sends_group(group: usize, groups: usize, due: u32) -> bool {
    group >= groups || (group < 32 && due >> group & 1 != 0)
}

/// A lag of `frames` frames as both ends bound a slot's lags: saturated at [`u8::MAX`].
#[inline]
pub(crate) fn lag_byte(frames: u32) -> u8 {
    frames.min(u32::from(u8::MAX)) as u8
}

/// The chain `chain` of frame `t` cut to the frames still in the ring at frame `now` (the
/// newest frame whose bits the ring holds): frames more than [`RING`] before `now` have left
/// it, their bits are newer frames'. Cutting again at a later frame cuts no less.
#[inline]
pub(crate) fn cut(chain: u128, t: u32, now: u32) -> u128 {
    let back = age(now, t);
    if back >= RING { 0 } else { chain & (u128::MAX >> back) }
}

/// How the lags of one frame slot read: the slot's frame and chain, cut to the frames still in
/// the ring (at the packet's frame while a packet is coded; on the client between packets, at
/// the newest frame it accepted).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LagView {
    rotate: u32,
    chain: u128,
    /// Whether the packet references the slot (else every lag reads 0).
    referenced: bool,
}

impl LagView {
    /// A slot the packet does not reference: every lag reads 0.
    pub(crate) const NONE: LagView = LagView { rotate: 0, chain: 0, referenced: false };

    /// The lags of frame `t`, whose chain is `chain`, read at frame `now` (the newest frame
    /// whose bits the ring holds).
    #[inline]
    pub(crate) fn at(chain: u128, t: u32, now: u32) -> LagView {
        LagView::cut(cut(chain, t, now), t)
    }

    /// The lags of frame `t`, whose chain `chain` is cut (see [`cut`]) at the newest frame
    /// whose bits the ring holds.
    #[inline]
    pub(crate) fn cut(chain: u128, t: u32) -> LagView {
        LagView { rotate: t % RING, chain, referenced: true }
    }

    /// The lags of frame `t`, in slot `p` of the slots' `chains`, read at frame `now`.
    #[inline]
    pub(crate) fn of(chains: &[u128], p: usize, t: u32, now: u32) -> LagView {
        LagView::at(chains.get(p).copied().unwrap_or(1), t, now)
    }

    /// The lags of a handle's groups whose sends are `sends`, one per group (see
    /// [`LagView::lag`]); 0 past them.
    #[inline]
    pub(crate) fn groups(self, sends: &[u128]) -> [u8; MAX_GROUPS] {
        let mut lags = [0; MAX_GROUPS];
        for (lag, &sent) in lags.iter_mut().zip(sends) {
            *lag = self.lag(sent);
        }
        lags
    }

    /// The lag of handle `h`'s group `g` in `sends`, which hold `groups` per handle (0 past
    /// them).
    #[inline]
    pub(crate) fn lag_of(self, sends: &[u128], groups: usize, h: u32, g: usize) -> u8 {
        sends.get(h as usize * groups + g).map_or(0, |&sent| self.lag(sent))
    }

    /// The lag of a handle's group whose sends are `sends`: frames from the newest frame of
    /// the chain that sent it, [`u8::MAX`] if none in the ring did.
    #[inline]
    pub(crate) fn lag(self, sends: u128) -> u8 {
        let sent = sends.rotate_left(self.rotate) & self.chain;
        match (self.referenced, sent) {
            (false, _) => 0,
            (true, 0) => u8::MAX,
            (true, sent) => sent.trailing_zeros() as u8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lags of one handle over frames sent against baselines `d` frames back, sending at the
    /// frames `sent` says, read as the client would keep them and as the ring tells them.
    #[test]
    fn the_ring_tells_the_lags_a_client_keeps() {
        let mut sends = 0u128;
        let (mut chains, mut lags) = ([0u128; 400], [0u32; 400]);
        for t in 0..400u32 {
            let d = 1 + (t * 7 + t / 13) % 17;
            let base = (t >= d).then(|| (t - d) as usize);
            sends &= !bit(t);
            // A packet without baseline sends everything; for a long stretch nothing else is
            // sent, so that values leave the ring.
            let quiet = (200..380).contains(&t);
            let sent = (!quiet && (t % 5 == 0 || t % 11 == 3)) || base.is_none();
            if sent {
                sends |= bit(t);
            }
            lags[t as usize] = match base {
                Some(b) if !sent => lags[b] + d,
                _ => 0,
            };
            chains[t as usize] = chain(base.map(|b| (chains[b], d)));
            // Every frame the ring still holds, read at this one.
            for back in 0..t.min(40) {
                let p = (t - back) as usize;
                let view = LagView::at(chains[p], t - back, t);
                let expected = if lags[p] + back < RING { lags[p] } else { u32::from(u8::MAX) };
                assert_eq!(u32::from(view.lag(sends)), expected, "frame {p} read at {t}");
            }
        }
    }

    #[test]
    fn an_unreferenced_slot_reads_0_and_a_forgotten_one_the_most() {
        assert_eq!(LagView::NONE.lag(u128::MAX), 0);
        assert_eq!(LagView::at(u128::MAX, 5, 5 + RING).lag(u128::MAX), u8::MAX);
    }
}
