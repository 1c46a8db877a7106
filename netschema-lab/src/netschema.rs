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
use netschema_runtime::owned::{ClientBuffers, PeerBuffers, WorldBuffers};
use netschema_runtime::schema::Schema;
use netschema_runtime::{Client, Peer, World};

use super::profile::FieldCosts;
use super::{Ack, Decoder, Encoder, Error, Halves, Setup, Snapshot, Technique};

/// The netschema engine with its default policy.
#[derive(Clone, Copy, Debug, Default)]
pub struct Netschema;

/// Handles for `capacity` visible entities: released handles wait for an ack before reuse.
fn handles_for(capacity: usize) -> usize {
    capacity + capacity / 2 + 64
}

/// The netschema engine with its default policy, reporting the cost of every field value it
/// codes to the shared sums (frames after their warm-up). Its packets are [`Netschema`]'s.
#[derive(Clone, Debug)]
pub struct ProbedNetschema(pub Rc<RefCell<FieldCosts>>);

impl Technique for Netschema {
    fn name(&self) -> &'static str {
        "netschema"
    }

    fn start(&self, setup: &Setup<'_>) -> Result<Halves, Error> {
        start(setup, None)
    }
}

impl Technique for ProbedNetschema {
    fn name(&self) -> &'static str {
        "netschema"
    }

    fn start(&self, setup: &Setup<'_>) -> Result<Halves, Error> {
        start(setup, Some(Rc::clone(&self.0)))
    }
}

/// The encoder and decoder of both techniques.
fn start(setup: &Setup<'_>, costs: Option<Rc<RefCell<FieldCosts>>>) -> Result<Halves, Error> {
    let schema = setup.schema;
    let handles = handles_for(setup.capacity);
    let ids = handles;
    let world = Box::leak(Box::new(WorldBuffers::new(schema, ids))).world(schema, ids)?;
    let peer =
        Box::leak(Box::new(PeerBuffers::new(schema, handles, ids))).peer(schema, handles, ids)?;
    let client =
        Box::leak(Box::new(ClientBuffers::new(schema, handles))).client(schema, handles)?;
    let max_row = schema.max_fields;
    Ok((
        Box::new(EngineEncoder {
            schema,
            handles,
            ids,
            world,
            peer,
            slots: HashMap::new(),
            free: (0..ids).rev().collect(),
            pending: Vec::new(),
            previous: Vec::new(),
            buf: vec![0; 4096 + handles * (8 + 6 * max_row)],
            costs,
        }),
        Box::new(EngineDecoder { schema, handles, client }),
    ))
}

struct EngineEncoder {
    schema: &'static Schema,
    handles: usize,
    ids: usize,
    world: World<'static>,
    peer: Peer<'static>,
    /// World id of each snapshot id present.
    slots: HashMap<u32, usize>,
    /// World ids free for new entities.
    free: Vec<usize>,
    /// World ids released this frame, free from the next one.
    pending: Vec<usize>,
    /// Snapshot ids of the previous frame.
    previous: Vec<u32>,
    buf: Vec<u8>,
    /// Where field costs go, if they are measured.
    costs: Option<Rc<RefCell<FieldCosts>>>,
}

impl Encoder for EngineEncoder {
    /// Updates the world archive (shared by every client of a real server).
    fn capture(&mut self, frame: u32, s: &Snapshot) -> Result<(), Error> {
        let world_frame = self.world.begin_frame();
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
                self.world.remove(slot);
                self.peer.set_visible(slot, false);
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
                    self.peer.set_visible(slot, true);
                    slot
                }
            };
            self.world.set(slot, usize::from(s.classes[i]), s.row(i))?;
        }
        self.previous.clone_from(&s.ids);
        Ok(())
    }

    fn encode(&mut self, frame: u32, _s: &Snapshot, out: &mut Vec<u8>) -> Result<(), Error> {
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
        out.clear();
        out.extend_from_slice(&self.buf[..len]);
        Ok(())
    }

    fn expected(&self, s: &Snapshot) -> Option<Snapshot> {
        let mut by_handle: Vec<(u32, usize)> = (0..s.len())
            .filter_map(|i| {
                let slot = *self.slots.get(&s.ids[i])?;
                Some((self.peer.handle_of(slot)?, i))
            })
            .collect();
        by_handle.sort_unstable();
        let mut out = Snapshot::new();
        for (h, i) in by_handle {
            out.push(h, s.classes[i], s.row(i));
        }
        Some(out)
    }

    fn receive_ack(&mut self, ack: &Ack) {
        self.peer.receive_ack(ack);
    }

    fn memory_bytes(&self) -> usize {
        PeerStorage::sizes(self.schema, self.handles, self.ids).bytes()
    }
}

struct EngineDecoder {
    schema: &'static Schema,
    handles: usize,
    client: Client<'static>,
}

impl Decoder for EngineDecoder {
    fn decode(&mut self, packet: &[u8], out: &mut Snapshot) -> Result<u32, Error> {
        let frame = self.client.decode(packet)?;
        out.clear();
        for (h, class, row) in self.client.view() {
            out.push(h, class as u16, row);
        }
        Ok(frame)
    }

    fn ack(&self) -> Option<Ack> {
        self.client.ack()
    }

    fn memory_bytes(&self) -> usize {
        ClientStorage::sizes(self.schema, self.handles).bytes()
    }
}
