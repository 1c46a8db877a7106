//! Strings and byte blobs of entities (a class's `string<N>`, `bytes<N>` fields): not part of
//! the row, sent to each client that sees the entity as records of its record stream, once when
//! the entity enters its view and again whenever one changes (see `docs/protocol.md`, "Text
//! fields").
//!
//! A *text record* is a run of varints as an event's (see
//! [`event::coding`](crate::event::coding)): the protocol's event count (the first index no
//! event has, so that it never reads as an event), the handle, the frame the handle got its
//! entity (its birth), the text field's index in the class, then the text's length and bytes.
//! The birth names the entity: a client applies the record to the entity it holds under the
//! handle only if that entity was born then, so that a record never reaches another entity
//! that took the handle later.
//!
//! - [`slots`]: fixed rows of text fields, allocated once;
//! - [`server`]: the texts of the world's entities and what each connection sent of them;
//! - [`client`]: the texts a client holds per handle.

pub(super) mod client;
pub(super) mod server;
mod slots;

use crate::error::{Error, Result};
use crate::event::coding::{get, put, put_bytes};
use crate::schema::{MAX_TEXTS, Schema};

/// One text field's bytes for the entity a handle names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TextRecord<'b> {
    /// The handle.
    pub(crate) handle: u32,
    /// The frame the handle got the entity.
    pub(crate) birth: u32,
    /// The text field's index in the entity's class.
    pub(crate) text: usize,
    /// Its bytes.
    pub(crate) bytes: &'b [u8],
}

/// The varint a text record of `schema` starts with: its event count.
pub(crate) fn tag(schema: &Schema) -> u64 {
    schema.events.len() as u64
}

/// Whether any class of `schema` has text fields.
pub(crate) fn has_texts(schema: &Schema) -> bool {
    schema.classes.iter().any(|c| !c.texts.is_empty())
}

/// Writes `record` as a text record of `schema` into `buf`; the length written.
pub(crate) fn write(schema: &Schema, record: &TextRecord<'_>, buf: &mut [u8]) -> Result<usize> {
    let mut at = put(buf, 0, tag(schema))?;
    for v in [record.handle, record.birth, record.text as u32] {
        at = put(buf, at, u64::from(v))?;
    }
    put_bytes(buf, at, record.bytes)
}

/// The text record `bytes` hold, if they start with `schema`'s tag: [`Error::Corrupt`] for a
/// handle or birth past 32 bits, a text index past [`MAX_TEXTS`] or bytes left over,
/// [`Error::UnexpectedEnd`] for a record cut short.
pub(crate) fn read<'b>(schema: &Schema, bytes: &'b [u8]) -> Option<Result<TextRecord<'b>>> {
    match get(bytes, 0) {
        Ok((t, at)) if t == tag(schema) => Some(read_body(bytes, at)),
        _ => None,
    }
}

fn read_body(bytes: &[u8], mut at: usize) -> Result<TextRecord<'_>> {
    let mut v = [0u32; 4];
    for slot in &mut v {
        let (value, next) = get(bytes, at)?;
        *slot = u32::try_from(value).map_err(|_| Error::Corrupt)?;
        at = next;
    }
    let [handle, birth, text, len] = v;
    let end = at + len as usize;
    let text_bytes = bytes.get(at..end).ok_or(Error::UnexpectedEnd)?;
    if text as usize >= MAX_TEXTS || end != bytes.len() {
        return Err(Error::Corrupt);
    }
    Ok(TextRecord { handle, birth, text: text as usize, bytes: text_bytes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::records::MAX_RECORD_LEN;
    use crate::schema::Class;

    static CLASSES: [Class; 1] = [Class::new("c", &[])];
    const SCHEMA: Schema = Schema::new("s", &CLASSES);

    #[test]
    fn records_round_trip_and_damage_is_refused() {
        let record = TextRecord { handle: 3, birth: 300, text: 1, bytes: "hé".as_bytes() };
        let mut buf = [0u8; MAX_RECORD_LEN];
        let n = write(&SCHEMA, &record, &mut buf).unwrap();
        assert_eq!(&buf[..n], &[0, 3, 0xac, 0x02, 1, 3, b'h', 0xc3, 0xa9]);
        assert_eq!(read(&SCHEMA, &buf[..n]), Some(Ok(record)));
        for cut in 1..n {
            assert_eq!(read(&SCHEMA, &buf[..cut]), Some(Err(Error::UnexpectedEnd)));
        }
        assert_eq!(read(&SCHEMA, &[1, 3]), None, "an event's index");
        assert_eq!(read(&SCHEMA, &[0, 3, 1, 8, 0]), Some(Err(Error::Corrupt)), "no text 8");
        assert_eq!(read(&SCHEMA, &[0, 3, 1, 0, 0, 0]), Some(Err(Error::Corrupt)), "bytes left");
        let far = [0, 0xff, 0xff, 0xff, 0xff, 0x1f, 0, 0, 0];
        assert_eq!(read(&SCHEMA, &far), Some(Err(Error::Corrupt)), "a handle past 32 bits");
    }
}
