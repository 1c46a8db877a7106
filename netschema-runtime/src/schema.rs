//! Schema descriptors: what the schema compiler emits as `const` items.
//!
//! A [`Schema`] lists entity [`Class`]es; a class lists its scalar [`Field`]s in wire order.
//! Every field carries its raw integer range (from its quantiser), whether that range wraps,
//! and how it is coded: numeric fields through learned predictors, categorical fields (bools
//! and enums) through a transition model conditioned on the baseline value.
//!
//! All constructors are `const fn`, and the schema hash is computed at compile time from the
//! descriptors themselves, so two builds agree on the hash exactly when they agree on the wire.

use crate::Error;
use crate::model::ModelLayout;
use crate::model::contract::{Attached, Contract};
use crate::model::policy::ModelPolicy;
use crate::model::predict::Predictor;
use crate::timeline::{Seconds, Time};

/// How a scalar field is coded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coding {
    /// Predicted from history by the cheapest of these candidates (at most
    /// [`MAX_CANDIDATES`], distinct, in tie-break order), residual entropy-coded.
    Numeric(&'static [Predictor]),
    /// A bool or enum value coded by a transition model from its value at the baseline.
    Categorical,
}

/// Largest number of candidate predictors per field.
pub const MAX_CANDIDATES: usize = 5;

/// One scalar field of a class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// Path of the field in the class, e.g. `pos.x`.
    pub name: &'static str,
    /// Smallest raw value.
    pub min: i32,
    /// Largest raw value.
    pub max: i32,
    /// Whether `max + 1` is the same as `min` (angles).
    pub wraps: bool,
    /// How the field is coded.
    pub coding: Coding,
    /// What the raw values mean: the fingerprint of the field's quantiser (its bounds and
    /// resolution in natural units, its bits, an enum's case names), 0 if not given. Part of
    /// the schema hash, so builds that read the same raw value differently refuse each other.
    pub meaning: u64,
    /// Error tolerance in raw steps (0: exact, at most [`MAX_TOLERANCE`]): while the client's
    /// prediction of this field stays within this many steps of the truth, the server sends
    /// nothing for it and the client shows its prediction. Numeric fields only.
    pub tolerance: u32,
    /// Index of the field's update group in its class's [`Class::groups`] (0: the class's
    /// default group).
    pub group: u8,
    /// Where the field sits in a keyframe timeline's slots, if it is a keyframe's frame or one
    /// of its values ([`Field::in_slot`]).
    pub slot: Option<KeySlot>,
}

/// Most fields of one keyframe slot ([`KeySlot::stride`]): a flag, a frame and up to 14 values.
pub const MAX_SLOT_STRIDE: u8 = 16;

/// The place of a keyframe's frame or value in a timeline's slots (see `docs/protocol.md`,
/// timeline fields): a slot is a flag (0: empty; 1 or 2, alternating each time the slot takes
/// a new keyframe), the keyframe's frame, then its values. The fields of a timeline's slots
/// travel as keyframe records, not in the state stream; a keyframe's frame and values are sent
/// as steps from the slot before it, which holds the keyframe before it when keyframes are
/// added in time order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KeySlot {
    /// Fields from the slot's flag to this one (1 for the frame, 2 for the first value).
    pub after_flag: u8,
    /// Fields per slot: 2 and the components.
    pub stride: u8,
    /// The slot's index in the timeline, `0..capacity`.
    pub index: u8,
    /// The timeline's slots.
    pub capacity: u8,
}

impl KeySlot {
    /// The index of the slot's flag, for the field at index `f`.
    #[inline]
    pub const fn flag_field(&self, f: usize) -> usize {
        f.saturating_sub(self.after_flag as usize)
    }

    /// The index of the same field in the slot before (the last slot's, for slot 0), for the
    /// field at index `f`.
    #[inline]
    pub const fn previous_field(&self, f: usize) -> usize {
        let stride = self.stride as usize;
        if self.index == 0 {
            f + stride * (self.capacity as usize).saturating_sub(1)
        } else {
            f.saturating_sub(stride)
        }
    }

    const fn code(&self) -> u64 {
        (self.after_flag as u64)
            | (self.stride as u64) << 8
            | (self.index as u64) << 16
            | (self.capacity as u64) << 24
    }
}

