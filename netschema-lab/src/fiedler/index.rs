//! The article's list of changed entities, coded per packet whichever way is cheaper: a
//! "changed" bit per entity, or the count and indices, the first absolute and each next one
//! relative to the one before as `[1,8]` → 1+3 bits, `[9,40]` → 1+1+5, larger → 1+1+10 (or
//! the index width, if wider).

use super::super::Error;
use super::super::bitstream::{Reader, Writer};

/// Bits of a relative index `d` (after the first).
fn relative_bits(d: usize, index_bits: u32) -> u64 {
    match d {
        1..=8 => 4,
        9..=40 => 7,
        _ => 2 + u64::from(index_bits.max(10)),
    }
}

/// Writes `changed` (ascending indices below `n`): a bit saying which coding follows (1:
/// changed bits), then the list. Indices take `index_bits`.
pub(crate) fn put(w: &mut Writer, changed: &[usize], n: usize, index_bits: u32) {
    let mut cost = u64::from(index_bits);
    for (k, &i) in changed.iter().enumerate() {
        cost += match k {
            0 => u64::from(index_bits),
            _ => relative_bits(i - changed[k - 1], index_bits),
        };
    }
    if cost < n as u64 {
        w.put(0, 1);
        w.put(changed.len() as u32, index_bits);
        for (k, &i) in changed.iter().enumerate() {
            if k == 0 {
                w.put(i as u32, index_bits);
                continue;
            }
            match i - changed[k - 1] {
                d @ 1..=8 => w.put(0b1000 | (d as u32 - 1), 4),
                d @ 9..=40 => w.put(0b01_00000 | (d as u32 - 9), 7),
                d => {
                    w.put(0, 2);
                    w.put((d - 41) as u32, index_bits.max(10));
                }
            }
        }
    } else {
        w.put(1, 1);
        let mut next = changed.iter().peekable();
        for i in 0..n {
            let on = next.next_if_eq(&&i).is_some();
            w.bit(on);
        }
    }
}

/// Reads what [`put`] wrote.
pub(crate) fn get(r: &mut Reader<'_>, n: usize, index_bits: u32) -> Result<Vec<usize>, Error> {
    let mut changed = Vec::new();
    if r.bit()? {
        for i in 0..n {
            if r.bit()? {
                changed.push(i);
            }
        }
        return Ok(changed);
    }
    let count = r.get(index_bits)? as usize;
    if count > n {
        return Err(Error::Decode("too many changed entities".into()));
    }
    for _ in 0..count {
        let i = match changed.last() {
            None => r.get(index_bits)? as usize,
            Some(&p) => {
                let d = if r.bit()? {
                    r.get(3)? as usize + 1
                } else if r.bit()? {
                    r.get(5)? as usize + 9
                } else {
                    r.get(index_bits.max(10))? as usize + 41
                };
                p + d
            }
        };
        if i >= n {
            return Err(Error::Decode("entity index out of range".into()));
        }
        changed.push(i);
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_changes_as_indices_many_as_bits() {
        let mut w = Writer::new();
        put(&mut w, &[3, 5, 20, 100], 901, 10);
        // 1 + 10 (count) + 10 (first) + 4 (+2) + 7 (+15) + 12 (+80).
        assert_eq!(w.len(), 44);
        let all: Vec<usize> = (0..20).collect();
        put(&mut w, &all, 20, 5);
        assert_eq!(w.len(), 44 + 21);
        let mut r = Reader::new(w.bytes());
        assert_eq!(get(&mut r, 901, 10).unwrap(), [3, 5, 20, 100]);
        assert_eq!(get(&mut r, 20, 5).unwrap(), all);
    }
}
