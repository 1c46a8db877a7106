//! Events: one-off messages from the server to a client, declared in the schema (a `.netidl`
//! `event` item or `#[derive(Event)]`) and carried, one event a record, by the record stream
//! ([`engine::records`](crate::engine::records)): each is applied once, in order, with the
//! frame it belongs to, and repaired only when its packet is known lost.
//!
//! A protocol lists its events ([`Schema::with_events`]); an event's index in that list
//! starts its record, followed by its fields' raw values, its references as the client's
//! handles of their targets and its strings and byte blobs (see [`coding`] and
//! `docs/protocol.md`, "Events").

pub mod coding;

use crate::engine::records::MAX_RECORD_LEN;
use crate::engine::records::Record;
use crate::error::{Error, Result};
use crate::schema::{Class, MAX_LINKS, MAX_TEXTS, Schema};
use crate::snapshot::Snapshot;

pub use coding::{MAX_EVENT_LEN, index, max_len, read, write};

/// Most scalar fields of an event.
pub const MAX_EVENT_FIELDS: usize = 32;

/// An event type: a struct of fields whose kinds are a class's, references included (a
/// reference names an entity; the client reads it as its handle of the target), and strings
/// and byte blobs ([`Text`](crate::Text), [`Blob`](crate::Blob)).
///
/// Implemented by `#[derive(Event)]`. The event's fields are the one class of
/// [`Event::SCHEMA`], which is also its [`Snapshot::CLASS`]; a protocol lists the events it
/// may send with [`Schema::with_events`] (`#[netschema(events(Hit, Heal))]` on the enum
/// deriving `Protocol`), so that ends declaring different events refuse each other.
pub trait Event: Snapshot {
    /// The event schema: named after the event, with [`Snapshot::CLASS`] as its one class.
    const SCHEMA: &'static Schema;
}

/// Whether `class` can be an event's: at least one field, link or text field, at most
/// [`MAX_EVENT_FIELDS`] scalar fields, [`MAX_LINKS`] links and [`MAX_TEXTS`] text fields, a
/// longest record ([`max_len`]) within [`MAX_RECORD_LEN`], one update group and no
/// timeline. Code generated for an event checks this at compile time.
pub const fn fits(class: &Class) -> bool {
    if class.fields.is_empty() && class.links.is_empty() && class.texts.is_empty() {
        return false;
    }
    if class.fields.len() > MAX_EVENT_FIELDS
        || class.links.len() > MAX_LINKS
        || class.texts.len() > MAX_TEXTS
        || max_len(class) > MAX_RECORD_LEN
    {
        return false;
    }
    if class.group_count() > 1 {
        return false;
    }
    let mut f = 0;
    while f < class.fields.len() {
        if class.fields[f].slot.is_some() {
            return false;
        }
        f += 1;
    }
    true
}

/// The index of event type `E` among the events `schema` declares; [`Error::UnknownEvent`]
/// if it declares none of that hash.
pub fn index_of<E: Event>(schema: &Schema) -> Result<u32> {
    let found = schema.events.iter().position(|e| e.hash == E::SCHEMA.hash);
    found.map(|i| i as u32).ok_or(Error::UnknownEvent { name: E::SCHEMA.name })
}

/// An event as a client received it: its record's number and frame, and its bytes, decodable
/// as the event type it holds ([`Received::get`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Received<'r> {
    /// The number of the record that carried it.
    pub number: u32,
    /// The frame it belongs to (the frame of the first packet that carried it).
    pub frame: u32,
    /// The record's bytes.
    pub bytes: &'r [u8],
    /// The protocol's schema, which lists its events.
    protocol: &'static Schema,
}

impl<'r> Received<'r> {
    /// The event carried by `record` of a client of `protocol`.
    pub fn new(record: Record<'r>, protocol: &'static Schema) -> Received<'r> {
        Received { number: record.number, frame: record.frame, bytes: record.bytes, protocol }
    }

    /// The event's index among the protocol's events, if its record starts with one.
    pub fn index(&self) -> Option<u32> {
        index(self.bytes).ok().map(|(i, _)| i)
    }

    /// The event's schema, if its index names one of the protocol's events.
    pub fn schema(&self) -> Option<&'static Schema> {
        self.protocol.events.get(self.index()? as usize).copied()
    }

    /// Whether it is an `E`.
    pub fn is<E: Event>(&self) -> bool {
        self.index().is_some() && index_of::<E>(self.protocol).ok() == self.index()
    }

    /// The event as an `E`, its references holding the client's handles of their targets and
    /// its text fields their bytes: `Ok(None)` if it is another event, [`Error::UnknownEvent`]
    /// if the protocol declares no `E`, and an error of [`read`] if its bytes are damaged.
    pub fn get<E: Event>(&self) -> Result<Option<E>> {
        if index_of::<E>(self.protocol)? != index(self.bytes)?.0 {
            return Ok(None);
        }
        let class = &E::SCHEMA.classes[0];
        let mut raw = [0i32; MAX_EVENT_FIELDS];
        let mut links = [None; MAX_LINKS];
        let mut texts: [&[u8]; MAX_TEXTS] = [&[]; MAX_TEXTS];
        read(class, self.bytes, &mut raw, &mut links, &mut texts)?;
        let mut event = E::dequantise(&raw[..class.fields.len()]);
        for (l, handle) in links[..class.links.len()].iter().enumerate() {
            event.set_link(l, handle.map(u64::from));
        }
        for (t, bytes) in texts[..class.texts.len()].iter().enumerate() {
            event.set_text(t, bytes);
        }
        Ok(Some(event))
    }
}
