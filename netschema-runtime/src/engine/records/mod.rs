//! The record stream: bytes a server sends one client once, in order, inside the state
//! packets, and sends again only when the packet that carried them is known lost.
//!
//! The state stream codes every frame against frames the client acknowledged, so new
//! information rides in every packet until one is acknowledged. Records are different: each
//! is sent in the next packet after it is queued and again only when an ack shows a later
//! packet received and the one that carried it not, or when acks stop for longer than a
//! round trip allows (see `repair`). The client applies them in order, exactly once, and
//! buffers those that arrive after a lost one (see `inbox`).
//!
//! A schema with timelines sends their keyframe edits as records too, the engine's own (see
//! `engine::keys`): the packet marks each record's kind, and [`Records`] yields the game's.
//!
//! One module per job:
//! - `queue`: the peer's outbox, a fixed ring of records queued or not yet
//!   acknowledged, limited to [`RECORD_LIMIT`] records and [`RECORD_BYTES`] bytes;
//! - `repair`: what acks and silence tell the outbox — records delivered, records due again;
//! - `wire`: the record section of a packet, as the encoder writes it and the decoder reads it;
//! - `inbox`: the client's inbox, which stages the records of a packet being decoded,
//!   keeps those that arrive out of order and yields those applied.
//!
//! ```
//! # use netschema_runtime::owned::{ClientBuffers, PeerBuffers, WorldBuffers};
//! # use netschema_runtime::schema::{Class, Field, Schema};
//! # static F: [Field; 1] = [Field::categorical("on", 2)];
//! # static C: [Class; 1] = [Class::new("c", &F)];
//! # static S: Schema = Schema::new("s", &C);
//! # let (mut wb, mut pb, mut cb) =
//! #     (WorldBuffers::new(&S, 4), PeerBuffers::new(&S, 4, 4), ClientBuffers::new(&S, 4));
//! # let (mut world, mut peer) = (wb.world(&S, 4)?, pb.peer(&S, 4, 4)?);
//! # let mut client = cb.client(&S, 4)?;
//! world.begin_frame();
//! peer.queue_record(b"door 7 opened")?;
//! let mut packet = [0u8; 256];
//! let len = peer.encode(&world, &mut packet)?;
//! let frame = client.decode(&packet[..len])?;
//! let record = client.records().next().unwrap();
//! assert_eq!((record.number, record.frame, record.bytes), (0, frame, &b"door 7 opened"[..]));
//! // Once an ack shows the packet received, the record leaves the peer's queue.
//! peer.receive_ack(&client.ack().unwrap());
//! assert_eq!(peer.unacked_records(), (0, 0));
//! # Ok::<(), netschema_runtime::Error>(())
//! ```
//!
//! Everything is fixed capacity and inline: a peer's outbox takes about 3.1 KB and a
//! client's inbox about 5.7 KB, whatever the schema (reported in
//! [`PeerSizes::records`](crate::engine::peer::PeerSizes::records) and
//! [`ClientSizes::records`](crate::engine::client::ClientSizes::records)).

mod inbox;
mod queue;
mod repair;
mod wire;

pub(crate) use inbox::Inbox;
pub use inbox::Records;
pub(crate) use queue::Outbox;
pub(crate) use repair::timeout;
pub(crate) use wire::{Carry, read_records, write_records};

/// The most records a peer keeps queued or unacknowledged for its client; one more is
/// refused with [`Error::RecordQueueFull`](crate::Error::RecordQueueFull).
pub const RECORD_LIMIT: usize = 64;

/// The most bytes of records a peer keeps queued or unacknowledged for its client; a record
/// that would pass it is refused with [`Error::RecordQueueFull`](crate::Error::RecordQueueFull).
/// What a round trip carries: enough for the keyframes of a few hundred timelines when a
/// client joins.
pub const RECORD_BYTES: usize = 2048;

/// Records take at most `1 / RECORD_SHARE` of a packet's byte budget, first, before the
/// state: half, so that neither starves the other.
pub const RECORD_SHARE: usize = 2;

/// The longest record, in bytes; a longer one is refused with
/// [`Error::RecordTooLong`](crate::Error::RecordTooLong).
pub const MAX_RECORD_LEN: usize = 255;

/// A record as the client applies it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record<'r> {
    /// Its number: the server numbers each client's records 0, 1, 2, … in the order it queued
    /// them, and the client applies them in that order.
    pub number: u32,
    /// The frame it belongs to: the frame of the first packet that carried it. A record
    /// queued before a frame's packet is encoded belongs to that frame.
    pub frame: u32,
    /// Its bytes.
    pub bytes: &'r [u8],
}

/// Counters of a peer's record stream, for monitoring.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordStats {
    /// Records queued.
    pub queued: u64,
    /// Times a record was put in a packet, first sends and repairs.
    pub sent: u64,
    /// Times a record was put in a packet again: its packet was known lost, or acks stopped.
    pub resent: u64,
    /// Bytes of the records put in packets, first sends and repairs (without the 11 bits or
    /// so of each one's length, age and number).
    pub bytes: u64,
    /// Records an ack showed the client received.
    pub delivered: u64,
}
