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

use crate::engine::frame::{NO_FRAME, REACH, age};
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

/// Under the per-frame policy, the packet for a frame keeps the models it ends with only if
/// the frame's number is a multiple of the stride its baseline distance gives (see
/// [`keeps_models`]), and a packet starts from the models of the newest acknowledged frame
/// that kept them (its *model frame*, named in its header), whatever its baseline. The stride
/// grows with the distance, which follows the round trip, so that the frames in flight that
/// keep models stay fewer than the sets each end pools: 1 up to a distance of 6 frames, 2 up
/// to 14, 4 up to 30, then 8.
pub(crate) const fn model_stride(distance: u32) -> u32 {
    match distance {
        0..=6 => 1,
        7..=14 => 2,
        15..=30 => 4,
        _ => 8,
    }
}

/// Whether the packet for `frame`, `distance` frames after its baseline (0 without), keeps
/// the models it ends with (per frame; see [`model_stride`]). A packet without baseline keeps
/// none: it is sent while acks do not come, when keeping them would only fill the pools.
pub(crate) const fn keeps_models(frame: u32, distance: u32) -> bool {
    distance > 0 && frame.is_multiple_of(model_stride(distance))
}

/// Model sets a server peer pools under the per-frame policy. The newest model frame the
/// client acknowledged can start a packet, and so can every frame sent since that keeps its
/// models ([`model_stride`] keeps them under the pool's size while the round trip is
/// steady); when they outnumber the pool they give their sets up, evenly spread, and their
/// acks are not taken as model frames (see [`Book::reserve`]): packets start from a little
/// older models, nothing else changes.
pub(crate) const SERVER_SETS: usize = 8;

