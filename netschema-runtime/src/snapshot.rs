//! The traits generated code implements: one per entity class, one per enum.

use crate::schema::Class;

/// A replicated entity type: its class descriptor and the mapping between its natural
/// values and the raw integers the codec works on.
///
/// Implemented by the code generated from `.netidl` schemas and by `#[derive(Snapshot)]`;
/// both produce the same descriptor for the same declaration.
pub trait Snapshot: Sized {
    /// The class descriptor: name and scalar fields in wire order.
    const CLASS: Class;

    /// Writes one raw value per scalar field of [`Snapshot::CLASS`] into `raw` (which has at
    /// least that many entries). Values outside a field's range are clamped.
    fn quantise(&self, raw: &mut [i32]);

    /// Rebuilds a value from raw values (as written by [`Snapshot::quantise`]); raw values
    /// outside a field's range are clamped first.
    fn dequantise(raw: &[i32]) -> Self;
}

/// An enum replicated as a categorical field: its cases, in index order.
///
/// Implemented by the enums generated from `.netidl` schemas and by `#[derive(SnapshotEnum)]`
/// on fieldless enums. The raw value of a case is its index in [`SnapshotEnum::ALL`]
/// (declaration order), whatever its Rust discriminant.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a netschema enum: it does not implement `SnapshotEnum`",
    label = "not a `SnapshotEnum`",
    note = "a field without a `#[netschema(...)]` kind must be a `bool`, an enum with `#[derive(SnapshotEnum)]`, or an array of them"
)]
pub trait SnapshotEnum: Copy + 'static {
    /// Every case, in index order (never empty).
    const ALL: &'static [Self];

    /// The number of cases.
    const CASES: u32 = Self::ALL.len() as u32;

    /// The index of this case in [`SnapshotEnum::ALL`].
    fn index(self) -> u32;

    /// The case at `index`, or the last case if `index` is out of range.
    fn from_index(index: u32) -> Self {
        let all = Self::ALL;
        all[(index as usize).min(all.len().saturating_sub(1))]
    }
}
