//! Polynomial predictors as integer predictor vectors.
//!
//! A predictor of order `m` fits a polynomial through the field's values at the `m` most
//! recent frames the client holds and evaluates it at the frame being sent. With the samples
//! at offsets `d_0 < d_1 < …` frames before that frame, the prediction is the dot product of
//! the samples with Lagrange weights `w_i = Π_{j≠i} d_j / (d_j - d_i)`, which depend only on
//! the offsets. The weights are kept as integer numerators over one common denominator, the
//! dot product is accumulated in `i64` relative to the newest sample, and the quotient is
//! rounded half up (floor of `x / den + 1/2`), so both ends agree bit for bit.

use crate::schema::Field;

/// Most samples any predictor uses.
pub const MAX_SAMPLES: usize = 4;

/// A candidate predictor. For the polynomial predictors the discriminant is the number of
/// samples they need.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Predictor {
    /// Predicts 0: codes the raw value itself. Needs no history.
    Zero = 0,
    /// The value at the newest sample.
    Hold = 1,
    /// The line through the two newest samples.
    Linear = 2,
    /// The parabola through the three newest samples.
    Quadratic = 3,
    /// The cubic through the four newest samples.
    Cubic = 4,
    /// The schema's predictive contract ([`crate::model::contract`]); needs two samples (with
    /// one, hold's own statistics serve better), and is unavailable without a contract
    /// attached to the schema.
    Contract = 5,
}

impl Predictor {
    /// All predictors, in tie-break order.
    pub const ALL: [Predictor; 6] = [
        Predictor::Zero,
        Predictor::Hold,
        Predictor::Linear,
        Predictor::Quadratic,
        Predictor::Cubic,
        Predictor::Contract,
    ];

    /// Number of history samples the predictor needs.
    #[inline]
    pub const fn samples(self) -> usize {
        match self {
            Predictor::Contract => 2,
            polynomial => polynomial as usize,
        }
    }

    /// The predictor whose [`Predictor::name`] is `name`, if any.
    pub fn from_name(name: &str) -> Option<Predictor> {
        Predictor::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Lower-case name, as written in schemas.
    pub const fn name(self) -> &'static str {
        match self {
            Predictor::Zero => "zero",
            Predictor::Hold => "hold",
            Predictor::Linear => "linear",
            Predictor::Quadratic => "quadratic",
            Predictor::Cubic => "cubic",
            Predictor::Contract => "contract",
        }
    }
}

/// Largest magnitude of a numerator or denominator, in bits: with differences of at most 33
/// bits and at most three terms, a dot product stays below 2^63.
pub const MAX_WEIGHT_BITS: u32 = 28;

/// Integer weights over a common positive denominator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PredictorVector {
    /// Numerators, newest sample first; only the first `len` are used.
    pub num: [i64; MAX_SAMPLES],
    /// Common denominator, > 0.
    pub den: i64,
    /// Number of samples.
    pub len: usize,
    /// Reciprocal of `den` for [`floor_div`].
    recip: Reciprocal,
}

/// A divisor `d` in `1..2^MAX_WEIGHT_BITS` prepared for exact floor division by multiplication:
/// with `l = ceil(log2 d)` and `m = floor(2^(63+l) / d) + 1`, `floor(n / d)` equals
/// `(n * m) >> (63 + l)` for every `0 <= n < 2^63` (Granlund and Montgomery, 1994, Thm. 4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reciprocal {
    d: i64,
    m: u64,
    shift: u32,
}

impl Reciprocal {
    pub(crate) const fn new(d: i64) -> Reciprocal {
        let l = if d <= 1 { 0 } else { 64 - (d as u64 - 1).leading_zeros() };
        let m = ((1u128 << (63 + l)) / d as u128 + 1) as u64;
        Reciprocal { d, m, shift: 63 + l }
    }
}

