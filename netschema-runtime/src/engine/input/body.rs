//! The input datagram: one walk that both ends run through a [`BinaryCoder`], the encoder
//! with the inputs to send, the decoder with whatever it reads.
//!
//! In coding order: a direct bit (1: the datagram has a base); with a base, the low 8 bits of
//! the base's sequence number (direct), then, in the models kept with the base, its distance
//! back less one; without, the whole sequence number (32 direct bits) and cold models. Then
//! the number of inputs less one, the first input's tick (with a base that has inputs, its gap
//! after the base's newest input less one; else 32 direct bits), each later input's gap after
//! the one before less one, and each input; last the check value (16 direct bits with a base,
//! 32 without).

use crate::codec::coder::BinaryCoder;
use crate::engine::ack::{fnv, mix32};
use crate::engine::input::recent::{Input, Recent};
use crate::engine::input::{CARRIED, MAX_INPUT_FIELDS, PACKETS};
use crate::model::{History, Model, neighbour};
use crate::schema::{Class, Coding, Field, Schema};
use crate::{Error, Result};

// Integers of the datagram model (the packet model of the input's model set).
const COUNT_DISTANCE: usize = 0;
const COUNT_INPUTS: usize = 1;
const COUNT_FIRST_GAP: usize = 2;
const COUNT_GAP: usize = 3;

/// Bits of the base's sequence number a datagram names.
pub(crate) const BASE_BITS: u32 = 8;

/// Marks an input datagram's check value, so that a state packet's never passes for one.
const INPUT_TAG: u32 = 0x1a9_0001;

/// A datagram's sequence number and base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    /// The sender's number of the datagram.
    pub seq: u32,
    /// The acknowledged datagram it is coded against, if any.
    pub base: Option<u32>,
}

/// The inputs a datagram carries, oldest first.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Carried {
    pub inputs: [Input; CARRIED],
    pub len: usize,
}

impl Carried {
    /// None.
    pub(crate) const EMPTY: Carried = Carried { inputs: [Input::EMPTY; CARRIED], len: 0 };

    /// The inputs, oldest first.
    pub(crate) fn as_slice(&self) -> &[Input] {
        &self.inputs[..self.len.min(CARRIED)]
    }
}

/// Codes the part of the header before the models: whether the datagram has a base, and the
/// base's low [`BASE_BITS`] bits or the whole sequence number. Returns what was coded: on the
/// decoder `(true, low bits)` or `(false, seq)`.
pub(crate) fn code_start<C: BinaryCoder>(coder: &mut C, header: &Header) -> (bool, u32) {
    if coder.direct(u32::from(header.base.is_some()), 1) == 1 {
        (true, coder.direct(header.base.unwrap_or(0), BASE_BITS))
    } else {
        (false, coder.direct(header.seq, 32))
    }
}

/// Running check value of a datagram.
struct Check(u32);

impl Check {
    /// Started over the input schema, the session, the sequence number and the base.
    fn new(schema: &Schema, session: u64, header: &Header) -> Check {
        let mut c = Check(fnv(0x811c_9dc5, INPUT_TAG));
        for word in [schema.hash, session] {
            c.add(word as u32);
            c.add((word >> 32) as u32);
        }
        c.add(header.seq);
        c.add(header.base.map_or(0, |b| header.seq.wrapping_sub(b)));
        c
    }

    fn add(&mut self, v: u32) {
        self.0 = fnv(self.0, v);
    }

    /// The value sent: 16 bits with a base, 32 without.
    fn value(&self, based: bool) -> u32 {
        let h = mix32(self.0);
        if based { h & 0xffff } else { h }
    }
}

