//! Flattening a class into the scalar fields the runtime codec works on.
//!
//! Wire order is field order; inside a field, vec components go `x`, `y`, `z`, array elements go
//! by index, and a quaternion is its `largest` index followed by the three other components
//! `c0`, `c1`, `c2` (in index order, skipping the largest). Paths name each scalar stably:
//! `pos.x`, `color[2]`, `waypoints[1].y`, `orientation.largest`, `orientation.c0`.
//!
//! A struct is its fields in order under the holding path (`stats.health`, `buffs[2].time`).
//! An `optional<K>` is its presence flag, `name.present`, then `K`'s scalars under
//! `name.value` (`target.present`, `target.value.x`, `target.value.y`).
//!
//! A scalar takes each clause (`predict`, `tolerance`) from the innermost field on its path that
//! writes it: a struct's own field first, then the field holding the struct, and so on out to
//! the class's field; the default predictors apply when none does. The update group is always
//! the class field's. A tolerance is counted in raw steps of the scalar's own grid.
//!
//! A `list<K, N>` is its `head` link, `name.head`, then `N` slots in order, each its `next`
//! link, `name[s].next`, then `K`'s scalars under `name[s]` (`items.head`, `items[0].next`,
//! `items[0].x`, `items[0].y`, `items[1].next`, …). A link is a slot index or `N` for the end;
//! the list is the chain of slots from `head` (the facade's `chain` module writes and reads
//! it). Links are exact and transition-coded; the elements' scalars take the field's clauses.
//!
//! A `timeline(...)` field is its slots in order, each whether it holds a keyframe,
//! `name[s].live`, the keyframe's frame, `name[s].t`, then the kind's scalars under `name[s]`
//! (`pos[0].live`, `pos[0].t`, `pos[0].x`, `pos[0].y`, `pos[1].live`, …): the layout of the
//! runtime's `Timeline::write_row`.
//!
//! Update groups do not change the order: each scalar records the index of its field's group,
//! and [`Class::update_groups`] lists the groups as the runtime numbers them.

use crate::ir::{
    Class, Field, FieldType, Input, Interp, Precision, Predictor, PredictorSet, Schedule, Schema,
    Struct, TypeKind, tolerance_steps,
};
use crate::limits::{MAX_ARRAY_LEN, MAX_LIST_LEN, MAX_STRUCT_DEPTH};
use crate::span::{Span, Spanned};
use netschema_runtime::schema::KeySlot;

/// One scalar of a flattened class.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalarField {
    /// The stable path name (`pos.x`, `color[0]`, `orientation.largest`).
    pub path: String,
    /// The index of the class field this scalar comes from.
    pub field: usize,
    /// The scalar's kind.
    pub kind: ScalarKind,
    /// The candidate predictors; empty for transition-coded kinds
    /// ([`ScalarKind::is_transition_coded`]).
    pub predictors: PredictorSet,
    /// The error tolerance in raw steps ([`Field::tolerance_steps`](crate::ir::Field::tolerance_steps));
    /// 0 (exact) for transition-coded kinds.
    pub tolerance: u32,
    /// The index of the field's update group in [`Class::update_groups`] (0: the default group).
    pub group: u8,
    /// Where the scalar sits in a timeline's slots, if it is one of a keyframe's values.
    pub slot: Option<KeySlot>,
    /// The span of the field's kind.
    pub span: Span,
}

/// The kind of one scalar.
#[derive(Clone, Debug, PartialEq)]
pub enum ScalarKind {
    /// An integer in `min..=max`.
    Int {
        /// Smallest value.
        min: i32,
        /// Largest value.
        max: i32,
    },
    /// A fixed-point real in `min..=max`.
    Fixed {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
        /// Step or bit count.
        precision: Precision,
    },
    /// A wrapping angle of `bits` bits per turn.
    Angle {
        /// Bits per value.
        bits: u32,
    },
    /// The index (0..4) of a quaternion's largest component: an enum of 4, transition-coded.
    QuatLargest,
    /// One of a quaternion's three smallest components, in ±1/√2 at `bits` bits.
    QuatComponent {
        /// Bits per component.
        bits: u32,
    },
    /// A bool, transition-coded.
    Bool,
    /// Whether an `optional<K>` holds a value (0 absent, 1 present), transition-coded.
    Presence,
    /// A link of a `list<K, N>` (its `head` or a slot's `next`): a slot index in `0..N`, or
    /// `N` for the end; transition-coded.
    ListLink {
        /// The list's bound, `N`.
        len: u32,
    },
    /// An enum, transition-coded.
    Enum {
        /// The enum's name.
        name: String,
        /// Its number of cases (0 if the name does not resolve, which validation rejects).
        cases: u32,
    },
    /// A timeline slot's flag: 0 empty, 1 or 2 a keyframe (alternating each time the slot
    /// takes a new one), transition-coded.
    KeyFlag,
    /// A timeline slot's keyframe frame, `0..=i32::MAX`.
    KeyTime {
        /// The timeline's interpolation, part of the scalar's meaning.
        interp: Interp,
    },
}

