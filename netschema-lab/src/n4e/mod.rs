//! `N4E`: the snapshot encoding of Unity Netcode for Entities 1.x (`GhostSendSystem`,
//! `GhostChunkSerializer`, the `GhostSnapshotValue*` templates, `GhostDeltaPredictor` and
//! Unity.Collections' `StreamCompressionModel`), re-implemented from their description and
//! source.
//!
//! # Packet
//!
//! ```text
//! header   protocol byte (8) · tick (32) · new prefab count (packed, 0)
//!          · relevant ghost count (packed) · despawn count (16) · ghosts sent (16)
//!          · despawned ghost ids (packed, each against the previous + 1)
//! chunk    ghost type (packed) · ghost count (packed) · prespawn bit (0)
//! ghost    [first of a run of ghosts with the same baselines: ticks since each of the three
//!           baselines, 0 for none (packed ×3) · run length (packed)]
//!          · ghost id against the previous ghost's + 1 (packed)
//!          · [new for the client: spawn tick against the previous one's (packed)]
//!          · bits of what follows (packed)
//!          · change mask, 32 fields per word, each word against the newest baseline's (packed)
//!          · per changed field: bools as 1 raw bit; other fields as the prediction minus the
//!            value (packed)
//! ```
//!
//! "Packed" is Unity's `StreamCompressionModel` (`packed.rs`): a static Huffman code over 16
//! power-of-two buckets plus raw bits. A field's change bit says whether it differs from its
//! prediction: zero for a new ghost, the newest acknowledged baseline when the ghost has fewer
//! than three, else `GhostDeltaPredictor`'s extrapolation from three (`predict.rs`; bools take
//! the newest baseline).
//!
//! # Approximations
//!
//! - **Fields.** A class is one ghost type with one component; each scalar field of the schema
//!   is a `[GhostField]` already quantised by the schema, with its own change bit
//!   (`Composite = false`, the default). Bools use the bool template (one raw bit, never
//!   predicted); enums and numbers use the integer template (predicted, packed).
//! - **What is sent.** Every chunk holding a relevant ghost is sent every frame: the target
//!   snapshot size and the importance × ticks-since-sent priority are not modelled (the lab
//!   checks every frame whole), ghosts are dynamic (`GhostOptimizationMode.Dynamic`, the
//!   default, so no zero-change skipping), three baselines are used (`UseSingleBaseline` off,
//!   the default), and the history-saturation check is bypassed, as Netcode does during lag
//!   spikes.
//! - **Baselines.** A ghost's baselines are the newest three acknowledged frames among the last
//!   31 sent that carried it (the 32-entry chunk history; history follows a ghost that moves
//!   between chunk slots, `KeepSnapshotHistoryOnStructuralChange`, the default).
//! - **Chunks.** Entities live in chunks of up to 128 per class, filled first chunk first,
//!   with swap-back on removal (`ghosts.rs`).
//! - **Relevancy.** The snapshots are what the client sees: an entity entering them is a ghost
//!   new for the client (its spawn tick the frame it entered), one leaving is despawned. A
//!   ghost that becomes relevant again gets a new ghost id (Unity keeps the old one).
//! - **Despawns** ride in every packet until one of them is acknowledged; Unity caps a despawn
//!   at two packets in flight and resends once they are known lost, which would leave a ghost
//!   on the client for a round trip after a loss, and the lab checks every frame.
//! - **Header.** The clock fields (local time, return time, command age, snapshot sequence id:
//!   104 bits) are left out, as every technique here leaves out the reverse direction's acks
//!   and clocks; the prefab list is taken as loaded (count 0), and no ghost is prespawned.
//! - Bits are written most significant first (Unity writes least significant first: the same
//!   sizes); a packet is its bits rounded up to whole bytes.

mod ghosts;
mod packed;
mod predict;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};

use netschema_runtime::engine::frame::WINDOW;
use netschema_runtime::schema::{Coding, Field, Schema};

use super::bitstream::{Reader, Writer};
use super::{Ack, Decoder, Encoder, Error, Halves, Setup, Snapshot, Technique};
use ghosts::Ghosts;
use packed::Packed;
use predict::Predictor;

