//! [`Ref`]: a class's reference to another entity, as a game holds it.

use core::fmt;
use core::hash::{Hash, Hasher};
use core::marker::PhantomData;

/// A reference from an entity to an entity of class `T` (or of any class when `T` is the
/// schema's enum), or none: a field of a class that the schema replicates as a link
/// ([`Class::links`](crate::schema::Class::links)).
///
/// On the server it holds the game's id of the target (the id the owned server takes); on a
/// client it holds the handle the client holds the target under, or none while the client
/// does not hold it. A server id never reaches a client.
pub struct Ref<T> {
    id: Option<u64>,
    _target: PhantomData<fn() -> T>,
}

impl<T> Ref<T> {
    /// A reference to nothing.
    pub const NONE: Ref<T> = Ref { id: None, _target: PhantomData };

    /// A reference to the entity `id` (on the server the game's id, on a client the handle).
    pub const fn to(id: u64) -> Ref<T> {
        Ref { id: Some(id), _target: PhantomData }
    }

    /// A reference to `id`, or to nothing.
    pub const fn new(id: Option<u64>) -> Ref<T> {
        Ref { id, _target: PhantomData }
    }

    /// The entity referred to: on the server the game's id, on a client the handle.
    pub const fn id(self) -> Option<u64> {
        self.id
    }

    /// The handle a client holds the target under, if it holds it.
    pub fn handle(self) -> Option<u32> {
        self.id.and_then(|id| u32::try_from(id).ok())
    }

    /// Whether the reference names nothing.
    pub const fn is_none(self) -> bool {
        self.id.is_none()
    }
}

impl<T> Clone for Ref<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Ref<T> {}

impl<T> Default for Ref<T> {
    fn default() -> Self {
        Ref::NONE
    }
}

impl<T> PartialEq for Ref<T> {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl<T> Eq for Ref<T> {}

impl<T> Hash for Ref<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

impl<T> fmt::Debug for Ref<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.id {
            Some(id) => write!(f, "Ref({id})"),
            None => f.write_str("Ref(none)"),
        }
    }
}

impl<T> From<Option<u64>> for Ref<T> {
    fn from(id: Option<u64>) -> Self {
        Ref::new(id)
    }
}