impl Field {
    /// A numeric field with raw values in `min..=max`.
    pub const fn numeric(
        name: &'static str,
        min: i32,
        max: i32,
        wraps: bool,
        predictors: &'static [Predictor],
    ) -> Field {
        Field {
            name,
            min,
            max,
            wraps,
            coding: Coding::Numeric(predictors),
            meaning: 0,
            tolerance: 0,
            group: 0,
            slot: None,
        }
    }

    /// A categorical field (bool or enum) with `cases` values, raw `0..cases`.
    pub const fn categorical(name: &'static str, cases: u32) -> Field {
        let max = if cases == 0 { 0 } else { (cases - 1) as i32 };
        Field {
            name,
            min: 0,
            max,
            wraps: false,
            coding: Coding::Categorical,
            meaning: 0,
            tolerance: 0,
            group: 0,
            slot: None,
        }
    }

    /// This field with [`Field::meaning`] set to `meaning` (a quantiser's `fingerprint()`).
    pub const fn with_meaning(mut self, meaning: u64) -> Field {
        self.meaning = meaning;
        self
    }

    /// This field with an error tolerance of `steps` raw steps (see [`Field::tolerance`]).
    pub const fn with_tolerance(mut self, steps: u32) -> Field {
        self.tolerance = steps;
        self
    }

    /// This field in update group `group` of its class (see [`Class::groups`]).
    pub const fn in_group(mut self, group: u8) -> Field {
        self.group = group;
        self
    }

    /// This field as a keyframe's frame or value in a timeline's slots (see [`KeySlot`]).
    pub const fn in_slot(mut self, slot: KeySlot) -> Field {
        self.slot = Some(slot);
        self
    }

    /// Number of distinct raw values (`max - min + 1`), up to 2^32.
    #[inline]
    pub const fn span(&self) -> u64 {
        (self.max as i64 - self.min as i64 + 1) as u64
    }

    /// Bits of a raw value: the bit length of `span() − 1` (0 for a one-value field).
    #[inline]
    pub const fn raw_bits(&self) -> u32 {
        64 - self.span().saturating_sub(1).leading_zeros()
    }

    /// The raw value the field holds in a row nothing was written to yet: its lowest value,
    /// or for a list's link ([`list_link_meaning`]) the end, so that the list reads empty.
    #[inline]
    pub const fn empty(&self) -> i32 {
        if self.min == 0 && self.max > 0 && self.meaning == list_link_meaning(self.max as u32) {
            self.max
        } else {
            self.min
        }
    }

    /// Clamps a raw value into the field's range (wrapping it for wrapping fields).
    #[inline]
    pub fn clamp(&self, v: i64) -> i32 {
        let (min, span) = (i64::from(self.min), self.span() as i64);
        // In range exactly when `v - min` is in `0..span`: one unsigned comparison.
        if ((v - min) as u64) < span as u64 {
            v as i32
        } else if self.wraps {
            (min + (v - min).rem_euclid(span)) as i32
        } else {
            v.clamp(min, i64::from(self.max)) as i32
        }
    }

    /// The residual `value - prediction`, wrapped into `[-span/2, span/2)` so that it never
    /// needs more bits than the field itself.
    #[inline]
    pub fn residual(&self, value: i32, prediction: i32) -> i32 {
        // The residual shifted up by half the span must land in `0..span`: one unsigned
        // comparison in the common case, one step of a span otherwise.
        let span = self.span() as i64;
        let down = span >> 1;
        let t = i64::from(value) - i64::from(prediction) + down;
        let t = if (t as u64) < span as u64 {
            t
        } else if t < 0 {
            t + span
        } else {
            t - span
        };
        (t - down) as i32
    }

    /// The residual coded for `value` against `prediction`: [`Field::residual`] for an exact
    /// field; for a field with a tolerance `t`, the error rounded to the nearest multiple of
    /// `2t + 1` and divided by it (near-lossless coding: the value decoded is within `t` of
    /// `value`, and 0 whenever the prediction already is).
    #[inline]
    pub fn coded_residual(&self, value: i32, prediction: i32) -> i32 {
        if self.tolerance == 0 {
            return self.residual(value, prediction);
        }
        let r = if self.wraps {
            i64::from(self.residual(value, prediction))
        } else {
            i64::from(value) - i64::from(prediction)
        };
        let (t, q) = (i64::from(self.tolerance), 2 * i64::from(self.tolerance) + 1);
        (r + t).div_euclid(q) as i32
    }

