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
use netschema_runtime::engine::frame::{WINDOW, from_wire, to_wire};
use netschema_runtime::model::predict::{MAX_SAMPLES, Predictor, PredictorTable};
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

    fn start(&self, setup: &Setup<'_>) -> Result<Halves, Error> {
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
// BD and PD: one framing, two ways of coding a row
//
// Packet: frame (16 wire bits), the history (see `RowCoding::write_history`), then the body
// compressed against the body of the history's newest frame. Body: what the row coding chose
// for the whole frame (`RowCoding::begin_encode`), the entity count (u32), then per entity its
// id minus the previous id (u32), its class (u16) and its row (`RowCoding::encode_row`).

/// What tells `BD` from `PD`: how many acknowledged frames a packet refers to, how the header
/// lists them, and how an entity's row becomes body bytes and back given its rows there.
trait RowCoding: Clone + 'static {
    /// Most history frames a packet refers to.
    const HISTORY: usize;
    /// The technique's name with each compressor, in the order of [`named`].
    const NAMES: [&'static str; 4];
    /// Writes the history's offsets (frames back, newest first) into the packet header.
    fn write_history(offsets: &[u32], out: &mut Vec<u8>);
    /// Reads what [`RowCoding::write_history`] wrote.
    fn read_history(r: &mut Reader<'_>) -> Result<Vec<u32>, Error>;
    /// Prepares to encode `s` against `history` (at `offsets`), writing what the rows depend
    /// on at the start of the body; by default nothing.
    fn begin_encode(
        &mut self,
        _offsets: &[u32],
        _history: &[&Snapshot],
        _s: &Snapshot,
        _body: &mut Vec<u8>,
    ) {
    }
    /// Reads what [`RowCoding::begin_encode`] wrote.
    fn begin_decode(&mut self, _offsets: &[u32], _b: &mut Reader<'_>) -> Result<(), Error> {
        Ok(())
    }
    /// Writes the row of an entity of `class`, given its rows in the history.
    fn encode_row(&self, class: usize, history: &Rows<'_>, row: &[i32], body: &mut Vec<u8>);
    /// Reads what [`RowCoding::encode_row`] wrote into `row` (empty on entry).
    fn decode_row(
        &self,
        class: usize,
        history: &Rows<'_>,
        b: &mut Reader<'_>,
        row: &mut Vec<i32>,
    ) -> Result<(), Error>;
}

/// Rows of an entity at each history frame, as long as it exists there (newest first).
type Rows<'a> = [Option<&'a [i32]>; MAX_SAMPLES];

/// The name among `names` (zlib 6, zlib 9, other zlib, zstd) for `compression`.
fn named(compression: Compression, names: [&'static str; 4]) -> &'static str {
    match compression {
        Compression::Zlib(6) => names[0],
        Compression::Zlib(9) => names[1],
        Compression::Zlib(_) => names[2],
        Compression::Zstd(_) => names[3],
    }
}

/// The two halves of a `BD` or `PD` technique.
fn start<R: RowCoding>(
    compression: Compression,
    setup: &Setup<'_>,
    coding: R,
) -> Result<Halves, Error> {
    let bound = body_bound(setup.schema, setup.capacity);
    Ok((
        Box::new(DiffEncoder {
            ring: Ring::new(),
            packer: Packer::new(compression)?,
            body: Vec::new(),
            coding: coding.clone(),
        }),
        Box::new(DiffDecoder {
            schema: setup.schema,
            ring: Ring::new(),
            unpacker: Unpacker::new(compression, bound)?,
            body: Vec::new(),
            coding,
        }),
    ))
}

/// The rows of entity `id` of `class` found by `cursors` (one per history frame).
fn history_rows<'a>(cursors: &mut [Cursor<'a>], id: u32, class: u16) -> Rows<'a> {
    let mut rows = [None; MAX_SAMPLES];
    for (row, c) in rows.iter_mut().zip(cursors.iter_mut()) {
        match c.find(id, class) {
            Some(r) => *row = Some(r),
            None => break,
        }
    }
    rows
}

struct DiffEncoder<R> {
    ring: Ring,
    packer: Packer,
    body: Vec<u8>,
    coding: R,
}

impl<R: RowCoding> Encoder for DiffEncoder<R> {
    fn encode(&mut self, frame: u32, s: &Snapshot, out: &mut Vec<u8>) -> Result<(), Error> {
        let history = self.ring.spaced_history(frame, R::HISTORY);
        let offsets: Vec<u32> = history.iter().map(|&h| frame.wrapping_sub(h)).collect();
        let kept: Vec<&Kept> = history.iter().filter_map(|&h| self.ring.get(h)).collect();
        let snapshots: Vec<&Snapshot> = kept.iter().map(|k| &k.snapshot).collect();
        let dict: &[u8] = kept.first().map_or(&[], |k| &k.body);

        let body = &mut self.body;
        body.clear();
        self.coding.begin_encode(&offsets, &snapshots, s, body);
        body.extend_from_slice(&(s.len() as u32).to_le_bytes());
        let mut cursors: Vec<Cursor<'_>> = snapshots.iter().map(|s| Cursor::new(s)).collect();
        let mut prev = 0u32;
        for i in 0..s.len() {
            let (id, class) = (s.ids[i], s.classes[i]);
            body.extend_from_slice(&id.wrapping_sub(prev).to_le_bytes());
            body.extend_from_slice(&class.to_le_bytes());
            prev = id;
            let rows = history_rows(&mut cursors, id, class);
            self.coding.encode_row(usize::from(class), &rows, s.row(i), body);
        }
        out.clear();
        out.extend_from_slice(&to_wire(frame).to_le_bytes());
        R::write_history(&offsets, out);
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

struct DiffDecoder<R> {
    schema: &'static Schema,
    ring: Ring,
    unpacker: Unpacker,
    body: Vec<u8>,
    coding: R,
}

impl<R: RowCoding> Decoder for DiffDecoder<R> {
    fn decode(&mut self, packet: &[u8], out: &mut Snapshot) -> Result<u32, Error> {
        let schema = self.schema;
        let mut r = Reader::new(packet);
        let frame = full_frame(self.ring.newest, r.u16()?);
        let offsets = R::read_history(&mut r)?;
        let mut snapshots = Vec::with_capacity(offsets.len());
        let mut dict: &[u8] = &[];
        for &o in &offsets {
            if o == 0 || o >= WINDOW {
                return Err(Error::Decode("history frame outside the window".into()));
            }
            let k = self
                .ring
                .get(frame.wrapping_sub(o))
                .ok_or_else(|| Error::Decode("unknown baseline".into()))?;
            if snapshots.is_empty() {
                dict = &k.body;
            }
            snapshots.push(&k.snapshot);
        }
        let mut body = std::mem::take(&mut self.body);
        self.unpacker.unpack(dict, r.rest(), &mut body)?;

        let mut b = Reader::new(&body);
        self.coding.begin_decode(&offsets, &mut b)?;
        out.clear();
        let count = b.u32()? as usize;
        let mut cursors: Vec<Cursor<'_>> = snapshots.iter().map(|s| Cursor::new(s)).collect();
        let mut prev = 0u32;
        let mut row = Vec::new();
        for _ in 0..count {
            let id = prev.wrapping_add(b.u32()?);
            let class = b.u16()?;
            if out.ids.last().is_some_and(|&last| last >= id) {
                return Err(Error::Decode("ids do not ascend".into()));
            }
            prev = id;
            if usize::from(class) >= schema.classes.len() {
                return Err(Error::Decode("unknown class".into()));
            }
            let rows = history_rows(&mut cursors, id, class);
            row.clear();
            self.coding.decode_row(usize::from(class), &rows, &mut b, &mut row)?;
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
// BD

/// `BD-…`: bytes differenced against the newest acknowledged frame, then compressed.
#[derive(Clone, Copy, Debug)]
pub struct ByteDiff {
    /// The compressor.
    pub compression: Compression,
}

impl Technique for ByteDiff {
    fn name(&self) -> &'static str {
        named(self.compression, ByteRows::NAMES)
    }

    fn start(&self, setup: &Setup<'_>) -> Result<Halves, Error> {
        start(self.compression, setup, ByteRows { schema: setup.schema })
    }
}

/// `BD`'s rows: the bytes of each value minus, byte by byte and wrapping, those of the same
/// value at the baseline (zeros for an entity the baseline lacks).
#[derive(Clone, Copy, Debug)]
struct ByteRows {
    schema: &'static Schema,
}

/// The bytes of `v` in the byte layout (`v - min`, little endian; only the first
/// [`field_width`] can be non-zero).
fn layout_bytes(field: &Field, v: i32) -> [u8; 4] {
    ((i64::from(v) - i64::from(field.min)) as u32).to_le_bytes()
}

/// The bytes of the baseline's value of field `f`, or zeros without a baseline.
fn base_bytes(history: &Rows<'_>, field: &Field, f: usize) -> [u8; 4] {
    history[0].map_or([0; 4], |base| layout_bytes(field, base[f]))
}

impl RowCoding for ByteRows {
    const HISTORY: usize = 1;
    const NAMES: [&'static str; 4] = ["BD-Z6", "BD-Z9", "BD-Z", "BD-zstd"];

    /// One byte: the baseline's distance, 0 for none.
    fn write_history(offsets: &[u32], out: &mut Vec<u8>) {
        out.push(offsets.first().map_or(0, |&o| o as u8));
    }

    fn read_history(r: &mut Reader<'_>) -> Result<Vec<u32>, Error> {
        Ok(match r.u8()? {
            0 => Vec::new(),
            distance => vec![u32::from(distance)],
        })
    }

    fn encode_row(&self, class: usize, history: &Rows<'_>, row: &[i32], body: &mut Vec<u8>) {
        for (f, (field, &v)) in self.schema.classes[class].fields.iter().zip(row).enumerate() {
            let w = field_width(field);
            let base = base_bytes(history, field, f);
            let bytes = layout_bytes(field, v);
            body.extend(bytes[..w].iter().zip(&base[..w]).map(|(v, b)| v.wrapping_sub(*b)));
        }
    }

    fn decode_row(
        &self,
        class: usize,
        history: &Rows<'_>,
        b: &mut Reader<'_>,
        row: &mut Vec<i32>,
    ) -> Result<(), Error> {
        for (f, field) in self.schema.classes[class].fields.iter().enumerate() {
            let mut bytes = base_bytes(history, field, f);
            for (v, d) in bytes.iter_mut().zip(b.bytes(field_width(field))?) {
                *v = v.wrapping_add(*d);
            }
            let v = i64::from(field.min) + i64::from(u32::from_le_bytes(bytes));
            if v > i64::from(field.max) {
                return Err(Error::Decode(format!("value of {} out of range", field.name)));
            }
            row.push(v as i32);
        }
        Ok(())
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
        named(self.compression, PredictedRows::NAMES)
    }

    fn start(&self, setup: &Setup<'_>) -> Result<Halves, Error> {
        let coding = PredictedRows {
            schema: setup.schema,
            table: PredictorTable::new(&[]),
            orders: Vec::new(),
        };
        start(self.compression, setup, coding)
    }
}

/// `PD`'s rows: each value's residual against its prediction, as a two's-complement integer
/// of the field's width.
#[derive(Clone, Debug)]
struct PredictedRows {
    schema: &'static Schema,
    /// Predictor vectors at the frame's history offsets.
    table: PredictorTable,
    /// Order (samples) each field predicts with this frame, by `model_offset(class) + field`.
    orders: Vec<usize>,
}

/// The samples (newest first) of one entity's field in its history, and how many there are.
fn samples_of(rows: &Rows<'_>, f: usize) -> ([i32; MAX_SAMPLES], usize) {
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

/// The numeric fields in schema order (the order of their predictor orders in a body): the
/// index of each in [`PredictedRows::orders`] and its candidate predictors.
fn numeric_fields(schema: &Schema) -> Vec<(usize, &'static [Predictor])> {
    let mut out = Vec::new();
    for (c, class) in schema.classes.iter().enumerate() {
        for (f, field) in class.fields.iter().enumerate() {
            if let Coding::Numeric(candidates) = field.coding {
                out.push((schema.model_offset(c) + f, candidates));
            }
        }
    }
    out
}

/// Bits of the zigzag code of `r` (what a residual costs, roughly, in the order choice).
fn zigzag_bits(r: i32) -> u32 {
    let z = ((r << 1) ^ (r >> 31)) as u32;
    32 - z.leading_zeros()
}

impl PredictedRows {
    /// The prediction of field `f` of an entity of `class` from its history rows.
    fn prediction(&self, class: usize, history: &Rows<'_>, f: usize) -> i32 {
        let schema = self.schema;
        let field = &schema.classes[class].fields[f];
        let (samples, k) = samples_of(history, f);
        let order = match field.coding {
            Coding::Numeric(_) => self.orders[schema.model_offset(class) + f],
            Coding::Categorical => 1,
        };
        predict(&self.table, field, &samples[..k], order)
    }
}

impl RowCoding for PredictedRows {
    const HISTORY: usize = MAX_SAMPLES;
    const NAMES: [&'static str; 4] = ["PD-Z6", "PD-Z9", "PD-Z", "PD-zstd"];

    /// The number of offsets (one byte), then each offset (one byte).
    fn write_history(offsets: &[u32], out: &mut Vec<u8>) {
        out.push(offsets.len() as u8);
        out.extend(offsets.iter().map(|&o| o as u8));
    }

    fn read_history(r: &mut Reader<'_>) -> Result<Vec<u32>, Error> {
        let n = usize::from(r.u8()?);
        if n > MAX_SAMPLES {
            return Err(Error::Decode("history too long".into()));
        }
        (0..n).map(|_| r.u8().map(u32::from)).collect()
    }

    /// Chooses the order of every numeric field (fewest residual bits over the frame) and
    /// writes the orders, one byte each.
    fn begin_encode(
        &mut self,
        offsets: &[u32],
        history: &[&Snapshot],
        s: &Snapshot,
        body: &mut Vec<u8>,
    ) {
        let schema = self.schema;
        self.table = PredictorTable::new(offsets);
        let mut cost = vec![[0u64; MAX_SAMPLES + 1]; schema.total_fields];
        let mut cursors: Vec<Cursor<'_>> = history.iter().map(|s| Cursor::new(s)).collect();
        for i in 0..s.len() {
            let (id, class) = (s.ids[i], s.classes[i]);
            let rows = history_rows(&mut cursors, id, class);
            if rows[0].is_none() {
                continue;
            }
            let at = schema.model_offset(usize::from(class));
            let fields = schema.classes[usize::from(class)].fields;
            for (f, (field, &v)) in fields.iter().zip(s.row(i)).enumerate() {
                if let Coding::Numeric(candidates) = field.coding {
                    let (samples, k) = samples_of(&rows, f);
                    for p in candidates {
                        let pred = predict(&self.table, field, &samples[..k], p.samples());
                        cost[at + f][p.samples()] +=
                            u64::from(zigzag_bits(field.residual(v, pred)));
                    }
                }
            }
        }
        self.orders.clear();
        self.orders.resize(schema.total_fields, 1);
        for (at, candidates) in numeric_fields(schema) {
            self.orders[at] = candidates
                .iter()
                .min_by_key(|p| (cost[at][p.samples()], p.samples()))
                .map_or(1, |p| p.samples());
            body.push(self.orders[at] as u8);
        }
    }

    fn begin_decode(&mut self, offsets: &[u32], b: &mut Reader<'_>) -> Result<(), Error> {
        let schema = self.schema;
        self.table = PredictorTable::new(offsets);
        self.orders.clear();
        self.orders.resize(schema.total_fields, 1);
        for (at, _) in numeric_fields(schema) {
            let o = usize::from(b.u8()?);
            if o > MAX_SAMPLES {
                return Err(Error::Decode("bad predictor order".into()));
            }
            self.orders[at] = o;
        }
        Ok(())
    }

    fn encode_row(&self, class: usize, history: &Rows<'_>, row: &[i32], body: &mut Vec<u8>) {
        for (f, (field, &v)) in self.schema.classes[class].fields.iter().zip(row).enumerate() {
            let r = field.residual(v, self.prediction(class, history, f));
            body.extend_from_slice(&r.to_le_bytes()[..field_width(field)]);
        }
    }

    fn decode_row(
        &self,
        class: usize,
        history: &Rows<'_>,
        b: &mut Reader<'_>,
        row: &mut Vec<i32>,
    ) -> Result<(), Error> {
        for (f, field) in self.schema.classes[class].fields.iter().enumerate() {
            let w = field_width(field);
            let mut raw = [0u8; 4];
            raw[..w].copy_from_slice(b.bytes(w)?);
            let shift = 32 - 8 * w as u32;
            let residual = (i32::from_le_bytes(raw) << shift) >> shift;
            row.push(field.reconstruct(self.prediction(class, history, f), residual));
        }
        Ok(())
    }
}
