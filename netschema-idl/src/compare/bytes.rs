//! The byte-oriented techniques of Orsten (2011) §7.2: `BC` (the whole snapshot, here through
//! bitcode), `BD` (bytes differenced against the acked baseline, then a general-purpose
//! compressor) and `PD` (polynomial prediction residuals written as plain integers, then a
//! general-purpose compressor).
//!
//! # Byte layout of a row
//!
//! Every raw value is written as `value - min` in the fewest whole bytes that hold the field's
//! range (little endian), so a 17-bit position takes 3 bytes and a colour channel 1 byte.
//! `BD` subtracts, byte by byte and wrapping, the bytes of the same entity's row at the
//! baseline (an entity absent from the baseline is differenced against zeros). `PD` writes
//! the residual of each value against its prediction (wrapped into the field's range) as a
//! two's-complement integer of the same width.
//!
//! # Compressor state between packets
//!
//! Seed 000 lets zlib keep its state from packet to packet. Over a lossy link a continuous
//! stream breaks at the first lost packet, so here the compressor's window is primed with
//! what both ends are known to share: the uncompressed body of the baseline frame's packet,
//! which the client has acknowledged (zlib's preset dictionary, zstd's raw-content
//! dictionary). Without loss this is the same history a continuous stream would have had,
//! reaching back one round trip instead of one packet. Each zlib packet ends with a sync
//! flush, as the seed's stream did.

use flate2::{Compress, Decompress, FlushCompress, FlushDecompress};
use netschema_runtime::frame::{WINDOW, from_wire, to_wire};
use netschema_runtime::predict::{MAX_SAMPLES, Predictor, PredictorTable};
use netschema_runtime::quant::bits_for_range;
use netschema_runtime::schema::{Coding, Field, Schema};

use super::{Ack, Decoder, Encoder, Error, Halves, Setup, Snapshot, Technique};

/// Bytes a field's raw value takes in the byte layout: `ceil(bits / 8)`, at least 1.
pub fn field_width(field: &Field) -> usize {
    (bits_for_range(field.min, field.max) as usize).div_ceil(8).max(1)
}

/// Most bytes a body of `capacity` entities of `schema` can take (any technique here).
fn body_bound(schema: &Schema, capacity: usize) -> usize {
    let row = schema
        .classes
        .iter()
        .map(|c| c.fields.iter().map(field_width).sum::<usize>())
        .max()
        .unwrap_or(0);
    64 + schema.total_fields + capacity * (6 + row)
}

/// A frame kept by an encoder or decoder: its snapshot and the uncompressed body of its
/// packet.
#[derive(Debug, Default)]
pub(super) struct Kept {
    frame: u32,
    pub(super) snapshot: Snapshot,
    body: Vec<u8>,
    acked: bool,
}

/// The last [`WINDOW`] frames of one end, by `frame % WINDOW`.
#[derive(Debug)]
pub(super) struct Ring {
    slots: Vec<Option<Kept>>,
    newest: Option<u32>,
}

impl Ring {
    pub(super) fn new() -> Self {
        Ring { slots: (0..WINDOW).map(|_| None).collect(), newest: None }
    }

    pub(super) fn newest(&self) -> Option<u32> {
        self.newest
    }

    pub(super) fn get(&self, frame: u32) -> Option<&Kept> {
        self.slots[(frame % WINDOW) as usize].as_ref().filter(|k| k.frame == frame)
    }

    /// Stores a frame (reusing the buffers of the one it replaces).
    pub(super) fn put(&mut self, frame: u32, snapshot: &Snapshot, body: &[u8]) {
        let slot = &mut self.slots[(frame % WINDOW) as usize];
        let kept = slot.get_or_insert_with(Kept::default);
        kept.frame = frame;
        kept.acked = false;
        kept.snapshot.clone_from(snapshot);
        kept.body.clear();
        kept.body.extend_from_slice(body);
        if self.newest.is_none_or(|n| (frame.wrapping_sub(n) as i32) > 0) {
            self.newest = Some(frame);
        }
    }