    /// Inverse of [`Field::coded_residual`]: the value coded residual `e` stands for against
    /// `prediction`. Always inside the field's range.
    #[inline]
    pub fn decoded_value(&self, prediction: i32, e: i32) -> i32 {
        if self.tolerance == 0 {
            return self.reconstruct(prediction, e);
        }
        let v = i64::from(prediction) + i64::from(e) * (2 * i64::from(self.tolerance) + 1);
        self.clamp(v)
    }

    /// Inverse of [`Field::residual`]: the value that `residual` produced from `prediction`.
    /// Always inside the field's range, whatever `residual` is.
    #[inline]
    pub fn reconstruct(&self, prediction: i32, residual: i32) -> i32 {
        let (min, span) = (i64::from(self.min), self.span() as i64);
        // The value's distance above the minimum, which must be in `0..span`.
        let mut t = i64::from(prediction) + i64::from(residual) - min;
        if (t as u64) >= span as u64 {
            // A residual from `residual` is within half a span, so one step brings it back.
            t += if t < 0 { span } else { -span };
            if (t as u64) >= span as u64 {
                t = t.rem_euclid(span);
            }
        }
        (min + t) as i32
    }
}

/// The meaning ([`Field::meaning`]) of a link of a list of at most `bound` elements (its
/// `head`, or a slot's `next`): a slot index in `0..bound`, or `bound` for the end. Lists are
/// flattened into ordinary fields by the schema compiler; this only tells their links apart
/// from other fields in the schema hash.
pub const fn list_link_meaning(bound: u32) -> u64 {
    crate::quant::fingerprint(0x7141, &[bound as u64])
}

/// Largest error tolerance of a field, in raw steps: what a client holds within tolerance is
/// stored as one signed byte per field.
pub const MAX_TOLERANCE: u32 = 127;
/// Most update groups of a class.
pub const MAX_GROUPS: usize = 8;
/// Longest send interval of an update group, in frames: half the window of frames in flight,
/// so that a group waiting for its turn never falls out of the server's archive.
pub const MAX_INTERVAL: u16 = (crate::engine::frame::WINDOW / 2) as u16;

/// An update group: fields of a class sent on their own schedule.
///
/// A group with interval `n` is sent at most every `n` frames: it is due when what the client
/// holds of it is at least `n` frames old, and otherwise the client keeps its values. While an
/// entity waits for a byte budget, its priority grows each frame by the sum of its due groups'
/// priorities (times the client's weight for the entity).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    /// Group name (empty for a class's default group).
    pub name: &'static str,
    /// Send interval in frames, `1..=`[`MAX_INTERVAL`].
    pub interval: u16,
    /// Priority while due, at least 1.
    pub priority: u16,
}

impl Group {
    /// The group of a class that declares none: every frame, priority 1.
    pub const DEFAULT: Group = Group { name: "", interval: 1, priority: 1 };
}

/// A reference from an entity to another entity (see `docs/protocol.md`, links): on the
/// server the target's world id, on the client the handle under which the client holds the
/// target, or none while the client does not hold it. A server id never reaches a client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    /// Name of the link in its class, e.g. `owner`.
    pub name: &'static str,
    /// The class a target must be of (its index in the schema), or `None` for any class.
    pub target: Option<u16>,
}

impl Link {
    /// A link named `name` to an entity of class `target` (an index into the schema's
    /// classes), or of any class.
    pub const fn new(name: &'static str, target: Option<u16>) -> Link {
        Link { name, target }
    }
}

/// Most links of a class.
pub const MAX_LINKS: usize = 16;

/// Most text fields ([`TextField`]) of a class.
pub const MAX_TEXTS: usize = 8;

/// Longest text field, in bytes: one, with its length and what names its entity or event,
/// fits a record ([`MAX_RECORD_LEN`](crate::engine::records::MAX_RECORD_LEN) = 255 bytes).
pub const MAX_TEXT_LEN: u16 = 200;

/// A string or byte blob field of a class (`.netidl` `string<N>`, `bytes<N>`; a game holds it
/// as a [`Text`](crate::Text) or [`Blob`](crate::Blob)): at most [`TextField::max`] bytes,
/// UTF-8 for a string. Not part of the class's row: an event carries it after its links (see
/// [`crate::event::coding`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextField {
    /// Name of the field in its class, e.g. `name`.
    pub name: &'static str,
    /// Most bytes, `1..=`[`MAX_TEXT_LEN`].
    pub max: u16,
    /// Whether its bytes are UTF-8 (`string<N>`) rather than any bytes (`bytes<N>`).
    pub utf8: bool,
}

