//! The netschema runtime: a `no_std`, allocation-free codec and replication engine.
//!
//! Groups, bottom up:
//! - [`codec`]: the entropy-coding layer — bit I/O, a binary range coder, adaptive
//!   probabilities and the integer residual model;
//! - [`quant`]: the quantisers that turn natural values into integers and back;
//! - [`blend`]: the raw values between two samples of an entity, per field kind, for clients
//!   that interpolate;
//! - [`schema`] and the [`Snapshot`] / [`SnapshotEnum`] / [`Input`] traits: field descriptors
//!   and what generated code implements; [`text`]: the fixed-capacity [`Text`] and [`Blob`]
//!   values of string and byte blob fields;
//! - [`model`]: integer polynomial predictors and the per-field learned statistics that choose
//!   between them, stored per frame;
//! - [`engine`]: the replication engine — the server's shared archive ([`World`]), one
//!   [`Peer`] per client, the client's decoder ([`Client`]), acks, the connect handshake and
//!   per-field cost probes;
//! - [`timeline`]: keyframe timelines — a field's values given ahead of time as keyframes,
//!   looked up at any time, rewindable;
//! - [`owned`] (feature `std`): the owned, typed layer on top — a [`owned::Server`] with
//!   connections that come and go and the game's own ids, a typed [`owned::Client`].
//!
//! The engine does no I/O and never allocates: every structure works in storage the caller
//! hands it (see [`WorldStorage`], [`PeerStorage`], [`ClientStorage`]).
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]

#[cfg(feature = "std")]
extern crate std;

pub mod blend;
pub mod codec;
pub mod engine;
mod error;
pub mod event;
mod input;
pub mod model;
#[cfg(feature = "std")]
pub mod owned;
pub mod quant;
mod reference;
pub mod schema;
mod snapshot;
pub mod text;
pub mod timeline;

pub use engine::ack::{Ack, AckOutcome};
pub use engine::client::{Client, ClientStorage, Event};
pub use engine::peer::{Peer, PeerStorage};
pub use engine::world::{World, WorldStorage};
pub use error::{Error, Result};
pub use input::Input;
pub use reference::Ref;
pub use snapshot::{Clamped, ClassOf, Protocol, Snapshot, SnapshotEnum, Target, Value};
pub use text::{Blob, Text};
