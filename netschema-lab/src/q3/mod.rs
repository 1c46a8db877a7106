//! `Q3`: Quake III Arena's snapshots (`SV_WriteSnapshotToClient`, `SV_EmitPacketEntities`,
//! `MSG_WriteDeltaEntity` and the Huffman-coded message bits of `msg.c`), re-implemented from
//! their description and source.
//!
//! # Packet
//!
//! ```text
//! netchan  sequence = frame (32 raw bits, little endian)
//! message  svc_snapshot (8) · frames back to the delta frame, 0 for none (8)
//!          · snapshot flags (8, 0) · area mask bytes (8, 0)
//!          · entities in slot order, each delta-coded against the delta frame's state of its
//!            slot, or against its slot's baseline if it is new there:
//!              number (10) · removed (1) · [kept:] changed (1)
//!              · [changed:] last changed field + 1 (8) · per field up to it: changed (1)
//!                · [changed:] zero (1) · [not zero:] value − min at the field's width
//!            entities the delta frame holds unchanged are not written at all
//!          · end marker: number 1023 · svc_EOF (8)
//! ```
//!
//! Every value of the message goes through `MSG_WriteBits` (`msg.rs`): its `bits % 8` low
//! bits raw, its whole bytes through a static Huffman code trained offline (so not quite the
//! whole message through the byte code: Quake III's own fractions go out raw too). The message
//! is sized as Quake III sizes it, its bits rounded down to bytes plus one.
//!
//! The delta frame is the newest frame the client acknowledged, unless it is 29 or more frames
//! old (`PACKET_BACKUP − 3`); without one every entity is sent against its slot's baseline.
//! Baselines are the entity states of the first frame (`SV_CreateBaseline` at map load; zero
//! for slots empty then); entity numbers are slots given out as `G_Spawn` does (`slots.rs`).
//!
//! # Approximations
//!
//! - **The trained tables.** Quake III's byte table (`msg_hData`) was trained on its own
//!   traffic; here it is trained on this technique's traffic over
//!   [`Setup::training`](super::Setup::training), another run of the same game, replayed over
//!   a lossless link that acknowledges each packet six frames later; each count gets one more
//!   so every byte has a code (Quake III's table has no zero), and without training every
//!   byte has an 8-bit code. The field order, hand-tuned by frequency of change in Quake III,
//!   is each class's fields by their changes in the same run (`layout.rs`).
//! - **Fields.** Values are the schema's quantised integers at their range's width (Quake III
//!   writes integers at a declared width and floats as 13-bit integers or 32-bit floats); the
//!   class is the `eType` field when the schema has several.
//! - **The gamestate** (configstrings and baselines), which Quake III sends reliably at
//!   connection before any snapshot, is shared by the two halves out of band when the first
//!   frame is encoded, uncounted.
//! - **Left out:** the long acknowledging the client's reliable commands, the server time (a
//!   clock, left out as every technique here leaves out clocks and the reverse direction's
//!   acks) and the player state (the scenarios have no player). The cap of 256 entities per
//!   snapshot is lifted, slots are not reserved for players, and entity numbers widen beyond
//!   10 bits only when more than 1022 entities are present at once.
//! - **Slots.** When all 1022 slots are open and none has rested a second, the lowest free one
//!   is taken anyway: the forced pass `G_Spawn`'s comment describes (its code stops with "no
//!   free entities" first). An entity leaving the client's view frees its slot; on coming
//!   back it gets a new one.
//! - Bits of the Huffman stage are written in the lab's order (codes most significant first);
//!   the sizes are Quake III's.

mod layout;
mod msg;
mod slots;
#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use netschema_runtime::engine::frame::WINDOW;
use netschema_runtime::schema::Schema;

use super::huffman::Code;
use super::{Ack, Decoder, Encoder, Error, Halves, Setup, Snapshot, Technique, training};
use layout::{Layout, Slot};
use msg::{MsgReader, MsgWriter};
use slots::Slots;

/// `svc_snapshot`.
const SVC_SNAPSHOT: u32 = 7;
/// `svc_EOF`.
const SVC_EOF: u32 = 8;
/// Frames a delta frame may lag behind: `PACKET_BACKUP − 3`.
const MAX_DELTA: u32 = 32 - 3;

/// Quake III's snapshots.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quake3;

