//! `naia` and `naia-zd`: the packets of naia 0.25 (`WorldWriter`, `EntityUpdateManager`,
//! `UserDiffHandler`, the `Replicate` derive and naia's bit-level serde), re-implemented from
//! their description and source; `naia-zd` adds naia's optional zstd compression with a
//! trained dictionary (`dictionary.rs`).
//!
//! # Packet
//!
//! ```text
//! header    data packet (1) · packet index (16) · server tick (16)
//! messages  none (1)
//! updates   per entity with changed fields: 1 · entity · its component: 1 · kind
//!           · per field: changed (1) · [changed:] its value · 0 (end of components)
//!           then 0
//! commands  per spawn or despawn not yet acknowledged, by message index: 1 · index (the
//!           first: 16 bits; then the difference as UnsignedVariableInteger<3>) · type (4)
//!           · spawn: entity · component count (8) · kind · every field's value
//!           · despawn: entity
//!           then 0
//! ```
//!
//! An entity is host (1) · not static (0) · its host id as `UnsignedVariableInteger<7>`
//! (`keys.rs`); a kind takes the bits that number the classes (none for one class); a value is
//! its offset from the field's minimum as `UnsignedInteger<bits of the range>`, least
//! significant bit first. The packet is its bits rounded up to bytes; `naia-zd` then
//! compresses it.
//!
//! # Approximations
//!
//! - **Fields.** A class is one component, each scalar field of the schema a `Property` of an
//!   `UnsignedInteger` of the field's quantised range: one diff-mask bit per field.
//! - **Dirty masks under loss.** naia ORs a lost packet's masks back once it is presumed lost
//!   (1.5 round trips without an ack), so until then the client holds stale fields; the lab
//!   checks every frame, so here a packet's masks are OR'd back at once (a timeout of zero):
//!   each field changed since the newest acknowledged packet is sent again, and spawns and
//!   despawns (naia's reliable entity commands) ride in every packet until one carrying them
//!   is acknowledged. Updates for an entity wait until its spawn is acknowledged, as in naia.
//! - **What is sent.** No bandwidth budget or priority (the lab checks every frame whole) and
//!   no MTU (naia fragments messages but not updates; packets here may exceed 430 bytes).
//! - **Header.** The ack index and ack bitfield of the client's packets and the tick instant
//!   (a clock) are left out, as every technique here leaves out the reverse direction's acks
//!   and clocks.
//! - **`naia-zd`'s dictionary** is trained on this technique's packets over
//!   [`Setup::training`](super::Setup::training), another run of the same game, replayed over
//!   a lossless link that acknowledges each packet six frames later, with all its packets as
//!   samples (naia's trainer takes a set number); without training (or if zstd cannot train
//!   on so little), packets are compressed without a dictionary
//!   (`CompressionMode::Default(3)`).
//! - An entity leaving the client's view is despawned; on coming back it is spawned again with
//!   a new host id. Host ids rest 60 seconds at 60 Hz before reuse.

mod dictionary;
mod keys;
#[cfg(test)]
mod tests;
mod wire;

use std::collections::{BTreeMap, HashMap};

use netschema_runtime::quant::bits_for_range;
use netschema_runtime::schema::{Field, Schema};

use super::bitstream::{Reader, Writer};
use super::{Ack, Decoder, Encoder, Error, Halves, Setup, Snapshot, Technique, training};
use dictionary::{Packer, Unpacker};
use keys::Keys;

/// `EntityMessageType::SpawnWithComponents`.
const SPAWN: u32 = 1;
/// `EntityMessageType::Despawn`.
const DESPAWN: u32 = 2;

/// naia's packets, optionally compressed with a trained zstd dictionary.
#[derive(Clone, Copy, Debug, Default)]
pub struct Naia {
    /// Whether packets are zstd-compressed with a dictionary trained offline (`naia-zd`).
    pub compressed: bool,
}

