//! A predictive contract attached to a schema's descriptors at run time (the benchmark's
//! `netschema-contract`).

use netschema_runtime::model::contract::Contract;
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::schema::{Class, Coding, Field, MAX_CANDIDATES, Schema};

/// `schema` with `contract` attached under `name` and offered as one more candidate to every
/// numeric field that has room for it (fewer than [`MAX_CANDIDATES`]), first, so that ties go
/// to it (on particles that measured 929 bytes a frame at latency 1 against 1016 with the
/// contract last; equal at latency 6): the same classes,
/// fields, ranges and update groups, so the same snapshot layout, and a hash of its own. The
/// descriptors are leaked (see the [module docs](super)).
pub fn with_contract(
    schema: &Schema,
    name: &'static str,
    contract: &'static dyn Contract,
) -> Result<&'static Schema, String> {
    let offer = |field: &Field| match field.coding {
        Coding::Numeric(c) if c.len() < MAX_CANDIDATES && !c.contains(&Predictor::Contract) => {
            let candidates: Vec<Predictor> =
                [Predictor::Contract].into_iter().chain(c.iter().copied()).collect();
            Field { coding: Coding::Numeric(Box::leak(candidates.into_boxed_slice())), ..*field }
        }
        _ => *field,
    };
    let classes: Vec<Class> = schema
        .classes
        .iter()
        .map(|class| {
            let fields: Vec<Field> = class.fields.iter().map(offer).collect();
            Class { fields: Box::leak(fields.into_boxed_slice()), ..*class }
        })
        .collect();
    let classes = Box::leak(classes.into_boxed_slice());
    let contracted = Schema::new(schema.name, classes).with_contract(name, contract);
    contracted.validate().map_err(|e| format!("the schema with a contract is invalid: {e}"))?;
    Ok(Box::leak(Box::new(contracted)))
}
