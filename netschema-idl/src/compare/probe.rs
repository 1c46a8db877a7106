//! The engine's per-field cost probe, as the comparison uses it.
//!
//! TEMPORARY: this module stands in for `netschema_runtime::probe::Probe` and
//! `Peer::encode_probed`, which the runtime is gaining; the trait below has exactly their shape.
//! Until then `encode_probed` encodes with the plain `Peer::encode` and reports nothing, so
//! every per-field cost is zero and the whole packet counts as structure. To switch to the
//! runtime's probe, replace the trait with `pub use netschema_runtime::probe::Probe;` and the
//! body of `encode_probed` with `peer.encode_probed(world, buf, probe)`.

use netschema_runtime::{Peer, World};

/// Receives the cost of every field value the engine codes.
pub trait Probe {
    /// One value of field `field` (index into the class's scalar fields) of class `class`
    /// was coded at an ideal cost of `cost` units (1/256 bit); `candidate` is the index into
    /// the field's candidate predictor list of the predictor used, or `None` when the value
    /// had no prediction (entity entering, or a categorical field), and `unchanged` is true
    /// when the entity's whole update was sent as one "unchanged" flag (then `cost` is 0).
    fn field(
        &mut self,
        class: usize,
        field: usize,
        cost: u32,
        candidate: Option<u8>,
        unchanged: bool,
    );
}

/// `peer.encode(world, buf)`, reporting each field's cost to `probe`.
pub(crate) fn encode_probed<P: Probe>(
    peer: &mut Peer<'_>,
    world: &World<'_>,
    buf: &mut [u8],
    probe: &mut P,
) -> netschema_runtime::Result<usize> {
    let _ = probe;
    peer.encode(world, buf)
}
