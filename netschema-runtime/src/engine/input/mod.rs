//! Client inputs to the server: the stream in the other direction.
//!
//! The game describes an input like an entity class, a [`Schema`] of one class of scalar
//! fields ([`check_schema`]): an `input` item of a `.netidl` schema, or `#[derive(Input)]`,
//! gives one, with a Rust type implementing [`Input`](crate::Input). Each tick the client
//! pushes one input into an [`InputSender`]; every datagram it encodes carries all the inputs
//! the server has not yet acknowledged (at most [`CARRIED`], the redundancy that makes a lost
//! datagram lose nothing), each coded against the input before it with the runtime's learned
//! models. The server's [`InputReceiver`] decodes them into a buffer keyed by tick, hands out
//! one input per tick ([`Taken`]) and writes the [`InputAck`] the sender needs.
//!
//! Bottom up:
//! - `recent` (private): the few newest inputs of a stream, which predict the next one;
//! - `slots` (private): what each end keeps of each input datagram of the last
//!   [`PACKETS`]: its check value, its newest inputs and the models it ended with;
//! - `body` (private): the datagram, one walk both ends run through a
//!   [`BinaryCoder`](crate::codec::coder::BinaryCoder);
//! - [`ack`]: the receiver's acknowledgement;
//! - [`buffer`]: the receiver's inputs by tick and its policy for missing, late and duplicate
//!   inputs;
//! - [`playout`]: the target delay, adapted to the jitter of arrivals, and the tick the
//!   receiver takes next;
//! - [`sender`] and [`receiver`]: the two ends;
//! - [`sync`]: the client's estimate of the server's tick and the round trip, and the input
//!   tick it runs so that inputs arrive just before the server takes them.
//!
//! Like the rest of the engine it does no I/O and never allocates: the models live in
//! storage the caller hands over ([`InputStorage`]).

pub mod ack;
mod body;
pub mod buffer;
mod held;
pub mod playout;
pub mod receiver;
mod recent;
pub mod sender;
mod slots;
pub mod sync;

pub use ack::InputAck;
pub use buffer::{BufferStats, Source, Taken};
pub use playout::PlayoutStats;
pub use receiver::{InputReceiver, InputStats};
pub use sender::{InputSender, SenderStats};
pub use slots::InputStorage;
pub use sync::{Arrival, SyncStats, TickSync, Timing};

use crate::schema::{Class, Schema};
use crate::{Error, Result};

/// Most inputs one datagram carries: the newest unacknowledged ones.
pub const CARRIED: usize = 32;
/// Input datagrams each end keeps the state of (check value, newest inputs, models): a
/// datagram is coded against one at most `PACKETS − 1` datagrams older, else from scratch.
pub const PACKETS: usize = 32;
/// Most fields of an input.
pub const MAX_INPUT_FIELDS: usize = 16;

/// The input class of `schema`, if `schema` describes an input: valid
/// ([`Schema::validate`]), one class that [`fits`] (at most [`MAX_INPUT_FIELDS`] fields, none
/// with a tolerance: inputs are exact; no links), and a hash other than 0 (which stands for "no inputs" in the
/// [handshake](crate::engine::handshake)). Otherwise [`Error::InvalidSchema`].
///
/// An `input` item of a `.netidl` schema and `#[derive(Input)]` give such a schema
/// ([`Input::SCHEMA`](crate::Input::SCHEMA)).
pub fn check_schema(schema: &Schema) -> Result<&'static Class> {
    schema.validate()?;
    match schema.classes {
        [class] if fits(class) && schema.hash != 0 => Ok(class),
        _ => Err(Error::InvalidSchema),
    }
}

/// Whether `class` can be an input's: at most [`MAX_INPUT_FIELDS`] scalar fields, none with a
/// tolerance, and no links (an input names no entity). Code generated for an input checks
/// this at compile time.
pub const fn fits(class: &Class) -> bool {
    if class.fields.len() > MAX_INPUT_FIELDS || !class.links.is_empty() {
        return false;
    }
    let mut f = 0;
    while f < class.fields.len() {
        if class.fields[f].tolerance != 0 {
            return false;
        }
        f += 1;
    }
    true
}
