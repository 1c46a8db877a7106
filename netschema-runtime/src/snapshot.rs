//! The traits generated code implements: one per entity class, one per enum, and one per
//! schema (a Rust enum over its classes), with the checked-capture report they share.

use core::fmt;

use crate::schema::{Class, Schema};

/// A replicated entity type: its class descriptor and the mapping between its natural
/// values and the raw integers the codec works on.
///
/// Implemented by the code generated from `.netidl` schemas and by `#[derive(Snapshot)]`;
/// both produce the same descriptor for the same declaration.
pub trait Snapshot: Sized {
    /// The class descriptor: name and scalar fields in wire order.
    const CLASS: Class;

    /// Writes one raw value per scalar field of [`Snapshot::CLASS`] into `raw` (which has at
    /// least that many entries). A value that is NaN, infinite or outside its field's range
    /// is clamped into it (NaN to the range's minimum, a quaternion to the identity) and
    /// reported to `clamped` with the index of its scalar field in [`Snapshot::CLASS`].
    fn quantise_with(&self, raw: &mut [i32], clamped: &mut dyn FnMut(usize, Value));

    /// Like [`Snapshot::quantise_with`], clamping silently. Debug builds assert that nothing
    /// needed clamping: use [`Snapshot::try_quantise`] where bad values are expected.
    fn quantise(&self, raw: &mut [i32]) {
        self.quantise_with(raw, &mut |field, value| {
            debug_assert!(false, "{}", Clamped::new(&Self::CLASS, field, value));
        });
    }

    /// Like [`Snapshot::quantise`], but the first value that needed clamping is an error
    /// naming its class, field and value (`raw` is still written, clamped).
    fn try_quantise(&self, raw: &mut [i32]) -> Result<(), Clamped> {
        first_clamped(&Self::CLASS, |clamped| self.quantise_with(raw, clamped))
    }

    /// Rebuilds a value from raw values (as written by [`Snapshot::quantise`]); raw values
    /// outside a field's range are clamped first. Its references name nothing.
    fn dequantise(raw: &[i32]) -> Self;

    /// The entity reference `link` of this value names (an index into
    /// [`Class::links`](crate::schema::Class::links)): on the server the game's id of the
    /// target. `None` for nothing, or for a class without links.
    fn link(&self, link: usize) -> Option<u64> {
        let _ = link;
        None
    }

    /// Points reference `link` of this value at `target` (on a client the handle it holds the
    /// target under); does nothing for a class without links.
    fn set_link(&mut self, link: usize, target: Option<u64>) {
        let _ = (link, target);
    }

    /// The bytes of text field `text` of this value (an index into
    /// [`Class::texts`](crate::schema::Class::texts)); empty for a class without text fields.
    fn text(&self, text: usize) -> &[u8] {
        let _ = text;
        &[]
    }

    /// Sets text field `text` of this value to `bytes`, if they fit it (at most its bound,
    /// UTF-8 for a string; see [`TextField::check`](crate::schema::TextField::check)), and
    /// returns whether they did; false for a class without text fields.
    fn set_text(&mut self, text: usize, bytes: &[u8]) -> bool {
        let _ = (text, bytes);
        false
    }
}

/// An enum replicated as a categorical field: its cases, in index order.
///
/// Implemented by the enums generated from `.netidl` schemas and by `#[derive(SnapshotEnum)]`
/// on fieldless enums. The raw value of a case is its index in [`SnapshotEnum::ALL`]
/// (declaration order), whatever its Rust discriminant.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a netschema enum: it does not implement `SnapshotEnum`",
    label = "not a `SnapshotEnum`",
    note = "a field without a `#[netschema(...)]` kind must be a `bool`, an enum with `#[derive(SnapshotEnum)]`, or an array of them"
)]
pub trait SnapshotEnum: Copy + 'static {
    /// Every case, in index order (never empty).
    const ALL: &'static [Self];

    /// The Rust name of every case, in index order: part of the schema hash.
    const NAMES: &'static [&'static str];

    /// The number of cases.
    const CASES: u32 = Self::ALL.len() as u32;

    /// The index of this case in [`SnapshotEnum::ALL`].
    fn index(self) -> u32;

    /// The case at `index`, or the last case if `index` is out of range.
    fn from_index(index: u32) -> Self {
        let all = Self::ALL;
        all[(index as usize).min(all.len().saturating_sub(1))]
    }
}

/// A value given to a quantiser, as the game held it.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    /// An integer field's value.
    Int(i64),
    /// A real field's value (one component of a vector or quaternion).
    Real(f64),
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Real(a), Value::Real(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

impl Eq for Value {}

impl core::hash::Hash for Value {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        match self {
            Value::Int(v) => (0u8, *v).hash(state),
            Value::Real(v) => (1u8, v.to_bits()).hash(state),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Real(v) => write!(f, "{v}"),
        }
    }
}

