//! [`Text`] and [`Blob`]: a string or byte blob of at most `N` bytes, held inline, as a game
//! holds the value of a `.netidl` `string<N>` or `bytes<N>` field (see
//! [`TextField`](crate::schema::TextField)). Both are one type, [`Bounded`], told apart by
//! whether its bytes must be UTF-8; neither allocates.

use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::Deref;

/// At most `N` bytes held inline, UTF-8 if `UTF8`: use it as [`Text`] or [`Blob`].
#[derive(Clone, Copy)]
pub struct Bounded<const N: usize, const UTF8: bool> {
    bytes: [u8; N],
    len: usize,
}

/// A UTF-8 string of at most `N` bytes: the Rust type of a `string<N>` field.
pub type Text<const N: usize> = Bounded<N, true>;

/// At most `N` bytes: the Rust type of a `bytes<N>` field.
pub type Blob<const N: usize> = Bounded<N, false>;

/// Why bytes are not a [`Bounded`] value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextError {
    /// More bytes than the capacity.
    TooLong {
        /// The bytes given.
        len: usize,
        /// The capacity, `N`.
        max: usize,
    },
    /// Bytes for a [`Text`] that are not UTF-8.
    NotUtf8,
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextError::TooLong { len, max } => {
                write!(f, "{len} bytes do not fit a capacity of {max}")
            }
            TextError::NotUtf8 => f.write_str("the bytes are not UTF-8"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for TextError {}

impl<const N: usize, const UTF8: bool> Bounded<N, UTF8> {
    /// The empty value.
    pub const EMPTY: Self = Bounded { bytes: [0; N], len: 0 };

    /// The capacity, in bytes.
    pub const MAX: usize = N;

    /// `bytes` as a value: [`TextError::TooLong`] past `N` bytes, [`TextError::NotUtf8`] for a
    /// [`Text`] whose bytes are not UTF-8.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, TextError> {
        if bytes.len() > N {
            return Err(TextError::TooLong { len: bytes.len(), max: N });
        }
        if UTF8 && core::str::from_utf8(bytes).is_err() {
            return Err(TextError::NotUtf8);
        }
        let mut value = Self::EMPTY;
        value.bytes[..bytes.len()].copy_from_slice(bytes);
        value.len = bytes.len();
        Ok(value)
    }

    /// The bytes held.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// The number of bytes held.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no byte.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<const N: usize> Bounded<N, true> {
    /// The string held.
    pub fn as_str(&self) -> &str {
        // Every constructor checks the bytes are UTF-8.
        core::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }
}

impl<const N: usize, const UTF8: bool> Default for Bounded<N, UTF8> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<const N: usize, const UTF8: bool> PartialEq for Bounded<N, UTF8> {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl<const N: usize, const UTF8: bool> Eq for Bounded<N, UTF8> {}

impl<const N: usize, const UTF8: bool> Hash for Bounded<N, UTF8> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl<const N: usize, const UTF8: bool> fmt::Debug for Bounded<N, UTF8> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match core::str::from_utf8(self.as_bytes()) {
            Ok(s) if UTF8 => fmt::Debug::fmt(s, f),
            _ => fmt::Debug::fmt(self.as_bytes(), f),
        }
    }
}

impl<const N: usize> fmt::Display for Bounded<N, true> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl<const N: usize> Deref for Bounded<N, true> {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl<const N: usize> Deref for Bounded<N, false> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl<const N: usize> TryFrom<&str> for Bounded<N, true> {
    type Error = TextError;

    fn try_from(s: &str) -> Result<Self, TextError> {
        Self::from_bytes(s.as_bytes())
    }
}

impl<const N: usize> TryFrom<&[u8]> for Bounded<N, false> {
    type Error = TextError;

    fn try_from(bytes: &[u8]) -> Result<Self, TextError> {
        Self::from_bytes(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_their_bytes_within_the_capacity() {
        let t = Text::<5>::try_from("hé").unwrap();
        assert_eq!((&*t, t.len(), format!("{t}").as_str()), ("hé", 3, "hé"));
        assert_eq!(Text::<5>::try_from("héllo"), Err(TextError::TooLong { len: 6, max: 5 }));
        assert_eq!(Text::<4>::from_bytes(&[0xff]), Err(TextError::NotUtf8));
        let b = Blob::<4>::try_from(&[0xff, 0][..]).unwrap();
        assert_eq!(&*b, &[0xff, 0]);
        assert_eq!(format!("{b:?} {t:?}"), "[255, 0] \"hé\"");
        assert!(Text::<3>::default().is_empty() && Text::<3>::EMPTY == Text::<3>::default());
        assert_ne!(Text::<3>::try_from("a").unwrap(), Text::<3>::try_from("b").unwrap());
    }
}
