//! naia's bit-level serde for what these packets hold: fixed-width unsigned integers and
//! variable-length ones (`UnsignedInteger<N>`, `UnsignedVariableInteger<N>`), written least
//! significant bit first, and the owned local entity of a host (`OwnedLocalEntity::Host`).

use super::super::Error;
use super::super::bitstream::{Reader, Writer};

/// Writes the low `n` bits of `v`, least significant first (`UnsignedInteger<n>`, and `u8` /
/// `u16` as bytes).
pub(super) fn put(w: &mut Writer, mut v: u32, n: u32) {
    for _ in 0..n {
        w.bit(v & 1 == 1);
        v >>= 1;
    }
}

/// Reads what [`put`] wrote.
pub(super) fn get(r: &mut Reader<'_>, n: u32) -> Result<u32, Error> {
    let mut v = 0u32;
    for i in 0..n {
        v |= u32::from(r.bit()?) << i;
    }
    Ok(v)
}

/// Writes `v` in chunks of `n` bits, each after a bit saying whether another follows
/// (`UnsignedVariableInteger<n>`).
pub(super) fn put_var(w: &mut Writer, mut v: u32, n: u32) {
    loop {
        let more = u64::from(v) >= 1 << n;
        w.bit(more);
        put(w, v & ((1 << n) - 1), n);
        v >>= n;
        if !more {
            return;
        }
    }
}

/// Reads what [`put_var`] wrote.
pub(super) fn get_var(r: &mut Reader<'_>, n: u32) -> Result<u32, Error> {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let more = r.bit()?;
        v |= u64::from(get(r, n)?) << shift;
        shift += n;
        if !more {
            return u32::try_from(v).map_err(|_| Error::Decode("variable integer too long".into()));
        }
        if shift >= 32 {
            return Err(Error::Decode("variable integer too long".into()));
        }
    }
}

/// Writes a host entity as the client owns it: host (1), not static (0), its id as
/// `UnsignedVariableInteger<7>`.
pub(super) fn put_entity(w: &mut Writer, host: u16) {
    w.bit(true);
    w.bit(false);
    put_var(w, u32::from(host), 7);
}

/// Reads what [`put_entity`] wrote.
pub(super) fn get_entity(r: &mut Reader<'_>) -> Result<u16, Error> {
    if !r.bit()? || r.bit()? {
        return Err(Error::Decode("not a dynamic host entity".into()));
    }
    u16::try_from(get_var(r, 7)?).map_err(|_| Error::Decode("entity id too large".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variable_integers_take_chunks() {
        let mut w = Writer::new();
        put_var(&mut w, 5, 7);
        assert_eq!(w.len(), 8);
        put_var(&mut w, 300, 7);
        assert_eq!(w.len(), 8 + 16);
        put_entity(&mut w, 1000);
        assert_eq!(w.len(), 8 + 16 + 18);
        // 5 is 0 (no more), then 1010000 (least significant first).
        assert_eq!(w.bytes()[0], 0b0101_0000);
        let mut r = Reader::new(w.bytes());
        assert_eq!(get_var(&mut r, 7).unwrap(), 5);
        assert_eq!(get_var(&mut r, 7).unwrap(), 300);
        assert_eq!(get_entity(&mut r).unwrap(), 1000);
    }
}
