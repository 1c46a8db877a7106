//! The runtime quantiser of each scalar kind.

use netschema_runtime::Error;
use netschema_runtime::model::predict::Predictor;
use netschema_runtime::quant::{AngleQuant, BoolQuant, EnumQuant, FixedQuant, IntQuant, QuatQuant};
use netschema_runtime::schema::Field;

use netschema_idl::ScalarKind;

/// The runtime quantiser of one scalar field: how its natural value becomes a raw `i32`.
///
/// The same constructors the generated code calls in `const` items, called at run time, so a
/// schema loaded by a tool quantises exactly as the compiled one does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Quantiser {
    /// `int(min, max)`.
    Int(IntQuant),
    /// `fixed(min, max, …)`.
    Fixed(FixedQuant),
    /// `angle(bits = N)`.
    Angle(AngleQuant),
    /// The largest-component index of a `quat(bits = N)` (raw `0..=3`); the quaternion's
    /// quantiser is kept for converting the whole rotation.
    QuatLargest(QuatQuant),
    /// One of the three stored components of a `quat(bits = N)`.
    QuatComponent(QuatQuant),
    /// `bool`.
    Bool(BoolQuant),
    /// An enum.
    Enum(EnumQuant),
}

impl Quantiser {
    /// The quantiser of `kind`, or [`Error::InvalidQuantiser`] if its parameters are invalid
    /// (which validation rejects).
    pub fn new(kind: &ScalarKind) -> Result<Quantiser, Error> {
        Ok(match kind {
            ScalarKind::Int { min, max } => Quantiser::Int(IntQuant::new(*min, *max)?),
            ScalarKind::Fixed { min, max, precision } => {
                Quantiser::Fixed(precision.quantiser(*min, *max)?)
            }
            ScalarKind::Angle { bits } => Quantiser::Angle(AngleQuant::new(*bits)?),
            // The index does not depend on the component width; 2 is the narrowest valid one.
            ScalarKind::QuatLargest => Quantiser::QuatLargest(QuatQuant::new(2)?),
            ScalarKind::QuatComponent { bits } => Quantiser::QuatComponent(QuatQuant::new(*bits)?),
            ScalarKind::Bool | ScalarKind::Presence => Quantiser::Bool(BoolQuant::new()?),
            ScalarKind::Enum { cases, .. } => Quantiser::Enum(EnumQuant::new(*cases)?),
            // A list's link: a slot index, or the bound for the end.
            ScalarKind::ListLink { len } => Quantiser::Enum(EnumQuant::new(len + 1)?),
            // A timeline slot's frame plus one.
            ScalarKind::KeyTime { .. } => Quantiser::Int(IntQuant::new(0, i32::MAX)?),
            // A timeline slot's flag: empty, or a keyframe of generation 1 or 2.
            ScalarKind::KeyFlag => Quantiser::Enum(EnumQuant::new(3)?),
        })
    }

    /// The smallest raw value.
    pub fn raw_min(&self) -> i32 {
        match self {
            Quantiser::Int(q) => q.raw_min(),
            Quantiser::Fixed(q) => q.raw_min(),
            Quantiser::Angle(q) => q.raw_min(),
            Quantiser::QuatLargest(q) => q.index().raw_min(),
            Quantiser::QuatComponent(q) => q.raw_min(),
            Quantiser::Bool(q) => q.raw_min(),
            Quantiser::Enum(q) => q.raw_min(),
        }
    }

    /// The largest raw value.
    pub fn raw_max(&self) -> i32 {
        match self {
            Quantiser::Int(q) => q.raw_max(),
            Quantiser::Fixed(q) => q.raw_max(),
            Quantiser::Angle(q) => q.raw_max(),
            Quantiser::QuatLargest(q) => q.index().raw_max(),
            Quantiser::QuatComponent(q) => q.raw_max(),
            Quantiser::Bool(q) => q.raw_max(),
            Quantiser::Enum(q) => q.raw_max(),
        }
    }

    /// Bits of a raw value written plainly.
    pub fn bits(&self) -> u32 {
        match self {
            Quantiser::Int(q) => q.bits(),
            Quantiser::Fixed(q) => q.bits(),
            Quantiser::Angle(q) => q.bits(),
            Quantiser::QuatLargest(q) => q.index().bits(),
            Quantiser::QuatComponent(q) => q.bits(),
            Quantiser::Bool(q) => q.bits(),
            Quantiser::Enum(q) => q.bits(),
        }
    }

    /// Whether the raw range wraps (angles).
    pub fn wraps(&self) -> bool {
        matches!(self, Quantiser::Angle(_))
    }

    /// Whether the scalar is coded by a transition model (bool, enum, quaternion index)
    /// rather than predicted.
    pub fn is_categorical(&self) -> bool {
        matches!(self, Quantiser::QuatLargest(_) | Quantiser::Bool(_) | Quantiser::Enum(_))
    }

    /// The step between neighbouring raw values in natural units (radians for angles), for
    /// the real kinds; `None` for integers, bools, enums and the quaternion index.
    pub fn resolution(&self) -> Option<f64> {
        match self {
            Quantiser::Fixed(q) => Some(q.resolution()),
            Quantiser::Angle(q) => Some(q.resolution()),
            Quantiser::QuatComponent(q) => Some(q.resolution()),
            _ => None,
        }
    }

    /// The runtime descriptor of a scalar with this quantiser: numeric with `predictors`, or
    /// categorical (then `predictors` is ignored), with `meaning` as its
    /// [`Field::meaning`](netschema_runtime::schema::Field::meaning).
    pub fn descriptor(
        &self,
        name: &'static str,
        predictors: &'static [Predictor],
        meaning: u64,
    ) -> Field {
        let field = if self.is_categorical() {
            // `raw_max` of a categorical quantiser is at most `i32::MAX`, so this cannot wrap.
            Field::categorical(name, self.raw_max() as u32 + 1)
        } else {
            Field::numeric(name, self.raw_min(), self.raw_max(), self.wraps(), predictors)
        };
        field.with_meaning(meaning)
    }

    /// The fingerprint generated code gives a field with this quantiser, as its
    /// [`Field::meaning`](netschema_runtime::schema::Field::meaning); `None` for an enum,
    /// whose fingerprint covers its case names
    /// ([`EnumQuant::fingerprint`]).
    pub fn fingerprint(&self) -> Option<u64> {
        match self {
            Quantiser::Int(q) => Some(q.fingerprint()),
            Quantiser::Fixed(q) => Some(q.fingerprint()),
            Quantiser::Angle(q) => Some(q.fingerprint()),
            Quantiser::QuatLargest(q) => Some(q.index().fingerprint()),
            Quantiser::QuatComponent(q) => Some(q.fingerprint()),
            Quantiser::Bool(q) => Some(q.fingerprint()),
            Quantiser::Enum(_) => None,
        }
    }
}
