//! Where each packet's models start from and where what it learned goes, under the schema's
//! [`ModelPolicy`]: one record, [`Book`], for the peer and the client alike.
//!
//! A peer's or client's model storage is a run of whole model sets, each [`ModelLayout::len`]
//! models long, and under the per-frame policy a run of stored sets (see [`stored`]):
//! - per frame: on the client the set a packet is decoded in; stored, a pool on each end
//!   ([`SERVER_SETS`], [`CLIENT_SETS`]), one for each frame that may still become a baseline
//!   (on the server the newest acknowledged and those sent since, on the client the newest
//!   baseline a packet named and those decoded since);
//! - batched: the kept models (the server's one in use; the client's `kept` newest), the
//!   accumulators (the server's for every batch an ack may still prove whole; the client's for
//!   the batch it is decoding), and on the client the set a packet is decoded in.
//!
//! The server codes a packet in scratch room it keeps nothing in between packets
//! ([`SCRATCH_SETS`]: the set a packet is coded in and one where the packer saves models it
//! may have to restore), which the peers of one server can share.

use crate::engine::frame::{NO_FRAME, age};
use crate::engine::peer::digest;
use crate::engine::slots::SLOTS;
use crate::model::policy::{MAX_KEPT, ModelPolicy};
use crate::model::stored;
use crate::model::{Model, ModelLayout};
use crate::schema::Schema;
use crate::{Error, Result};

/// The end a [`Book`] serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// The server's peer of one client: codes with its newest model, builds on acks.
    Server,
    /// The client: builds a model from every batch it decodes whole.
    Client,
}

/// Most accumulators of either end.
const MAX_ACC: usize = ModelPolicy::accumulators(1);

/// Model sets a server peer pools under the per-frame policy. The newest frame the client
/// acknowledged can be a baseline, and so can every frame sent since, so with one set for the
/// packet being coded a round trip of up to `SERVER_SETS - 1` frames keeps the models of every
/// frame in flight; beyond that the frames in flight give their sets up, evenly spread, and
/// their acks are not taken as baselines (see [`Book::reserve`]): baselines get a little
/// older, nothing else changes.
pub(crate) const SERVER_SETS: usize = 16;

/// Model sets a client pools under the per-frame policy: every frame decoded since the newest
/// baseline a packet named can become one. The server's baselines are its acknowledged frames
/// less than a round trip old whose sets it kept, and a round trip of more than about 24
/// frames stretches the frame slots (see [`crate::engine::frame::reach_after`]), which then
/// keep one frame in two, so the client's frames seldom outnumber its sets; when they do, a
/// frame decoded then keeps no models and its acks do not name it (see [`Book::holds`]).
pub(crate) const CLIENT_SETS: usize = 24;

/// Whole model sets of a server peer's scratch room: the set a packet is coded in, then the
/// set the packer saves models in (see [`Book::start_encode`]).
pub(crate) const SCRATCH_SETS: usize = 2;

/// What an end records about its model sets besides the sets themselves.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Book {
    policy: ModelPolicy,
    end: End,
    /// Models per set.
    len: usize,
    /// Words per stored set.
    words: usize,
    /// Batched: the first frame of the batch each kept set was built from ([`NO_FRAME`]: the
    /// set is empty). The server keeps one, the model it codes with.
    kept: [u32; MAX_KEPT as usize],
    /// Batched, client: the kept set the next model built replaces.
    next: usize,
    /// Batched: the first frame of the batch each accumulator gathers and the packets it
    /// holds.
    acc: [(u32, u8); MAX_ACC],
    /// Batched: the digest of the models each frame slot's packet ended with.
    digests: [u64; SLOTS],
    /// Per frame: the frame whose models each pooled set holds ([`NO_FRAME`]: none).
    pool: [u32; CLIENT_SETS],
    /// Per frame, server: the pooled set the next packet is coded in.
    reserved: usize,
    /// Per frame, client: the newest baseline a packet decoded named ([`NO_FRAME`]: none
    /// since the start): no packet the server sends later is coded against an older one.
    newest_base: u32,
}

