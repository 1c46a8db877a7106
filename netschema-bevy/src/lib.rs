#![doc = include_str!("../README.md")]

#[cfg(feature = "server")]
mod capture;
#[cfg(feature = "client")]
mod client;
#[cfg(feature = "server")]
mod encode;
mod input;
#[cfg(all(feature = "client", feature = "server"))]
pub mod loopback;
mod messages;
mod plugin;
#[cfg(feature = "server")]
mod server;

#[cfg(feature = "server")]
pub use capture::{NsOwner, NsReplicate};
#[cfg(feature = "client")]
pub use client::{NsClient, NsHandle, NsOwn};
pub use input::CarriedInput;
#[cfg(feature = "server")]
pub use input::NsClientInput;
#[cfg(feature = "client")]
pub use input::{NetschemaClientSystems, NsInput};
pub use messages::{NsAck, NsPacket, NsWelcome};
#[cfg(feature = "client")]
pub use plugin::NetschemaClientPlugin;
pub use plugin::{NetschemaPlugins, NetschemaSharedPlugin};
#[cfg(feature = "server")]
pub use plugin::{NetschemaServerPlugin, NetschemaSystems};
#[cfg(feature = "server")]
pub use server::{NsPeer, NsServer, ns_id};

/// What a game needs in scope: the plugins, their components and resources (those of the
/// sides its features build), and netschema's derives and server configuration.
pub mod prelude {
    pub use crate::NetschemaPlugins;
    #[cfg(feature = "client")]
    pub use crate::{NetschemaClientSystems, NsClient, NsHandle, NsInput, NsOwn};
    #[cfg(feature = "server")]
    pub use crate::{NetschemaSystems, NsClientInput, NsOwner, NsPeer, NsReplicate, NsServer};
    pub use netschema::engine::input::Source;
    pub use netschema::owned::ServerConfig;
    pub use netschema::{Input, Protocol, Snapshot, SnapshotEnum};
}