impl ScalarKind {
    /// Whether the scalar is coded with a transition model (bool, enum, quaternion largest
    /// index) rather than predicted.
    pub fn is_transition_coded(&self) -> bool {
        matches!(
            self,
            ScalarKind::QuatLargest
                | ScalarKind::Bool
                | ScalarKind::Presence
                | ScalarKind::ListLink { .. }
                | ScalarKind::Enum { .. }
                | ScalarKind::KeyFlag
        )
    }

    /// The number of distinct raw values (`None` if invalid or above `u64`).
    pub fn cardinality(&self) -> Option<u64> {
        match self {
            ScalarKind::Int { min, max } => {
                u64::try_from(i64::from(*max) - i64::from(*min) + 1).ok()
            }
            ScalarKind::Fixed { min, max, precision } => {
                precision.steps(*min, *max)?.checked_add(1)
            }
            ScalarKind::Angle { bits } | ScalarKind::QuatComponent { bits } => {
                1u64.checked_shl(*bits)
            }
            ScalarKind::KeyTime { .. } => Some(1 << 31),
            ScalarKind::KeyFlag => Some(3),
            ScalarKind::QuatLargest => Some(4),
            ScalarKind::Bool | ScalarKind::Presence => Some(2),
            ScalarKind::ListLink { len } => Some(u64::from(*len) + 1),
            ScalarKind::Enum { cases, .. } => Some(u64::from(*cases)),
        }
    }

    /// Bits of a raw value written plainly: `ceil(log2(cardinality))` (informational; the codec
    /// entropy-codes residuals).
    pub fn bits(&self) -> Option<u32> {
        let n = self.cardinality()?;
        Some(if n <= 1 { 0 } else { u64::BITS - (n - 1).leading_zeros() })
    }
}

/// One update group of a class, defaults filled in: what the runtime's `schema::Group` holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpdateGroup {
    /// The group's name, empty for the class's default group.
    pub name: String,
    /// The send interval in frames (`every`, default 1).
    pub interval: u16,
    /// The priority while due (`priority`, default 1).
    pub priority: u16,
}

impl UpdateGroup {
    /// The group called `name` on `schedule`, values saturated to `u16` (validation keeps them
    /// in range).
    fn new(name: &str, schedule: &Schedule) -> UpdateGroup {
        let value = |v: &Option<Spanned<i64>>| {
            v.as_ref().map_or(1, |v| u16::try_from(v.value.max(0)).unwrap_or(u16::MAX))
        };
        UpdateGroup {
            name: name.to_owned(),
            interval: value(&schedule.every),
            priority: value(&schedule.priority),
        }
    }
}

impl Class {
    /// The class's update groups as the runtime lists them (`schema::Class::groups`): the
    /// default group (named `""`, on the class's own schedule) then the declared groups in
    /// order; empty for a class with no declared group whose default group is sent every frame
    /// at priority 1, which the runtime reads as that one group.
    pub fn update_groups(&self) -> Vec<UpdateGroup> {
        let default = UpdateGroup::new("", &self.schedule);
        if self.groups.is_empty() && default.interval == 1 && default.priority == 1 {
            return Vec::new();
        }
        let declared = self.groups.iter().map(|g| UpdateGroup::new(&g.name, &g.schedule));
        std::iter::once(default).chain(declared).collect()
    }
}

