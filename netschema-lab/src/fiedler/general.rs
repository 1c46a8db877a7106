//! The article's packing generalised to any schema.
//!
//! What carries over: every field bounded by the schema and written at its range's width when
//! absolute; deltas against the acknowledged baseline with a "small" bit choosing between a
//! small and a large width, or the absolute value when a delta does not fit (a bit says which);
//! a "changed" bit per group of fields that change together (the article's position and
//! orientation: fields whose names share a prefix such as `pos.` or `color[`); and the list of
//! changed entities as changed bits or relative indices, whichever is cheaper
//! ([`index`]).
//!
//! What is new, because the cube scene has neither: entities come and go, so they are named
//! by slot (the lowest free one; a freed slot is reused once the client has acknowledged a
//! frame without its old entity), a listed slot the baseline holds starts with a "still
//! there" bit, and an entity new to its slot is sent whole with its class. The small and large
//! widths, which the article chose by hand for the cube data, are chosen per packet for each
//! field as the cheapest pair for that packet's deltas, and sent in the packet (4 + 5 bits per
//! numeric field of each class with a delta-coded entity).
//!
//! ```text
//! frame (16) · baseline distance (5, 0: none) · slots in use (index bits) · changed slots
//! · per changed slot the baseline holds: still there (1)
//! · per class with a delta-coded entity, per numeric field: small − 1 (4) · large − 1 (5)
//! · per changed slot still or newly there:
//!     new: class · every field absolute
//!     else, per group: changed (1) · [changed:] delta (1, numeric groups only)
//!       · delta: per numeric field small (1) · the delta at the small or large width
//!       · absolute: every field of the group
//! ```

use std::collections::{BTreeSet, HashMap};

use netschema_runtime::engine::frame::to_wire;
use netschema_runtime::quant::bits_for_range;
use netschema_runtime::schema::{Class, Coding, Field, Schema};

use super::super::bitstream::{Reader, Writer};
use super::super::bytes::{Ring, full_frame};
use super::super::{Ack, Decoder, Encoder, Error, Halves, Snapshot};
use super::index;

/// The halves for a schema with at most `capacity` entities at once.
pub(super) fn start(schema: &'static Schema, capacity: usize) -> Halves {
    let layout = Layout::new(schema, 2 * capacity + 64);
    (
        Box::new(GeneralEncoder {
            layout: layout.clone(),
            slots: Slots::default(),
            ring: Ring::new(),
        }),
        Box::new(GeneralDecoder { layout, ring: Ring::new() }),
    )
}

/// What both ends derive from the schema.
#[derive(Clone, Debug)]
struct Layout {
    schema: &'static Schema,
    /// Per class, its groups as field ranges.
    groups: Vec<Vec<std::ops::Range<usize>>>,
    /// Most slots.
    slots: usize,
    index_bits: u32,
    class_bits: u32,
}

/// The part of a field's path before its last `.` or `[` (empty for a plain name).
fn prefix(name: &str) -> &str {
    name.rfind(['.', '[']).map_or("", |at| &name[..at])
}

/// Fields in a row whose names share a non-empty prefix form a group; others stand alone.
fn groups_of(class: &Class) -> Vec<std::ops::Range<usize>> {
    let mut groups: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, field) in class.fields.iter().enumerate() {
        match groups.last_mut() {
            Some(g)
                if !prefix(field.name).is_empty()
                    && prefix(class.fields[g.start].name) == prefix(field.name) =>
            {
                g.end = i + 1;
            }
            _ => groups.push(i..i + 1),
        }
    }
    groups
}

fn is_numeric(field: &Field) -> bool {
    matches!(field.coding, Coding::Numeric(_))
}

fn width(field: &Field) -> u32 {
    bits_for_range(field.min, field.max)
}

/// Bits of the smallest two's-complement integer holding `d`.
fn signed_bits(d: i64) -> u32 {
    let magnitude = if d < 0 { !d } else { d } as u64;
    65 - magnitude.leading_zeros()
}

/// The small and large delta widths of one field.
type Widths = (u32, u32);

/// The cheapest small and large widths for deltas needing `needed[h]` times `h` bits, a
/// delta wider than the large width costing the field's absolute width.
fn cheapest(needed: &[u64; 66], absolute: u32) -> Widths {
    let cost = |(s, l): Widths| -> u64 {
        (1..66)
            .map(|h| {
                let bits = if h <= s as usize {
                    1 + s
                } else if h <= l as usize {
                    1 + l
                } else {
                    1 + absolute
                };
                needed[h] * u64::from(bits)
            })
            .sum()
    };
    (1..=16).flat_map(|s| (s..=32).map(move |l| (s, l))).min_by_key(|&w| cost(w)).unwrap_or((1, 1))
}

