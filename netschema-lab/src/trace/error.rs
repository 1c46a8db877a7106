//! What can go wrong reading or writing a trace.

use std::fmt;

/// A trace line that cannot be read: the line number (from 1) and what was wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceError {
    /// The line, counting from 1 (blank lines included).
    pub line: usize,
    /// What was wrong with it.
    pub kind: TraceErrorKind,
}

/// What was wrong with a trace line.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum TraceErrorKind {
    /// The input could not be read (including text that is not UTF-8).
    Io(String),
    /// The line is not valid JSON.
    Json(String),
    /// A value has the wrong JSON type, or an array the wrong length.
    Expected {
        /// What was being read (`` `frame` ``, `` `Unit.pos` of entity 7 ``, …).
        what: String,
        /// What it should be.
        expected: String,
        /// The JSON type found.
        found: &'static str,
    },
    /// An object has a key the format does not define.
    UnknownKey {
        /// The key.
        key: String,
        /// The object: `line`, `header` or `entity`.
        context: &'static str,
    },
    /// An object lacks a required key.
    MissingKey {
        /// The key.
        key: &'static str,
        /// The object: `line`, `header` or `entity`.
        context: &'static str,
    },
    /// A header (`"netschema_trace"`) after the first line.
    MisplacedHeader,
    /// A header of a format version this reader does not know.
    UnsupportedVersion(String),
    /// `frame` is not larger than the previous line's.
    FrameOrder {
        /// This line's frame.
        frame: u64,
        /// The previous line's frame.
        previous: u64,
    },
    /// Two entities of one line have the same id.
    DuplicateEntity(u32),
    /// A class the schema does not declare.
    UnknownClass(String),
    /// An event the schema does not declare.
    UnknownEvent(String),
    /// An event lacks a field (an event gives every field).
    MissingEventField {
        /// The event.
        event: String,
        /// The first field missing, in declaration order.
        field: String,
    },
    /// An event's reference names an entity that is not on the line, or one of another class
    /// than the reference is to.
    EventTarget {
        /// The reference (`Hit.target`).
        field: String,
        /// The id it names.
        target: u32,
        /// The class the reference is to, if the entity is on the line but of another class.
        expected: Option<String>,
    },
    /// `time` is not larger than the previous line's.
    TimeOrder {
        /// This line's time, seconds.
        time: f64,
        /// The previous line's.
        previous: f64,
    },
    /// A line gives its time otherwise than the first frame line did.
    MixedTiming {
        /// How the first frame line gave it.
        first: &'static str,
        /// How this line gives it.
        found: &'static str,
    },
    /// A line gives both `time` and `tick`.
    TimeAndTick,
    /// A line gives `tick`, but the header gives no `rate_hz` to turn ticks into seconds.
    TickWithoutRate,
    /// A field its class does not declare.
    UnknownField {
        /// The class.
        class: String,
        /// The field name as written.
        field: String,
    },
    /// An entity that was not on the previous line lacks a field.
    MissingField {
        /// The entity.
        id: u32,
        /// Its class.
        class: String,
        /// The first field missing, in declaration order.
        field: String,
    },
    /// An enum value that is not one of the enum's case names.
    UnknownCase {
        /// The scalar (`Unit.state`).
        field: String,
        /// The enum.
        enumeration: String,
        /// The name as written.
        case: String,
    },
    /// A visible set names an entity that is not on the line.
    UnknownEntity {
        /// The client.
        client: String,
        /// The entity id.
        id: u32,
    },
    /// A reference names an entity that is not on the line.
    UnknownTarget {
        /// The reference (`Projectile.owner`).
        field: String,
        /// The entity that holds it.
        id: u32,
        /// The id it names.
        target: u32,
    },
    /// A reference to one class names an entity of another.
    TargetClass {
        /// The reference (`Projectile.owner`).
        field: String,
        /// The entity that holds it.
        id: u32,
        /// The id it names.
        target: u32,
        /// The class the reference is to.
        expected: String,
        /// The class of the entity it names.
        found: String,
    },
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.kind)
    }
}

