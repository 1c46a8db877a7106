//! The schema IR: what both front-ends (the `.netidl` parser and the derive) produce, what
//! [`validate`](crate::validate()) checks and what code generation consumes.
//!
//! Every node carries [`Span`]s (see [`crate::span`]) so that validation errors point at the
//! source; IR built by hand uses detached spans through the constructors below, and
//! [`Schema::erase_spans`] detaches all spans so that two schemas can be compared by content.
//!
//! The IR says what the user wrote, with no defaults filled in: use [`Field::predictors`] for
//! the effective predictor set and [`Schema::flatten`] for the scalar wire layout of a class.

use core::fmt;

pub use netschema_runtime::model::ModelPolicy;
pub use netschema_runtime::model::predict::Predictor;
use netschema_runtime::quant::{AngleQuant, FixedQuant, QuatQuant};
pub use netschema_runtime::timeline::Interp;

use crate::span::{Span, Spanned};

/// A complete schema: the root file and everything it imports, merged.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Schema {
    /// The schema's name: the root file's stem (`game` for `game.netidl`).
    pub name: String,
    /// Module documentation: the root file's `//!` comments, one line per `\n`.
    pub docs: String,
    /// Declared enums, imported files first (depth-first, in import order), then declaration order.
    pub enums: Vec<Enum>,
    /// Declared classes, in the same order as `enums`.
    pub classes: Vec<Class>,
    /// Declared structs (named groups of fields used as field kinds), in the same order.
    pub structs: Vec<Struct>,
    /// Declared inputs (what a client sends the server each tick), in the same order.
    pub inputs: Vec<Input>,
    /// Declared events (what the server sends a client once), in the same order; an event's
    /// index on the wire is its position here.
    pub events: Vec<Event>,
    /// The model policy the root file declares (`models batched(batch = 10, kept = 7);`),
    /// if any: per frame otherwise.
    pub models: Option<Spanned<ModelPolicy>>,
    /// The frame rate the root file declares (`rate 60;`), in frames per second, if any.
    pub rate: Option<Spanned<u32>>,
}

/// An enum: a field kind with a fixed list of named cases, coded by index.
#[derive(Clone, Debug, PartialEq)]
pub struct Enum {
    /// The enum's name, unique among enums and classes.
    pub name: String,
    /// Documentation from `///` comments (empty if none).
    pub docs: String,
    /// The cases, in declaration order; a case's index is its position here.
    pub cases: Vec<EnumCase>,
    /// Where the enum is named.
    pub span: Span,
}

/// One case of an [`Enum`].
#[derive(Clone, Debug, PartialEq)]
pub struct EnumCase {
    /// The case's name, unique within its enum.
    pub name: String,
    /// Documentation from `///` comments (empty if none).
    pub docs: String,
    /// Where the case is named.
    pub span: Span,
}

/// A struct: a named list of fields used as a field kind (`struct Stats { ... }`), flattened
/// into the class that holds it. Its fields take `predict` and `tolerance` clauses, which win
/// over those of the field holding the struct; update groups and timelines belong to classes.
#[derive(Clone, Debug, PartialEq)]
pub struct Struct {
    /// The struct's name, unique among enums, structs and classes.
    pub name: String,
    /// Documentation from `///` comments (empty if none).
    pub docs: String,
    /// The fields, in wire order.
    pub fields: Vec<Field>,
    /// Whether the struct is a Rust type outside the schema that `#[derive(Snapshot)]` refers
    /// to ([`Struct::external`]).
    pub external: bool,
    /// Where the struct is named.
    pub span: Span,
}

/// A class: a replicated entity type with a list of fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Class {
    /// The class's name, unique among enums and classes.
    pub name: String,
    /// Documentation from `///` comments (empty if none).
    pub docs: String,
    /// `(every = N, priority = P)` after the class's name: the schedule of its default group,
    /// which holds the fields of no named group.
    pub schedule: Schedule,
    /// The update groups declared in the body, in declaration order.
    pub groups: Vec<Group>,
    /// The fields, in wire order.
    pub fields: Vec<Field>,
    /// Where the class is named.
    pub span: Span,
}

/// An input: what a client sends the server each tick (`input Move { ... }`), a list of fields
/// as a struct's, each a class's field kind. It becomes a Rust struct and an input schema of
/// one class named after it ([`Input::as_class`]), coded by the runtime's input stream: at
/// most [`MAX_INPUT_FIELDS`](crate::limits::MAX_INPUT_FIELDS) scalars, exact (no tolerances),
/// without update groups, timelines or references.
///
/// An [`Event`] has the same shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// The input's name, unique among enums, structs, classes and inputs.
    pub name: String,
    /// Documentation from `///` comments (empty if none).
    pub docs: String,
    /// The fields, in wire order.
    pub fields: Vec<Field>,
    /// Where the input is named.
    pub span: Span,
}

/// An event: what the server sends a client once over its record stream (`event Hit { ... }`),
/// a list of fields as an input's, each a class's field kind, references included. It becomes
/// a Rust struct and an event schema of one class named after it ([`Input::as_class`]), coded
/// as one record: at most [`MAX_EVENT_FIELDS`](crate::limits::MAX_EVENT_FIELDS) scalars,
/// without update groups or timelines, with at least one field.
pub type Event = Input;

/// An update group declared in a class: `group slow(every = 8, priority = 2);`.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// The group's name, unique within its class.
    pub name: String,
    /// Documentation from `///` comments (empty if none).
    pub docs: String,
    /// When the group is sent.
    pub schedule: Schedule,
    /// Where the group is named.
    pub span: Span,
}

