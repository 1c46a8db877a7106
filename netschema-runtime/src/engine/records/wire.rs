//! The record section of a packet, right after the header: the encoder writes it, the decoder
//! reads it the same way.
//!
//! | part | coded as |
//! | --- | --- |
//! | any? | an adaptive integer of the packet model, 0 or 1: 0 ends the section |
//! | number | the first record's number, its low [`NUMBER_BITS`] bits |
//! | records | each: after the first a "one more" direct bit then its number's gap after the previous less one (gamma); its age, the packet's frame less the frame it belongs to (gamma, 0 when first sent); its length in [`LEN_BITS`] direct bits; for a schema with timelines only, a direct bit, 1 for a keyframe record of the engine's (see `engine::keys`), 0 for the game's; its bytes, 8 direct bits each. A 0 "one more" bit ends the list |
//!
//! Gamma codes `v + 1` as `k` zero bits and then `v + 1` in `k + 1` bits. The section's
//! digest joins the packet's check value.

use super::{Inbox, Outbox, RECORD_LIMIT};
use crate::codec::coder::{BinaryCoder, Decoder, Encoder, Metered};
use crate::codec::prob::COST_FRAC_BITS;
use crate::engine::ack::fnv;
use crate::engine::frame::{NO_FRAME, age};
use crate::model::Model;
use crate::{Error, Result};

/// Bits of the first record's number in a packet: the client takes the number nearest the
/// next it expects with these low bits.
const NUMBER_BITS: u32 = 16;
/// Bits of a record's length.
const LEN_BITS: u32 = 8;
/// The packet-model integer that says whether a packet carries records.
const COUNT_RECORDS: usize = 6;
const _: () = assert!(COUNT_RECORDS < crate::model::COUNT_SLOTS);

/// The digest of a section without records.
const NO_RECORDS: u32 = 0;

/// How the decoder reads records' kinds: `None` for a schema without timelines (no kinds
/// coded), else the check every keyframe record staged must pass.
pub(crate) type Kinds<'c> = Option<&'c dyn Fn(&[u8]) -> Result<()>>;

/// Which records a packet carries, from the encoder: bit `i` for the record `i` places after
/// the oldest in the outbox.
pub(crate) type Carry = u64;

/// Codes `v + 1` as an Elias gamma code in direct bits.
fn put_gamma<C: BinaryCoder>(coder: &mut C, v: u32) {
    let v = u64::from(v) + 1;
    let bits = 64 - v.leading_zeros();
    coder.direct(0, bits - 1);
    for shift in (0..bits).rev() {
        coder.direct((v >> shift) as u32 & 1, 1);
    }
}

/// Reads a value [`put_gamma`] wrote; more than 32 leading zeros are [`Error::Corrupt`].
fn get_gamma<C: BinaryCoder>(coder: &mut C) -> Result<u32> {
    let mut zeros = 0;
    while coder.direct(0, 1) == 0 {
        zeros += 1;
        if zeros > 32 {
            return Err(Error::Corrupt);
        }
    }
    let v = (1u64 << zeros) | u64::from(coder.direct(0, zeros));
    u32::try_from(v - 1).map_err(|_| Error::Corrupt)
}

/// Running digest of the records a section carries.
struct Digest(u32);

impl Digest {
    fn record(&mut self, number: u32, frame: u32, len: usize) {
        self.0 = fnv(fnv(fnv(self.0, number), frame), len as u32);
    }

    fn byte(&mut self, b: u8) {
        self.0 = fnv(self.0, u32::from(b));
    }

    /// The kind of the record, when the section codes kinds.
    fn kind(&mut self, kinds: bool, engine: bool) {
        if kinds {
            self.0 = fnv(self.0, 0x4b00 | u32::from(engine));
        }
    }
}

/// What the encoder's record section carries.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Section {
    /// The records it carries.
    pub(crate) carried: Carry,
    /// Its digest, which the check value covers.
    pub(crate) digest: u32,
    /// Its ideal cost, in cost units.
    pub(crate) cost: u32,
}

