//! Model sets stored compactly: each model without the parts its field never changes (the
//! candidates its model does not run, the residual classes past its raw bits; see
//! [`Model::store`]), as 16-bit words. Under the per-frame policy both ends keep every frame's
//! set this way; the set a packet is coded in is whole.

use core::iter::once;

use crate::model::Model;
use crate::model::learned::Kept;
use crate::schema::{Class, Field, Schema};

/// What a stored set keeps of one model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// The packet model: the residual models of its counts, and its flags.
    Counts,
    /// An entity model or the links model: the first flags, as many as it uses, which are all
    /// it uses (an entity model's "unchanged" decision takes all [`Model::FLAGS`], the links
    /// model's "the prediction holds" [`Model::FLAG_WORDS`]).
    Flags(usize),
    /// A field's model: the parts [`Kept`] names (see [`Model::store`]).
    Model(Kept),
}

impl Part {
    /// Words the part takes.
    const fn words(self) -> usize {
        match self {
            Part::Counts => Model::COUNT_WORDS,
            Part::Flags(n) => n,
            Part::Model(kept) => Model::stored_words(kept),
        }
    }

    /// Writes the part of `model` into the start of `out`; returns the words written.
    fn store(self, model: &Model, out: &mut [u16]) -> usize {
        match self {
            Part::Counts => model.store_counts(out),
            Part::Flags(n) => model.store_flags(n, out),
            Part::Model(kept) => model.store(kept, out),
        }
    }

    /// Makes `model` the one [`Part::store`] wrote into the start of `words`.
    fn load(self, model: &mut Model, words: &[u16]) {
        match self {
            Part::Counts => model.load_counts(words),
            Part::Flags(n) => model.load_flags(n, words),
            Part::Model(kept) => model.load(kept, words),
        }
    }
}

/// For each model of a set of `schema`, in layout order, what a stored set keeps of it: for a
/// field the parts its model uses ([`Kept::of`]), for the packet model its counts and flags,
/// for an entity model and the links model their flags; and every field model of a schema
/// with a prior whole, as those may start anywhere.
fn parts(schema: &Schema) -> impl Iterator<Item = Part> + '_ {
    let prior = schema.prior.is_some();
    let field = move |f: &Field| Part::Model(if prior { Kept::WHOLE } else { Kept::of(f) });
    let entity = Part::Flags(Model::FLAGS);
    let class = move |c: &'static Class| once(entity).chain(c.fields.iter().map(field));
    let links =
        core::iter::repeat_n(Part::Flags(Model::FLAG_WORDS), usize::from(schema.max_links > 0));
    once(Part::Counts).chain(schema.classes.iter().flat_map(class)).chain(links)
}

/// Words one stored set of `schema` takes.
pub(crate) fn words(schema: &Schema) -> usize {
    parts(schema).map(Part::words).sum()
}

/// Stores `set`, a whole set of `schema`, into `out` ([`words`] long).
pub(crate) fn store(schema: &Schema, set: &[Model], out: &mut [u16]) {
    let mut at = 0;
    for (model, part) in set.iter().zip(parts(schema)) {
        at += part.store(model, out.get_mut(at..).unwrap_or(&mut []));
    }
}

/// Fills `set`, a whole set of `schema`, with the set [`store`] wrote into `stored`.
pub(crate) fn load(schema: &Schema, stored: &[u16], set: &mut [Model]) {
    let mut at = 0;
    for (model, part) in set.iter_mut().zip(parts(schema)) {
        part.load(model, stored.get(at..).unwrap_or(&[]));
        at += part.words();
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
            set[1].code_flag(&mut meter, i as usize % Model::FLAGS, i % 3 == 0);
        }
        let mut stored = vec![0u16; words(&SCHEMA)];
        store(&SCHEMA, &set, &mut stored);
        let mut back = [Model::default(); 4];
        load(&SCHEMA, &stored, &mut back);
        assert_eq!(back, set);
        // The packet model's counts and flags, the entity model's flags; hold, linear and the
        // line's fit over 11 bits; the bool's flags and its entry over 1 bit.
        let numeric = Kept { used: 3, classes: 11, predicts: true, flags: false };
        let bool = Kept { used: 0, classes: 1, predicts: false, flags: true };
        let expected = Model::COUNT_WORDS
            + Model::FLAGS
            + Model::stored_words(numeric)
            + Model::stored_words(bool);
        assert_eq!(words(&SCHEMA), expected);
        assert!(expected * 2 < 4 * core::mem::size_of::<Model>() * 4 / 5);
    }
}