    pub(super) fn ack(&mut self, ack: &Ack) {
        let Some(newest) = self.newest else { return };
        for f in ack.frames(newest) {
            if let Some(k) = self.slots[(f % WINDOW) as usize].as_mut().filter(|k| k.frame == f) {
                k.acked = true;
            }
        }
    }

    /// Acknowledged frames before `frame` inside the window, newest first, at most `n`.
    pub(super) fn acked_before(&self, frame: u32, n: usize) -> Vec<u32> {
        (1..WINDOW)
            .map(|back| frame.wrapping_sub(back))
            .filter(|&f| self.get(f).is_some_and(|k| k.acked))
            .take(n)
            .collect()
    }

    /// History for predictions at `frame`, newest first, at most `n`: the newest acknowledged
    /// frame (the baseline, `b` frames back), then the acknowledged frames nearest to `2b`,
    /// `3b`, … frames back, as the runtime's peer picks them (evenly spaced samples amplify
    /// quantisation noise far less than a cluster of old ones when extrapolating).
    pub(super) fn spaced_history(&self, frame: u32, n: usize) -> Vec<u32> {
        let acked = |back: u32| self.get(frame.wrapping_sub(back)).is_some_and(|k| k.acked);
        let Some(base) = (1..WINDOW).find(|&back| acked(back)) else { return Vec::new() };
        let mut out = vec![frame.wrapping_sub(base)];
        let mut previous = base;
        while out.len() < n {
            let target = base * (out.len() as u32 + 1);
            let nearest = (previous + 1..WINDOW)
                .filter(|&back| acked(back))
                .min_by_key(|&back| back.abs_diff(target));
            let Some(back) = nearest else { break };
            out.push(frame.wrapping_sub(back));
            previous = back;
        }
        out
    }

    pub(super) fn ack_for_client(&self) -> Option<Ack> {
        let newest = self.newest?;
        Some(Ack::from_frames(newest, |f| self.get(f).is_some()))
    }

    pub(super) fn memory(&self) -> usize {
        self.slots
            .iter()
            .flatten()
            .map(|k| {
                k.snapshot.ids.capacity() * 4
                    + k.snapshot.classes.capacity() * 2
                    + k.snapshot.starts.capacity() * 4
                    + k.snapshot.values.capacity() * 4
                    + k.body.capacity()
                    + std::mem::size_of::<Kept>()
            })
            .sum::<usize>()
            + self.slots.len() * std::mem::size_of::<Option<Kept>>()
    }
}

/// Finds rows of ascending ids in a snapshot, walking forward.
struct Cursor<'a> {
    snapshot: &'a Snapshot,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(snapshot: &'a Snapshot) -> Self {
        Cursor { snapshot, at: 0 }
    }

    /// The row of `id` if present with `class`; ids asked must not decrease.
    fn find(&mut self, id: u32, class: u16) -> Option<&'a [i32]> {
        let s = self.snapshot;
        while self.at < s.ids.len() && s.ids[self.at] < id {
            self.at += 1;
        }
        (self.at < s.ids.len() && s.ids[self.at] == id && s.classes[self.at] == class)
            .then(|| s.row(self.at))
    }
}

