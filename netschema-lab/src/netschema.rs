//! `netschema`: the real engine — a runtime [`World`], one [`Peer`] and one [`Client`].
//!
//! Snapshot ids are mapped onto world ids `0..capacity`; an id that leaves frees its world id
//! one frame later, so the world sees a new entity when the id is reused. The client knows
//! entities by handle, so [`Encoder::expected`] relabels each snapshot with the handles the
//! peer gave, and the decoder reports the client's view by handle.
//!
//! The world update ([`Encoder::capture`]) is work a server does once per frame for all its
//! clients, so it is timed apart from the per-client [`Encoder::encode`] (the peer's packet).
//!
//! With a byte budget ([`Netschema::budget`]: the packet buffer is that long), tolerances or
//! update groups, the client may hold other values than the input's: [`Encoder::held`] then
//! gives what the peer records the client holds ([`Peer::client_view`], by handle), with each
//! entity's [`Peer::staleness`] and the input's values, and the client is checked against that
//! record.
//!
//! Timelines travel as keyframe records, not in the state stream: the frames are checked with
//! their timeline fields empty, and the timelines the client holds against those the server's
//! held, and for keyframes planned far enough ahead, in time (see `crate::timelines`).
//!
//! [`ProbedNetschema`] sends the same packets and also reports every field value's cost to a
//! shared [`FieldCosts`] (the per-field table of `netschema profile`).
//!
//! The engine borrows caller-owned storage; this adapter allocates it once per connection with
//! the runtime's `owned` buffers and leaks it (a few megabytes per run) so that the borrowing
//! structures can live in a boxed encoder and decoder.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use netschema_runtime::engine::client::ClientStorage;
use netschema_runtime::engine::peer::PeerStorage;
use netschema_runtime::model::{ModelLayout, ModelPolicy};
use netschema_runtime::owned::{ClientBuffers, PeerBuffers, WorldBuffers};
use netschema_runtime::schema::Schema;
use netschema_runtime::{Client, Peer, World};

use super::events::RecordLog;
use super::profile::FieldCosts;
use super::timelines::{KeyLog, state_row};
use super::{
    Ack, Decoder, Encoder, Error, Event, Halves, Held, RecordStats, Setup, Snapshot, Technique,
};

/// The netschema engine with its default policy.
#[derive(Clone, Copy, Debug, Default)]
pub struct Netschema {
    /// Byte budget of every packet (see [`Peer::encode`]); `None`: room for everything.
    pub budget: Option<usize>,
    /// The schema to code with instead of [`Setup::schema`]: the same layout with other
    /// tolerances ([`descriptors::with_tolerances`](super::descriptors::with_tolerances)).
    /// The technique is then called `netschema-tol`.
    pub tolerant: Option<&'static Schema>,
    /// The schema to code with instead of [`Setup::schema`]: the same layout with a predictive
    /// contract ([`descriptors::with_contract`](super::descriptors::with_contract)). The
    /// technique is then called `netschema-contract`.
    pub contracted: Option<&'static Schema>,
    /// The model policy to code with instead of the schema's, if any.
    pub policy: Option<ModelPolicy>,
    /// The prior every connection starts from (`netschema train`'s output for the schema with
    /// this policy), if any: see [`Schema::with_prior`].
    pub prior: Option<&'static [u8]>,
}

/// Handles for `capacity` visible entities, with a little slack: a handle released is given
/// again in the same frame only to an entity of a higher id.
pub(crate) fn handles_for(capacity: usize) -> usize {
    capacity + capacity / 16 + 8
}

/// The netschema engine with its default policy, reporting the cost of every field value it
/// codes to the shared sums (frames after their warm-up). Its packets are the engine's.
#[derive(Clone, Debug)]
pub struct ProbedNetschema {
    /// The engine and its options.
    pub engine: Netschema,
    /// Where the costs go.
    pub costs: Rc<RefCell<FieldCosts>>,
}