/// `floor(x / r.d)` for `|x| < 2^62`, without a division instruction or a branch on the sign:
/// a negative `x` is divided as `-ceil(|x| / d) = -floor((|x| + d - 1) / d)`.
#[inline(always)]
pub(crate) fn floor_div(x: i64, r: Reciprocal) -> i64 {
    let sign = x >> 63;
    let n = ((x ^ sign) - sign + ((r.d - 1) & sign)) as u64;
    let q = ((u128::from(n) * u128::from(r.m)) >> r.shift) as i64;
    (q ^ sign) - sign
}

const fn gcd(a: i64, b: i64) -> i64 {
    gcd128(a as i128, b as i128) as i64
}

const fn gcd128(mut a: i128, mut b: i128) -> i128 {
    if a < 0 {
        a = -a;
    }
    if b < 0 {
        b = -b;
    }
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// The Lagrange weights for samples at `offsets[..m]` (distinct, at most 1024) of the
/// polynomial through them, evaluated at offset 0 (`power` 0) or its derivative there
/// (`power` 1): `w_i = c_i / q_i` with `c_i` the coefficient of `t^power` in
/// `Π_{j≠i} (t + d_j)` and `q_i = Π_{j≠i} (d_j - d_i)`, as integer numerators over one
/// positive common denominator. `None` if a numerator or the denominator needs more than
/// [`MAX_WEIGHT_BITS`] bits.
const fn lagrange(offsets: &[u32], m: usize, power: usize) -> Option<([i64; MAX_SAMPLES], i64)> {
    let mut n = [0i64; MAX_SAMPLES];
    let mut q = [0i64; MAX_SAMPLES];
    let mut den: i64 = 1;
    let mut i = 0;
    while i < m {
        // Coefficients of Π_{j≠i} (t + d_j), lowest power first.
        let mut coef = [0i64; MAX_SAMPLES + 1];
        coef[0] = 1;
        let mut qi: i64 = 1;
        let mut j = 0;
        while j < m {
            if j != i {
                let d = offsets[j] as i64;
                let mut k = MAX_SAMPLES;
                while k > 0 {
                    coef[k] = coef[k] * d + coef[k - 1];
                    k -= 1;
                }
                coef[0] *= d;
                qi *= d - offsets[i] as i64;
            }
            j += 1;
        }
        let ni = coef[power];
        let g = gcd(ni, qi);
        n[i] = ni / g;
        q[i] = qi / g;
        let abs_q = if q[i] < 0 { -q[i] } else { q[i] };
        den = den / gcd(den, abs_q) * abs_q;
        i += 1;
    }
    let mut num = [0i64; MAX_SAMPLES];
    let limit = 1i64 << MAX_WEIGHT_BITS;
    if den >= limit {
        return None;
    }
    let mut i = 0;
    while i < m {
        num[i] = n[i] * (den / q[i]);
        if num[i] >= limit || num[i] <= -limit {
            return None;
        }
        i += 1;
    }
    Some((num, den))
}

/// A rate of change of a field: `num / den` raw steps per frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    /// Numerator.
    pub num: i64,
    /// Denominator, > 0.
    pub den: i64,
}

impl Rate {
    /// The rate in fixed point with `frac_bits` fractional bits (at most 32), rounded half
    /// up: `floor(num * 2^frac_bits / den + 1/2)`.
    pub fn fixed(&self, frac_bits: u32) -> i64 {
        let n = i128::from(self.num) << frac_bits.min(32);
        let d = i128::from(self.den.max(1));
        (n + d / 2).div_euclid(d).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    }

