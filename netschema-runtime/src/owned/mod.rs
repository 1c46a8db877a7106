//! The owned, typed layer (feature `std`): what a game keeps in a struct, a Bevy resource or
//! another thread.
//!
//! - [`Server`] owns the world and every client connection; it takes entities by the game's
//!   own `u64` ids and values of the schema's classes, checks what it captures, and marks
//!   entities as a client's own. Clients connect and leave at run time.
//! - [`Client`] owns its storage and hands out typed values and [`Event`]s.
//! - [`WorldBuffers`], [`PeerBuffers`] and [`ClientBuffers`] own the storage of the borrowing
//!   core for programs that drive it directly.
//! - [`Interpolator`] gives a client's entities at a render time a few frames behind the newest,
//!   blended between the samples it received: a jitter buffer and render clock.
//! - Inputs go the other way once a server and a client are set up for them
//!   ([`Server::with_inputs`], [`Client::hello_with_inputs`] and
//!   [`Client::connect_with_inputs`], with the input type's [`Input::SCHEMA`](crate::Input)):
//!   the client pushes one per tick at the tick its synchronisation gives ([`Client::push`])
//!   and the server takes them by tick ([`Server::take`]), typed or raw. Then one datagram each
//!   way per tick carries everything, framed as the `frame` module specifies
//!   ([`Client::write`], [`Server::receive`], [`Server::write`], [`Client::receive`]).
//! - [`Server::seen_by`] rewinds to what a client showed when it pushed an input, from the
//!   render times its [`Interpolator`] gives ([`Client::set_render_time`]): lag compensation.
//! - A class's strings and byte blobs (`string<N>`, `bytes<N>`) go to each client that sees the
//!   entity as records, once when it enters the client's view and again when one changes; the
//!   client fills them into the values it hands out ([`Client::get`], [`Client::entity`]).
//! - [`Interest`] decides which entities each client sees from their positions on a grid, with
//!   enter and leave radii, and hands [`Server`] only the changes.
//!
//! Everything here calls the `no_std`, allocation-free core underneath and allocates only when
//! a server, client or connection is created, when a thread first encodes a connection's packet
//! (the room it codes packets in, shared by every connection it encodes) and when
//! [`Interest`]'s buffers grow: packets are byte-identical to the core's for the same inputs.

mod buffers;
mod client;
mod events;
mod frame;
mod ids;
mod inputs;
mod interest;
mod interp;
mod rewind;
mod server;
mod sight;
mod texts;

pub use buffers::{ClientBuffers, InputBuffers, PeerBuffers, WorldBuffers};
pub use client::{Client, Event, FromServer};
pub use frame::{DOWN_HEADER, UP_HEADER};
pub use inputs::TakenInput;
pub use interest::{Change, Interest, View};
pub use interp::{Interpolator, MAX_DELAY, RESYNC};
pub use rewind::Seen;
pub use server::{ClientId, Connection, Frame, FromClient, Server, ServerConfig};
pub use sight::RenderTime;
