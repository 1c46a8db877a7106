//! References for techniques that do not carry them: each link of a class becomes one more
//! integer field after the class's own, holding the id of the entity it names plus one (0:
//! none), as a game without references would send its own ids.

use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::{Class, Field, Schema};

use super::{Setup, Snapshot};

/// A recording with its references turned into fields ([`as_fields`]).
pub(crate) struct AsFields {
    /// The schema with one more field per link.
    pub(crate) schema: &'static Schema,
    /// The snapshots, each reference in its field.
    pub(crate) snapshots: Vec<Snapshot>,
    /// The training snapshots, likewise.
    pub(crate) training: Vec<Snapshot>,
}

impl AsFields {
    /// The setup of a run over the converted snapshots.
    pub(crate) fn setup(&self, capacity: usize) -> Setup<'_> {
        Setup { schema: self.schema, capacity, training: &self.training, events: &[] }
    }
}

/// `setup`'s schema and `snapshots` with every reference as a field, or `None` if the schema
/// has no references. A field's range reaches the largest id any snapshot holds, plus one.
pub(crate) fn as_fields(setup: &Setup<'_>, snapshots: &[Snapshot]) -> Option<AsFields> {
    if setup.schema.max_links == 0 {
        return None;
    }
    let largest = snapshots.iter().chain(setup.training).flat_map(|s| s.ids.iter()).max();
    let max =
        largest.map_or(1, |&id| i32::try_from(id).map_or(i32::MAX, |id| id.saturating_add(1)));
    let classes: Vec<Class> = setup
        .schema
        .classes
        .iter()
        .map(|c| {
            let links =
                c.links.iter().map(|l| Field::numeric(l.name, 0, max, false, &[Predictor::Hold]));
            let fields: Vec<Field> = c.fields.iter().copied().chain(links).collect();
            Class::new(c.name, Box::leak(fields.into_boxed_slice())).with_groups(c.groups)
        })
        .collect();
    let schema = Schema::new(setup.schema.name, Box::leak(classes.into_boxed_slice()));
    let links = |c: u16| setup.schema.classes.get(usize::from(c)).map_or(0, |c| c.links.len());
    let convert = |all: &[Snapshot]| all.iter().map(|s| with_fields(s, links, max)).collect();
    Some(AsFields {
        schema: Box::leak(Box::new(schema)),
        snapshots: convert(snapshots),
        training: convert(setup.training),
    })
}

/// `s` with each entity's references appended to its row (one value per link of its class):
/// the id named plus one, at most `max`, or 0 for none.
fn with_fields(s: &Snapshot, links: impl Fn(u16) -> usize, max: i32) -> Snapshot {
    let value = |t: Option<u32>| {
        t.map_or(0, |t| i32::try_from(t).map_or(max, |t| t.saturating_add(1).min(max)))
    };
    let mut out = Snapshot::new();
    let mut row = Vec::new();
    for i in 0..s.len() {
        row.clear();
        row.extend_from_slice(s.row(i));
        row.extend((0..links(s.classes[i])).map(|r| value(s.link(i, r))));
        out.push(s.ids[i], s.classes[i], &row);
    }
    out
}