/// When an update group is sent, as written: `every = N` (at most every `N` frames) and
/// `priority = P` (how fast an entity waiting with the group due gains priority). `None` is
/// the default, 1.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Schedule {
    /// The send interval in frames.
    pub every: Option<Spanned<i64>>,
    /// The priority while due.
    pub priority: Option<Spanned<i64>>,
}

/// One field of a [`Class`].
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The field's name, unique within its class.
    pub name: String,
    /// Documentation from `///` comments (empty if none).
    pub docs: String,
    /// The field's kind.
    pub ty: FieldType,
    /// The `predict(...)` clause as written, or `None` for the default (see [`Field::predictors`]).
    pub predict: Option<PredictClause>,
    /// The `tolerance(V)` clause: `V` in the kind's natural units, spanned at the value; `None`
    /// for an exact field (see [`Field::tolerance_steps`]).
    pub tolerance: Option<Spanned<f64>>,
    /// The `group(name)` clause: the name of the field's update group in its class, spanned at
    /// the name; `None` for the class's default group.
    pub group: Option<Spanned<String>>,
    /// The `timeline(...)` clause: the field is a keyframe timeline of its kind; `None` for a
    /// plain field.
    pub timeline: Option<TimelineClause>,
    /// Where the field is named.
    pub span: Span,
}

/// A `timeline(interp, ahead = A, history = H, keep = K)` clause as written.
#[derive(Clone, Debug, PartialEq)]
pub struct TimelineClause {
    /// How values between keyframes are found.
    pub interp: Spanned<Interp>,
    /// Most keyframes after the current frame (default [`TimelineClause::DEFAULT_AHEAD`]).
    pub ahead: Option<Spanned<i64>>,
    /// Most keyframes at or before it (default [`TimelineClause::DEFAULT_HISTORY`]).
    pub history: Option<Spanned<i64>>,
    /// Frames of history kept (default: as many as `history` holds, `u32::MAX`).
    pub keep: Option<Spanned<i64>>,
    /// The whole clause.
    pub span: Span,
}

impl TimelineClause {
    /// Keyframes ahead without `ahead = A`.
    pub const DEFAULT_AHEAD: u16 = 4;
    /// Keyframes of history without `history = H`.
    pub const DEFAULT_HISTORY: u16 = 2;

    /// A clause with `interp` and the defaults.
    pub fn new(interp: Interp) -> TimelineClause {
        TimelineClause {
            interp: interp.into(),
            ahead: None,
            history: None,
            keep: None,
            span: Span::DETACHED,
        }
    }

    /// The runtime's numbers, defaults filled in, values saturated (validation keeps them in
    /// range): `(ahead, history, keep)`.
    pub fn limits(&self) -> (u16, u16, u32) {
        let small = |v: &Option<Spanned<i64>>, d: u16| {
            v.as_ref().map_or(d, |v| u16::try_from(v.value.max(0)).unwrap_or(u16::MAX))
        };
        let keep = self
            .keep
            .as_ref()
            .map_or(u32::MAX, |v| u32::try_from(v.value.max(0)).unwrap_or(u32::MAX));
        (small(&self.ahead, Self::DEFAULT_AHEAD), small(&self.history, Self::DEFAULT_HISTORY), keep)
    }

    /// Keyframes a timeline holds at most: `ahead + history`.
    pub fn capacity(&self) -> usize {
        let (ahead, history, _) = self.limits();
        usize::from(ahead) + usize::from(history)
    }

    fn erase_spans(&mut self) {
        self.span = Span::DETACHED;
        self.interp.span = Span::DETACHED;
        for v in [&mut self.ahead, &mut self.history, &mut self.keep].into_iter().flatten() {
            v.span = Span::DETACHED;
        }
    }
}

impl fmt::Display for TimelineClause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let interp = match self.interp.value {
            Interp::Step => "step",
            Interp::Linear => "linear",
            Interp::Cubic => "cubic",
        };
        write!(f, "timeline({interp}")?;
        for (name, v) in [("ahead", &self.ahead), ("history", &self.history), ("keep", &self.keep)]
        {
            if let Some(v) = v {
                write!(f, ", {name} = {}", v.value)?;
            }
        }
        f.write_str(")")
    }
}

/// A `predict(...)` clause as written.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PredictClause {
    /// The predictors in the order written (duplicates are a validation error).
    pub predictors: Vec<Spanned<Predictor>>,
    /// The whole clause.
    pub span: Span,
}

/// The word of `ref<any>`: a reference to an entity of any class.
pub const ANY: &str = "any";

/// The kind of a field, with the span of its spelling.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldType {
    /// What kind it is.
    pub kind: TypeKind,
    /// The whole kind expression (`fixed(0, 1, bits = 8)`, `[bool; 4]`, …).
    pub span: Span,
}

