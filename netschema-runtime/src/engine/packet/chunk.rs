//! An entity's history and predictions, a chunk of fields at a time: samples gathered from
//! the frames the packet references, predictor tables by sample spacing, and contracts.

use super::walk::predicts;
use super::{Refs, Samples, Side};
use crate::engine::frame::age;
use core::ops::Range;

use crate::blend::quat_at;
use crate::model::contract::{Attached, Rows};
use crate::model::predict::{EVENLY_SPACED, MAX_SAMPLES, Predictor, PredictorTable};
use crate::model::{History, Model, Prediction};
use crate::schema::{Class, Coding, Field, MAX_SLOT_STRIDE};

/// Fields of an entity handled together: their samples and predictions live on the stack.
pub(crate) const CHUNK: usize = 16;
const _: () = assert!(MAX_SLOT_STRIDE as usize <= CHUNK, "a keyframe slot fits in a chunk");

/// The history an entity's prediction uses: the first `fetched` history frames, of which the
/// samples at `picks` (one per distinct frame its values came from, so that a value held over
/// several frames counts once, at its true age, `offsets` frames before the packet's) with
/// predictor vectors `table`.
#[derive(Clone, Copy)]
pub(super) struct Hist<'t> {
    pub(super) fetched: usize,
    pub(super) picks: Option<([u8; MAX_SAMPLES], usize)>,
    pub(super) offsets: [u32; MAX_SAMPLES],
    pub(super) table: &'t PredictorTable,
}

impl<'t> Hist<'t> {
    /// The history of an entity from the first `k` history frames of `refs`, whose values
    /// came from the frames `sources` if any were held ([`Side::sources`]; see
    /// [`Hist::held`]), else from those frames themselves.
    #[inline(always)]
    pub(super) fn new(
        sources: Option<[u32; MAX_SAMPLES]>,
        k: usize,
        refs: &'t Refs,
        tables: &'t mut Tables,
    ) -> Self {
        match sources {
            None => Hist { fetched: k, picks: None, offsets: refs.offsets, table: &refs.table },
            Some(sources) => Hist::held(&sources, k, refs.frame, tables),
        }
    }

    /// The history of an entity whose first `k` history frames hold values from the frames
    /// `sources` (as the packet for `frame` references them): one sample per distinct frame,
    /// with a predictor table for their spacing from `tables`.
    #[inline(always)]
    pub(super) fn held(
        sources: &[u32; MAX_SAMPLES],
        k: usize,
        frame: u32,
        tables: &'t mut Tables,
    ) -> Self {
        let (mut picks, mut offsets, mut len) = ([0u8; MAX_SAMPLES], [0; MAX_SAMPLES], 0);
        for (j, &s) in sources.iter().enumerate().take(k) {
            if !sources[..j].contains(&s) {
                (picks[len], offsets[len]) = (j as u8, age(frame, s));
                len += 1;
            }
        }
        let table = tables.get(offsets, len);
        Hist { fetched: k, picks: Some((picks, len)), offsets, table }
    }

    /// Samples the predictors see.
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.picks.map_or(self.fetched, |(_, len)| len)
    }
}

/// Predictor tables for the offsets of held histories, the last few kept: entities held
/// alike share them.
pub(super) struct Tables {
    pub(super) keys: [([u32; MAX_SAMPLES], usize); TABLES],
    pub(super) tables: [PredictorTable; TABLES],
    pub(super) used: usize,
    pub(super) next: usize,
}

/// Predictor tables [`Tables`] keeps.
const TABLES: usize = 4;

impl Tables {
    pub(super) const EMPTY: Tables = Tables {
        keys: [([0; MAX_SAMPLES], 0); TABLES],
        tables: [EVENLY_SPACED; TABLES],
        used: 0,
        next: 0,
    };

    /// The table for `offsets` (newest first, distinct).
    #[inline]
    pub(super) fn get(&mut self, offsets: [u32; MAX_SAMPLES], len: usize) -> &PredictorTable {
        let key = (offsets, len);
        if let Some(i) = self.keys[..self.used].iter().position(|k| *k == key) {
            return &self.tables[i];
        }
        let i = self.next;
        self.keys[i] = key;
        self.tables[i] = PredictorTable::new(&offsets[..len]);
        self.next = (i + 1) % TABLES;
        self.used = (self.used + 1).min(TABLES);
        &self.tables[i]
    }
}

