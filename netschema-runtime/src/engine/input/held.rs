//! The state of an end of an input stream, held by the end itself or lent to it by the owned
//! layer, which keeps it between calls: resuming an end borrows its state rather than copying
//! the few kilobytes of its slots and buffer in and out.

use core::ops::{Deref, DerefMut};

/// A state owned by its end, or lent to it for one use.
#[derive(Debug)]
pub(crate) enum Held<'a, T> {
    /// Held by the end (made by its `new`).
    Own(T),
    /// Lent by the owned layer, which keeps it between uses.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    Lent(&'a mut T),
}

impl<T> Deref for Held<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        match self {
            Held::Own(t) => t,
            Held::Lent(t) => t,
        }
    }
}

impl<T> DerefMut for Held<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        match self {
            Held::Own(t) => t,
            Held::Lent(t) => t,
        }
    }
}
