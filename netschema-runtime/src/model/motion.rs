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

/// What the history says about the residual of a candidate of some order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Motion {
    /// The candidate's miss one step back, if the history is long enough to tell.
    miss: Option<u64>,
    /// The sign context and whether the residual is expected negative, if the history has
    /// two samples.
    pub(crate) sign: Option<(usize, bool)>,
}

impl Motion {
    /// The motion of `field`'s `history` for a candidate of `order`: its finite difference of
    /// that order (the newest sample against what the older ones extrapolate, taking the
    /// samples as evenly spaced; with gaps in the history it is a rougher measure, which
    /// measured better than exact gapped extrapolation), and the direction of the newest step
    /// and its bend.
    #[inline(always)]
    pub(crate) fn of(field: &Field, history: &History<'_>, order: usize) -> Motion {
        let s = history.samples;
        let d = |a: usize, b: usize| {
            if field.wraps {
                i64::from(field.residual(s[a], s[b]))
            } else {
                i64::from(s[a]) - i64::from(s[b])
            }
        };
        let len = history.len;
        let step = if len >= 2 { d(0, 1) } else { 0 };
        let bend = if len >= 3 { step - d(1, 2) } else { 0 };
        let miss = (order > 0 && len > order).then(|| {
            match order {
                1 => step,
                2 => bend,
                _ => bend - d(1, 2) + d(2, 3),
            }
            .unsigned_abs()
        });
        let sign = (len >= 2).then(|| match step {
            0 => (0, false),
            _ if bend == 0 => (3, step < 0),
            _ => (1 + usize::from((bend < 0) != (step < 0)), step < 0),
        });
        Motion { miss, sign }
    }

    /// The zero flag's activity context: 0 exact, 1 off by under 8 steps, 2 under 64, 3 more
    /// or too little history to tell.
    #[inline(always)]
    pub(crate) fn activity(&self) -> usize {
        self.miss.map_or(CONTEXTS - 1, |m| {
            usize::from(m != 0) + usize::from(m >= 8) + usize::from(m >= 64)
        })
    }
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
        assert_eq!(Motion::of(&F, &line, 1).activity(), 2);
        assert_eq!(Motion::of(&F, &line, 2).activity(), 0);
        assert_eq!(Motion::of(&F, &line, 3).activity(), 0);
        // Constant acceleration 2: linear missed by 2, quadratic was exact.
        let parabola = h(&[12, 6, 2, 0], 4);
        assert_eq!(Motion::of(&F, &parabola, 2).activity(), 1);
        assert_eq!(Motion::of(&F, &parabola, 3).activity(), 0);
        // Not enough history for the order, or no prediction: the widest context.
        assert_eq!(Motion::of(&F, &h(&[5, 5, 0, 0], 2), 2).activity(), CONTEXTS - 1);
        assert_eq!(Motion::of(&F, &line, 0).activity(), CONTEXTS - 1);
        // Wrapping fields measure across the seam.
        assert_eq!(Motion::of(&A, &h(&[3, 1020, 1013, 1006], 4), 2).activity(), 0);
    }

    #[test]
    fn the_sign_follows_the_newest_step_and_its_bend() {
        let sign = |samples, len| Motion::of(&F, &h(samples, len), 1).sign;
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
        assert_eq!(Motion::of(&A, &h(&[3, 1020, 1013, 1006], 4), 1).sign, Some((3, false)));
    }
}