impl TextField {
    /// A UTF-8 string field of at most `max` bytes.
    pub const fn string(name: &'static str, max: u16) -> TextField {
        TextField { name, max, utf8: true }
    }

    /// A byte blob field of at most `max` bytes.
    pub const fn bytes(name: &'static str, max: u16) -> TextField {
        TextField { name, max, utf8: false }
    }

    /// Whether `bytes` may be this field's value: at most [`TextField::max`] bytes, UTF-8 for a
    /// string ([`Error::TextTooLong`], [`Error::NotUtf8`] otherwise).
    pub fn check(&self, bytes: &[u8]) -> crate::Result<()> {
        if bytes.len() > usize::from(self.max) {
            return Err(Error::TextTooLong { len: bytes.len(), max: usize::from(self.max) });
        }
        if self.utf8 && core::str::from_utf8(bytes).is_err() {
            return Err(Error::NotUtf8);
        }
        Ok(())
    }
}

/// An entity class: its name, scalar fields in wire order, update groups, links and text
/// fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Class {
    /// Class name.
    pub name: &'static str,
    /// Scalar fields, in wire order.
    pub fields: &'static [Field],
    /// Update groups, indexed by [`Field::group`]; `groups[0]` holds the fields of no named
    /// group and carries the class's own interval and priority. Empty: one group,
    /// [`Group::DEFAULT`].
    pub groups: &'static [Group],
    /// References to other entities, sent with the class's default group (at most
    /// [`MAX_LINKS`]).
    pub links: &'static [Link],
    /// String and byte blob fields, in declaration order (at most [`MAX_TEXTS`]): not part of
    /// the row.
    pub texts: &'static [TextField],
}

impl Class {
    /// A class of `fields` in one default group, without links or text fields.
    pub const fn new(name: &'static str, fields: &'static [Field]) -> Class {
        Class { name, fields, groups: &[], links: &[], texts: &[] }
    }

    /// This class with text fields `texts` (see [`Class::texts`]).
    pub const fn with_texts(mut self, texts: &'static [TextField]) -> Class {
        self.texts = texts;
        self
    }

    /// This class with `links` (see [`Class::links`]).
    pub const fn with_links(mut self, links: &'static [Link]) -> Class {
        self.links = links;
        self
    }

    /// This class with update `groups` (see [`Class::groups`]).
    pub const fn with_groups(mut self, groups: &'static [Group]) -> Class {
        self.groups = groups;
        self
    }

    /// Fills `row` with each field's [`Field::empty`] value: the row to quantise a new
    /// entity's first value over (its lists start empty).
    pub fn empty_row(&self, row: &mut [i32]) {
        for (r, f) in row.iter_mut().zip(self.fields) {
            *r = f.empty();
        }
    }

    /// Fills `row` with each field's value nearest 0 (its range clamps 0): what an input
    /// stands in with before the game gives one.
    pub fn zero_row(&self, row: &mut [i32]) {
        for (r, f) in row.iter_mut().zip(self.fields) {
            *r = f.clamp(0);
        }
    }

    /// Number of update groups (at least 1).
    #[inline]
    pub const fn group_count(&self) -> usize {
        if self.groups.is_empty() { 1 } else { self.groups.len() }
    }

    /// Update group `g` ([`Group::DEFAULT`] for a class that declares none).
    #[inline]
    pub const fn group(&self, g: usize) -> Group {
        if self.groups.is_empty() || g >= self.groups.len() {
            Group::DEFAULT
        } else {
            self.groups[g]
        }
    }

    /// Whether field `f` is a keyframe slot's flag: the field after it is the slot's frame
    /// ([`KeySlot::after_flag`] 1).
    #[inline]
    pub fn is_key_flag(&self, f: usize) -> bool {
        self.fields.get(f + 1).and_then(|n| n.slot).is_some_and(|s| s.after_flag == 1)
    }

    /// Whether field `f` belongs to a timeline's keyframe slots (a flag, frame or value), which
    /// travel as keyframe records rather than in the state stream (`docs/protocol.md`,
    /// "Timeline fields").
    #[inline]
    pub fn is_key(&self, f: usize) -> bool {
        self.fields.get(f).is_some_and(|x| x.slot.is_some()) || self.is_key_flag(f)
    }

