//! Watching what each field costs while a packet is encoded.
//!
//! [`Peer::encode_probed`](crate::Peer::encode_probed) reports every value it codes to a
//! [`Probe`]: which field it belongs to, its ideal cost under the model that coded it, and the
//! predictor that was used, and the cost of every part of the packet's structure ([`Part`]).
//! Profiling tools add these up into bits per field, predictor usage and structure; the packet
//! is exactly the one [`Peer::encode`](crate::Peer::encode) would write.

/// A part of a packet's structure: what it costs besides the values of fields. The rest of a
/// packet is the coder's termination.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// The header: baseline, frame, model, history frames, and the "hold all" and mode flags.
    Header,
    /// The record section ([`crate::engine::records`]): its flag and the records it carries.
    Records,
    /// Whether each entity present at the baseline is kept.
    Kept,
    /// The list of entering entities: "one more" flags, handles, classes, handle ages and
    /// "own" flags.
    Entering,
    /// The "held" flags of kept entities, in packets that hold some for the byte budget.
    Held,
    /// Each updated entity's "unchanged" flag.
    Unchanged,
    /// The links of entering and updated entities ([`Class::links`](crate::schema::Class)).
    Links,
    /// The check value.
    Check,
}

impl Part {
    /// Every part, in packet order.
    pub const ALL: [Part; 8] = [
        Part::Header,
        Part::Records,
        Part::Kept,
        Part::Entering,
        Part::Held,
        Part::Unchanged,
        Part::Links,
        Part::Check,
    ];

    /// The part's place in [`Part::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// A short lower-case name, as profiles print it.
    pub const fn name(self) -> &'static str {
        match self {
            Part::Header => "header",
            Part::Records => "records",
            Part::Kept => "kept flags",
            Part::Entering => "entering list",
            Part::Held => "held flags",
            Part::Unchanged => "unchanged flags",
            Part::Links => "links",
            Part::Check => "check value",
        }
    }
}

// `Part::ALL` lists the parts in declaration order, so `index` is a part's place in it.
const _: () = {
    let mut i = 0;
    while i < Part::ALL.len() {
        assert!(Part::ALL[i].index() == i);
        i += 1;
    }
};

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

    /// Part `part` of the packet's structure was coded at an ideal cost of `cost` units. A
    /// part may be reported many times per packet (once per flag).
    fn structure(&mut self, part: Part, cost: u32) {
        let _ = (part, cost);
    }

    /// Link `link` (an index into the class's [`Class::links`](crate::schema::Class)) of an
    /// entity of class `class` was coded at an ideal cost of `cost` units. By default it counts
    /// as structure part [`Part::Links`].
    fn link(&mut self, class: usize, link: usize, cost: u32) {
        let _ = (class, link);
        self.structure(Part::Links, cost);
    }

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
