//! The server's end: decodes a client's input datagrams into a buffer keyed by tick, hands out
//! one input per tick, and writes the acknowledgement the client codes against.

use crate::codec::coder::Decoder;
use crate::engine::input::body::{Carried, Header, code_rest, code_start};
use crate::engine::input::buffer::{Buffer, BufferStats, Taken};
use crate::engine::input::held::Held;
use crate::engine::input::playout::{Playout, PlayoutStats, Step};
use crate::engine::input::slots::{InputStorage, Slots};
use crate::engine::input::{InputAck, check_schema};
use crate::schema::{Class, Schema};
use crate::{Error, Result};

/// What an [`InputReceiver`] has seen: datagrams, how inputs fared in its buffer
/// ([`BufferStats`]) and its target delay ([`PlayoutStats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InputStats {
    /// Datagrams accepted.
    pub datagrams: u32,
    /// Datagrams refused (each with an error from [`InputReceiver::receive`]).
    pub refused: u32,
    /// Inputs in the buffer.
    pub buffer: BufferStats,
    /// The target delay and its adjustments.
    pub playout: PlayoutStats,
}

/// The server's end of one client's input stream.
///
/// [`InputReceiver::receive`] decodes a datagram (or refuses it with a typed error and
/// changes nothing) and stores its inputs by tick; [`InputReceiver::take_next`], once per
/// server tick, hands out the input of the tick its target delay picks, or
/// [`InputReceiver::take`] the input of a tick the game picks; [`InputReceiver::ack`] is
/// what to send back.
#[derive(Debug)]
pub struct InputReceiver<'a> {
    schema: &'a Schema,
    storage: InputStorage<'a>,
    state: Held<'a, ReceiverState>,
}

/// Everything of an [`InputReceiver`] but its schema and storage.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReceiverState {
    class: &'static Class,
    slots: Slots,
    session: u64,
    /// The newest datagram decoded whose state this end keeps.
    newest: Option<u32>,
    /// The newest input tick received.
    newest_tick: Option<u32>,
    buffer: Buffer,
    playout: Playout,
    datagrams: u32,
    refused: u32,
}

impl ReceiverState {
    /// The state of a fresh end of an input stream described by `schema` (see
    /// [`check_schema`]) in `storage` ([`InputStorage::sizes`]).
    pub(crate) fn new(schema: &Schema, storage: &InputStorage<'_>) -> Result<Self> {
        let class = check_schema(schema)?;
        storage.check(schema)?;
        Ok(ReceiverState {
            class,
            slots: Slots::new(schema),
            session: 0,
            newest: None,
            newest_tick: None,
            buffer: Buffer::new(class),
            playout: Playout::new(),
            datagrams: 0,
            refused: 0,
        })
    }
}

impl<'a> InputReceiver<'a> {
    /// A receiver of inputs described by `schema` (see [`check_schema`]) in `storage`
    /// ([`InputStorage::sizes`]).
    pub fn new(schema: &'a Schema, storage: InputStorage<'a>) -> Result<Self> {
        let state = ReceiverState::new(schema, &storage)?;
        Ok(InputReceiver { schema, storage, state: Held::Own(state) })
    }

    #[cfg(feature = "std")]
    /// The receiver in `storage` as it was when `state` was taken from it (storage that
    /// [`InputReceiver::new`] checked).
    pub(crate) fn resume(
        schema: &'a Schema,
        storage: InputStorage<'a>,
        state: &'a mut ReceiverState,
    ) -> Self {
        InputReceiver { schema, storage, state: Held::Lent(state) }
    }

    /// Binds the stream to a session (see
    /// [`InputSender::set_session`](crate::engine::input::InputSender::set_session)).
    pub fn set_session(&mut self, session: u64) {
        self.state.session = session;
    }

    /// Decodes `datagram` and stores its inputs; returns how many were new. A datagram whose
    /// base this end does not keep is [`Error::UnknownBaseline`], one decoded already
    /// [`Error::StalePacket`], one damaged or of another session or input schema
    /// [`Error::CheckMismatch`] or [`Error::Corrupt`] (also any bytes other than exactly the
    /// sender's); nothing changes then but [`InputStats::refused`]. The work is bounded by
    /// [`CARRIED`](crate::engine::input::CARRIED) inputs.
    pub fn receive(&mut self, datagram: &[u8]) -> Result<usize> {
        let result = self.decode(datagram);
        match result {
            Ok(_) => self.state.datagrams += 1,
            Err(_) => self.state.refused += 1,
        }
        result
    }

