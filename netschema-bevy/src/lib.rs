#![doc = include_str!("../README.md")]

mod capture;
mod client;
mod encode;
pub mod loopback;
mod messages;
mod plugin;
mod server;

pub use capture::{NsOwner, NsReplicate};
pub use client::{NsClient, NsHandle, NsOwn};
pub use messages::{NsAck, NsPacket, NsWelcome};
pub use plugin::{NetschemaPlugin, NetschemaSystems};
pub use server::{NsPeer, NsServer, ns_id};

/// What a game needs in scope: the plugin, its components and resources, and netschema's
/// derives and server configuration.
pub mod prelude {
    pub use crate::{
        NetschemaPlugin, NetschemaSystems, NsClient, NsHandle, NsOwn, NsOwner, NsPeer, NsReplicate,
        NsServer,
    };
    pub use netschema::owned::ServerConfig;
    pub use netschema::{Protocol, Snapshot, SnapshotEnum};
}
