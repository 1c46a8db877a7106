//! The two ends of an input stream in owned storage: the client's sender with its tick
//! synchronisation, the server's receiver with the tick its newest input arrived in.

use super::buffers::InputBuffers;
use crate::engine::input::receiver::ReceiverState;
use crate::engine::input::sender::SenderState;
use crate::engine::input::{
    Arrival, InputAck, InputReceiver, InputSender, InputStats, SenderStats, SyncStats, Taken,
    TickSync, Timing,
};
use crate::schema::Schema;
use crate::{AckOutcome, Result};

/// A client's input stream: its sender and tick synchronisation.
#[derive(Debug)]
pub(crate) struct SenderEnd {
    schema: &'static Schema,
    buffers: InputBuffers,
    state: SenderState,
    sync: TickSync,
}

impl SenderEnd {
    /// A sender of inputs of `schema`, ticks of `tick_us` microseconds.
    pub(crate) fn new(schema: &'static Schema, tick_us: u32) -> Result<Self> {
        let mut buffers = InputBuffers::new(schema);
        let state = SenderState::new(schema, &buffers.storage())?;
        Ok(SenderEnd { schema, buffers, state, sync: TickSync::new(tick_us) })
    }

    fn with<T>(&mut self, f: impl FnOnce(&mut InputSender<'_>) -> T) -> T {
        f(&mut InputSender::resume(self.schema, self.buffers.storage(), &mut self.state))
    }

    pub(crate) fn set_session(&mut self, session: u64) {
        self.with(|s| s.set_session(session));
    }

    pub(crate) fn push(&mut self, tick: u32, values: &[i32]) -> Result<()> {
        self.with(|s| s.push(tick, values))
    }

    /// Encodes a datagram into `buf` sent at `now`, noting when its newest input was sent.
    pub(crate) fn encode(&mut self, buf: &mut [u8], now: u64) -> Result<usize> {
        let (len, carried) = self.with(|s| s.encode(buf).map(|len| (len, s.last_carried())))?;
        if let Some((_, newest)) = carried.filter(|_| len > 0) {
            self.sync.sent(newest, now);
        }
        Ok(len)
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
}

impl ReceiverEnd {
    /// A receiver of inputs of `schema`.
    pub(crate) fn new(schema: &'static Schema) -> Result<Self> {
        let mut buffers = InputBuffers::new(schema);
        let state = ReceiverState::new(schema, &buffers.storage())?;
        Ok(ReceiverEnd { schema, buffers, state, arrived_at: 0 })
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
