//! netschema replicates game and simulation state from a server to many clients over lossy
//! datagrams in as few bits as the data allows.
//!
//! This facade re-exports [`netschema_runtime`]; see its documentation for the codec.
#![no_std]

pub use netschema_runtime::*;
