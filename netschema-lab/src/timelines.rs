//! Checking timelines through the engine: the engine sends a timeline's keyframes as records
//! of the record stream, once per edit, rather than in the state stream, so the client's
//! timeline fields follow the records it has applied rather than the frame it decoded.
//! [`KeyLog`] records what the server's timelines held per handle, and checks that what the
//! client holds is what they held at some frame since the last it matched, no later than the
//! frame decoded; the state fields are checked as ever, with timeline fields shown empty
//! ([`state_row`]).

use std::collections::{HashMap, VecDeque};

use netschema_runtime::schema::{Class, Schema};

/// `row` of `class` with its timeline fields empty, as the state stream holds them.
pub(crate) fn state_row(class: &Class, row: &[i32]) -> Vec<i32> {
    let empty = |(f, &v): (usize, &i32)| if class.is_key(f) { class.fields[f].empty() } else { v };
    row.iter().enumerate().map(empty).collect()
}

/// What the server's timelines held per handle, and what the client was last found to hold.
#[derive(Debug, Default)]
pub(crate) struct KeyLog {
    /// Per handle: each time its entity or timelines changed, the frame, the entity's birth
    /// and the row (only its timeline fields count), oldest first; the first is the one the
    /// client was last found to hold, if it was.
    history: HashMap<u32, VecDeque<(u32, u32, Vec<i32>)>>,
    /// Per handle, the birth of the entity the client was last found to hold timelines of.
    found: HashMap<u32, u32>,
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
        let same = |(_, b, r): &(u32, u32, Vec<i32>)| {
            *b == birth && (0..row.len()).all(|f| !class.is_key(f) || r.get(f) == row.get(f))
        };
        if !entries.back().is_some_and(same) {
            entries.push_back((frame, birth, row.to_vec()));
        }
    }

    /// Checks that the client's entity under handle `h`, of `class` and born at `born`, whose
    /// row after decoding `frame` is `row`, holds the timelines the server's held at a frame
    /// since the last found, no later than `frame` (or none yet, before the first is found);
    /// a keyframe the server's timeline forgot may linger. The error says what differs.
    pub(crate) fn client(
        &mut self,
        h: u32,
        frame: u32,
        (born, class): (u32, &Class),
        row: &[i32],
    ) -> Result<(), String> {
        let entries = self.history.entry(h).or_default();
        let holds = |(at, birth, server): &(u32, u32, Vec<i32>)| {
            *birth == born && *at <= frame && agrees(class, server, row, *at)
        };
        match entries.iter().position(holds) {
            Some(i) => {
                entries.drain(..i);
                self.found.insert(h, born);
                Ok(())
            }
            None if self.found.get(&h) != Some(&born)
                && (0..row.len()).all(|f| !class.is_key_flag(f) || row[f] == 0) =>
            {
                Ok(())
            }
            None => Err(format!(
                "frame {frame}: handle {h}'s timelines are none the server's held since"
            )),
        }
    }
}

/// Whether the client's `row` of `class` holds the keyframes of the server's `server` at
/// `frame`: every slot the server fills alike, every other empty or holding a keyframe of
/// `frame` or before (forgotten history, which the next edit clears).
fn agrees(class: &Class, server: &[i32], row: &[i32], frame: u32) -> bool {
    (0..row.len()).filter(|&f| class.is_key_flag(f)).all(|f| {
        let n = class.fields.get(f + 1).and_then(|x| x.slot).map_or(0, |s| usize::from(s.stride));
        let (s, c) = (server.get(f..f + n), row.get(f..f + n));
        match (s, c) {
            (Some(s), Some(c)) if s[0] != 0 => s == c,
            (Some(_), Some(c)) => c[0] == 0 || u32::try_from(c[1]).is_ok_and(|t| t <= frame),
            _ => false,
        }
    })
}