/// How an entity moved in its history, over the first chunk of its fields: the context of its
/// "unchanged" flag (see [`Motion::context`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Motion {
    /// How many fields changed between the two newest samples: 0, 1, 2 for more, 3 without
    /// two samples.
    pub(super) changed: usize,
    /// Whether every field took the same step between its three newest samples (wrapping):
    /// the entity moved steadily (false without three samples).
    pub(super) steady: bool,
    /// Whether some field's prediction differs from its newest sample: the models expect the
    /// entity to move.
    pub(super) moves: bool,
}

impl Motion {
    /// The motion of an entity with fewer than two samples.
    pub(super) const FIRST: Motion = Motion { changed: 3, steady: false, moves: false };

    /// The motion of an entity whose `k` samples are one row, each field predicted as that
    /// row.
    pub(super) const fn still(k: usize) -> Motion {
        match k {
            0 | 1 => Motion::FIRST,
            _ => Motion { changed: 0, steady: k >= 3, moves: false },
        }
    }

    /// The flag of the entity model the "unchanged" flag is coded in (below
    /// [`Model::FLAGS`](crate::model::Model)), given whether the previous kept entity coded
    /// was `moved` (not unchanged).
    #[inline(always)]
    pub(super) const fn context(self, moved: bool) -> usize {
        self.changed + 4 * moved as usize + 8 * self.steady as usize + 16 * self.moves as usize
    }
}

/// History samples below which the contract is not run: its candidate needs this many.
const CONTRACT_SAMPLES: usize = Predictor::Contract.samples();

/// Samples and predictions of up to [`CHUNK`] consecutive fields of one entity.
pub(super) struct Chunk {
    pub(super) samples: Samples,
    /// Prediction per field.
    pub(super) predicted: [Prediction; CHUNK],
    /// The contract's prediction per field, if `contracted`.
    pub(super) contract: [i32; CHUNK],
    /// Whether the schema's contract predicted these fields: the first chunk of a class of at
    /// most [`CHUNK`] fields, if the contract did not fail.
    pub(super) contracted: bool,
}

impl Chunk {
    pub(super) const EMPTY: Chunk = Chunk {
        samples: [[0; MAX_SAMPLES]; CHUNK],
        predicted: [Prediction { candidate: None, value: 0 }; CHUNK],
        contract: [0; CHUNK],
        contracted: false,
    };

    /// The contract's prediction of field `f` of the chunk, if any.
    #[inline(always)]
    pub(super) fn contract_of(&self, f: usize) -> Option<i32> {
        self.contracted.then(|| self.contract[f % CHUNK])
    }

