//! Watching what each field costs while a packet is encoded.
//!
//! [`Peer::encode_probed`](crate::Peer::encode_probed) reports every value it codes to a
//! [`Probe`]: which field it belongs to, its ideal cost under the model that coded it, and the
//! predictor that was used. Profiling tools add these up into bits per field and predictor
//! usage; the packet is exactly the one [`Peer::encode`](crate::Peer::encode) would write.

/// Receives one report per coded value.
pub trait Probe {
    /// Whether reports are wanted; when false the encoder skips measuring costs.
    const LISTENS: bool = true;

    /// One value of scalar field `field` (an index into the class's fields) of class `class`
    /// was coded at an ideal cost of `cost` units (1/256 bit, see
    /// [`COST_ONE_BIT`](crate::codec::prob::COST_ONE_BIT)). `candidate` is the index, in the field's
    /// candidate list, of the predictor used, or `None` when the value had no prediction (an
    /// entering entity, or a categorical field). `unchanged` is true when the entity's whole
    /// update was sent as one "unchanged" flag; `cost` is then 0.
    fn field(
        &mut self,
        class: usize,
        field: usize,
        cost: u32,
        candidate: Option<u8>,
        unchanged: bool,
    );

    /// A position in the stream of reports, for [`Probe::rewind`].
    fn mark(&self) -> usize {
        0
    }

    /// Withdraws every report made since `mark` was taken: the encoder coded an entity that
    /// did not fit its budget, and took it back.
    fn rewind(&mut self, mark: usize) {
        let _ = mark;
    }
}

/// The probe of a plain encode or decode: reports go nowhere and cost nothing.
pub(crate) struct NoProbe;

impl Probe for NoProbe {
    const LISTENS: bool = false;

    #[inline(always)]
    fn field(&mut self, _: usize, _: usize, _: u32, _: Option<u8>, _: bool) {}
}