impl Schema {
    /// The scalar fields of `class` in wire order. Meant for validated schemas; on others it
    /// does not panic (an unknown enum has 0 cases and an unknown struct no scalars,
    /// out-of-range `int` bounds saturate, arrays stop after [`MAX_ARRAY_LEN`] elements and
    /// lists after [`MAX_LIST_LEN`] slots, structs deeper than [`MAX_STRUCT_DEPTH`] are left
    /// empty and a field of an unknown group is in group 0).
    pub fn flatten(&self, class: &Class) -> Vec<ScalarField> {
        let mut out = Vec::new();
        for (index, field) in class.fields.iter().enumerate() {
            let group = field.group.as_ref().and_then(|g| class.group_index(&g.value));
            let ctx = Ctx::top(
                self,
                index,
                field,
                group.map_or(0, |g| u8::try_from(g).unwrap_or(u8::MAX)),
            );
            match &field.timeline {
                None => ctx.push(&field.ty, field.name.clone(), &mut out),
                Some(t) => {
                    let capacity = t.capacity();
                    for slot in 0..capacity {
                        let path = format!("{}[{slot}]", field.name);
                        let first = out.len();
                        out.push(ctx.scalar(format!("{path}.live"), ScalarKind::KeyFlag));
                        let time = ScalarKind::KeyTime { interp: t.interp.value };
                        out.push(ScalarField {
                            predictors: KEY_TIME_PREDICTORS,
                            ..ctx.scalar(format!("{path}.t"), time)
                        });
                        ctx.push(&field.ty, path, &mut out);
                        let stride = out.len() - first;
                        for (i, value) in out[first + 1..].iter_mut().enumerate() {
                            value.slot = Some(KeySlot {
                                after_flag: u8::try_from(i + 1).unwrap_or(u8::MAX),
                                stride: u8::try_from(stride).unwrap_or(u8::MAX),
                                index: u8::try_from(slot).unwrap_or(u8::MAX),
                                capacity: u8::try_from(capacity).unwrap_or(u8::MAX),
                            });
                        }
                    }
                }
            }
        }
        out
    }

    /// The scalar fields of input `input` in wire order: those of the one class of its input
    /// schema ([`Input::as_class`]). Meant for validated schemas, as [`Schema::flatten`].
    pub fn flatten_input(&self, input: &Input) -> Vec<ScalarField> {
        self.flatten(&input.as_class())
    }

    /// The scalar fields of struct `s` in wire order, with paths relative to it (`health`,
    /// `pos.x`): what a derived struct lists for the classes that hold it. Meant for validated
    /// schemas, as [`Schema::flatten`].
    pub fn flatten_struct(&self, s: &Struct) -> Vec<ScalarField> {
        let mut out = Vec::new();
        for (index, field) in s.fields.iter().enumerate() {
            Ctx::top(self, index, field, 0).push(&field.ty, field.name.clone(), &mut out);
        }
        out
    }
}

/// The candidate predictors of a timeline slot's time: the slot's time at the baseline, or
/// nothing (a new keyframe's time is coded whole when that is cheaper).
const KEY_TIME_PREDICTORS: PredictorSet =
    PredictorSet::EMPTY.with(Predictor::Zero).with(Predictor::Hold);

/// What the scalars under one path inherit: the class field's index, group and span, and the
/// innermost `predict` and `tolerance` clauses written on the way down.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    schema: &'a Schema,
    field: usize,
    predictors: Option<PredictorSet>,
    /// In natural units, converted to raw steps of each scalar's own grid.
    tolerance: Option<f64>,
    group: u8,
    span: Span,
    /// Structs entered on the way down.
    depth: usize,
}

impl<'a> Ctx<'a> {
    /// The context of field `index` of a class (in update group `group`) or of a struct.
    fn top(schema: &'a Schema, index: usize, field: &Field, group: u8) -> Ctx<'a> {
        Ctx {
            schema,
            field: index,
            predictors: None,
            tolerance: None,
            group,
            span: field.ty.span,
            depth: 0,
        }
        .within(field)
    }

    /// This context inside `field` (a class's or a struct's): its clauses win over the ones
    /// inherited.
    fn within(self, field: &Field) -> Ctx<'a> {
        let predictors =
            field.predict.as_ref().map(|c| c.predictors.iter().map(|p| p.value).collect());
        Ctx {
            predictors: predictors.or(self.predictors),
            tolerance: field.tolerance.as_ref().map(|t| t.value).or(self.tolerance),
            ..self
        }
    }