/// Model sets a client pools under the per-frame policy: every model frame decoded since the
/// newest model frame a packet named can start one. The server's model frames are its
/// acknowledged ones less than a round trip old whose sets it kept, and a round trip of more
/// than about 24 frames stretches the frame slots (see
/// [`crate::engine::frame::reach_after`]), so the client's model frames seldom outnumber its
/// sets; when they do, a model frame decoded then keeps no models and its acks mark it so (see
/// [`Book::may_start`]).
pub(crate) const CLIENT_SETS: usize = 8;
const _: () = assert!(SERVER_SETS <= CLIENT_SETS, "one pool array serves both ends");

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
    /// Per frame, client: the newest model frame a packet decoded named ([`NO_FRAME`]: none
    /// since the start): no packet the server sends later starts from an older one.
    newest_model: u32,
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
            newest_model: NO_FRAME,
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

    /// The model the server's next packet for `frame` starts from: batched, the first frame
    /// of its batch; per frame, `acked`, the newest model frame acknowledged, if its models
    /// are kept and it is less than [`REACH`] frames back; [`NO_FRAME`] for cold models.
    pub(crate) fn in_use(&self, frame: u32, acked: u32) -> u32 {
        if self.pooled() {
            let near = acked != NO_FRAME && (1..REACH).contains(&age(frame, acked));
            return if near && self.holds(acked) { acked } else { NO_FRAME };
        }
        match self.kept[0] {
            // Older than a packet header names: start cold.
            m if m != NO_FRAME && age(frame, m) >= 1 << 31 => NO_FRAME,
            m => m,
        }
    }

    /// Client: whether the server may start a packet from the models of `frame`, `distance`
    /// frames after its baseline, once an ack names it (if not, the ack marks it: see
    /// [`Ack::unkept`](crate::engine::ack::Ack::unkept)): batched always; per frame if it
    /// keeps no models ([`keeps_models`]: the server takes it as a baseline, never as a
    /// model frame), if its models are kept, or if it is older than the newest model frame a
    /// packet named (no packet will start from it, and the server may still pick it as a
    /// baseline or history sample).
    pub(crate) fn may_start(&self, frame: u32, distance: u32) -> bool {
        let old = self.newest_model != NO_FRAME && (age(self.newest_model, frame) as i32) > 0;
        !keeps_models(frame, distance) || self.holds(frame) || old
    }

    /// Client, per frame: notes `model`, the model frame of the packet just decoded, and
    /// returns a pooled set free for its frame's models: empty, or holding a frame no longer
    /// `held` or older than the newest model frame named, which no later packet starts from.
    fn free_for(&mut self, model: u32, held: impl Fn(u32) -> bool) -> Option<usize> {
        if model != NO_FRAME
            && (self.newest_model == NO_FRAME || (age(model, self.newest_model) as i32) > 0)
        {
            self.newest_model = model;
        }
        let newest = self.newest_model;
        let old = |f: u32| newest != NO_FRAME && (age(newest, f) as i32) > 0;
        self.pool[..CLIENT_SETS].iter().position(|&f| f == NO_FRAME || old(f) || !held(f))
    }

    /// Server, per frame: if the next packet, for `newest`, `distance` frames after its
    /// baseline, keeps its models ([`keeps_models`]), takes a pooled set for them: one whose
    /// frame is no longer `wanted`, else the set of the frame in flight whose neighbours in
    /// the pool are nearest each other, so that the frames kept stay evenly spread over a
    /// round trip longer than the pool (the frame given up then never serves as a model
    /// frame: see [`Book::holds`]).
    pub(crate) fn reserve(&mut self, (newest, distance): (u32, u32), wanted: impl Fn(u32) -> bool) {
        if !self.pooled() || self.end != End::Server || !keeps_models(newest, distance) {
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
    /// as a model frame: always batched, per frame while a pooled set holds them (the server
    /// takes no other as a model frame, the client marks the others its acks name).
    pub(crate) fn holds(&self, frame: u32) -> bool {
        !self.pooled() || (frame != NO_FRAME && self.pool.contains(&frame))
    }

    /// Encoder: fills the set a packet is coded in, the first of `scratch` (the peer's
    /// scratch room, [`SCRATCH_SETS`] long), with the models the packet starts from, those of
    /// `model` (an [`Book::in_use`] value; cold for [`NO_FRAME`]) — under the per-frame policy
    /// those stored with that frame, batched the first set of `models` — and returns it with
    /// the saved set.
    pub(crate) fn start_encode<'m>(
        &self,
        schema: &Schema,
        (models, scratch): (&[Model], &'m mut [Model]),
        stored: &[u16],
        model: u32,
    ) -> (&'m mut [Model], &'m mut [Model]) {
        let (working, saved) = scratch.split_at_mut(self.len.min(scratch.len()));
        match self.policy {
            ModelPolicy::PerFrame => {
                self.load(schema, working, stored, self.stored_of(model));
            }
            ModelPolicy::Batched { .. } => {
                let source = (model != NO_FRAME).then(|| Self::set(models, self.len, 0));
                Self::fill(schema, source, working);
            }
        }
        (working, saved.get_mut(..self.len).unwrap_or(&mut []))
    }

    /// Decoder: fills the working set with the models the packet starts from, those of
    /// `model` (cold for [`NO_FRAME`]) — per frame those stored with that frame, batched the
    /// kept model built from the batch starting there — and returns it. A model this client
    /// does not keep is, and nothing changes, per frame [`Error::UnknownBaseline`] (only a
    /// late packet names a model frame the client no longer keeps, as a baseline), batched
    /// [`Error::UnknownModel`].
    pub(crate) fn start_decode<'m>(
        &self,
        schema: &Schema,
        models: &'m mut [Model],
        stored: &[u16],
        model: u32,
    ) -> Result<&'m mut [Model]> {
        let (persistent, working) = self.parts(models, &mut []);
        let source = match self.policy {
            _ if model == NO_FRAME => None,
            ModelPolicy::PerFrame => {
                let source = self.stored_of(model).ok_or(Error::UnknownBaseline)?;
                self.load(schema, working, stored, Some(source));
                return Ok(working);
            }
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
    /// `models`, or the first of the server's `scratch`) from the models of `model` (per
    /// frame, its model frame), `distance` frames after its baseline, and now held in frame
    /// slot `spare`: per frame, if the frame keeps its models ([`keeps_models`]), they are
    /// stored in a pooled set (the server's in the one [`Book::reserve`] took, the client's in
    /// one whose frame is no longer `held` or older than the newest model frame named, if any
    /// is); batched, its models join the accumulator of its batch, and a client that now holds
    /// every packet of the batch builds the batch's model and keeps it (replacing its oldest).
    pub(crate) fn commit(
        &mut self,
        schema: &Schema,
        (models, scratch): (&mut [Model], &mut [Model]),
        stored: &mut [u16],
        (frame, model, distance): (u32, u32, u32),
        spare: usize,
        held: impl Fn(u32) -> bool,
    ) {
        let len = self.len;
        let (body, set) = self.parts(models, scratch);
        if self.policy == ModelPolicy::PerFrame {
            let to = match self.end {
                End::Server => Some(self.reserved),
                End::Client => self.free_for(model, held),
            };
            let Some(to) = to.filter(|_| keeps_models(frame, distance)) else { return };
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
        self.newest_model = NO_FRAME;
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
    /// (the model frame) is never given up.
    #[test]
    fn a_full_pool_gives_up_the_frame_that_leaves_the_smallest_gap() {
        let mut book = Book::new(&SCHEMA, End::Server);
        for frame in 100..140 {
            // Nothing acknowledged since frame 100: every frame from it is wanted.
            book.reserve((frame, 1), |f| f >= 100);
            book.commit(&SCHEMA, (&mut [], &mut []), &mut [], (frame, NO_FRAME, 1), 0, |_| true);
        }
        let mut kept = book.pool;
        let kept = &mut kept[..SERVER_SETS];
        kept.sort_unstable();
        assert_eq!(kept[0], 100);
        assert_eq!(kept[SERVER_SETS - 1], 139);
        let mut gaps = kept.windows(2).map(|w| w[1] - w[0]);
        assert!(gaps.all(|g| (1..=8).contains(&g)), "{kept:?}");
        assert!(book.holds(100) && !book.holds(101) && book.holds(139));
    }

    /// Packets far from their baseline keep their models only on the frames of their stride,
    /// and take no pooled set on the others; a client acknowledges those freely.
    #[test]
    fn only_the_frames_of_the_stride_keep_models() {
        assert_eq!([1, 6, 7, 14, 15, 30, 31].map(model_stride), [1, 1, 2, 2, 4, 4, 8]);
        assert!(!keeps_models(8, 0) && keeps_models(8, 1) && keeps_models(8, 31));
        let mut server = Book::new(&SCHEMA, End::Server);
        let mut client = Book::new(&SCHEMA, End::Client);
        for frame in 200..210 {
            server.reserve((frame, 10), |_| true);
            let sent = (frame, NO_FRAME, 10);
            server.commit(&SCHEMA, (&mut [], &mut []), &mut [], sent, 0, |_| true);
            client.commit(&SCHEMA, (&mut [], &mut []), &mut [], sent, 0, |_| true);
        }
        for frame in 200..210 {
            let even = frame % 2 == 0;
            assert_eq!((server.holds(frame), client.holds(frame)), (even, even), "{frame}");
            assert!(client.may_start(frame, 10));
        }
    }

    /// A client keeps the models of every frame since the newest model frame a packet named;
    /// when they outnumber its sets, a frame decoded then keeps none, and acks name it only
    /// once a packet names a newer model frame.
    #[test]
    fn a_client_frees_the_sets_of_frames_older_than_the_newest_model_frame() {
        let mut book = Book::new(&SCHEMA, End::Client);
        let commit = |book: &mut Book, frame, model| {
            let sent = (frame, model, 1);
            book.commit(&SCHEMA, (&mut [], &mut []), &mut [], sent, 0, |_| true);
        };
        // Frames 0..8 from cold models, then 8 from frame 0's: the pool is full.
        let sets = CLIENT_SETS as u32;
        for frame in 0..sets {
            commit(&mut book, frame, NO_FRAME);
        }
        commit(&mut book, sets, 0);
        assert!(!book.holds(sets) && !book.may_start(sets, 1) && book.holds(0));
        // A packet from frame 5's models: frames 0 to 4 are free again.
        commit(&mut book, sets + 1, 5);
        assert!(book.holds(sets + 1) && !book.holds(0) && book.holds(5));
        assert!(book.may_start(0, 1) && book.may_start(4, 1) && !book.may_start(sets, 1));
    }
}