    /// The slope at offset 0 of the polynomial through `samples` of `field` (newest first)
    /// at `offsets` (frames before offset 0, increasing; the first is 0 for the slope at the
    /// newest sample): with two samples the backward difference, with three the slope
    /// of the parabola, as a polynomial predictor would fit them. Differences are taken from
    /// the newest sample, across the seam for wrapping fields. `None` with fewer than two or
    /// more than [`MAX_SAMPLES`] samples, unequal lengths, or offsets that are not distinct
    /// or exceed 1024.
    pub fn of(field: &Field, offsets: &[u32], samples: &[i32]) -> Option<Rate> {
        let m = samples.len();
        if !(2..=MAX_SAMPLES).contains(&m) || offsets.len() != m {
            return None;
        }
        for (i, &d) in offsets.iter().enumerate() {
            if d > 1024 || offsets[..i].contains(&d) {
                return None;
            }
        }
        let (num, den) = lagrange(offsets, m, 1)?;
        let newest = samples[0];
        let mut acc: i64 = 0;
        for (w, &s) in num.iter().zip(samples).skip(1) {
            let d = if field.wraps {
                i64::from(field.residual(s, newest))
            } else {
                i64::from(s) - i64::from(newest)
            };
            acc += w * d;
        }
        Some(Rate { num: acc, den })
    }
}

impl PredictorVector {
    /// The vector for `m` samples at the given offsets (frames before the predicted frame,
    /// newest first). Returns `None` if `m > MAX_SAMPLES`, an offset is 0, two offsets are
    /// equal, an offset exceeds 1024, or a weight needs more than [`MAX_WEIGHT_BITS`] bits
    /// (which keeps every dot product of 32-bit differences inside `i64`).
    pub const fn from_offsets(offsets: &[u32], m: usize) -> Option<PredictorVector> {
        if m > MAX_SAMPLES || m > offsets.len() {
            return None;
        }
        let mut i = 0;
        while i < m {
            if offsets[i] == 0 || offsets[i] > 1024 {
                return None;
            }
            let mut j = 0;
            while j < i {
                if offsets[j] == offsets[i] {
                    return None;
                }
                j += 1;
            }
            i += 1;
        }
        let Some((num, den)) = lagrange(offsets, m, 0) else {
            return None;
        };
        Some(PredictorVector { num, den, len: m, recip: Reciprocal::new(den) })
    }

    /// The least-squares fit of a polynomial of degree `m − 1` (`m` is 2 or 3: a line or a
    /// parabola) through the first `n > m` samples at `offsets`, evaluated at offset 0:
    /// weights `w = e₀ᵀ (XᵀX)⁻¹ Xᵀ` with `X` the powers of the offsets, computed exactly in
    /// integers (the adjugate of `XᵀX` over its determinant). Averaging more samples than the
    /// polynomial needs shrinks the rounding noise of quantised samples the prediction
    /// carries (evenly spaced, a line through four samples weighs them 1, ½, 0, −½: under a
    /// third of the noise power of 2, −1). `None` under the conditions of
    /// [`PredictorVector::from_offsets`], or if the weights need more than
    /// [`MAX_WEIGHT_BITS`] bits.
    pub const fn fit(offsets: &[u32], n: usize, m: usize) -> Option<PredictorVector> {
        if (m != 2 && m != 3) || n <= m || PredictorVector::from_offsets(offsets, n).is_none() {
            return None;
        }
        // Power sums S_j = Σ x^j, j = 0..=4; x <= 1024, so S_4 < 2^43.
        let mut sums = [0i128; 5];
        let mut r = 0;
        while r < n {
            let x = offsets[r] as i128;
            let mut power = 1i128;
            let mut j = 0;
            while j < 5 {
                sums[j] += power;
                power *= x;
                j += 1;
            }
            r += 1;
        }
        let s = sums;
        // The first column of the adjugate of XᵀX = [S_(i+j)], and its determinant.
        let adj = if m == 2 {
            [s[2], -s[1], 0]
        } else {
            [s[2] * s[4] - s[3] * s[3], s[2] * s[3] - s[1] * s[4], s[1] * s[3] - s[2] * s[2]]
        };
        let mut den = s[0] * adj[0] + s[1] * adj[1] + s[2] * adj[2];
        let mut w = [0i128; MAX_SAMPLES];
        let mut g = den;
        let mut r = 0;
        while r < n {
            let x = offsets[r] as i128;
            w[r] = adj[0] + adj[1] * x + adj[2] * x * x;
            g = gcd128(g, w[r]);
            r += 1;
        }
        if den <= 0 || g == 0 {
            return None;
        }
        den /= g;
        let limit = 1i128 << MAX_WEIGHT_BITS;
        if den >= limit {
            return None;
        }
        let mut num = [0i64; MAX_SAMPLES];
        let mut r = 0;
        while r < n {
            let v = w[r] / g;
            if v >= limit || v <= -limit {
                return None;
            }
            num[r] = v as i64;
            r += 1;
        }
        let den = den as i64;
        Some(PredictorVector { num, den, len: n, recip: Reciprocal::new(den) })
    }

