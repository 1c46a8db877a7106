//! `fiedler`: the final hand bit-packing of Fiedler's "Snapshot Compression" (2015), for the
//! cube schema only.
//!
//! The schema must have exactly the fields `interacting` (bool), `position.x`/`.y`/`.z`
//! (18, 18 and 14 bits: 1/512 m in [-256, 256) and [0, 32)), `orientation.largest` (enum of
//! 4) and three smallest-three components (9 bits each), and every snapshot must hold the
//! entities `0..capacity`. A packet is:
//!
//! - the frame (16 bits) and the distance to the baseline (5 bits; 0: no baseline, where the
//!   seed used the initial state both ends know, every cube is sent absolute: 80 bits);
//! - one bit choosing how changed cubes are listed, whichever is cheaper: a "changed" bit per
//!   cube, or their count and indices, the first absolute and the others relative to the
//!   previous one as `[1,8]` → 1+3 bits, `[9,40]` → 1+1+5, larger → 1+1+10;
//! - for each changed cube: `interacting`; a "position changed" bit, then either the delta to
//!   the baseline with, per component, a "small" bit and 5 bits (`[-16,15]`) or 9 bits
//!   (`[-256,255]`), or (a bit says which) the absolute position (50 bits); an "orientation
//!   changed" bit, then, when the largest component is the baseline's and every delta fits
//!   `[-128,127]`, per component a "small" bit and 5 or 8 bits, else the absolute smallest-three
//!   (29 bits).

use netschema_runtime::codec::bits::{BitReader, BitWriter};
use netschema_runtime::engine::frame::to_wire;
use netschema_runtime::quant::bits_for_range;
use netschema_runtime::schema::{Coding, Schema};

use super::bytes::{Ring, full_frame};
use super::{Ack, Decoder, Encoder, Error, Halves, Setup, Snapshot, Technique};

/// Seed 001's bit-packing of the cube scene.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fiedler;

/// Bit widths of the eight fields, in order.
const WIDTHS: [u32; 8] = [1, 18, 18, 14, 2, 9, 9, 9];

fn check_schema(schema: &Schema) -> Result<(), Error> {
    let unsupported = || Error::Unsupported("fiedler codes the cube schema only".into());
    let [class] = schema.classes else { return Err(unsupported()) };
    if class.fields.len() != WIDTHS.len() {
        return Err(unsupported());
    }
    for (i, (field, &w)) in class.fields.iter().zip(&WIDTHS).enumerate() {
        let categorical = matches!(field.coding, Coding::Categorical);
        if bits_for_range(field.min, field.max) != w || categorical != (i == 0 || i == 4) {
            return Err(unsupported());
        }
    }
    Ok(())
}

impl Technique for Fiedler {
    fn name(&self) -> &'static str {
        "fiedler"
    }

    fn start(&self, setup: &Setup) -> Result<Halves, Error> {
        check_schema(setup.schema)?;
        let n = setup.capacity;
        Ok((
            Box::new(FiedlerEncoder {
                schema: setup.schema,
                n,
                ring: Ring::new(),
                buf: vec![0; 16 + n * 16],
                changed: Vec::new(),
            }),
            Box::new(FiedlerDecoder { schema: setup.schema, n, ring: Ring::new() }),
        ))
    }
}

/// Bits of a cube index for `n` cubes.
fn index_bits(n: usize) -> u32 {
    bits_for_range(0, n.saturating_sub(1).max(1) as i32)
}

fn relative_index_bits(d: usize) -> u32 {
    match d {
        1..=8 => 4,
        9..=40 => 7,
        _ => 12,
    }
}

struct FiedlerEncoder {
    schema: &'static Schema,
    n: usize,
    ring: Ring,
    buf: Vec<u8>,
    changed: Vec<usize>,
}

fn w(bw: &mut BitWriter<'_>, v: u32, bits: u32) -> Result<(), Error> {
    bw.write(v, bits).map_err(|e| Error::Encode(e.to_string()))
}

fn r(br: &mut BitReader<'_>, bits: u32) -> Result<u32, Error> {
    br.read(bits).map_err(|e| Error::Decode(e.to_string()))
}

/// Writes the raw values `row[from..to]` (offsets from each field's minimum) absolutely.
fn write_absolute(
    bw: &mut BitWriter<'_>,
    schema: &Schema,
    row: &[i32],
    from: usize,
    to: usize,
) -> Result<(), Error> {
    let fields = schema.classes[0].fields;
    for i in from..to {
        w(bw, (row[i] - fields[i].min) as u32, WIDTHS[i])?;
    }
    Ok(())
}