    fn decode(&mut self, datagram: &[u8]) -> Result<usize> {
        let mut decoder = Decoder::new(datagram);
        let (based, named) = code_start(&mut decoder, &Header { seq: 0, base: None });
        let mut header = match based {
            true => {
                let base = self.state.slots.by_low_bits(named).ok_or(Error::UnknownBaseline)?.seq;
                Header { seq: base, base: Some(base) }
            }
            false => Header { seq: named, base: None },
        };
        let mut recent = self.state.slots.start(self.schema, &mut self.storage, header.base)?;
        let mut carried = Carried::EMPTY;
        let context = (self.schema, self.state.class, self.state.session);
        let models = &mut *self.storage.models;
        let check =
            code_rest(&mut decoder, context, models, &mut header, &mut recent, &mut carried)?;
        if !decoder.at_end() {
            return Err(Error::Corrupt);
        }
        let seq = header.seq;
        if self.state.slots.get(seq).is_some() {
            return Err(Error::StalePacket);
        }
        self.state.slots.commit(self.schema, &mut self.storage, seq, check, recent);
        if self.state.slots.get(seq).is_some()
            && self.state.newest.is_none_or(|n| seq.wrapping_sub(n) as i32 > 0)
        {
            self.state.newest = Some(seq);
        }
        let mut new = 0;
        for input in carried.as_slice() {
            new += usize::from(self.state.buffer.insert(*input));
        }
        if let Some(last) = carried.as_slice().last() {
            self.state.playout.arrived(last.tick);
            if self.state.newest_tick.is_none_or(|n| last.tick.wrapping_sub(n) as i32 > 0) {
                self.state.newest_tick = Some(last.tick);
            }
        }
        Ok(new)
    }

    /// The ack to send back, once a datagram was decoded: it names the newest one decoded.
    pub fn ack(&self) -> Option<InputAck> {
        let seq = self.state.newest?;
        Some(InputAck::proven(seq, self.state.slots.get(seq)?.check))
    }

    /// The input of the next tick, at the target delay: call it once per server tick. `None`
    /// until an input has arrived. Usually the tick after the one taken last; one later when
    /// inputs wait longer than the target delay needs (the tick passed over is counted
    /// skipped), and the tick taken last again, repeated, when they come later than it (a
    /// stall); see [`playout`](crate::engine::input::playout).
    pub fn take_next(&mut self) -> Option<Taken> {
        let s = &mut *self.state;
        match s.playout.step(s.buffer.next(), s.newest_tick)? {
            Step::Take(tick) => Some(s.buffer.take(tick)),
            Step::Stall => {
                let tick = s.buffer.next().unwrap_or(0).wrapping_sub(1);
                Some(s.buffer.stand_in(tick))
            }
        }
    }

    /// The input of `tick`, chosen by the game (see [`buffer`](crate::engine::input::buffer)
    /// for what a missing, late or repeated tick gets). Ticks taken should increase.
    ///
    /// Called once per server tick instead of [`InputReceiver::take_next`], it drives the
    /// target delay alike, and [`PlayoutStats::lead`] measures the newest input received
    /// against the tick taken: how far ahead the client's inputs run (see
    /// [`sync`](crate::engine::input::sync)).
    pub fn take(&mut self, tick: u32) -> Taken {
        let s = &mut *self.state;
        s.playout.taken(tick, s.newest_tick, s.buffer.next().is_none());
        s.buffer.take(tick)
    }

    /// The tick of the newest input received, if any.
    pub fn newest_tick(&self) -> Option<u32> {
        self.state.newest_tick
    }

    /// What this end has seen.
    pub fn stats(&self) -> InputStats {
        InputStats {
            datagrams: self.state.datagrams,
            refused: self.state.refused,
            buffer: self.state.buffer.stats(),
            playout: self.state.playout.stats(),
        }
    }
}
