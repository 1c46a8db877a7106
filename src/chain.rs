//! Writing and reading the slots of a `list<K, N>` field in a row, for generated code.
//!
//! A list of at most `N` elements of `width` scalars is `1 + N * (1 + width)` scalars: the
//! list's `head`, then `N` slots, each its `next` link followed by an element's scalars. A link
//! is a slot index, or `N` for the end; the list is the chain of slots from `head`.
//!
//! [`write`] keeps each element in the slot it had: it reads the previous chain from the row
//! it overwrites and walks it beside the new list (as a diff would, one element ahead), so an
//! element equal to a previous one (compared as raw values) goes back in that one's slot, an
//! element that replaced a previous one between the same neighbours takes that one's slot, an
//! element moved further finds the first unused equal previous one, and any other takes a free
//! slot; slots the list no longer uses keep their values. So each slot is predicted from the
//! same slot in history: an element changed in place costs its values, an insertion the new
//! slot's values and two links, a removal one link.
//!
//! [`read`] follows the chain for at most `N` steps and stops at the end, at a link out of
//! range or at a slot already visited: a malformed chain reads as the list up to the fault,
//! never as a panic or a loop. Both are deterministic and allocation-free.

use netschema_runtime::Value;
use netschema_runtime::schema::Field;

use crate::List;

/// Marks "no slot" in the working arrays.
const NONE: u16 = u16::MAX;

/// The slots of the chain starting at `raw[0]`, in order, into `out`; returns how many. Stops
/// at the end (`N`), a link out of range or a slot already visited.
fn walk<const N: usize>(raw: &[i32], stride: usize, out: &mut [u16; N]) -> usize {
    let mut seen = [false; N];
    let mut link = raw.first().copied().unwrap_or(-1);
    let mut len = 0;
    while let Ok(s) = usize::try_from(link) {
        match seen.get_mut(s) {
            Some(seen) if !*seen => *seen = true,
            _ => break,
        }
        out[len] = s as u16;
        len += 1;
        link = raw.get(1 + s * stride).copied().unwrap_or(-1);
    }
    len
}

/// The scalars of slot `s`'s element.
fn values(raw: &[i32], stride: usize, s: usize) -> &[i32] {
    raw.get(2 + s * stride..(1 + s) * stride + 1).unwrap_or(&[])
}

/// Writes `list` into `raw`, the list's `1 + N * (1 + width)` scalars of a row, holding the
/// previous value of the list (any content is accepted, read as [`read`] does; the cheapest
/// coding comes from the entity's previous row). `fields` is the table of the same scalars;
/// `quantise` writes one element's `width` raw values into the slice it is given, reporting a
/// value that needs clamping with its index in that slice, which `clamped` receives as scalar
/// `base` plus its index in `raw`. `scratch` holds `width` values.
pub fn write<T, const N: usize>(
    list: &List<T, N>,
    raw: &mut [i32],
    fields: &[Field],
    scratch: &mut [i32],
    base: usize,
    clamped: &mut dyn FnMut(usize, Value),
    quantise: impl Fn(&T, &mut [i32], &mut dyn FnMut(usize, Value)),
) {
    let width = scratch.len();
    let stride = 1 + width;
    if raw.len() != 1 + N * stride || fields.len() != raw.len() {
        return;
    }
    let mut previous = [NONE; N];
    let count = walk(raw, stride, &mut previous);
    let slots = place(list, raw, stride, &previous[..count], scratch, &quantise);
    // Unused slots keep their values, brought into range; the elements are written in theirs.
    for (r, f) in raw.iter_mut().zip(fields) {
        *r = f.clamp(i64::from(*r));
    }
    // Every element has a slot (`place` finds one for each); indexing is checked all the same.
    for (element, &s) in list.iter().zip(&slots) {
        let at = 2 + usize::from(s) * stride;
        let mut report = |i: usize, v: Value| clamped(base + at + i, v);
        if let Some(values) = raw.get_mut(at..at + width) {
            quantise(element, values, &mut report);
        }
    }
    let slots = &slots[..list.len()];
    let link = |j: usize| slots.get(j).map_or(N, |&s| usize::from(s)) as i32;
    raw[0] = link(0);
    for (j, &s) in slots.iter().enumerate() {
        if let Some(next) = raw.get_mut(1 + usize::from(s) * stride) {
            *next = link(j + 1);
        }
    }
}

