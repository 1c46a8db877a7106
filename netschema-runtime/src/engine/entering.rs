//! What entering entities are predicted from: the last few entities of the same class that
//! entered in the packet being coded, which the client decodes before the next.
//!
//! Each field of an entering entity is predicted from the reference whose fields coded so far
//! are nearest the entity's (the fewest residual bits, each field's as a share of its raw
//! width so that a matching enum counts as much as a matching position; the newest reference
//! for the first field, and of equals): a projectile whose position matches an earlier one
//! from the same gun takes its velocity from it too. Both ends know every value involved, so
//! nothing is sent about the choice.

use crate::schema::Field;

/// What a residual of `bits` bits (0 to 32) adds to a reference's distance for a field
/// `width` bits wide (1 to 32): its bits in 1/256 of the width, `(bits << 8) / width`, at
/// `[width][bits]` (width 0 reads as 1). A table, so that no division is left for run time.
const SHARES: [[u16; 33]; 33] = {
    let mut table = [[0; 33]; 33];
    let mut width = 0;
    while width < table.len() {
        let mut bits = 0;
        while bits < table[width].len() {
            let d = if width == 0 { 1 } else { width };
            table[width][bits] = ((bits << 8) / d) as u16;
            bits += 1;
        }
        width += 1;
    }
    table
};

/// Classes (the first ones of a schema) whose entering entities are predicted from earlier
/// ones; entities of later classes are coded against the zero predictor alone.
pub(crate) const CLASSES: usize = 4;
/// Fields (the first ones of a class) predicted from earlier entering entities; later fields
/// are coded against the zero predictor alone.
pub(crate) const FIELDS: usize = 16;
/// Entering entities of each class kept as references.
pub(crate) const REFERENCES: usize = 16;

/// The values of the last [`REFERENCES`] entities of each class that entered in the packet,
/// and those of the entity being coded until it is [`Entered::commit`]ted (the encoder drops
/// an entity that did not fit by not committing it).
pub(crate) struct Entered {
    /// Per class, a ring of rows; `newest[c]` is the index of the newest.
    rows: [[[i32; FIELDS]; REFERENCES]; CLASSES],
    newest: [usize; CLASSES],
    /// Rows held per class, up to [`REFERENCES`].
    held: [usize; CLASSES],
    /// The entity being coded: its class, its values so far, per reference (0: the newest)
    /// the bits of its residuals against them, each in 1/256 of its field's raw width, and
    /// the reference nearest it (the newest of equals).
    class: usize,
    pending: [i32; FIELDS],
    distance: [u32; REFERENCES],
    nearest: usize,
}

impl Entered {
    /// No entity has entered yet.
    pub(crate) const EMPTY: Entered = Entered {
        rows: [[[0; FIELDS]; REFERENCES]; CLASSES],
        newest: [0; CLASSES],
        held: [0; CLASSES],
        class: CLASSES,
        pending: [0; FIELDS],
        distance: [0; REFERENCES],
        nearest: 0,
    };

    /// Starts coding an entering entity of `class`.
    #[inline]
    pub(crate) fn begin(&mut self, class: usize) {
        self.class = class;
        self.distance = [0; REFERENCES];
        self.nearest = 0;
    }

    /// References held for the entity's class.
    #[inline]
    fn held(&self) -> usize {
        self.held.get(self.class).copied().unwrap_or(0)
    }

    /// Row of reference `r` (0: the newest) of the entity's class, if held.
    #[inline]
    fn row(&self, r: usize) -> Option<&[i32; FIELDS]> {
        let at = (self.newest.get(self.class)? + REFERENCES - r) % REFERENCES;
        (r < self.held()).then(|| &self.rows[self.class][at])
    }

    /// What field `f` of the entity is predicted from: that field of the reference nearest
    /// the fields coded so far, if the class has one and the field is predicted so.
    #[inline]
    pub(crate) fn previous(&self, f: usize) -> Option<i32> {
        self.row(self.nearest)?.get(f).copied()
    }

    /// Records field `f` of the entity, of `field`, and how far each reference was from it.
    #[inline]
    pub(crate) fn set(&mut self, f: usize, field: &Field, value: i32) {
        let Some(v) = self.pending.get_mut(f) else { return };
        *v = value;
        let c = self.class;
        let (Some(rows), Some(&newest)) = (self.rows.get(c), self.newest.get(c)) else { return };
        let shares = &SHARES[(field.raw_bits() as usize).min(SHARES.len() - 1)];
        let (mut nearest, mut least) = (0, u32::MAX);
        for r in 0..self.held[c].min(REFERENCES) {
            let x = rows[(newest + REFERENCES - r) % REFERENCES][f];
            let bits = 32 - field.residual(value, x).unsigned_abs().leading_zeros();
            let distance = self.distance[r].saturating_add(u32::from(shares[bits as usize]));
            self.distance[r] = distance;
            if distance < least {
                (nearest, least) = (r, distance);
            }
        }
        self.nearest = nearest;
    }

    /// Makes the entity coded since [`Entered::begin`] the newest reference of its class.
    #[inline]
    pub(crate) fn commit(&mut self) {
        let c = self.class;
        if c < CLASSES {
            let row = (self.newest[c] + 1) % REFERENCES;
            self.rows[c][row] = self.pending;
            self.newest[c] = row;
            self.held[c] = (self.held[c] + 1).min(REFERENCES);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::predict::Predictor;

    const F: Field = Field::numeric("x", 0, 1000, false, &[Predictor::Hold]);

    fn enter(e: &mut Entered, class: usize, row: &[i32]) {
        e.begin(class);
        for (f, &v) in row.iter().enumerate() {
            e.set(f, &F, v);
        }
        e.commit();
    }

    #[test]
    fn shares_are_bits_in_256ths_of_the_width() {
        for (width, shares) in SHARES.iter().enumerate().skip(1) {
            for (bits, &share) in shares.iter().enumerate() {
                assert_eq!(usize::from(share), bits * 256 / width);
            }
        }
        assert_eq!(SHARES[0], SHARES[1]);
    }

    #[test]
    fn only_committed_entities_of_the_class_are_references() {
        let mut e = Entered::EMPTY;
        e.begin(1);
        assert_eq!(e.previous(0), None);
        e.set(0, &F, 7);
        e.set(FIELDS, &F, 9); // past the predicted fields: ignored
        e.begin(1);
        assert_eq!(e.previous(0), None, "not committed");
        enter(&mut e, 1, &[7]);
        e.begin(1);
        assert_eq!(e.previous(0), Some(7));
        assert_eq!(e.previous(FIELDS), None);
        e.begin(0);
        assert_eq!(e.previous(0), None, "another class");
        enter(&mut e, CLASSES, &[8]); // past the predicted classes: ignored
        e.begin(CLASSES);
        assert_eq!(e.previous(0), None);
    }

    #[test]
    fn later_fields_follow_the_reference_nearest_the_fields_coded_so_far() {
        let mut e = Entered::EMPTY;
        let n = REFERENCES as i32 + 3;
        for i in 0..n {
            enter(&mut e, 0, &[i * 10, i * 20]);
        }
        e.begin(0);
        // The newest first; the three oldest have left the ring.
        assert_eq!(e.previous(0), Some((n - 1) * 10));
        e.set(0, &F, 41);
        assert_eq!(e.previous(1), Some(80), "the reference whose first field was 40");
        e.begin(0);
        e.set(0, &F, 0);
        assert_eq!(e.previous(1), Some(60), "the oldest reference held");
    }
}
