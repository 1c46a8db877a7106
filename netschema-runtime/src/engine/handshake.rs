//! The connect handshake: both ends exchange their schema hash and refuse a mismatch.

use crate::schema::Schema;
use crate::{Error, Result};

/// Magic bytes that open a hello message.
const MAGIC: [u8; 4] = *b"nsc1";
/// Bytes of a hello message.
pub const HELLO_LEN: usize = 12;

/// Writes the hello message for `schema` into `buf`.
pub fn write_hello(schema: &Schema, buf: &mut [u8]) -> Result<usize> {
    let out = buf.get_mut(..HELLO_LEN).ok_or(Error::BufferFull)?;
    out[..4].copy_from_slice(&MAGIC);
    out[4..].copy_from_slice(&schema.hash.to_le_bytes());
    Ok(HELLO_LEN)
}

/// Checks a peer's hello message against `schema`.
pub fn check_hello(schema: &Schema, hello: &[u8]) -> Result<()> {
    let msg = hello.get(..HELLO_LEN).ok_or(Error::UnexpectedEnd)?;
    if msg[..4] != MAGIC {
        return Err(Error::Corrupt);
    }
    let mut hash = [0u8; 8];
    hash.copy_from_slice(&msg[4..]);
    if u64::from_le_bytes(hash) != schema.hash {
        return Err(Error::SchemaMismatch);
    }
    Ok(())
}