    /// Evenly spaced samples (offsets 1, 2, …, m): the vectors of a loss-free history.
    pub const fn evenly_spaced(m: usize) -> Option<PredictorVector> {
        PredictorVector::from_offsets(&[1, 2, 3, 4], m)
    }

    /// Applies the vector to `samples` (newest first) of `field` and returns the prediction,
    /// inside the field's range. Differences are taken relative to the newest sample (wrapped
    /// for wrapping fields), which the weights' bound keeps inside `i64`. With fewer samples
    /// than the vector needs, the prediction is 0 clamped into the range.
    #[inline]
    pub fn predict(&self, field: &Field, samples: &[i32]) -> i32 {
        let len = self.len.min(MAX_SAMPLES);
        if len == 0 || samples.len() < len {
            return field.clamp(0);
        }
        let mut padded = [0i32; MAX_SAMPLES];
        for (p, &s) in padded.iter_mut().zip(samples) {
            *p = s;
        }
        self.predict_padded(field, &padded)
    }

    /// [`PredictorVector::predict`] with the samples as a fixed array, of which the caller
    /// guarantees the first `len` are real; the rest are ignored (their weights are 0).
    #[inline(always)]
    pub(crate) fn predict_padded(&self, field: &Field, samples: &[i32; MAX_SAMPLES]) -> i32 {
        if self.len == 0 {
            return field.clamp(0);
        }
        let newest = samples[0];
        let mut acc: i64 = 0;
        // Indexing keeps this a fixed three-step loop the compiler unrolls.
        #[allow(clippy::needless_range_loop)]
        for i in 1..MAX_SAMPLES {
            let d = if field.wraps {
                i64::from(field.residual(samples[i], newest))
            } else {
                i64::from(samples[i]) - i64::from(newest)
            };
            acc += self.num[i] * d;
        }
        // Round half up: floor((acc + den/2) / den).
        let delta = if self.den == 1 { acc } else { floor_div(acc + self.den / 2, self.recip) };
        field.clamp(i64::from(newest) + delta)
    }
}

/// The vectors for `0..=MAX_SAMPLES` samples at one set of history offsets, and the
/// least-squares fits of lines and parabolas through more samples than they need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PredictorTable {
    /// Indexed by [`Predictor`]; the last, [`Predictor::Contract`]'s, is always `None`.
    vectors: [Option<PredictorVector>; MAX_SAMPLES + 2],
    /// [`PredictorVector::fit`] of a line through 3 and 4 samples, and of a parabola through 4.
    fits: [Option<PredictorVector>; 3],
    available: usize,
}

/// Vectors for offsets 1, 2, 3, 4, computed at compile time.
pub const EVENLY_SPACED: PredictorTable = EVEN[MAX_SAMPLES];

/// The tables of the evenly spaced offsets `1, 2, …, len` for each `len` in
/// `0..=MAX_SAMPLES`, computed at compile time.
const EVEN: [PredictorTable; MAX_SAMPLES + 1] = [
    PredictorTable::compute(&[]),
    PredictorTable::compute(&[1]),
    PredictorTable::compute(&[1, 2]),
    PredictorTable::compute(&[1, 2, 3]),
    PredictorTable::compute(&[1, 2, 3, 4]),
];

