//! The JSON shape of each field, and its natural value to raw values and back.
//!
//! A field's shape follows its kind: a scalar is a JSON number, bool or case name; a
//! quaternion an array `[x, y, z, w]`; a vector or array a JSON array of its elements; a struct
//! an object of its fields; an optional `null` when absent, else its value; a list a JSON
//! array of at most its bound's elements, read into slots `0, 1, …` in order (a trace does not
//! say which element is which from one frame to the next) and written in its chain's order,
//! ending where a malformed chain breaks. Walking
//! the shape visits the field's scalars in the order [`ir::Schema::flatten`] gives them, so the
//! `i`-th scalar met is the `i`-th of the field's slice of the class row.

use std::fmt::Write as _;

use netschema_runtime::quant::QuatQuant;
use serde_json::Value;

use super::error::{TraceErrorKind, WriteError};
use crate::descriptors::{ClassLayout, Quantiser, RuntimeSchema};
use crate::report::json_str;
use netschema_idl::ir::{self, FieldType, TypeKind};
use netschema_idl::limits::{MAX_ARRAY_LEN, MAX_LIST_LEN};

/// The JSON shape of a field or of part of one.
#[derive(Clone, Debug)]
pub(super) enum Shape {
    /// One scalar, read and written by its quantiser (`int`, `fixed`, `angle`, `bool`).
    Scalar,
    /// An enum scalar, written as one of these case names.
    Enum {
        /// The enum's name.
        name: String,
        /// Its case names, by index.
        cases: Vec<String>,
    },
    /// A quaternion `[x, y, z, w]`: four scalars (the largest index, three components).
    Quat(QuatQuant),
    /// A vector (components `x`, `y`, `z`) or array (`[i]`) of `len` elements of one shape.
    List {
        /// The element shape.
        elem: Box<Shape>,
        /// The number of elements.
        len: usize,
        /// Whether this is a vector (paths `.x`) rather than an array (paths `[i]`).
        vector: bool,
    },
    /// A struct: an object of its fields, in wire order.
    Record(Vec<(String, Shape)>),
    /// An optional: its presence flag, then its value's scalars.
    Optional(Box<Shape>),
    /// A list of at most `len` elements: its head link, then per slot a link and an element.
    Chain {
        /// The element shape.
        elem: Box<Shape>,
        /// The bound.
        len: usize,
    },
}

impl Shape {
    /// The shape of `ty` in `schema` (invalid kinds, which validation rejects, become scalars
    /// whose quantiser then fails to build).
    fn of(schema: &ir::Schema, ty: &FieldType) -> Shape {
        match &ty.kind {
            TypeKind::Enum { name } => Shape::Enum {
                name: name.clone(),
                cases: schema.find_enum(name).map_or_else(Vec::new, |(_, e)| {
                    e.cases.iter().map(|c| c.name.clone()).collect()
                }),
            },
            TypeKind::Quat { bits, .. } => match QuatQuant::new(bits.value) {
                Ok(q) => Shape::Quat(q),
                Err(_) => Shape::Scalar,
            },
            TypeKind::Vec2(elem) => Shape::list(schema, elem, 2, true),
            TypeKind::Vec3(elem) => Shape::list(schema, elem, 3, true),
            TypeKind::Array { elem, len } => {
                Shape::list(schema, elem, len.value.min(MAX_ARRAY_LEN) as usize, false)
            }
            TypeKind::Struct { name } => Shape::Record(
                schema
                    .find_struct(name)
                    .map(|(_, s)| &s.fields[..])
                    .unwrap_or_default()
                    .iter()
                    .map(|f| (f.name.clone(), Shape::of(schema, &f.ty)))
                    .collect(),
            ),
            TypeKind::Optional(inner) => Shape::Optional(Box::new(Shape::of(schema, inner))),
            TypeKind::List { elem, len } => Shape::Chain {
                elem: Box::new(Shape::of(schema, elem)),
                len: len.value.min(MAX_LIST_LEN) as usize,
            },
            TypeKind::Int { .. }
            | TypeKind::Fixed { .. }
            | TypeKind::Angle { .. }
            | TypeKind::Bool => Shape::Scalar,
            // A reference is a link and a string or blob a text field, not a scalar value:
            // `ClassShape::all` leaves them out.
            TypeKind::Ref { .. } | TypeKind::Text { .. } => Shape::Record(Vec::new()),
        }
    }

    fn list(schema: &ir::Schema, elem: &FieldType, len: usize, vector: bool) -> Shape {
        Shape::List { elem: Box::new(Shape::of(schema, elem)), len, vector }
    }

