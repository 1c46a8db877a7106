//! The replication engine: the server's archive, one peer per client, and the client.
//!
//! Bottom up:
//! - [`frame`]: frame numbers (32-bit on each end, 16-bit on the wire), the [`WINDOW`] of
//!   frame slots, the reach that stretches them over long round trips, and the server's
//!   archive; `slots` (private) maps frames to the physical slots that hold them;
//! - [`world`]: the server's archive of quantised rows of recent frames, shared by all peers;
//! - `packet` (private): the packet body, one walk that both ends run through a
//!   [`BinaryCoder`](crate::codec::coder::BinaryCoder), coding values with
//!   [`crate::model`];
//! - `entering` (private): what an entering entity's values are predicted from in a packet;
//! - `young` (private): entities entering again, coded against their first entry while it is
//!   in flight, and how both ends agree on the frames that hold them;
//! - `models` (private): where each packet's models start from and where what it learned
//!   goes, under the schema's [`ModelPolicy`](crate::model::ModelPolicy);
//! - `lags` (private): how stale the values a frame holds are, recorded on each end as which
//!   frames sent each handle's update groups and each frame's chain of baselines;
//! - `pack` (private): fitting a packet to its byte budget, in order of urgency and priority;
//! - [`peer`]: the server's view of one client — visible set, handles, acknowledged frames,
//!   the record of what the client holds and the models stored with each frame — which
//!   encodes packets;
//! - [`client`]: decodes packets into its own archive, shows each entity's newest values,
//!   yields [`Event`](client::Event)s and writes a proven [`Ack`](ack::Ack) ([`ack`]) for the
//!   peer;
//! - [`records`]: the record stream, bytes sent to one client once and repaired on loss,
//!   inside the state packets;
//! - `keys` (private): timelines' keyframes as records of that stream, sent once per edit;
//! - [`input`]: the other direction, client inputs to the server: the sender, the receiver's
//!   buffer keyed by tick and its acknowledgement;
//! - [`handshake`]: the hello and welcome that refuse a mismatched schema, input schema, wire
//!   version or capacity;
//! - [`probe`]: per-field costs of encoded packets, for profiling;
//!
//! The engine does no I/O and never allocates: every structure works in storage the caller
//! hands it ([`WorldStorage`](world::WorldStorage), [`PeerStorage`](peer::PeerStorage),
//! [`ClientStorage`](client::ClientStorage)).
//!
//! [`WINDOW`]: frame::WINDOW

pub mod ack;
pub(crate) mod bitset;
pub mod client;
mod entering;
pub mod frame;
pub mod handshake;
pub mod input;
mod keys;
mod lags;
mod models;
mod pack;
mod packet;
pub mod peer;
pub mod probe;
pub mod records;
mod slots;
pub mod world;
mod young;

/// The most handles a peer or client may have: the most entities one client sees at once.
/// A link names its target's handle plus 1 in 16 bits ([`PeerStorage::links`](peer::PeerStorage::links),
/// [`ClientStorage::links`](client::ClientStorage::links)).
pub const MAX_HANDLES: usize = u16::MAX as usize;