impl Layout {
    fn new(schema: &'static Schema, slots: usize) -> Self {
        Layout {
            schema,
            groups: schema.classes.iter().map(groups_of).collect(),
            slots,
            index_bits: bits_for_range(0, slots as i32 - 1),
            class_bits: bits_for_range(0, schema.classes.len() as i32 - 1),
        }
    }

    fn fields(&self, class: u16) -> &'static [Field] {
        self.schema.classes[usize::from(class)].fields
    }
}

/// The entity at `slot` in a snapshot keyed by slot.
fn at(s: &Snapshot, slot: u32) -> Option<(u16, &[i32])> {
    s.ids.binary_search(&slot).ok().map(|i| (s.classes[i], s.row(i)))
}

/// The slots in use in either snapshot: one past the largest.
fn slots_in_use(a: &Snapshot, b: &Snapshot) -> usize {
    a.ids.last().max(b.ids.last()).map_or(0, |&s| s as usize + 1)
}

/// Slots given to entities.
#[derive(Debug, Default)]
struct Slots {
    /// The slot of each entity, by id and class: an id that changes class is a new entity.
    slot_of: HashMap<(u32, u16), u32>,
    /// Freed slots and the frame from which they were empty.
    resting: Vec<(u32, u32)>,
    /// Slots free for reuse.
    free: BTreeSet<u32>,
    /// Slots ever opened.
    opened: u32,
}

impl Slots {
    /// Frees the slots of entities gone from `s`, readies those the client has seen empty
    /// (`newest_acked`), and gives new entities the lowest free slot.
    fn update(
        &mut self,
        frame: u32,
        s: &Snapshot,
        newest_acked: Option<u32>,
        max: usize,
    ) -> Result<(), Error> {
        let present = |&(id, class): &(u32, u16)| {
            s.ids.binary_search(&id).is_ok_and(|i| s.classes[i] == class)
        };
        let mut gone: Vec<(u32, u16)> =
            self.slot_of.keys().filter(|key| !present(key)).copied().collect();
        gone.sort_unstable();
        for key in gone {
            if let Some(slot) = self.slot_of.remove(&key) {
                self.resting.push((slot, frame));
            }
        }
        let seen = |since: u32| newest_acked.is_some_and(|a| (a.wrapping_sub(since) as i32) >= 0);
        let free = &mut self.free;
        self.resting.retain(|&(slot, since)| !(seen(since) && free.insert(slot)));
        for (&id, &class) in s.ids.iter().zip(&s.classes) {
            if self.slot_of.contains_key(&(id, class)) {
                continue;
            }
            let slot = match self.free.pop_first() {
                Some(slot) => slot,
                None if (self.opened as usize) < max => {
                    self.opened += 1;
                    self.opened - 1
                }
                None => return Err(Error::Unsupported(format!("more than {max} slots"))),
            };
            self.slot_of.insert((id, class), slot);
        }
        Ok(())
    }

    /// `s` keyed by slot.
    fn keyed(&self, s: &Snapshot) -> Snapshot {
        let mut by_slot: Vec<(u32, usize)> = (0..s.len())
            .filter_map(|i| Some((*self.slot_of.get(&(s.ids[i], s.classes[i]))?, i)))
            .collect();
        by_slot.sort_unstable();
        let mut out = Snapshot::new();
        for (slot, i) in by_slot {
            out.push(slot, s.classes[i], s.row(i));
        }
        out
    }
}

/// Per class with a delta-coded entity, each numeric field's widths (by field index).
type ClassWidths = HashMap<u16, Vec<Widths>>;

/// Writes one entity's changed groups against its baseline row `old`.
fn write_delta(
    w: &mut Writer,
    layout: &Layout,
    class: u16,
    row: &[i32],
    old: &[i32],
    widths: &[Widths],
) {
    let fields = layout.fields(class);
    for g in &layout.groups[usize::from(class)] {
        let changed = row[g.clone()] != old[g.clone()];
        w.bit(changed);
        if !changed {
            continue;
        }
        let absolute: u32 = g.clone().map(|f| width(&fields[f])).sum();
        if !g.clone().any(|f| is_numeric(&fields[f])) {
            for f in g.clone() {
                w.put(row[f].wrapping_sub(fields[f].min) as u32, width(&fields[f]));
            }
            continue;
        }
        let delta_bits = g.clone().try_fold(0u32, |sum, f| {
            let d = i64::from(row[f]) - i64::from(old[f]);
            match is_numeric(&fields[f]) {
                false => (d == 0).then_some(sum),
                true => {
                    let (s, l) = widths[f];
                    let h = signed_bits(d);
                    (h <= l).then_some(sum + 1 + if h <= s { s } else { l })
                }
            }
        });
        let delta = delta_bits.is_some_and(|bits| bits <= absolute);
        w.bit(delta);
        for f in g.clone() {
            let field = &fields[f];
            if !delta {
                w.put(row[f].wrapping_sub(field.min) as u32, width(field));
            } else if is_numeric(field) {
                let d = i64::from(row[f]) - i64::from(old[f]);
                let (s, l) = widths[f];
                let small = signed_bits(d) <= s;
                let bits = if small { s } else { l };
                w.bit(small);
                w.put((d + (1i64 << (bits - 1))) as u32, bits);
            }
        }
    }
}

