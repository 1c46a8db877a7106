//! Checking timelines through the engine: the engine sends a timeline's keyframes as records
//! of the record stream, once per edit, rather than in the state stream, so the client's
//! timeline fields follow the records it has applied rather than the frame it decoded.
//! [`KeyLog`] records what the server's timelines held per handle, and checks that what the
//! client holds is what they held at some frame since the last it matched, no later than the
//! frame decoded, and that a keyframe the server held [`AHEAD`] frames before its time reached
//! the client by then; the state fields are checked as ever, with timeline fields shown empty
//! ([`state_row`]).

use std::collections::{HashMap, VecDeque};

use netschema_runtime::schema::{Class, Schema};

/// A keyframe the server held this many frames or more before its time must reach the client
/// by its time (the frame of a packet decoded then holds it).
pub(crate) const AHEAD: u32 = 120;

/// `row` of `class` with its timeline fields empty, as the state stream holds them.
pub(crate) fn state_row(class: &Class, row: &[i32]) -> Vec<i32> {
    let empty = |(f, &v): (usize, &i32)| if class.is_key(f) { class.fields[f].empty() } else { v };
    row.iter().enumerate().map(empty).collect()
}

/// What a server entity's timelines held from a frame on.
#[derive(Debug)]
struct Held {
    frame: u32,
    birth: u32,
    /// The entity's row (only its timeline fields count).
    row: Vec<i32>,
    /// At each slot's flag field, the frame since which the slot has held what it holds.
    since: Vec<u32>,
}

/// What the server's timelines held per handle, and what the client was last found to hold.
#[derive(Debug, Default)]
pub(crate) struct KeyLog {
    /// Per handle, each time its entity or timelines changed, oldest first: the first is the
    /// one the client was last found to hold, if it was.
    history: HashMap<u32, VecDeque<Held>>,
    /// Per handle, the birth of the entity the client was last found to hold timelines of.
    found: HashMap<u32, u32>,
}

/// The fields of the slot whose flag is field `f` of `class`.
fn slot(class: &Class, f: usize) -> std::ops::Range<usize> {
    let n = class.fields.get(f + 1).and_then(|x| x.slot).map_or(0, |s| usize::from(s.stride));
    f..f + n
}

impl KeyLog {
    /// Whether `schema` has timelines to check.
    pub(crate) fn wanted(schema: &Schema) -> bool {
        schema.has_keys()
    }

    /// The server's entity under handle `h`, of `class` and born at `birth`, holds `row` at
    /// `frame`.
    pub(crate) fn server(
        &mut self,
        h: u32,
        frame: u32,
        (birth, class): (u32, &Class),
        row: &[i32],
    ) {
        let entries = self.history.entry(h).or_default();
        let before = entries.back().filter(|e| e.birth == birth);
        let same =
            |f: usize| before.is_some_and(|e| e.row.get(slot(class, f)) == row.get(slot(class, f)));
        if before.is_some_and(|_| (0..row.len()).all(|f| !class.is_key_flag(f) || same(f))) {
            return;
        }
        let since = (0..row.len())
            .map(|f| match before {
                Some(e) if same(f) => e.since[f],
                _ => frame,
            })
            .collect();
        entries.push_back(Held { frame, birth, row: row.to_vec(), since });
    }

    /// Checks that the client's entity under handle `h`, of `class` and born at `born`, whose
    /// row after decoding `frame` is `row`, holds the timelines the server's held at a frame
    /// since the last found, no later than `frame` (or none yet, before the first is found),
    /// with every keyframe of `frame` or before the server held [`AHEAD`] frames before its
    /// time; a keyframe the server's timeline forgot may linger. The error says what differs.
    pub(crate) fn client(
        &mut self,
        h: u32,
        frame: u32,
        (born, class): (u32, &Class),
        row: &[i32],
    ) -> Result<(), String> {
        let entries = self.history.entry(h).or_default();
        let holds =
            |e: &Held| e.birth == born && e.frame <= frame && agrees(class, &e.row, row, e.frame);
        match entries.iter().position(holds) {
            Some(i) => {
                entries.drain(..i);
                self.found.insert(h, born);
            }
            // Before its first keyframe record arrives, an entity has none.
            None if self.found.get(&h) != Some(&born)
                && (0..row.len()).all(|f| !class.is_key_flag(f) || row[f] == 0) => {}
            None => {
                return Err(format!(
                    "frame {frame}: handle {h}'s timelines are none the server's held since"
                ));
            }
        }
        let now = entries.iter().rev().find(|e| e.birth == born && e.frame <= frame);
        let late = now.and_then(|e| {
            (0..row.len()).filter(|&f| class.is_key_flag(f) && e.row[f] != 0).find(|&f| {
                let time = u32::try_from(e.row[f + 1]).unwrap_or(0);
                let due = e.since[f].saturating_add(AHEAD) <= time && time <= frame;
                due && row.get(slot(class, f)) != e.row.get(slot(class, f))
            })
        });
        match late {
            Some(f) => Err(format!("frame {frame}: handle {h}'s keyframe in field {f} is late")),
            None => Ok(()),
        }
    }
}

/// Whether the client's `row` of `class` holds the keyframes of the server's `server` at
/// `frame`: every slot the server fills alike, every other empty or holding a keyframe of
/// `frame` or before (forgotten history, which the next edit clears).
fn agrees(class: &Class, server: &[i32], row: &[i32], frame: u32) -> bool {
    (0..row.len()).filter(|&f| class.is_key_flag(f)).all(|f| {
        match (server.get(slot(class, f)), row.get(slot(class, f))) {
            (Some(s), Some(c)) if s[0] != 0 => s == c,
            (Some(_), Some(c)) => c[0] == 0 || u32::try_from(c[1]).is_ok_and(|t| t <= frame),
            _ => false,
        }
    })
}
