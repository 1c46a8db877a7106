//! Tolerances given on a command line (`--tolerance PATH=STEPS`), applied to a schema's
//! descriptors at run time.

use std::fmt;
use std::str::FromStr;

use netschema_runtime::schema::{Class, Coding, Field, MAX_TOLERANCE, Schema};

/// A tolerance in raw steps for every numeric scalar field under a path: the field whose path
/// is `path`, or starts with `path.` or `path[` (`pos` covers `pos.x` and `pos.y`), in any
/// class, or the same with the class's name in front (`Unit.pos`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToleranceOverride {
    /// The path.
    pub path: String,
    /// The tolerance, raw steps, at most [`MAX_TOLERANCE`].
    pub steps: u32,
}

impl ToleranceOverride {
    /// Whether the override covers field `field` of class `class`.
    fn covers(&self, class: &Class, field: &Field) -> bool {
        let under = |path: &str| {
            path.strip_prefix(self.path.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
        };
        under(field.name) || under(&format!("{}.{}", class.name, field.name))
    }
}

impl FromStr for ToleranceOverride {
    type Err = String;

    /// Parses `PATH=STEPS`.
    fn from_str(s: &str) -> Result<Self, String> {
        let (path, steps) =
            s.split_once('=').ok_or_else(|| format!("`{s}` is not PATH=STEPS (e.g. pos=2)"))?;
        let steps: u32 = steps
            .trim()
            .parse()
            .map_err(|_| format!("`{steps}` in `{s}` is not a number of raw steps"))?;
        if steps > MAX_TOLERANCE {
            return Err(format!(
                "tolerance `{s}`: a tolerance is at most {MAX_TOLERANCE} raw steps"
            ));
        }
        let path = path.trim();
        if path.is_empty() {
            return Err(format!("`{s}` names no field"));
        }
        Ok(ToleranceOverride { path: path.to_owned(), steps })
    }
}

impl fmt::Display for ToleranceOverride {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.path, self.steps)
    }
}

/// `schema` with the tolerances of `overrides` (a later one wins where two cover a field):
/// the same classes, fields, ranges and update groups, so the same snapshot layout, and a
/// hash of its own. The descriptors are leaked (see the [module docs](super)). Fails, naming
/// the path, if an override covers no numeric field (bools, enums and a quaternion's index
/// take no tolerance).
pub fn with_tolerances(
    schema: &Schema,
    overrides: &[ToleranceOverride],
) -> Result<&'static Schema, String> {
    let mut used = vec![false; overrides.len()];
    let classes: Vec<Class> = schema
        .classes
        .iter()
        .map(|class| {
            let fields: Vec<Field> = class
                .fields
                .iter()
                .map(|&field| {
                    let numeric = matches!(field.coding, Coding::Numeric(_));
                    let chosen = overrides
                        .iter()
                        .enumerate()
                        .filter(|(_, o)| numeric && o.covers(class, &field))
                        .inspect(|&(i, _)| used[i] = true)
                        .last();
                    match chosen {
                        Some((_, o)) => field.with_tolerance(o.steps),
                        None => field,
                    }
                })
                .collect();
            Class { fields: Box::leak(fields.into_boxed_slice()), ..*class }
        })
        .collect();
    if let Some(unused) = overrides.iter().zip(&used).find(|(_, used)| !**used) {
        let names: Vec<String> = schema
            .classes
            .iter()
            .flat_map(|c| {
                c.fields
                    .iter()
                    .filter(|f| matches!(f.coding, Coding::Numeric(_)))
                    .map(move |f| format!("{}.{}", c.name, f.name))
            })
            .collect();
        return Err(format!(
            "--tolerance {}: no numeric field of schema `{}` is at or under `{}` (its numeric \
             fields: {})",
            unused.0,
            schema.name,
            unused.0.path,
            names.join(", ")
        ));
    }
    let tolerant: &'static Schema =
        Box::leak(Box::new(Schema::new(schema.name, Box::leak(classes.into_boxed_slice()))));
    tolerant.validate().map_err(|e| format!("the schema with tolerances is invalid: {e}"))?;
    Ok(tolerant)
}

#[cfg(test)]
mod tests {
    use super::*;
    use netschema_runtime::model::predict::Predictor;

    static UNIT: [Field; 4] = [
        Field::numeric("pos.x", 0, 1000, false, &[Predictor::Hold]),
        Field::numeric("pos.y", 0, 1000, false, &[Predictor::Hold]),
        Field::numeric("position", 0, 1000, false, &[Predictor::Hold]),
        Field::categorical("alive", 2),
    ];
    static CLASSES: [Class; 1] = [Class::new("Unit", &UNIT)];
    static SCHEMA: Schema = Schema::new("units", &CLASSES);

    fn tolerances(schema: &Schema) -> Vec<u32> {
        schema.classes[0].fields.iter().map(|f| f.tolerance).collect()
    }

    #[test]
    fn paths_cover_their_fields_and_nothing_else() {
        let pos: ToleranceOverride = "pos=2".parse().unwrap();
        let tolerant = with_tolerances(&SCHEMA, &[pos]).unwrap();
        assert_eq!(tolerances(tolerant), [2, 2, 0, 0]);
        assert_ne!(tolerant.hash, SCHEMA.hash);
        let later = ["Unit.pos=3", "pos.y=1"].map(|s| s.parse().unwrap());
        assert_eq!(tolerances(with_tolerances(&SCHEMA, &later).unwrap()), [3, 1, 0, 0]);
        let exact: ToleranceOverride = "position=0".parse().unwrap();
        assert_eq!(with_tolerances(&SCHEMA, &[exact]).unwrap().hash, SCHEMA.hash);
    }

    #[test]
    fn unknown_paths_and_large_tolerances_are_refused() {
        for path in ["po=2", "alive=1", "Dot.pos=1"] {
            let o: ToleranceOverride = path.parse().unwrap();
            let err = with_tolerances(&SCHEMA, &[o]).unwrap_err();
            assert!(err.contains("Unit.pos.x, Unit.pos.y, Unit.position"), "{err}");
        }
        let too_large = format!("pos={}", MAX_TOLERANCE + 1);
        assert!(too_large.parse::<ToleranceOverride>().unwrap_err().contains("at most"));
        for bad in ["pos", "=2", "pos=-1", "pos=x"] {
            assert!(bad.parse::<ToleranceOverride>().is_err(), "{bad}");
        }
    }
}