    /// The number of scalars of this shape.
    pub(super) fn scalars(&self) -> usize {
        match self {
            Shape::Scalar | Shape::Enum { .. } => 1,
            Shape::Quat(_) => 4,
            Shape::List { elem, len, .. } => elem.scalars() * len,
            Shape::Record(fields) => fields.iter().map(|(_, s)| s.scalars()).sum(),
            Shape::Optional(inner) => 1 + inner.scalars(),
            Shape::Chain { elem, len } => 1 + (1 + elem.scalars()) * len,
        }
    }
}

/// A field of a class: its name, shape, and the range of its scalars in the class row.
#[derive(Clone, Debug)]
pub(super) struct FieldShape {
    /// The field's name.
    pub(super) name: String,
    /// Its JSON shape.
    pub(super) shape: Shape,
    /// Its first scalar in the row.
    pub(super) start: usize,
    /// One past its last scalar.
    pub(super) end: usize,
}

/// The fields of one class, and the quantisers of its scalars.
#[derive(Clone, Debug)]
pub(super) struct ClassShape {
    /// The class's name.
    pub(super) name: String,
    /// Its fields in declaration order, references left out.
    pub(super) fields: Vec<FieldShape>,
    /// Its references in declaration order (the runtime's links): each field's name and the
    /// index of the class it names (`None`: any class).
    pub(super) references: Vec<(String, Option<usize>)>,
    /// Its scalars' quantisers, in row order.
    pub(super) quantisers: Vec<Quantiser>,
}

impl ClassShape {
    /// The shapes of every class of `schema`.
    pub(super) fn all(schema: &RuntimeSchema) -> Vec<ClassShape> {
        let classes = schema.ir.classes.iter().zip(&schema.classes);
        classes.map(|(class, layout)| ClassShape::of(schema, class, layout)).collect()
    }

    /// The shapes of every event of `schema`, each its one class's.
    pub(super) fn events(schema: &RuntimeSchema) -> Vec<ClassShape> {
        let events = schema.ir.events.iter().zip(&schema.events);
        events.map(|(event, layout)| ClassShape::of(schema, &event.as_class(), layout)).collect()
    }

    /// The shape of `class` of `schema`, laid out as `layout`.
    fn of(schema: &RuntimeSchema, class: &ir::Class, layout: &ClassLayout) -> ClassShape {
        let mut start = 0;
        let fields = class
            .fields
            .iter()
            .filter(|f| !matches!(f.ty.kind, TypeKind::Ref { .. } | TypeKind::Text { .. }))
            .map(|f| {
                let shape = Shape::of(&schema.ir, &f.ty);
                let end = start + shape.scalars();
                let field = FieldShape { name: f.name.clone(), shape, start, end };
                start = end;
                field
            })
            .collect();
        let references = class
            .references()
            .map(|(f, target)| {
                let index = target.and_then(|t| schema.ir.find_class(t)).map(|(i, _)| i);
                (f.name.clone(), index)
            })
            .collect();
        ClassShape {
            name: class.name.clone(),
            fields,
            references,
            quantisers: layout.quantisers.clone(),
        }
    }

    /// The index of the field called `name`.
    pub(super) fn field(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }

    /// The index of the reference called `name`.
    pub(super) fn reference(&self, name: &str) -> Option<usize> {
        self.references.iter().position(|(r, _)| r == name)
    }
}

/// A path inside a field, for messages: `pos.x`, `path[1].z`.
#[derive(Clone, Debug, Default)]
pub(super) struct Path(String);

impl Path {
    fn member(&mut self, name: &str) -> usize {
        let len = self.0.len();
        self.0.push('.');
        self.0.push_str(name);
        len
    }

    fn push(&mut self, vector: bool, i: usize) -> usize {
        let len = self.0.len();
        if vector {
            self.0.push('.');
            self.0.push_str(["x", "y", "z"].get(i).copied().unwrap_or("?"));
        } else {
            let _ = write!(self.0, "[{i}]");
        }
        len
    }
}

/// Out-of-range values met while reading, per scalar of a class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Clamps {
    /// How many values were clamped.
    pub(super) count: u64,
    /// The line of the first one.
    pub(super) first_line: usize,
}

/// Reads natural values into one entity's row.
pub(super) struct Reader<'a> {
    /// The class.
    pub(super) class: &'a ClassShape,
    /// The row being filled.
    pub(super) row: &'a mut [i32],
    /// Clamp counts of the class's scalars.
    pub(super) clamps: &'a mut [Clamps],
    /// The current line.
    pub(super) line: usize,
}