fn read_absolute(
    br: &mut BitReader<'_>,
    schema: &Schema,
    row: &mut [i32],
    from: usize,
    to: usize,
) -> Result<(), Error> {
    let fields = schema.classes[0].fields;
    for i in from..to {
        let v = i64::from(fields[i].min) + i64::from(r(br, WIDTHS[i])?);
        if v > i64::from(fields[i].max) {
            return Err(Error::Decode("value out of range".into()));
        }
        row[i] = v as i32;
    }
    Ok(())
}

/// Writes deltas with a "small" bit each: `small` bits for `[-2^(small-1), …)`, else `large`.
/// Returns false (writing nothing) if a delta does not fit the large range.
fn write_deltas(
    bw: &mut BitWriter<'_>,
    deltas: &[i32],
    small: u32,
    large: u32,
) -> Result<(), Error> {
    for &d in deltas {
        let (hs, hl) = (1i32 << (small - 1), 1i32 << (large - 1));
        if (-hs..hs).contains(&d) {
            w(bw, 1, 1)?;
            w(bw, (d + hs) as u32, small)?;
        } else {
            w(bw, 0, 1)?;
            w(bw, (d + hl) as u32, large)?;
        }
    }
    Ok(())
}

fn fits(deltas: &[i32], large: u32) -> bool {
    let hl = 1i32 << (large - 1);
    deltas.iter().all(|d| (-hl..hl).contains(d))
}

fn read_delta(br: &mut BitReader<'_>, small: u32, large: u32) -> Result<i32, Error> {
    let (hs, hl) = (1i32 << (small - 1), 1i32 << (large - 1));
    Ok(if r(br, 1)? == 1 { r(br, small)? as i32 - hs } else { r(br, large)? as i32 - hl })
}

impl Encoder for FiedlerEncoder {
    fn encode(&mut self, frame: u32, s: &Snapshot, out: &mut Vec<u8>) -> Result<(), Error> {
        if s.len() != self.n || s.ids.iter().enumerate().any(|(i, &id)| id as usize != i) {
            return Err(Error::Unsupported("fiedler needs the same cubes 0..n every frame".into()));
        }
        let base = self.ring.acked_before(frame, 1).first().copied();
        let base_snapshot = base.and_then(|b| self.ring.get(b)).map(|k| &k.snapshot);
        let schema = self.schema;
        let mut bw = BitWriter::new(&mut self.buf);
        w(&mut bw, u32::from(to_wire(frame)), 16)?;
        w(&mut bw, base.map_or(0, |b| frame.wrapping_sub(b)), 5)?;
        match base_snapshot {
            None => {
                for i in 0..self.n {
                    write_absolute(&mut bw, schema, s.row(i), 0, 8)?;
                }
            }
            Some(b) => {
                self.changed.clear();
                self.changed.extend((0..self.n).filter(|&i| s.row(i) != b.row(i)));
                let ib = index_bits(self.n);
                let mut index_cost = u64::from(ib);
                let mut prev = None;
                for &i in &self.changed {
                    index_cost += u64::from(match prev {
                        None => ib,
                        Some(p) => relative_index_bits(i - p),
                    });
                    prev = Some(i);
                }
                if index_cost < self.n as u64 {
                    w(&mut bw, 0, 1)?;
                    w(&mut bw, self.changed.len() as u32, ib)?;
                    let mut prev = None;
                    for &i in &self.changed {
                        match prev {
                            None => w(&mut bw, i as u32, ib)?,
                            Some(p) => {
                                let d = i - p;
                                match d {
                                    1..=8 => w(&mut bw, 0b1000 | (d as u32 - 1), 4)?,
                                    9..=40 => w(&mut bw, 0b01_00000 | (d as u32 - 9), 7)?,
                                    _ => {
                                        w(&mut bw, 0, 2)?;
                                        w(&mut bw, (d - 41) as u32, ib.max(10))?;
                                    }
                                }
                            }
                        }
                        prev = Some(i);
                    }
                } else {
                    w(&mut bw, 1, 1)?;
                    let mut next = self.changed.iter().peekable();
                    for i in 0..self.n {
                        let on = next.peek().is_some_and(|&&c| c == i);
                        if on {
                            next.next();
                        }
                        w(&mut bw, u32::from(on), 1)?;
                    }
                }
                for &i in &self.changed {
                    let (row, old) = (s.row(i), b.row(i));
                    w(&mut bw, (row[0] - schema.classes[0].fields[0].min) as u32, 1)?;
                    // Position.
                    let pos_changed = row[1..4] != old[1..4];
                    w(&mut bw, u32::from(pos_changed), 1)?;
                    if pos_changed {
                        let d = [row[1] - old[1], row[2] - old[2], row[3] - old[3]];
                        if fits(&d, 9) {
                            w(&mut bw, 1, 1)?;
                            write_deltas(&mut bw, &d, 5, 9)?;
                        } else {
                            w(&mut bw, 0, 1)?;
                            write_absolute(&mut bw, schema, row, 1, 4)?;
                        }
                    }
                    // Orientation.
                    let ori_changed = row[4..8] != old[4..8];
                    w(&mut bw, u32::from(ori_changed), 1)?;
                    if ori_changed {
                        let d = [row[5] - old[5], row[6] - old[6], row[7] - old[7]];
                        if row[4] == old[4] && fits(&d, 8) {
                            w(&mut bw, 1, 1)?;
                            write_deltas(&mut bw, &d, 5, 8)?;
                        } else {
                            w(&mut bw, 0, 1)?;
                            write_absolute(&mut bw, schema, row, 4, 8)?;
                        }
                    }
                }
            }
        }
        let len = bw.finish().map_err(|e| Error::Encode(e.to_string()))?;
        out.clear();
        out.extend_from_slice(&self.buf[..len]);
        self.ring.put(frame, s, &[]);
        Ok(())
    }

