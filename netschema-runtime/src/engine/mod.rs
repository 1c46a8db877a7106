//! The replication engine: the server's archive, one peer per client, and the client.
//!
//! Bottom up:
//! - [`frame`]: frame numbers (32-bit on each end, 16-bit on the wire) and the [`WINDOW`]
//!   of frames in flight; `slots` (private) maps frames to the physical slots that hold them;
//! - [`world`]: the server's archive of quantised rows for the frames in flight, shared by all
//!   peers;
//! - `packet` (private): the packet body, one walk that both ends run through a
//!   [`BinaryCoder`](crate::codec::coder::BinaryCoder), coding values with
//!   [`crate::model`];
//! - [`peer`]: the server's view of one client — visible set, handles, acknowledged frames
//!   and the models stored with each — which encodes packets;
//! - [`client`]: decodes packets into its own archive, yields [`Event`](client::Event)s and
//!   writes an [`Ack`](ack::Ack) ([`ack`]) for the peer;
//! - [`handshake`]: the hello and welcome that refuse a mismatched schema, wire version or
//!   capacity;
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
pub mod frame;
pub mod handshake;
mod pack;
mod packet;
pub mod peer;
pub mod probe;
mod slots;
pub mod world;
