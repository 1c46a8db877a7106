//! The newest inputs of a stream, which predict the next one.

use crate::engine::input::MAX_INPUT_FIELDS;
use crate::model::predict::{EVENLY_SPACED, MAX_SAMPLES, PredictorTable};

/// One input: its tick and its raw values (the first as many as the input has fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Input {
    pub tick: u32,
    pub values: [i32; MAX_INPUT_FIELDS],
}

impl Input {
    /// No input: tick 0, every value 0.
    pub(crate) const EMPTY: Input = Input { tick: 0, values: [0; MAX_INPUT_FIELDS] };
}

/// Up to [`MAX_SAMPLES`] inputs of ascending ticks, newest first: the history the next input
/// is predicted from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Recent {
    inputs: [Input; MAX_SAMPLES],
    len: usize,
}

impl Recent {
    /// No input yet.
    pub(crate) const EMPTY: Recent = Recent { inputs: [Input::EMPTY; MAX_SAMPLES], len: 0 };

    /// The newest input, if any.
    pub(crate) fn newest(&self) -> Option<&Input> {
        self.inputs[..self.len].first()
    }

    /// Number of inputs held.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Adds `input`, newer than every input held, dropping the oldest past [`MAX_SAMPLES`].
    pub(crate) fn push(&mut self, input: Input) {
        self.inputs.copy_within(..MAX_SAMPLES - 1, 1);
        self.inputs[0] = input;
        self.len = (self.len + 1).min(MAX_SAMPLES);
    }

    /// Field `f` of every input held, newest first (zeros past [`Recent::len`]).
    pub(crate) fn samples(&self, f: usize) -> [i32; MAX_SAMPLES] {
        let f = f.min(MAX_INPUT_FIELDS - 1);
        core::array::from_fn(|i| if i < self.len { self.inputs[i].values[f] } else { 0 })
    }

    /// The predictor vectors for an input at `tick` from the inputs held: evenly spaced ones
    /// when they are the ticks just before it, as they are while no input is missing.
    pub(crate) fn table(&self, tick: u32) -> PredictorTable {
        let offsets: [u32; MAX_SAMPLES] =
            core::array::from_fn(|i| tick.wrapping_sub(self.inputs[i].tick));
        let offsets = &offsets[..self.len];
        if offsets.iter().zip(1..).all(|(&o, i)| o == i) {
            EVENLY_SPACED
        } else {
            PredictorTable::new(offsets)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_first_and_spaces_them_by_tick() {
        let mut recent = Recent::EMPTY;
        for tick in [3, 4, 5, 7, 8] {
            let mut values = [0; MAX_INPUT_FIELDS];
            values[1] = tick as i32 * 10;
            recent.push(Input { tick, values });
        }
        assert_eq!(recent.len(), MAX_SAMPLES);
        assert_eq!(recent.samples(1), [80, 70, 50, 40]);
        assert_eq!(recent.newest().map(|i| i.tick), Some(8));
        assert_eq!(recent.table(9), PredictorTable::new(&[1, 2, 4, 5]));
        assert_eq!(Recent::EMPTY.table(9), EVENLY_SPACED);
    }
}
