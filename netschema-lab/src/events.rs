//! Events a recording sends its client, and what a technique's record stream did with them.
//!
//! A frame's [`Event`]s are the schema's events (`event` items of its `.netidl`, listed by
//! [`Schema::events`](netschema_runtime::schema::Schema)) that the game sends the client at
//! that frame, with their references as snapshot ids. netschema carries them in its record
//! stream (one event a record, sent once and repaired on loss); [`RecordStats`] counts what
//! that cost and how late each arrived. The other techniques carry no events.

use std::collections::VecDeque;

use netschema_runtime::event::{self, MAX_EVENT_LEN};
use netschema_runtime::schema::{MAX_TEXTS, Schema};
use netschema_runtime::{Client, Peer};

use crate::Error;

/// One event sent at a frame (its strings and blobs, if the event has any, are left out:
/// sent empty).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Event {
    /// Its index among the schema's events.
    pub event: usize,
    /// The raw value of each scalar field of the event's class.
    pub values: Vec<i32>,
    /// Each reference of the event's class: the id it names in the frame's snapshot, or
    /// `None`. An event whose first reference names an entity the client does not see is not
    /// sent to it.
    pub targets: Vec<Option<u32>>,
}

/// What a record stream did over a run (frames after the warm-up for the delays).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordStats {
    /// Events given to the technique.
    pub events: u64,
    /// Records queued: the events sent (those whose subject the client saw).
    pub queued: u64,
    /// Events the peer's full record queue refused (the client stopped acknowledging).
    pub refused: u64,
    /// Times a record was put in a packet, first sends and repairs.
    pub sends: u64,
    /// Bytes of records put in packets, first sends and repairs (each record's header, about
    /// 11 bits, apart).
    pub bytes: u64,
    /// Records the client applied, each checked against the one queued under its number.
    pub applied: u64,
    /// Applied records that differed from the one queued, or came out of order.
    pub mismatches: u64,
    /// `delays[d]`: records applied `d` frames after the frame they were queued at: the frame
    /// of the packet that let the client apply them, plus the link's one-way latency.
    pub delays: Vec<u64>,
}

impl RecordStats {
    /// Counts a record applied `delay` frames after it was queued.
    pub fn add_delay(&mut self, delay: u32) {
        let d = delay as usize;
        if self.delays.len() <= d {
            self.delays.resize(d + 1, 0);
        }
        self.delays[d] += 1;
    }

    /// Sends per record queued (0 without records).
    pub fn sends_per_record(&self) -> f64 {
        self.sends as f64 / self.queued.max(1) as f64
    }

    /// Mean delay from queued to applied, frames (0 without delays).
    pub fn delay_mean(&self) -> f64 {
        crate::histogram_mean(&self.delays)
    }

    /// The delay that 99 % of the records applied do not exceed, frames (0 without delays).
    pub fn delay_p99(&self) -> u32 {
        crate::histogram_p99(&self.delays)
    }
}

/// The records a netschema encoder queued, shared with its decoder, which checks each record
/// it applies against the one queued under its number.
#[derive(Debug, Default)]
pub(crate) struct RecordLog {
    /// Records queued and not yet applied, oldest first: number, frame queued at, bytes.
    waiting: VecDeque<(u32, u32, Vec<u8>)>,
    /// Counts so far (the peer's sends and bytes are added when asked for).
    pub(crate) stats: RecordStats,
}

impl RecordLog {
    /// Queues `events`, sent at `frame`, on `peer` as event records of `schema`. Their targets
    /// are the client's handles (`None` for an entity it has none for); an event whose first
    /// reference names none is left out, and one the full queue refuses is counted as refused.
    pub(crate) fn queue(
        &mut self,
        schema: &Schema,
        peer: &mut Peer<'_>,
        frame: u32,
        events: &[Event],
    ) -> Result<(), Error> {
        let mut buf = [0u8; MAX_EVENT_LEN];
        for e in events {
            self.stats.events += 1;
            let Some(class) = schema.events.get(e.event).and_then(|s| s.classes.first()) else {
                return Err(Error::Encode(format!("the schema declares no event {}", e.event)));
            };
            if e.targets.first().is_some_and(Option::is_none) {
                continue;
            }
            // The lab carries no strings or blobs (traces leave them out): each is empty.
            let texts = [&[][..]; MAX_TEXTS];
            let texts = texts.get(..class.texts.len()).unwrap_or_default();
            let len = event::write(e.event as u32, class, &e.values, &e.targets, texts, &mut buf)?;
            let number = match peer.queue_record(&buf[..len]) {
                Ok(number) => number,
                // The client stopped acknowledging: the game would try again later.
                Err(netschema_runtime::Error::RecordQueueFull { .. }) => {
                    self.stats.refused += 1;
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            self.waiting.push_back((number, frame, buf[..len].to_vec()));
            self.stats.queued += 1;
        }
        Ok(())
    }

    /// Checks the records `client` applied with the packet of `frame` it just accepted against
    /// those queued, in order, and counts their delays.
    pub(crate) fn apply(&mut self, client: &Client<'_>, frame: u32) {
        for record in client.records() {
            match self.waiting.pop_front() {
                Some((number, queued, bytes)) if number == record.number => {
                    self.stats.applied += 1;
                    self.stats.add_delay(frame.wrapping_sub(queued));
                    if bytes != record.bytes {
                        self.stats.mismatches += 1;
                    }
                }
                _ => self.stats.mismatches += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_give_mean_and_p99() {
        let mut stats = RecordStats { queued: 4, sends: 5, ..RecordStats::default() };
        for d in [6, 6, 6, 25] {
            stats.add_delay(d);
        }
        assert_eq!(stats.delay_p99(), 25);
        assert!((stats.delay_mean() - 10.75).abs() < 1e-9);
        assert!((stats.sends_per_record() - 1.25).abs() < 1e-9);
        for _ in 0..200 {
            stats.add_delay(6);
        }
        assert_eq!(stats.delay_p99(), 6);
        assert_eq!(RecordStats::default().delay_p99(), 0);
    }
}