impl Technique for Naia {
    fn name(&self) -> &'static str {
        if self.compressed { "naia-zd" } else { "naia" }
    }

    fn start(&self, setup: &Setup<'_>) -> Result<Halves, Error> {
        let schema = setup.schema;
        let (packer, unpacker) = if self.compressed {
            let mut packets = Vec::new();
            let mut trainer = NaiaEncoder::new(schema, None);
            training::replay(setup.training, &mut trainer, |p| packets.push(p.to_vec()))?;
            let dict = dictionary::train(&packets).unwrap_or_default();
            (Some(Packer::new(&dict)?), Some(Unpacker::new(&dict)?))
        } else {
            (None, None)
        };
        Ok((
            Box::new(NaiaEncoder::new(schema, packer)),
            Box::new(NaiaDecoder { schema, unpacker, entities: BTreeMap::new(), newest: None }),
        ))
    }
}

/// Bits of a field's value.
fn width(field: &Field) -> u32 {
    bits_for_range(field.min, field.max)
}

/// Bits of a component kind for `schema`'s classes (naia's `bit_width_for_kind_count`).
fn kind_bits(schema: &Schema) -> u32 {
    let n = schema.classes.len() as u32;
    if n < 2 { 0 } else { n.next_power_of_two().trailing_zeros() }
}

/// Writes the value of `field` (its offset from the minimum).
fn put_value(w: &mut Writer, field: &Field, v: i32) {
    wire::put(w, v.wrapping_sub(field.min) as u32, width(field));
}

/// Reads what [`put_value`] wrote, checking the range.
fn get_value(r: &mut Reader<'_>, field: &Field) -> Result<i32, Error> {
    let v = i64::from(field.min) + i64::from(wire::get(r, width(field))?);
    if v > i64::from(field.max) {
        return Err(Error::Decode(format!("value of {} out of range", field.name)));
    }
    Ok(v as i32)
}

/// An entity the server replicates to the client.
#[derive(Debug)]
struct Entity {
    host: u16,
    class: u16,
    row: Vec<i32>,
    /// The frame each field last changed.
    changed: Vec<u32>,
    /// While its spawn is not acknowledged: the spawn's message index and the first frame
    /// that carried it.
    spawning: Option<(u16, u32)>,
}

/// An entity command, with the host id it is about.
#[derive(Clone, Copy, Debug)]
enum Command {
    Spawn(u16),
    Despawn(u16),
}

struct NaiaEncoder {
    schema: &'static Schema,
    packer: Option<Packer>,
    keys: Keys,
    entities: HashMap<u32, Entity>,
    /// Despawns not acknowledged: message index, host id, first frame carrying it.
    despawns: Vec<(u16, u16, u32)>,
    next_message: u16,
    newest_sent: Option<u32>,
    newest_acked: Option<u32>,
}

impl NaiaEncoder {
    fn new(schema: &'static Schema, packer: Option<Packer>) -> Self {
        NaiaEncoder {
            schema,
            packer,
            keys: Keys::default(),
            entities: HashMap::new(),
            despawns: Vec::new(),
            next_message: 0,
            newest_sent: None,
            newest_acked: None,
        }
    }

    fn message_index(&mut self) -> u16 {
        self.next_message = self.next_message.wrapping_add(1);
        self.next_message.wrapping_sub(1)
    }

    /// Brings the replicated entities in line with `s` at `frame`.
    fn update(&mut self, frame: u32, s: &Snapshot) -> Result<(), Error> {
        let mut gone: Vec<u32> = self
            .entities
            .iter()
            .filter(|(id, e)| s.ids.binary_search(id).map_or(true, |i| s.classes[i] != e.class))
            .map(|(&id, _)| id)
            .collect();
        gone.sort_unstable();
        for id in gone {
            if let Some(e) = self.entities.remove(&id) {
                let index = self.message_index();
                self.despawns.push((index, e.host, frame));
                self.keys.recycle(e.host, frame);
            }
        }
        for i in 0..s.len() {
            let row = s.row(i);
            match self.entities.get_mut(&s.ids[i]) {
                Some(e) => {
                    for (f, (old, &new)) in e.row.iter_mut().zip(row).enumerate() {
                        if *old != new {
                            *old = new;
                            e.changed[f] = frame;
                        }
                    }
                }
                None => {
                    let host = self
                        .keys
                        .generate(frame)
                        .ok_or_else(|| Error::Unsupported("host entity ids exhausted".into()))?;
                    let index = self.message_index();
                    let entity = Entity {
                        host,
                        class: s.classes[i],
                        row: row.to_vec(),
                        changed: vec![frame; row.len()],
                        spawning: Some((index, frame)),
                    };
                    self.entities.insert(s.ids[i], entity);
                }
            }
        }
        Ok(())
    }