/// The field kinds. Scalars: `Int`, `Fixed`, `Angle`, `Quat`, `Bool`, `Enum`;
/// compounds: `Vec2`, `Vec3`, `Array`, `Struct`, `Optional`, `List`; references, `Ref`; and
/// strings and byte blobs, `Text`.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeKind {
    /// `int(min, max)`: an integer in `min..=max`; both bounds within `i32`, `min < max`.
    Int {
        /// Smallest value.
        min: Spanned<i64>,
        /// Largest value.
        max: Spanned<i64>,
    },
    /// `fixed(min, max, res = R)` or `fixed(min, max, bits = N)`: a real in `min..=max`,
    /// quantised to a step or to a number of bits.
    Fixed {
        /// Smallest value.
        min: Spanned<f64>,
        /// Largest value.
        max: Spanned<f64>,
        /// The quantisation step or bit count.
        precision: Spanned<Precision>,
        /// What the grid should also satisfy (`exact = [...]`, `max_step = R`).
        needs: GridNeeds,
    },
    /// `angle(bits = N)`: a wrapping angle in radians, `2^N` steps per turn.
    Angle {
        /// Bits per value.
        bits: Spanned<u32>,
        /// What the grid should also satisfy (`exact = [...]`, `max_step = R`).
        needs: GridNeeds,
    },
    /// `quat(bits = N)`: a unit quaternion, coded smallest-three (index of the largest
    /// component, then the other three in ±1/√2 at `N` bits each).
    Quat {
        /// Bits per component.
        bits: Spanned<u32>,
        /// What the grid of each stored component should also satisfy.
        needs: GridNeeds,
    },
    /// `bool`.
    Bool,
    /// A declared enum, by name.
    Enum {
        /// The enum's name.
        name: String,
    },
    /// A declared struct, by name: its fields, flattened in place.
    Struct {
        /// The struct's name.
        name: String,
    },
    /// `vec2<K>`: components `x`, `y` of a numeric scalar kind.
    Vec2(Box<FieldType>),
    /// `vec3<K>`: components `x`, `y`, `z` of a numeric scalar kind.
    Vec3(Box<FieldType>),
    /// `[K; N]`: a fixed-length array.
    Array {
        /// The element kind.
        elem: Box<FieldType>,
        /// The number of elements.
        len: Spanned<u32>,
    },
    /// `optional<K>`: a presence flag, then a value of `K` (written as each scalar's lowest raw
    /// value while absent).
    Optional(Box<FieldType>),
    /// `list<K, N>`: up to `N` elements of `K` in `N` slots, each a `next` link and the
    /// element's scalars, after the list's `head` link (see `flatten`).
    List {
        /// The element kind.
        elem: Box<FieldType>,
        /// The most elements, `N`.
        len: Spanned<u32>,
    },
    /// `ref<Class>` or `ref<any>`: a reference to another entity, of class `Class` or of any
    /// class. Not a scalar: one of the class's links, in the order of its references.
    Ref {
        /// The class a target must be of, by name; `None` for any class (`ref<any>`).
        target: Option<String>,
    },
    /// `string<N>` (UTF-8) or `bytes<N>`: at most `N` bytes. Not a scalar: one of the class's
    /// text fields, in the order of its strings and blobs.
    Text {
        /// The most bytes, `N`.
        max: Spanned<u32>,
        /// Whether the bytes are UTF-8 (`string<N>`).
        utf8: bool,
    },
}

/// What a real kind's grid should satisfy besides its precision: `exact = [v, ...]` and
/// `max_step = R` in `.netidl`. Nothing here changes the grid or the generated code; the
/// [`precision`](crate::precision) warnings say when the grid falls short.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct GridNeeds {
    /// Values the grid must hold exactly, in natural units (a stored component's value for
    /// `quat`, so `[0]` asks for the identity rotation). `None` when not written: zero must then
    /// be exact wherever the range holds it; `exact = []` asks for nothing.
    pub exact: Option<Vec<Spanned<f64>>>,
    /// The coarsest step accepted (`max_step = 0.01`; radians for `angle`).
    pub max_step: Option<Spanned<f64>>,
}

impl GridNeeds {
    fn erase_spans(&mut self) {
        for v in self.exact.iter_mut().flatten() {
            v.span = Span::DETACHED;
        }
        if let Some(step) = &mut self.max_step {
            step.span = Span::DETACHED;
        }
    }
}

/// Writes `, exact = [..]` and `, max_step = ..` as given.
impl fmt::Display for GridNeeds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(values) = &self.exact {
            let values: Vec<String> = values.iter().map(|v| format!("{:?}", v.value)).collect();
            write!(f, ", exact = [{}]", values.join(", "))?;
        }
        if let Some(step) = &self.max_step {
            write!(f, ", max_step = {:?}", step.value)?;
        }
        Ok(())
    }
}

impl Schedule {
    /// A schedule of `every` frames and `priority`, `None` for the defaults.
    pub fn new(every: Option<i64>, priority: Option<i64>) -> Schedule {
        Schedule { every: every.map(Spanned::from), priority: priority.map(Spanned::from) }
    }

    fn erase_spans(&mut self) {
        for v in [&mut self.every, &mut self.priority].into_iter().flatten() {
            v.span = Span::DETACHED;
        }
    }
}

/// Writes `(every = N, priority = P)` with the parameters given, or nothing without any.
impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params: Vec<String> = [("every", &self.every), ("priority", &self.priority)]
            .into_iter()
            .filter_map(|(name, v)| v.as_ref().map(|v| format!("{name} = {}", v.value)))
            .collect();
        if params.is_empty() { Ok(()) } else { write!(f, "({})", params.join(", ")) }
    }
}

/// How finely a `fixed` kind is quantised.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Precision {
    /// `res = R`: the step between two representable values.
    Resolution(f64),
    /// `bits = N`: `2^N` evenly spaced values from `min` to `max` inclusive.
    Bits(u32),
}

