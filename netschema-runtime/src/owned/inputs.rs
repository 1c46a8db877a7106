//! The two ends of an input stream in owned storage: the client's sender with its tick
//! synchronisation and its inputs' render times, the server's receiver with the tick its
//! newest input arrived in and the render times received.

use super::buffers::InputBuffers;
use super::sight::{self, Record, RenderTime, Views};
use crate::engine::input::receiver::ReceiverState;
use crate::engine::input::sender::SenderState;
use crate::engine::input::{
    Arrival, InputAck, InputReceiver, InputSender, InputStats, SenderStats, Source, SyncStats,
    Taken, TickSync, Timing,
};
use crate::schema::Schema;
use crate::{AckOutcome, Error, Input, Result};

/// A client's input of one tick as a value of its input type: what
/// [`Server::take`](super::Server::take) and [`Server::take_next`](super::Server::take_next)
/// give ([`Taken`] raw).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TakenInput<I> {
    /// The tick.
    pub tick: u32,
    /// Where the value comes from: the client's input of the tick, or, when it has not
    /// arrived, the last input taken (or, before any, each field's value nearest 0) standing
    /// in for it.
    pub source: Source,
    /// The input.
    pub value: I,
}

impl<I: Input> TakenInput<I> {
    /// The raw `taken` as a value of `I`.
    pub(crate) fn new(taken: Taken) -> Self {
        TakenInput { tick: taken.tick, source: taken.source, value: I::dequantise(taken.values()) }
    }
}

/// A client's input stream: its sender, tick synchronisation and inputs' render times.
#[derive(Debug)]
pub(crate) struct SenderEnd {
    schema: &'static Schema,
    buffers: InputBuffers,
    state: SenderState,
    sync: TickSync,
    views: Views,
}

impl SenderEnd {
    /// A sender of inputs of `schema`, ticks of `tick_us` microseconds.
    pub(crate) fn new(schema: &'static Schema, tick_us: u32) -> Result<Self> {
        let mut buffers = InputBuffers::new(schema);
        let state = SenderState::new(schema, &buffers.storage())?;
        Ok(SenderEnd { schema, buffers, state, sync: TickSync::new(tick_us), views: Views::new() })
    }

    fn with<T>(&mut self, f: impl FnOnce(&mut InputSender<'_>) -> T) -> T {
        f(&mut InputSender::resume(self.schema, self.buffers.storage(), &mut self.state))
    }

    /// The input schema.
    pub(crate) fn schema(&self) -> &'static Schema {
        self.schema
    }

    pub(crate) fn set_session(&mut self, session: u64) {
        self.with(|s| s.set_session(session));
    }

    pub(crate) fn push(&mut self, tick: u32, values: &[i32]) -> Result<()> {
        self.with(|s| s.push(tick, values))?;
        self.views.pushed(tick);
        Ok(())
    }

    pub(crate) fn set_render_time(&mut self, time: Option<RenderTime>) {
        self.views.set(time);
    }

    /// Encodes the views part and a datagram into `buf` sent at `now`, noting when its newest
    /// input was sent; returns their lengths. The datagram is coded after room for the
    /// longest views part, then moved to follow the part written.
    pub(crate) fn encode(&mut self, buf: &mut [u8], now: u64) -> Result<(usize, usize)> {
        let room = if self.views.any() { sight::MAX_LEN } else { 0 };
        let rest = buf.get_mut(room..).ok_or(Error::BufferFull)?;
        let (len, carried) = self.with(|s| s.encode(rest).map(|len| (len, s.last_carried())))?;
        let Some(ticks) = carried.filter(|_| len > 0) else { return Ok((0, 0)) };
        self.sync.sent(ticks.1, now);
        let views = match room {
            0 => 0,
            _ => self.views.write(ticks, &mut buf[..room])?,
        };
        buf.copy_within(room..room + len, views);
        Ok((views, len))
    }

    /// Takes the server's input ack and timing report, received at `now`.
    pub(crate) fn received(
        &mut self,
        ack: Option<&InputAck>,
        timing: Option<&Timing>,
        now: u64,
    ) -> Option<AckOutcome> {
        if let Some(t) = timing {
            self.sync.received(t, now);
        }
        ack.map(|a| self.with(|s| s.receive_ack(a)))
    }

    pub(crate) fn sync(&self) -> &TickSync {
        &self.sync
    }

    pub(crate) fn stats(&mut self) -> (SenderStats, SyncStats) {
        (self.with(|s| s.stats()), self.sync.stats())
    }
}

/// A server's input stream from one client: its receiver and the server tick its newest
/// input arrived in.
#[derive(Debug)]
pub(crate) struct ReceiverEnd {
    schema: &'static Schema,
    buffers: InputBuffers,
    state: ReceiverState,
    arrived_at: u32,
    seen: Record,
}

impl ReceiverEnd {
    /// A receiver of inputs of `schema`.
    pub(crate) fn new(schema: &'static Schema) -> Result<Self> {
        let mut buffers = InputBuffers::new(schema);
        let state = ReceiverState::new(schema, &buffers.storage())?;
        Ok(ReceiverEnd { schema, buffers, state, arrived_at: 0, seen: Record::new() })
    }

    fn with<T>(&mut self, f: impl FnOnce(&mut InputReceiver<'_>) -> T) -> T {
        f(&mut InputReceiver::resume(self.schema, self.buffers.storage(), &mut self.state))
    }

    pub(crate) fn set_session(&mut self, session: u64) {
        self.with(|r| r.set_session(session));
    }

    /// Decodes `datagram`, received during server tick `frame`.
    pub(crate) fn receive(&mut self, datagram: &[u8], frame: u32) -> Result<usize> {
        let (result, newer) = self.with(|r| {
            let before = r.newest_tick();
            let result = r.receive(datagram);
            (result, r.newest_tick() != before)
        });
        if newer {
            self.arrived_at = frame;
        }
        result
    }

    /// Takes a views part [`sight::split`] checked.
    pub(crate) fn take_views(&mut self, part: &[u8]) {
        self.seen.take(part);
    }

    /// The render time the client gave with its input of `tick`, if it arrived.
    pub(crate) fn render_time(&self, tick: u32) -> Option<RenderTime> {
        self.seen.get(tick)
    }

    pub(crate) fn take(&mut self, tick: u32) -> Taken {
        self.with(|r| r.take(tick))
    }

    pub(crate) fn take_next(&mut self) -> Option<Taken> {
        self.with(|r| r.take_next())
    }

    /// The ack and the timing report to send at server tick `frame`.
    pub(crate) fn report(&mut self, frame: u32) -> (Option<InputAck>, Timing) {
        let arrived_at = self.arrived_at;
        self.with(|r| {
            let playout = r.stats().playout;
            let arrival = r.newest_tick().map(|newest| Arrival {
                newest,
                at: arrived_at,
                target: playout.target,
                error: playout.error(),
            });
            (r.ack(), Timing { frame, arrival })
        })
    }

    pub(crate) fn stats(&mut self) -> InputStats {
        self.with(|r| r.stats())
    }
}
