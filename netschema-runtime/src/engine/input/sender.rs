//! The client's end: inputs pushed once per tick, datagrams that carry every input the
//! server has not acknowledged.

use crate::AckOutcome;
use crate::codec::coder::Encoder;
use crate::engine::input::body::{Carried, Header, code_rest, code_start, valid};
use crate::engine::input::held::Held;
use crate::engine::input::recent::Input;
use crate::engine::input::slots::{InputStorage, Slots};
use crate::engine::input::{CARRIED, InputAck, MAX_INPUT_FIELDS, PACKETS, check_schema};
use crate::schema::{Class, Schema};
use crate::{Error, Result};

/// What an [`InputSender`] has done.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Datagrams encoded.
    pub datagrams: u32,
    /// Of those, datagrams without a base (cold models: no datagram acknowledged lately).
    pub cold: u32,
    /// Acks refused: naming a datagram never sent, or with a proof that does not match.
    pub refused_acks: u32,
}

/// The client's end of an input stream: push one input per tick ([`InputSender::push`]),
/// encode a datagram whenever one is sent ([`InputSender::encode`]), hand it the server's
/// acks ([`InputSender::receive_ack`]).
///
/// A datagram carries the inputs newer than the newest one the server acknowledged (at most
/// [`CARRIED`], the newest), each coded against the input before it, the first against that
/// acknowledged input, with the models the acknowledged datagram ended with. So a datagram
/// the receiver gets decodes whatever was lost before it, and both ends' models stay in step.
#[derive(Debug)]
pub struct InputSender<'a> {
    schema: &'a Schema,
    storage: InputStorage<'a>,
    state: Held<'a, SenderState>,
}

/// Everything of an [`InputSender`] but its schema and storage.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SenderState {
    class: &'static Class,
    slots: Slots,
    session: u64,
    /// The last [`CARRIED`] inputs pushed, by push count modulo [`CARRIED`].
    pushed: [Input; CARRIED],
    /// Inputs pushed so far.
    count: u32,
    /// The sequence number of the next datagram.
    next: u32,
    /// The newest datagram acknowledged, if any.
    acked: Option<u32>,
    /// The ticks of the first and last inputs the last datagram carried.
    carried: Option<(u32, u32)>,
    stats: SenderStats,
}

impl SenderState {
    /// The state of a fresh end of an input stream described by `schema` (see
    /// [`check_schema`]) in `storage` ([`InputStorage::sizes`]).
    pub(crate) fn new(schema: &Schema, storage: &InputStorage<'_>) -> Result<Self> {
        let class = check_schema(schema)?;
        storage.check(schema)?;
        Ok(SenderState {
            class,
            slots: Slots::new(schema),
            session: 0,
            pushed: [Input::EMPTY; CARRIED],
            count: 0,
            next: 0,
            acked: None,
            carried: None,
            stats: SenderStats::default(),
        })
    }
}

impl<'a> InputSender<'a> {
    /// A sender of inputs described by `schema` (see [`check_schema`]) in `storage`
    /// ([`InputStorage::sizes`]).
    pub fn new(schema: &'a Schema, storage: InputStorage<'a>) -> Result<Self> {
        let state = SenderState::new(schema, &storage)?;
        Ok(InputSender { schema, storage, state: Held::Own(state) })
    }

    #[cfg(feature = "std")]
    /// The sender in `storage` as it was when `state` was taken from it (storage that
    /// [`InputSender::new`] checked).
    pub(crate) fn resume(
        schema: &'a Schema,
        storage: InputStorage<'a>,
        state: &'a mut SenderState,
    ) -> Self {
        InputSender { schema, storage, state: Held::Lent(state) }
    }

    /// Binds the stream to a session, the value its receiver was given
    /// ([`InputReceiver::set_session`](crate::engine::input::InputReceiver::set_session)):
    /// check values cover it, so a datagram of another session is refused. 0: none.
    pub fn set_session(&mut self, session: u64) {
        self.state.session = session;
    }

