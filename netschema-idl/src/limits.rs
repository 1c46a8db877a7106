//! The numeric limits of the schema language, in one place.
//!
//! The validator enforces them; code generators and the runtime may rely on them.

/// Most bits of a quantised scalar (`fixed(.., bits = N)`, `angle`, `quat` components), and the
/// most bits the raw step count of a `fixed(.., res = R)` may need.
pub const MAX_BITS: u32 = 31;

/// Fewest bits of an `angle` or of a `fixed(.., bits = N)`.
pub const MIN_BITS: u32 = 1;

/// Fewest bits of each `quat` component (one bit cannot code a value in ±1/√2 usefully).
pub const MIN_QUAT_BITS: u32 = 2;

/// Largest raw step count of a `fixed` kind: values are coded as `0..=steps`, in [`MAX_BITS`] bits.
pub const MAX_FIXED_STEPS: u64 = (1 << MAX_BITS) - 1;

/// Fewest cases of an enum.
pub const MIN_ENUM_CASES: usize = 1;

/// Most cases of an enum.
pub const MAX_ENUM_CASES: usize = 65_536;

/// Shortest array.
pub const MIN_ARRAY_LEN: u32 = 1;

/// Longest array.
pub const MAX_ARRAY_LEN: u32 = 1024;

/// Smallest `int` bound.
pub const INT_MIN: i64 = i32::MIN as i64;

/// Largest `int` bound.
pub const INT_MAX: i64 = i32::MAX as i64;

/// Largest tolerance of a field, in raw steps (the runtime's
/// [`MAX_TOLERANCE`](netschema_runtime::schema::MAX_TOLERANCE)).
pub const MAX_TOLERANCE_STEPS: u32 = netschema_runtime::schema::MAX_TOLERANCE;

/// Most update groups of a class, its default group included (the runtime's
/// [`MAX_GROUPS`](netschema_runtime::schema::MAX_GROUPS)).
pub const MAX_GROUPS: usize = netschema_runtime::schema::MAX_GROUPS;

/// Longest send interval of an update group, in frames (`every = N`; the runtime's
/// [`MAX_INTERVAL`](netschema_runtime::schema::MAX_INTERVAL)).
pub const MAX_INTERVAL: i64 = netschema_runtime::schema::MAX_INTERVAL as i64;

/// Highest priority of an update group (`priority = P`).
pub const MAX_PRIORITY: i64 = u16::MAX as i64;

/// Most keyframes a timeline holds ahead of, and most at or before, its current frame (each).
pub const MAX_TIMELINE_KEYS: i64 = 64;

/// Highest frame rate a schema may declare (`rate HZ;`), in frames per second.
pub const MAX_RATE: u32 = 10_000;

/// Deepest nesting of structs inside structs (a class's field holding a struct is depth 1).
pub const MAX_STRUCT_DEPTH: usize = 8;

/// Most references (links) of a class.
pub const MAX_LINKS: usize = netschema_runtime::schema::MAX_LINKS;

/// Most scalar fields of an input (the runtime's
/// [`MAX_INPUT_FIELDS`](netschema_runtime::engine::input::MAX_INPUT_FIELDS)).
pub const MAX_INPUT_FIELDS: usize = netschema_runtime::engine::input::MAX_INPUT_FIELDS;

/// Most scalar fields of an event (the runtime's
/// [`MAX_EVENT_FIELDS`](netschema_runtime::event::MAX_EVENT_FIELDS)).
pub const MAX_EVENT_FIELDS: usize = netschema_runtime::event::MAX_EVENT_FIELDS;

/// Fewest elements a list may hold at most (`list<K, N>`'s `N`).
pub const MIN_LIST_LEN: u32 = 1;

/// Most elements a list may hold (`list<K, N>`'s `N`): its links are slot indices up to `N`.
pub const MAX_LIST_LEN: u32 = 256;

/// Most bytes of a string or byte blob (`string<N>`, `bytes<N>`'s `N`; the runtime's
/// [`MAX_TEXT_LEN`](netschema_runtime::schema::MAX_TEXT_LEN)): one, with what names its
/// entity or event, fits a record.
pub const MAX_TEXT_LEN: u32 = netschema_runtime::schema::MAX_TEXT_LEN as u32;

/// Most strings and byte blobs of a class or an event (the runtime's
/// [`MAX_TEXTS`](netschema_runtime::schema::MAX_TEXTS)).
pub const MAX_TEXTS: usize = netschema_runtime::schema::MAX_TEXTS;

/// Longest record, in bytes (the runtime's
/// [`MAX_RECORD_LEN`](netschema_runtime::engine::records::MAX_RECORD_LEN)): an event's longest
/// coding must fit it.
pub const MAX_RECORD_LEN: usize = netschema_runtime::engine::records::MAX_RECORD_LEN;