/// The JSON type of `v`, for messages.
pub(super) fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Reader<'_> {
    /// Reads field `field`'s value `v` into its scalars.
    pub(super) fn field(&mut self, field: usize, v: &Value) -> Result<(), TraceErrorKind> {
        let Some(f) = self.class.fields.get(field) else { return Ok(()) };
        let mut path = Path(f.name.clone());
        self.value(&f.shape, v, f.start, &mut path)
    }

    fn expected(&self, path: &Path, expected: String, v: &Value) -> TraceErrorKind {
        TraceErrorKind::Expected {
            what: format!("`{}.{}`", self.class.name, path.0),
            expected,
            found: json_type(v),
        }
    }

    fn clamped(&mut self, at: usize) {
        if let Some(c) = self.clamps.get_mut(at) {
            if c.count == 0 {
                c.first_line = self.line;
            }
            c.count += 1;
        }
    }

    fn set(&mut self, at: usize, raw: i32) {
        if let Some(slot) = self.row.get_mut(at) {
            *slot = raw;
        }
    }

    fn value(
        &mut self,
        shape: &Shape,
        v: &Value,
        at: usize,
        path: &mut Path,
    ) -> Result<(), TraceErrorKind> {
        match shape {
            Shape::Scalar => self.scalar(v, at, path),
            Shape::Enum { name, cases } => {
                let Value::String(case) = v else {
                    return Err(self.expected(path, format!("a case name of enum `{name}`"), v));
                };
                let index = cases.iter().position(|c| c == case).ok_or_else(|| {
                    TraceErrorKind::UnknownCase {
                        field: format!("{}.{}", self.class.name, path.0),
                        enumeration: name.clone(),
                        case: case.clone(),
                    }
                })?;
                self.set(at, i32::try_from(index).unwrap_or(i32::MAX));
                Ok(())
            }
            Shape::Quat(q) => {
                let quat = match v.as_array().map(Vec::as_slice) {
                    Some([x, y, z, w]) => [x.as_f64(), y.as_f64(), z.as_f64(), w.as_f64()],
                    _ => [None; 4],
                };
                let [Some(x), Some(y), Some(z), Some(w)] = quat else {
                    return Err(self.expected(
                        path,
                        "an array of 4 numbers [x, y, z, w]".into(),
                        v,
                    ));
                };
                let raw = q.try_quantise([x, y, z, w]).unwrap_or_else(|_| {
                    self.clamped(at);
                    q.quantise([x, y, z, w])
                });
                for (k, r) in raw.into_iter().enumerate() {
                    self.set(at + k, r);
                }
                Ok(())
            }
            Shape::List { elem, len, vector } => {
                let items = match v.as_array() {
                    Some(items) if items.len() == *len => items,
                    _ => {
                        let what = if *vector { "numbers" } else { "elements" };
                        return Err(self.expected(path, format!("an array of {len} {what}"), v));
                    }
                };
                let step = elem.scalars();
                for (i, item) in items.iter().enumerate() {
                    let mark = path.push(*vector, i);
                    self.value(elem, item, at + i * step, path)?;
                    path.0.truncate(mark);
                }
                Ok(())
            }
            Shape::Record(fields) => {
                let Some(object) = v.as_object() else {
                    return Err(self.expected(path, "an object".into(), v));
                };
                let mut start = at;
                for (name, shape) in fields {
                    let mark = path.member(name);
                    let value = object.get(name).unwrap_or(&Value::Null);
                    self.value(shape, value, start, path)?;
                    path.0.truncate(mark);
                    start += shape.scalars();
                }
                Ok(())
            }
            Shape::Optional(inner) => {
                if v.is_null() {
                    self.set(at, 0);
                    for k in at + 1..at + shape.scalars() {
                        let min = self.class.quantisers.get(k).map_or(0, Quantiser::raw_min);
                        self.set(k, min);
                    }
                    return Ok(());
                }
                self.set(at, 1);
                let mark = path.member("value");
                self.value(inner, v, at + 1, path)?;
                path.0.truncate(mark);
                Ok(())
            }
            Shape::Chain { elem, len } => {
                let items = match v.as_array() {
                    Some(items) if items.len() <= *len => items,
                    _ => {
                        return Err(self.expected(
                            path,
                            format!("an array of at most {len} elements"),
                            v,
                        ));
                    }
                };
                // Slots in order, each linked to the next; the unused ones at their lowest
                // values, linked to the end.
                let (stride, n) = (1 + elem.scalars(), items.len());
                let end = i32::try_from(*len).unwrap_or(i32::MAX);
                self.set(at, if n == 0 { end } else { 0 });
                for slot in 0..*len {
                    let link = at + 1 + slot * stride;
                    self.set(link, if slot + 1 < n { slot as i32 + 1 } else { end });
                    for k in link + 1..link + stride {
                        let min = self.class.quantisers.get(k).map_or(0, Quantiser::raw_min);
                        self.set(k, min);
                    }
                }
                for (i, item) in items.iter().enumerate() {
                    let mark = path.push(false, i);
                    self.value(elem, item, at + 2 + i * stride, path)?;
                    path.0.truncate(mark);
                }
                Ok(())
            }
        }
    }

    fn scalar(&mut self, v: &Value, at: usize, path: &Path) -> Result<(), TraceErrorKind> {
        let Some(&q) = self.class.quantisers.get(at) else { return Ok(()) };
        let raw = match q {
            Quantiser::Int(q) => {
                let Some(i) = integer(v) else {
                    return Err(self.expected(path, "an integer".into(), v));
                };
                let narrow = i32::try_from(i).ok().and_then(|i| q.try_quantise(i).ok());
                narrow.unwrap_or_else(|| {
                    self.clamped(at);
                    q.quantise(i.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32)
                })
            }
            Quantiser::Fixed(q) => {
                let Some(x) = v.as_f64() else {
                    return Err(self.expected(path, "a number".into(), v));
                };
                q.try_quantise(x).unwrap_or_else(|_| {
                    self.clamped(at);
                    q.quantise(x)
                })
            }
            Quantiser::Angle(q) => {
                let Some(x) = v.as_f64() else {
                    return Err(self.expected(path, "a number (radians)".into(), v));
                };
                q.quantise(x)
            }
            Quantiser::Bool(q) => {
                let Some(b) = v.as_bool() else {
                    return Err(self.expected(path, "true or false".into(), v));
                };
                q.quantise(b)
            }
            // Enums and quaternions have shapes of their own.
            Quantiser::Enum(_) | Quantiser::QuatLargest(_) | Quantiser::QuatComponent(_) => {
                return Ok(());
            }
        };
        self.set(at, raw);
        Ok(())
    }
}