    /// Adds the input for `tick`: one raw value per field of the input, each in its field's
    /// range ([`Error::RowLength`], [`Error::OutOfRange`]). Ticks must increase
    /// ([`Error::InputTick`]); they may skip.
    pub fn push(&mut self, tick: u32, values: &[i32]) -> Result<()> {
        valid(self.state.class, values)?;
        if let Some(newest) = self.newest()
            && tick.wrapping_sub(newest.tick) as i32 <= 0
        {
            return Err(Error::InputTick { tick, newest: newest.tick });
        }
        let mut input = Input { tick, values: [0; MAX_INPUT_FIELDS] };
        input.values[..values.len()].copy_from_slice(values);
        let at = self.state.count as usize % CARRIED;
        self.state.pushed[at] = input;
        self.state.count = self.state.count.wrapping_add(1);
        Ok(())
    }

    fn newest(&self) -> Option<&Input> {
        let last = self.state.count.checked_sub(1)?;
        Some(&self.state.pushed[last as usize % CARRIED])
    }

    /// Writes a datagram into `buf` and returns its length: every input pushed after the
    /// newest one the receiver acknowledged (the newest [`CARRIED`]). Returns 0, and sends
    /// nothing, when the receiver has acknowledged every input. [`Error::BufferFull`] if the
    /// datagram does not fit; nothing changes then.
    pub fn encode(&mut self, buf: &mut [u8]) -> Result<usize> {
        let seq = self.state.next;
        let base = self
            .state
            .acked
            .filter(|&a| seq.wrapping_sub(a) < PACKETS as u32 && self.state.slots.get(a).is_some());
        let mut recent = self.state.slots.start(self.schema, &mut self.storage, base)?;
        let after = recent.newest().map(|i| i.tick);
        let mut carried = Carried::EMPTY;
        let held = self.state.count.min(CARRIED as u32);
        for k in (0..held).rev() {
            let input = self.state.pushed[self.state.count.wrapping_sub(1 + k) as usize % CARRIED];
            if after.is_none_or(|a| input.tick.wrapping_sub(a) as i32 > 0) {
                carried.inputs[carried.len] = input;
                carried.len += 1;
            }
        }
        let (Some(first), Some(last)) = (carried.as_slice().first(), carried.as_slice().last())
        else {
            return Ok(0);
        };
        let ticks = (first.tick, last.tick);
        let mut header = Header { seq, base };
        let mut encoder = Encoder::new(buf);
        code_start(&mut encoder, &header);
        let context = (self.schema, self.state.class, self.state.session);
        let models = &mut *self.storage.models;
        let check =
            code_rest(&mut encoder, context, models, &mut header, &mut recent, &mut carried)?;
        let len = encoder.finish()?;
        self.state.slots.commit(self.schema, &mut self.storage, seq, check, recent);
        self.state.next = seq.wrapping_add(1);
        self.state.carried = Some(ticks);
        self.state.stats.datagrams += 1;
        self.state.stats.cold += u32::from(base.is_none());
        Ok(len)
    }

    /// Takes an ack from the receiver: [`AckOutcome::Accepted`] if it proves receipt of a
    /// datagram (the newest such becomes the base of the next datagrams),
    /// [`AckOutcome::Stale`] if it names one this end no longer keeps, and
    /// [`AckOutcome::Refused`] (counted, [`SenderStats::refused_acks`]) if it names one never
    /// sent or its proof does not match. Nothing changes unless it is accepted.
    pub fn receive_ack(&mut self, ack: &InputAck) -> AckOutcome {
        let Some(newest) = self.state.next.checked_sub(1) else {
            self.state.stats.refused_acks += 1;
            return AckOutcome::Refused;
        };
        let seq = ack.seq(newest);
        let refuse = |stats: &mut SenderStats| {
            stats.refused_acks += 1;
            AckOutcome::Refused
        };
        if seq.wrapping_sub(newest) as i32 > 0 {
            return refuse(&mut self.state.stats);
        }
        let Some(slot) = self.state.slots.get(seq) else { return AckOutcome::Stale };
        if InputAck::proven(seq, slot.check) != *ack {
            return refuse(&mut self.state.stats);
        }
        if self.state.acked.is_none_or(|a| seq.wrapping_sub(a) as i32 > 0) {
            self.state.acked = Some(seq);
        }
        AckOutcome::Accepted
    }

    /// The ticks of the oldest and newest inputs the last datagram carried (it carried every
    /// input pushed between them), if any was encoded.
    pub fn last_carried(&self) -> Option<(u32, u32)> {
        self.state.carried
    }

    /// What this end has done.
    pub fn stats(&self) -> SenderStats {
        self.state.stats
    }
}