/// Reads what [`write_delta`] wrote into `row` (the baseline row on entry).
fn read_delta(
    r: &mut Reader<'_>,
    layout: &Layout,
    class: u16,
    row: &mut [i32],
    widths: &[Widths],
) -> Result<(), Error> {
    let fields = layout.fields(class);
    for g in &layout.groups[usize::from(class)] {
        if !r.bit()? {
            continue;
        }
        let numeric = g.clone().any(|f| is_numeric(&fields[f]));
        let delta = numeric && r.bit()?;
        for f in g.clone() {
            let field = &fields[f];
            if !delta {
                row[f] = (i64::from(field.min) + i64::from(r.get(width(field))?)) as i32;
            } else if is_numeric(field) {
                let (s, l) = widths[f];
                let bits = if r.bit()? { s } else { l };
                let d = i64::from(r.get(bits)?) - (1i64 << (bits - 1));
                row[f] =
                    (i64::from(row[f]) + d).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
            }
        }
    }
    Ok(())
}

struct GeneralEncoder {
    layout: Layout,
    slots: Slots,
    ring: Ring,
}

impl Encoder for GeneralEncoder {
    fn encode(&mut self, frame: u32, s: &Snapshot, out: &mut Vec<u8>) -> Result<(), Error> {
        let layout = &self.layout;
        let base = self.ring.acked_before(frame, 1).first().copied();
        self.slots.update(frame, s, base, layout.slots)?;
        let cur = self.slots.keyed(s);
        let empty = Snapshot::new();
        let b = base.and_then(|f| self.ring.get(f)).map_or(&empty, |k| &k.snapshot);
        let mut w = Writer::new();
        w.put(u32::from(to_wire(frame)), 16);
        w.put(base.map_or(0, |f| frame.wrapping_sub(f)), 5);
        let n = slots_in_use(&cur, b);
        w.put(n as u32, layout.index_bits);
        let listed: Vec<usize> = (0..n as u32)
            .filter(|&slot| at(&cur, slot) != at(b, slot))
            .map(|slot| slot as usize)
            .collect();
        index::put(&mut w, &listed, n, layout.index_bits);
        for &slot in &listed {
            if at(b, slot as u32).is_some() {
                w.bit(at(&cur, slot as u32).is_some());
            }
        }
        // Each delta-coded entity's numeric deltas, where their group changed.
        let mut needed: HashMap<u16, Vec<[u64; 66]>> = HashMap::new();
        for &slot in &listed {
            let (Some((class, row)), Some((_, old))) = (at(&cur, slot as u32), at(b, slot as u32))
            else {
                continue;
            };
            let fields = layout.fields(class);
            let counts = needed.entry(class).or_insert_with(|| vec![[0; 66]; fields.len()]);
            for g in &layout.groups[usize::from(class)] {
                if row[g.clone()] == old[g.clone()] {
                    continue;
                }
                for f in g.clone().filter(|&f| is_numeric(&fields[f])) {
                    counts[f][signed_bits(i64::from(row[f]) - i64::from(old[f])) as usize] += 1;
                }
            }
        }
        let mut classes: Vec<u16> = needed.keys().copied().collect();
        classes.sort_unstable();
        let mut widths = ClassWidths::new();
        for class in classes {
            let fields = layout.fields(class);
            let chosen: Vec<Widths> = (0..fields.len())
                .map(|f| cheapest(&needed[&class][f], width(&fields[f])))
                .collect();
            for f in (0..fields.len()).filter(|&f| is_numeric(&fields[f])) {
                w.put(chosen[f].0 - 1, 4);
                w.put(chosen[f].1 - 1, 5);
            }
            widths.insert(class, chosen);
        }
        for &slot in &listed {
            let Some((class, row)) = at(&cur, slot as u32) else { continue };
            match at(b, slot as u32) {
                Some((_, old)) => write_delta(&mut w, layout, class, row, old, &widths[&class]),
                None => {
                    w.put(u32::from(class), layout.class_bits);
                    for (field, &v) in layout.fields(class).iter().zip(row) {
                        w.put(v.wrapping_sub(field.min) as u32, width(field));
                    }
                }
            }
        }
        out.clear();
        out.extend_from_slice(w.bytes());
        self.ring.put(frame, &cur, &[]);
        Ok(())
    }