impl Book {
    /// The record of a fresh end of `schema`: every kept set empty (cold models).
    pub(crate) fn new(schema: &Schema, end: End) -> Book {
        Book {
            policy: schema.policy,
            end,
            len: ModelLayout::new(schema).len,
            words: stored::words(schema),
            kept: [NO_FRAME; MAX_KEPT as usize],
            next: 0,
            acc: [(NO_FRAME, 0); MAX_ACC],
            digests: [0; SLOTS],
            pool: [NO_FRAME; CLIENT_SETS],
            reserved: 0,
            newest_base: NO_FRAME,
        }
    }

    /// Kept sets and accumulators of `end` under `policy` (both 0 per frame).
    fn counts(policy: ModelPolicy, end: End) -> (usize, usize) {
        match (policy, end) {
            (ModelPolicy::PerFrame, _) => (0, 0),
            (ModelPolicy::Batched { batch, .. }, End::Server) => {
                (1, ModelPolicy::accumulators(batch))
            }
            (ModelPolicy::Batched { kept, .. }, End::Client) => (usize::from(kept), 1),
        }
    }

    /// Whole model sets the storage of `end` holds for `schema` (the server's scratch room
    /// aside, see [`SCRATCH_SETS`]).
    pub(crate) fn sets(schema: &Schema, end: End) -> usize {
        let (kept, acc) = Self::counts(schema.policy, end);
        kept + acc + usize::from(end == End::Client)
    }

    /// Words of stored sets the storage of `end` holds for `schema` (none batched).
    pub(crate) fn stored(schema: &Schema, end: End) -> usize {
        let sets = match (schema.policy, end) {
            (ModelPolicy::Batched { .. }, _) => 0,
            (ModelPolicy::PerFrame, End::Server) => SERVER_SETS,
            (ModelPolicy::PerFrame, End::Client) => CLIENT_SETS,
        };
        sets.saturating_mul(stored::words(schema))
    }