    /// The context of the "unchanged" flag of `h` (of `class`), whose first chunk is filled
    /// (see [`Motion`]); and on the encoder, whether every field in the groups in `due`
    /// (every field if `simple`: no tolerances and every group due) equals its prediction
    /// within its tolerance, `targets` being the world's values (the chunks after the first
    /// are filled as they are reached).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn judge<'s, S: Side<'s>>(
        &mut self,
        side: &S,
        h: u32,
        hist: &Hist<'_>,
        class: (usize, &Class),
        contract: Option<&Attached>,
        models: &[Model],
        targets: &[i32],
        simple: bool,
        due: u32,
    ) -> (Motion, bool) {
        let fields = class.1.fields;
        let n = fields.len();
        let motion = self.motion(hist, n.min(CHUNK));
        if !S::ENCODER || targets.len() != n {
            return (motion, false);
        }
        let mut lo = 0;
        while lo < n {
            if lo > 0 {
                self.fill(side, h, hist, lo, class, contract, &models[lo..]);
            }
            let hi = (lo + CHUNK).min(n);
            let exact = if simple {
                let (predicted, targets) = (&self.predicted[..hi - lo], &targets[lo..hi]);
                predicted.iter().zip(targets).all(|(p, &t)| p.value == t)
            } else {
                (lo..hi).all(|f| {
                    let p = self.predicted[f - lo].value;
                    due >> fields[f].group & 1 == 0 || predicts(&fields[f], p, targets[f])
                })
            };
            if !exact {
                return (motion, false);
            }
            lo = hi;
        }
        (motion, true)
    }

    /// The motion of the first `n` fields (at most [`CHUNK`]), whose samples and predictions
    /// are filled, in their history `hist`.
    #[inline(always)]
    fn motion(&self, hist: &Hist<'_>, n: usize) -> Motion {
        if hist.len() < 2 {
            return Motion::FIRST;
        }
        let (mut changed, mut steady, mut moves) = (0, true, false);
        for (s, p) in self.samples[..n].iter().zip(&self.predicted[..n]) {
            changed += usize::from(s[0] != s[1]);
            // Read whatever the history's length, and kept only with three samples.
            steady &= s[0].wrapping_sub(s[1]) == s[1].wrapping_sub(s[2]);
            moves |= p.value != s[0];
        }
        Motion { changed: changed.min(2), steady: steady && hist.len() >= 3, moves }
    }

    /// Loads the samples of the fields of `class` from `lo` on (at most [`CHUNK`]) of `h`
    /// from its history `hist`, runs the schema's `contract` (with the class's index) on a
    /// class that fits one chunk, and predicts each field with its model (`models`, from `lo`
    /// on).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fill<'s, S: Side<'s>>(
        &mut self,
        side: &S,
        h: u32,
        hist: &Hist<'_>,
        lo: usize,
        class: (usize, &Class),
        contract: Option<&Attached>,
        models: &[Model],
    ) {
        let (index, class) = class;
        side.samples(h, hist.fetched, lo, class, &mut self.samples);
        let fields = class.fields.get(lo..).unwrap_or(&[]);
        let n = fields.len().min(CHUNK);
        if let Some((picks, len)) = hist.picks {
            for s in &mut self.samples[..n] {
                for m in 0..len {
                    s[m] = s[usize::from(picks[m]) % MAX_SAMPLES];
                }
            }
        }
        self.contracted = false;
        let k = hist.len();
        if let Some(a) =
            contract.filter(|_| lo == 0 && fields.len() <= CHUNK && k >= CONTRACT_SAMPLES)
        {
            let rows = Rows::new(&self.samples[..n], &hist.offsets[..k]);
            self.contracted = a.run(index, fields, &rows, &mut self.contract[..n]);
        }
        self.predict(fields, 0..n.min(models.len()), hist, models);
    }

    /// Predicts fields `range` of the chunk (of `fields`, the chunk's) from their samples with
    /// their models (`models`, the chunk's).
    #[inline(always)]
    fn predict(
        &mut self,
        fields: &[Field],
        range: Range<usize>,
        hist: &Hist<'_>,
        models: &[Model],
    ) {
        let (table, k) = (hist.table, hist.len());
        for f in range {
            let (Some(field), Some(model)) = (fields.get(f), models.get(f)) else {
                return;
            };
            let samples = &self.samples[f % CHUNK];
            let contract = self.contract_of(f);
            self.predicted[f % CHUNK] = match field.coding {
                Coding::Numeric(c) => {
                    let history = History { table, samples, len: k, contract, neighbour: 0 };
                    model.predict(field, c, &history)
                }
                Coding::Categorical => Prediction { candidate: None, value: samples[0] },
            };
        }
    }

    /// After field `i` of the chunk (of `fields`, the chunk's) is coded as `value`: if it is
    /// the index of a quaternion whose components are in the chunk, re-expresses every history
    /// sample of another index in the basis of `value` ([`QuatQuant::rebase`]) and predicts
    /// the components again, so they are coded against the rotation the history holds rather
    /// than against components of another basis.
    #[inline(never)]
    pub(super) fn rebase_quat(
        &mut self,
        fields: &[Field],
        i: usize,
        value: i32,
        hist: &Hist<'_>,
        models: &[Model],
    ) {
        let Some(quant) = quat_at(fields, i).filter(|_| i + 4 <= CHUNK) else {
            return;
        };
        let k = hist.len();
        let rows = &mut self.samples[i..i + 4];
        if rows[0][..k].iter().all(|&index| index == value) {
            return;
        }
        for m in 0..k {
            let raw = quant.rebase([rows[0][m], rows[1][m], rows[2][m], rows[3][m]], value);
            for (row, r) in rows.iter_mut().zip(raw) {
                row[m] = r;
            }
        }
        self.predict(fields, i + 1..i + 4, hist, models);
    }
}