    /// Number of fields with a tolerance.
    pub const fn tolerant_fields(&self) -> usize {
        let (mut n, mut f) = (0, 0);
        while f < self.fields.len() {
            n += (self.fields[f].tolerance > 0) as usize;
            f += 1;
        }
        n
    }
}

/// A whole schema: classes and a hash that identifies its wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schema {
    /// Schema name.
    pub name: &'static str,
    /// Entity classes; a class is identified on the wire by its index here.
    pub classes: &'static [Class],
    /// Hash of everything above that affects the wire format or its meaning: the schema's
    /// and classes' names, class and field order, raw ranges, wrapping, candidate predictors,
    /// tolerances, update groups and their intervals, keyframe slots ([`Field::slot`]), each
    /// field's [`Field::meaning`], each class's links and their targets, and its text fields,
    /// their kinds and bounds (a class without text fields hashes as before). The handshake
    /// compares it (see
    /// [`crate::engine::handshake`]).
    pub hash: u64,
    /// Most scalar fields of any class.
    pub max_fields: usize,
    /// Total scalar fields over all classes (one model per field).
    pub total_fields: usize,
    /// Most update groups of any class (at least 1).
    pub max_groups: usize,
    /// Most fields with a tolerance in any class.
    pub max_tolerant: usize,
    /// Most links of any class.
    pub max_links: usize,
    /// How learned statistics are kept in step ([`ModelPolicy::PerFrame`] unless
    /// [`Schema::with_policy`] says otherwise); part of the hash.
    pub policy: ModelPolicy,
    /// The models every connection starts from ([`Schema::with_prior`]), cold without; part
    /// of the hash.
    pub prior: Option<&'static [u8]>,
    /// Frames per second, if the schema declares it ([`Schema::with_rate`]); part of the hash.
    pub rate: Option<u32>,
    /// The predictive contract of fields with the [`Predictor::Contract`] candidate
    /// ([`Schema::with_contract`]); without one that candidate is never usable. Its name is
    /// part of the hash.
    pub contract: Option<Attached>,
    /// The events this protocol may send, in index order ([`Schema::with_events`]); part of
    /// the hash. Empty for an event's or an input's own schema.
    pub events: &'static [&'static Schema],
}

/// Marks a contract's name in the hash.
const CONTRACT_TAG: u64 = 0xc0_7ac7;
/// Marks an event's hash in the hash.
const EVENT_TAG: u64 = 0xe7e_0000;
/// Marks a link's target in the hash.
const LINK_TAG: u64 = 0x1_1c00_0000;
/// Marks a text field's kind and bound in the hash.
const TEXT_TAG: u64 = 0x7e_0000_0000;
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

const fn hash_bytes(mut h: u64, bytes: &[u8]) -> u64 {
    let mut i = 0;
    while i < bytes.len() {
        h = (h ^ bytes[i] as u64).wrapping_mul(FNV_PRIME);
        i += 1;
    }
    // Separator so that ("ab", "c") and ("a", "bc") differ.
    (h ^ 0xff).wrapping_mul(FNV_PRIME)
}

const fn hash_u64(h: u64, v: u64) -> u64 {
    hash_bytes(h, &v.to_le_bytes())
}