impl fmt::Display for TraceErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceErrorKind::Io(e) => write!(f, "cannot read the trace: {e}"),
            TraceErrorKind::Json(e) => write!(f, "not valid JSON: {e}"),
            TraceErrorKind::Expected { what, expected, found } => {
                write!(f, "{what}: expected {expected}, found {found}")
            }
            TraceErrorKind::UnknownKey { key, context } => {
                write!(f, "unknown key `{key}` in {context}")
            }
            TraceErrorKind::MissingKey { key, context } => write!(f, "{context} has no `{key}`"),
            TraceErrorKind::MisplacedHeader => {
                f.write_str("a header (`netschema_trace`) may only be the first line")
            }
            TraceErrorKind::UnsupportedVersion(v) => {
                write!(f, "trace format version {v} is not supported (this reader knows 1 and 2)")
            }
            TraceErrorKind::FrameOrder { frame, previous } => {
                write!(f, "frame {frame} does not follow frame {previous}")
            }
            TraceErrorKind::DuplicateEntity(id) => write!(f, "entity {id} appears twice"),
            TraceErrorKind::UnknownClass(c) => write!(f, "unknown class `{c}`"),
            TraceErrorKind::UnknownEvent(e) => write!(f, "unknown event `{e}`"),
            TraceErrorKind::MissingEventField { event, field } => {
                write!(f, "event `{event}` lacks field `{field}` (an event gives every field)")
            }
            TraceErrorKind::EventTarget { field, target, expected: None } => {
                write!(
                    f,
                    "`{field}` of an event names {target}, which is not an entity of the line"
                )
            }
            TraceErrorKind::EventTarget { field, target, expected: Some(class) } => {
                write!(f, "`{field}` of an event names {target}, which is not a `{class}`")
            }
            TraceErrorKind::UnknownTarget { field, id, target } => {
                write!(
                    f,
                    "`{field}` of entity {id} names entity {target}, which is not on the line"
                )
            }
            TraceErrorKind::TargetClass { field, id, target, expected, found } => write!(
                f,
                "`{field}` of entity {id} names entity {target}, a `{found}`, not a `{expected}`"
            ),
            TraceErrorKind::TimeOrder { time, previous } => {
                write!(f, "time {time} s does not follow time {previous} s")
            }
            TraceErrorKind::MixedTiming { first, found } => {
                write!(f, "the line gives {found}, but the first frame line gave {first}")
            }
            TraceErrorKind::TimeAndTick => f.write_str("a line gives both `time` and `tick`"),
            TraceErrorKind::TickWithoutRate => {
                f.write_str("`tick` needs the header's `rate_hz` (ticks per second)")
            }
            TraceErrorKind::UnknownField { class, field } => {
                write!(f, "class `{class}` has no field `{field}`")
            }
            TraceErrorKind::MissingField { id, class, field } => {
                write!(f, "entity {id} enters without field `{class}.{field}`")
            }
            TraceErrorKind::UnknownCase { field, enumeration, case } => {
                write!(f, "`{field}`: `{case}` is not a case of enum `{enumeration}`")
            }
            TraceErrorKind::UnknownEntity { client, id } => {
                write!(f, "client `{client}` sees entity {id}, which is not on the line")
            }
        }
    }
}

impl std::error::Error for TraceError {}

/// A snapshot that cannot be written as a trace line.
#[derive(Debug)]
#[non_exhaustive]
pub enum WriteError {
    /// Writing failed.
    Io(std::io::Error),
    /// An entity's class index is not in the schema, or its row has the wrong length.
    Snapshot(String),
    /// No natural value quantises back to this raw value (a schema whose steps are finer than
    /// `f64` can tell apart at the size of its bounds).
    Unrepresentable {
        /// The scalar (`Cube.orientation`).
        field: String,
        /// The raw value (the first of a quaternion's four).
        raw: i32,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Io(e) => write!(f, "cannot write the trace: {e}"),
            WriteError::Snapshot(s) => write!(f, "snapshot does not fit the schema: {s}"),
            WriteError::Unrepresentable { field, raw } => {
                write!(f, "`{field}`: no natural value quantises back to raw {raw}")
            }
        }
    }
}

impl std::error::Error for WriteError {}

impl From<std::io::Error> for WriteError {
    fn from(e: std::io::Error) -> Self {
        WriteError::Io(e)
    }
}