/// Compares the elements of a new list with the previous chain's, as raw values.
struct Matcher<'x, T, Q> {
    elements: &'x [T],
    raw: &'x [i32],
    stride: usize,
    previous: &'x [u16],
    scratch: &'x mut [i32],
    quantise: &'x Q,
    /// The element whose raw values `scratch` holds.
    loaded: Option<usize>,
}

impl<T, Q: Fn(&T, &mut [i32], &mut dyn FnMut(usize, Value))> Matcher<'_, T, Q> {
    /// Whether element `j` equals the element of previous slot `s`.
    fn equal(&mut self, j: usize, s: u16) -> bool {
        let Some(element) = self.elements.get(j) else { return false };
        if self.loaded != Some(j) {
            (self.quantise)(element, self.scratch, &mut |_, _| {});
            self.loaded = Some(j);
        }
        values(self.raw, self.stride, usize::from(s)) == &self.scratch[..]
    }

    /// Whether element `j` equals the element at position `p` of the previous chain.
    fn equal_at(&mut self, j: usize, p: usize) -> bool {
        self.previous.get(p).is_some_and(|&s| self.equal(j, s))
    }
}

/// The slot of each element of `list`, given the previous chain `previous` in `raw`.
fn place<T, const N: usize>(
    list: &List<T, N>,
    raw: &[i32],
    stride: usize,
    previous: &[u16],
    scratch: &mut [i32],
    quantise: &impl Fn(&T, &mut [i32], &mut dyn FnMut(usize, Value)),
) -> [u16; N] {
    let mut slots = [NONE; N];
    let mut used = [false; N];
    let mut m = Matcher { elements: list, raw, stride, previous, scratch, quantise, loaded: None };
    // Walk both lists in order, each step a match, a replacement (when the elements after
    // match), a removal, an insertion, or else a replacement, looking one element ahead: a
    // repeated value does not pull an element away from its place.
    let (mut j, mut p) = (0, 0);
    while j < list.len() && p < previous.len() {
        if m.equal_at(j, p) {
            (slots[j], used[usize::from(previous[p])]) = (previous[p], true);
            (j, p) = (j + 1, p + 1);
        } else if !m.equal_at(j + 1, p + 1) && m.equal_at(j, p + 1) {
            p += 1;
        } else if !m.equal_at(j + 1, p + 1) && m.equal_at(j + 1, p) {
            j += 1;
        } else {
            (j, p) = (j + 1, p + 1);
        }
    }
    // Elements moved further: each to the first unused equal previous one.
    for (j, slot) in slots.iter_mut().enumerate().take(list.len()) {
        if *slot == NONE {
            let found = previous.iter().find(|&&s| !used[usize::from(s)] && m.equal(j, s));
            if let Some(&s) = found {
                (*slot, used[usize::from(s)]) = (s, true);
            }
        }
    }
    // The others: in place of the previous element after the last one placed if it is
    // unused, else in the lowest free slot, else in the lowest unused one.
    let mut held = [false; N];
    for &s in previous {
        held[usize::from(s)] = true;
    }
    let mut next = 0;
    for slot in slots.iter_mut().take(list.len()) {
        if *slot == NONE {
            let in_place = previous.get(next).copied().filter(|&s| !used[usize::from(s)]);
            let free = (0..N as u16).find(|&s| !used[usize::from(s)] && !held[usize::from(s)]);
            let any = (0..N as u16).find(|s| !used[usize::from(*s)]);
            if let Some(s) = in_place.or(free).or(any) {
                (*slot, used[usize::from(s)]) = (s, true);
            }
        }
        next = previous.iter().position(|p| p == slot).map_or(next, |p| p + 1);
    }
    slots
}

