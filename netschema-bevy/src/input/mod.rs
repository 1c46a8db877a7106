//! Inputs from clients to the server: the game's input type (a `.netidl` `input` or
//! `#[derive(Input)]`), set each update on a client ([`NsInput`]) and handed out per client
//! and tick on the server ([`NsClientInput`]).
//!
//! With inputs the plugin carries the owned layer's frames (see `netschema::owned`): packets
//! go as down frames (timing report, input ack, packet) and acks as up frames (ack, render
//! times, inputs), in the same two messages.

use bevy_app::App;
use netschema::Protocol;
use netschema::schema::Schema;

#[cfg(feature = "client")]
mod client;
#[cfg(feature = "server")]
mod server;

#[cfg(feature = "client")]
pub use client::{NetschemaClientSystems, NsInput};
#[cfg(feature = "server")]
pub use server::NsClientInput;

/// An input type the plugin carries: a generated or derived [`netschema::Input`] that Bevy's
/// messages and resources can hold.
pub trait CarriedInput: netschema::Input + Send + Sync + 'static {}

impl<I: netschema::Input + Send + Sync + 'static> CarriedInput for I {}

/// Inputs as the plugin group registers them: the schema, the server's tick, and each side's
/// registration.
#[derive(Clone, Copy)]
pub(crate) struct Inputs {
    pub(crate) schema: &'static Schema,
    /// The server's tick, microseconds.
    #[cfg(feature = "client")]
    pub(crate) tick_us: u32,
    #[cfg(feature = "server")]
    pub(crate) server: fn(&mut App),
    #[cfg(feature = "client")]
    pub(crate) client: fn(&mut App),
}

impl Inputs {
    /// Inputs of `I` for schema `P`'s server of `tick_rate` ticks a second.
    pub(crate) fn of<P: Protocol, I: CarriedInput>(tick_rate: f32) -> Self {
        #[cfg(not(feature = "client"))]
        let _ = tick_rate;
        Inputs {
            schema: I::SCHEMA,
            #[cfg(feature = "client")]
            tick_us: (1e6 / f64::from(tick_rate)).round().clamp(1.0, f64::from(u32::MAX)) as u32,
            #[cfg(feature = "server")]
            server: server::register::<P, I>,
            #[cfg(feature = "client")]
            client: client::register::<P, I>,
        }
    }
}