/// An integer from a JSON integer, or from a number with no fractional part; saturating.
fn integer(v: &Value) -> Option<i64> {
    if let Some(i) = v.as_i64() {
        return Some(i);
    }
    if v.as_u64().is_some() {
        return Some(i64::MAX);
    }
    // `as` saturates, and the value is integral.
    v.as_f64().filter(|x| x.fract() == 0.0).map(|x| x as i64)
}

/// Writes natural values from one entity's row.
pub(super) struct Writer<'a> {
    /// The class.
    pub(super) class: &'a ClassShape,
    /// The row.
    pub(super) row: &'a [i32],
}

impl Writer<'_> {
    /// Appends field `field`'s value as JSON.
    pub(super) fn field(&self, field: usize, out: &mut String) -> Result<(), WriteError> {
        let Some(f) = self.class.fields.get(field) else { return Ok(()) };
        let mut path = Path(f.name.clone());
        self.value(&f.shape, f.start, &mut path, out)
    }

    fn unrepresentable(&self, path: &Path, raw: i32) -> WriteError {
        WriteError::Unrepresentable { field: format!("{}.{}", self.class.name, path.0), raw }
    }

    fn raw(&self, at: usize) -> Result<i32, WriteError> {
        self.row.get(at).copied().ok_or_else(|| WriteError::Snapshot("row too short".into()))
    }

    fn value(
        &self,
        shape: &Shape,
        at: usize,
        path: &mut Path,
        out: &mut String,
    ) -> Result<(), WriteError> {
        match shape {
            Shape::Scalar => self.scalar(at, path, out),
            Shape::Enum { cases, .. } => {
                let raw = self.raw(at)?;
                let case = usize::try_from(raw).ok().and_then(|i| cases.get(i));
                let case = case.ok_or_else(|| self.unrepresentable(path, raw))?;
                out.push_str(&json_str(case));
                Ok(())
            }
            Shape::Quat(q) => {
                let raw = [self.raw(at)?, self.raw(at + 1)?, self.raw(at + 2)?, self.raw(at + 3)?];
                let quat =
                    natural_quat(q, raw).ok_or_else(|| self.unrepresentable(path, raw[0]))?;
                out.push('[');
                for (k, c) in quat.into_iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    number(c, out);
                }
                out.push(']');
                Ok(())
            }
            Shape::List { elem, len, vector } => {
                out.push('[');
                for i in 0..*len {
                    if i > 0 {
                        out.push(',');
                    }
                    let mark = path.push(*vector, i);
                    self.value(elem, at + i * elem.scalars(), path, out)?;
                    path.0.truncate(mark);
                }
                out.push(']');
                Ok(())
            }
            Shape::Record(fields) => {
                out.push('{');
                let mut start = at;
                for (i, (name, shape)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&json_str(name));
                    out.push(':');
                    let mark = path.member(name);
                    self.value(shape, start, path, out)?;
                    path.0.truncate(mark);
                    start += shape.scalars();
                }
                out.push('}');
                Ok(())
            }
            Shape::Optional(inner) => {
                if self.raw(at)? == 0 {
                    out.push_str("null");
                    return Ok(());
                }
                let mark = path.member("value");
                self.value(inner, at + 1, path, out)?;
                path.0.truncate(mark);
                Ok(())
            }
            Shape::Chain { elem, len } => {
                // The chain from the head, at most `len` slots, none twice.
                let stride = 1 + elem.scalars();
                let mut seen = vec![false; *len];
                let mut link = self.raw(at)?;
                out.push('[');
                while let Some(s) = usize::try_from(link).ok().filter(|&s| s < *len && !seen[s]) {
                    if seen.iter().any(|&b| b) {
                        out.push(',');
                    }
                    seen[s] = true;
                    let mark = path.push(false, s);
                    self.value(elem, at + 2 + s * stride, path, out)?;
                    path.0.truncate(mark);
                    link = self.raw(at + 1 + s * stride)?;
                }
                out.push(']');
                Ok(())
            }
        }
    }

    fn scalar(&self, at: usize, path: &Path, out: &mut String) -> Result<(), WriteError> {
        let raw = self.raw(at)?;
        let q = self.class.quantisers.get(at).ok_or_else(|| self.unrepresentable(path, raw))?;
        let ok = match q {
            Quantiser::Int(q) => {
                let _ = write!(out, "{}", q.dequantise(raw));
                q.dequantise(raw) == raw
            }
            Quantiser::Fixed(q) => {
                let x = q.dequantise(raw);
                number(x, out);
                q.quantise(x) == raw
            }
            Quantiser::Angle(q) => {
                let x = q.dequantise(raw);
                number(x, out);
                q.quantise(x) == raw
            }
            Quantiser::Bool(q) => {
                out.push_str(if q.dequantise(raw) { "true" } else { "false" });
                (0..=1).contains(&raw)
            }
            Quantiser::Enum(_) | Quantiser::QuatLargest(_) | Quantiser::QuatComponent(_) => false,
        };
        if ok { Ok(()) } else { Err(self.unrepresentable(path, raw)) }
    }
}