/// Codes the flag that says whether a packet carries records; returns its ideal cost.
fn code_any(enc: &mut Encoder<'_>, packet: &mut Model, any: bool) -> u32 {
    let mut meter = Metered::new(enc);
    packet.code_count(&mut meter, COUNT_RECORDS, i32::from(any));
    meter.cost
}

/// Codes record `i` of `outbox` (its gap after record `previous` unless it is the first of
/// the packet) into the packet for `frame`, with its kind if `kinds`; returns its ideal cost
/// and the frame it belongs to.
fn code_record(
    enc: &mut Encoder<'_>,
    outbox: &Outbox,
    (i, previous): (usize, Option<usize>),
    frame: u32,
    kinds: bool,
) -> (u32, u32) {
    let mut meter = Metered::new(enc);
    if let Some(previous) = previous {
        meter.direct(1, 1);
        put_gamma(&mut meter, (i - previous - 1) as u32);
    }
    let e = outbox.entry(i);
    let tag = if e.frame == NO_FRAME { frame } else { e.frame };
    put_gamma(&mut meter, age(frame, tag));
    meter.direct(u32::from(e.len), LEN_BITS);
    if kinds {
        meter.direct(u32::from(e.engine), 1);
    }
    for k in 0..usize::from(e.len) {
        meter.direct(u32::from(outbox.byte(e, k)), 8);
    }
    (meter.cost, tag)
}

/// Writes the records `outbox` has due into the packet for `frame` after its header, in
/// order, while the packet stays within `limit` bytes with one bit more, with their kinds if
/// `kinds` (a schema with timelines). `packet` is the packet model.
pub(crate) fn write_records(
    enc: &mut Encoder<'_>,
    packet: &mut Model,
    outbox: &Outbox,
    (frame, limit): (u32, usize),
    kinds: bool,
) -> Section {
    let none = |enc: &mut Encoder<'_>, packet: &mut Model| {
        let cost = code_any(enc, packet, false);
        Section { carried: 0, digest: NO_RECORDS, cost }
    };
    let mut due = outbox.due().peekable();
    let Some(&first) = due.peek() else { return none(enc, packet) };
    let (start, saved) = (enc.mark(), *packet);
    let mut cost = code_any(enc, packet, true) + ((NUMBER_BITS + 1) << COST_FRAC_BITS);
    enc.direct(outbox.number(first), NUMBER_BITS);
    let mut digest = Digest(0x811c_9dc5);
    let (mut carried, mut previous) = (0, None);
    for i in due {
        let mark = enc.mark();
        let (bits, tag) = code_record(enc, outbox, (i, previous), frame, kinds);
        if enc.len_bound() + 1 > limit {
            enc.rewind(mark);
            break;
        }
        let e = outbox.entry(i);
        digest.record(outbox.number(i), tag, usize::from(e.len));
        digest.kind(kinds, e.engine);
        (0..usize::from(e.len)).for_each(|k| digest.byte(outbox.byte(e, k)));
        (carried, previous, cost) = (carried | 1 << i, Some(i), cost + bits);
    }
    if carried == 0 {
        // Not even the first record fits: the packet carries none.
        enc.rewind(start);
        *packet = saved;
        return none(enc, packet);
    }
    enc.direct(0, 1);
    Section { carried, digest: digest.0, cost }
}

