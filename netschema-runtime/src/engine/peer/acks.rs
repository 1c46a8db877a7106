//! What the client proves it holds: acks and restart requests taken in, the check values of
//! the packets they must prove, and the record of the client's view they are compared with.

use super::{NO_HANDLE, PROVEN, Peer, STRICT};
use crate::engine::ack::{Ack, AckOutcome, Proof, ViewDigest};
use crate::engine::bitset::words;
use crate::engine::frame::{NO_FRAME, WINDOW, age, from_wire};
use crate::engine::models::keeps_models;
use crate::engine::slots::SLOTS;
use crate::engine::world::World;

impl Peer<'_> {
    /// Takes an acknowledgement from the client.
    ///
    /// A restart request ([`Ack::restart`]) makes the next packet start from scratch
    /// ([`AckOutcome::Restart`]) if it proves receipt of a packet sent since the last restart;
    /// one proving an older packet is [`AckOutcome::Stale`], one proving none is refused.
    ///
    /// Otherwise its frames count as held only if it proves them: its proof must hash the check
    /// values of exactly the packets it names ([`Ack::proven`]). An ack naming frames older
    /// than this peer keeps, sent before the last restart, or from the future, is
    /// [`AckOutcome::Stale`] and ignored; one naming frames never sent or with a wrong proof
    /// is [`AckOutcome::Refused`], ignored and counted. For 64 frames after a refusal,
    /// a frame counts as held only once two acks with different proofs name it, so that
    /// guessing proofs does not pay. An ack whose view digest differs from this peer's record
    /// of the client's view restarts the stream. Duplicates and reordering are harmless.
    pub fn receive_ack(&mut self, ack: &Ack) -> AckOutcome {
        if let Some(seen) = ack.restart {
            return self.receive_restart(seen);
        }
        if self.state.newest_sent == NO_FRAME {
            return AckOutcome::Stale;
        }
        let (mut proof, mut named, mut stale, mut unsent) = (Proof::new(), 0, false, false);
        for frame in ack.frames(self.state.newest_sent) {
            named += 1;
            match self.sent_check(frame) {
                Some(check) => proof.add(frame, check),
                None if age(self.state.newest_sent, frame) >= PROVEN => stale = true,
                None => unsent = true,
            }
        }
        if named == 0 || (stale && !unsent) {
            return AckOutcome::Stale;
        }
        if unsent || proof.value() != ack.proof {
            self.state.stats.refused_acks += 1;
            self.state.strict_until = self.state.newest_sent.wrapping_add(STRICT);
            return AckOutcome::Refused;
        }
        if ack.frames(self.state.newest_sent).all(|f| self.before_floor(f)) {
            // Every frame it names was sent before the client restarted.
            return AckOutcome::Stale;
        }
        let (newest, floor) = (self.state.newest_sent, self.state.floor);
        let strict = self.state.strict_until != NO_FRAME
            && (age(newest, self.state.strict_until) as i32) < 0;
        let mut held = [false; SLOTS];
        let latest = from_wire(newest, ack.latest);
        let names = |f: u32| {
            let back = age(latest, f);
            f == latest || ((1..=WINDOW).contains(&back) && ack.bits >> (back - 1) & 1 != 0)
        };
        for frame in ack.frames(newest).filter(|&f| !before_restart(floor, f)) {
            let Some(p) = self.state.slots.find(frame) else { continue };
            self.state.named |= 1 << p;
            held[p] = !strict
                || self.state.acked[p]
                || self.state.first_proof[p].is_some_and(|first| first != ack.proof);
            if !held[p] {
                self.state.first_proof[p] = Some(ack.proof);
                continue;
            }
            if !self.state.acked[p] && !self.resolve_young(p, frame, latest, names) {
                held[p] = false;
                continue;
            }
            self.state.acked[p] = true;
            let newer = |than: u32| than == NO_FRAME || (age(frame, than) as i32) > 0;
            if newer(self.state.acked_high) {
                self.state.acked_high = frame;
            }
            // Only a frame whose models are kept may start a packet.
            let back = age(latest, frame);
            let unkept = back < 32 && ack.unkept >> back & 1 != 0;
            let keeps = keeps_models(frame, self.state.slots.distance(p)) && !unkept;
            if newer(self.state.acked_model) && keeps && self.state.book.holds(frame) {
                self.state.acked_model = frame;
            }
        }
        let slots = self.state.slots;
        let holds = |f: u32| slots.find(f).is_some_and(|p| held[p]);
        self.state.book.acked(self.store.models, newest, holds);
        self.state.records.acked(latest, holds);
        self.state.unacked_since = NO_FRAME;
        if self.state.acked_latest == NO_FRAME || (age(latest, self.state.acked_latest) as i32) > 0
        {
            self.state.acked_latest = latest;
            self.state.stats.round_trip = age(newest, latest);
        }
        if let Some(view) = ack.view.filter(|_| holds(latest)) {
            // Compared at the next packet, which has the world to read the record from.
            self.state.pending_view = Some((latest, view));
        }
        AckOutcome::Accepted
    }

    /// Takes a restart request proving receipt of the datagrams whose hashes are `seen`.
    fn receive_restart(&mut self, seen: [u32; 2]) -> AckOutcome {
        let mut outcome = AckOutcome::Refused;
        for &(frame, _, hash) in &self.state.checks {
            if frame != NO_FRAME && seen.contains(&hash) {
                if !self.before_floor(frame) {
                    outcome = AckOutcome::Restart;
                    break;
                }
                outcome = AckOutcome::Stale;
            }
        }
        match outcome {
            AckOutcome::Restart => self.restart(),
            AckOutcome::Refused => self.state.stats.refused_acks += 1,
            _ => {}
        }
        outcome
    }

    /// Starts the stream over: the client holds nothing this peer sent so far, so no frame is a
    /// baseline any more and no model built.
    pub(super) fn restart(&mut self) {
        self.state.acked = [false; SLOTS];
        self.state.unresolvable = 0;
        self.state.named = 0;
        self.state.pending_view = None;
        self.state.floor = self.state.newest_sent;
        self.state.book.restart();
        self.state.records.restart();
        self.state.stats.restarts += 1;
    }

    /// Digest of what this peer records its client holds at `frame`, as the client's
    /// [`Client::view_digest`](crate::Client::view_digest) computes it; `None` if the frame is
    /// no longer held by this peer or `world`, or a handle present there has been released or
    /// given another entity since.
    fn view_digest(&self, world: &World<'_>, frame: u32) -> Option<u32> {
        let p = self.state.slots.find(frame)?;
        let w = words(self.state.handles as usize);
        let mut digest = ViewDigest::new();
        for (word, &bits) in self.store.presence[p * w..(p + 1) * w].iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let h = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let id = self.store.handle_entity[h];
                if id == NO_HANDLE || (age(frame, self.store.since[h]) as i32) < 0 {
                    return None;
                }
                // The class comes first: the values follow it.
                let class = world.get(frame, id as usize)?.0;
                digest.entity(h as u32, class);
                self.held_entity(world, frame, p, h, id as usize, |_, v| digest.value_of(v))?;
            }
        }
        Some(digest.value())
    }

    /// Compares the view digest of the last ack that carried one with this peer's record, and
    /// restarts the stream if they differ (see [`PeerStats::view_mismatches`]).
    pub(super) fn check_view(&mut self, world: &World<'_>) {
        let Some((frame, view)) = self.state.pending_view.take() else { return };
        if self.view_digest(world, frame).is_some_and(|ours| ours != view) {
            self.state.stats.view_mismatches += 1;
            self.restart();
        }
    }

    /// The ack a client that decoded `latest` and every older frame `holds` names would send,
    /// with its proof: for simulations of a link, and tests, without a client. `None` unless
    /// this peer sent `latest` and keeps it.
    pub fn ack_of(&self, latest: u32, mut holds: impl FnMut(u32) -> bool) -> Option<Ack> {
        self.state.slots.find(latest)?;
        let check = |f: u32| self.state.slots.find(f).and_then(|_| self.sent_check(f));
        Some(Ack::proven(latest, |f| if f == latest || holds(f) { check(f) } else { None }))
    }

    /// Whether `frame` was sent before the last restart (see [`PeerState::floor`]).
    fn before_floor(&self, frame: u32) -> bool {
        before_restart(self.state.floor, frame)
    }

    /// The check value of the packet sent for `frame`, if it was sent in the last [`PROVEN`]
    /// frames.
    fn sent_check(&self, frame: u32) -> Option<u16> {
        let (sent, check, _) = self.state.checks[(frame % PROVEN) as usize];
        (sent == frame && frame != NO_FRAME).then_some(check)
    }
}

/// Whether `frame` is at or before `floor`, the newest frame sent before a restart
/// ([`NO_FRAME`]: none).
pub(super) fn before_restart(floor: u32, frame: u32) -> bool {
    floor != NO_FRAME && age(frame, floor) as i32 <= 0
}
