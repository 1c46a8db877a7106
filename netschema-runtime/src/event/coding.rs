//! The bytes of an event record: the event's index among the protocol's events, each scalar
//! field's raw value, then each link's target handle, every number a base-128 varint (seven
//! bits a byte, low first, the top bit set on every byte but the last), then each text field
//! (a string or byte blob) as a varint of its length and its bytes.
//!
//! A raw value is coded as its distance from the value of its range nearest zero: `v - min`
//! for a range of no negative value, `max - v` for one of no positive value, the zig-zag of
//! `v` otherwise (0, -1, 1, -2, … as 0, 1, 2, 3, …), so that values near zero, or near the
//! bottom of a range like `int(0, 255)`, cost one byte. A link is 0 for none, else the handle
//! plus 1. Writing and reading allocate nothing (a text read is a slice of the record);
//! reading refuses damaged bytes with a typed error and never panics.

use crate::engine::records::MAX_RECORD_LEN;
use crate::error::{Error, Result};
use crate::schema::{Class, Field};

/// Longest varint of a `u32` value.
const MAX_VARINT: usize = 5;

/// Longest event record: a record's longest,
/// [`MAX_RECORD_LEN`]. An event of
/// [`MAX_EVENT_FIELDS`](super::MAX_EVENT_FIELDS) scalars and
/// [`MAX_LINKS`](crate::schema::MAX_LINKS) links and no text field takes at most 245 bytes; an
/// event's own bound is [`max_len`].
pub const MAX_EVENT_LEN: usize = MAX_RECORD_LEN;

/// The longest record an event of `class` may take: 5 bytes for its index and for each scalar
/// field and link, and for each text field its bound and the varint of its bound.
pub const fn max_len(class: &Class) -> usize {
    let mut len = MAX_VARINT * (1 + class.fields.len() + class.links.len());
    let mut t = 0;
    while t < class.texts.len() {
        let max = class.texts[t].max as usize;
        len += max + if max < 0x80 { 1 } else { 2 };
        t += 1;
    }
    len
}

/// Writes event `index` of `class` into `buf`: `raw` holds its scalar fields' raw values (one
/// per field of `class`, each within its range), `links` its links' target handles (one per
/// link), `texts` its text fields' bytes (one per text field). Returns the length written;
/// [`Error::OutOfRange`] for a raw value outside its field's range, [`Error::TextTooLong`] or
/// [`Error::NotUtf8`] for a text its field does not take, [`Error::RowLength`] for slices of
/// the wrong lengths, [`Error::BufferFull`] if `buf` is too short.
pub fn write(
    index: u32,
    class: &Class,
    raw: &[i32],
    links: &[Option<u32>],
    texts: &[&[u8]],
    buf: &mut [u8],
) -> Result<usize> {
    let (fields, link_count) = (class.fields.len(), class.links.len());
    if raw.len() != fields || links.len() != link_count || texts.len() != class.texts.len() {
        return Err(Error::RowLength { class: 0, expected: fields, actual: raw.len() });
    }
    let mut at = put(buf, 0, u64::from(index))?;
    for (f, &v) in class.fields.iter().zip(raw) {
        at = put(buf, at, code(f, v)?)?;
    }
    for link in links {
        at = put(buf, at, link.map_or(0, |h| u64::from(h) + 1))?;
    }
    for (field, text) in class.texts.iter().zip(texts) {
        field.check(text)?;
        at = put_bytes(buf, at, text)?;
    }
    Ok(at)
}

/// The event index a record starts with, and the bytes it takes; [`Error::UnexpectedEnd`] or
/// [`Error::Corrupt`] for bytes that do not start with one.
pub fn index(bytes: &[u8]) -> Result<(u32, usize)> {
    let (v, at) = get(bytes, 0)?;
    Ok((u32::try_from(v).map_err(|_| Error::Corrupt)?, at))
}