impl Technique for Quake3 {
    fn name(&self) -> &'static str {
        "Q3"
    }

    fn start(&self, setup: &Setup<'_>) -> Result<Halves, Error> {
        let schema = setup.schema;
        let capacity = setup.training.iter().map(Snapshot::len).fold(setup.capacity, usize::max);
        let number_bits = (10..).find(|&b| (1usize << b) - 2 >= capacity).unwrap_or(32);
        let layout = Layout::new(schema, setup.training);
        if (0..layout.classes()).any(|c| layout.fields(c as u16) + 1 > 255) {
            return Err(Error::Unsupported("Q3 writes at most 255 fields per entity".into()));
        }
        let flat = Rc::new(Code::from_lengths(&[8; 256]));
        let code = match setup.training {
            [] => flat,
            training => {
                let mut trainer = Q3Encoder::new(&layout, number_bits, flat, true);
                training::replay(training, &mut trainer, |_| {})?;
                Rc::new(Code::from_counts(&trainer.counts.unwrap_or_default()))
            }
        };
        let encoder = Q3Encoder::new(&layout, number_bits, Rc::clone(&code), false);
        let decoder = Q3Decoder {
            schema,
            layout,
            number_bits,
            code,
            baselines: Rc::clone(&encoder.baselines),
            frames: (0..WINDOW).map(|_| None).collect(),
            newest: None,
        };
        Ok((Box::new(encoder), Box::new(decoder)))
    }
}

/// An entity's state: its class and row.
#[derive(Clone, Debug, PartialEq, Eq)]
struct State {
    class: u16,
    row: Vec<i32>,
}

/// A frame's entities by slot, ascending.
type Entities = Vec<(u32, State)>;

/// The baseline of every slot, from the first frame.
type Baselines = Rc<RefCell<Option<HashMap<u32, State>>>>;

/// The baseline of `slot`: its state in the first frame, else zero (class 0, zero fields).
fn baseline(baselines: &HashMap<u32, State>, layout: &Layout, slot: u32) -> State {
    baselines
        .get(&slot)
        .cloned()
        .unwrap_or_else(|| State { class: 0, row: vec![0; layout.fields(0)] })
}

/// `MSG_WriteDeltaEntity`: `to` against `from` (`None`: the entity is removed); nothing when
/// unchanged unless `force`.
fn write_entity(
    m: &mut MsgWriter<'_>,
    layout: &Layout,
    (number, number_bits): (u32, u32),
    from: &State,
    to: Option<&State>,
    force: bool,
) {
    let Some(to) = to else {
        m.bits(number, number_bits);
        m.bits(1, 1);
        return;
    };
    let n = layout.positions(from.class, to.class);
    let differs =
        |p: usize| layout.value(from.class, &from.row, p) != layout.value(to.class, &to.row, p);
    let last_changed = (0..n).rev().find(|&p| differs(p)).map_or(0, |p| p + 1);
    if last_changed == 0 {
        if force {
            m.bits(number, number_bits);
            m.bits(0, 2);
        }
        return;
    }
    m.bits(number, number_bits);
    m.bits(0, 1);
    m.bits(1, 1);
    m.bits(last_changed as u32, 8);
    for p in 0..last_changed {
        if !differs(p) {
            m.bits(0, 1);
            continue;
        }
        m.bits(1, 1);
        let v = layout.value(to.class, &to.row, p);
        if v == 0 {
            m.bits(0, 1);
            continue;
        }
        m.bits(1, 1);
        match layout.slot(to.class, p) {
            Slot::Class(bits) => m.bits(v as u32, bits),
            Slot::Field(f) => {
                let (min, bits) = layout.field(to.class, f);
                m.bits(v.wrapping_sub(min) as u32, bits);
            }
            Slot::Padding => unreachable!("padding is always zero"),
        }
    }
}

/// `MSG_ReadDeltaEntity` after the entity number: the state against `from`, or `None` if the
/// entity was removed.
fn read_entity(
    m: &mut MsgReader<'_>,
    schema: &Schema,
    layout: &Layout,
    from: &State,
) -> Result<Option<State>, Error> {
    if m.bits(1)? == 1 {
        return Ok(None);
    }
    if m.bits(1)? == 0 {
        return Ok(Some(from.clone()));
    }
    let last_changed = m.bits(8)? as usize;
    // Reads position `p` of a state of `class`, or `None` if unchanged.
    let mut read = |class: u16, p: usize| -> Result<Option<i32>, Error> {
        if p >= last_changed || m.bits(1)? == 0 {
            return Ok(None);
        }
        if m.bits(1)? == 0 {
            return Ok(Some(0));
        }
        Ok(Some(match layout.slot(class, p) {
            Slot::Class(bits) => m.bits(bits)? as i32,
            Slot::Field(f) => {
                let (min, bits) = layout.field(class, f);
                min.wrapping_add(m.bits(bits)? as i32)
            }
            Slot::Padding => return Err(Error::Decode("a non-zero value past the fields".into())),
        }))
    };
    let class = match layout.slot(from.class, 0) {
        Slot::Class(_) => match read(from.class, 0)? {
            Some(c) if (c as usize) < layout.classes() => c as u16,
            Some(_) => return Err(Error::Decode("unknown class".into())),
            None => from.class,
        },
        _ => from.class,
    };
    let n = layout.positions(from.class, class);
    if last_changed > n {
        return Err(Error::Decode("more fields than the entity has".into()));
    }
    let fields = schema.classes[usize::from(class)].fields;
    let mut row = vec![0; fields.len()];
    let first = usize::from(matches!(layout.slot(class, 0), Slot::Class(_)));
    for p in first..n {
        let v = match read(class, p)? {
            Some(v) => v,
            None => layout.value(from.class, &from.row, p),
        };
        match layout.slot(class, p) {
            Slot::Field(f) => row[f] = v,
            _ if v != 0 => return Err(Error::Decode("a non-zero value past the fields".into())),
            _ => {}
        }
    }
    for (v, field) in row.iter().zip(fields) {
        if *v < field.min || *v > field.max {
            return Err(Error::Decode(format!("value of {} out of range", field.name)));
        }
    }
    Ok(Some(State { class, row }))
}