/// A little-endian reader over a body that reports truncation as an error.
struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(buf: &'a [u8]) -> Self {
        Reader { buf, at: 0 }
    }

    fn bytes(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let out = self
            .buf
            .get(self.at..self.at + n)
            .ok_or_else(|| Error::Decode("packet ends early".into()))?;
        self.at += n;
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.bytes(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, Error> {
        let b = self.bytes(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32, Error> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn rest(&self) -> &'a [u8] {
        &self.buf[self.at.min(self.buf.len())..]
    }
}

/// The general-purpose compressor behind a `BD` or `PD` technique.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// zlib (raw deflate) at this level.
    Zlib(u32),
    /// zstd at this level.
    Zstd(i32),
}

/// Compresses bodies, primed with a dictionary.
struct Packer {
    kind: Compression,
    zlib: Option<Compress>,
    zstd: Option<zstd::bulk::Compressor<'static>>,
}

impl Packer {
    fn new(kind: Compression) -> Result<Self, Error> {
        let (zlib, zstd) = match kind {
            Compression::Zlib(level) => {
                (Some(Compress::new(flate2::Compression::new(level), false)), None)
            }
            Compression::Zstd(level) => (
                None,
                Some(zstd::bulk::Compressor::new(level).map_err(|e| Error::Encode(e.to_string()))?),
            ),
        };
        Ok(Packer { kind, zlib, zstd })
    }

    fn pack(&mut self, dict: &[u8], body: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let err = |e: &dyn std::fmt::Display| Error::Encode(e.to_string());
        match (self.kind, &mut self.zlib, &mut self.zstd) {
            (Compression::Zlib(_), Some(z), _) => {
                z.reset();
                if !dict.is_empty() {
                    z.set_dictionary(&dict[dict.len().saturating_sub(32 * 1024)..])
                        .map_err(|e| err(&e))?;
                }
                let start = out.len();
                out.reserve(body.len() + body.len() / 100 + 256);
                let before = z.total_in();
                z.compress_vec(body, out, FlushCompress::Sync).map_err(|e| err(&e))?;
                if (z.total_in() - before) as usize != body.len() || out.len() == start {
                    return Err(Error::Encode("zlib output did not fit".into()));
                }
            }
            (Compression::Zstd(level), _, Some(z)) => {
                z.set_dictionary(level, dict).map_err(|e| err(&e))?;
                let packed = z.compress(body).map_err(|e| err(&e))?;
                out.extend_from_slice(&packed);
            }
            _ => return Err(Error::Encode("compressor not set up".into())),
        }
        Ok(())
    }
}

/// Decompresses bodies, primed with a dictionary.
struct Unpacker {
    zlib: Option<Decompress>,
    zstd: Option<zstd::bulk::Decompressor<'static>>,
    bound: usize,
}

impl Unpacker {
    fn new(kind: Compression, bound: usize) -> Result<Self, Error> {
        Ok(match kind {
            Compression::Zlib(_) => {
                Unpacker { zlib: Some(Decompress::new(false)), zstd: None, bound }
            }
            Compression::Zstd(_) => Unpacker {
                zlib: None,
                zstd: Some(
                    zstd::bulk::Decompressor::new().map_err(|e| Error::Decode(e.to_string()))?,
                ),
                bound,
            },
        })
    }

    fn unpack(&mut self, dict: &[u8], packed: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let err = |e: &dyn std::fmt::Display| Error::Decode(e.to_string());
        out.clear();
        if let Some(z) = &mut self.zlib {
            z.reset(false);
            if !dict.is_empty() {
                z.set_dictionary(&dict[dict.len().saturating_sub(32 * 1024)..])
                    .map_err(|e| err(&e))?;
            }
            let start_in = z.total_in();
            loop {
                let consumed = (z.total_in() - start_in) as usize;
                if out.len() > self.bound {
                    return Err(Error::Decode("body larger than any snapshot".into()));
                }
                out.reserve(16 * 1024);
                let before_out = out.len();
                z.decompress_vec(&packed[consumed..], out, FlushDecompress::Sync)
                    .map_err(|e| err(&e))?;
                let now = (z.total_in() - start_in) as usize;
                let progressed = now > consumed || out.len() > before_out;
                if now >= packed.len() && out.len() < out.capacity() {
                    break;
                }
                if !progressed {
                    return Err(Error::Decode("zlib stream is truncated".into()));
                }
            }
        } else if let Some(z) = &mut self.zstd {
            z.set_dictionary(dict).map_err(|e| err(&e))?;
            *out = z.decompress(packed, self.bound).map_err(|e| err(&e))?;
        }
        Ok(())
    }
}

fn put_value(out: &mut Vec<u8>, field: &Field, v: i32, width: usize) {
    let u = (i64::from(v) - i64::from(field.min)) as u32;
    out.extend_from_slice(&u.to_le_bytes()[..width]);
}

fn get_value(bytes: &[u8], field: &Field) -> Result<i32, Error> {
    let mut b = [0u8; 4];
    b[..bytes.len()].copy_from_slice(bytes);
    let v = i64::from(field.min) + i64::from(u32::from_le_bytes(b));
    if v > i64::from(field.max) {
        return Err(Error::Decode(format!("value of {} out of range", field.name)));
    }
    Ok(v as i32)
}

/// The frame number from its 16 wire bits, nearest to the newest frame held.
pub(super) fn full_frame(newest: Option<u32>, wire: u16) -> u32 {
    newest.map_or(u32::from(wire), |n| from_wire(n, wire))
}

// ---------------------------------------------------------------------------------------------
// BC

/// `BC`: the whole quantised snapshot through bitcode, every frame, no state.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bitcode;

impl Technique for Bitcode {
    fn name(&self) -> &'static str {
        "BC"
    }

    fn start(&self, setup: &Setup) -> Result<Halves, Error> {
        Ok((
            Box::new(BitcodeEncoder),
            Box::new(BitcodeDecoder { schema: setup.schema, newest: None }),
        ))
    }
}