    /// Stored set `i`.
    fn stored_set<'s>(&self, stored: &'s [u16], i: usize) -> Option<&'s [u16]> {
        stored.get(i * self.words..(i + 1) * self.words)
    }

    fn set(models: &[Model], len: usize, i: usize) -> &[Model] {
        models.get(i * len..(i + 1) * len).unwrap_or(&[])
    }

    /// Whether this end pools its sets (per frame, both do).
    fn pooled(&self) -> bool {
        self.policy == ModelPolicy::PerFrame
    }

    /// The sets of `models` kept between packets, and the set a packet is coded in: on the
    /// client the set after them, on the server the first of its `scratch` room.
    fn parts<'m>(
        &self,
        models: &'m mut [Model],
        scratch: &'m mut [Model],
    ) -> (&'m mut [Model], &'m mut [Model]) {
        let (kept, acc) = Self::counts(self.policy, self.end);
        let (persistent, rest) = models.split_at_mut(((kept + acc) * self.len).min(models.len()));
        let working = match self.end {
            End::Client => rest,
            End::Server => scratch,
        };
        (persistent, working.get_mut(..self.len).unwrap_or(&mut []))
    }

    /// The pooled set holding the models the packet for `frame` ended with, while kept (per
    /// frame).
    fn stored_of(&self, frame: u32) -> Option<usize> {
        match self.policy {
            ModelPolicy::Batched { .. } => None,
            ModelPolicy::PerFrame => self.pool.iter().position(|&f| f == frame && f != NO_FRAME),
        }
    }

    /// Fills `working` from stored set `source`, or cold without one.
    fn load(&self, schema: &Schema, working: &mut [Model], stored: &[u16], source: Option<usize>) {
        match source.and_then(|s| self.stored_set(stored, s)) {
            Some(words) => stored::load(schema, words, working),
            None => ModelLayout::reset(schema, working),
        }
    }

    /// The model the server's next packet for `frame` starts from: the first frame of its
    /// batch, or [`NO_FRAME`] for cold models (always per frame).
    pub(crate) fn in_use(&self, frame: u32) -> u32 {
        match self.kept[0] {
            // Older than a packet header names: start cold.
            m if m != NO_FRAME && age(frame, m) >= 1 << 31 => NO_FRAME,
            m => m,
        }
    }

    /// Client: whether an ack may name `frame`: batched always; per frame if its models are
    /// kept, or if it is older than the newest baseline a packet named (no packet will be
    /// coded against it, and the server may still pick it as a history sample).
    pub(crate) fn ackable(&self, frame: u32) -> bool {
        let old = self.newest_base != NO_FRAME && (age(self.newest_base, frame) as i32) > 0;
        self.holds(frame) || old
    }

    /// Client, per frame: notes `base`, the baseline of the packet just decoded, and returns a
    /// pooled set free for its frame's models: empty, or holding a frame no longer `held` or
    /// older than the newest baseline named, which no later packet is coded against.
    fn free_for(&mut self, base: Option<u32>, held: impl Fn(u32) -> bool) -> Option<usize> {
        if let Some(b) = base
            && (self.newest_base == NO_FRAME || (age(b, self.newest_base) as i32) > 0)
        {
            self.newest_base = b;
        }
        let newest_base = self.newest_base;
        let old = |f: u32| newest_base != NO_FRAME && (age(newest_base, f) as i32) > 0;
        self.pool.iter().position(|&f| f == NO_FRAME || old(f) || !held(f))
    }

    /// Server, per frame: takes a pooled set for the next packet, for `newest`, to be coded
    /// in: one whose frame is no longer `wanted`, else the set of the frame in flight whose
    /// neighbours in the pool are nearest each other, so that the frames kept stay evenly
    /// spread over a round trip longer than the pool (the frame given up then never serves as
    /// a baseline: see [`Book::holds`]).
    pub(crate) fn reserve(&mut self, newest: u32, wanted: impl Fn(u32) -> bool) {
        if !self.pooled() || self.end != End::Server {
            return;
        }
        let free = self.pool[..SERVER_SETS].iter().position(|&f| f == NO_FRAME || !wanted(f));
        self.reserved = free.unwrap_or_else(|| self.thinnest(newest));
        self.pool[self.reserved] = NO_FRAME;
    }

    /// The pooled set whose frame leaves the smallest gap when given up: between the next
    /// older pooled frame and the next newer (or `newest`). The oldest is never given up.
    fn thinnest(&self, newest: u32) -> usize {
        let ages = &self.pool.map(|f| age(newest, f))[..SERVER_SETS];
        let gap = |s: usize| {
            let older = ages.iter().copied().filter(|&a| a > ages[s]).min()?;
            let newer = ages.iter().copied().filter(|&a| a < ages[s]).max().unwrap_or(0);
            Some(older - newer)
        };
        (0..SERVER_SETS).filter_map(|s| Some((gap(s)?, s))).min().map_or(0, |(_, s)| s)
    }

    /// Whether the models the packet for `frame` ended with are kept, so that it may serve
    /// as a baseline: always batched, per frame while a pooled set holds them (the server
    /// takes no other as a baseline, the client acknowledges no other).
    pub(crate) fn holds(&self, frame: u32) -> bool {
        !self.pooled() || (frame != NO_FRAME && self.pool.contains(&frame))
    }

    /// Encoder: fills the set a packet is coded in, the first of `scratch` (the peer's
    /// scratch room, [`SCRATCH_SETS`] long), with the models the packet starts from — under
    /// the per-frame policy those stored with the baseline `base` (cold without), batched
    /// those of `model` (an [`Book::in_use`] value, the first set of `models`) — and returns
    /// it with the saved set.
    pub(crate) fn start_encode<'m>(
        &self,
        schema: &Schema,
        (models, scratch): (&[Model], &'m mut [Model]),
        stored: &[u16],
        base: Option<u32>,
        model: u32,
    ) -> (&'m mut [Model], &'m mut [Model]) {
        let (working, saved) = scratch.split_at_mut(self.len.min(scratch.len()));
        match self.policy {
            ModelPolicy::PerFrame => {
                self.load(schema, working, stored, base.and_then(|b| self.stored_of(b)));
            }
            ModelPolicy::Batched { .. } => {
                let source = (model != NO_FRAME).then(|| Self::set(models, self.len, 0));
                Self::fill(schema, source, working);
            }
        }
        (working, saved.get_mut(..self.len).unwrap_or(&mut []))
    }

    /// Decoder: fills the working set with the models the packet starts from — per frame
    /// those stored with the baseline `base` (cold without), batched the kept model built
    /// from the batch starting at `model` (cold for [`NO_FRAME`]) — and returns it. A
    /// baseline whose models this client did not keep is [`Error::UnknownBaseline`], a model
    /// it does not keep [`Error::UnknownModel`], and nothing changes.
    pub(crate) fn start_decode<'m>(
        &self,
        schema: &Schema,
        models: &'m mut [Model],
        stored: &[u16],
        base: Option<u32>,
        model: u32,
    ) -> Result<&'m mut [Model]> {
        let (persistent, working) = self.parts(models, &mut []);
        let source = match self.policy {
            ModelPolicy::PerFrame => {
                let source = match base {
                    Some(b) => Some(self.stored_of(b).ok_or(Error::UnknownBaseline)?),
                    None => None,
                };
                self.load(schema, working, stored, source);
                return Ok(working);
            }
            ModelPolicy::Batched { .. } if model == NO_FRAME => None,
            ModelPolicy::Batched { kept, .. } => Some(
                self.kept[..usize::from(kept)]
                    .iter()
                    .position(|&k| k == model)
                    .ok_or(Error::UnknownModel)?,
            ),
        };
        Self::fill(schema, source.map(|k| Self::set(persistent, self.len, k)), working);
        Ok(working)
    }

    /// Copies set `source` into set `to`, or resets `to` to cold models without a source.
    fn fill(schema: &Schema, source: Option<&[Model]>, to: &mut [Model]) {
        match source {
            Some(from) if from.len() == to.len() => to.copy_from_slice(from),
            Some(_) => {}
            None => ModelLayout::reset(schema, to),
        }
    }

    /// Records the packet for `frame`, coded in the working set (see [`Book::parts`]: of
    /// `models`, or the first of the server's `scratch`) against baseline `base` and now held
    /// in frame slot `spare`: per frame, its models are stored in a pooled set
    /// (the server's in the one [`Book::reserve`] took, the client's in one whose frame is no
    /// longer `held` or older than the newest baseline named, if any is); batched, its models
    /// join the accumulator of its batch, and a client that now holds every packet of the
    /// batch builds the batch's model and keeps it (replacing its oldest).
    pub(crate) fn commit(
        &mut self,
        schema: &Schema,
        (models, scratch): (&mut [Model], &mut [Model]),
        stored: &mut [u16],
        (frame, base): (u32, Option<u32>),
        spare: usize,
        held: impl Fn(u32) -> bool,
    ) {
        let len = self.len;
        let (body, set) = self.parts(models, scratch);
        if self.policy == ModelPolicy::PerFrame {
            let to = match self.end {
                End::Server => Some(self.reserved),
                End::Client => self.free_for(base, held),
            };
            let Some(to) = to else { return };
            if let Some(out) = stored.get_mut(to * self.words..(to + 1) * self.words) {
                stored::store(schema, set, out);
            }
            self.pool[to] = frame;
            return;
        }
        let ModelPolicy::Batched { batch, kept } = self.policy else { return };
        let (kept_sets, accs) = Self::counts(self.policy, self.end);
        let start = ModelPolicy::batch_start(batch, frame);
        let a = (start / u32::from(batch.max(1))) as usize % accs;
        self.digests[spare % SLOTS] = digest(set);
        let entry = &mut self.acc[a];
        if entry.0 != start {
            *entry = (start, 0);
        }
        entry.1 = entry.1.saturating_add(1);
        let count = u32::from(entry.1);
        let acc = &mut body[(kept_sets + a) * len..(kept_sets + a + 1) * len];
        ModelLayout::mean_in(schema, acc, set, count);
        if self.end == End::Client && count == u32::from(batch) {
            let k = self.next % usize::from(kept);
            body.copy_within((kept_sets + a) * len..(kept_sets + a + 1) * len, k * len);
            self.kept[k] = start;
            self.next = (k + 1) % usize::from(kept);
            self.acc[a] = (NO_FRAME, 0);
        }
    }

    /// Server: the client proved it holds every frame for which `holds` is true (`newest` is
    /// the newest frame sent). Batched, the newest batch it holds whole, if newer than the
    /// model in use, becomes the model in use: the client built it when it decoded the batch's
    /// last packet.
    pub(crate) fn acked(&mut self, models: &mut [Model], newest: u32, holds: impl Fn(u32) -> bool) {
        let ModelPolicy::Batched { batch, .. } = self.policy else { return };
        let current = self.kept[0];
        let whole = |&(s, n): &(u32, u8)| {
            n == batch
                && s != NO_FRAME
                && (current == NO_FRAME || (age(s, current) as i32) > 0)
                && (0..u32::from(batch)).all(|i| holds(s.wrapping_add(i)))
        };
        let newest_whole = (0..MAX_ACC)
            .filter(|&a| whole(&self.acc[a]))
            .min_by_key(|&a| age(newest, self.acc[a].0));
        let Some(a) = newest_whole else { return };
        let len = self.len;
        models.copy_within((1 + a) * len..(2 + a) * len, 0);
        self.kept[0] = self.acc[a].0;
        self.acc[a] = (NO_FRAME, 0);
    }

    /// Forgets every model built and every accumulator: cold models from the next packet.
    pub(crate) fn restart(&mut self) {
        self.pool = [NO_FRAME; CLIENT_SETS];
        self.newest_base = NO_FRAME;
        self.kept = [NO_FRAME; MAX_KEPT as usize];
        self.acc = [(NO_FRAME, 0); MAX_ACC];
        self.next = 0;
    }

    /// Digest of the models the packet for `frame`, held in frame slot `p`, ended with, if
    /// they are kept: per frame of their stored form.
    pub(crate) fn digest(&self, stored: &[u16], p: usize, frame: u32) -> Option<u64> {
        match self.policy {
            ModelPolicy::PerFrame => {
                Some(stored::digest(self.stored_set(stored, self.stored_of(frame)?)?))
            }
            ModelPolicy::Batched { .. } => self.digests.get(p).copied(),
        }
    }

    /// Batched: digest of the kept model built from the batch starting at `start`, if kept.
    pub(crate) fn kept_digest(&self, models: &[Model], start: u32) -> Option<u64> {
        let (kept, _) = Self::counts(self.policy, self.end);
        let k = self.kept[..kept].iter().position(|&s| s == start && s != NO_FRAME)?;
        Some(digest(Self::set(models, self.len, k)))
    }

    /// Batched, server: the first frame of the batch the model in use was built from.
    pub(crate) fn current(&self) -> Option<u32> {
        (self.kept[0] != NO_FRAME && self.policy != ModelPolicy::PerFrame).then_some(self.kept[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Schema;

    const SCHEMA: Schema = Schema::new("pool", &[]);

    /// A round trip longer than the pool: the frames kept stay spread over it, and the oldest
    /// (the baseline) is never given up.
    #[test]
    fn a_full_pool_gives_up_the_frame_that_leaves_the_smallest_gap() {
        let mut book = Book::new(&SCHEMA, End::Server);
        for frame in 100..140 {
            // Nothing acknowledged since frame 100: every frame from it is wanted.
            book.reserve(frame, |f| f >= 100);
            book.commit(&SCHEMA, (&mut [], &mut []), &mut [], (frame, None), 0, |_| true);
        }
        let mut kept = book.pool;
        let kept = &mut kept[..SERVER_SETS];
        kept.sort_unstable();
        assert_eq!(kept[0], 100);
        assert_eq!(kept[SERVER_SETS - 1], 139);
        let mut gaps = kept.windows(2).map(|w| w[1] - w[0]);
        assert!(gaps.all(|g| (1..=4).contains(&g)), "{kept:?}");
        assert!(book.holds(100) && !book.holds(101) && book.holds(139));
    }

    /// A client keeps the models of every frame since the newest baseline a packet named;
    /// when they outnumber its sets, a frame decoded then keeps none, and acks name it only
    /// once a packet names a newer baseline.
    #[test]
    fn a_client_frees_the_sets_of_frames_older_than_the_newest_baseline() {
        let mut book = Book::new(&SCHEMA, End::Client);
        let commit = |book: &mut Book, frame, base| {
            book.commit(&SCHEMA, (&mut [], &mut []), &mut [], (frame, base), 0, |_| true);
        };
        // Frames 0..24 against no baseline, then 24 against baseline 0: the pool is full.
        for frame in 0..CLIENT_SETS as u32 {
            commit(&mut book, frame, None);
        }
        commit(&mut book, 24, Some(0));
        assert!(!book.holds(24) && !book.ackable(24) && book.holds(0));
        // A packet against baseline 5: frames 0 to 4 are free again.
        commit(&mut book, 25, Some(5));
        assert!(book.holds(25) && !book.holds(0) && book.holds(5));
        assert!(book.ackable(0) && book.ackable(4) && !book.ackable(24));
    }
}
