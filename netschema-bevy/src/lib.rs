//! Replicates netschema classes in Bevy, over bevy_replicon's messages.

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
