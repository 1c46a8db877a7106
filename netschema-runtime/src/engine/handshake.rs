//! The connect handshake: a client's hello, the server's welcome.
//!
//! ```text
//! client ── hello:   "nsh1", wire version (u16), schema hash (u64), input hash (u64) ──▶ server
//! client ◀── welcome: "nsw1", wire version (u16), schema hash (u64), input hash (u64),
//!                     handles (u32), frame (u32)                                  ── server
//! ```
//!
//! Integers are little-endian. Each end refuses the other's message if the wire version
//! differs ([`Error::VersionMismatch`]), the schema hash does ([`Error::SchemaMismatch`], with
//! both hashes) or the input hash does ([`Error::InputSchemaMismatch`], with both): the hash of
//! the input schema of the client's inputs to the server ([`crate::engine::input`]), 0 for an
//! end without inputs, so that a client with inputs and a server without (or the reverse)
//! refuse each other too. Schema hashes cover everything that changes meaning on the wire (see
//! [`crate::schema::Schema::hash`]); an input schema's is never 0
//! ([`check_schema`](crate::engine::input::check_schema)). The welcome also carries the
//! server's handle capacity, the most entities one client may see at once, so that a client
//! knows the storage it needs and refuses a server it cannot follow
//! ([`Error::TooManyHandles`]), and the server's current frame, for the game's information
//! (packets carry the frame numbers the client needs).
//!
//! A message is checked in that order: its magic (else [`Error::Corrupt`]) and wire version
//! from its first 6 bytes, so that a peer of another version whose messages have another
//! length is still told apart by its version, then its length ([`Error::UnexpectedEnd`]), the
//! schema hash, the input hash, and for a welcome the handles.

use crate::schema::Schema;
use crate::{Error, Result};

/// The version of the wire format: packets, acks and this handshake.
pub const WIRE_VERSION: u16 = 13;

const HELLO_MAGIC: [u8; 4] = *b"nsh1";
const WELCOME_MAGIC: [u8; 4] = *b"nsw1";
/// Bytes of a hello message.
pub const HELLO_LEN: usize = 22;
/// Bytes of a welcome message.
pub const WELCOME_LEN: usize = 30;
/// Bytes of the magic and the wire version, which every version of a message starts with.
const HEAD_LEN: usize = 6;
/// Bytes of what the hello and the welcome share: magic, version and both hashes.
const COMMON_LEN: usize = 22;

/// What a server's welcome tells a client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Welcome {
    /// The most entities the client may see at once.
    pub handles: usize,
    /// The server's frame when it wrote the welcome.
    pub frame: u32,
}

/// Writes the hello of a client of `schema` into `buf`, with the input schema of the inputs it
/// sends (`None`: it sends none).
pub fn write_hello(schema: &Schema, input: Option<&Schema>, buf: &mut [u8]) -> Result<usize> {
    let out = buf.get_mut(..HELLO_LEN).ok_or(Error::BufferFull)?;
    write_common(out, HELLO_MAGIC, schema, input);
    Ok(HELLO_LEN)
}

/// Checks a client's hello against `schema` and the input schema of the inputs the server
/// takes (`None`: it takes none).
pub fn check_hello(schema: &Schema, input: Option<&Schema>, hello: &[u8]) -> Result<()> {
    check_common(hello, HELLO_LEN, HELLO_MAGIC, schema, input)
}

/// Writes the server's welcome for `schema` and the input schema of the inputs it takes
/// (`None`: it takes none) into `buf`.
pub fn write_welcome(
    schema: &Schema,
    input: Option<&Schema>,
    welcome: Welcome,
    buf: &mut [u8],
) -> Result<usize> {
    let handles = u32::try_from(welcome.handles).map_err(|_| Error::InvalidSchema)?;
    let out = buf.get_mut(..WELCOME_LEN).ok_or(Error::BufferFull)?;
    write_common(out, WELCOME_MAGIC, schema, input);
    out[COMMON_LEN..COMMON_LEN + 4].copy_from_slice(&handles.to_le_bytes());
    out[COMMON_LEN + 4..WELCOME_LEN].copy_from_slice(&welcome.frame.to_le_bytes());
    Ok(WELCOME_LEN)
}

/// Checks a server's welcome against `schema` and the input schema of the inputs the client
/// sends (`None`: it sends none), and reads it, refusing a server whose clients may see more
/// than `max_handles` entities at once.
pub fn read_welcome(
    schema: &Schema,
    input: Option<&Schema>,
    welcome: &[u8],
    max_handles: usize,
) -> Result<Welcome> {
    check_common(welcome, WELCOME_LEN, WELCOME_MAGIC, schema, input)?;
    let msg = &welcome[..WELCOME_LEN];
    let handles = u32::from_le_bytes(word(&msg[COMMON_LEN..])) as usize;
    if handles > max_handles {
        return Err(Error::TooManyHandles { server: handles, client: max_handles });
    }
    let frame = u32::from_le_bytes(word(&msg[COMMON_LEN + 4..]));
    Ok(Welcome { handles, frame })
}

/// The input hash a message carries for `input`: 0 for none.
fn input_hash(input: Option<&Schema>) -> u64 {
    input.map_or(0, |s| s.hash)
}

fn write_common(out: &mut [u8], magic: [u8; 4], schema: &Schema, input: Option<&Schema>) {
    out[..4].copy_from_slice(&magic);
    out[4..HEAD_LEN].copy_from_slice(&WIRE_VERSION.to_le_bytes());
    out[HEAD_LEN..14].copy_from_slice(&schema.hash.to_le_bytes());
    out[14..COMMON_LEN].copy_from_slice(&input_hash(input).to_le_bytes());
}

/// Checks the first `len` bytes of `msg`, a message of magic `magic`, against this end's
/// `schema` and `input`.
fn check_common(
    msg: &[u8],
    len: usize,
    magic: [u8; 4],
    schema: &Schema,
    input: Option<&Schema>,
) -> Result<()> {
    let head = msg.get(..HEAD_LEN).ok_or(Error::UnexpectedEnd)?;
    if head[..4] != magic {
        return Err(Error::Corrupt);
    }
    let theirs = u16::from_le_bytes([head[4], head[5]]);
    if theirs != WIRE_VERSION {
        return Err(Error::VersionMismatch { ours: WIRE_VERSION, theirs });
    }
    let msg = msg.get(..len).ok_or(Error::UnexpectedEnd)?;
    let theirs = u64::from_le_bytes(long(&msg[HEAD_LEN..]));
    if theirs != schema.hash {
        return Err(Error::SchemaMismatch { ours: schema.hash, theirs });
    }
    let (ours, theirs) = (input_hash(input), u64::from_le_bytes(long(&msg[14..])));
    if theirs != ours {
        let named = |h: u64| (h != 0).then_some(h);
        return Err(Error::InputSchemaMismatch { ours: named(ours), theirs: named(theirs) });
    }
    Ok(())
}

/// The first 4 bytes of `b` (at least that long).
fn word(b: &[u8]) -> [u8; 4] {
    [b[0], b[1], b[2], b[3]]
}

/// The first 8 bytes of `b` (at least that long).
fn long(b: &[u8]) -> [u8; 8] {
    [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]
}