impl Schema {
    /// Builds a schema descriptor and computes its hash and sizes.
    pub const fn new(name: &'static str, classes: &'static [Class]) -> Schema {
        let mut h = hash_bytes(FNV_OFFSET, name.as_bytes());
        let mut max_fields = 0;
        let mut total_fields = 0;
        let mut max_groups = 1;
        let mut max_tolerant = 0;
        let mut max_links = 0;
        let mut c = 0;
        while c < classes.len() {
            let class = &classes[c];
            h = hash_bytes(h, class.name.as_bytes());
            let mut f = 0;
            while f < class.fields.len() {
                let field = &class.fields[f];
                h = hash_bytes(h, field.name.as_bytes());
                h = hash_u64(h, field.min as u32 as u64 | (field.max as u32 as u64) << 32);
                h = hash_u64(h, field.wraps as u64);
                h = hash_u64(h, field.meaning);
                h = hash_u64(h, field.group as u64);
                h = hash_u64(h, field.tolerance as u64);
                if let Some(slot) = field.slot {
                    h = hash_u64(h, 0x510_7000_0000 | slot.code());
                }
                match field.coding {
                    Coding::Categorical => h = hash_u64(h, 0xca7),
                    Coding::Numeric(preds) => {
                        let mut p = 0;
                        while p < preds.len() {
                            h = hash_u64(h, preds[p] as u64 + 1);
                            p += 1;
                        }
                    }
                }
                f += 1;
            }
            let mut g = 0;
            while g < class.groups.len() {
                h = hash_u64(h, class.groups[g].interval as u64);
                g += 1;
            }
            let mut l = 0;
            while l < class.links.len() {
                let link = &class.links[l];
                h = hash_bytes(h, link.name.as_bytes());
                let target = match link.target {
                    Some(t) => t as u64 + 1,
                    None => 0,
                };
                h = hash_u64(h, LINK_TAG | target);
                l += 1;
            }
            let mut t = 0;
            while t < class.texts.len() {
                let text = &class.texts[t];
                h = hash_bytes(h, text.name.as_bytes());
                h = hash_u64(h, TEXT_TAG | (text.utf8 as u64) << 16 | text.max as u64);
                t += 1;
            }
            if class.links.len() > max_links {
                max_links = class.links.len();
            }
            if class.fields.len() > max_fields {
                max_fields = class.fields.len();
            }
            if class.group_count() > max_groups {
                max_groups = class.group_count();
            }
            if class.tolerant_fields() > max_tolerant {
                max_tolerant = class.tolerant_fields();
            }
            total_fields += class.fields.len();
            c += 1;
        }
        Schema {
            name,
            classes,
            hash: h,
            max_fields,
            total_fields,
            max_groups,
            max_tolerant,
            max_links,
            policy: ModelPolicy::PerFrame,
            prior: None,
            rate: None,
            contract: None,
            events: &[],
        }
    }

