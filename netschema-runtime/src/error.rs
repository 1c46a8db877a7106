//! The one error type of the runtime.

use core::fmt;

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
    /// A packet's check value does not match the decoded state.
    CheckMismatch,
    /// A packet names a baseline frame that the receiver does not hold.
    UnknownBaseline,
    /// A packet or handshake was produced from a different schema.
    SchemaMismatch,
    /// A fixed capacity (entities, frames in flight, handles) is exhausted.
    CapacityExceeded,
    /// Schema descriptors are inconsistent (empty candidate list, `min > max`, ...).
    InvalidSchema,
    /// A packet is older than, or the same as, a frame the receiver already holds.
    StalePacket,
    /// Storage handed to a constructor is too small for the requested capacities.
    StorageTooSmall,
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
            Error::CheckMismatch => f.write_str("packet check value does not match"),
            Error::UnknownBaseline => f.write_str("packet names a baseline frame that is not held"),
            Error::SchemaMismatch => f.write_str("peer uses a different schema"),
            Error::CapacityExceeded => f.write_str("a fixed capacity is exhausted"),
            Error::InvalidSchema => f.write_str("schema descriptors are inconsistent"),
            Error::StalePacket => f.write_str("packet is not newer than frames already held"),
            Error::StorageTooSmall => f.write_str("storage is too small for the capacities"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;