/// Reads an event record of `class` from `bytes` whole: its scalar fields' raw values into
/// `raw`, its links' target handles into `links` and its text fields' bytes into `texts` (each
/// at least as long as `class` needs), and returns its index. [`Error::UnexpectedEnd`] for a
/// record cut short, [`Error::OutOfRange`] for a value outside its field's range,
/// [`Error::TextTooLong`] for a text longer than its field's bound, [`Error::NotUtf8`] for a
/// string that is not UTF-8, [`Error::Corrupt`] for a varint too long or bytes left over,
/// [`Error::RowLength`] for slices too short.
pub fn read<'b>(
    class: &Class,
    bytes: &'b [u8],
    raw: &mut [i32],
    links: &mut [Option<u32>],
    texts: &mut [&'b [u8]],
) -> Result<u32> {
    let (fields, link_count) = (class.fields.len(), class.links.len());
    if raw.len() < fields || links.len() < link_count || texts.len() < class.texts.len() {
        return Err(Error::RowLength { class: 0, expected: fields, actual: raw.len() });
    }
    let (event, mut at) = index(bytes)?;
    for (f, slot) in class.fields.iter().zip(raw.iter_mut()) {
        let (v, next) = get(bytes, at)?;
        *slot = decode(f, v)?;
        at = next;
    }
    for slot in &mut links[..link_count] {
        let (v, next) = get(bytes, at)?;
        *slot = match v {
            0 => None,
            h => Some(u32::try_from(h - 1).map_err(|_| Error::Corrupt)?),
        };
        at = next;
    }
    for (field, slot) in class.texts.iter().zip(texts.iter_mut()) {
        let (len, next) = get(bytes, at)?;
        if len > u64::from(field.max) {
            return Err(Error::TextTooLong { len: len as usize, max: usize::from(field.max) });
        }
        let end = next + len as usize;
        *slot = bytes.get(next..end).ok_or(Error::UnexpectedEnd)?;
        field.check(slot)?;
        at = end;
    }
    if at != bytes.len() {
        return Err(Error::Corrupt);
    }
    Ok(event)
}

/// The code of raw value `v` of field `f`: its distance from the value of the range nearest 0.
fn code(f: &Field, v: i32) -> Result<u64> {
    if v < f.min || v > f.max {
        return Err(Error::OutOfRange);
    }
    let v = i64::from(v);
    Ok(if f.min >= 0 {
        (v - i64::from(f.min)) as u64
    } else if f.max <= 0 {
        (i64::from(f.max) - v) as u64
    } else {
        ((v << 1) ^ (v >> 63)) as u64
    })
}

/// The raw value of field `f` coded as `c` ([`code`]'s inverse), if it lies in the range.
fn decode(f: &Field, c: u64) -> Result<i32> {
    let c = i64::try_from(c).map_err(|_| Error::OutOfRange)?;
    let v = if f.min >= 0 {
        i64::from(f.min) + c
    } else if f.max <= 0 {
        i64::from(f.max) - c
    } else {
        (c >> 1) ^ -(c & 1)
    };
    match i32::try_from(v) {
        Ok(v) if f.min <= v && v <= f.max => Ok(v),
        _ => Err(Error::OutOfRange),
    }
}

/// Writes `v` as a varint at `buf[at..]`; the offset after it.
pub(crate) fn put(buf: &mut [u8], mut at: usize, mut v: u64) -> Result<usize> {
    loop {
        let byte = buf.get_mut(at).ok_or(Error::BufferFull)?;
        at += 1;
        if v < 0x80 {
            *byte = v as u8;
            return Ok(at);
        }
        *byte = (v as u8 & 0x7f) | 0x80;
        v >>= 7;
    }
}

/// Writes `bytes` at `buf[at..]` as the varint of their length and the bytes; the offset
/// after them.
pub(crate) fn put_bytes(buf: &mut [u8], at: usize, bytes: &[u8]) -> Result<usize> {
    let at = put(buf, at, bytes.len() as u64)?;
    let end = at + bytes.len();
    buf.get_mut(at..end).ok_or(Error::BufferFull)?.copy_from_slice(bytes);
    Ok(end)
}