impl Technique for Netschema {
    fn name(&self) -> &'static str {
        match (self.tolerant, self.contracted) {
            (Some(_), _) => "netschema-tol",
            (None, Some(_)) => "netschema-contract",
            (None, None) => "netschema",
        }
    }

    fn start(&self, setup: &Setup<'_>) -> Result<Halves, Error> {
        self.start_with(setup, None)
    }

    fn carries_references(&self) -> bool {
        true
    }
}

impl Technique for ProbedNetschema {
    fn name(&self) -> &'static str {
        self.engine.name()
    }

    fn start(&self, setup: &Setup<'_>) -> Result<Halves, Error> {
        self.engine.start_with(setup, Some(Rc::clone(&self.costs)))
    }

    fn carries_references(&self) -> bool {
        true
    }
}

/// Whether a client of `schema` may hold other values than the world's without a budget:
/// tolerances, or update groups sent less often than every frame.
fn holds_inexactly(schema: &Schema) -> bool {
    schema.max_tolerant > 0
        || schema.classes.iter().any(|c| c.groups.iter().any(|g| g.interval > 1))
}

impl Netschema {
    /// The encoder and decoder, reporting field costs to `costs` if given.
    fn start_with(
        &self,
        setup: &Setup<'_>,
        costs: Option<Rc<RefCell<FieldCosts>>>,
    ) -> Result<Halves, Error> {
        start(self.schema_for(setup.schema)?, setup.capacity, self.budget, costs, setup.events)
    }

    /// The schema this technique codes with for a scenario of `schema`: its tolerant or
    /// contracted one if any, with its policy and prior. Fails if the prior was not trained
    /// for that schema.
    pub fn schema_for(&self, schema: &'static Schema) -> Result<&'static Schema, Error> {
        let mut schema = *self.tolerant.or(self.contracted).unwrap_or(schema);
        if let Some(policy) = self.policy.filter(|&p| p != schema.policy) {
            schema = schema.with_policy(policy);
        }
        if let Some(prior) = self.prior {
            schema = schema.with_prior(prior);
            schema.validate().map_err(|_| {
                Error::Encode("the prior was trained for another schema or policy".into())
            })?;
        }
        Ok(Box::leak(Box::new(schema)))
    }
}

/// The encoder and decoder of `schema` for `capacity` visible entities, with packets of at
/// most `budget` bytes, sending `events` in its record stream.
fn start(
    schema: &'static Schema,
    capacity: usize,
    budget: Option<usize>,
    costs: Option<Rc<RefCell<FieldCosts>>>,
    events: &[Vec<Event>],
) -> Result<Halves, Error> {
    let (mut encoder, decoder) = engine(schema, capacity, budget, costs)?;
    encoder.events = events.to_vec();
    Ok((Box::new(encoder), Box::new(decoder)))
}

/// A prior for `schema` (see [`Schema::with_prior`]) learned from `snapshots`, a recording of
/// the game: they are replayed through the engine over a lossless link, every packet
/// acknowledged, and the models the last packet ended with are written as the prior
/// ([`ModelLayout::write_prior`]). What `netschema train` writes.
pub fn train(schema: &'static Schema, snapshots: &[Snapshot]) -> Result<Vec<u8>, Error> {
    let capacity = snapshots.iter().map(Snapshot::len).max().unwrap_or(0).max(1);
    let (mut encoder, mut decoder) = engine(schema, capacity, None, None)?;
    let (mut packet, mut decoded) = (Vec::new(), Snapshot::new());
    for (frame, snapshot) in (0u32..).zip(snapshots) {
        encoder.capture(frame, snapshot)?;
        encoder.encode(frame, snapshot, &mut packet)?;
        decoder.decode(&packet, &mut decoded)?;
        if let Some(ack) = decoder.ack() {
            encoder.receive_ack(&ack);
        }
    }
    let learned = encoder.peer.learned().ok_or_else(|| Error::Encode("no frames".into()))?;
    let mut prior = vec![0; ModelLayout::prior_len(schema)];
    ModelLayout::write_prior(schema, learned, &mut prior)
        .ok_or_else(|| Error::Encode("the learned models do not fit the schema".into()))?;
    Ok(prior)
}

/// [`start`]'s halves, as their types.
fn engine(
    schema: &'static Schema,
    capacity: usize,
    budget: Option<usize>,
    costs: Option<Rc<RefCell<FieldCosts>>>,
) -> Result<(EngineEncoder, EngineDecoder), Error> {
    let handles = handles_for(capacity);
    let ids = handles;
    let world = Box::leak(Box::new(WorldBuffers::new(schema, ids))).world(schema, ids)?;
    let peer =
        Box::leak(Box::new(PeerBuffers::new(schema, handles, ids))).peer(schema, handles, ids)?;
    let client =
        Box::leak(Box::new(ClientBuffers::new(schema, handles))).client(schema, handles)?;
    let max_row = schema.max_fields;
    let log = Rc::new(RefCell::new(RecordLog::default()));
    let keys = KeyLog::wanted(schema).then(|| Rc::new(RefCell::new(KeyLog::default())));
    Ok((
        EngineEncoder {
            schema,
            handles,
            ids,
            world,
            peer,
            ids_map: Capture::new(ids),
            buf: vec![0; budget.unwrap_or(4096 + handles * (8 + 6 * max_row))],
            frame: 0,
            holds: budget.is_some() || holds_inexactly(schema),
            costs,
            events: Vec::new(),
            log: Rc::clone(&log),
            keys: keys.clone(),
        },
        EngineDecoder { schema, handles, client, log, keys },
    ))
}

struct EngineEncoder {
    schema: &'static Schema,
    handles: usize,
    ids: usize,
    world: World<'static>,
    peer: Peer<'static>,
    /// Where each snapshot id lives in the world.
    ids_map: Capture,
    /// The packet buffer: its length is the byte budget.
    buf: Vec<u8>,
    /// The frame last encoded.
    frame: u32,
    /// Whether the client may hold other values than the input's (see [`Encoder::held`]).
    holds: bool,
    /// Where field costs go, if they are measured.
    costs: Option<Rc<RefCell<FieldCosts>>>,
    /// The events of each frame, by snapshot id.
    events: Vec<Vec<Event>>,
    /// The records queued, shared with the decoder.
    log: Rc<RefCell<RecordLog>>,
    /// What the server's timelines held, shared with the decoder (a schema with timelines).
    keys: Option<Rc<RefCell<KeyLog>>>,
}

impl Encoder for EngineEncoder {
    /// Updates the world archive (shared by every client of a real server).
    fn capture(&mut self, frame: u32, s: &Snapshot) -> Result<(), Error> {
        let peer = &mut self.peer;
        self.ids_map
            .frame(&mut self.world, frame, s, |slot, visible| peer.set_visible(slot, visible))
    }