/// How many offsets `offsets` holds if they are `d, 2d, 3d, …` for some `d > 0` (at most
/// [`MAX_SAMPLES`] of them).
const fn evenly_spaced(offsets: &[u32]) -> Option<usize> {
    if offsets.len() > MAX_SAMPLES || (!offsets.is_empty() && offsets[0] == 0) {
        return None;
    }
    let mut i = 0;
    while i < offsets.len() {
        if offsets[i] as u64 != (i as u64 + 1) * offsets[0] as u64 {
            return None;
        }
        i += 1;
    }
    Some(offsets.len())
}

impl PredictorTable {
    /// Vectors for the given offsets (newest first); orders beyond the offsets given are
    /// unavailable.
    ///
    /// The weights of a polynomial or a fit do not change when every offset is scaled alike,
    /// and history is usually spaced like the baseline (`d, 2d, 3d, …`): such offsets take
    /// the table of `1, 2, 3, …`, computed once at compile time, instead of a few thousand
    /// instructions of exact arithmetic.
    pub const fn new(offsets: &[u32]) -> PredictorTable {
        match evenly_spaced(offsets) {
            Some(len) => EVEN[len],
            None => PredictorTable::compute(offsets),
        }
    }

    /// [`PredictorTable::new`] by exact arithmetic.
    const fn compute(offsets: &[u32]) -> PredictorTable {
        let mut vectors = [None; MAX_SAMPLES + 2];
        let mut available = 0;
        let mut m = 0;
        while m <= MAX_SAMPLES {
            vectors[m] = PredictorVector::from_offsets(offsets, m);
            if vectors[m].is_some() {
                available = m;
            } else {
                break;
            }
            m += 1;
        }
        let fits = [
            PredictorVector::fit(offsets, 3, 2),
            PredictorVector::fit(offsets, 4, 2),
            PredictorVector::fit(offsets, 4, 3),
        ];
        PredictorTable { vectors, fits, available }
    }

    /// The vector the engine predicts with by `predictor` from `len` samples: the
    /// least-squares fit ([`PredictorVector::fit`]) through all of them for a line or a
    /// parabola when there are more than it needs, else [`PredictorTable::get`].
    #[inline]
    pub fn fitted(&self, predictor: Predictor, len: usize) -> Option<&PredictorVector> {
        let fit = match (predictor, len) {
            (Predictor::Linear, 3) => &self.fits[0],
            (Predictor::Linear, 4..) => &self.fits[1],
            (Predictor::Quadratic, 4..) => &self.fits[2],
            _ => &None,
        };
        fit.as_ref().or_else(|| self.get(predictor))
    }

    /// The vector of a polynomial `predictor`, if the history has enough samples for it
    /// (`None` for [`Predictor::Contract`]).
    #[inline]
    pub fn get(&self, predictor: Predictor) -> Option<&PredictorVector> {
        self.vectors[predictor as usize].as_ref()
    }

