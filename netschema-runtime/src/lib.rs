//! The netschema runtime: a `no_std`, allocation-free codec and replication engine.
//!
//! Layers, bottom up:
//! - [`bits`]: bit-level writer and reader over caller-provided slices;
//! - [`coder`]: a 32-bit binary range coder with direct bits and a minimal flush;
//! - [`prob`]: adaptive binary probabilities and their ideal costs;
//! - [`residual`]: the integer residual model (zero flag, sign, magnitude class, offset);
//! - [`quant`]: the quantisers that turn natural values into integers and back;
//! - [`schema`] and [`predict`]: field descriptors and integer polynomial predictors;
//! - [`model`]: per-field learned statistics and predictor choice, stored per frame;
//! - [`world`], [`peer`], [`client`], [`ack`], [`handshake`]: the replication engine — the
//!   server's shared archive, one peer per client, the client's decoder, acks and connect;
//! - [`probe`]: per-field costs of encoded packets, for profiling.
//!
//! The engine does no I/O and never allocates: every structure works in storage the caller
//! hands it (see [`world::WorldStorage`], [`peer::PeerStorage`], [`client::ClientStorage`]).
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]

#[cfg(feature = "std")]
extern crate std;

pub mod ack;
pub mod bits;
pub mod client;
pub mod coder;
mod error;
pub mod frame;
pub mod handshake;
pub mod model;
#[cfg(feature = "std")]
pub mod owned;
mod packet;
pub mod peer;
pub mod predict;
pub mod prob;
pub mod probe;
pub mod quant;
pub mod residual;
pub mod schema;
mod slots;
mod snapshot;
pub mod world;

pub use ack::Ack;
pub use client::{Client, ClientStorage, Event};
pub use error::{Error, Result};
pub use peer::{Peer, PeerStorage};
pub use snapshot::{Snapshot, SnapshotEnum};
pub use world::{World, WorldStorage};