    fn encode(&mut self, frame: u32, s: &Snapshot, out: &mut Vec<u8>) -> Result<(), Error> {
        self.frame = frame;
        if let Some(events) = self.events.get(frame as usize).filter(|e| !e.is_empty()) {
            let handle = |id: u32| self.ids_map.slot(id).and_then(|s| self.peer.handle_of(s));
            let by_handle: Vec<Event> = events
                .iter()
                .map(|e| Event {
                    targets: e.targets.iter().map(|t| t.and_then(handle)).collect(),
                    ..e.clone()
                })
                .collect();
            self.log.borrow_mut().queue(self.schema, &mut self.peer, frame, &by_handle)?;
        }
        let written = match &self.costs {
            Some(costs) => {
                let mut costs = costs
                    .try_borrow_mut()
                    .map_err(|_| Error::Encode("field costs are in use".into()))?;
                costs.begin_frame(frame);
                self.peer.encode_probed(&self.world, &mut self.buf, &mut *costs)
            }
            None => self.peer.encode(&self.world, &mut self.buf),
        };
        let len = written.map_err(|e| Error::Encode(e.to_string()))?;
        if let Some(keys) = &self.keys {
            let mut keys = keys.borrow_mut();
            for (h, _, i) in self.by_handle(s) {
                let Some((_, birth)) = self.peer.handle_entity(h) else { continue };
                let class = &self.schema.classes[usize::from(s.classes[i])];
                keys.server(h, frame, (birth, class), s.row(i));
            }
        }
        out.clear();
        out.extend_from_slice(&self.buf[..len]);
        Ok(())
    }

