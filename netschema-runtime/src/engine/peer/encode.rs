//! One packet: its references (the baseline and history frames), the attempts that fit it to
//! the byte budget, and the record of what it sent.

use super::side::EncoderSide;
use super::{PROVEN, Peer, PeerScratch, SHORT_PACKETS};
use crate::codec::coder::{BinaryCoder, Encoder, Metered};
use crate::codec::prob::COST_FRAC_BITS;
use crate::engine::ack::datagram_hash;
use crate::engine::bitset::{put_bit, test_bit, words};
use crate::engine::frame::{NO_FRAME, REACH, age, reach_after, span};
use crate::engine::lags::{self, LagView};
use crate::engine::pack::Budget;
use crate::engine::packet::{
    self, BASE_ID_BITS, CHECK_BITS, FRAME_BITS, Refs, history_target, in_window,
};
use crate::engine::probe::{NoProbe, Part, Probe};
use crate::engine::records::{self, Carry, RECORD_SHARE};
use crate::engine::slots::{Slots, split};
use crate::engine::world::World;
use crate::model::predict::MAX_SAMPLES;
use crate::model::{Model, ModelLayout, ModelPolicy};

use crate::{Error, Result};

impl Peer<'_> {
    /// Acknowledged frames used as references for `frame`, newest first, at most
    /// [`MAX_SAMPLES`], and the packet's reach: the newest acknowledged frame, less than
    /// [`REACH`] back, as the baseline, then frames within the span of the
    /// reach as near as possible to twice, three and four times its distance. No baseline if
    /// that frame is no longer held (a later frame of a longer reach took its slot): handles
    /// may have been given again since the frames before it.
    ///
    /// Spacing the samples like the baseline keeps the predictor weights those of evenly
    /// spaced samples (2, −1 for linear; 3, −3, 1 for quadratic), so quantisation noise is not
    /// amplified when the baseline is several frames old; with a baseline one frame old this is
    /// simply the four newest frames.
    pub(super) fn references(&self, frame: u32) -> ([u32; MAX_SAMPLES], usize, u32) {
        let acked = |back: u32| {
            self.state.slots.find(frame.wrapping_sub(back)).is_some_and(|p| self.state.acked[p])
        };
        let mut out = [0u32; MAX_SAMPLES];
        let high = self.state.acked_high;
        let base = age(frame, high);
        let slots = &self.state.slots;
        let Some(p) = slots.find(high).filter(|&p| self.state.acked[p]) else {
            return (out, 0, 0);
        };
        if high == NO_FRAME || !(1..REACH).contains(&base) {
            return (out, 0, 0);
        }
        let reach = reach_after(base, slots.reach(p));
        out[0] = frame.wrapping_sub(base);
        let mut len = 1;
        let mut previous = base;
        while let Some(target) =
            history_target(base, len, previous, reach).filter(|_| len < MAX_SAMPLES)
        {
            let nearest = (previous + 1..span(reach))
                .filter(|&back| acked(back))
                .min_by_key(|&back| back.abs_diff(target));
            let Some(back) = nearest else { break };
            out[len] = frame.wrapping_sub(back);
            previous = back;
            len += 1;
        }
        (out, len, reach)
    }

    /// Whether what the client holds of `h` at baseline slot `p` came from frames the world
    /// still holds at `frame` (`base` is the baseline frame).
    pub(super) fn base_in_window(
        &self,
        p: usize,
        base: u32,
        frame: u32,
        h: usize,
        groups: usize,
    ) -> bool {
        let g = self.schema.max_groups;
        let view = LagView::of(self.store.chains, p, base, frame);
        let sends = self.store.sends.get(h * g..h * g + groups).unwrap_or(&[]);
        sends.iter().all(|&sent| in_window(frame, base, view.lag(sent)))
    }

    /// Writes the packet for the world's current frame into `buf` and returns its length.
    ///
    /// The packet never exceeds `buf.len()` bytes, its byte budget ([`DEFAULT_BUDGET`](super::DEFAULT_BUDGET) is the
    /// usual choice). It is coded against the newest frame the client has acknowledged (or from
    /// scratch if there is none within the window). The timeline edits since the last packet
    /// are queued first, as keyframe records (waiting, if the record queue is full, for a later
    /// packet: [`PeerStats::keys_waiting`](super::PeerStats::keys_waiting)). Records due
    /// ([`Peer::queue_record`]) go first, in order, up to half the budget ([`RECORD_SHARE`]). When not everything fits, entering
    /// entities and updates go in order of urgency and priority (frames waited times weight,
    /// see [`Peer::set_priority`]) until nothing more fits; the rest stay as the client holds them
    /// and wait. Fails with [`Error::BufferFull`] only if not even the header fits, with
    /// [`Error::BudgetTooSmall`] (naming the length needed) once [`SHORT_PACKETS`] packets in a
    /// row could not carry the one entity they tried, and with [`Error::StalePacket`] if this
    /// frame was already encoded.
    pub fn encode(&mut self, world: &World<'_>, buf: &mut [u8]) -> Result<usize> {
        self.encode_probed(world, buf, &mut NoProbe)
    }

    /// [`Peer::encode`], reporting the cost of every value coded to `probe` (see
    /// [`crate::engine::probe`]). The packet is the one [`Peer::encode`] would have written.
    pub fn encode_probed<P: Probe>(
        &mut self,
        world: &World<'_>,
        buf: &mut [u8],
        probe: &mut P,
    ) -> Result<usize> {
        let room = PeerScratch::sizes(self.schema, self.state.handles as usize);
        if !self.store.scratch.fits(&room) {
            return Err(Error::StorageTooSmall);
        }
        let frame = world.frame().ok_or(Error::StalePacket)?;
        if self.state.newest_sent != NO_FRAME && age(frame, self.state.newest_sent) as i32 <= 0 {
            return Err(Error::StalePacket);
        }
        self.check_view(world);
        let rtt = (self.state.acked_latest != NO_FRAME).then_some(self.state.stats.round_trip);
        self.state.records.expire(frame, records::timeout(rtt));
        let (history, len, reach) = self.references(frame);
        let len = history[..len].iter().take_while(|&&t| world.holds(t)).count();
        let mut refs = Refs::new(self.state.session, frame, &history[..len]);
        // Without a baseline there is no distance to give the reach: the round trip does, or
        // the frames sent since the last ack if more.
        let waited = match self.state.unacked_since {
            NO_FRAME => 0,
            since => age(frame, since),
        };
        let round_trip = self.state.stats.round_trip.max(waited);
        refs.reach = if len > 0 { reach } else { reach_after(round_trip, 0) };
        let (slots, floor, model) = (self.state.slots, self.state.floor, self.state.acked_model);
        refs.model = match (self.schema.policy, refs.base()) {
            (ModelPolicy::PerFrame, None) => NO_FRAME,
            (ModelPolicy::PerFrame, Some(_)) if slots.find(model).is_none() => NO_FRAME,
            (ModelPolicy::PerFrame, Some(_)) => self.state.book.in_use(frame, model),
            (_, base) => self.state.book.in_use(base.unwrap_or(frame), model),
        };
        self.assign_handles(world, frame, &refs);
        self.queue_keys(world, buf.len());
        self.state.book.reserve((frame, refs.distance()), |f| {
            slots.find(f).is_some()
                && !super::acks::before_restart(floor, f)
                && (model == NO_FRAME || age(f, model) as i32 >= 0)
        });

        // First with nothing held if everything seems to fit, then with "held" flags, then
        // holding everything.
        let mark = probe.mark();
        let mut attempt = |this: &mut Self, mode| {
            probe.rewind(mark);
            this.write(world, buf, probe, &refs, mode)
        };
        let (written, held_all) = match attempt(self, Attempt::Plain) {
            Err(Error::BufferFull) if refs.base().is_some() => {
                match attempt(self, Attempt::MayHold) {
                    Err(Error::BufferFull) => (attempt(self, Attempt::HoldAll)?, true),
                    other => (other?, false),
                }
            }
            other => (other?, false),
        };
        // A packet without baseline carries more header and check value: one that carries no
        // entity still starts the stream, and packets with a baseline may then carry them; and
        // as models learn, headers and flags get cheaper. Only a budget short packet after
        // packet is refused.
        match written.shortfall.filter(|_| refs.base().is_some()) {
            Some(needed) if self.state.short_packets >= SHORT_PACKETS => {
                return Err(Error::BudgetTooSmall { budget: buf.len(), needed });
            }
            Some(_) => self.state.short_packets += 1,
            None => self.state.short_packets = 0,
        }
        let hash = datagram_hash(self.state.session, buf.get(..written.len).unwrap_or(&[]));
        self.commit(&refs, written, held_all, hash);
        Ok(written.len)
    }

    /// Codes one attempt at the packet for `refs` into `buf`; fails with
    /// [`Error::BufferFull`] if it does not fit.
    fn write<P: Probe>(
        &mut self,
        world: &World<'_>,
        buf: &mut [u8],
        probe: &mut P,
        refs: &Refs,
        mode: Attempt,
    ) -> Result<Written> {
        let spare = self.state.slots.spare();
        let base = refs.base().and_then(|b| self.state.slots.find(b));
        let referable = self.referable(refs.frame, refs.reach);
        let (models, saved) = self.state.book.start_encode(
            self.schema,
            (self.store.models, self.store.scratch.models),
            self.store.stored,
            refs.model,
        );

        let mut history = [0usize; MAX_SAMPLES];
        let mut history_max_lag = [0u8; MAX_SAMPLES];
        let mut history_lags = [LagView::NONE; MAX_SAMPLES];
        let views = history.iter_mut().zip(&mut history_max_lag).zip(&mut history_lags);
        for (((slot, lag), view), &t) in views.zip(&refs.history).take(refs.len) {
            *slot = self.state.slots.find(t).unwrap_or(spare);
            *lag = self.state.slots.max_lag(*slot);
            *view = LagView::of(self.store.chains, *slot, t, refs.frame);
        }
        // The new frame's sends start empty, whatever an earlier attempt left.
        let now = lags::bit(refs.frame);
        self.store.sends.iter_mut().for_each(|s| *s &= !now);
        self.state.ring = refs.frame;
        let read = &history[..refs.len];
        let handles = self.state.handles as usize;
        let (w, g, d) = (words(handles), self.schema.max_groups, self.schema.max_tolerant);
        let young = &mut self.store.young[spare * w..(spare + 1) * w];
        young.fill(0);
        let (presence, history_presence) = split(self.store.presence, w, spare, read);
        let (diffs, history_diffs) = split(self.store.diffs, handles * d, spare, read);
        let l = self.schema.max_links;
        let (links, history_links) = split(self.store.links, handles * l, spare, read);
        presence.fill(0);
        let (selected, rest) = self.store.scratch.marks.split_at_mut(w);
        let (sent, core) = rest.split_at_mut(w);
        // A packet without baseline ends with the longer check value: the budget keeps room.
        let room = buf.len().saturating_sub(((packet::check_bits(refs) - CHECK_BITS) / 8) as usize);
        let budget = Budget::new(room, [selected, sent, core], self.store.cost, self.state.scale);
        let mut side = EncoderSide {
            world,
            refs,
            schema: self.schema,
            handles: self.state.handles,
            stride: self.schema.max_fields,
            groups: g,
            tolerant: d,
            classes: world.frame_classes(refs.frame),
            rows: world.frame_rows(refs.frame),
            history_rows: core::array::from_fn(|j| world.frame_rows(refs.history[j])),
            presence,
            history_presence,
            sends: self.store.sends,
            now,
            history_lags,
            history_max_lag,
            history_held: history_max_lag.iter().any(|&l| l > 0),
            max_lag: 0,
            diffs,
            history_diffs,
            links,
            base_links: history_links[0],
            ids: self.store.ids,
            handle_entity: self.store.handle_entity,
            since: self.store.since,
            handle_own: self.store.handle_own,
            handle_essential: self.store.handle_essential,
            weights: self.store.weights,
            sent_at: self.store.sent_at,
            young,
            entries: self.store.entries,
            referable,
            order: self.store.scratch.order,
            budget: match mode {
                Attempt::Plain => budget,
                _ => budget.without_complete(),
            },
            cursor: 0,
            absent: (usize::MAX, 0),
        };

        let limit = buf.len() / RECORD_SHARE;
        let mut enc = Encoder::new(buf);
        let packet = &mut models[ModelLayout::PACKET];
        let slots = (&self.state.slots, base);
        probe.structure(
            Part::Header,
            write_header(&mut enc, packet, refs, slots, self.schema.policy)?,
        );
        let kinds = !self.store.keys.is_empty();
        let outbox = &self.state.records;
        let section = records::write_records(&mut enc, packet, outbox, (refs.frame, limit), kinds);
        probe.structure(Part::Records, section.cost);
        let check = packet::code_body(
            &mut enc,
            &mut side,
            probe,
            self.schema,
            models,
            saved,
            refs,
            (section.digest, mode == Attempt::HoldAll),
        )?;
        let (max_lag, waited, scale) =
            (side.max_lag, side.budget.waited(), side.budget.next_scale());
        let shortfall = side.budget.shortfall();
        let check_bits = packet::check_bits(refs);
        enc.direct(check, check_bits);
        probe.structure(Part::Check, check_bits << COST_FRAC_BITS);
        let check = check as u16;
        let carried = section.carried;
        Ok(Written { len: enc.finish()?, max_lag, waited, scale, check, shortfall, carried })
    }

    /// Makes the packet just written for `refs`, whose datagram hash is `hash`, the newest
    /// frame sent. A packet holding everything leaves the client with the baseline's entities:
    /// a handle given to another entity since counts as given at the next frame, so that it
    /// leaves and enters again in a packet against this one.
    fn commit(&mut self, refs: &Refs, written: Written, held_all: bool, hash: u32) {
        let frame = refs.frame;
        let spare = self.state.slots.spare();
        let w = words(self.state.handles as usize);
        if let (true, Some(base)) = (held_all, refs.base()) {
            for h in 0..self.state.handles as usize {
                let presence = &self.store.presence[spare * w..(spare + 1) * w];
                if test_bit(presence, h) && (age(base, self.store.since[h]) as i32) < 0 {
                    // Its entry and young packets stay of the frame it was given.
                    self.give_since(h, frame.wrapping_add(1));
                    put_bit(self.store.entries, h, false);
                }
            }
        }
        self.state.stats.waited += u64::from(written.waited);
        for (word, bits) in self.store.scratch.marks[w..2 * w].iter().enumerate() {
            let mut bits = *bits;
            while bits != 0 {
                let h = word * 64 + bits.trailing_zeros() as usize;
                if let Some(at) = self.store.sent_at.get_mut(h) {
                    *at = frame;
                }
                bits &= bits - 1;
            }
        }
        let sent = core::mem::take(&mut self.store.scratch.marks);
        self.note_entries(frame, &sent[w..2 * w]);
        self.store.scratch.marks = sent;
        self.state.checks[(frame % PROVEN) as usize] = (frame, written.check, hash);
        self.state.records.carried(written.carried, frame);
        let models = (&mut *self.store.models, &mut *self.store.scratch.models);
        let sent = (frame, refs.model, refs.distance());
        let stored = &mut *self.store.stored;
        self.state.book.commit(self.schema, models, stored, sent, spare, |_| true);
        let base = refs.base().and_then(|b| self.state.slots.find(b));
        let base = base.map(|p| (self.store.chains.get(p).copied().unwrap_or(1), refs.distance()));
        if let Some(chain) = self.store.chains.get_mut(spare) {
            *chain = lags::chain(base);
        }
        self.state.slots.commit(frame, written.max_lag, refs.distance(), refs.reach);
        self.state.scale = written.scale;
        self.state.acked[spare] = false;
        self.state.unresolvable &= !(1 << spare);
        self.state.named &= !(1 << spare);
        self.state.first_proof[spare] = None;
        self.state.newest_sent = frame;
        if self.state.unacked_since == NO_FRAME {
            self.state.unacked_since = frame;
        }
        self.state.stats.packets += 1;
        self.state.stats.cold_packets += u64::from(refs.len == 0);
        self.state.stats.stretched_packets += u64::from(refs.reach > 0);
        self.state.stats.beyond_reach +=
            u64::from(refs.len == 0 && self.state.stats.round_trip >= REACH);
        self.state.stats.held_packets += u64::from(held_all);
    }
}