type BitcodeFrame = (u32, Vec<u32>, Vec<u16>, Vec<i32>);

struct BitcodeEncoder;

impl Encoder for BitcodeEncoder {
    fn encode(&mut self, frame: u32, s: &Snapshot, out: &mut Vec<u8>) -> Result<(), Error> {
        out.clear();
        let value: BitcodeFrame = (frame, s.ids.clone(), s.classes.clone(), s.values.clone());
        out.extend_from_slice(&bitcode::encode(&value));
        Ok(())
    }

    fn receive_ack(&mut self, _ack: &Ack) {}

    fn memory_bytes(&self) -> usize {
        0
    }
}

struct BitcodeDecoder {
    schema: &'static Schema,
    newest: Option<u32>,
}

impl Decoder for BitcodeDecoder {
    fn decode(&mut self, packet: &[u8], out: &mut Snapshot) -> Result<u32, Error> {
        let (frame, ids, classes, values): BitcodeFrame =
            bitcode::decode(packet).map_err(|e| Error::Decode(e.to_string()))?;
        if ids.len() != classes.len() {
            return Err(Error::Decode("columns differ in length".into()));
        }
        out.clear();
        let mut start = 0usize;
        for (&id, &class) in ids.iter().zip(&classes) {
            let fields = self
                .schema
                .classes
                .get(usize::from(class))
                .ok_or_else(|| Error::Decode("unknown class".into()))?
                .fields
                .len();
            let row = values
                .get(start..start + fields)
                .ok_or_else(|| Error::Decode("rows too short".into()))?;
            out.push(id, class, row);
            start += fields;
        }
        self.newest = Some(frame);
        Ok(frame)
    }

    fn ack(&self) -> Option<Ack> {
        self.newest.map(|n| Ack::from_frames(n, |_| false))
    }

    fn memory_bytes(&self) -> usize {
        0
    }
}

// ---------------------------------------------------------------------------------------------
// BD

/// `BD-…`: bytes differenced against the newest acknowledged frame, then compressed.
#[derive(Clone, Copy, Debug)]
pub struct ByteDiff {
    /// The compressor.
    pub compression: Compression,
}

impl Technique for ByteDiff {
    fn name(&self) -> &'static str {
        match self.compression {
            Compression::Zlib(6) => "BD-Z6",
            Compression::Zlib(9) => "BD-Z9",
            Compression::Zlib(_) => "BD-Z",
            Compression::Zstd(_) => "BD-zstd",
        }
    }

    fn start(&self, setup: &Setup) -> Result<Halves, Error> {
        let bound = body_bound(setup.schema, setup.capacity);
        Ok((
            Box::new(ByteDiffEncoder {
                schema: setup.schema,
                ring: Ring::new(),
                packer: Packer::new(self.compression)?,
                body: Vec::new(),
            }),
            Box::new(ByteDiffDecoder {
                schema: setup.schema,
                ring: Ring::new(),
                unpacker: Unpacker::new(self.compression, bound)?,
                body: Vec::new(),
            }),
        ))
    }
}