/// A frame the server sent.
#[derive(Debug)]
struct Sent {
    frame: u32,
    entities: Entities,
}

struct Q3Encoder {
    layout: Layout,
    number_bits: u32,
    code: Rc<Code>,
    /// Bytes given to the Huffman code, when training.
    counts: Option<Vec<u64>>,
    slots: Slots,
    baselines: Baselines,
    sent: Vec<Option<Sent>>,
    newest_sent: Option<u32>,
    newest_acked: Option<u32>,
}

impl Q3Encoder {
    fn new(layout: &Layout, number_bits: u32, code: Rc<Code>, counting: bool) -> Self {
        Q3Encoder {
            layout: layout.clone(),
            number_bits,
            code,
            counts: counting.then(|| vec![0; 256]),
            slots: Slots::new((1 << number_bits) - 2),
            baselines: Rc::new(RefCell::new(None)),
            sent: (0..WINDOW).map(|_| None).collect(),
            newest_sent: None,
            newest_acked: None,
        }
    }
}

impl Encoder for Q3Encoder {
    fn encode(&mut self, frame: u32, s: &Snapshot, out: &mut Vec<u8>) -> Result<(), Error> {
        self.slots.update(frame, s).map_err(Error::Unsupported)?;
        let mut entities: Entities = (0..s.len())
            .filter_map(|i| {
                let state = State { class: s.classes[i], row: s.row(i).to_vec() };
                Some((self.slots.get(s.ids[i])?, state))
            })
            .collect();
        entities.sort_unstable_by_key(|(slot, _)| *slot);
        if self.baselines.borrow().is_none() {
            *self.baselines.borrow_mut() = Some(entities.iter().cloned().collect());
        }
        let baselines = self.baselines.borrow();
        let baselines = baselines.as_ref().ok_or_else(|| Error::Encode("no baselines".into()))?;
        let delta = self
            .newest_acked
            .filter(|&a| frame.wrapping_sub(a) < MAX_DELTA)
            .and_then(|a| self.sent[(a % WINDOW) as usize].as_ref().filter(|f| f.frame == a));
        let (layout, numbers) = (&self.layout, self.number_bits);
        let mut m = MsgWriter::new(&self.code, self.counts.as_deref_mut());
        m.bits(SVC_SNAPSHOT, 8);
        m.bits(delta.map_or(0, |d| frame.wrapping_sub(d.frame)), 8);
        m.bits(0, 8);
        m.bits(0, 8);
        let old: &[(u32, State)] = delta.map_or(&[], |d| &d.entities);
        let (mut i, mut j) = (0, 0);
        while i < entities.len() || j < old.len() {
            let new = entities.get(i).map_or(u32::MAX, |e| e.0);
            let was = old.get(j).map_or(u32::MAX, |e| e.0);
            if new == was {
                write_entity(
                    &mut m,
                    layout,
                    (new, numbers),
                    &old[j].1,
                    Some(&entities[i].1),
                    false,
                );
                (i, j) = (i + 1, j + 1);
            } else if new < was {
                let from = baseline(baselines, layout, new);
                write_entity(&mut m, layout, (new, numbers), &from, Some(&entities[i].1), true);
                i += 1;
            } else {
                write_entity(&mut m, layout, (was, numbers), &old[j].1, None, true);
                j += 1;
            }
        }
        m.bits((1 << numbers) - 1, numbers);
        m.bits(SVC_EOF, 8);
        out.clear();
        out.extend_from_slice(&frame.to_le_bytes());
        m.finish(out);
        self.sent[(frame % WINDOW) as usize] = Some(Sent { frame, entities });
        self.newest_sent = Some(frame);
        Ok(())
    }