    /// The snapshot by handle, each reference naming its target's handle (none if the
    /// target has no handle).
    fn expected(&self, s: &Snapshot) -> Option<Snapshot> {
        let by_handle = self.by_handle(s);
        let mut handles = vec![None; s.len()];
        for &(h, _, i) in &by_handle {
            handles[i] = Some(h);
        }
        let mut out = Snapshot::new();
        let mut targets = Vec::new();
        for (h, _, i) in by_handle {
            targets.clear();
            targets.extend(
                s.links(i)
                    .iter()
                    .map(|t| t.and_then(|t| s.ids.binary_search(&t).ok()).and_then(|j| handles[j])),
            );
            let class = &self.schema.classes[usize::from(s.classes[i])];
            out.push_linked(h, s.classes[i], &state_row(class, s.row(i)), &targets);
        }
        Some(out)
    }

    /// What the peer records the client holds of the frame just encoded, when that may differ
    /// from the input.
    fn held(&self, s: &Snapshot) -> Option<Held> {
        if !self.holds {
            return None;
        }
        let mut held = Held::default();
        let (mut row, mut links) = (vec![0; self.schema.max_fields], Vec::new());
        for (h, slot, i) in self.by_handle(s) {
            let Some(class) = self.peer.client_view(&self.world, self.frame, slot, &mut row) else {
                continue; // Waiting to enter.
            };
            let Some(staleness) = self.peer.staleness(self.frame, slot) else { continue };
            let c = &self.schema.classes[class];
            links.clear();
            links.extend((0..c.links.len()).map(|r| self.peer.client_link(self.frame, slot, r)));
            held.view.push_linked(h, class as u16, &row[..c.fields.len()], &links);
            held.staleness.push(staleness);
            held.truth.extend_from_slice(s.row(i));
        }
        Some(held)
    }

    fn young(&self) -> Vec<(u32, u32)> {
        self.peer.young_entities(self.frame).collect()
    }

    fn receive_ack(&mut self, ack: &Ack) {
        self.peer.receive_ack(ack);
    }

    /// The record stream's counts, when the run has events.
    fn records(&self) -> Option<RecordStats> {
        if self.events.is_empty() {
            return None;
        }
        let mut stats = self.log.borrow().stats.clone();
        let peer = self.peer.record_stats();
        (stats.sends, stats.bytes) = (peer.sent, peer.bytes);
        Some(stats)
    }

    fn memory_bytes(&self) -> usize {
        PeerStorage::sizes(self.schema, self.handles, self.ids).bytes()
    }
}

impl EngineEncoder {
    /// The entities of `s` the client has a handle for, as (handle, world id, index in `s`),
    /// in handle order.
    fn by_handle(&self, s: &Snapshot) -> Vec<(u32, usize, usize)> {
        let mut out: Vec<(u32, usize, usize)> = (0..s.len())
            .filter_map(|i| {
                let slot = self.ids_map.slot(s.ids[i])?;
                Some((self.peer.handle_of(slot)?, slot, i))
            })
            .collect();
        out.sort_unstable();
        out
    }
}

struct EngineDecoder {
    schema: &'static Schema,
    handles: usize,
    client: Client<'static>,
    /// The records the encoder queued.
    log: Rc<RefCell<RecordLog>>,
    /// What the server's timelines held (a schema with timelines).
    keys: Option<Rc<RefCell<KeyLog>>>,
}

impl Decoder for EngineDecoder {
    /// The frame decoded, timeline fields empty; the timelines are checked against what the
    /// server's held ([`KeyLog::client`]).
    fn decode(&mut self, packet: &[u8], out: &mut Snapshot) -> Result<u32, Error> {
        let frame = self.client.decode(packet)?;
        self.log.borrow_mut().apply(&self.client, frame);
        out.clear();
        let mut targets = Vec::new();
        for (h, class, row) in self.client.frame_view() {
            targets.clear();
            let c = &self.schema.classes[class];
            targets.extend((0..c.links.len()).map(|r| self.client.link(h, r)));
            match &self.keys {
                Some(keys) => {
                    let born = self.client.sample(h).map_or(0, |s| s.born);
                    keys.borrow_mut().client(h, frame, (born, c), row).map_err(Error::Decode)?;
                    out.push_linked(h, class as u16, &state_row(c, row), &targets);
                }
                None => out.push_linked(h, class as u16, row, &targets),
            }
        }
        Ok(frame)
    }

