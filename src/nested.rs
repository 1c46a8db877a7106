//! Types replicated inside the classes that hold them: structs (`.netidl`'s `struct`) and
//! enums, as seen by `#[derive(Snapshot)]`.
//!
//! A proc macro cannot see the fields of another type, so a derived class flattens a field of
//! a user type through [`SnapshotStruct`]: the type's scalars, laid out as `.netidl` lays out
//! a struct, which the class's generated code copies into its own table at compile time.

use netschema_runtime::quant::EnumQuant;
use netschema_runtime::schema::Field;
use netschema_runtime::{SnapshotEnum, Value};

/// One scalar of a [`SnapshotStruct`], as the type lays it out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scalar {
    /// The scalar's table entry; its name is its path inside the type (`health`, `pos.x`,
    /// `target.present`), empty for an enum's one scalar.
    pub field: Field,
    /// Whether a field on its path inside the type writes `predict(...)`, which wins over the
    /// holding field's.
    pub own_predict: bool,
    /// Whether a field on its path inside the type writes a tolerance, which wins over the
    /// holding field's.
    pub own_tolerance: bool,
    /// The step between neighbouring raw values in natural units, in which a holding field's
    /// tolerance is counted; 0 for a transition-coded scalar.
    pub step: f64,
}

/// A type a derived class (or struct) may hold as a field: its scalars and their raw values.
///
/// Implemented by `#[derive(SnapshotStruct)]` on a struct with named fields, and for every
/// [`SnapshotEnum`] (one transition-coded scalar). The holding type flattens the scalars in
/// place, under the field's path (`stats.health`, `buffs[2].time`, `target.value.x`), exactly
/// as the `.netidl` compiler flattens a `struct`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a replicated field: it implements neither `SnapshotStruct` nor `SnapshotEnum`",
    label = "not a `SnapshotStruct` or `SnapshotEnum`",
    note = "a field without a `#[netschema(...)]` kind must be a `bool`, a struct with `#[derive(SnapshotStruct)]`, an enum with `#[derive(SnapshotEnum)]`, an `Option` or an array of them"
)]
pub trait SnapshotStruct: Sized {
    /// The scalars, in wire order.
    const SCALARS: &'static [Scalar];

    /// Writes one raw value per scalar of [`SnapshotStruct::SCALARS`] into `raw`; a value that
    /// needs clamping is reported to `clamped` as scalar `at + i` of the holding class.
    fn quantise_at(&self, raw: &mut [i32], at: usize, clamped: &mut dyn FnMut(usize, Value));

    /// Rebuilds a value from the raw values of its scalars.
    fn dequantise_from(raw: &[i32]) -> Self;
}

impl<T: SnapshotEnum> SnapshotStruct for T {
    const SCALARS: &'static [Scalar] = &[Scalar {
        field: Field::categorical("", T::CASES).with_meaning(EnumQuant::fingerprint(T::NAMES)),
        own_predict: false,
        own_tolerance: false,
        step: 0.0,
    }];

    #[inline]
    fn quantise_at(&self, raw: &mut [i32], _at: usize, _clamped: &mut dyn FnMut(usize, Value)) {
        raw[0] = self.index().min(T::CASES - 1) as i32;
    }

    #[inline]
    fn dequantise_from(raw: &[i32]) -> Self {
        T::from_index(raw[0].max(0) as u32)
    }
}