    fn expected(&self, s: &Snapshot) -> Option<Snapshot> {
        let mut by_slot: Vec<(u32, usize)> =
            (0..s.len()).filter_map(|i| Some((self.slots.get(s.ids[i])?, i))).collect();
        by_slot.sort_unstable();
        let mut out = Snapshot::new();
        for (slot, i) in by_slot {
            out.push(slot, s.classes[i], s.row(i));
        }
        Some(out)
    }

    fn receive_ack(&mut self, ack: &Ack) {
        let Some(newest) = self.newest_sent else { return };
        if let Some(latest) = ack.frames(newest).next()
            && self.sent[(latest % WINDOW) as usize].as_ref().is_some_and(|f| f.frame == latest)
        {
            // The client acknowledges the newest message it received (`messageAcknowledge`).
            self.newest_acked = self.newest_acked.max(Some(latest));
        }
    }

    fn memory_bytes(&self) -> usize {
        let frames: usize = self
            .sent
            .iter()
            .flatten()
            .map(|f| f.entities.iter().map(|(_, e)| 32 + 4 * e.row.len()).sum::<usize>())
            .sum();
        frames + self.baselines.borrow().as_ref().map_or(0, |b| b.len() * 40)
    }
}

/// A frame the client received.
#[derive(Debug)]
struct Received {
    frame: u32,
    entities: Entities,
}

struct Q3Decoder {
    schema: &'static Schema,
    layout: Layout,
    number_bits: u32,
    code: Rc<Code>,
    baselines: Baselines,
    frames: Vec<Option<Received>>,
    newest: Option<u32>,
}

impl Decoder for Q3Decoder {
    fn decode(&mut self, packet: &[u8], out: &mut Snapshot) -> Result<u32, Error> {
        let header: [u8; 4] = packet
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| Error::Decode("packet ends early".into()))?;
        let frame = u32::from_le_bytes(header);
        let mut m = MsgReader::new(&self.code, &packet[4..]);
        if m.bits(8)? != SVC_SNAPSHOT {
            return Err(Error::Decode("not a snapshot".into()));
        }
        let delta = m.bits(8)?;
        m.bits(8)?;
        if m.bits(8)? != 0 {
            return Err(Error::Decode("area masks are not expected".into()));
        }
        let old: &[(u32, State)] = match delta {
            0 => &[],
            d => {
                let f = frame.wrapping_sub(d);
                &self.frames[(f % WINDOW) as usize]
                    .as_ref()
                    .filter(|r| r.frame == f && d < MAX_DELTA)
                    .ok_or_else(|| Error::Decode("delta from a frame not held".into()))?
                    .entities
            }
        };
        let baselines = self.baselines.borrow();
        let baselines =
            baselines.as_ref().ok_or_else(|| Error::Decode("no gamestate yet".into()))?;
        let (end, numbers) = ((1 << self.number_bits) - 1, self.number_bits);
        let mut entities = Vec::with_capacity(old.len());
        let mut j = 0;
        loop {
            let number = m.bits(numbers)?;
            while j < old.len() && (old[j].0 < number || number == end) {
                entities.push(old[j].clone());
                j += 1;
            }
            if number == end {
                break;
            }
            if entities.last().is_some_and(|(slot, _)| *slot >= number) {
                return Err(Error::Decode("entity numbers do not ascend".into()));
            }
            let from = match old.get(j) {
                Some((slot, state)) if *slot == number => {
                    j += 1;
                    state.clone()
                }
                _ => baseline(baselines, &self.layout, number),
            };
            if let Some(state) = read_entity(&mut m, self.schema, &self.layout, &from)? {
                entities.push((number, state));
            }
        }
        if m.bits(8)? != SVC_EOF {
            return Err(Error::Decode("no end of message".into()));
        }
        out.clear();
        for (slot, state) in &entities {
            out.push(*slot, state.class, &state.row);
        }
        self.frames[(frame % WINDOW) as usize] = Some(Received { frame, entities });
        self.newest = self.newest.max(Some(frame));
        Ok(frame)
    }

    fn ack(&self) -> Option<Ack> {
        let newest = self.newest?;
        Some(Ack::from_frames(newest, |f| {
            self.frames[(f % WINDOW) as usize].as_ref().is_some_and(|r| r.frame == f)
        }))
    }

    fn memory_bytes(&self) -> usize {
        self.frames
            .iter()
            .flatten()
            .map(|f| f.entities.iter().map(|(_, e)| 32 + 4 * e.row.len()).sum::<usize>())
            .sum()
    }
}