    fn shown(&self, out: &mut Snapshot, ages: &mut Vec<u32>) -> bool {
        out.clear();
        ages.clear();
        for (h, class, row) in self.client.view() {
            out.push(h, class as u16, row);
            ages.push(self.client.age(h).unwrap_or(0));
        }
        true
    }

    fn ack(&self) -> Option<Ack> {
        self.client.ack()
    }

    fn memory_bytes(&self) -> usize {
        ClientStorage::sizes(self.schema, self.handles).bytes()
    }
}

/// Snapshot ids mapped onto world ids `0..ids`: an id that leaves frees its world id one frame
/// later, so the world sees a new entity when the id is reused.
pub(crate) struct Capture {
    ids: usize,
    /// World id of each snapshot id present.
    slots: HashMap<u32, usize>,
    /// World ids free for new entities.
    free: Vec<usize>,
    /// World ids released this frame, free from the next one.
    pending: Vec<usize>,
    /// Snapshot ids of the previous frame.
    previous: Vec<u32>,
}

impl Capture {
    /// No snapshot id placed yet, world ids `0..ids` free.
    pub(crate) fn new(ids: usize) -> Self {
        Capture {
            ids,
            slots: HashMap::new(),
            free: (0..ids).rev().collect(),
            pending: Vec::new(),
            previous: Vec::new(),
        }
    }

    /// The world id of snapshot id `id`, if present.
    pub(crate) fn slot(&self, id: u32) -> Option<usize> {
        self.slots.get(&id).copied()
    }

    /// Starts `frame` in `world` and writes snapshot `s` into it (values and references):
    /// entities that left are removed, and `visible(world id, entered)` is told of every
    /// entity that enters or leaves.
    pub(crate) fn frame(
        &mut self,
        world: &mut World<'_>,
        frame: u32,
        s: &Snapshot,
        mut visible: impl FnMut(usize, bool) -> Result<(), netschema_runtime::Error>,
    ) -> Result<(), Error> {
        let world_frame = world.begin_frame();
        if world_frame != frame {
            return Err(Error::Encode(format!(
                "frame {frame} out of order (engine at {world_frame})"
            )));
        }
        self.free.append(&mut self.pending);
        // Entities that left.
        let mut j = 0;
        for &old in &self.previous {
            while j < s.ids.len() && s.ids[j] < old {
                j += 1;
            }
            if (j >= s.ids.len() || s.ids[j] != old)
                && let Some(slot) = self.slots.remove(&old)
            {
                world.remove(slot);
                visible(slot, false)?;
                self.pending.push(slot);
            }
        }
        for i in 0..s.len() {
            let id = s.ids[i];
            let slot = match self.slots.get(&id) {
                Some(&slot) => slot,
                None => {
                    let slot = self.free.pop().ok_or_else(|| {
                        Error::Unsupported(format!("more than {} entities", self.ids))
                    })?;
                    self.slots.insert(id, slot);
                    visible(slot, true)?;
                    slot
                }
            };
            world.set(slot, usize::from(s.classes[i]), s.row(i))?;
        }
        // References, once every entity they may name is in place.
        for i in 0..s.len() {
            let slot = self.slots[&s.ids[i]];
            for (r, target) in s.links(i).iter().enumerate() {
                let target = target.and_then(|t| self.slots.get(&t).copied());
                world.set_link(slot, r, target)?;
            }
        }
        self.previous.clone_from(&s.ids);
        Ok(())
    }
}
