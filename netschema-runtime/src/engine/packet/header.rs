//! The packet header after the baseline: which model a packet starts from, a cold
//! packet's reach, the baseline's distance, and the history frames predictors use.

use super::{COUNT_DISTANCE, COUNT_HISTORY_GAP, FLAG_MORE_HISTORY, Refs};

use crate::codec::coder::BinaryCoder;
use crate::engine::frame::{MAX_REACH, NO_FRAME, REACH, age, span};
use crate::engine::models::model_stride;
use crate::model::predict::MAX_SAMPLES;
use crate::model::{Model, ModelPolicy};
use crate::{Error, Result};

/// Bits of the bit length of a batched packet's model age (see [`code_model`]).
const MODEL_CLASS_BITS: u32 = 5;

/// Codes, in a batched packet's header (and a per-frame one's when [`code_model_frame`]'s
/// guesses miss), which model it starts from (`model`): the bit length of its age
/// `reference − model` in [`MODEL_CLASS_BITS`] direct bits (0: cold models), then the age's
/// bits below the leading one. `reference` is the baseline, or without one the packet's
/// frame. The encoder names models less than 2^31 frames old (see `Book::in_use`). The
/// decoder fills `model`.
fn code_model<C: BinaryCoder>(coder: &mut C, model: &mut u32, reference: u32) -> Result<()> {
    let age = match *model {
        NO_FRAME => 0,
        m => age(reference, m) & (u32::MAX >> 1),
    };
    let class = coder.direct(32 - age.leading_zeros(), MODEL_CLASS_BITS);
    *model = match class {
        0 => NO_FRAME,
        c => {
            let top = 1u32 << (c - 1);
            let m = reference.wrapping_sub(top + coder.direct(age.wrapping_sub(top), c - 1));
            if m == NO_FRAME {
                return Err(Error::Corrupt);
            }
            m
        }
    };
    Ok(())
}

/// Codes which model a packet starts from (`model`, the decoder fills it) as `policy` names
/// it: batched, [`code_model`] against `reference` (the baseline, or without one the packet's
/// frame); per frame, with a baseline (`reference`, whose own baseline distance is `before`)
/// its model frame ([`code_model_frame`]), and nothing without one (cold models).
pub(crate) fn code_packet_model<C: BinaryCoder>(
    coder: &mut C,
    model: &mut u32,
    policy: ModelPolicy,
    (reference, before): (u32, Option<u32>),
) -> Result<()> {
    match (policy, before) {
        (ModelPolicy::PerFrame, None) => Ok(()),
        (ModelPolicy::PerFrame, Some(before)) => {
            code_model_frame(coder, model, (reference, before))
        }
        _ => code_model(coder, model, reference),
    }
}

/// Codes, in the header of a per-frame packet with baseline `base`, the model frame it
/// starts from (`model`, see [`model_stride`]) against the one expected, the newest multiple
/// at or before `base` of the stride `base`'s own baseline distance (`before`) gives (as it is
/// while acks keep coming and the round trip holds): a direct bit, 1 when it is that frame;
/// else a second, 1 when it is the multiple before; else [`code_model`] against `base` (0:
/// cold models). The decoder fills `model`.
fn code_model_frame<C: BinaryCoder>(
    coder: &mut C,
    model: &mut u32,
    (base, before): (u32, u32),
) -> Result<()> {
    let stride = model_stride(before);
    let expected = base - base % stride;
    for candidate in [expected, expected.wrapping_sub(stride)] {
        if coder.direct(u32::from(*model == candidate), 1) == 1 {
            *model = candidate;
            return Ok(());
        }
    }
    code_model(coder, model, base)
}

/// Bits of a packet without baseline's reach.
const REACH_BITS: u32 = 2;
const _: () = assert!(MAX_REACH < 1 << REACH_BITS);

/// Codes, in a packet without baseline, its reach (`reach`, at most [`MAX_REACH`]) in
/// [`REACH_BITS`] direct bits: the server's round trip decides it, as there is no baseline
/// distance to give it. Returns the reach; the decoder rejects one past [`MAX_REACH`].
pub(crate) fn code_cold_reach<C: BinaryCoder>(coder: &mut C, reach: u32) -> Result<u32> {
    match coder.direct(reach, REACH_BITS) {
        r if r <= MAX_REACH => Ok(r),
        _ => Err(Error::Corrupt),
    }
}

/// Codes, in a packet with a baseline, the baseline's distance from the packet's frame
/// (`distance`, 1 to `REACH − 1` on the encoder) as its difference from `before`, the
/// baseline distance of the packet that made the baseline (0 if it had none), which both ends
/// hold: the distance follows the round trip, so it mostly repeats. Returns the distance; the
/// decoder rejects one outside the window.
pub(crate) fn code_distance<C: BinaryCoder>(
    coder: &mut C,
    packet: &mut Model,
    distance: u32,
    before: u32,
) -> Result<u32> {
    let d = packet.code_count(coder, COUNT_DISTANCE, distance.wrapping_sub(before) as i32);
    match before.checked_add_signed(d) {
        Some(d) if d > 0 && d < REACH => Ok(d),
        _ => Err(Error::Corrupt),
    }
}

/// The frame history sample `len` (1 or more) is picked near: `len + 1` times the baseline's
/// distance back from the packet's frame, within the span of the packet's `reach` and before
/// sample `len − 1`, which is `previous` frames back. `None` when no frame is left between
/// that one and the span's end. The server picks the acknowledged frame nearest it (see
/// `Peer::references`).
#[inline]
pub(crate) fn history_target(distance: u32, len: usize, previous: u32, reach: u32) -> Option<u32> {
    let end = span(reach);
    (previous + 1 < end).then(|| (distance * (len as u32 + 1)).clamp(previous + 1, end - 1))
}

/// Codes the history list: which acknowledged frames before the baseline predictors use. Each
/// is coded behind a "more" flag (none once the window is used up) as its distance from
/// [`history_target`]. The decoder fills `refs` and rejects frames outside the span.
pub(crate) fn code_history<C: BinaryCoder>(
    coder: &mut C,
    packet: &mut Model,
    refs: &mut Refs,
) -> Result<()> {
    if refs.len == 0 {
        return Ok(());
    }
    let distance = refs.distance();
    let before = (refs.len, refs.history);
    let mut len = 1;
    while len < MAX_SAMPLES {
        let previous = age(refs.frame, refs.history[len - 1]);
        let Some(target) = history_target(distance, len, previous, refs.reach) else {
            break;
        };
        if !packet.code_flag(coder, FLAG_MORE_HISTORY + len - 1, len < refs.len) {
            break;
        }
        let back = age(refs.frame, refs.history[len]);
        let off = packet.code_count(coder, COUNT_HISTORY_GAP, back.wrapping_sub(target) as i32);
        let back = target.wrapping_add(off as u32);
        if back <= previous || back >= span(refs.reach) {
            return Err(Error::Corrupt);
        }
        refs.history[len] = refs.frame.wrapping_sub(back);
        len += 1;
    }
    refs.len = len;
    // The encoder codes the history its references already hold, and their table with it.
    if (refs.len, refs.history) != before {
        refs.update_table();
    }
    Ok(())
}