impl Precision {
    /// The raw step count of `fixed(min, max, self)`: values are coded as integers `0..=steps`.
    ///
    /// This is the runtime's rule (the quantiser the generated code builds, see
    /// `netschema_runtime::quant::FixedQuant`): for `Bits(n)` it is `2^n - 1`; for
    /// `Resolution(r)` it is `ceil((max - min) / r)`, except that a quotient within a relative
    /// `1e-12` above an integer counts as that integer, so `fixed(0, 20, res = 0.1)` has 200
    /// steps despite binary rounding. `None` if the runtime rejects the parameters: a bound or
    /// the resolution not finite, `min >= max`, `r <= 0`, `n` outside `1..=31`, or more than
    /// [`MAX_FIXED_STEPS`](crate::limits::MAX_FIXED_STEPS) steps.
    pub fn steps(self, min: f64, max: f64) -> Option<u64> {
        // `raw_max` is in `1..=i32::MAX`.
        self.quantiser(min, max).ok().map(|q| q.raw_max() as u64)
    }

    /// The runtime quantiser of `fixed(min, max, self)`, as generated code builds it.
    pub fn quantiser(self, min: f64, max: f64) -> netschema_runtime::Result<FixedQuant> {
        match self {
            Precision::Resolution(r) => FixedQuant::with_resolution(min, max, r),
            Precision::Bits(n) => FixedQuant::with_bits(min, max, n),
        }
    }
}

/// A set of predictors, iterated in tie-breaking order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PredictorSet(u8);

impl PredictorSet {
    /// No predictor: the set of transition-coded scalars (bool, enum, quaternion largest index).
    pub const EMPTY: PredictorSet = PredictorSet(0);

    /// The set used when a numeric field has no `predict(...)` clause: hold, linear, quadratic.
    /// This is the one place that defines the default.
    pub const DEFAULT: PredictorSet = PredictorSet(
        (1 << Predictor::Hold as u8)
            | (1 << Predictor::Linear as u8)
            | (1 << Predictor::Quadratic as u8),
    );

    /// Every polynomial predictor (all but [`Predictor::Contract`]).
    pub const ALL: PredictorSet = PredictorSet(0b1_1111);

    /// This set and `p`.
    pub const fn with(self, p: Predictor) -> PredictorSet {
        PredictorSet(self.0 | 1 << p as u8)
    }

    /// Whether `p` is in the set.
    pub fn contains(self, p: Predictor) -> bool {
        self.0 & (1 << p as u8) != 0
    }

    /// Adds `p`; returns whether it was absent.
    pub fn insert(&mut self, p: Predictor) -> bool {
        let absent = !self.contains(p);
        self.0 |= 1 << p as u8;
        absent
    }

    /// The number of predictors in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The predictors in tie-breaking order.
    pub fn iter(self) -> impl Iterator<Item = Predictor> {
        Predictor::ALL.into_iter().filter(move |&p| self.contains(p))
    }
}

impl FromIterator<Predictor> for PredictorSet {
    fn from_iter<I: IntoIterator<Item = Predictor>>(iter: I) -> PredictorSet {
        let mut set = PredictorSet::EMPTY;
        for p in iter {
            set.insert(p);
        }
        set
    }
}

impl fmt::Debug for PredictorSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// The raw steps within a tolerance of `value` natural units on a grid of `step`:
/// `floor(value / step)`, where a quotient within a relative `1e-12` below an integer counts as
/// that integer (so `0.03` on a grid of `0.01` is 3 steps despite binary rounding). 0 for a
/// value that is not positive.
pub fn tolerance_steps(value: f64, step: f64) -> u64 {
    const SLACK: f64 = 1e-12;
    let q = value / step;
    if q.is_nan() || q <= 0.0 {
        return 0;
    }
    let up = q.ceil();
    // `as` saturates an infinite or huge quotient.
    if up - q <= q * SLACK { up as u64 } else { q.floor() as u64 }
}

impl Schema {
    /// An empty schema called `name`.
    pub fn new(name: impl Into<String>) -> Schema {
        Schema { name: name.into(), ..Schema::default() }
    }

    /// The enum called `name` and its index in [`Schema::enums`].
    pub fn find_enum(&self, name: &str) -> Option<(usize, &Enum)> {
        self.enums.iter().enumerate().find(|(_, e)| e.name == name)
    }

    /// The struct called `name` and its index in [`Schema::structs`].
    pub fn find_struct(&self, name: &str) -> Option<(usize, &Struct)> {
        self.structs.iter().enumerate().find(|(_, s)| s.name == name)
    }

    /// The class called `name` and its index in [`Schema::classes`].
    pub fn find_class(&self, name: &str) -> Option<(usize, &Class)> {
        self.classes.iter().enumerate().find(|(_, c)| c.name == name)
    }

    /// The input called `name` and its index in [`Schema::inputs`].
    pub fn find_input(&self, name: &str) -> Option<(usize, &Input)> {
        self.inputs.iter().enumerate().find(|(_, i)| i.name == name)
    }

    /// The event called `name` and its index in [`Schema::events`].
    pub fn find_event(&self, name: &str) -> Option<(usize, &Event)> {
        self.events.iter().enumerate().find(|(_, e)| e.name == name)
    }

    /// The input schema of `input` as a schema of its own: named after the input, with the
    /// input as its one class ([`Input::as_class`]) and this schema's enums and structs, which
    /// its fields may use; no inputs, model policy or rate. Its descriptors are the input's
    /// runtime schema (the runtime's `Input::SCHEMA`), and so have its hash.
    pub fn input_schema(&self, input: &Input) -> Schema {
        Schema {
            name: input.name.clone(),
            docs: input.docs.clone(),
            enums: self.enums.clone(),
            classes: vec![input.as_class()],
            structs: self.structs.clone(),
            ..Schema::default()
        }
    }