/// Codes the rest of a datagram of `header`, starting from `models` and the inputs kept with
/// its base (`recent`), after [`code_start`]: on the encoder `header` is what it sends and
/// `carried` the inputs; on the decoder `header.base` must already be the base found and
/// `header.seq` its sequence number (the distance back is added to it), and `carried` is
/// overwritten with what is decoded. Leaves in `recent` the newest inputs after the datagram
/// and returns the check value. Counts out of range are [`Error::Corrupt`]; a check value
/// that does not match is [`Error::CheckMismatch`].
pub(crate) fn code_rest<C: BinaryCoder>(
    coder: &mut C,
    (schema, class, session): (&Schema, &Class, u64),
    models: &mut [Model],
    header: &mut Header,
    recent: &mut Recent,
    carried: &mut Carried,
) -> Result<u32> {
    let (packet, rest) = models.split_first_mut().ok_or(Error::StorageTooSmall)?;
    if let Some(base) = header.base {
        let back = header.seq.wrapping_sub(base).wrapping_sub(1) as i32;
        let back = packet.code_count(coder, COUNT_DISTANCE, back);
        if !(0..PACKETS as i32 - 1).contains(&back) {
            return Err(Error::Corrupt);
        }
        header.seq = base.wrapping_add(back as u32 + 1);
    }
    let mut check = Check::new(schema, session, header);
    let count = packet.code_count(coder, COUNT_INPUTS, carried.len as i32 - 1);
    if !(0..CARRIED as i32).contains(&count) {
        return Err(Error::Corrupt);
    }
    carried.len = count as usize + 1;
    let mut same = false;
    for i in 0..carried.len {
        let target = carried.inputs[i];
        let tick = match (recent.newest(), i) {
            (None, _) => coder.direct(target.tick, 32),
            (Some(before), _) => {
                let slot = if i == 0 { COUNT_FIRST_GAP } else { COUNT_GAP };
                let gap = target.tick.wrapping_sub(before.tick).wrapping_sub(1) as i32;
                let gap = packet.code_count(coder, slot, gap);
                if gap < 0 {
                    return Err(Error::Corrupt);
                }
                before.tick.wrapping_add(gap as u32 + 1)
            }
        };
        let input = code_input(coder, class, rest, recent, &mut same, Input { tick, ..target })?;
        check.add(input.tick);
        for &v in &input.values[..class.fields.len()] {
            check.add(v as u32);
        }
        carried.inputs[i] = input;
        recent.push(input);
    }
    let based = header.base.is_some();
    let value = check.value(based);
    let bits = if based { 16 } else { 32 };
    if coder.direct(value, bits) != value {
        return Err(Error::CheckMismatch);
    }
    Ok(value)
}

/// Codes one input against the newest inputs before it: a "same as the input before" flag
/// (in the context of whether the previous input was), then, if not the same, each field.
/// `models` are the input's model (its flags hold the flag) and its fields' models. Returns
/// the input coded.
fn code_input<C: BinaryCoder>(
    coder: &mut C,
    class: &Class,
    models: &mut [Model],
    recent: &Recent,
    same: &mut bool,
    target: Input,
) -> Result<Input> {
    let (flags, fields) = models.split_first_mut().ok_or(Error::StorageTooSmall)?;
    let n = class.fields.len().min(MAX_INPUT_FIELDS);
    let mut input = target;
    if let Some(before) = recent.newest() {
        let is_same = before.values[..n] == target.values[..n];
        *same = flags.code_flag(coder, usize::from(*same), is_same);
        if *same {
            input.values = before.values;
            return Ok(input);
        }
    }
    let table = recent.table(input.tick);
    let mut near = 0;
    for (f, (field, model)) in class.fields.iter().zip(fields.iter_mut()).enumerate().take(n) {
        let samples = recent.samples(f);
        let newest = recent.newest().map(|b| b.values[f]);
        let (value, predicted) = match field.coding {
            Coding::Numeric(candidates) => {
                let history = History {
                    table: &table,
                    samples: &samples,
                    len: recent.len(),
                    contract: None,
                    neighbour: near,
                };
                let p = model.predict(field, candidates, &history);
                let v = model.code_numeric(coder, field, candidates, &history, p, target.values[f]);
                (v, p.value)
            }
            Coding::Categorical => {
                let v = model.code_categorical(coder, field, newest, target.values[f]);
                (v, newest.unwrap_or(field.min))
            }
        };
        near = neighbour(field, value, predicted);
        input.values[f] = value;
    }
    Ok(input)
}

/// Whether `values` are an input of `class`: as many as its fields, each in its field's range.
pub(crate) fn valid(class: &Class, values: &[i32]) -> Result<()> {
    if values.len() != class.fields.len() {
        return Err(Error::RowLength {
            class: 0,
            expected: class.fields.len(),
            actual: values.len(),
        });
    }
    let in_range = |(f, &v): (&Field, &i32)| (f.min..=f.max).contains(&v);
    if !class.fields.iter().zip(values).all(in_range) {
        return Err(Error::OutOfRange);
    }
    Ok(())
}