    /// Whether a packet sent at `frame` or later has been acknowledged.
    fn delivered(&self, frame: u32) -> bool {
        self.newest_acked.is_some_and(|a| (a.wrapping_sub(frame) as i32) >= 0)
    }
}

impl Encoder for NaiaEncoder {
    fn encode(&mut self, frame: u32, s: &Snapshot, out: &mut Vec<u8>) -> Result<(), Error> {
        self.update(frame, s)?;
        let schema = self.schema;
        let mut w = Writer::new();
        w.bit(true);
        wire::put(&mut w, frame & 0xffff, 16);
        wire::put(&mut w, frame & 0xffff, 16);
        w.bit(false);
        let mut by_host: Vec<&Entity> = self.entities.values().collect();
        by_host.sort_unstable_by_key(|e| e.host);
        for e in by_host.iter().filter(|e| e.spawning.is_none()) {
            let dirty = |f: usize| !self.delivered(e.changed[f]);
            if !(0..e.row.len()).any(dirty) {
                continue;
            }
            w.bit(true);
            wire::put_entity(&mut w, e.host);
            w.bit(true);
            wire::put(&mut w, u32::from(e.class), kind_bits(schema));
            for (f, field) in schema.classes[usize::from(e.class)].fields.iter().enumerate() {
                w.bit(dirty(f));
                if dirty(f) {
                    put_value(&mut w, field, e.row[f]);
                }
            }
            w.bit(false);
        }
        w.bit(false);
        let mut commands: Vec<(u16, Command)> = by_host
            .iter()
            .filter_map(|e| e.spawning.map(|(index, _)| (index, Command::Spawn(e.host))))
            .chain(self.despawns.iter().map(|&(index, host, _)| (index, Command::Despawn(host))))
            .collect();
        commands.sort_unstable_by_key(|&(index, _)| index.wrapping_sub(self.next_message));
        let spawned: HashMap<u16, &Entity> = by_host.iter().map(|e| (e.host, *e)).collect();
        let mut previous = None;
        for (index, command) in commands {
            w.bit(true);
            match previous {
                None => wire::put(&mut w, u32::from(index), 16),
                Some(p) => wire::put_var(&mut w, u32::from(index.wrapping_sub(p)), 3),
            }
            previous = Some(index);
            match command {
                Command::Spawn(host) => {
                    let e = spawned[&host];
                    wire::put(&mut w, SPAWN, 4);
                    wire::put_entity(&mut w, e.host);
                    wire::put(&mut w, 1, 8);
                    wire::put(&mut w, u32::from(e.class), kind_bits(schema));
                    for (field, &v) in
                        schema.classes[usize::from(e.class)].fields.iter().zip(&e.row)
                    {
                        put_value(&mut w, field, v);
                    }
                }
                Command::Despawn(host) => {
                    wire::put(&mut w, DESPAWN, 4);
                    wire::put_entity(&mut w, host);
                }
            }
        }
        w.bit(false);
        out.clear();
        match &mut self.packer {
            Some(packer) => packer.pack(w.bytes(), out)?,
            None => out.extend_from_slice(w.bytes()),
        }
        self.newest_sent = Some(frame);
        Ok(())
    }

    fn expected(&self, s: &Snapshot) -> Option<Snapshot> {
        let mut by_host: Vec<(u16, usize)> =
            (0..s.len()).filter_map(|i| Some((self.entities.get(&s.ids[i])?.host, i))).collect();
        by_host.sort_unstable();
        let mut out = Snapshot::new();
        for (host, i) in by_host {
            out.push(u32::from(host), s.classes[i], s.row(i));
        }
        Some(out)
    }

