//! Which fields of a recording would cost less as keyframe timelines: Brand's (2019, §4.5.1)
//! break-even keyframe rate beside the rate a greedy fit of the recording needs.
//!
//! For each scalar field:
//! - **bits/entity/s**: what netschema spent on the field per entity and second, sending it
//!   every frame (the field table's bits per frame, over the mean number of entities of the
//!   class, times the rate);
//! - **bits/keyframe**: what one keyframe would cost sent once, estimated as the field's raw
//!   width, the keyframe's frame (two bits plus the bit length of the mean spacing the fit
//!   found) and two bits for the slot's flag (set, and cleared when the keyframe leaves);
//! - **break-even/s**: Brand's rate, keyframes per entity-second at which a timeline costs as
//!   much as the per-frame field: bits/entity/s over bits/keyframe;
//! - **fitted/s**: the keyframes per entity-second a greedy fit needs: over each entity's
//!   frames in the recording (a run ends when it leaves the view), a keyframe starts the run,
//!   and each segment ends at the furthest sample a straight line from its first keyframe
//!   reaches while passing within the field's precision of every sample in between (one raw
//!   step, the grid's, as a timeline between keyframes on the grid gives; or the field's
//!   tolerance if larger);
//!   angles the short way round; bools and enums take a keyframe at each change. A run's last
//!   keyframe is left out when it only repeats the value held since the one before.
//!
//! A field is cheaper as a timeline when its fitted rate is below its break-even rate. Both
//! leave out what the link adds: a timeline's keyframes, like per-frame values, are repeated
//! until a packet carrying them is acknowledged.

use std::collections::HashMap;
use std::fmt::Write as _;

use netschema_runtime::schema::{Coding, Field, Schema};

use super::Snapshot;
use super::profile::FieldReport;

/// One field's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyframeRow {
    /// `Class.path`.
    pub field: String,
    /// Bits netschema spent per entity and second sending the field every frame.
    pub bits_per_entity_second: f64,
    /// Estimated bits of one keyframe.
    pub bits_per_keyframe: f64,
    /// Brand's break-even rate: keyframes per entity-second costing as much as the per-frame
    /// field.
    pub break_even: f64,
    /// Keyframes per entity-second the greedy fit needs.
    pub fitted: f64,
}

impl KeyframeRow {
    /// Whether the field would cost less as a timeline: its fitted rate is below break-even.
    pub fn cheaper_as_timeline(&self) -> bool {
        self.fitted < self.break_even
    }
}

/// The keyframe table of one recording.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyframeReport {
    /// One row per scalar field of every class with entities in the recording, in schema order.
    pub rows: Vec<KeyframeRow>,
}

/// Keyframes and sample frames of one field, summed over runs.
#[derive(Clone, Copy, Debug, Default)]
struct Fit {
    keyframes: usize,
    frames: usize,
}

impl KeyframeReport {
    /// The table for `snapshots` (one per frame, at `rate_hz`) of `schema`, whose per-frame
    /// costs netschema measured as `fields`.
    pub fn new(
        schema: &Schema,
        snapshots: &[Snapshot],
        fields: &FieldReport,
        rate_hz: f64,
    ) -> KeyframeReport {
        let fits = fit_all(schema, snapshots);
        let mut present = vec![0usize; schema.classes.len()];
        for s in snapshots {
            for &c in &s.classes {
                if let Some(n) = present.get_mut(usize::from(c)) {
                    *n += 1;
                }
            }
        }
        let frames = snapshots.len().max(1) as f64;
        let mut rows = Vec::new();
        let mut row = 0;
        for (c, class) in schema.classes.iter().enumerate() {
            for (f, field) in class.fields.iter().enumerate() {
                let per_frame = fields.rows.get(row).map_or(0.0, |r| r.bits_per_frame);
                row += 1;
                let fit = fits.get(&(c, f)).copied().unwrap_or_default();
                if present[c] == 0 || fit.frames == 0 {
                    continue;
                }
                let entities = present[c] as f64 / frames;
                let bits_per_entity_second = per_frame / entities * rate_hz;
                let spacing = fit.frames as f64 / fit.keyframes.max(1) as f64;
                let width = (field.span() as f64).log2().ceil();
                let bits_per_keyframe = width + 2.0 + (spacing + 1.0).log2().ceil() + 2.0;
                rows.push(KeyframeRow {
                    field: format!("{}.{}", class.name, field.name),
                    bits_per_entity_second,
                    bits_per_keyframe,
                    break_even: bits_per_entity_second / bits_per_keyframe,
                    fitted: fit.keyframes as f64 / (fit.frames as f64 / rate_hz),
                });
            }
        }
        KeyframeReport { rows }
    }

    /// The table as `netschema profile` prints it.
    pub fn table(&self) -> String {
        let width = self.rows.iter().map(|r| r.field.len()).max().unwrap_or(0).max(5);
        let mut s = String::from(
            "keyframes (Brand 2019, §4.5.1; per entity-second; fit within the field's precision):\n",
        );
        let _ = writeln!(
            s,
            "{:<width$} {:>14} {:>13} {:>13} {:>9}  as a timeline",
            "field", "bits/entity/s", "bits/keyframe", "break-even/s", "fitted/s"
        );
        for r in &self.rows {
            let verdict = if r.cheaper_as_timeline() {
                format!(
                    "cheaper ({:.1}x fewer bits)",
                    r.break_even / r.fitted.max(f64::MIN_POSITIVE)
                )
            } else {
                "dearer".to_owned()
            };
            let _ = writeln!(
                s,
                "{:<width$} {:>14.1} {:>13.1} {:>13.3} {:>9.3}  {verdict}",
                r.field, r.bits_per_entity_second, r.bits_per_keyframe, r.break_even, r.fitted
            );
        }
        s
    }
}

