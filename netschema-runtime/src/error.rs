//! The one error type of the runtime.

use core::fmt;

use crate::snapshot::Clamped;

/// Everything that can go wrong in `netschema-runtime`.
///
/// Every fallible operation of the crate returns this type. No operation panics on bad
/// input: malformed packets, out-of-range values and undersized buffers all come back as one
/// of these variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// A reader ran past the end of its input.
    UnexpectedEnd,
    /// A writer's buffer is too small for what was written into it.
    BufferFull,
    /// A value does not fit in the number of bits it was to be written with.
    ValueTooWide {
        /// The bit count that was asked for.
        bits: u32,
    },
    /// A bit count outside `0..=32` was requested.
    InvalidBitCount {
        /// The bit count that was asked for.
        bits: u32,
    },
    /// A value lies outside the range its quantiser declares.
    OutOfRange,
    /// A quantiser's parameters are inconsistent (for example `min >= max`, or a resolution that
    /// needs more than 32 bits).
    InvalidQuantiser,
    /// A packet is malformed: its contents contradict the schema or the session state.
    Corrupt,
    /// A packet's check value does not match the decoded state: the packet was damaged or
    /// altered, or belongs to another session or client. If no packet is ever accepted, the
    /// server's schema may differ from the client's (check values cover the schema hash): the
    /// handshake ([`crate::engine::handshake`]) compares the two and names both hashes.
    CheckMismatch,
    /// A packet names a baseline frame, or under the per-frame model policy a model frame, that
    /// the receiver does not hold: a packet that arrives late.
    UnknownBaseline,
    /// A packet is coded with a model the receiver does not keep (batched model policy: the
    /// client built newer ones since, or never decoded that batch whole).
    UnknownModel,
    /// A handshake came from a build with a different schema (hashes as
    /// `netschema inspect` prints them).
    SchemaMismatch {
        /// This end's schema hash.
        ours: u64,
        /// The other end's.
        theirs: u64,
    },
    /// A handshake came from a different version of the wire protocol.
    VersionMismatch {
        /// This end's wire version.
        ours: u16,
        /// The other end's.
        theirs: u16,
    },
    /// A server's clients may see more entities at once than this client can hold.
    TooManyHandles {
        /// The server's handle capacity.
        server: usize,
        /// The most this client accepts.
        client: usize,
    },
    /// A packet's byte budget (its buffer) cannot carry a single entity that is due: the
    /// packet would hold nothing, now and in every frame after. `needed` is the length the
    /// packet needed to carry the first one tried.
    BudgetTooSmall {
        /// The budget given.
        budget: usize,
        /// The bytes the packet needed.
        needed: usize,
    },
    /// A fixed capacity (entities, frames in flight, handles) is exhausted.
    CapacityExceeded,
    /// Schema descriptors are inconsistent (empty candidate list, `min > max`, ...).
    InvalidSchema,
    /// A packet is older than, or the same as, a frame the receiver already holds.
    StalePacket,
    /// Storage handed to a constructor, or a peer's scratch room when it encodes, is too small
    /// for the requested capacities.
    StorageTooSmall,
    /// A peer or client was asked for no handles: it could never hold an entity.
    NoHandles,
    /// A captured value is NaN, infinite or outside its field's range.
    Capture(Clamped),
    /// An entity was set before the first frame began.
    FrameNotStarted,
    /// A class index the schema does not have.
    UnknownClass {
        /// The index given.
        class: usize,
        /// The schema's number of classes.
        classes: usize,
    },
    /// An entity id at or beyond the world's capacity.
    IdOutOfRange {
        /// The id given.
        id: usize,
        /// The world's capacity.
        capacity: usize,
    },
    /// A row whose length is not its class's number of scalar fields.
    RowLength {
        /// The class.
        class: usize,
        /// Its number of scalar fields.
        expected: usize,
        /// The row's length.
        actual: usize,
    },
    /// The world is full: every entity slot is taken.
    TooManyEntities {
        /// The world's capacity.
        capacity: usize,
    },
    /// A client's peer already has as many entities marked (visible, own, essential or
    /// weighted) as its `interest` allows (see [`Peer::new`](crate::Peer::new)): hide or unmark
    /// one first, or give the peer more.
    InterestFull {
        /// The peer's interest.
        capacity: usize,
    },
    /// A link index past the links of the entity's class.
    UnknownLink {
        /// The link given.
        link: usize,
        /// The links of the class.
        links: usize,
    },
    /// A value's reference names an entity the server does not hold, or one of another class
    /// than the reference's ([`crate::schema::Link::target`]).
    BadTarget {
        /// The class of the value.
        class: &'static str,
        /// The reference field (the link's name).
        link: &'static str,
        /// The id it names.
        id: u64,
    },
    /// An entity id the server does not hold.
    UnknownEntity {
        /// The id given.
        id: u64,
    },
    /// A client the server does not know (never connected, or disconnected).
    UnknownClient {
        /// The client's number.
        client: u64,
    },
    /// A server already has as many clients as it may (`ServerConfig::max_clients`).
    TooManyClients {
        /// The most clients it may have.
        max: usize,
    },
    /// A server already has as many clients as it may that have not yet proven they receive
    /// (`ServerConfig::max_pending`).
    TooManyPending {
        /// The most such clients it may have.
        max: usize,
    },
    /// A timeline edit at or before the frame the timeline has reached: what was sent for
    /// those times is final.
    KeyframeInPast {
        /// The keyframe time given, in frames.
        time: u32,
        /// The timeline's current frame.
        now: u32,
    },
    /// A timeline already holds as many future keyframes as it may.
    TimelineFull {
        /// Its capacity for keyframes after the current frame.
        ahead: u16,
    },
    /// A timeline has no keyframe at this time.
    NoKeyframe {
        /// The time given, in frames.
        time: u32,
    },
    /// A timeline already has a keyframe at this time.
    KeyframeExists {
        /// The time given, in frames.
        time: u32,
    },
    /// A time in seconds was given to a schema that declares no frame rate.
    NoRate,
    /// A handshake came from a build whose input schema differs (hashes as `netschema inspect`
    /// prints them), or one end sends or takes inputs and the other does not (`None`: that end
    /// has no inputs).
    InputSchemaMismatch {
        /// This end's input schema hash, `None` without inputs.
        ours: Option<u64>,
        /// The other end's.
        theirs: Option<u64>,
    },
    /// Inputs were used on an owned server or client not set up for them
    /// (`owned::Server::with_inputs`, `owned::Client::connect_with_inputs`).
    NoInputs,
    /// A typed input (`owned::Client::push`, `owned::Server::take`) of another input schema
    /// than the one this end was set up with.
    WrongInput {
        /// The name of the input schema this end was set up with.
        expected: &'static str,
        /// The name of the input type's schema.
        given: &'static str,
    },
    /// An input pushed for a tick not after the newest input pushed.
    InputTick {
        /// The tick given.
        tick: u32,
        /// The newest input's tick.
        newest: u32,
    },
    /// A client's record queue is full: it keeps
    /// [`RECORD_LIMIT`](crate::engine::records::RECORD_LIMIT) records or
    /// [`RECORD_BYTES`](crate::engine::records::RECORD_BYTES) bytes queued or not yet
    /// acknowledged, and the record would pass either. Nothing was queued; records leave as
    /// the client acknowledges them.
    RecordQueueFull {
        /// Records queued or not yet acknowledged.
        records: usize,
        /// Their bytes.
        bytes: usize,
    },
    /// An event type the protocol does not declare
    /// ([`Schema::with_events`](crate::schema::Schema::with_events)).
    UnknownEvent {
        /// The event's name.
        name: &'static str,
    },
    /// A record is longer than [`MAX_RECORD_LEN`](crate::engine::records::MAX_RECORD_LEN).
    RecordTooLong {
        /// Its length.
        len: usize,
        /// The longest a record may be.
        max: usize,
    },
    /// A string or byte blob is longer than its field's bound
    /// ([`TextField::max`](crate::schema::TextField::max)).
    TextTooLong {
        /// Its length in bytes.
        len: usize,
        /// The field's bound.
        max: usize,
    },
    /// A string field's bytes are not UTF-8.
    NotUtf8,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnexpectedEnd => f.write_str("read past the end of the input"),
            Error::BufferFull => f.write_str("output buffer is full"),
            Error::ValueTooWide { bits } => write!(f, "value does not fit in {bits} bits"),
            Error::InvalidBitCount { bits } => write!(f, "bit count {bits} is outside 0..=32"),
            Error::OutOfRange => f.write_str("value is outside its declared range"),
            Error::InvalidQuantiser => f.write_str("quantiser parameters are inconsistent"),
            Error::Corrupt => f.write_str("packet is malformed"),
            Error::CheckMismatch => f.write_str(
                "packet check value does not match (damaged, or another session's; if no \
                 packet is ever accepted, the server's schema may differ: the handshake \
                 compares schema hashes)",
            ),
            Error::UnknownBaseline => f.write_str("packet names a baseline frame that is not held"),
            Error::UnknownModel => f.write_str("packet names a model that is not kept"),
            Error::SchemaMismatch { ours, theirs } => {
                write!(f, "peer uses a different schema: hash {theirs:#018x}, ours {ours:#018x}")
            }
            Error::VersionMismatch { ours, theirs } => {
                write!(f, "peer speaks wire version {theirs}, ours is {ours}")
            }
            Error::TooManyHandles { server, client } => write!(
                f,
                "the server's clients may see {server} entities at once, more than the {client} this client holds"
            ),
            Error::CapacityExceeded => f.write_str("a fixed capacity is exhausted"),
            Error::InvalidSchema => f.write_str("schema descriptors are inconsistent"),
            Error::StalePacket => f.write_str("packet is not newer than frames already held"),
            Error::StorageTooSmall => f.write_str("storage is too small for the capacities"),
            Error::BudgetTooSmall { budget, needed } => write!(
                f,
                "a byte budget of {budget} carries no entity: the packet needed {needed} bytes"
            ),
            Error::NoHandles => f.write_str("a peer or client needs at least one handle"),
            Error::Capture(c) => write!(f, "cannot capture {c}"),
            Error::FrameNotStarted => f.write_str("no frame has begun: call `begin_frame` first"),
            Error::UnknownClass { class, classes } => {
                write!(f, "class {class} does not exist (the schema has {classes})")
            }
            Error::IdOutOfRange { id, capacity } => {
                write!(f, "entity id {id} is outside the world's capacity of {capacity}")
            }
            Error::RowLength { class, expected, actual } => {
                write!(f, "a row of class {class} has {expected} values, not {actual}")
            }
            Error::TooManyEntities { capacity } => {
                write!(f, "the world is full: all {capacity} entity slots are taken")
            }
            Error::InterestFull { capacity } => write!(
                f,
                "the client already has {capacity} entities marked, as many as its interest allows"
            ),
            Error::UnknownLink { link, links } => {
                write!(f, "link {link} does not exist: the entity's class has {links} links")
            }
            Error::BadTarget { class, link, id } => write!(
                f,
                "`{class}.{link}` names entity {id}, which is not in the world or not of the class it refers to"
            ),
            Error::UnknownEntity { id } => write!(f, "no entity has id {id}"),
            Error::UnknownClient { client } => write!(f, "client {client} is not connected"),
            Error::TooManyClients { max } => {
                write!(f, "the server already has its {max} clients")
            }
            Error::RecordQueueFull { records, bytes } => write!(
                f,
                "the client's record queue is full: {records} records of {bytes} bytes are not yet acknowledged"
            ),
            Error::RecordTooLong { len, max } => {
                write!(f, "a record of {len} bytes is longer than the {max} bytes allowed")
            }
            Error::TextTooLong { len, max } => {
                write!(f, "a text of {len} bytes is longer than its field's {max} bytes")
            }
            Error::NotUtf8 => f.write_str("a string field's bytes are not UTF-8"),
            Error::TooManyPending { max } => {
                write!(f, "the server already has {max} clients with no ack accepted yet")
            }
            Error::KeyframeInPast { time, now } => {
                write!(f, "keyframe at frame {time} is not after the timeline's frame {now}")
            }
            Error::TimelineFull { ahead } => {
                write!(f, "the timeline already holds its {ahead} future keyframes")
            }
            Error::NoKeyframe { time } => write!(f, "no keyframe at frame {time}"),
            Error::KeyframeExists { time } => write!(f, "a keyframe is already at frame {time}"),
            Error::NoRate => {
                f.write_str("the schema declares no frame rate to turn seconds into frames")
            }
            Error::InputSchemaMismatch { ours: Some(ours), theirs: Some(theirs) } => write!(
                f,
                "peer uses a different input schema: hash {theirs:#018x}, ours {ours:#018x}"
            ),
            Error::InputSchemaMismatch { ours: None, theirs: Some(theirs) } => write!(
                f,
                "peer has inputs (input schema hash {theirs:#018x}), and this end has none"
            ),
            Error::InputSchemaMismatch { ours: Some(ours), theirs: None } => write!(
                f,
                "this end has inputs (input schema hash {ours:#018x}), and the peer has none"
            ),
            Error::InputSchemaMismatch { ours: None, theirs: None } => {
                f.write_str("neither end has inputs")
            }
            Error::NoInputs => f.write_str(
                "inputs were not set up (`Server::with_inputs`, `Client::connect_with_inputs`)",
            ),
            Error::UnknownEvent { name } => {
                write!(f, "the protocol declares no event `{name}` of this schema")
            }
            Error::WrongInput { expected, given } if expected == given => write!(
                f,
                "an input of another schema called `{given}` was given where this end's input schema `{expected}` was expected (their hashes differ)"
            ),
            Error::WrongInput { expected, given } => write!(
                f,
                "an input of schema `{given}` was given where this end's input schema `{expected}` was expected"
            ),
            Error::InputTick { tick, newest } => {
                write!(f, "an input for tick {tick} is not after the newest, for tick {newest}")
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;