    /// Most samples any vector of this table uses.
    pub fn available(&self) -> usize {
        self.available
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Field = Field::numeric("f", -1_000_000, 1_000_000, false, &[Predictor::Hold]);

    #[test]
    fn evenly_spaced_vectors_are_finite_differences() {
        let t = EVENLY_SPACED;
        assert_eq!(t.get(Predictor::Hold).unwrap().num[..1], [1]);
        let l = t.get(Predictor::Linear).unwrap();
        assert_eq!((l.num[..2].to_vec(), l.den), (vec![2, -1], 1));
        let q = t.get(Predictor::Quadratic).unwrap();
        assert_eq!((q.num[..3].to_vec(), q.den), (vec![3, -3, 1], 1));
        let c = t.get(Predictor::Cubic).unwrap();
        assert_eq!((c.num[..4].to_vec(), c.den), (vec![4, -6, 4, -1], 1));
    }

    #[test]
    fn gapped_polynomials_are_exact() {
        // f(t) = 3t^3 - 2t^2 + 5t - 7 at t = -1, -3, -4, -7, predicted at 0.
        let f = |t: i64| 3 * t * t * t - 2 * t * t + 5 * t - 7;
        let offsets = [1u32, 3, 4, 7];
        let samples: Vec<i32> = offsets.iter().map(|&d| f(-(d as i64)) as i32).collect();
        let v = PredictorVector::from_offsets(&offsets, 4).unwrap();
        assert_eq!(v.predict(&F, &samples), -7);
        // A quadratic through three points of a line is the line.
        let line: Vec<i32> = offsets.iter().map(|&d| 10 - 4 * d as i32).collect();
        let v = PredictorVector::from_offsets(&offsets, 3).unwrap();
        assert_eq!(v.predict(&F, &line), 10);
    }

    #[test]
    fn hold_predicts_the_newest_sample() {
        // `History::value_of` relies on this instead of applying hold's vector.
        let f = Field::numeric("f", -50, 50, false, &[Predictor::Hold]);
        for offsets in [&[1, 2, 3, 4][..], &[3, 5, 6, 9], &[2, 7], &[1]] {
            let hold = PredictorTable::new(offsets).get(Predictor::Hold).copied().unwrap();
            assert_eq!((hold.num, hold.den), ([1, 0, 0, 0], 1), "{offsets:?}");
            assert_eq!(hold.predict_padded(&f, &[-17, 40, -50, 3]), -17);
        }
    }

    #[test]
    fn wrapping_fields_predict_across_the_seam() {
        let a = Field::numeric("a", 0, 1023, true, &[Predictor::Linear]);
        let v = EVENLY_SPACED.get(Predictor::Linear).unwrap();
        // Moving +10 per frame across 1023 -> 0.
        assert_eq!(v.predict(&a, &[1020, 1010]), 6);
        let f = Field::numeric("f", 0, 1023, false, &[Predictor::Linear]);
        assert_eq!(v.predict(&f, &[1020, 1000]), 1023, "clamped");
    }

    #[test]
    fn floor_division_by_reciprocal_is_exact() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let edges = [0i64, 1, -1, (1 << 62) - 1, -(1 << 62) + 1, 12345, -12345];
        for d in (1..64).chain([(1 << 27) - 1, (1 << 27) + 1, (1 << 28) - 1, 3 << 20]) {
            let r = Reciprocal::new(d);
            for &v in &edges {
                assert_eq!(floor_div(v, r), v.div_euclid(d), "{v} / {d}");
            }
            for _ in 0..2000 {
                let v = (next() as i64) >> 2;
                let v = v >> (next() % 60);
                assert_eq!(floor_div(v, r), v.div_euclid(d), "{v} / {d}");
            }
        }
    }

    #[test]
    fn fits_are_least_squares_and_exact_on_their_polynomials() {
        let line = PredictorVector::fit(&[1, 2, 3, 4], 4, 2).unwrap();
        assert_eq!((line.num, line.den), ([2, 1, 0, -1], 2));
        let three = PredictorVector::fit(&[1, 2, 3, 4], 3, 2).unwrap();
        assert_eq!((three.num[..3].to_vec(), three.den), (vec![4, 1, -2], 3));
        let parabola = PredictorVector::fit(&[1, 2, 3, 4], 4, 3).unwrap();
        assert_eq!((parabola.num, parabola.den), ([9, -3, -5, 3], 4));
        // Exact on their own polynomials, at gapped offsets too.
        let offsets = [3u32, 5, 9, 12];
        let f = |t: i64| (2 * t * t - 7 * t + 40) as i32;
        let samples = offsets.map(|d| f(-(d as i64)));
        assert_eq!(PredictorVector::fit(&offsets, 4, 3).unwrap().predict(&F, &samples), f(0));
        let g = |t: i64| (-5 * t + 11) as i32;
        let samples = offsets.map(|d| g(-(d as i64)));
        assert_eq!(PredictorVector::fit(&offsets, 4, 2).unwrap().predict(&F, &samples), g(0));
        // Rounding noise averages out: a line with the middle samples off by one.
        assert_eq!(line.predict(&F, &[100, 91, 79, 71]), 110);
        // Only lines and parabolas through more samples than they need.
        assert!(PredictorVector::fit(&[1, 2, 3, 4], 2, 2).is_none());
        assert!(PredictorVector::fit(&[1, 2, 3, 4], 4, 4).is_none());
        assert!(PredictorVector::fit(&[1, 1, 3, 4], 4, 2).is_none());
        let t = PredictorTable::new(&[1, 2, 3]);
        assert_eq!(t.fitted(Predictor::Linear, 3), Some(&three));
        assert_eq!(t.fitted(Predictor::Quadratic, 3), t.get(Predictor::Quadratic));
        assert_eq!(t.fitted(Predictor::Hold, 3), t.get(Predictor::Hold));
    }

