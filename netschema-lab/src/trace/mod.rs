//! Recorded traces: a game's replicated state, one frame per line of JSON, in natural units.
//!
//! The format is specified in `docs/trace-format.md`. In short:
//!
//! ```text
//! {"netschema_trace": 3, "schema": "game", "rate_hz": 60}
//! {"frame": 0, "time": 0.0, "entities": [{"id": 7, "class": "Unit", "fields": {"pos": [1.5, 2.0], "state": "idle"}}],
//!  "clients": {"0": [7]}}
//! ```
//!
//! (each frame on one line). [`TraceReader`] turns lines into [`TraceFrame`]s of quantised
//! rows, through the schema's [`RuntimeSchema`] quantisers; [`TraceWriter`] writes quantised
//! snapshots back as natural values that quantise to the same rows. [`Trace::read`] reads a
//! whole trace.

mod error;
#[cfg(test)]
mod events_tests;
mod read;
#[cfg(test)]
mod references_tests;
mod shape;
#[cfg(test)]
mod tests;
mod write;

use std::io::BufRead;

pub use error::{TraceError, TraceErrorKind, WriteError};
pub use read::TraceReader;
pub use write::TraceWriter;

use super::{Event, Snapshot};
use crate::descriptors::RuntimeSchema;

/// The optional first line of a trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Header {
    /// The schema's name, as the recorder knew it.
    pub schema: Option<String>,
    /// Frames per second.
    pub rate_hz: Option<f64>,
}

/// One line of a trace: the whole world of a frame and what each client sees of it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceFrame {
    /// The frame number, if the line gives one.
    pub frame: Option<u64>,
    /// When the frame happened, in seconds (from `time`, or `tick` over the header's rate), if
    /// the trace gives times.
    pub time: Option<f64>,
    /// Every entity of the frame, quantised, in ascending id order.
    pub world: Snapshot,
    /// Each client's visible entities (ascending ids), by client name in name order; `None`
    /// when the line gives no visible sets, and every client sees every entity.
    pub clients: Option<Vec<(String, Vec<u32>)>>,
    /// The events the frame sends (version 3), in line order, their references naming
    /// entities of `world`.
    pub events: Vec<Event>,
}

impl TraceFrame {
    /// What `client` sees: the whole world if the line has no visible sets or no client is
    /// named, nothing if the line's visible sets do not list the client. A reference to an
    /// entity the client does not see names none.
    pub fn view(&self, client: Option<&str>) -> Snapshot {
        let (Some(client), Some(clients)) = (client, &self.clients) else {
            return self.world.clone();
        };
        let mut view = Snapshot::new();
        if let Some((_, ids)) = clients.iter().find(|(name, _)| name == client) {
            let mut targets = Vec::new();
            for &id in ids {
                if let Ok(i) = self.world.ids.binary_search(&id) {
                    targets.clear();
                    let seen = |t: &u32| ids.binary_search(t).is_ok();
                    targets.extend(self.world.links(i).iter().map(|t| t.filter(seen)));
                    view.push_linked(id, self.world.classes[i], self.world.row(i), &targets);
                }
            }
        }
        view
    }

    /// The events `client` is sent (as [`TraceFrame::view`] names clients): those whose first
    /// reference names an entity it sees, or that have no reference, each reference to an
    /// entity it does not see naming none.
    pub fn events_for(&self, client: Option<&str>) -> Vec<Event> {
        let (Some(client), Some(clients)) = (client, &self.clients) else {
            return self.events.clone();
        };
        let Some((_, ids)) = clients.iter().find(|(name, _)| name == client) else {
            return Vec::new();
        };
        let seen = |t: &u32| ids.binary_search(t).is_ok();
        let sent = |e: &&Event| e.targets.first().is_none_or(|t| t.as_ref().is_some_and(seen));
        let hide = |e: &Event| Event {
            targets: e.targets.iter().map(|t| t.filter(seen)).collect(),
            ..e.clone()
        };
        self.events.iter().filter(sent).map(hide).collect()
    }
}

/// Values outside their field's range that were clamped while reading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clamped {
    /// The scalar, or the quaternion, as `Class.path`.
    pub field: String,
    /// How many values were clamped.
    pub count: u64,
    /// The line of the first one.
    pub first_line: usize,
}

/// A whole trace, read into memory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// The header, if the trace has one.
    pub header: Option<Header>,
    /// One frame per line.
    pub frames: Vec<TraceFrame>,
    /// Out-of-range values that were clamped.
    pub clamped: Vec<Clamped>,
}

impl Trace {
    /// Reads every line of `input`; `progress` is called after each frame with the lines and
    /// bytes read so far.
    pub fn read<R: BufRead>(
        schema: &RuntimeSchema,
        input: R,
        mut progress: impl FnMut(usize, u64),
    ) -> Result<Trace, TraceError> {
        let mut reader = TraceReader::new(schema, input);
        let mut frames = Vec::new();
        while let Some(frame) = reader.next() {
            frames.push(frame?);
            progress(reader.line(), reader.bytes_read());
        }
        Ok(Trace { header: reader.header().cloned(), frames, clamped: reader.clamped() })
    }

    /// Every client named by a visible set, in name order.
    pub fn clients(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .frames
            .iter()
            .filter_map(|f| f.clients.as_ref())
            .flat_map(|c| c.iter().map(|(name, _)| name.clone()))
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// When each frame happened, in seconds, if the trace gives times (then every frame has
    /// one, ascending).
    pub fn times(&self) -> Option<Vec<f64>> {
        self.frames.iter().map(|f| f.time).collect()
    }

    /// What `client` sees on every frame ([`TraceFrame::view`]).
    pub fn views(&self, client: Option<&str>) -> Vec<Snapshot> {
        self.frames.iter().map(|f| f.view(client)).collect()
    }

    /// The events `client` is sent on every frame ([`TraceFrame::events_for`]); empty if the
    /// trace has none.
    pub fn events(&self, client: Option<&str>) -> Vec<Vec<Event>> {
        if self.frames.iter().all(|f| f.events.is_empty()) {
            return Vec::new();
        }
        self.frames.iter().map(|f| f.events_for(client)).collect()
    }
}