/// `NetworkStreamProtocol.Snapshot`, the packet's first byte.
const SNAPSHOT_MESSAGE: u32 = 1;

/// Unity Netcode for Entities' snapshots.
#[derive(Clone, Copy, Debug, Default)]
pub struct N4e;

impl Technique for N4e {
    fn name(&self) -> &'static str {
        "N4E"
    }

    fn start(&self, setup: &Setup<'_>) -> Result<Halves, Error> {
        let schema = setup.schema;
        Ok((
            Box::new(N4eEncoder {
                schema,
                packed: Packed::new(),
                ghosts: Ghosts::new(schema.classes.len()),
                sent: (0..WINDOW).map(|_| None).collect(),
                newest_sent: None,
            }),
            Box::new(N4eDecoder {
                schema,
                packed: Packed::new(),
                view: BTreeMap::new(),
                received: (0..WINDOW).map(|_| None).collect(),
                newest: None,
            }),
        ))
    }
}

/// Whether a field uses the bool template.
fn is_bool(field: &Field) -> bool {
    matches!(field.coding, Coding::Categorical) && field.min == 0 && field.max == 1
}

/// Change-mask words of a class with `fields` fields.
fn mask_words(fields: usize) -> usize {
    fields.div_ceil(32)
}

/// A ghost's state in one frame: its row and the change mask it was sent with.
#[derive(Clone, Debug)]
struct GhostFrame {
    class: u16,
    row: Vec<i32>,
    mask: Vec<u32>,
}