/// Appends `x` as a JSON number: the shortest decimal that reads back as the same `f64`.
fn number(x: f64, out: &mut String) {
    if x.is_finite() {
        let _ = write!(out, "{x:?}");
    } else {
        // Dequantised values are always finite; keep the output valid JSON regardless.
        out.push('0');
    }
}

/// A rotation `[x, y, z, w]` that quantises to `raw`, or `None`.
///
/// Usually the dequantised rotation. When the largest component is nearly tied with another,
/// rounding the other three can leave the rebuilt largest one below a rival, and the
/// dequantised rotation would quantise with another index. Then every stored component is
/// moved towards zero by part of half a step — staying in its rounding interval — and the
/// largest rebuilt from them, which restores its lead.
pub(super) fn natural_quat(q: &QuatQuant, raw: [i32; 4]) -> Option<[f64; 4]> {
    let plain = q.dequantise(raw);
    if q.quantise(plain) == raw {
        return Some(plain);
    }
    let largest = usize::try_from(raw[0].clamp(0, 3)).unwrap_or(0);
    let half = q.resolution() / 2.0;
    [0.5, 0.9, 0.99, 0.999].into_iter().find_map(|shrink| {
        let mut out = plain;
        let mut sum = 0.0;
        for (k, c) in out.iter_mut().enumerate() {
            if k != largest {
                *c = c.signum() * (c.abs() - shrink * half).max(0.0);
                sum += *c * *c;
            }
        }
        out[largest] = (1.0 - sum).max(0.0).sqrt();
        (q.quantise(out) == raw).then_some(out)
    })
}