    /// Turns every kind that names a declared struct into [`TypeKind::Struct`]: the parser
    /// reads a name as an enum, since the declaration may come later or from another file. The
    /// loader calls it once the files are merged.
    pub fn resolve_structs(&mut self) {
        let names: Vec<String> = self.structs.iter().map(|s| s.name.clone()).collect();
        let fields = self.classes.iter_mut().flat_map(|c| c.fields.iter_mut());
        let inputs = self.inputs.iter_mut().chain(&mut self.events).flat_map(|i| &mut i.fields);
        for f in
            fields.chain(self.structs.iter_mut().flat_map(|s| s.fields.iter_mut())).chain(inputs)
        {
            f.ty.resolve_structs(&names);
        }
    }

    /// Replaces every span with [`Span::DETACHED`], so that schemas from different front-ends
    /// (or hand-built ones) compare equal when their content is equal.
    pub fn erase_spans(&mut self) {
        if let Some(models) = &mut self.models {
            models.span = Span::DETACHED;
        }
        if let Some(rate) = &mut self.rate {
            rate.span = Span::DETACHED;
        }
        for e in &mut self.enums {
            e.span = Span::DETACHED;
            for c in &mut e.cases {
                c.span = Span::DETACHED;
            }
        }
        for s in &mut self.structs {
            s.span = Span::DETACHED;
            for f in &mut s.fields {
                f.erase_spans();
            }
        }
        for i in self.inputs.iter_mut().chain(&mut self.events) {
            i.span = Span::DETACHED;
            for f in &mut i.fields {
                f.erase_spans();
            }
        }
        for c in &mut self.classes {
            c.span = Span::DETACHED;
            c.schedule.erase_spans();
            for g in &mut c.groups {
                g.span = Span::DETACHED;
                g.schedule.erase_spans();
            }
            for f in &mut c.fields {
                f.erase_spans();
            }
        }
    }
}

impl Enum {
    /// An undocumented enum with the given cases.
    pub fn new<S: Into<String>>(
        name: impl Into<String>,
        cases: impl IntoIterator<Item = S>,
    ) -> Enum {
        Enum {
            name: name.into(),
            docs: String::new(),
            cases: cases
                .into_iter()
                .map(|c| EnumCase { name: c.into(), docs: String::new(), span: Span::DETACHED })
                .collect(),
            span: Span::DETACHED,
        }
    }

    /// The index of the case called `name`.
    pub fn case_index(&self, name: &str) -> Option<usize> {
        self.cases.iter().position(|c| c.name == name)
    }
}

impl Struct {
    /// An undocumented struct with the given fields.
    pub fn new(name: impl Into<String>, fields: impl IntoIterator<Item = Field>) -> Struct {
        Struct {
            name: name.into(),
            docs: String::new(),
            fields: fields.into_iter().collect(),
            external: false,
            span: Span::DETACHED,
        }
    }

    /// A struct whose fields only the Rust compiler knows: a type implementing the facade's
    /// `SnapshotStruct`, which the derive refers to by name. It has no fields here: code
    /// generation reads its scalars from the trait, and the clauses of a field holding it are
    /// checked there when the generated code compiles.
    pub fn external(name: impl Into<String>) -> Struct {
        Struct { external: true, ..Struct::new(name, []) }
    }
}

impl Input {
    /// An undocumented input with the given fields.
    pub fn new(name: impl Into<String>, fields: impl IntoIterator<Item = Field>) -> Input {
        Input {
            name: name.into(),
            docs: String::new(),
            fields: fields.into_iter().collect(),
            span: Span::DETACHED,
        }
    }

    /// The input as the one class of its input schema: its name, docs, fields and span, in one
    /// default group sent every frame.
    pub fn as_class(&self) -> Class {
        Class {
            docs: self.docs.clone(),
            span: self.span,
            ..Class::new(self.name.clone(), self.fields.iter().cloned())
        }
    }
}

impl Class {
    /// An undocumented class with the given fields, in one default group sent every frame.
    pub fn new(name: impl Into<String>, fields: impl IntoIterator<Item = Field>) -> Class {
        Class {
            name: name.into(),
            docs: String::new(),
            schedule: Schedule::default(),
            groups: Vec::new(),
            fields: fields.into_iter().collect(),
            span: Span::DETACHED,
        }
    }

    /// This class with its default group on `schedule`.
    pub fn with_schedule(mut self, schedule: Schedule) -> Class {
        self.schedule = schedule;
        self
    }

    /// This class with the update `groups` declared.
    pub fn with_groups(mut self, groups: impl IntoIterator<Item = Group>) -> Class {
        self.groups = groups.into_iter().collect();
        self
    }

    /// The class's strings and byte blobs in declaration order, each with its bound and
    /// whether it is UTF-8: its text fields.
    pub fn texts(&self) -> impl Iterator<Item = (&Field, u32, bool)> {
        self.fields.iter().filter_map(|f| match &f.ty.kind {
            TypeKind::Text { max, utf8 } => Some((f, max.value, *utf8)),
            _ => None,
        })
    }

    /// The class's references in declaration order, each with its target class's name
    /// (`None`: any class): its links.
    pub fn references(&self) -> impl Iterator<Item = (&Field, Option<&str>)> {
        self.fields.iter().filter_map(|f| match &f.ty.kind {
            TypeKind::Ref { target } => Some((f, target.as_deref())),
            _ => None,
        })
    }

    /// The index of the update group called `name` as the runtime numbers them: 0 is the
    /// default group, and the declared groups follow from 1 in declaration order.
    pub fn group_index(&self, name: &str) -> Option<usize> {
        self.groups.iter().position(|g| g.name == name).map(|i| i + 1)
    }
}

impl Group {
    /// An undocumented group on `schedule`.
    pub fn new(name: impl Into<String>, schedule: Schedule) -> Group {
        Group { name: name.into(), docs: String::new(), schedule, span: Span::DETACHED }
    }
}