/// The baselines a ghost is predicted from at frame `tick`: none (new for the client), the
/// newest, or three (newest first), with their frames.
#[derive(Clone, Copy, Debug)]
enum Baselines<'a> {
    New,
    One(&'a GhostFrame),
    Three([(u32, &'a GhostFrame); 3]),
}

impl Baselines<'_> {
    /// The newest baseline's change mask word `k` (0 for a new ghost).
    fn mask(&self, k: usize) -> u32 {
        match self {
            Baselines::New => 0,
            Baselines::One(b) | Baselines::Three([(_, b), ..]) => b.mask[k],
        }
    }

    /// The predicted row of a ghost with `fields` at frame `tick`.
    fn predict(&self, fields: &[Field], tick: u32) -> Vec<i32> {
        match self {
            Baselines::New => vec![0; fields.len()],
            Baselines::One(b) => b.row.clone(),
            Baselines::Three([(f0, b0), (f1, b1), (f2, b2)]) => {
                let p = Predictor::new(tick, *f0, *f1, *f2);
                (0..fields.len())
                    .map(|i| match is_bool(&fields[i]) {
                        true => b0.row[i],
                        false => p.predict(b0.row[i], b1.row[i], b2.row[i]),
                    })
                    .collect()
            }
        }
    }
}

/// What the server sent in one frame: each ghost's row and change mask, by ghost id and
/// spawn tick (a ghost id is reused, a ghost's baselines must be its own).
#[derive(Debug)]
struct Sent {
    frame: u32,
    acked: bool,
    ghosts: HashMap<(u32, u32), GhostFrame>,
}

struct N4eEncoder {
    schema: &'static Schema,
    packed: Packed,
    ghosts: Ghosts,
    sent: Vec<Option<Sent>>,
    newest_sent: Option<u32>,
}

impl N4eEncoder {
    /// The frames of ghost `id`'s baselines at `frame`: the newest three acknowledged frames
    /// of the window that carried it, or the newest alone if there are fewer.
    fn baseline_frames(&self, frame: u32, id: (u32, u32)) -> Vec<u32> {
        let mut found = Vec::with_capacity(3);
        for back in 1..WINDOW {
            let f = frame.wrapping_sub(back);
            let slot = self.sent[(f % WINDOW) as usize].as_ref();
            if slot.is_some_and(|s| s.frame == f && s.acked && s.ghosts.contains_key(&id)) {
                found.push(f);
                if found.len() == 3 {
                    return found;
                }
            }
        }
        found.truncate(1);
        found
    }

    fn ghost_frame(&self, frame: u32, id: (u32, u32)) -> &GhostFrame {
        &self.sent[(frame % WINDOW) as usize].as_ref().expect("a baseline frame is kept").ghosts
            [&id]
    }

    fn baselines(&self, frames: &[u32], id: (u32, u32)) -> Baselines<'_> {
        match *frames {
            [] => Baselines::New,
            [f0] => Baselines::One(self.ghost_frame(f0, id)),
            [f0, f1, f2] => Baselines::Three([f0, f1, f2].map(|f| (f, self.ghost_frame(f, id)))),
            _ => unreachable!("one or three baselines"),
        }
    }
}

impl Encoder for N4eEncoder {
    fn encode(&mut self, frame: u32, s: &Snapshot, out: &mut Vec<u8>) -> Result<(), Error> {
        self.ghosts.update(frame, s);
        let p = &self.packed;
        let mut w = Writer::new();
        w.put(SNAPSHOT_MESSAGE, 8);
        w.put(frame, 32);
        p.put_uint(&mut w, 0);
        p.put_uint(&mut w, self.ghosts.len() as u32);
        let despawns = self.ghosts.despawns();
        w.put(despawns.len() as u32, 16);
        w.put(s.len() as u32, 16);
        let mut expected = 1u32;
        for &id in &despawns {
            p.put_int(&mut w, expected.wrapping_sub(id) as i32);
            expected = id.wrapping_add(1);
        }
        let mut record = HashMap::with_capacity(s.len());
        for (class, chunk) in self.ghosts.chunks() {
            let fields = self.schema.classes[usize::from(class)].fields;
            p.put_uint(&mut w, u32::from(class));
            p.put_uint(&mut w, chunk.len() as u32);
            w.bit(false);
            let ghosts: Vec<_> = chunk.iter().filter_map(|&e| self.ghosts.get(e)).collect();
            let frames: Vec<Vec<u32>> =
                ghosts.iter().map(|g| self.baseline_frames(frame, g.key())).collect();
            let (mut base_id, mut base_spawn) = (1u32, frame.wrapping_sub(1));
            for (i, g) in ghosts.iter().enumerate() {
                if i == 0 || frames[i] != frames[i - 1] {
                    let run = frames[i..].iter().take_while(|f| **f == frames[i]).count();
                    for k in 0..3 {
                        let d = frames[i].get(k).map_or(0, |&b| frame.wrapping_sub(b));
                        p.put_uint(&mut w, d);
                    }
                    p.put_uint(&mut w, run as u32);
                }
                let base = self.baselines(&frames[i], g.key());
                let row = s.row(g.row);
                let predicted = base.predict(fields, frame);
                let mut mask = vec![0u32; mask_words(fields.len())];
                let mut data = Writer::new();
                for (f, field) in fields.iter().enumerate() {
                    if row[f] == predicted[f] {
                        continue;
                    }
                    mask[f / 32] |= 1 << (f % 32);
                    match is_bool(field) {
                        true => data.bit(row[f] == 1),
                        false => p.put_int(&mut data, predicted[f].wrapping_sub(row[f])),
                    }
                }
                let mask_deltas: Vec<i32> =
                    (0..mask.len()).map(|k| base.mask(k).wrapping_sub(mask[k]) as i32).collect();
                let header: u32 = mask_deltas.iter().map(|&d| p.int_bits(d)).sum();
                let any = mask.iter().any(|&m| m != 0);
                let size = header + if any { data.len() as u32 } else { 0 };
                p.put_int(&mut w, base_id.wrapping_sub(g.id) as i32);
                base_id = g.id.wrapping_add(1);
                if matches!(base, Baselines::New) {
                    p.put_int(&mut w, base_spawn.wrapping_sub(g.spawn_tick) as i32);
                    base_spawn = g.spawn_tick;
                }
                p.put_int(&mut w, 0u32.wrapping_sub(size) as i32);
                for d in mask_deltas {
                    p.put_int(&mut w, d);
                }
                w.append(&data);
                record.insert(g.key(), GhostFrame { class, row: row.to_vec(), mask });
            }
        }
        self.sent[(frame % WINDOW) as usize] = Some(Sent { frame, acked: false, ghosts: record });
        self.newest_sent = Some(frame);
        out.clear();
        out.extend_from_slice(w.bytes());
        Ok(())
    }

    fn expected(&self, s: &Snapshot) -> Option<Snapshot> {
        let mut by_ghost: Vec<(u32, usize)> =
            (0..s.len()).filter_map(|i| Some((self.ghosts.get(s.ids[i])?.id, i))).collect();
        by_ghost.sort_unstable();
        let mut out = Snapshot::new();
        for (id, i) in by_ghost {
            out.push(id, s.classes[i], s.row(i));
        }
        Some(out)
    }

    fn receive_ack(&mut self, ack: &Ack) {
        let Some(newest) = self.newest_sent else { return };
        let mut newest_acked = None;
        for f in ack.frames(newest) {
            if let Some(sent) = self.sent[(f % WINDOW) as usize].as_mut().filter(|s| s.frame == f) {
                sent.acked = true;
                newest_acked = newest_acked.max(Some(f));
            }
        }
        if let Some(f) = newest_acked {
            self.ghosts.acknowledged(f);
        }
    }

    fn memory_bytes(&self) -> usize {
        let per_ghost = |g: &GhostFrame| 48 + 4 * (g.row.len() + g.mask.len());
        self.sent.iter().flatten().flat_map(|s| s.ghosts.values()).map(per_ghost).sum::<usize>()
            + 32 * self.ghosts.len()
    }
}

/// What the client received in one frame: every ghost the packet carried.
#[derive(Debug)]
struct Received {
    frame: u32,
    ghosts: HashMap<u32, GhostFrame>,
}

struct N4eDecoder {
    schema: &'static Schema,
    packed: Packed,
    /// The ghosts the client holds, by ghost id: type and row.
    view: BTreeMap<u32, (u16, Vec<i32>)>,
    received: Vec<Option<Received>>,
    newest: Option<u32>,
}

impl N4eDecoder {
    /// Ghost `id` as received at `ticks` frames before `tick`.
    fn baseline(&self, tick: u32, ticks: u32, id: u32) -> Result<&GhostFrame, Error> {
        let f = tick.wrapping_sub(ticks);
        (ticks < WINDOW)
            .then(|| self.received[(f % WINDOW) as usize].as_ref())
            .flatten()
            .filter(|r| r.frame == f)
            .and_then(|r| r.ghosts.get(&id))
            .ok_or_else(|| Error::Decode(format!("ghost {id} has no baseline {ticks} ticks back")))
    }

    /// Reads one ghost of type `class`, predicted from the baselines `ticks` back.
    fn read_ghost(
        &self,
        r: &mut Reader<'_>,
        tick: u32,
        class: u16,
        ticks: [u32; 3],
        id: u32,
    ) -> Result<GhostFrame, Error> {
        let p = &self.packed;
        let fields = self.schema.classes[usize::from(class)].fields;
        let base = match ticks {
            [0, ..] => Baselines::New,
            [t0, 0, 0] => Baselines::One(self.baseline(tick, t0, id)?),
            [t0, t1, t2] if t0 < t1 && t1 < t2 => {
                let b = |t| Ok::<_, Error>((tick.wrapping_sub(t), self.baseline(tick, t, id)?));
                Baselines::Three([b(t0)?, b(t1)?, b(t2)?])
            }
            _ => return Err(Error::Decode("bad baseline ticks".into())),
        };
        if let Baselines::One(b) | Baselines::Three([(_, b), ..]) = base
            && b.class != class
        {
            return Err(Error::Decode(format!("ghost {id} changed type")));
        }
        if matches!(base, Baselines::New) {
            p.get_int(r)?;
        }
        let size = 0u32.wrapping_sub(p.get_int(r)? as u32) as usize;
        let start = r.position();
        let mask: Vec<u32> = (0..mask_words(fields.len()))
            .map(|k| Ok(base.mask(k).wrapping_sub(p.get_int(r)? as u32)))
            .collect::<Result<_, Error>>()?;
        let tail = fields.len() % 32;
        if tail > 0 && mask.last().is_some_and(|m| m >> tail != 0) {
            return Err(Error::Decode("change mask names a field the type lacks".into()));
        }
        let mut row = base.predict(fields, tick);
        for (f, field) in fields.iter().enumerate() {
            if mask[f / 32] >> (f % 32) & 1 == 0 {
                continue;
            }
            row[f] = match is_bool(field) {
                true => i32::from(r.bit()?),
                false => row[f].wrapping_sub(p.get_int(r)?),
            };
        }
        for (v, field) in row.iter().zip(fields) {
            if *v < field.min || *v > field.max {
                return Err(Error::Decode(format!("value of {} out of range", field.name)));
            }
        }
        if r.position() - start != size {
            return Err(Error::Decode(format!("ghost {id} is not {size} bits long")));
        }
        Ok(GhostFrame { class, row, mask })
    }
}

impl Decoder for N4eDecoder {
    fn decode(&mut self, packet: &[u8], out: &mut Snapshot) -> Result<u32, Error> {
        let p = &self.packed;
        let mut r = Reader::new(packet);
        if r.get(8)? != SNAPSHOT_MESSAGE {
            return Err(Error::Decode("not a snapshot".into()));
        }
        let tick = r.get(32)?;
        if p.get_uint(&mut r)? != 0 {
            return Err(Error::Decode("new prefabs are not expected".into()));
        }
        p.get_uint(&mut r)?;
        let despawns = r.get(16)?;
        let total = r.get(16)? as usize;
        let mut view = self.view.clone();
        let mut expected = 1u32;
        for _ in 0..despawns {
            let id = expected.wrapping_sub(p.get_int(&mut r)? as u32);
            view.remove(&id);
            expected = id.wrapping_add(1);
        }
        let mut ghosts = HashMap::with_capacity(total);
        while ghosts.len() < total {
            let class = p.get_uint(&mut r)?;
            if class as usize >= self.schema.classes.len() {
                return Err(Error::Decode("unknown ghost type".into()));
            }
            let class = class as u16;
            let count = p.get_uint(&mut r)? as usize;
            if r.bit()? || count == 0 || ghosts.len() + count > total {
                return Err(Error::Decode("bad chunk header".into()));
            }
            let (mut base_id, mut run, mut ticks) = (1u32, 0u32, [0u32; 3]);
            for _ in 0..count {
                if run == 0 {
                    for t in &mut ticks {
                        *t = p.get_uint(&mut r)?;
                    }
                    run = p.get_uint(&mut r)?;
                    if run == 0 {
                        return Err(Error::Decode("empty baseline run".into()));
                    }
                }
                run -= 1;
                let id = base_id.wrapping_sub(p.get_int(&mut r)? as u32);
                base_id = id.wrapping_add(1);
                let ghost = self.read_ghost(&mut r, tick, class, ticks, id)?;
                view.insert(id, (class, ghost.row.clone()));
                if ghosts.insert(id, ghost).is_some() {
                    return Err(Error::Decode(format!("ghost {id} sent twice")));
                }
            }
        }
        out.clear();
        for (&id, (class, row)) in &view {
            out.push(id, *class, row);
        }
        self.view = view;
        self.received[(tick % WINDOW) as usize] = Some(Received { frame: tick, ghosts });
        self.newest = self.newest.max(Some(tick));
        Ok(tick)
    }

    fn ack(&self) -> Option<Ack> {
        let newest = self.newest?;
        Some(Ack::from_frames(newest, |f| {
            self.received[(f % WINDOW) as usize].as_ref().is_some_and(|r| r.frame == f)
        }))
    }

    fn memory_bytes(&self) -> usize {
        let per_ghost = |g: &GhostFrame| 48 + 4 * (g.row.len() + g.mask.len());
        self.received.iter().flatten().flat_map(|r| r.ghosts.values()).map(per_ghost).sum::<usize>()
            + self.view.values().map(|(_, row)| 40 + 4 * row.len()).sum::<usize>()
    }
}
