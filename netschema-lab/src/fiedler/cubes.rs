//! The article's final packing of the cube scene, for the cube schema only.
//!
//! The schema must have exactly the fields `interacting` (bool), `position.x`/`.y`/`.z`
//! (18, 18 and 14 bits: 1/512 m in [-256, 256) and [0, 32)), `orientation.largest` (enum of
//! 4) and three smallest-three components (9 bits each), and every snapshot must hold the
//! entities `0..capacity`. A packet is:
//!
//! - the frame (16 bits) and the distance to the baseline (5 bits; 0: no baseline, where the
//!   seed used the initial state both ends know, every cube is sent absolute: 80 bits);
//! - the changed cubes ([`index`]);
//! - for each changed cube: `interacting`; a "position changed" bit, then either the delta to
//!   the baseline with, per component, a "small" bit and 5 bits (`[-16,15]`) or 9 bits
//!   (`[-256,255]`), or (a bit says which) the absolute position (50 bits); an "orientation
//!   changed" bit, then, when the largest component is the baseline's and every delta fits
//!   `[-128,127]`, per component a "small" bit and 5 or 8 bits, else the absolute smallest-three
//!   (29 bits).

use netschema_runtime::engine::frame::to_wire;
use netschema_runtime::quant::bits_for_range;
use netschema_runtime::schema::{Coding, Schema};

use super::super::bitstream::{Reader, Writer};
use super::super::bytes::{Ring, full_frame};
use super::super::{Ack, Decoder, Encoder, Error, Halves, Snapshot};
use super::index;

/// Bit widths of the eight fields, in order.
const WIDTHS: [u32; 8] = [1, 18, 18, 14, 2, 9, 9, 9];

/// Whether `schema` is the cube schema the article's packing is written for.
pub(super) fn is_cube_schema(schema: &Schema) -> bool {
    let [class] = schema.classes else { return false };
    class.fields.len() == WIDTHS.len()
        && class.fields.iter().zip(&WIDTHS).enumerate().all(|(i, (field, &w))| {
            let categorical = matches!(field.coding, Coding::Categorical);
            bits_for_range(field.min, field.max) == w && categorical == (i == 0 || i == 4)
        })
}

/// The halves for `n` cubes of the cube schema.
pub(super) fn start(schema: &'static Schema, n: usize) -> Halves {
    (
        Box::new(CubesEncoder { schema, n, ring: Ring::new() }),
        Box::new(CubesDecoder { schema, n, ring: Ring::new() }),
    )
}

/// Bits of a cube index for `n` cubes.
fn index_bits(n: usize) -> u32 {
    bits_for_range(0, n.saturating_sub(1).max(1) as i32)
}

struct CubesEncoder {
    schema: &'static Schema,
    n: usize,
    ring: Ring,
}

/// Writes the raw values `row[from..to]` (offsets from each field's minimum) absolutely.
fn write_absolute(w: &mut Writer, schema: &Schema, row: &[i32], from: usize, to: usize) {
    let fields = schema.classes[0].fields;
    for i in from..to {
        w.put((row[i] - fields[i].min) as u32, WIDTHS[i]);
    }
}

fn read_absolute(
    r: &mut Reader<'_>,
    schema: &Schema,
    row: &mut [i32],
    from: usize,
    to: usize,
) -> Result<(), Error> {
    let fields = schema.classes[0].fields;
    for i in from..to {
        let v = i64::from(fields[i].min) + i64::from(r.get(WIDTHS[i])?);
        if v > i64::from(fields[i].max) {
            return Err(Error::Decode("value out of range".into()));
        }
        row[i] = v as i32;
    }
    Ok(())
}

/// Writes deltas with a "small" bit each: `small` bits for `[-2^(small-1), …)`, else `large`.
/// Every delta must fit the large range.
fn write_deltas(w: &mut Writer, deltas: &[i32], small: u32, large: u32) {
    for &d in deltas {
        let (hs, hl) = (1i32 << (small - 1), 1i32 << (large - 1));
        if (-hs..hs).contains(&d) {
            w.put(1, 1);
            w.put((d + hs) as u32, small);
        } else {
            w.put(0, 1);
            w.put((d + hl) as u32, large);
        }
    }
}

fn fits(deltas: &[i32], large: u32) -> bool {
    let hl = 1i32 << (large - 1);
    deltas.iter().all(|d| (-hl..hl).contains(d))
}

fn read_delta(r: &mut Reader<'_>, small: u32, large: u32) -> Result<i32, Error> {
    let (hs, hl) = (1i32 << (small - 1), 1i32 << (large - 1));
    Ok(if r.bit()? { r.get(small)? as i32 - hs } else { r.get(large)? as i32 - hl })
}