    #[test]
    fn rates_are_the_slopes_of_polynomials() {
        // f(t) = 3t^3 - 2t^2 + 5t - 7 has f'(0) = 5 and f'(-2) = 36 + 8 + 5 = 49.
        let f = |t: i64| 3 * t * t * t - 2 * t * t + 5 * t - 7;
        let at = |offsets: &[u32]| -> Vec<i32> {
            offsets.iter().map(|&d| f(-i64::from(d)) as i32).collect()
        };
        let offsets = [0u32, 1, 3, 6];
        assert_eq!(Rate::of(&F, &offsets, &at(&offsets)).map(|r| r.fixed(0)), Some(5));
        // The same cubic seen from t = -2: offsets measured from there.
        let from = [2u32, 4, 5, 9];
        let shifted: Vec<u32> = from.iter().map(|d| d - 2).collect();
        assert_eq!(Rate::of(&F, &shifted, &at(&from)).map(|r| r.fixed(0)), Some(49));
        // A line: any two or more points give its slope exactly, -4 steps per frame.
        let line: Vec<i32> = [0u32, 2, 5].iter().map(|&d| 10 + 4 * d as i32).collect();
        let r = Rate::of(&F, &[0, 2, 5], &line).unwrap();
        assert_eq!(r.num, -4 * r.den);
        // A parabola from two points: the backward difference over the gap, 7/2 a step.
        let r = Rate::of(&F, &[0, 2], &[10, 3]).unwrap();
        assert_eq!((r.fixed(1), r.fixed(8)), (7, 896));
        // Across the seam of a wrapping field: +10 per frame through 1023 -> 0.
        let a = Field::numeric("a", 0, 1023, true, &[Predictor::Linear]);
        assert_eq!(Rate::of(&a, &[0, 1], &[6, 1020]).map(|r| r.fixed(0)), Some(10));
        assert_eq!(Rate::of(&F, &[0], &[1]), None);
        assert_eq!(Rate::of(&F, &[0, 0], &[1, 2]), None);
    }

    #[test]
    fn bad_offsets_are_rejected() {
        assert!(PredictorVector::from_offsets(&[1, 1], 2).is_none());
        assert!(PredictorVector::from_offsets(&[0], 1).is_none());
        assert!(PredictorVector::from_offsets(&[1, 2], 3).is_none());
    }

    /// Scaled offsets take the table of evenly spaced ones, which is exactly the table exact
    /// arithmetic gives them.
    #[test]
    fn evenly_spaced_offsets_share_one_table() {
        for d in 1..=256u32 {
            for (len, even) in EVEN.iter().enumerate() {
                let offsets: Vec<u32> = (1..=len as u32).map(|i| i * d).collect();
                assert_eq!(PredictorTable::compute(&offsets), *even, "{offsets:?}");
                assert_eq!(PredictorTable::new(&offsets), *even, "{offsets:?}");
            }
        }
        assert_eq!(PredictorTable::new(&[2, 4, 7]), PredictorTable::compute(&[2, 4, 7]));
    }
}