struct ByteDiffEncoder {
    schema: &'static Schema,
    ring: Ring,
    packer: Packer,
    body: Vec<u8>,
}

impl Encoder for ByteDiffEncoder {
    fn encode(&mut self, frame: u32, s: &Snapshot, out: &mut Vec<u8>) -> Result<(), Error> {
        let base = self.ring.acked_before(frame, 1).first().copied();
        let empty = Snapshot::new();
        let base_kept = base.and_then(|b| self.ring.get(b));
        let base_snapshot = base_kept.map_or(&empty, |k| &k.snapshot);
        let dict: &[u8] = base_kept.map_or(&[], |k| &k.body);

        let body = &mut self.body;
        body.clear();
        body.extend_from_slice(&(s.len() as u32).to_le_bytes());
        let mut cursor = Cursor::new(base_snapshot);
        let mut prev = 0u32;
        let mut scratch = Vec::with_capacity(64);
        for i in 0..s.len() {
            let (id, class) = (s.ids[i], s.classes[i]);
            body.extend_from_slice(&id.wrapping_sub(prev).to_le_bytes());
            body.extend_from_slice(&class.to_le_bytes());
            prev = id;
            let fields = self.schema.classes[usize::from(class)].fields;
            let base_row = cursor.find(id, class);
            for (f, (field, &v)) in fields.iter().zip(s.row(i)).enumerate() {
                let w = field_width(field);
                scratch.clear();
                put_value(&mut scratch, field, v, w);
                if let Some(b) = base_row {
                    put_value(&mut scratch, field, b[f], w);
                    for k in 0..w {
                        body.push(scratch[k].wrapping_sub(scratch[w + k]));
                    }
                } else {
                    body.extend_from_slice(&scratch[..w]);
                }
            }
        }
        out.clear();
        out.extend_from_slice(&to_wire(frame).to_le_bytes());
        out.push(base.map_or(0, |b| frame.wrapping_sub(b) as u8));
        self.packer.pack(dict, body, out)?;
        let body = std::mem::take(&mut self.body);
        self.ring.put(frame, s, &body);
        self.body = body;
        Ok(())
    }

    fn receive_ack(&mut self, ack: &Ack) {
        self.ring.ack(ack);
    }

    fn memory_bytes(&self) -> usize {
        self.ring.memory() + self.body.capacity()
    }
}

struct ByteDiffDecoder {
    schema: &'static Schema,
    ring: Ring,
    unpacker: Unpacker,
    body: Vec<u8>,
}

impl Decoder for ByteDiffDecoder {
    fn decode(&mut self, packet: &[u8], out: &mut Snapshot) -> Result<u32, Error> {
        let mut r = Reader::new(packet);
        let frame = full_frame(self.ring.newest, r.u16()?);
        let distance = r.u8()?;
        let empty = Snapshot::new();
        let base_kept = if distance == 0 {
            None
        } else {
            let b = frame.wrapping_sub(u32::from(distance));
            Some(self.ring.get(b).ok_or_else(|| Error::Decode("unknown baseline".into()))?)
        };
        let base_snapshot = base_kept.map_or(&empty, |k| &k.snapshot);
        let dict: &[u8] = base_kept.map_or(&[], |k| &k.body);
        let mut body = std::mem::take(&mut self.body);
        self.unpacker.unpack(dict, r.rest(), &mut body)?;

        out.clear();
        let mut b = Reader::new(&body);
        let count = b.u32()? as usize;
        let mut cursor = Cursor::new(base_snapshot);
        let mut prev = 0u32;
        let mut row = Vec::new();
        let mut scratch = Vec::with_capacity(8);
        for _ in 0..count {
            let id = prev.wrapping_add(b.u32()?);
            let class = b.u16()?;
            if out.ids.last().is_some_and(|&last| last >= id) {
                return Err(Error::Decode("ids do not ascend".into()));
            }
            prev = id;
            let fields = self
                .schema
                .classes
                .get(usize::from(class))
                .ok_or_else(|| Error::Decode("unknown class".into()))?
                .fields;
            let base_row = cursor.find(id, class);
            row.clear();
            for (f, field) in fields.iter().enumerate() {
                let w = field_width(field);
                let bytes = b.bytes(w)?;
                let v = match base_row {
                    Some(base) => {
                        scratch.clear();
                        put_value(&mut scratch, field, base[f], w);
                        for (s, d) in scratch.iter_mut().zip(bytes) {
                            *s = s.wrapping_add(*d);
                        }
                        get_value(&scratch, field)?
                    }
                    None => get_value(bytes, field)?,
                };
                row.push(v);
            }
            out.push(id, class, &row);
        }
        self.ring.put(frame, out, &body);
        self.body = body;
        Ok(frame)
    }

