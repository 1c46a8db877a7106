//! `fiedler`: the hand bit-packing of Fiedler's "Snapshot Compression" (2015): its exact final
//! layout on the cube schema it was written for (`cubes.rs`), and the same scheme generalised
//! to any other schema (`general.rs`). Both list the changed entities per packet as changed
//! bits or relative indices, whichever is cheaper (`index.rs`).

mod cubes;
mod general;
mod index;
#[cfg(test)]
mod tests;

use super::{Error, Halves, Setup, Technique};

/// Fiedler's bit-packing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fiedler;

impl Technique for Fiedler {
    fn name(&self) -> &'static str {
        "fiedler"
    }

    fn start(&self, setup: &Setup<'_>) -> Result<Halves, Error> {
        Ok(match cubes::is_cube_schema(setup.schema) {
            true => cubes::start(setup.schema, setup.capacity),
            false => general::start(setup.schema, setup.capacity),
        })
    }
}