    fn scalar(&self, path: String, kind: ScalarKind) -> ScalarField {
        self.scalar_of(path, kind, None)
    }

    /// A scalar of kind `kind`, with the grid step of its leaf kind `leaf` (for its tolerance).
    fn scalar_of(&self, path: String, kind: ScalarKind, leaf: Option<&FieldType>) -> ScalarField {
        let (predictors, tolerance) = if kind.is_transition_coded() {
            (PredictorSet::EMPTY, 0)
        } else {
            let steps = match (self.tolerance, leaf.and_then(FieldType::step)) {
                (Some(v), Some(step)) => {
                    u32::try_from(tolerance_steps(v, step)).unwrap_or(u32::MAX)
                }
                _ => 0,
            };
            (self.predictors.unwrap_or(PredictorSet::DEFAULT), steps)
        };
        ScalarField {
            path,
            field: self.field,
            kind,
            predictors,
            tolerance,
            group: self.group,
            slot: None,
            span: self.span,
        }
    }

    fn push(&self, ty: &FieldType, path: String, out: &mut Vec<ScalarField>) {
        let clamp = |v: i64| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
        match &ty.kind {
            TypeKind::Int { min, max } => out.push(self.scalar_of(
                path,
                ScalarKind::Int { min: clamp(min.value), max: clamp(max.value) },
                Some(ty),
            )),
            TypeKind::Fixed { min, max, precision, .. } => out.push(self.scalar_of(
                path,
                ScalarKind::Fixed { min: min.value, max: max.value, precision: precision.value },
                Some(ty),
            )),
            TypeKind::Angle { bits, .. } => {
                out.push(self.scalar_of(path, ScalarKind::Angle { bits: bits.value }, Some(ty)))
            }
            TypeKind::Quat { bits, .. } => {
                out.push(self.scalar(format!("{path}.largest"), ScalarKind::QuatLargest));
                for c in ["c0", "c1", "c2"] {
                    out.push(self.scalar_of(
                        format!("{path}.{c}"),
                        ScalarKind::QuatComponent { bits: bits.value },
                        Some(ty),
                    ));
                }
            }
            TypeKind::Bool => out.push(self.scalar(path, ScalarKind::Bool)),
            TypeKind::Enum { name } => {
                let cases = self
                    .schema
                    .find_enum(name)
                    .map_or(0, |(_, e)| u32::try_from(e.cases.len()).unwrap_or(u32::MAX));
                out.push(self.scalar(path, ScalarKind::Enum { name: name.clone(), cases }));
            }
            TypeKind::Vec2(elem) => {
                for c in ["x", "y"] {
                    self.push(elem, format!("{path}.{c}"), out);
                }
            }
            TypeKind::Vec3(elem) => {
                for c in ["x", "y", "z"] {
                    self.push(elem, format!("{path}.{c}"), out);
                }
            }
            TypeKind::Array { elem, len } => {
                for i in 0..len.value.min(MAX_ARRAY_LEN) {
                    self.push(elem, format!("{path}[{i}]"), out);
                }
            }
            TypeKind::Struct { name } => {
                let Some((_, s)) = self.schema.find_struct(name) else { return };
                if self.depth >= MAX_STRUCT_DEPTH {
                    return;
                }
                let inner = Ctx { depth: self.depth + 1, ..*self };
                for f in &s.fields {
                    inner.within(f).push(&f.ty, format!("{path}.{}", f.name), out);
                }
            }
            TypeKind::Optional(inner) => {
                out.push(self.scalar(format!("{path}.present"), ScalarKind::Presence));
                self.push(inner, format!("{path}.value"), out);
            }
            TypeKind::List { elem, len } => {
                let link = ScalarKind::ListLink { len: len.value.min(MAX_LIST_LEN) };
                out.push(self.scalar(format!("{path}.head"), link.clone()));
                for s in 0..len.value.min(MAX_LIST_LEN) {
                    out.push(self.scalar(format!("{path}[{s}].next"), link.clone()));
                    self.push(elem, format!("{path}[{s}]"), out);
                }
            }
            // A link or a text field of the class, beside its scalars.
            TypeKind::Ref { .. } | TypeKind::Text { .. } => {}
        }
    }
}