impl Encoder for CubesEncoder {
    fn encode(&mut self, frame: u32, s: &Snapshot, out: &mut Vec<u8>) -> Result<(), Error> {
        if s.len() != self.n || s.ids.iter().enumerate().any(|(i, &id)| id as usize != i) {
            return Err(Error::Unsupported("fiedler needs the same cubes 0..n every frame".into()));
        }
        let base = self.ring.acked_before(frame, 1).first().copied();
        let base_snapshot = base.and_then(|b| self.ring.get(b)).map(|k| &k.snapshot);
        let schema = self.schema;
        let mut w = Writer::new();
        w.put(u32::from(to_wire(frame)), 16);
        w.put(base.map_or(0, |b| frame.wrapping_sub(b)), 5);
        match base_snapshot {
            None => {
                for i in 0..self.n {
                    write_absolute(&mut w, schema, s.row(i), 0, 8);
                }
            }
            Some(b) => {
                let changed: Vec<usize> = (0..self.n).filter(|&i| s.row(i) != b.row(i)).collect();
                index::put(&mut w, &changed, self.n, index_bits(self.n));
                for &i in &changed {
                    let (row, old) = (s.row(i), b.row(i));
                    w.put((row[0] - schema.classes[0].fields[0].min) as u32, 1);
                    // Position.
                    let pos_changed = row[1..4] != old[1..4];
                    w.bit(pos_changed);
                    if pos_changed {
                        let d = [row[1] - old[1], row[2] - old[2], row[3] - old[3]];
                        w.bit(fits(&d, 9));
                        match fits(&d, 9) {
                            true => write_deltas(&mut w, &d, 5, 9),
                            false => write_absolute(&mut w, schema, row, 1, 4),
                        }
                    }
                    // Orientation.
                    let ori_changed = row[4..8] != old[4..8];
                    w.bit(ori_changed);
                    if ori_changed {
                        let d = [row[5] - old[5], row[6] - old[6], row[7] - old[7]];
                        let delta = row[4] == old[4] && fits(&d, 8);
                        w.bit(delta);
                        match delta {
                            true => write_deltas(&mut w, &d, 5, 8),
                            false => write_absolute(&mut w, schema, row, 4, 8),
                        }
                    }
                }
            }
        }
        out.clear();
        out.extend_from_slice(w.bytes());
        self.ring.put(frame, s, &[]);
        Ok(())
    }

    fn receive_ack(&mut self, ack: &Ack) {
        self.ring.ack(ack);
    }

    fn memory_bytes(&self) -> usize {
        self.ring.memory()
    }
}

struct CubesDecoder {
    schema: &'static Schema,
    n: usize,
    ring: Ring,
}

impl Decoder for CubesDecoder {
    fn decode(&mut self, packet: &[u8], out: &mut Snapshot) -> Result<u32, Error> {
        let schema = self.schema;
        let mut r = Reader::new(packet);
        let frame = full_frame(self.ring.newest(), r.get(16)? as u16);
        let distance = r.get(5)?;
        let mut rows = vec![[0i32; 8]; self.n];
        if distance == 0 {
            for row in rows.iter_mut() {
                read_absolute(&mut r, schema, row, 0, 8)?;
            }
        } else {
            let b = &self
                .ring
                .get(frame.wrapping_sub(distance))
                .ok_or_else(|| Error::Decode("unknown baseline".into()))?
                .snapshot;
            if b.len() != self.n {
                return Err(Error::Decode("baseline has the wrong size".into()));
            }
            for (i, row) in rows.iter_mut().enumerate() {
                row.copy_from_slice(b.row(i));
            }
            let fields = schema.classes[0].fields;
            for i in index::get(&mut r, self.n, index_bits(self.n))? {
                let row = &mut rows[i];
                row[0] = fields[0].min + r.get(1)? as i32;
                if r.bit()? {
                    if r.bit()? {
                        for v in &mut row[1..4] {
                            *v += read_delta(&mut r, 5, 9)?;
                        }
                    } else {
                        read_absolute(&mut r, schema, row, 1, 4)?;
                    }
                }
                if r.bit()? {
                    if r.bit()? {
                        for v in &mut row[5..8] {
                            *v += read_delta(&mut r, 5, 8)?;
                        }
                    } else {
                        read_absolute(&mut r, schema, row, 4, 8)?;
                    }
                }
                for (v, f) in row.iter().zip(fields) {
                    if *v < f.min || *v > f.max {
                        return Err(Error::Decode("value out of range".into()));
                    }
                }
            }
        }
        out.clear();
        for (i, row) in rows.iter().enumerate() {
            out.push(i as u32, 0, row);
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