    fn ack(&self) -> Option<Ack> {
        self.ring.ack_for_client()
    }

    fn memory_bytes(&self) -> usize {
        self.ring.memory() + self.body.capacity()
    }
}

// ---------------------------------------------------------------------------------------------
// PD

/// `PD-…`: each value predicted from the client's acknowledged history with the runtime's
/// polynomial predictor vectors, the residual written as a plain integer, then compressed.
///
/// The history is up to four acknowledged frames (newest first, the newest being the
/// baseline, the others spaced like the baseline distance as the runtime's peer picks them),
/// listed in the packet header. For each numeric field the encoder picks, per
/// packet, the candidate of the schema's predictor list whose residuals need the fewest bits
/// over the whole frame and sends the choice as one byte (Orsten's (2011) PD learned the choice;
/// choosing per packet with the truth in hand is at least as good). An entity predicts with
/// the chosen order or with as many samples as its own history has, whichever is less;
/// bools and enums predict the newest sample.
#[derive(Clone, Copy, Debug)]
pub struct PredictionDiff {
    /// The compressor.
    pub compression: Compression,
}

impl Technique for PredictionDiff {
    fn name(&self) -> &'static str {
        match self.compression {
            Compression::Zlib(6) => "PD-Z6",
            Compression::Zlib(9) => "PD-Z9",
            Compression::Zlib(_) => "PD-Z",
            Compression::Zstd(_) => "PD-zstd",
        }
    }

    fn start(&self, setup: &Setup) -> Result<Halves, Error> {
        let bound = body_bound(setup.schema, setup.capacity);
        Ok((
            Box::new(PredictionEncoder {
                schema: setup.schema,
                ring: Ring::new(),
                packer: Packer::new(self.compression)?,
                body: Vec::new(),
            }),
            Box::new(PredictionDecoder {
                schema: setup.schema,
                ring: Ring::new(),
                unpacker: Unpacker::new(self.compression, bound)?,
                body: Vec::new(),
            }),
        ))
    }
}

/// The samples (newest first) of one entity's field in its history, and how many there are.
fn samples_of(rows: &[Option<&[i32]>; MAX_SAMPLES], f: usize) -> ([i32; MAX_SAMPLES], usize) {
    let mut out = [0; MAX_SAMPLES];
    let mut k = 0;
    for row in rows.iter() {
        match row {
            Some(r) => {
                out[k] = r[f];
                k += 1;
            }
            None => break,
        }
    }
    (out, k)
}

/// The prediction of `field` from `k` samples with at most `order` of them.
fn predict(table: &PredictorTable, field: &Field, samples: &[i32], order: usize) -> i32 {
    let m = order.min(samples.len()).min(table.available());
    match table.get(Predictor::ALL[m]) {
        Some(v) if m > 0 => v.predict(field, &samples[..m]),
        _ => samples.first().copied().filter(|_| m > 0).unwrap_or_else(|| field.clamp(0)),
    }
}

/// Rows of an entity at each history frame, as long as it exists there (newest first).
fn history_rows<'a>(
    cursors: &mut [Cursor<'a>],
    id: u32,
    class: u16,
) -> [Option<&'a [i32]>; MAX_SAMPLES] {
    let mut rows = [None; MAX_SAMPLES];
    for (row, c) in rows.iter_mut().zip(cursors.iter_mut()) {
        match c.find(id, class) {
            Some(r) => *row = Some(r),
            None => break,
        }
    }
    rows
}

