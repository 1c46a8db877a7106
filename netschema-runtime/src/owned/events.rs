//! Events through the owned layer: the server codes a game's event for each client, its
//! references as that client's handles, and sends it as a record; the client reads them back.

use super::{Client, ClientId, Server, texts};
use crate::event::{self, Event, MAX_EVENT_FIELDS, MAX_EVENT_LEN, Received};
use crate::schema::{MAX_LINKS, MAX_TEXTS};
use crate::{Error, Protocol, Result};

impl<P: Protocol> Server<P> {
    /// Sends `event` to `client` once, as the next record of its record stream, and returns
    /// the record's number; the client reads it from [`Client::received_events`].
    ///
    /// An event is about the entity its first reference names, if any: an event about an
    /// entity the client cannot see (not visible to it, or not yet given a handle) is never
    /// sent to it, and `Ok(None)` says so. Its other references read none on the client when
    /// they name an entity the client cannot see. A reference carries the handle the client
    /// holds its target under when the event is sent.
    ///
    /// Refused, sending nothing, with [`Error::UnknownEvent`] if the protocol does not
    /// declare `E` ([`Schema::with_events`](crate::schema::Schema::with_events)),
    /// [`Error::Capture`] if a field is out of its range, [`Error::TextTooLong`] or
    /// [`Error::NotUtf8`] if a text field does not take its bytes, and as
    /// [`Server::send_record`] refuses a record.
    pub fn send_event<E: Event>(&mut self, client: ClientId, event: &E) -> Result<Option<u32>> {
        let index = event::index_of::<E>(P::SCHEMA)?;
        let class = &E::SCHEMA.classes[0];
        let (fields, link_count) = (class.fields.len(), class.links.len());
        let mut raw = [0i32; MAX_EVENT_FIELDS];
        event.try_quantise(&mut raw[..fields]).map_err(Error::Capture)?;
        let mut links = [None; MAX_LINKS];
        for (l, handle) in links[..link_count].iter_mut().enumerate() {
            let Some(id) = event.link(l) else { continue };
            *handle = self.handle(client, id)?;
            if l == 0 && handle.is_none() {
                return Ok(None);
            }
        }
        let mut texts: [&[u8]; MAX_TEXTS] = [&[]; MAX_TEXTS];
        for (t, text) in texts[..class.texts.len()].iter_mut().enumerate() {
            *text = event.text(t);
        }
        let texts = &texts[..class.texts.len()];
        let mut buf = [0u8; MAX_EVENT_LEN];
        let n = event::write(index, class, &raw[..fields], &links[..link_count], texts, &mut buf)?;
        self.send_record(client, &buf[..n]).map(Some)
    }

    /// Sends `event` to every client that sees entity `id` ([`Server::send_event`] to each),
    /// and returns how many it was sent to. Every such client is tried; the first refusal, if
    /// any, is returned after the others were sent theirs.
    pub fn send_event_to_viewers<E: Event>(&mut self, id: u64, event: &E) -> Result<usize> {
        let clients: std::vec::Vec<ClientId> = self.clients().collect();
        let (mut sent, mut refused) = (0, None);
        for client in clients {
            if self.handle(client, id)?.is_none() {
                continue;
            }
            match self.send_event(client, event) {
                Ok(Some(_)) => sent += 1,
                Ok(None) => {}
                Err(e) => refused = refused.or(Some(e)),
            }
        }
        refused.map_or(Ok(sent), Err)
    }

    /// The handle `client` holds entity `id` under, if it sees it (`None` also for an id the
    /// server does not hold).
    fn handle(&mut self, client: ClientId, id: u64) -> Result<Option<u32>> {
        match self.slot(id) {
            Ok(slot) => self.with_peer(client, |p| p.handle_of(slot)),
            Err(_) => self.with_peer(client, |_| None),
        }
    }
}

impl<P: Protocol> Client<P> {
    /// The events the last accepted packet applied, in order, each with the frame it belongs
    /// to, decodable as typed values ([`Received::get`]); the records of
    /// [`Client::records`] read as events, but the text records of a schema whose classes have
    /// strings or byte blobs (which set them). Read them after each packet: the next accepted
    /// packet replaces them.
    pub fn received_events(&self) -> impl Iterator<Item = Received<'_>> + '_ {
        let texts = texts::has_texts(P::SCHEMA);
        self.records()
            .filter(move |r| !texts || texts::read(P::SCHEMA, r.bytes).is_none())
            .map(|r| Received::new(r, P::SCHEMA))
    }
}