/// Reads the record section of the packet for `frame` after its header into `inbox`'s
/// staging room and returns its digest; with [`Kinds`] (a schema with timelines), each
/// record's kind too, and its check must accept the bytes of each keyframe record staged. A
/// count, number, length or size past what an honest server sends is [`Error::Corrupt`], as is
/// a keyframe record the check refuses; input that runs out is [`Error::UnexpectedEnd`].
pub(crate) fn read_records(
    dec: &mut Decoder<'_>,
    packet: &mut Model,
    inbox: &mut Inbox,
    frame: u32,
    kinds: Kinds<'_>,
) -> Result<u32> {
    inbox.begin_staging();
    match packet.code_count(dec, COUNT_RECORDS, 0) {
        0 => return Ok(NO_RECORDS),
        1 => {}
        _ => return Err(Error::Corrupt),
    }
    let low = dec.direct(0, NUMBER_BITS);
    let near = inbox.next();
    let mut number = near.wrapping_add(low.wrapping_sub(near) as u16 as i16 as u32);
    let mut digest = Digest(0x811c_9dc5);
    for i in 0.. {
        if i > 0 {
            if dec.direct(0, 1) == 0 {
                break;
            }
            let gap = get_gamma(dec)?;
            number = number.wrapping_add(gap).wrapping_add(1);
        }
        if i >= RECORD_LIMIT {
            return Err(Error::Corrupt);
        }
        let tag = frame.wrapping_sub(get_gamma(dec)?);
        let len = dec.direct(0, LEN_BITS) as usize;
        let engine = kinds.is_some() && dec.direct(0, 1) == 1;
        inbox.stage(number, tag, len, engine)?;
        digest.record(number, tag, len);
        digest.kind(kinds.is_some(), engine);
        for _ in 0..len {
            let b = dec.direct(0, 8) as u8;
            inbox.put(b);
            digest.byte(b);
        }
        if dec.exhausted() {
            return Err(Error::UnexpectedEnd);
        }
        if let (Some(check), Some(bytes)) = (kinds, inbox.staged_keys()) {
            check(bytes)?;
        }
    }
    Ok(digest.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// A record section written by hand, as a hostile server might: the first number, then
    /// each record's gap (after the first), age and length; its bytes are `0, 1, 2, …`.
    fn section(first: u32, records: &[(u32, u32, u32)]) -> Vec<u8> {
        let mut buf = [0u8; 8192];
        let mut enc = Encoder::new(&mut buf);
        Model::default().code_count(&mut enc, COUNT_RECORDS, 1);
        enc.direct(first, NUMBER_BITS);
        for (i, &(gap, age, len)) in records.iter().enumerate() {
            if i > 0 {
                enc.direct(1, 1);
                put_gamma(&mut enc, gap);
            }
            put_gamma(&mut enc, age);
            enc.direct(len, LEN_BITS);
            for k in 0..len {
                enc.direct(k, 8);
            }
        }
        enc.direct(0, 1);
        let n = enc.finish().unwrap();
        buf[..n].to_vec()
    }

    /// Reads `bytes` as the section of the packet for frame 100 into a new inbox: the records
    /// applied (number and frame).
    fn read(bytes: &[u8]) -> Result<Vec<(u32, u32)>> {
        let mut inbox = Inbox::new();
        read_records(&mut Decoder::new(bytes), &mut Model::default(), &mut inbox, 100, None)?;
        inbox.commit();
        Ok(inbox.applied().map(|r| (r.number, r.frame)).collect())
    }

    #[test]
    fn honest_sections_read_back() {
        assert_eq!(
            read(&section(0, &[(0, 0, 3), (0, 7, 0), (2, 1, 255)])),
            Ok(vec![(0, 100), (1, 93)])
        );
        assert_eq!(read(&section(1, &[(0, 0, 3)])), Ok(vec![]), "waits for record 0");
    }

    #[test]
    fn hostile_sections_are_refused() {
        // A number past the window, directly or by its gap.
        assert_eq!(read(&section(64, &[(0, 0, 1)])), Err(Error::Corrupt));
        assert_eq!(read(&section(0, &[(0, 0, 1), (100, 0, 1)])), Err(Error::Corrupt));
        // More records than a queue holds, and more bytes than the inbox's room.
        assert_eq!(read(&section(0, &[(0, 0, 0); 65])), Err(Error::Corrupt));
        assert_eq!(read(&section(0, &[(0, 0, 255); 17])), Err(Error::Corrupt));
        // No record after the number: the age's code runs into zeros.
        assert_eq!(read(&section(0, &[])), Err(Error::Corrupt));
        // A gap far behind is a record the client has: read past.
        assert_eq!(read(&section(0, &[(0, 0, 1), (u32::MAX - 1, 0, 1)])), Ok(vec![(0, 100)]));
        // Cut anywhere: an error, never a panic.
        let whole = section(0, &[(0, 0, 200), (0, 3, 40)]);
        for cut in 0..whole.len() {
            let _ = read(&whole[..cut]);
        }
    }
}