    /// This schema declaring `events`, each an event's schema
    /// ([`Event::SCHEMA`](crate::event::Event::SCHEMA)), in the order that gives each its
    /// index on the wire (see [`crate::event`]): their hashes join this schema's, so ends
    /// declaring different events refuse each other in the handshake. Usable in a `const`.
    pub const fn with_events(mut self, events: &'static [&'static Schema]) -> Schema {
        let mut e = 0;
        while e < events.len() {
            self.hash = hash_u64(self.hash, EVENT_TAG);
            self.hash = hash_u64(self.hash, events[e].hash);
            e += 1;
        }
        self.events = events;
        self
    }

    /// This schema taking `hz` frames per second (call it before [`Schema::with_prior`]): the
    /// rate joins the hash, so ends that disagree on it refuse each other, and times in
    /// seconds become frames ([`Schema::frame_at`], [`Schema::time_at`]). The rate changes
    /// nothing on the wire. Usable in a `const` and at run time alike.
    pub const fn with_rate(mut self, hz: u32) -> Schema {
        self.hash = hash_u64(self.hash, 0x4a7e_0000_0000 | hz as u64);
        self.rate = Some(hz);
        self
    }

    /// The frame nearest to `seconds` at the schema's rate (halves round up), for timeline
    /// edits. [`Error::NoRate`] without a rate; [`Error::OutOfRange`] past frame `i32::MAX`,
    /// the last a keyframe may take.
    pub const fn frame_at(&self, seconds: Seconds) -> crate::Result<u32> {
        match self.time_at(seconds) {
            Ok(t) if t.nearest_frame() <= i32::MAX as u32 => Ok(t.nearest_frame()),
            Ok(_) => Err(Error::OutOfRange),
            Err(e) => Err(e),
        }
    }

    /// `seconds` at the schema's rate as a lookup time for
    /// [`Timeline::value_at`](crate::timeline::Timeline::value_at), between frames too;
    /// [`Error::NoRate`] without a rate.
    pub const fn time_at(&self, seconds: Seconds) -> crate::Result<Time> {
        match self.rate {
            Some(hz) => Ok(Time::from_seconds(seconds, hz)),
            None => Err(Error::NoRate),
        }
    }

    /// This schema predicting the fields that list [`Predictor::Contract`] with `contract`
    /// (see [`crate::model::contract`]), under `name`, which joins the hash: both ends must
    /// attach the same contract under the same name, and a build without it refuses one with
    /// it. Rename it whenever the contract's predictions change. Usable in a `const`/`static`
    /// (a `&'static` contract) and at run time (a leaked one).
    pub const fn with_contract(
        mut self,
        name: &'static str,
        contract: &'static dyn Contract,
    ) -> Schema {
        self.hash = hash_bytes(hash_u64(self.hash, CONTRACT_TAG), name.as_bytes());
        self.contract = Some(Attached { name, contract });
        self
    }

    /// This schema starting every connection (and every restart) from `prior` instead of cold
    /// models: a prior `netschema train` wrote for this schema (its policy applied first), which
    /// [`Schema::validate`] checks. The prior joins the hash, so both ends must embed the same;
    /// learning continues from it. Usable in a `const` (`include_bytes!`) and at run time.
    pub const fn with_prior(mut self, prior: &'static [u8]) -> Schema {
        self.hash = hash_bytes(self.hash, prior);
        self.prior = Some(prior);
        self
    }

    /// This schema with model policy `policy` (call it once, on a schema from
    /// [`Schema::new`]); a batched policy joins the hash, a per-frame schema keeps the hash
    /// [`Schema::new`] gave it. Usable in a `const` and at run time alike.
    pub const fn with_policy(mut self, policy: ModelPolicy) -> Schema {
        if policy.code() != 0 {
            self.hash = hash_u64(self.hash, policy.code());
        }
        self.policy = policy;
        self
    }

    /// Whether any class has timeline fields ([`Class::is_key`]).
    pub fn has_keys(&self) -> bool {
        self.classes.iter().any(|c| c.fields.iter().any(|f| f.slot.is_some()))
    }

    /// Index of the first model of `class` in a model set of `total_fields` entries.
    pub fn model_offset(&self, class: usize) -> usize {
        self.classes[..class.min(self.classes.len())].iter().map(|c| c.fields.len()).sum()
    }

    /// Checks the descriptors for what the codec relies on: ranges ordered, candidate lists
    /// non-empty, distinct and at most [`MAX_CANDIDATES`] long, class count within `u16`,
    /// tolerances on numeric fields only and at most [`MAX_TOLERANCE`], at most
    /// [`MAX_GROUPS`] groups per class with intervals in `1..=`[`MAX_INTERVAL`] and priorities
    /// of at least 1, every field in one of its class's groups, at most [`MAX_TEXTS`] text
    /// fields of `1..=`[`MAX_TEXT_LEN`] bytes, keyframe slots ([`KeySlot`])
    /// that point inside their class, a valid [`ModelPolicy`], a rate of at least 1 frame per
    /// second if any, and a prior, if any, written for this schema.
    pub fn validate(&self) -> crate::Result<()> {
        let prior_fits = self.prior.is_none_or(|prior| {
            let trained_for = prior.get(4..12).map_or(0, |h| {
                u64::from_le_bytes([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]])
            });
            ModelLayout::new(self).fits_prior(prior, trained_for)
                && hash_bytes(trained_for, prior) == self.hash
        });
        if self.classes.is_empty()
            || self.classes.len() > u16::MAX as usize
            || !self.policy.is_valid()
            || !prior_fits
            || self.rate == Some(0)
        {
            return Err(crate::Error::InvalidSchema);
        }
        for class in self.classes {
            let bad_link =
                |l: &Link| l.target.is_some_and(|t| usize::from(t) >= self.classes.len());
            if class.links.len() > MAX_LINKS || class.links.iter().any(bad_link) {
                return Err(crate::Error::InvalidSchema);
            }
            let bad_text = |t: &TextField| t.max == 0 || t.max > MAX_TEXT_LEN;
            if class.texts.len() > MAX_TEXTS || class.texts.iter().any(bad_text) {
                return Err(crate::Error::InvalidSchema);
            }
            if class.groups.len() > MAX_GROUPS
                || class
                    .groups
                    .iter()
                    .any(|g| g.interval == 0 || g.interval > MAX_INTERVAL || g.priority == 0)
            {
                return Err(crate::Error::InvalidSchema);
            }
            for (f, field) in class.fields.iter().enumerate() {
                let bad_slot = field.slot.is_some_and(|s| {
                    s.after_flag == 0
                        || s.after_flag >= s.stride
                        || s.stride > MAX_SLOT_STRIDE
                        || s.index >= s.capacity
                        || f < usize::from(s.after_flag)
                        || s.previous_field(f) >= class.fields.len()
                });
                if field.min > field.max
                    || usize::from(field.group) >= class.group_count()
                    || field.tolerance > MAX_TOLERANCE
                    || (field.tolerance > 0 && field.coding == Coding::Categorical)
                    || bad_slot
                {
                    return Err(crate::Error::InvalidSchema);
                }
                if let Coding::Numeric(preds) = field.coding {
                    if preds.is_empty() || preds.len() > MAX_CANDIDATES {
                        return Err(crate::Error::InvalidSchema);
                    }
                    for (i, p) in preds.iter().enumerate() {
                        if preds[..i].contains(p) {
                            return Err(crate::Error::InvalidSchema);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Field = Field::numeric("x", -5, 4, false, &[Predictor::Hold]);
    const A: Field = Field::numeric("a", 0, 7, true, &[Predictor::Hold]);

    #[test]
    fn residual_wraps_and_reconstructs() {
        for field in [F, A, Field::numeric("w", i32::MIN, i32::MAX, false, &[Predictor::Hold])] {
            let samples = [
                field.min,
                field.max,
                field.min / 2 + field.max / 2,
                0.clamp(field.min, field.max),
            ];
            for &v in &samples {
                for &p in &samples {
                    let r = field.residual(v, p);
                    assert!(
                        (r as i64) >= -(field.span() as i64 / 2)
                            && (r as i64) < (field.span() as i64 + 1) / 2
                    );
                    assert_eq!(field.reconstruct(p, r), v);
                }
            }
        }
    }

    #[test]
    fn field_arithmetic_matches_its_definitions() {
        let wide = Field::numeric("w", i32::MIN, i32::MAX, true, &[Predictor::Hold]);
        let odd = Field::numeric("o", -3, 3, true, &[Predictor::Hold]);
        for field in [F, A, odd, wide, Field::numeric("n", 7, 7, false, &[Predictor::Hold])] {
            let (min, max, span) =
                (i64::from(field.min), i64::from(field.max), field.span() as i64);
            let wrap = |v: i64| (min + (v - min).rem_euclid(span)) as i32;
            let edges = [min, max, min + 1, max - 1, (min + max) / 2].map(|e| e.clamp(min, max));
            for &v in &edges {
                for &p in &edges {
                    let down = span >> 1;
                    let r = (v - p + down).rem_euclid(span) - down;
                    assert_eq!(i64::from(field.residual(v as i32, p as i32)), r);
                }
                for d in [-3 * span, -span - 1, -span, -1, 0, 1, span, span + 1, 3 * span] {
                    let x = v + d;
                    let clamped = if field.wraps { wrap(x) } else { x.clamp(min, max) as i32 };
                    assert_eq!(field.clamp(x), clamped, "{x} in {field:?}");
                    if let Ok(e) = i32::try_from(d) {
                        assert_eq!(field.reconstruct(v as i32, e), wrap(x), "{v} + {e}");
                    }
                }
            }
        }
    }

    #[test]
    fn hash_depends_on_ranges() {
        static C1: [Class; 1] = [Class::new("c", &[F])];
        static C2: [Class; 1] = [Class::new("c", &[A])];
        const S1: Schema = Schema::new("s", &C1);
        const S2: Schema = Schema::new("s", &C2);
        assert_ne!(S1.hash, S2.hash);
        assert_eq!(S1.max_fields, 1);
        assert!(S1.validate().is_ok());
    }

    #[test]
    fn hash_depends_on_text_kinds_and_bounds() {
        static T: [[Class; 1]; 4] = [
            [Class::new("c", &[F])],
            [Class::new("c", &[F]).with_texts(&[TextField::string("n", 16)])],
            [Class::new("c", &[F]).with_texts(&[TextField::bytes("n", 16)])],
            [Class::new("c", &[F]).with_texts(&[TextField::string("n", 17)])],
        ];
        let hashes: std::vec::Vec<u64> = T.iter().map(|c| Schema::new("s", c).hash).collect();
        for (i, h) in hashes.iter().enumerate() {
            assert!(!hashes[..i].contains(h), "{hashes:?}");
        }
        static BAD: [Class; 1] = [Class::new("c", &[F]).with_texts(&[TextField::bytes("n", 0)])];
        assert_eq!(Schema::new("s", &BAD).validate(), Err(Error::InvalidSchema));
        let name = TextField::string("n", 2);
        assert_eq!(name.check(b"ab"), Ok(()));
        assert_eq!(name.check(b"abc"), Err(Error::TextTooLong { len: 3, max: 2 }));
        assert_eq!(name.check(&[0xc3]), Err(Error::NotUtf8));
    }
}
