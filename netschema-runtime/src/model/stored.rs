//! Model sets stored compactly: each model without the parts its field never changes (the
//! candidates its model does not run, the residual classes past its raw bits; see
//! [`Model::store`]), as 16-bit words. Under the per-frame policy both ends keep every frame's
//! set this way; the set a packet is coded in is whole.

use core::iter::once;

use crate::model::{Model, runs};
use crate::schema::{Class, Coding, Field, MAX_CANDIDATES, Schema};

/// For each model of a set of `schema`, in layout order, the candidates whose parts it uses
/// and the most magnitude classes of its residuals: for a numeric field the candidates its
/// model runs (the listed ones and their fits), for a categorical field one (its transition
/// residuals), with the classes of the field's largest residual (half its span); for the
/// packet and entity models every candidate and class (their counts use the candidates'
/// residual models), and for every model of a schema with a prior, whose models may start
/// anywhere.
fn parts(schema: &Schema) -> impl Iterator<Item = (usize, u32)> + '_ {
    let prior = schema.prior.is_some();
    let field = move |f: &Field| {
        let used = match f.coding {
            Coding::Numeric(candidates) => runs(candidates),
            Coding::Categorical => 1,
        };
        if prior { (MAX_CANDIDATES, u32::BITS) } else { (used, f.raw_bits()) }
    };
    let whole = (MAX_CANDIDATES, u32::BITS);
    let class = move |c: &'static Class| once(whole).chain(c.fields.iter().map(field));
    once(whole).chain(schema.classes.iter().flat_map(class))
}

/// Words one stored set of `schema` takes.
pub(crate) fn words(schema: &Schema) -> usize {
    parts(schema).map(|(used, classes)| Model::stored_words(used, classes)).sum()
}

/// Stores `set`, a whole set of `schema`, into `out` ([`words`] long).
pub(crate) fn store(schema: &Schema, set: &[Model], out: &mut [u16]) {
    let mut at = 0;
    for (model, (used, classes)) in set.iter().zip(parts(schema)) {
        at += model.store(used, classes, out.get_mut(at..).unwrap_or(&mut []));
    }
}

/// Fills `set`, a whole set of `schema`, with the set [`store`] wrote into `stored`.
pub(crate) fn load(schema: &Schema, stored: &[u16], set: &mut [Model]) {
    let mut at = 0;
    for (model, (used, classes)) in set.iter_mut().zip(parts(schema)) {
        model.load(used, classes, stored.get(at..).unwrap_or(&[]));
        at += Model::stored_words(used, classes);
    }
}

/// Digest of a stored set (for checking that two ends are in step).
pub(crate) fn digest(stored: &[u16]) -> u64 {
    let fold = |h: u64, &w: &u16| (h ^ u64::from(w)).wrapping_mul(0x0000_0100_0000_01b3);
    stored.iter().fold(0xcbf2_9ce4_8422_2325, fold)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::coder::CostMeter;
    use crate::model::ModelLayout;
    use crate::model::learned::learn_a_line;
    use crate::model::predict::Predictor;

    const HOLD_LINEAR: [Predictor; 2] = [Predictor::Hold, Predictor::Linear];
    const FIELDS: [Field; 2] =
        [Field::numeric("x", -1000, 1000, false, &HOLD_LINEAR), Field::categorical("on", 2)];
    const CLASSES: [Class; 1] = [Class::new("c", &FIELDS)];
    const SCHEMA: Schema = Schema::new("stored", &CLASSES);

    /// A set that has learned reads back from its stored form exactly, in fewer words than
    /// whole models take.
    #[test]
    fn a_stored_set_loads_back_as_it_was() {
        let len = ModelLayout::new(&SCHEMA).len;
        let mut set = [Model::default(); 4];
        ModelLayout::reset(&SCHEMA, &mut set[..len]);
        learn_a_line(&mut set[2], &FIELDS[0], &HOLD_LINEAR, 200, |i| i * 3 + i % 7);
        let mut meter = CostMeter::default();
        for i in 0..200 {
            set[3].code_categorical(&mut meter, &FIELDS[1], Some(i % 2), (i / 3) % 2);
            set[0].code_count(&mut meter, i as usize % 7, i % 5);
        }
        let mut stored = vec![0u16; words(&SCHEMA)];
        store(&SCHEMA, &set, &mut stored);
        let mut back = [Model::default(); 4];
        load(&SCHEMA, &stored, &mut back);
        assert_eq!(back, set);
        // Packet and entity models whole; hold, linear and the line's fit over 11 bits; one
        // candidate over 1 bit for the bool.
        let expected = 2 * Model::stored_words(MAX_CANDIDATES, 32)
            + Model::stored_words(3, 11)
            + Model::stored_words(1, 1);
        assert_eq!(words(&SCHEMA), expected);
        assert!(expected * 2 < 4 * core::mem::size_of::<Model>() * 4 / 5);
    }
}