/// Greedy fits of every (class, field) over every entity's runs of consecutive frames.
fn fit_all(schema: &Schema, snapshots: &[Snapshot]) -> HashMap<(usize, usize), Fit> {
    // id -> (class, frame last seen, one series per field)
    let mut runs: HashMap<u32, (usize, usize, Vec<Vec<i32>>)> = HashMap::new();
    let mut fits: HashMap<(usize, usize), Fit> = HashMap::new();
    let mut close = |class: usize, series: Vec<Vec<i32>>| {
        let fields = schema.classes.get(class).map_or(&[][..], |c| c.fields);
        for (f, (field, values)) in fields.iter().zip(&series).enumerate() {
            let fit = fits.entry((class, f)).or_default();
            fit.keyframes += keyframes(field, values);
            fit.frames += values.len();
        }
    };
    for (frame, snapshot) in snapshots.iter().enumerate() {
        for (i, (&id, &class)) in snapshot.ids.iter().zip(&snapshot.classes).enumerate() {
            let class = usize::from(class);
            let row = snapshot.row(i);
            let run = runs.entry(id).or_insert_with(|| (class, frame, vec![Vec::new(); row.len()]));
            if run.0 != class || run.1 + 1 < frame {
                let old = std::mem::replace(run, (class, frame, vec![Vec::new(); row.len()]));
                close(old.0, old.2);
            }
            run.1 = frame;
            for (series, &v) in run.2.iter_mut().zip(row) {
                series.push(v);
            }
        }
    }
    for (_, (class, _, series)) in runs {
        close(class, series);
    }
    fits
}

/// Keyframes a greedy fit of `series` (one value per consecutive frame) needs, as the module
/// documentation describes.
pub fn keyframes(field: &Field, series: &[i32]) -> usize {
    if series.is_empty() {
        return 0;
    }
    if field.coding == Coding::Categorical {
        return 1 + series.windows(2).filter(|w| w[0] != w[1]).count();
    }
    // Unwrapped, so that angles go the short way round.
    let mut values = Vec::with_capacity(series.len());
    let mut last = i64::from(series[0]);
    for (k, &v) in series.iter().enumerate() {
        if k > 0 {
            last += i64::from(field.residual(v, series[k - 1]));
        }
        values.push(last as f64);
    }
    let tol = f64::from(field.tolerance.max(1));
    let (mut count, mut start) = (1, 0);
    while start + 1 < values.len() {
        // The furthest sample a line from `start` reaches within `tol` of every sample in
        // between: scanned while some slope still passes them all.
        let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
        let mut end = start + 1;
        for (k, &v) in values.iter().enumerate().skip(start + 1) {
            let dt = (k - start) as f64;
            let slope = (v - values[start]) / dt;
            if slope >= lo && slope <= hi {
                end = k;
            }
            lo = lo.max((v - tol - values[start]) / dt);
            hi = hi.min((v + tol - values[start]) / dt);
            if lo > hi {
                break;
            }
        }
        let flat = values[start..=end].iter().all(|&v| v == values[start]);
        if !(flat && end + 1 == values.len()) {
            count += 1;
        }
        start = end;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use netschema_runtime::model::predict::Predictor;

    const X: Field = Field::numeric("x", 0, 1000, false, &[Predictor::Hold]);
    const A: Field = Field::numeric("a", 0, 255, true, &[Predictor::Hold]);

    #[test]
    fn a_fit_needs_a_keyframe_per_corner() {
        // Still, a line, a line with a corner, a stop.
        assert_eq!(keyframes(&X, &[5; 100]), 1);
        let line: Vec<i32> = (0..100).map(|k| 3 * k).collect();
        assert_eq!(keyframes(&X, &line), 2);
        let corner: Vec<i32> =
            (0..100).map(|k| if k < 40 { 2 * k } else { 80 - (k - 40) }).collect();
        assert_eq!(keyframes(&X, &corner), 3);
        let stop: Vec<i32> = (0..100).map(|k| (5 * k).min(200)).collect();
        assert_eq!(keyframes(&X, &stop), 2);
        // Rounded samples of a slope of 1/3 are within a step of one line.
        let third: Vec<i32> = (0..99).map(|k| (k as f64 / 3.0).round() as i32).collect();
        assert_eq!(keyframes(&X, &third), 2);
        // A parabola needs more, fewer with a tolerance.
        let arc: Vec<i32> = (0..60).map(|k| k * k / 4).collect();
        let loose = keyframes(&X.with_tolerance(8), &arc);
        assert!(keyframes(&X, &arc) > loose && loose > 2);
    }

    #[test]
    fn angles_wrap_and_enums_step() {
        let turning: Vec<i32> = (0..50).map(|k| (240 + 2 * k) % 256).collect();
        assert_eq!(keyframes(&A, &turning), 2);
        let state = Field::categorical("s", 3);
        assert_eq!(keyframes(&state, &[0, 0, 1, 1, 1, 2, 0]), 4);
    }
}
