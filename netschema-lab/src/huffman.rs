//! Static canonical prefix codes: from code lengths (Unity's `StreamCompressionModel`) or from
//! symbol counts (Quake III's byte table), written and read bit by bit.
//!
//! Codes are canonical: shorter codes come first and, within a length, symbols in ascending
//! order take consecutive codes, so the lengths alone define the code.

use super::Error;
use super::bitstream::{Reader, Writer};

/// Longest code [`Code::from_counts`] builds.
const MAX_LENGTH: u8 = 24;

/// A prefix code over symbols `0..n`.
#[derive(Clone, Debug)]
pub(crate) struct Code {
    /// Code and length of each symbol (length 0: the symbol has no code).
    codes: Vec<(u32, u8)>,
    /// Symbols sorted by (length, symbol), the order in which they take codes.
    sorted: Vec<u16>,
    /// Number of codes of each length.
    per_length: Vec<u32>,
}

impl Code {
    /// The canonical code with these lengths (at most 32; 0 for symbols without a code). The
    /// lengths must satisfy Kraft's inequality.
    pub(crate) fn from_lengths(lengths: &[u8]) -> Code {
        let longest = lengths.iter().copied().max().unwrap_or(0);
        let mut per_length = vec![0u32; usize::from(longest) + 1];
        for &l in lengths.iter().filter(|&&l| l > 0) {
            per_length[usize::from(l)] += 1;
        }
        let mut sorted: Vec<u16> =
            (0..lengths.len() as u16).filter(|&s| lengths[usize::from(s)] > 0).collect();
        sorted.sort_by_key(|&s| (lengths[usize::from(s)], s));
        let mut codes = vec![(0u32, 0u8); lengths.len()];
        let (mut code, mut length) = (0u32, 0u8);
        for &s in &sorted {
            let l = lengths[usize::from(s)];
            code <<= l - length;
            length = l;
            codes[usize::from(s)] = (code, l);
            code += 1;
        }
        Code { codes, sorted, per_length }
    }

    /// A Huffman code for symbols occurring `counts` times, every symbol given a code (a zero
    /// count counts as one); codes longer than 24 bits are avoided by halving the counts.
    pub(crate) fn from_counts(counts: &[u64]) -> Code {
        let mut weights: Vec<u64> = counts.iter().map(|&c| c.max(1)).collect();
        loop {
            let lengths = huffman_lengths(&weights);
            if lengths.iter().all(|&l| l <= MAX_LENGTH) {
                return Code::from_lengths(&lengths);
            }
            for w in &mut weights {
                *w = (*w / 2).max(1);
            }
        }
    }

    /// Bits of the code of `symbol`.
    pub(crate) fn length(&self, symbol: usize) -> u32 {
        u32::from(self.codes[symbol].1)
    }

    /// Writes the code of `symbol`, which must have one.
    pub(crate) fn put(&self, w: &mut Writer, symbol: usize) {
        let (code, length) = self.codes[symbol];
        debug_assert!(length > 0, "symbol {symbol} has no code");
        w.put(code, u32::from(length));
    }

    /// Reads one symbol.
    pub(crate) fn get(&self, r: &mut Reader<'_>) -> Result<usize, Error> {
        // Canonical decoding: `first` is the first code of the current length and `index`
        // the position of its symbol in `sorted`.
        let (mut code, mut first, mut index) = (0u32, 0u32, 0u32);
        for &count in &self.per_length[1..] {
            code |= u32::from(r.bit()?);
            if code - first < count {
                return Ok(usize::from(self.sorted[(index + code - first) as usize]));
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        Err(Error::Decode("no symbol has this code".into()))
    }
}

/// Code lengths of a Huffman tree for `weights` (every weight positive).
fn huffman_lengths(weights: &[u64]) -> Vec<u8> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let n = weights.len();
    if n == 1 {
        return vec![1];
    }
    // Nodes 0..n are leaves; merged nodes follow, each with its parent recorded.
    let mut parent = vec![usize::MAX; 2 * n - 1];
    let mut heap: BinaryHeap<Reverse<(u64, usize)>> =
        weights.iter().enumerate().map(|(i, &w)| Reverse((w, i))).collect();
    let mut next = n;
    while let (Some(Reverse((wa, a))), Some(Reverse((wb, b)))) = (heap.pop(), heap.pop()) {
        parent[a] = next;
        parent[b] = next;
        heap.push(Reverse((wa + wb, next)));
        next += 1;
    }
    (0..n)
        .map(|leaf| {
            let (mut depth, mut node) = (0u8, leaf);
            while parent[node] != usize::MAX {
                node = parent[node];
                depth = depth.saturating_add(1);
            }
            depth
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_codes_from_lengths() {
        let code = Code::from_lengths(&[2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 6, 6]);
        let want = [
            (0b00, 2),
            (0b010, 3),
            (0b011, 3),
            (0b100, 3),
            (0b1010, 4),
            (0b1011, 4),
            (0b1100, 4),
            (0b11010, 5),
            (0b11011, 5),
            (0b11100, 5),
            (0b111010, 6),
            (0b111011, 6),
            (0b111100, 6),
            (0b111101, 6),
            (0b111110, 6),
            (0b111111, 6),
        ];
        assert_eq!(code.codes, want);
        let mut w = Writer::new();
        for s in [0, 15, 7, 3, 10] {
            code.put(&mut w, s);
        }
        let mut r = Reader::new(w.bytes());
        for s in [0, 15, 7, 3, 10] {
            assert_eq!(code.get(&mut r).unwrap(), s);
        }
    }

    #[test]
    fn frequent_symbols_get_short_codes() {
        let mut counts = vec![1u64; 256];
        counts[0] = 1_000_000;
        counts[7] = 10_000;
        let code = Code::from_counts(&counts);
        assert_eq!(code.length(0), 1);
        assert!(code.length(7) < code.length(200));
        let mut w = Writer::new();
        for s in 0..256 {
            code.put(&mut w, s);
        }
        let mut r = Reader::new(w.bytes());
        for s in 0..256 {
            assert_eq!(code.get(&mut r).unwrap(), s);
        }
    }
}
