//! Netcode's `GhostDeltaPredictor`: linear extrapolation from three acknowledged baselines,
//! weighted by their tick gaps in sixteenths, falling back to the newest baseline when the
//! older two would have predicted it no better than holding.
//!
//! C#'s `int` arithmetic wraps and its division truncates towards zero; the wrapping operations
//! and Rust's `/` reproduce both, so the two ends of the lab agree on every input.

/// Extrapolation weights for one frame and its three baselines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Predictor {
    predict_frac: i32,
    apply_frac: i32,
}

impl Predictor {
    /// Weights for predicting frame `tick` from baselines at frames `b0 > b1 > b2`.
    pub(super) fn new(tick: u32, b0: u32, b1: u32, b2: u32) -> Self {
        let since = |a: u32, b: u32| a.wrapping_sub(b) as i32;
        Predictor {
            predict_frac: 16 * since(b0, b1) / since(b1, b2),
            apply_frac: 16 * since(tick, b0) / since(b0, b1),
        }
    }

    /// The prediction of a value that was `v0`, `v1` and `v2` at the three baselines
    /// (`PredictInt`).
    pub(super) fn predict(&self, v0: i32, v1: i32, v2: i32) -> i32 {
        let delta = v1.wrapping_sub(v2);
        let predict_baseline = v1.wrapping_add(delta.wrapping_mul(self.predict_frac) / 16);
        let delta = v0.wrapping_sub(v1);
        if v0.wrapping_sub(predict_baseline).wrapping_abs() >= delta.wrapping_abs() {
            return v0;
        }
        v0.wrapping_add(delta.wrapping_mul(self.apply_frac) / 16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extrapolates_steady_motion_and_holds_otherwise() {
        // Baselines 2, 4 and 6 frames back: the gaps are equal, the frame is 2 ahead.
        let p = Predictor::new(10, 8, 6, 4);
        assert_eq!(p.predict(30, 20, 10), 40);
        // The older baselines did not foresee the newest: hold it.
        assert_eq!(p.predict(30, 20, 20), 30);
        // Uneven gaps: b0 − b1 = 1, b1 − b2 = 3, frame 3 ahead of b0.
        let p = Predictor::new(12, 9, 8, 5);
        assert_eq!(p, Predictor { predict_frac: 5, apply_frac: 48 });
        assert_eq!(p.predict(100, 90, 60), 130);
    }
}
