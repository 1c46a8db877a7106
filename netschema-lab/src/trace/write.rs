//! Writing a trace, one frame per line.

use std::fmt::Write as _;
use std::io::Write;

use super::TraceFrame;
use super::error::WriteError;
use super::read::VERSION;
use super::shape::{ClassShape, Writer};
use crate::descriptors::RuntimeSchema;
use crate::report::json_str;
use crate::{Event, Snapshot};

/// Writes quantised snapshots as a trace in natural units.
///
/// The first line is a header (format version 3) naming the schema and the frame rate; then
/// one line per [`TraceWriter::write`], numbered from frame 0, with its time if given. An
/// entity that was on the previous line with the same class lists only the fields whose values
/// changed (none: no `fields` key); one whose class changed enters again with every field. An
/// empty world is an empty `entities` array; a frame's events, if any, follow its visible
/// sets, every field given. Every value is written so that reading it back
/// with the same schema gives the same raw value.
pub struct TraceWriter<W: Write> {
    classes: Vec<ClassShape>,
    events: Vec<ClassShape>,
    out: W,
    previous: Snapshot,
    frame: u64,
    line: String,
}

impl<W: Write> TraceWriter<W> {
    /// A writer for snapshots of `schema`; writes the header (with `rate_hz`, if given).
    pub fn new(
        schema: &RuntimeSchema,
        mut out: W,
        rate_hz: Option<f64>,
    ) -> Result<Self, WriteError> {
        let mut header =
            format!("{{\"netschema_trace\":{VERSION},\"schema\":{}", json_str(&schema.ir.name));
        if let Some(rate) = rate_hz.filter(|r| r.is_finite() && *r > 0.0) {
            let _ = write!(header, ",\"rate_hz\":{rate:?}");
        }
        header.push_str("}\n");
        out.write_all(header.as_bytes())?;
        Ok(TraceWriter {
            classes: ClassShape::all(schema),
            events: ClassShape::events(schema),
            out,
            previous: Snapshot::new(),
            frame: 0,
            line: String::new(),
        })
    }

    /// Writes the next frame: every entity of `world`, if given what each client sees (ids of
    /// entities of `world`), and if given its time in seconds (give one for every frame or for
    /// none, ascending).
    pub fn write(
        &mut self,
        world: &Snapshot,
        clients: Option<&[(String, Vec<u32>)]>,
        time: Option<f64>,
    ) -> Result<(), WriteError> {
        self.write_line(world, clients, time, &[])
    }

    /// Writes `frame` as the next frame (its number is the writer's count, as
    /// [`TraceWriter::write`] numbers them), with its events.
    pub fn write_frame(&mut self, frame: &TraceFrame) -> Result<(), WriteError> {
        self.write_line(&frame.world, frame.clients.as_deref(), frame.time, &frame.events)
    }

    fn write_line(
        &mut self,
        world: &Snapshot,
        clients: Option<&[(String, Vec<u32>)]>,
        time: Option<f64>,
        events: &[Event],
    ) -> Result<(), WriteError> {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let result = self.frame(world, clients, time, &mut line).and_then(|()| {
            self.events(world, events, &mut line)?;
            line.push_str("}\n");
            Ok(())
        });
        if result.is_ok() {
            self.out.write_all(line.as_bytes())?;
            self.previous.clone_from(world);
            self.frame += 1;
        }
        self.line = line;
        result
    }

    /// Flushes and returns the output.
    pub fn finish(mut self) -> Result<W, WriteError> {
        self.out.flush()?;
        Ok(self.out)
    }

    fn frame(
        &self,
        world: &Snapshot,
        clients: Option<&[(String, Vec<u32>)]>,
        time: Option<f64>,
        line: &mut String,
    ) -> Result<(), WriteError> {
        let _ = write!(line, "{{\"frame\":{}", self.frame);
        if let Some(time) = time {
            if !(time.is_finite() && time >= 0.0) {
                return Err(WriteError::Snapshot(format!("time {time} is not a time in seconds")));
            }
            let _ = write!(line, ",\"time\":{time:?}");
        }
        line.push_str(",\"entities\":[");
        for i in 0..world.len() {
            if i > 0 {
                line.push(',');
            }
            self.entity(world, i, line)?;
        }
        line.push(']');
        if let Some(clients) = clients {
            line.push_str(",\"clients\":{");
            for (k, (client, ids)) in clients.iter().enumerate() {
                if k > 0 {
                    line.push(',');
                }
                line.push_str(&json_str(client));
                line.push_str(":[");
                let mut ids = ids.clone();
                ids.sort_unstable();
                ids.dedup();
                for (j, id) in ids.iter().enumerate() {
                    if world.ids.binary_search(id).is_err() {
                        return Err(WriteError::Snapshot(format!(
                            "client `{client}` sees entity {id}, which is not in the world"
                        )));
                    }
                    if j > 0 {
                        line.push(',');
                    }
                    let _ = write!(line, "{id}");
                }
                line.push(']');
            }
            line.push('}');
        }
        Ok(())
    }