/// Reads the list in `raw` (as [`write`] lays it out, `width` scalars an element), rebuilding
/// each element from its scalars with `dequantise`. A malformed chain ends the list where it
/// breaks.
pub fn read<T: Default, const N: usize>(
    raw: &[i32],
    width: usize,
    dequantise: impl Fn(&[i32]) -> T,
) -> List<T, N> {
    let stride = 1 + width;
    let mut order = [NONE; N];
    let len = walk(raw, stride, &mut order);
    let mut list = List::new();
    for &s in &order[..len] {
        let v = values(raw, stride, usize::from(s));
        if v.len() != width || list.push(dequantise(v)).is_err() {
            break;
        }
    }
    list
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    const N: usize = 4;
    const FIELDS: [Field; 1 + N * 2] = {
        let link = Field::categorical("", N as u32 + 1);
        let value = Field::categorical("", 100);
        [link, link, value, link, value, link, value, link, value]
    };

    fn put(list: &[i32], raw: &mut [i32]) {
        let list = List::<i32, N>::try_from(list).unwrap();
        write(&list, raw, &FIELDS, &mut [0], 0, &mut |_, _| panic!(), |e, r, _| r[0] = *e);
    }

    fn get(raw: &[i32]) -> Vec<i32> {
        read::<i32, N>(raw, 1, |r| r[0]).to_vec()
    }

    /// The slots whose link or value differ between two rows.
    fn changed(a: &[i32], b: &[i32]) -> Vec<usize> {
        (0..a.len()).filter(|&i| a[i] != b[i]).collect()
    }

    #[test]
    fn edits_touch_only_what_changes() {
        let mut raw = [0; FIELDS.len()];
        put(&[10, 20, 30], &mut raw);
        assert_eq!(get(&raw), [10, 20, 30]);
        let before = raw;
        put(&[10, 21, 30], &mut raw);
        assert_eq!(changed(&before, &raw).len(), 1, "a change in place is one value");
        let before = raw;
        put(&[10, 15, 21, 30], &mut raw);
        assert_eq!(get(&raw), [10, 15, 21, 30]);
        assert_eq!(changed(&before, &raw).len(), 3, "an insertion is a value and two links");
        let before = raw;
        put(&[10, 21, 30], &mut raw);
        assert_eq!(changed(&before, &raw).len(), 1, "a removal is one link");
        put(&[30, 10, 21], &mut raw);
        assert_eq!(get(&raw), [30, 10, 21]);
        put(&[], &mut raw);
        assert_eq!(get(&raw), Vec::<i32>::new());
    }

    #[test]
    fn any_previous_content_is_accepted() {
        for seed in 0..200i32 {
            let mut raw: Vec<i32> = (0..FIELDS.len() as i32).map(|i| seed * 7 - i * seed).collect();
            let _ = get(&raw);
            put(&[1, 2, 1, 2], &mut raw);
            assert_eq!(get(&raw), [1, 2, 1, 2]);
            assert!(raw.iter().zip(&FIELDS).all(|(&r, f)| (f.min..=f.max).contains(&r)));
        }
    }

    #[test]
    fn malformed_chains_end_the_list() {
        // A cycle 0 -> 1 -> 0, a link out of range, and a head past the end.
        assert_eq!(get(&[0, 1, 5, 0, 6, 4, 0, 4, 0]), [5, 6]);
        assert_eq!(get(&[0, 9, 5, 4, 6, 4, 0, 4, 0]), [5]);
        assert_eq!(get(&[-3, 1, 5, 2, 6, 3, 7, 0, 8]), Vec::<i32>::new());
        assert_eq!(get(&[0, 1]), [], "a short row reads as empty slots");
    }
}