/// A value that did not fit its field: NaN, infinite, or outside the field's range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Clamped {
    /// The class.
    pub class: &'static str,
    /// The scalar field (`pos.x`, `color[2]`; `rot.largest` for a quaternion, reported with
    /// its first non-finite component, or 0 for a zero quaternion).
    pub field: &'static str,
    /// The scalar field's index in the class.
    pub index: usize,
    /// The value given.
    pub value: Value,
}

impl Clamped {
    /// The report for scalar field `index` of `class` given `value`.
    pub fn new(class: &Class, index: usize, value: Value) -> Clamped {
        let field = class.fields.get(index).map_or("?", |f| f.name);
        Clamped { class: class.name, field, index, value }
    }
}

impl fmt::Display for Clamped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.value {
            Value::Real(v) if v.is_nan() => "is NaN",
            Value::Real(v) if v.is_infinite() => "is infinite",
            _ => "is outside the field's range",
        };
        write!(f, "`{}.{}` = {} {what}", self.class, self.field, self.value)
    }
}

/// A schema as a Rust type: an enum with one variant per class, in class order.
///
/// Generated for every `.netidl` schema (the enum is named after the schema), and by
/// `#[derive(Protocol)]` on an enum whose variants each hold one `Snapshot` type: the
/// variants' order is the classes' order, so class indices can never disagree.
pub trait Protocol: Sized + 'static {
    /// The schema's descriptors.
    const SCHEMA: &'static Schema;

    /// The class index of this value.
    fn class(&self) -> usize;

    /// Quantises this value's fields into `raw`, as [`Snapshot::quantise_with`].
    fn quantise_with(&self, raw: &mut [i32], clamped: &mut dyn FnMut(usize, Value));

    /// Like [`Snapshot::try_quantise`] for this value's class.
    fn try_quantise(&self, raw: &mut [i32]) -> Result<(), Clamped> {
        let class = Self::SCHEMA.classes.get(self.class()).unwrap_or(&Self::SCHEMA.classes[0]);
        first_clamped(class, |clamped| self.quantise_with(raw, clamped))
    }

    /// Rebuilds a value of class `class` from its raw values; `None` if the schema has no
    /// such class.
    fn dequantise(class: usize, raw: &[i32]) -> Option<Self>;

    /// [`Snapshot::link`] of this value's class (the default: a schema without links).
    fn link(&self, link: usize) -> Option<u64> {
        let _ = link;
        None
    }

    /// [`Snapshot::set_link`] of this value's class (the default: a schema without links).
    fn set_link(&mut self, link: usize, target: Option<u64>) {
        let _ = (link, target);
    }

    /// [`Snapshot::text`] of this value's class (the default: a schema without text fields).
    fn text(&self, text: usize) -> &[u8] {
        let _ = text;
        &[]
    }

    /// [`Snapshot::set_text`] of this value's class (the default: a schema without text
    /// fields).
    fn set_text(&mut self, text: usize, bytes: &[u8]) -> bool {
        let _ = (text, bytes);
        false
    }
}

/// Runs `quantise` and reports the first value it clamped, as a scalar field of `class`.
fn first_clamped(
    class: &Class,
    quantise: impl FnOnce(&mut dyn FnMut(usize, Value)),
) -> Result<(), Clamped> {
    let mut first = None;
    quantise(&mut |field, value| {
        first.get_or_insert((field, value));
    });
    first.map_or(Ok(()), |(field, value)| Err(Clamped::new(class, field, value)))
}

/// What a [`Ref`](crate::Ref) of schema `P` may name: a class of `P` (its targets are of
/// that class), or `P` itself (any class). Implemented with `P`'s [`Protocol`] impl.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a class of the schema `{P}`",
    label = "not a class of `{P}`",
    note = "a `Ref<T>` names a class of the schema (the type a variant of its enum holds), or the schema's enum itself for an entity of any class"
)]
pub trait Target<P: Protocol>: Sized {
    /// The class a target must be of (its index in `P::SCHEMA`), or `None` for any class: a
    /// link's [`target`](crate::schema::Link::target).
    const TARGET: Option<u16>;

    /// `entity` as a `Self`, if it is one.
    fn from_entity(entity: P) -> Option<Self>;
}

/// A class of the schema `P`: its index there, and its place in `P`'s enum.
pub trait ClassOf<P: Protocol>: Snapshot + Into<P> {
    /// The class's index in `P::SCHEMA`: its id on the wire.
    const INDEX: usize;
}
