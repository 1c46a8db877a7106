//! [`List`]: a list of at most `N` elements, stored inline, that replicates as `.netidl`'s
//! `list<K, N>`.

use core::fmt;
use core::ops::{Deref, DerefMut};

/// A list of at most `N` elements, stored inline without allocating: the Rust type of a
/// `list<K, N>` field (from a `.netidl` schema, or a `List<T, N>` field of a derived class).
///
/// It dereferences to the slice of its elements, so indexing, `len`, `iter` and the other
/// slice methods work on it; equality, hashing and `Debug` see only the elements. Elements
/// past the length are kept as `T::default()`.
///
/// ```
/// use netschema::List;
///
/// let mut hand: List<u8, 4> = List::new();
/// hand.push(7).unwrap();
/// hand.push(9).unwrap();
/// hand.insert(1, 8).unwrap();
/// assert_eq!(hand[..], [7, 8, 9]);
/// assert_eq!(hand.remove(0), 7);
/// assert_eq!(hand.pop(), Some(9));
/// assert_eq!(hand.iter().sum::<u8>(), 8);
/// let full = List::<u8, 2>::try_from(&[1, 2][..]).unwrap();
/// assert_eq!(full.clone().push(3), Err(3));
/// ```
#[derive(Clone, Copy)]
pub struct List<T, const N: usize> {
    items: [T; N],
    len: usize,
}

impl<T: Default, const N: usize> List<T, N> {
    /// The empty list.
    pub fn new() -> Self {
        List { items: core::array::from_fn(|_| T::default()), len: 0 }
    }

    /// Appends `value`, or gives it back if the list is full.
    pub fn push(&mut self, value: T) -> Result<(), T> {
        match self.items.get_mut(self.len) {
            Some(slot) => {
                *slot = value;
                self.len += 1;
                Ok(())
            }
            None => Err(value),
        }
    }

    /// Removes and returns the last element, if any.
    pub fn pop(&mut self) -> Option<T> {
        self.len = self.len.checked_sub(1)?;
        Some(core::mem::take(&mut self.items[self.len]))
    }

    /// Inserts `value` at `index`, shifting the elements after it; gives it back if the list is
    /// full.
    ///
    /// # Panics
    ///
    /// If `index > len`, as `Vec::insert`.
    pub fn insert(&mut self, index: usize, value: T) -> Result<(), T> {
        assert!(index <= self.len, "insertion index {index} is past the length {}", self.len);
        self.push(value)?;
        self.items[index..self.len].rotate_right(1);
        Ok(())
    }

    /// Removes and returns the element at `index`, shifting the elements after it.
    ///
    /// # Panics
    ///
    /// If `index >= len`, as `Vec::remove`.
    pub fn remove(&mut self, index: usize) -> T {
        assert!(index < self.len, "removal index {index} is past the length {}", self.len);
        self.items[index..self.len].rotate_left(1);
        self.len -= 1;
        core::mem::take(&mut self.items[self.len])
    }

    /// Removes every element past the first `len`.
    pub fn truncate(&mut self, len: usize) {
        while self.len > len {
            self.pop();
        }
    }

    /// Removes every element.
    pub fn clear(&mut self) {
        self.truncate(0);
    }
}

impl<T, const N: usize> List<T, N> {
    /// The most elements the list holds.
    pub const CAPACITY: usize = N;

    /// Whether the list holds [`List::CAPACITY`] elements.
    pub fn is_full(&self) -> bool {
        self.len == N
    }

    /// The elements, in order.
    pub fn as_slice(&self) -> &[T] {
        &self.items[..self.len]
    }

    /// The elements, in order, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.items[..self.len]
    }
}

impl<T: Default, const N: usize> Default for List<T, N> {
    fn default() -> Self {
        List::new()
    }
}

impl<T, const N: usize> Deref for List<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T, const N: usize> DerefMut for List<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T: PartialEq, const N: usize> PartialEq for List<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Eq, const N: usize> Eq for List<T, N> {}

impl<T: core::hash::Hash, const N: usize> core::hash::Hash for List<T, N> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl<T: fmt::Debug, const N: usize> fmt::Debug for List<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<'a, T, const N: usize> IntoIterator for &'a List<T, N> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// The elements of a slice too long for a [`List`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLong {
    /// The slice's length.
    pub len: usize,
    /// The list's capacity.
    pub capacity: usize,
}

impl fmt::Display for TooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} elements do not fit a list of at most {}", self.len, self.capacity)
    }
}

impl core::error::Error for TooLong {}

impl<T: Clone + Default, const N: usize> TryFrom<&[T]> for List<T, N> {
    type Error = TooLong;
    fn try_from(items: &[T]) -> Result<Self, TooLong> {
        if items.len() > N {
            return Err(TooLong { len: items.len(), capacity: N });
        }
        let mut list = List::new();
        list.items[..items.len()].clone_from_slice(items);
        list.len = items.len();
        Ok(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_keep_order_and_capacity() {
        let mut l: List<i32, 3> = List::new();
        assert!(l.is_empty());
        for v in [1, 2, 3] {
            l.push(v).unwrap();
        }
        assert!(l.is_full());
        assert_eq!(l.push(4), Err(4));
        assert_eq!(l.insert(0, 4), Err(4));
        assert_eq!(l.remove(1), 2);
        l.insert(0, 0).unwrap();
        assert_eq!(l[..], [0, 1, 3]);
        l.truncate(1);
        assert_eq!(l, List::try_from(&[0][..]).unwrap());
        assert_eq!(l.items, [0, 0, 0], "removed elements are reset");
        l.clear();
        assert_eq!(l.pop(), None);
        assert_eq!(List::<i32, 1>::try_from(&[1, 2][..]), Err(TooLong { len: 2, capacity: 1 }));
    }
}
