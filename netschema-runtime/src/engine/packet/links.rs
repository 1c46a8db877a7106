//! Links: an entity's references to other entities ([`Class::links`]), as the client holds
//! them — the handle of the target plus 1, or 0 while the client does not hold the target. A
//! server id never reaches a client.
//!
//! A link is predicted as held: the value at the baseline, unless the handle it names is not
//! kept in the new frame (its entity left, or the handle was given another entity), when it
//! reads none; an entering entity's links are predicted none. An entity the packet sends codes
//! each link as a flag (the prediction holds), in the context of whether the prediction names
//! a target, and otherwise the new value in as many direct bits as the handles need
//! ([`value_bits`]), so that a link's cost has a small bound a byte budget can reserve. An
//! entity the packet holds takes the prediction without a bit. Links are coded once the
//! handles that may be named are known, so that a link never names a handle the client does
//! not hold: a kept entity's after its values, the entering entities' after the list of
//! entering entities ([`Walk::entered_links`]).

use super::{MAX_FLAG_BITS, Side, walk::Walk};
use crate::codec::coder::{BinaryCoder, Metered};
use crate::engine::probe::Probe;
use crate::model::{Model, ModelLayout};
use crate::schema::Class;
use crate::{Error, Result};

/// Flags of the links model: whether a link holds its prediction, when the prediction is none
/// and when it names a target.
const FLAG_SAME: usize = 0;

/// Bits of a link's value when it does not hold its prediction: enough for every handle plus
/// none.
#[inline]
pub(crate) fn value_bits(handles: u32) -> u32 {
    32 - handles.leading_zeros()
}

/// The most bits the links of an entity of `class` can take in a peer of `handles` handles:
/// each a flag of at most [`MAX_FLAG_BITS`] bits and its value.
#[inline]
pub(crate) fn bound_bits(class: &Class, handles: u32) -> u64 {
    class.links.len() as u64 * (MAX_FLAG_BITS + u64::from(value_bits(handles)))
}

/// The value link `r` of kept handle `h` holds in the new frame without being coded: its
/// value at the baseline, or none if the handle that names is not kept.
#[inline]
pub(crate) fn held<'s, S: Side<'s>>(side: &S, h: u32, r: usize) -> u32 {
    match side.base_link(h, r) {
        0 => 0,
        target if side.kept(target - 1) => target,
        _ => 0,
    }
}

/// Sets every link of kept handle `h` (of `class`) to [`held`]'s value: the links of an
/// entity the packet does not send.
#[inline]
pub(crate) fn hold<'s, S: Side<'s>>(side: &mut S, h: u32, class: &Class) {
    for r in 0..class.links.len() {
        let target = held(side, h, r);
        side.set_link(h, r, target);
    }
}

impl<P: Probe> Walk<'_, '_, P> {
    /// Codes the links of the entities that entered in this packet (present, not kept), in
    /// handle order, once the list of entering entities is complete.
    pub(super) fn entered_links<'s, C: BinaryCoder, S: Side<'s>>(
        &mut self,
        coder: &mut C,
        side: &mut S,
        models: &mut [Model],
    ) -> Result<()> {
        if self.schema.max_links > 0 {
            for h in 0..side.handles() {
                if side.present(h) && !side.kept(h) {
                    self.links(coder, side, models, (side.new_class(h), h), false)?;
                }
            }
        }
        self.pending_links = 0;
        Ok(())
    }

    /// Codes the links of `h`, of class index `class`, sent in this packet: entering
    /// (predicted none) or `kept` (predicted as [`held`]).
    #[inline(never)]
    pub(super) fn links<'s, C: BinaryCoder, S: Side<'s>>(
        &mut self,
        coder: &mut C,
        side: &mut S,
        models: &mut [Model],
        (class, h): (usize, u32),
        kept: bool,
    ) -> Result<()> {
        let links = self.schema.classes.get(class).ok_or(Error::Corrupt)?.links.len();
        if links == 0 {
            return Ok(());
        }
        let at = ModelLayout::links(self.schema).ok_or(Error::Corrupt)?;
        let model = models.get_mut(at).ok_or(Error::Corrupt)?;
        for r in 0..links {
            let predicted = if kept { held(side, h, r) } else { 0 };
            let truth = side.link_truth(h, r);
            let bits = value_bits(side.handles());
            let target = metered!(coder => code_link(coder, model, predicted, (truth, bits)), |cost| self.probe.link(class, r, cost));
            if target != 0 && (target > side.handles() || !side.present(target - 1)) {
                return Err(Error::Corrupt);
            }
            side.set_link(h, r, target);
            self.check.add(target);
        }
        Ok(())
    }
}

/// Codes one link whose prediction is `predicted` and whose value (on the encoder) is
/// `truth`, a new value in `bits` direct bits; returns the value coded.
#[inline]
fn code_link<C: BinaryCoder>(
    coder: &mut C,
    model: &mut Model,
    predicted: u32,
    (truth, bits): (u32, u32),
) -> u32 {
    let context = FLAG_SAME + usize::from(predicted != 0);
    if model.code_flag(coder, context, truth == predicted) {
        return predicted;
    }
    coder.direct(truth, bits)
}