/// Order each numeric field uses, in schema order of (class, field).
fn field_orders(schema: &Schema) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (c, class) in schema.classes.iter().enumerate() {
        for (f, field) in class.fields.iter().enumerate() {
            if matches!(field.coding, Coding::Numeric(_)) {
                out.push((c, f));
            }
        }
    }
    out
}

struct PredictionEncoder {
    schema: &'static Schema,
    ring: Ring,
    packer: Packer,
    body: Vec<u8>,
}

fn zigzag_bits(r: i32) -> u32 {
    let z = ((r << 1) ^ (r >> 31)) as u32;
    32 - z.leading_zeros()
}

impl Encoder for PredictionEncoder {
    fn encode(&mut self, frame: u32, s: &Snapshot, out: &mut Vec<u8>) -> Result<(), Error> {
        let history = self.ring.spaced_history(frame, MAX_SAMPLES);
        let offsets: Vec<u32> = history.iter().map(|&h| frame.wrapping_sub(h)).collect();
        let table = PredictorTable::new(&offsets);
        let kept: Vec<&Kept> = history.iter().filter_map(|&h| self.ring.get(h)).collect();
        let dict: &[u8] = kept.first().map_or(&[], |k| &k.body);
        let schema = self.schema;

        // Choose the order of every numeric field: fewest residual bits over the frame.
        let numeric = field_orders(schema);
        let base_index = |c: usize| schema.model_offset(c);
        let mut cost = vec![[0u64; MAX_SAMPLES + 1]; schema.total_fields];
        {
            let mut cursors: Vec<Cursor<'_>> =
                kept.iter().map(|k| Cursor::new(&k.snapshot)).collect();
            for i in 0..s.len() {
                let (id, class) = (s.ids[i], s.classes[i]);
                let rows = history_rows(&mut cursors, id, class);
                if rows[0].is_none() {
                    continue;
                }
                let fields = schema.classes[usize::from(class)].fields;
                for (f, (field, &v)) in fields.iter().zip(s.row(i)).enumerate() {
                    if let Coding::Numeric(candidates) = field.coding {
                        let (samples, k) = samples_of(&rows, f);
                        for p in candidates {
                            let pred = predict(&table, field, &samples[..k], p.samples());
                            cost[base_index(usize::from(class)) + f][p.samples()] +=
                                u64::from(zigzag_bits(field.residual(v, pred)));
                        }
                    }
                }
            }
        }
        let mut orders = vec![1usize; schema.total_fields];
        for &(c, f) in &numeric {
            if let Coding::Numeric(candidates) = schema.classes[c].fields[f].coding {
                let at = base_index(c) + f;
                orders[at] = candidates
                    .iter()
                    .min_by_key(|p| (cost[at][p.samples()], p.samples()))
                    .map_or(1, |p| p.samples());
            }
        }

        let body = &mut self.body;
        body.clear();
        for &(c, f) in &numeric {
            body.push(orders[base_index(c) + f] as u8);
        }
        body.extend_from_slice(&(s.len() as u32).to_le_bytes());
        let mut cursors: Vec<Cursor<'_>> = kept.iter().map(|k| Cursor::new(&k.snapshot)).collect();
        let mut prev = 0u32;
        for i in 0..s.len() {
            let (id, class) = (s.ids[i], s.classes[i]);
            body.extend_from_slice(&id.wrapping_sub(prev).to_le_bytes());
            body.extend_from_slice(&class.to_le_bytes());
            prev = id;
            let rows = history_rows(&mut cursors, id, class);
            let fields = schema.classes[usize::from(class)].fields;
            for (f, (field, &v)) in fields.iter().zip(s.row(i)).enumerate() {
                let (samples, k) = samples_of(&rows, f);
                let order = match field.coding {
                    Coding::Numeric(_) => orders[base_index(usize::from(class)) + f],
                    Coding::Categorical => 1,
                };
                let pred = predict(&table, field, &samples[..k], order);
                let r = field.residual(v, pred);
                body.extend_from_slice(&r.to_le_bytes()[..field_width(field)]);
            }
        }
        out.clear();
        out.extend_from_slice(&to_wire(frame).to_le_bytes());
        out.push(offsets.len() as u8);
        out.extend(offsets.iter().map(|&o| o as u8));
        self.packer.pack(dict, body, out)?;
        let body = std::mem::take(&mut self.body);
        self.ring.put(frame, s, &body);
        self.body = body;
        Ok(())
    }