/// Writes the header of the packet for `refs` (against the baseline in slot `base` of
/// `slots`, if any) with `packet`, the packet model it starts from, under the schema's model
/// `policy`; returns its ideal cost.
fn write_header(
    enc: &mut Encoder<'_>,
    packet: &mut Model,
    refs: &Refs,
    (slots, base): (&Slots, Option<usize>),
    policy: ModelPolicy,
) -> Result<u32> {
    let mut header = Metered::new(enc);
    header.direct(u32::from(refs.base().is_some()), 1);
    let reference = match refs.base() {
        // The baseline is named by the low bits of its name (see `BASE_ID_BITS`).
        Some(b) => {
            header.direct(base.map_or(0, |p| slots.name(p)), BASE_ID_BITS);
            b
        }
        None => {
            header.direct(refs.frame, FRAME_BITS);
            packet::code_cold_reach(&mut header, refs.reach)?;
            refs.frame
        }
    };
    let mut refs_coded = *refs;
    let before = refs.base().map(|_| base.map_or(0, |p| slots.distance(p)));
    packet::code_packet_model(&mut header, &mut refs_coded.model, policy, (reference, before))?;
    if let Some(p) = base {
        packet::code_distance(&mut header, packet, refs.distance(), slots.distance(p))?;
    }
    packet::code_history(&mut header, packet, &mut refs_coded)?;
    Ok(header.cost)
}

/// How [`Peer::write`] tries a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attempt {
    /// As the budget allows: with no "held" flags if every candidate seems to fit.
    Plain,
    /// With "held" flags, after a plain attempt did not fit.
    MayHold,
    /// Holding everything, after the others did not fit.
    HoldAll,
}

/// What [`Peer::write`] made of a packet.
#[derive(Clone, Copy, Debug)]
struct Written {
    /// Its length.
    len: usize,
    /// The largest lag of any handle it leaves the client with.
    max_lag: u8,
    /// Candidates that waited.
    waited: u32,
    /// The scale of cost estimates for the next packet.
    scale: u32,
    /// Its check value.
    check: u16,
    /// The length it needed to carry an entity, if it carries none although one was tried.
    shortfall: Option<usize>,
    /// The records it carries.
    carried: Carry,
}