    fn expected(&self, s: &Snapshot) -> Option<Snapshot> {
        Some(self.slots.keyed(s))
    }

    fn receive_ack(&mut self, ack: &Ack) {
        self.ring.ack(ack);
    }

    fn memory_bytes(&self) -> usize {
        self.ring.memory() + self.slots.slot_of.len() * 16
    }
}

struct GeneralDecoder {
    layout: Layout,
    ring: Ring,
}

impl Decoder for GeneralDecoder {
    fn decode(&mut self, packet: &[u8], out: &mut Snapshot) -> Result<u32, Error> {
        let layout = &self.layout;
        let mut r = Reader::new(packet);
        let frame = full_frame(self.ring.newest(), r.get(16)? as u16);
        let empty = Snapshot::new();
        let b = match r.get(5)? {
            0 => &empty,
            d => {
                &self
                    .ring
                    .get(frame.wrapping_sub(d))
                    .ok_or_else(|| Error::Decode("unknown baseline".into()))?
                    .snapshot
            }
        };
        let n = r.get(layout.index_bits)? as usize;
        if n > layout.slots {
            return Err(Error::Decode("too many slots".into()));
        }
        let listed = index::get(&mut r, n, layout.index_bits)?;
        let mut present = Vec::with_capacity(listed.len());
        for &slot in &listed {
            present.push(at(b, slot as u32).is_none() || r.bit()?);
        }
        let mut classes: Vec<u16> = listed
            .iter()
            .zip(&present)
            .filter(|(_, p)| **p)
            .filter_map(|(&slot, _)| at(b, slot as u32).map(|(class, _)| class))
            .collect();
        classes.sort_unstable();
        classes.dedup();
        let mut widths = ClassWidths::new();
        for class in classes {
            let fields = layout.fields(class);
            let mut chosen = vec![(1, 1); fields.len()];
            for f in (0..fields.len()).filter(|&f| is_numeric(&fields[f])) {
                chosen[f] = (r.get(4)? + 1, r.get(5)? + 1);
            }
            widths.insert(class, chosen);
        }
        let mut rows: HashMap<u32, (u16, Vec<i32>)> = HashMap::new();
        for (&slot, _) in listed.iter().zip(&present).filter(|(_, p)| **p) {
            let slot = slot as u32;
            let (class, row) = match at(b, slot) {
                Some((class, old)) => {
                    let mut row = old.to_vec();
                    read_delta(&mut r, layout, class, &mut row, &widths[&class])?;
                    (class, row)
                }
                None => {
                    let class = r.get(layout.class_bits)? as usize;
                    if class >= layout.schema.classes.len() {
                        return Err(Error::Decode("unknown class".into()));
                    }
                    let fields = layout.fields(class as u16);
                    let row = fields
                        .iter()
                        .map(|f| Ok((i64::from(f.min) + i64::from(r.get(width(f))?)) as i32))
                        .collect::<Result<Vec<i32>, Error>>()?;
                    (class as u16, row)
                }
            };
            for (v, field) in row.iter().zip(layout.fields(class)) {
                if *v < field.min || *v > field.max {
                    return Err(Error::Decode(format!("value of {} out of range", field.name)));
                }
            }
            rows.insert(slot, (class, row));
        }
        let gone: BTreeSet<u32> =
            listed.iter().zip(&present).filter(|(_, p)| !**p).map(|(&s, _)| s as u32).collect();
        let mut slots: BTreeSet<u32> =
            b.ids.iter().copied().filter(|s| !gone.contains(s)).collect();
        slots.extend(rows.keys());
        out.clear();
        for slot in slots {
            match rows.get(&slot) {
                Some((class, row)) => out.push(slot, *class, row),
                None => {
                    let (class, row) =
                        at(b, slot).ok_or_else(|| Error::Decode("lost slot".into()))?;
                    out.push(slot, class, row);
                }
            }
        }
        self.ring.put(frame, out, &[]);
        Ok(frame)
    }

    fn ack(&self) -> Option<Ack> {
        self.ring.ack_for_client()
    }

    fn memory_bytes(&self) -> usize {
        self.ring.memory()
    }
}
