//! Motion contexts: what an entity's own history says about the next residual of a field.
//!
//! A candidate of order `o` (the samples its polynomial needs) missed, one step back, by the
//! entity's finite difference of that order; that miss is the activity context of the zero
//! flag (exact, small, medium, large). The newest step of the history (its two newest
//! samples) and its bend (the change from the step before) give the sign's context: the sign
//! is coded relative to the step's direction, in a context of whether there was a step and
//! whether the bend goes its way, against it or neither. A turning player keeps turning the
//! same way, so a held view's residual has the sign of the turn, and a slowing turn
//! overshoots a line. Both ends compute the contexts from the history samples alone.

use crate::model::learned::{CONTEXTS, History};
use crate::schema::Field;

/// Sign contexts of a residual whose history has two samples: no step; a step whose bend
/// goes its way; against it; none or unknown (two samples).
pub(crate) const SIGNS: usize = 4;

/// The history's step from sample `b` to sample `a` (`a` newer), across the seam for a
/// wrapping field.
#[inline(always)]
fn step(field: &Field, history: &History<'_>, a: usize, b: usize) -> i64 {
    let s = history.samples;
    if field.wraps {
        i64::from(field.residual(s[a], s[b]))
    } else {
        i64::from(s[a]) - i64::from(s[b])
    }
}

/// The zero flag's activity context for a candidate of `order` samples: how wrong the same
/// order was one step back, measured by the entity's finite difference of that order (the
/// newest sample against what the older ones extrapolate, taking the samples as evenly
/// spaced; with gaps in the history it is a rougher measure, which measured better than exact
/// gapped extrapolation). 0: exact, 1: off by under 8 steps, 2: under 64, 3: more, or too
/// little history to tell.
#[inline(always)]
pub(crate) fn activity(field: &Field, history: &History<'_>, order: usize) -> usize {
    if order == 0 || history.len <= order {
        return CONTEXTS - 1;
    }
    let d = |a, b| step(field, history, a, b);
    let miss = match order {
        1 => d(0, 1),
        2 => d(0, 1) - d(1, 2),
        _ => d(0, 1) - 2 * d(1, 2) + d(2, 3),
    }
    .unsigned_abs();
    usize::from(miss != 0) + usize::from(miss >= 8) + usize::from(miss >= 64)
}

/// The sign context of a nonzero residual, and whether it is expected negative: from the
/// history's newest step and its bend, if the history has two samples. Asked for only once
/// the residual is known not to be zero.
#[inline(always)]
pub(crate) fn sign(field: &Field, history: &History<'_>) -> Option<(usize, bool)> {
    if history.len < 2 {
        return None;
    }
    let newest = step(field, history, 0, 1);
    let bend = if history.len >= 3 { newest - step(field, history, 1, 2) } else { 0 };
    Some(match newest {
        0 => (0, false),
        _ if bend == 0 => (3, newest < 0),
        _ => (1 + usize::from((bend < 0) != (newest < 0)), newest < 0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::predict::{EVENLY_SPACED, MAX_SAMPLES, Predictor};

    const F: Field = Field::numeric("f", -1000, 1000, false, &[Predictor::Hold]);
    const A: Field = Field::numeric("a", 0, 1023, true, &[Predictor::Hold]);

    fn h(samples: &'static [i32; MAX_SAMPLES], len: usize) -> History<'static> {
        History { table: &EVENLY_SPACED, samples, len, contract: None, neighbour: 0 }
    }

    #[test]
    fn activity_measures_how_wrong_the_order_was_one_step_back() {
        // Constant velocity 10: hold missed by 10, linear and quadratic were exact.
        let line = h(&[40, 30, 20, 10], 4);
        assert_eq!(activity(&F, &line, 1), 2);
        assert_eq!(activity(&F, &line, 2), 0);
        assert_eq!(activity(&F, &line, 3), 0);
        // Constant acceleration 2: linear missed by 2, quadratic was exact.
        let parabola = h(&[12, 6, 2, 0], 4);
        assert_eq!(activity(&F, &parabola, 2), 1);
        assert_eq!(activity(&F, &parabola, 3), 0);
        // Not enough history for the order, or no prediction: the widest context.
        assert_eq!(activity(&F, &h(&[5, 5, 0, 0], 2), 2), CONTEXTS - 1);
        assert_eq!(activity(&F, &line, 0), CONTEXTS - 1);
        // Wrapping fields measure across the seam.
        assert_eq!(activity(&A, &h(&[3, 1020, 1013, 1006], 4), 2), 0);
    }

    #[test]
    fn the_sign_follows_the_newest_step_and_its_bend() {
        let sign = |samples, len| sign(&F, &h(samples, len));
        // One sample: no context. A still history: no step, a positive sign expected.
        assert_eq!(sign(&[7, 0, 0, 0], 1), None);
        assert_eq!(sign(&[7, 7, 3, 0], 3), Some((0, false)));
        // Falling, and falling faster (the bend goes the step's way); falling slower.
        assert_eq!(sign(&[10, 20, 25, 0], 3), Some((1, true)));
        assert_eq!(sign(&[10, 20, 40, 0], 3), Some((2, true)));
        // Rising at a constant rate, or with two samples only: no bend.
        assert_eq!(sign(&[30, 20, 10, 0], 3), Some((3, false)));
        assert_eq!(sign(&[30, 20, 0, 0], 2), Some((3, false)));
        // A wrapping field steps across the seam: 1020 to 3 rises by 7.
        assert_eq!(super::sign(&A, &h(&[3, 1020, 1013, 1006], 4)), Some((3, false)));
    }
}