impl Field {
    /// An undocumented, exact field of the default group with the default predictors.
    pub fn new(name: impl Into<String>, ty: FieldType) -> Field {
        Field {
            name: name.into(),
            docs: String::new(),
            ty,
            predict: None,
            tolerance: None,
            group: None,
            timeline: None,
            span: Span::DETACHED,
        }
    }

    /// This field with a `timeline(...)` clause.
    pub fn with_timeline(mut self, clause: TimelineClause) -> Field {
        self.timeline = Some(clause);
        self
    }

    /// This field with a `tolerance(value)` clause.
    pub fn with_tolerance(mut self, value: f64) -> Field {
        self.tolerance = Some(value.into());
        self
    }

    /// This field with a `group(name)` clause.
    pub fn in_group(mut self, name: impl Into<String>) -> Field {
        self.group = Some(name.into().into());
        self
    }

    /// This field with an explicit `predict(...)` clause.
    pub fn with_predictors(mut self, predictors: impl IntoIterator<Item = Predictor>) -> Field {
        self.predict = Some(PredictClause {
            predictors: predictors.into_iter().map(Spanned::from).collect(),
            span: Span::DETACHED,
        });
        self
    }

    /// This field with documentation.
    pub fn with_docs(mut self, docs: impl Into<String>) -> Field {
        self.docs = docs.into();
        self
    }

    /// The field's tolerance in raw steps of its numeric scalars ([`tolerance_steps`] of the
    /// `tolerance(V)` clause and the kind's [`step`](FieldType::step)); 0 for an exact field,
    /// and saturated at `u32::MAX` on a schema that failed validation.
    pub fn tolerance_steps(&self) -> u32 {
        match (&self.tolerance, self.ty.step()) {
            (Some(v), Some(step)) => {
                u32::try_from(tolerance_steps(v.value, step)).unwrap_or(u32::MAX)
            }
            _ => 0,
        }
    }

    fn erase_spans(&mut self) {
        self.span = Span::DETACHED;
        self.ty.erase_spans();
        if let Some(clause) = &mut self.predict {
            clause.span = Span::DETACHED;
            for p in &mut clause.predictors {
                p.span = Span::DETACHED;
            }
        }
        if let Some(t) = &mut self.tolerance {
            t.span = Span::DETACHED;
        }
        if let Some(g) = &mut self.group {
            g.span = Span::DETACHED;
        }
        if let Some(t) = &mut self.timeline {
            t.erase_spans();
        }
    }

    /// The effective predictor set of the field's numeric scalars: the `predict(...)` clause, or
    /// [`PredictorSet::DEFAULT`] without one. Empty for fields made of bools or enums, which are
    /// transition-coded.
    pub fn predictors(&self) -> PredictorSet {
        if !self.ty.is_predicted() {
            return PredictorSet::EMPTY;
        }
        match &self.predict {
            Some(clause) => clause.predictors.iter().map(|p| p.value).collect(),
            None => PredictorSet::DEFAULT,
        }
    }
}

impl FieldType {
    /// A kind with a detached span.
    pub fn new(kind: TypeKind) -> FieldType {
        FieldType { kind, span: Span::DETACHED }
    }

    /// `int(min, max)`.
    pub fn int(min: i64, max: i64) -> FieldType {
        FieldType::new(TypeKind::Int { min: min.into(), max: max.into() })
    }

    /// `fixed(min, max, res = res)`.
    pub fn fixed_res(min: f64, max: f64, res: f64) -> FieldType {
        FieldType::new(TypeKind::Fixed {
            min: min.into(),
            max: max.into(),
            precision: Precision::Resolution(res).into(),
            needs: GridNeeds::default(),
        })
    }

    /// `fixed(min, max, bits = bits)`.
    pub fn fixed_bits(min: f64, max: f64, bits: u32) -> FieldType {
        FieldType::new(TypeKind::Fixed {
            min: min.into(),
            max: max.into(),
            precision: Precision::Bits(bits).into(),
            needs: GridNeeds::default(),
        })
    }

    /// `angle(bits = bits)`.
    pub fn angle(bits: u32) -> FieldType {
        FieldType::new(TypeKind::Angle { bits: bits.into(), needs: GridNeeds::default() })
    }

    /// `quat(bits = bits)`.
    pub fn quat(bits: u32) -> FieldType {
        FieldType::new(TypeKind::Quat { bits: bits.into(), needs: GridNeeds::default() })
    }

    /// `bool`.
    pub fn bool() -> FieldType {
        FieldType::new(TypeKind::Bool)
    }

    /// The enum called `name`.
    pub fn enumeration(name: impl Into<String>) -> FieldType {
        FieldType::new(TypeKind::Enum { name: name.into() })
    }

    /// `vec2<elem>`.
    pub fn vec2(elem: FieldType) -> FieldType {
        FieldType::new(TypeKind::Vec2(Box::new(elem)))
    }

    /// `vec3<elem>`.
    pub fn vec3(elem: FieldType) -> FieldType {
        FieldType::new(TypeKind::Vec3(Box::new(elem)))
    }

    /// `[elem; len]`.
    pub fn array(elem: FieldType, len: u32) -> FieldType {
        FieldType::new(TypeKind::Array { elem: Box::new(elem), len: len.into() })
    }

    /// The struct called `name`.
    pub fn structure(name: impl Into<String>) -> FieldType {
        FieldType::new(TypeKind::Struct { name: name.into() })
    }