    /// Writes the `events` key of a line of `world`, if there are events.
    fn events(
        &self,
        world: &Snapshot,
        events: &[Event],
        line: &mut String,
    ) -> Result<(), WriteError> {
        for (n, e) in events.iter().enumerate() {
            line.push_str(if n == 0 { ",\"events\":[" } else { "," });
            let shape = self
                .events
                .get(e.event)
                .ok_or_else(|| WriteError::Snapshot(format!("no event {}", e.event)))?;
            if e.values.len() != shape.quantisers.len() || e.targets.len() != shape.references.len()
            {
                return Err(WriteError::Snapshot(format!(
                    "event `{}` has {} values and {} references",
                    shape.name,
                    e.values.len(),
                    e.targets.len()
                )));
            }
            let _ = write!(line, "{{\"event\":{},\"fields\":{{", json_str(&shape.name));
            let writer = Writer { class: shape, row: &e.values };
            for (f, field) in shape.fields.iter().enumerate() {
                if f > 0 {
                    line.push(',');
                }
                line.push_str(&json_str(&field.name));
                line.push(':');
                writer.field(f, line)?;
            }
            for (r, ((name, _), target)) in shape.references.iter().zip(&e.targets).enumerate() {
                if r > 0 || !shape.fields.is_empty() {
                    line.push(',');
                }
                line.push_str(&json_str(name));
                match target {
                    Some(t) if world.ids.binary_search(t).is_ok() => {
                        let _ = write!(line, ":{t}");
                    }
                    Some(t) => {
                        return Err(WriteError::Snapshot(format!(
                            "event `{}` names entity {t}, which is not in the world",
                            shape.name
                        )));
                    }
                    None => line.push_str(":null"),
                }
            }
            line.push_str("}}");
        }
        if !events.is_empty() {
            line.push(']');
        }
        Ok(())
    }

    /// Writes the `i`-th entity of `world`: the fields and references that changed since the
    /// previous line, or all of them if it enters.
    fn entity(&self, world: &Snapshot, i: usize, line: &mut String) -> Result<(), WriteError> {
        let (id, class) = (world.ids[i], world.classes[i]);
        let shape = self
            .classes
            .get(usize::from(class))
            .ok_or_else(|| WriteError::Snapshot(format!("entity {id} has class {class}")))?;
        let (row, links) = (world.row(i), world.links(i));
        if row.len() != shape.quantisers.len()
            || !(links.is_empty() || links.len() == shape.references.len())
        {
            return Err(WriteError::Snapshot(format!(
                "entity {id} of class {} has {} values and {} references",
                shape.name,
                row.len(),
                links.len()
            )));
        }
        // An entity that changed class enters again (a respawn): every field is written.
        let previous = match self.previous.ids.binary_search(&id) {
            Ok(j) if self.previous.classes[j] == class => Some(j),
            _ => None,
        };
        let _ = write!(line, "{{\"id\":{id},\"class\":{}", json_str(&shape.name));
        let writer = Writer { class: shape, row };
        let mut first = true;
        let mut key = |line: &mut String, name: &str| {
            line.push_str(if first { ",\"fields\":{" } else { "," });
            first = false;
            line.push_str(&json_str(name));
            line.push(':');
        };
        for (f, field) in shape.fields.iter().enumerate() {
            let range = field.start..field.end;
            let held = previous.map(|j| self.previous.row(j));
            if held.is_some_and(|p| p.get(range.clone()) == row.get(range.clone())) {
                continue;
            }
            key(line, &field.name);
            writer.field(f, line)?;
        }
        for (r, (name, _)) in shape.references.iter().enumerate() {
            let target = world.link(i, r);
            if previous.is_some_and(|j| self.previous.link(j, r) == target) {
                continue;
            }
            key(line, name);
            match target {
                Some(t) => {
                    let _ = write!(line, "{t}");
                }
                None => line.push_str("null"),
            }
        }
        if !first {
            line.push('}');
        }
        line.push('}');
        Ok(())
    }
}