    fn receive_ack(&mut self, ack: &Ack) {
        self.ring.ack(ack);
    }

    fn memory_bytes(&self) -> usize {
        self.ring.memory() + self.buf.capacity() + self.changed.capacity() * 8
    }
}

struct FiedlerDecoder {
    schema: &'static Schema,
    n: usize,
    ring: Ring,
}

impl Decoder for FiedlerDecoder {
    fn decode(&mut self, packet: &[u8], out: &mut Snapshot) -> Result<u32, Error> {
        let schema = self.schema;
        let mut br = BitReader::new(packet);
        let frame = full_frame(self.ring.newest(), r(&mut br, 16)? as u16);
        let distance = r(&mut br, 5)?;
        let mut rows = vec![[0i32; 8]; self.n];
        if distance == 0 {
            for row in rows.iter_mut() {
                read_absolute(&mut br, schema, row, 0, 8)?;
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
            let ib = index_bits(self.n);
            let mut changed = Vec::new();
            if r(&mut br, 1)? == 0 {
                let count = r(&mut br, ib)? as usize;
                if count > self.n {
                    return Err(Error::Decode("too many changed cubes".into()));
                }
                let mut prev: Option<usize> = None;
                for _ in 0..count {
                    let i = match prev {
                        None => r(&mut br, ib)? as usize,
                        Some(p) => {
                            let d = if r(&mut br, 1)? == 1 {
                                r(&mut br, 3)? as usize + 1
                            } else if r(&mut br, 1)? == 1 {
                                r(&mut br, 5)? as usize + 9
                            } else {
                                r(&mut br, ib.max(10))? as usize + 41
                            };
                            p + d
                        }
                    };
                    if i >= self.n {
                        return Err(Error::Decode("cube index out of range".into()));
                    }
                    changed.push(i);
                    prev = Some(i);
                }
            } else {
                for i in 0..self.n {
                    if r(&mut br, 1)? == 1 {
                        changed.push(i);
                    }
                }
            }
            let fields = schema.classes[0].fields;
            for &i in &changed {
                let row = &mut rows[i];
                row[0] = fields[0].min + r(&mut br, 1)? as i32;
                if r(&mut br, 1)? == 1 {
                    if r(&mut br, 1)? == 1 {
                        for v in &mut row[1..4] {
                            *v += read_delta(&mut br, 5, 9)?;
                        }
                    } else {
                        read_absolute(&mut br, schema, row, 1, 4)?;
                    }
                }
                if r(&mut br, 1)? == 1 {
                    if r(&mut br, 1)? == 1 {
                        for v in &mut row[5..8] {
                            *v += read_delta(&mut br, 5, 8)?;
                        }
                    } else {
                        read_absolute(&mut br, schema, row, 4, 8)?;
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
