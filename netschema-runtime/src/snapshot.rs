//! The trait generated code implements for each entity class.

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
