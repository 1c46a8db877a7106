//! The connect handshake: a client's hello, the server's welcome.
//!
//! ```text
//! client ── hello:   "nsh1", wire version (u16), schema hash (u64)                 ──▶ server
//! client ◀── welcome: "nsw1", wire version (u16), schema hash (u64), handles (u32),
//!                     frame (u32)                                              ── server
//! ```
//!
//! Integers are little-endian. Each end refuses the other's message if the wire version
//! differs ([`Error::VersionMismatch`]) or the schema hash does ([`Error::SchemaMismatch`],
//! with both hashes). The schema hash covers everything that changes meaning on the wire (see
//! [`crate::schema::Schema::hash`]). The welcome also carries the server's handle capacity,
//! the most entities one client may see at once, so that a client knows the storage it needs
//! and refuses a server it cannot follow ([`Error::TooManyHandles`]), and the server's current
//! frame, for the game's information (packets carry the frame numbers the client needs).

use crate::schema::Schema;
use crate::{Error, Result};

/// The version of the wire format: packets, acks and this handshake.
pub const WIRE_VERSION: u16 = 8;

const HELLO_MAGIC: [u8; 4] = *b"nsh1";
const WELCOME_MAGIC: [u8; 4] = *b"nsw1";
/// Bytes of a hello message.
pub const HELLO_LEN: usize = 14;
/// Bytes of a welcome message.
pub const WELCOME_LEN: usize = 22;

/// What a server's welcome tells a client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Welcome {
    /// The most entities the client may see at once.
    pub handles: usize,
    /// The server's frame when it wrote the welcome.
    pub frame: u32,
}

/// Writes the hello message for `schema` into `buf`.
pub fn write_hello(schema: &Schema, buf: &mut [u8]) -> Result<usize> {
    let out = buf.get_mut(..HELLO_LEN).ok_or(Error::BufferFull)?;
    write_common(out, HELLO_MAGIC, schema);
    Ok(HELLO_LEN)
}

/// Checks a client's hello message against `schema`.
pub fn check_hello(schema: &Schema, hello: &[u8]) -> Result<()> {
    let msg = hello.get(..HELLO_LEN).ok_or(Error::UnexpectedEnd)?;
    check_common(msg, HELLO_MAGIC, schema)
}

/// Writes the server's welcome for `schema` into `buf`.
pub fn write_welcome(schema: &Schema, welcome: Welcome, buf: &mut [u8]) -> Result<usize> {
    let handles = u32::try_from(welcome.handles).map_err(|_| Error::InvalidSchema)?;
    let out = buf.get_mut(..WELCOME_LEN).ok_or(Error::BufferFull)?;
    write_common(out, WELCOME_MAGIC, schema);
    out[14..18].copy_from_slice(&handles.to_le_bytes());
    out[18..22].copy_from_slice(&welcome.frame.to_le_bytes());
    Ok(WELCOME_LEN)
}

/// Checks a server's welcome against `schema` and reads it, refusing a server whose clients
/// may see more than `max_handles` entities at once.
pub fn read_welcome(schema: &Schema, welcome: &[u8], max_handles: usize) -> Result<Welcome> {
    let msg = welcome.get(..WELCOME_LEN).ok_or(Error::UnexpectedEnd)?;
    check_common(msg, WELCOME_MAGIC, schema)?;
    let handles = u32::from_le_bytes([msg[14], msg[15], msg[16], msg[17]]) as usize;
    if handles > max_handles {
        return Err(Error::TooManyHandles { server: handles, client: max_handles });
    }
    let frame = u32::from_le_bytes([msg[18], msg[19], msg[20], msg[21]]);
    Ok(Welcome { handles, frame })
}

fn write_common(out: &mut [u8], magic: [u8; 4], schema: &Schema) {
    out[..4].copy_from_slice(&magic);
    out[4..6].copy_from_slice(&WIRE_VERSION.to_le_bytes());
    out[6..14].copy_from_slice(&schema.hash.to_le_bytes());
}

fn check_common(msg: &[u8], magic: [u8; 4], schema: &Schema) -> Result<()> {
    if msg[..4] != magic {
        return Err(Error::Corrupt);
    }
    let theirs = u16::from_le_bytes([msg[4], msg[5]]);
    if theirs != WIRE_VERSION {
        return Err(Error::VersionMismatch { ours: WIRE_VERSION, theirs });
    }
    let mut hash = [0u8; 8];
    hash.copy_from_slice(&msg[6..14]);
    let theirs = u64::from_le_bytes(hash);
    if theirs != schema.hash {
        return Err(Error::SchemaMismatch { ours: schema.hash, theirs });
    }
    Ok(())
}