    fn receive_ack(&mut self, ack: &Ack) {
        let Some(newest) = self.newest_sent else { return };
        if let Some(latest) = ack.frames(newest).next() {
            self.newest_acked = self.newest_acked.max(Some(latest));
        }
        let acked = self.newest_acked;
        let delivered = |since: u32| acked.is_some_and(|a| (a.wrapping_sub(since) as i32) >= 0);
        for e in self.entities.values_mut() {
            if e.spawning.is_some_and(|(_, since)| delivered(since)) {
                e.spawning = None;
            }
        }
        self.despawns.retain(|&(_, _, since)| !delivered(since));
    }

    fn memory_bytes(&self) -> usize {
        self.entities.values().map(|e| 48 + 8 * e.row.len()).sum::<usize>()
            + self.despawns.len() * 8
    }
}

struct NaiaDecoder {
    schema: &'static Schema,
    unpacker: Option<Unpacker>,
    /// The entities the client holds, by host id: class and row.
    entities: BTreeMap<u16, (u16, Vec<i32>)>,
    newest: Option<u32>,
}

impl NaiaDecoder {
    /// Reads a component kind.
    fn kind(&self, r: &mut Reader<'_>) -> Result<u16, Error> {
        let kind = wire::get(r, kind_bits(self.schema))? as usize;
        if kind >= self.schema.classes.len() {
            return Err(Error::Decode("unknown component kind".into()));
        }
        Ok(kind as u16)
    }
}

impl Decoder for NaiaDecoder {
    fn decode(&mut self, packet: &[u8], out: &mut Snapshot) -> Result<u32, Error> {
        let payload = match &mut self.unpacker {
            Some(unpacker) => unpacker.unpack(packet)?,
            None => packet.to_vec(),
        };
        let schema = self.schema;
        let mut r = Reader::new(&payload);
        if !r.bit()? {
            return Err(Error::Decode("not a data packet".into()));
        }
        let index = wire::get(&mut r, 16)? as u16;
        wire::get(&mut r, 16)?;
        let frame = self
            .newest
            .map_or(u32::from(index), |n| netschema_runtime::engine::frame::from_wire(n, index));
        if r.bit()? {
            return Err(Error::Decode("messages are not expected".into()));
        }
        let mut entities = self.entities.clone();
        while r.bit()? {
            let host = wire::get_entity(&mut r)?;
            let (class, row) = entities
                .get_mut(&host)
                .ok_or_else(|| Error::Decode(format!("update for unknown entity {host}")))?;
            while r.bit()? {
                if self.kind(&mut r)? != *class {
                    return Err(Error::Decode("update of another component".into()));
                }
                for (f, field) in schema.classes[usize::from(*class)].fields.iter().enumerate() {
                    if r.bit()? {
                        row[f] = get_value(&mut r, field)?;
                    }
                }
            }
        }
        let mut previous: Option<u16> = None;
        while r.bit()? {
            let index = match previous {
                None => wire::get(&mut r, 16)? as u16,
                Some(p) => p.wrapping_add(wire::get_var(&mut r, 3)? as u16),
            };
            previous = Some(index);
            match wire::get(&mut r, 4)? {
                SPAWN => {
                    let host = wire::get_entity(&mut r)?;
                    if wire::get(&mut r, 8)? != 1 {
                        return Err(Error::Decode("one component per entity expected".into()));
                    }
                    let class = self.kind(&mut r)?;
                    let row = schema.classes[usize::from(class)]
                        .fields
                        .iter()
                        .map(|field| get_value(&mut r, field))
                        .collect::<Result<Vec<i32>, Error>>()?;
                    entities.insert(host, (class, row));
                }
                DESPAWN => {
                    entities.remove(&wire::get_entity(&mut r)?);
                }
                _ => return Err(Error::Decode("unexpected entity command".into())),
            }
        }
        out.clear();
        for (&host, (class, row)) in &entities {
            out.push(u32::from(host), *class, row);
        }
        self.entities = entities;
        self.newest = self.newest.max(Some(frame));
        Ok(frame)
    }

    fn ack(&self) -> Option<Ack> {
        // naia acks every packet it receives; with in-order delivery the newest is enough
        // for the server's bookkeeping here.
        self.newest.map(|n| Ack::from_frames(n, |_| false))
    }

    fn memory_bytes(&self) -> usize {
        self.entities.values().map(|(_, row)| 40 + 4 * row.len()).sum()
    }
}