    /// `optional<inner>`.
    pub fn optional(inner: FieldType) -> FieldType {
        FieldType::new(TypeKind::Optional(Box::new(inner)))
    }

    /// `list<elem, len>`.
    pub fn list(elem: FieldType, len: u32) -> FieldType {
        FieldType::new(TypeKind::List { elem: Box::new(elem), len: len.into() })
    }

    /// `ref<target>`, or `ref<any>` for `None`.
    pub fn reference(target: Option<&str>) -> FieldType {
        FieldType::new(TypeKind::Ref { target: target.map(str::to_owned) })
    }

    /// `string<max>` if `utf8`, else `bytes<max>`.
    pub fn text(max: u32, utf8: bool) -> FieldType {
        FieldType::new(TypeKind::Text { max: max.into(), utf8 })
    }

    /// Whether the kind holds a string or byte blob anywhere (one is only a class's own field).
    pub fn has_text(&self) -> bool {
        match &self.kind {
            TypeKind::Text { .. } => true,
            TypeKind::Vec2(inner)
            | TypeKind::Vec3(inner)
            | TypeKind::Array { elem: inner, .. }
            | TypeKind::List { elem: inner, .. }
            | TypeKind::Optional(inner) => inner.has_text(),
            _ => false,
        }
    }

    /// Whether the kind holds a reference anywhere (a reference is only a class's own field).
    pub fn has_ref(&self) -> bool {
        match &self.kind {
            TypeKind::Ref { .. } => true,
            TypeKind::Vec2(inner)
            | TypeKind::Vec3(inner)
            | TypeKind::Array { elem: inner, .. }
            | TypeKind::List { elem: inner, .. }
            | TypeKind::Optional(inner) => inner.has_ref(),
            _ => false,
        }
    }

    /// The scalar kind at the bottom of vecs, arrays, optionals and lists (a struct is its own
    /// bottom: its scalars are of several kinds).
    pub fn scalar(&self) -> &FieldType {
        match &self.kind {
            TypeKind::Vec2(elem)
            | TypeKind::Vec3(elem)
            | TypeKind::Array { elem, .. }
            | TypeKind::List { elem, .. }
            | TypeKind::Optional(elem) => elem.scalar(),
            _ => self,
        }
    }

    /// Whether the field's scalars are predicted (int, fixed, angle, quat) rather than
    /// transition-coded (bool, enum).
    pub fn is_predicted(&self) -> bool {
        !matches!(self.scalar().kind, TypeKind::Bool | TypeKind::Enum { .. })
    }

    /// The step between neighbouring raw values of the field's numeric scalars, in natural
    /// units: 1 for `int`, the grid step of `fixed`, radians for `angle`, a stored component's
    /// step for `quat`. `None` for bools and enums, and for parameters that give no quantiser.
    pub fn step(&self) -> Option<f64> {
        match &self.scalar().kind {
            TypeKind::Int { .. } => Some(1.0),
            TypeKind::Fixed { min, max, precision, .. } => {
                precision.value.quantiser(min.value, max.value).ok().map(|q| q.resolution())
            }
            TypeKind::Angle { bits, .. } => {
                AngleQuant::new(bits.value).ok().map(|q| q.resolution())
            }
            TypeKind::Quat { bits, .. } => QuatQuant::new(bits.value).ok().map(|q| q.resolution()),
            _ => None,
        }
    }

    /// The kind's name as written in `.netidl` (`int`, `vec2`, `array`, the enum's name, …).
    pub fn kind_name(&self) -> &str {
        match &self.kind {
            TypeKind::Int { .. } => "int",
            TypeKind::Fixed { .. } => "fixed",
            TypeKind::Angle { .. } => "angle",
            TypeKind::Quat { .. } => "quat",
            TypeKind::Bool => "bool",
            TypeKind::Enum { name } | TypeKind::Struct { name } => name,
            TypeKind::Vec2(_) => "vec2",
            TypeKind::Vec3(_) => "vec3",
            TypeKind::Array { .. } => "array",
            TypeKind::Optional(_) => "optional",
            TypeKind::List { .. } => "list",
            TypeKind::Ref { .. } => "ref",
            TypeKind::Text { utf8: true, .. } => "string",
            TypeKind::Text { utf8: false, .. } => "bytes",
        }
    }

    fn resolve_structs(&mut self, structs: &[String]) {
        match &mut self.kind {
            TypeKind::Enum { name } if structs.contains(name) => {
                self.kind = TypeKind::Struct { name: std::mem::take(name) };
            }
            TypeKind::Vec2(inner)
            | TypeKind::Vec3(inner)
            | TypeKind::Array { elem: inner, .. }
            | TypeKind::List { elem: inner, .. }
            | TypeKind::Optional(inner) => inner.resolve_structs(structs),
            _ => {}
        }
    }

    fn erase_spans(&mut self) {
        self.span = Span::DETACHED;
        match &mut self.kind {
            TypeKind::Int { min, max } => {
                min.span = Span::DETACHED;
                max.span = Span::DETACHED;
            }
            TypeKind::Fixed { min, max, precision, needs } => {
                min.span = Span::DETACHED;
                max.span = Span::DETACHED;
                precision.span = Span::DETACHED;
                needs.erase_spans();
            }
            TypeKind::Angle { bits, needs } | TypeKind::Quat { bits, needs } => {
                bits.span = Span::DETACHED;
                needs.erase_spans();
            }
            TypeKind::Bool
            | TypeKind::Enum { .. }
            | TypeKind::Struct { .. }
            | TypeKind::Ref { .. } => {}
            TypeKind::Vec2(elem) | TypeKind::Vec3(elem) => elem.erase_spans(),
            TypeKind::Array { elem, len } | TypeKind::List { elem, len } => {
                len.span = Span::DETACHED;
                elem.erase_spans();
            }
            TypeKind::Optional(inner) => inner.erase_spans(),
            TypeKind::Text { max, .. } => max.span = Span::DETACHED,
        }
    }
}