    fn receive_ack(&mut self, ack: &Ack) {
        self.ring.ack(ack);
    }

    fn memory_bytes(&self) -> usize {
        self.ring.memory() + self.body.capacity()
    }
}

struct PredictionDecoder {
    schema: &'static Schema,
    ring: Ring,
    unpacker: Unpacker,
    body: Vec<u8>,
}

impl Decoder for PredictionDecoder {
    fn decode(&mut self, packet: &[u8], out: &mut Snapshot) -> Result<u32, Error> {
        let schema = self.schema;
        let mut r = Reader::new(packet);
        let frame = full_frame(self.ring.newest, r.u16()?);
        let n = usize::from(r.u8()?);
        if n > MAX_SAMPLES {
            return Err(Error::Decode("history too long".into()));
        }
        let mut offsets = Vec::with_capacity(n);
        let mut kept = Vec::with_capacity(n);
        for _ in 0..n {
            let o = u32::from(r.u8()?);
            if o == 0 || o >= WINDOW {
                return Err(Error::Decode("history frame outside the window".into()));
            }
            offsets.push(o);
            let k = self
                .ring
                .get(frame.wrapping_sub(o))
                .ok_or_else(|| Error::Decode("unknown baseline".into()))?;
            kept.push(k);
        }
        let table = PredictorTable::new(&offsets);
        let dict: &[u8] = kept.first().map_or(&[], |k| &k.body);
        let mut body = std::mem::take(&mut self.body);
        self.unpacker.unpack(dict, r.rest(), &mut body)?;

        let mut b = Reader::new(&body);
        let numeric = field_orders(schema);
        let mut orders = vec![1usize; schema.total_fields];
        for &(c, f) in &numeric {
            let o = usize::from(b.u8()?);
            if o > MAX_SAMPLES {
                return Err(Error::Decode("bad predictor order".into()));
            }
            orders[schema.model_offset(c) + f] = o;
        }
        out.clear();
        let count = b.u32()? as usize;
        let mut cursors: Vec<Cursor<'_>> = kept.iter().map(|k| Cursor::new(&k.snapshot)).collect();
        let mut prev = 0u32;
        let mut row = Vec::new();
        for _ in 0..count {
            let id = prev.wrapping_add(b.u32()?);
            let class = b.u16()?;
            if out.ids.last().is_some_and(|&last| last >= id) {
                return Err(Error::Decode("ids do not ascend".into()));
            }
            prev = id;
            let fields = schema
                .classes
                .get(usize::from(class))
                .ok_or_else(|| Error::Decode("unknown class".into()))?
                .fields;
            let rows = history_rows(&mut cursors, id, class);
            row.clear();
            for (f, field) in fields.iter().enumerate() {
                let (samples, k) = samples_of(&rows, f);
                let order = match field.coding {
                    Coding::Numeric(_) => orders[schema.model_offset(usize::from(class)) + f],
                    Coding::Categorical => 1,
                };
                let pred = predict(&table, field, &samples[..k], order);
                let w = field_width(field);
                let bytes = b.bytes(w)?;
                let mut raw = [0u8; 4];
                raw[..w].copy_from_slice(bytes);
                let shift = 32 - 8 * w as u32;
                let residual = (i32::from_le_bytes(raw) << shift) >> shift;
                row.push(field.reconstruct(pred, residual));
            }
            out.push(id, class, &row);
        }
        drop(cursors);
        drop(kept);
        self.ring.put(frame, out, &body);
        self.body = body;
        Ok(frame)
    }

    fn ack(&self) -> Option<Ack> {
        self.ring.ack_for_client()
    }

    fn memory_bytes(&self) -> usize {
        self.ring.memory() + self.body.capacity()
    }
}