/// Reads a varint of at most [`MAX_VARINT`] bytes (a value below 2^35) at `bytes[at..]`; the
/// value and the offset after it.
pub(crate) fn get(bytes: &[u8], mut at: usize) -> Result<(u64, usize)> {
    let mut v = 0u64;
    for shift in 0..MAX_VARINT {
        let byte = *bytes.get(at).ok_or(Error::UnexpectedEnd)?;
        at += 1;
        v |= u64::from(byte & 0x7f) << (7 * shift);
        if byte & 0x80 == 0 {
            return Ok((v, at));
        }
    }
    Err(Error::Corrupt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Link, TextField};

    const FIELDS: [Field; 3] = [
        Field::categorical("kind", 4),
        Field::numeric("dx", -100, 100, false, &[]),
        Field::numeric("depth", -50, -10, false, &[]),
    ];
    const LINKS: [Link; 1] = [Link::new("target", None)];
    const CLASS: Class = Class::new("Hit", &FIELDS).with_links(&LINKS);

    fn round_trip(raw: [i32; 3], link: Option<u32>) -> usize {
        let mut buf = [0u8; MAX_EVENT_LEN];
        let n = write(7, &CLASS, &raw, &[link], &[], &mut buf).unwrap();
        let (mut out, mut links) = ([0; 3], [None; 1]);
        assert_eq!(read(&CLASS, &buf[..n], &mut out, &mut links, &mut []), Ok(7));
        assert_eq!((out, links), (raw, [link]));
        n
    }

    #[test]
    fn values_round_trip_and_small_ones_cost_a_byte() {
        assert_eq!(round_trip([0, 0, -10], None), 5);
        assert_eq!(round_trip([3, -1, -11], Some(0)), 5);
        assert_eq!(round_trip([3, 100, -50], Some(200)), 7);
        assert_eq!(round_trip([1, -100, -49], Some(u32::MAX)), 10);
    }

    #[test]
    fn hostile_bytes_are_refused_with_typed_errors() {
        let mut buf = [0u8; MAX_EVENT_LEN];
        let n = write(1, &CLASS, &[2, 5, -20], &[Some(9)], &[], &mut buf).unwrap();
        let (mut raw, mut links) = ([0; 3], [None; 1]);
        let mut read = |bytes: &[u8]| read(&CLASS, bytes, &mut raw, &mut links, &mut []);
        for cut in 0..n {
            assert_eq!(read(&buf[..cut]), Err(Error::UnexpectedEnd));
        }
        let mut long = buf;
        long[n] = 0;
        assert_eq!(read(&long[..=n]), Err(Error::Corrupt));
        assert_eq!(read(&[1, 4, 0, 0, 0]), Err(Error::OutOfRange));
        assert_eq!(read(&[0xff; 6]), Err(Error::Corrupt));
        for b in 0..=255u8 {
            let _ = read(&[1, b, b, b, b, b]);
        }
        assert_eq!(write(1, &CLASS, &[4, 0, -10], &[None], &[], &mut buf), Err(Error::OutOfRange));
        let short = &mut buf[..2];
        assert_eq!(write(1, &CLASS, &[0, 0, -10], &[None], &[], short), Err(Error::BufferFull));
    }

    const TEXTS: [TextField; 2] = [TextField::string("text", 8), TextField::bytes("blob", 130)];
    const KIND: [Field; 1] = [Field::categorical("kind", 4)];
    const SAID: Class = Class::new("Said", &KIND).with_links(&LINKS).with_texts(&TEXTS);

    fn read_said<'b>(bytes: &'b [u8], texts: &mut [&'b [u8]; 2]) -> Result<u32> {
        read(&SAID, bytes, &mut [0], &mut [None], texts)
    }

    #[test]
    fn texts_follow_the_links_as_a_length_and_bytes() {
        let mut buf = [0u8; MAX_EVENT_LEN];
        let blob = [0xffu8; 130];
        let n = write(2, &SAID, &[1], &[Some(3)], &["héllo".as_bytes(), &blob], &mut buf).unwrap();
        assert_eq!(&buf[..10], &[2, 1, 4, 6, b'h', 0xc3, 0xa9, b'l', b'l', b'o']);
        assert_eq!(&buf[10..12], &[0x82, 0x01]);
        assert_eq!(n, 12 + 130);
        let mut texts = [&[][..]; 2];
        assert_eq!(read_said(&buf[..n], &mut texts), Ok(2));
        assert_eq!(texts, ["héllo".as_bytes(), &blob[..]]);
        assert_eq!(max_len(&SAID), 5 * 3 + 9 + 132);
        assert!(max_len(&SAID) <= MAX_EVENT_LEN);
    }

    #[test]
    fn bad_texts_are_refused_with_typed_errors() {
        let mut texts = [&[][..]; 2];
        let too_long = [2, 1, 0, 9, b'a', b'a', b'a', b'a', b'a', b'a', b'a', b'a', b'a', 0];
        assert_eq!(read_said(&too_long, &mut texts), Err(Error::TextTooLong { len: 9, max: 8 }));
        assert_eq!(read_said(&[2, 1, 0, 2, 0xc3, 0x28, 0], &mut texts), Err(Error::NotUtf8));
        assert_eq!(read_said(&[2, 1, 0, 3, b'a', b'b'], &mut texts), Err(Error::UnexpectedEnd));
        assert_eq!(read_said(&[2, 1, 0, 0, 3, 1], &mut texts), Err(Error::UnexpectedEnd));
        assert_eq!(read_said(&[2, 1, 0, 0, 0x80], &mut texts), Err(Error::UnexpectedEnd));
        assert_eq!(read_said(&[2, 1, 0, 0, 0, 0], &mut texts), Err(Error::Corrupt));
        let mut buf = [0u8; MAX_EVENT_LEN];
        let over = write(0, &SAID, &[0], &[None], &[b"123456789", b""], &mut buf);
        assert_eq!(over, Err(Error::TextTooLong { len: 9, max: 8 }));
        let bad = write(0, &SAID, &[0], &[None], &[&[0xff], b""], &mut buf);
        assert_eq!(bad, Err(Error::NotUtf8));
        let short = write(0, &SAID, &[0], &[None], &[b"abc", b""], &mut buf[..5]);
        assert_eq!(short, Err(Error::BufferFull));
        for len in 0..=200u8 {
            for b in [0u8, 0x61, 0xc3, 0xff] {
                let mut bytes = [b; 24];
                bytes[..5].copy_from_slice(&[2, 1, 0, len.min(8), len]);
                let _ = read_said(&bytes, &mut [&[][..]; 2]);
            }
        }
    }
}