/// Writes the kind in `.netidl` syntax.
impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            TypeKind::Int { min, max } => write!(f, "int({}, {})", min.value, max.value),
            TypeKind::Fixed { min, max, precision, needs } => {
                write!(f, "fixed({:?}, {:?}, ", min.value, max.value)?;
                match precision.value {
                    Precision::Resolution(r) => write!(f, "res = {r:?}{needs})"),
                    Precision::Bits(n) => write!(f, "bits = {n}{needs})"),
                }
            }
            TypeKind::Angle { bits, needs } => write!(f, "angle(bits = {}{needs})", bits.value),
            TypeKind::Quat { bits, needs } => write!(f, "quat(bits = {}{needs})", bits.value),
            TypeKind::Bool => f.write_str("bool"),
            TypeKind::Enum { name } | TypeKind::Struct { name } => f.write_str(name),
            TypeKind::Vec2(elem) => write!(f, "vec2<{elem}>"),
            TypeKind::Vec3(elem) => write!(f, "vec3<{elem}>"),
            TypeKind::Array { elem, len } => write!(f, "[{elem}; {}]", len.value),
            TypeKind::Optional(inner) => write!(f, "optional<{inner}>"),
            TypeKind::List { elem, len } => write!(f, "list<{elem}, {}>", len.value),
            TypeKind::Ref { target } => write!(f, "ref<{}>", target.as_deref().unwrap_or(ANY)),
            TypeKind::Text { max, .. } => write!(f, "{}<{}>", self.kind_name(), max.value),
        }
    }
}

/// Writes `name: kind` and the clauses written, without docs or `;`.
impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.ty)?;
        if let Some(clause) = &self.predict {
            let names: Vec<&str> = clause.predictors.iter().map(|p| p.value.name()).collect();
            write!(f, " predict({})", names.join(", "))?;
        }
        if let Some(v) = &self.tolerance {
            write!(f, " tolerance({:?})", v.value)?;
        }
        if let Some(g) = &self.group {
            write!(f, " group({})", g.value)?;
        }
        if let Some(t) = &self.timeline {
            write!(f, " {t}")?;
        }
        Ok(())
    }
}

fn write_docs(f: &mut fmt::Formatter<'_>, docs: &str, marker: &str, indent: &str) -> fmt::Result {
    if docs.is_empty() {
        return Ok(());
    }
    for line in docs.split('\n') {
        if line.is_empty() {
            writeln!(f, "{indent}{marker}")?;
        } else {
            writeln!(f, "{indent}{marker} {line}")?;
        }
    }
    Ok(())
}

/// Writes the schema as one `.netidl` file (imports already merged), which parses back to the
/// same IR up to spans.
impl fmt::Display for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_docs(f, &self.docs, "//!", "")?;
        let mut first = self.docs.is_empty();
        if let Some(models) = &self.models {
            if !first {
                writeln!(f)?;
            }
            first = false;
            match models.value {
                ModelPolicy::PerFrame => writeln!(f, "models per_frame;")?,
                ModelPolicy::Batched { batch, kept } => {
                    writeln!(f, "models batched(batch = {batch}, kept = {kept});")?;
                }
            }
        }
        if let Some(rate) = &self.rate {
            if !first && self.models.is_none() {
                writeln!(f)?;
            }
            first = false;
            writeln!(f, "rate {};", rate.value)?;
        }
        for e in &self.enums {
            if !first {
                writeln!(f)?;
            }
            first = false;
            write_docs(f, &e.docs, "///", "")?;
            writeln!(f, "enum {} {{", e.name)?;
            for c in &e.cases {
                write_docs(f, &c.docs, "///", "    ")?;
                writeln!(f, "    {},", c.name)?;
            }
            writeln!(f, "}}")?;
        }
        for s in &self.structs {
            if !first {
                writeln!(f)?;
            }
            first = false;
            write_docs(f, &s.docs, "///", "")?;
            writeln!(f, "struct {} {{", s.name)?;
            for field in &s.fields {
                write_docs(f, &field.docs, "///", "    ")?;
                writeln!(f, "    {field};")?;
            }
            writeln!(f, "}}")?;
        }
        for c in &self.classes {
            if !first {
                writeln!(f)?;
            }
            first = false;
            write_docs(f, &c.docs, "///", "")?;
            writeln!(f, "class {}{} {{", c.name, c.schedule)?;
            for g in &c.groups {
                write_docs(f, &g.docs, "///", "    ")?;
                writeln!(f, "    group {}{};", g.name, g.schedule)?;
            }
            for field in &c.fields {
                write_docs(f, &field.docs, "///", "    ")?;
                writeln!(f, "    {field};")?;
            }
            writeln!(f, "}}")?;
        }
        let inputs = self.inputs.iter().map(|i| ("input", i));
        for (keyword, i) in inputs.chain(self.events.iter().map(|e| ("event", e))) {
            if !first {
                writeln!(f)?;
            }
            first = false;
            write_docs(f, &i.docs, "///", "")?;
            writeln!(f, "{keyword} {} {{", i.name)?;
            for field in &i.fields {
                write_docs(f, &field.docs, "///", "    ")?;
                writeln!(f, "    {field};")?;
            }
            writeln!(f, "}}")?;
        }
        Ok(())
    }
}
