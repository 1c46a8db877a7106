//! The entity field table (`entityStateFields`): the fields of an entity state in the order
//! their change bits are written, each with its bit width.
//!
//! Quake III's table lists one struct for every entity type, ordered by hand so that fields
//! that change often come first (the "last changed field" then stays small). Here an entity's
//! state is its class (as `eType`, when the schema has several) followed by its class's scalar
//! fields, ordered by how often each changed from one frame to the next in the training run
//! (schema order without one); positions past a class's fields hold 0.

use netschema_runtime::quant::bits_for_range;
use netschema_runtime::schema::Schema;

use super::super::Snapshot;

/// The entity field table of a schema.
#[derive(Clone, Debug)]
pub(super) struct Layout {
    schema: &'static Schema,
    /// Bits of the class field; 0 when the schema has one class (and no class field).
    class_bits: u32,
    /// Per class, its field indexes in table order.
    order: Vec<Vec<usize>>,
}

/// What a position of the table holds for an entity of some class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Slot {
    /// The class (`eType`), this many bits.
    Class(u32),
    /// Field `index` of the class.
    Field(usize),
    /// Nothing: past the class's fields (always 0).
    Padding,
}

impl Layout {
    /// The table of `schema`, fields ordered by their changes in `training`.
    pub(super) fn new(schema: &'static Schema, training: &[Snapshot]) -> Self {
        let mut changes: Vec<Vec<u64>> =
            schema.classes.iter().map(|c| vec![0; c.fields.len()]).collect();
        for pair in training.windows(2) {
            let (before, after) = (&pair[0], &pair[1]);
            for i in 0..after.len() {
                let Ok(j) = before.ids.binary_search(&after.ids[i]) else { continue };
                let class = usize::from(after.classes[i]);
                if before.classes[j] != after.classes[i] || class >= changes.len() {
                    continue;
                }
                for (f, (a, b)) in after.row(i).iter().zip(before.row(j)).enumerate() {
                    changes[class][f] += u64::from(a != b);
                }
            }
        }
        let order = changes
            .iter()
            .map(|counts| {
                let mut fields: Vec<usize> = (0..counts.len()).collect();
                fields.sort_by_key(|&f| std::cmp::Reverse(counts[f]));
                fields
            })
            .collect();
        let classes = schema.classes.len() as i32;
        Layout { schema, class_bits: bits_for_range(0, classes - 1), order }
    }

    fn offset(&self) -> usize {
        usize::from(self.class_bits > 0)
    }

    /// Positions compared between states of classes `a` and `b`.
    pub(super) fn positions(&self, a: u16, b: u16) -> usize {
        let fields = |c: u16| self.order[usize::from(c)].len();
        self.offset() + fields(a).max(fields(b))
    }

    /// What position `pos` holds for an entity of `class`.
    pub(super) fn slot(&self, class: u16, pos: usize) -> Slot {
        if self.class_bits > 0 && pos == 0 {
            return Slot::Class(self.class_bits);
        }
        match self.order[usize::from(class)].get(pos - self.offset()) {
            Some(&f) => Slot::Field(f),
            None => Slot::Padding,
        }
    }

    /// The value at position `pos` of a state of `class` with `row`.
    pub(super) fn value(&self, class: u16, row: &[i32], pos: usize) -> i32 {
        match self.slot(class, pos) {
            Slot::Class(_) => i32::from(class),
            Slot::Field(f) => row[f],
            Slot::Padding => 0,
        }
    }

    /// Smallest value and bits of field `f` of `class`.
    pub(super) fn field(&self, class: u16, f: usize) -> (i32, u32) {
        let field = &self.schema.classes[usize::from(class)].fields[f];
        (field.min, bits_for_range(field.min, field.max))
    }

    /// Number of classes.
    pub(super) fn classes(&self) -> usize {
        self.order.len()
    }

    /// Fields of `class`.
    pub(super) fn fields(&self, class: u16) -> usize {
        self.order[usize::from(class)].len()
    }
}
