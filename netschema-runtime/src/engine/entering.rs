//! What entering entities are predicted from: the values of the previous entity of the same
//! class that entered in the packet being coded, which the client decodes before the next.

/// Classes (the first ones of a schema) whose entering entities are predicted from the
/// previous one; entities of later classes are coded against the zero predictor alone.
pub(crate) const CLASSES: usize = 4;
/// Fields (the first ones of a class) predicted from the previous entering entity; later
/// fields are coded against the zero predictor alone.
pub(crate) const FIELDS: usize = 32;

/// The values of the last entity of each class that entered in the packet, and those of the
/// entity being coded until it is [`Entered::commit`]ted (the encoder drops an entity that
/// did not fit by not committing it).
pub(crate) struct Entered {
    rows: [[i32; FIELDS]; CLASSES],
    /// Whether `rows[c]` holds an entity of this packet.
    held: [bool; CLASSES],
    pending: [i32; FIELDS],
}

impl Entered {
    /// No entity has entered yet.
    pub(crate) const EMPTY: Entered =
        Entered { rows: [[0; FIELDS]; CLASSES], held: [false; CLASSES], pending: [0; FIELDS] };

    /// Field `f` of the last committed entity of `class`, if there is one and the field is
    /// predicted so.
    #[inline]
    pub(crate) fn previous(&self, class: usize, f: usize) -> Option<i32> {
        let held = *self.held.get(class)?;
        self.rows[class].get(f).copied().filter(|_| held)
    }

    /// Records field `f` of the entity being coded.
    #[inline]
    pub(crate) fn set(&mut self, f: usize, value: i32) {
        if let Some(v) = self.pending.get_mut(f) {
            *v = value;
        }
    }

    /// Makes the entity being coded, of `class`, the one the next of its class is predicted
    /// from.
    #[inline]
    pub(crate) fn commit(&mut self, class: usize) {
        if let (Some(row), Some(held)) = (self.rows.get_mut(class), self.held.get_mut(class)) {
            *row = self.pending;
            *held = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_committed_entities_of_the_class_predict() {
        let mut e = Entered::EMPTY;
        assert_eq!(e.previous(0, 0), None);
        e.set(0, 7);
        e.set(FIELDS, 9); // past the predicted fields: ignored
        assert_eq!(e.previous(0, 0), None, "not committed");
        e.commit(1);
        assert_eq!(e.previous(1, 0), Some(7));
        assert_eq!(e.previous(0, 0), None, "another class");
        assert_eq!(e.previous(1, FIELDS), None);
        e.set(0, 8);
        e.commit(CLASSES); // past the predicted classes: ignored
        assert_eq!(e.previous(1, 0), Some(7));
        assert_eq!(e.previous(CLASSES, 0), None);
    }
}
