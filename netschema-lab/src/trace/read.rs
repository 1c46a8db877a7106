//! Reading a trace, one line at a time.

use std::io::BufRead;

use serde_json::{Map, Value};

use super::error::{TraceError, TraceErrorKind};
use super::shape::{Clamps, ClassShape, Reader, json_type};
use super::{Clamped, Header, TraceFrame};
use crate::descriptors::RuntimeSchema;
use crate::{Event, Snapshot};

/// Reads a trace's frames: an iterator of [`TraceFrame`]s, one per line that is not blank.
///
/// The first error ends the iteration; untrusted text never panics (see `docs/trace-format.md`
/// for what is accepted).
pub struct TraceReader<'s, R> {
    schema: &'s RuntimeSchema,
    classes: Vec<ClassShape>,
    /// The shape of each event's class, by event index.
    events: Vec<ClassShape>,
    input: R,
    text: String,
    line: usize,
    bytes: u64,
    started: bool,
    failed: bool,
    header: Option<Header>,
    previous: Snapshot,
    last_frame: Option<u64>,
    /// The format version: the header's, else the newest.
    version: u64,
    /// How the first frame line gave its time; every other line must do the same.
    timing: Option<Timing>,
    last_time: Option<f64>,
    clamps: Vec<Vec<Clamps>>,
    /// Clamp counts of each event's scalars.
    event_clamps: Vec<Vec<Clamps>>,
    seen: Vec<bool>,
}

/// The newest format version, which this reader reads along with every older one.
pub(crate) const VERSION: u64 = 3;

/// How a frame line gives its time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Timing {
    /// No time: frames are evenly spaced.
    None,
    /// `time`, in seconds.
    Seconds,
    /// `tick`, at the header's `rate_hz`.
    Ticks,
}

impl Timing {
    fn key(self) -> &'static str {
        match self {
            Timing::None => "neither `time` nor `tick`",
            Timing::Seconds => "`time`",
            Timing::Ticks => "`tick`",
        }
    }
}

/// `Expected` for `what`.
fn expected(what: impl Into<String>, expected: &str, v: &Value) -> TraceErrorKind {
    TraceErrorKind::Expected { what: what.into(), expected: expected.into(), found: json_type(v) }
}

/// Checks that every key of `map` is one of `known`.
fn known_keys(
    map: &Map<String, Value>,
    known: &[&str],
    context: &'static str,
) -> Result<(), TraceErrorKind> {
    match map.keys().find(|k| !known.contains(&k.as_str())) {
        Some(key) => Err(TraceErrorKind::UnknownKey { key: key.clone(), context }),
        None => Ok(()),
    }
}

fn entity_id(v: &Value, what: impl FnOnce() -> String) -> Result<u32, TraceErrorKind> {
    v.as_u64()
        .and_then(|id| u32::try_from(id).ok())
        .ok_or_else(|| expected(what(), "an entity id (an integer in 0..=4294967295)", v))
}

/// A reference's value: an entity id, or `null` for none.
fn reference(v: &Value, what: impl FnOnce() -> String) -> Result<Option<u32>, TraceErrorKind> {
    match v {
        Value::Null => Ok(None),
        _ => v.as_u64().and_then(|id| u32::try_from(id).ok()).map(Some).ok_or_else(|| {
            expected(what(), "an entity id (an integer in 0..=4294967295) or null", v)
        }),
    }
}

/// The scalars and references of one entity or event, read from a `fields` object.
struct Fields<'a> {
    shape: &'a ClassShape,
    /// Its row.
    row: &'a mut [i32],
    /// Its references: the id each names and whether the object gives it.
    targets: &'a mut [(Option<u32>, bool)],
    clamps: &'a mut [Clamps],
    /// Per field then reference of the shape, whether the object gives it.
    seen: &'a mut [bool],
    line: usize,
}

impl Fields<'_> {
    /// Reads `given` (of what `owner` names, for messages) into the row and references.
    fn read(
        self,
        given: &Map<String, Value>,
        owner: &dyn Fn() -> String,
    ) -> Result<(), TraceErrorKind> {
        let shape = self.shape;
        let fields = shape.fields.len();
        let mut reader =
            Reader { class: shape, row: self.row, clamps: self.clamps, line: self.line };
        for (field_name, value) in given {
            if let Some(r) = shape.reference(field_name) {
                let what = || format!("`{}.{field_name}` of {}", shape.name, owner());
                self.targets[r] = (reference(value, what)?, true);
                self.seen[fields + r] = true;
                continue;
            }
            let f = shape.field(field_name).ok_or_else(|| TraceErrorKind::UnknownField {
                class: shape.name.clone(),
                field: field_name.clone(),
            })?;
            reader.field(f, value)?;
            self.seen[f] = true;
        }
        Ok(())
    }
}

/// Where [`TraceReader::entity`] put an entity it read.
#[derive(Clone, Copy)]
struct Read {
    id: u32,
    class: u16,
    /// The start of its row in the line's values.
    start: usize,
    /// The start of its references in the line's targets.
    link_start: usize,
}

impl<'s, R: BufRead> TraceReader<'s, R> {
    /// A reader of `input` for `schema`.
    pub fn new(schema: &'s RuntimeSchema, input: R) -> Self {
        let (classes, events) = (ClassShape::all(schema), ClassShape::events(schema));
        let clamps_of = |shapes: &[ClassShape]| -> Vec<Vec<Clamps>> {
            shapes.iter().map(|c| vec![Clamps::default(); c.quantisers.len()]).collect()
        };
        let (clamps, event_clamps) = (clamps_of(&classes), clamps_of(&events));
        TraceReader {
            schema,
            classes,
            events,
            input,
            text: String::new(),
            line: 0,
            bytes: 0,
            started: false,
            failed: false,
            header: None,
            previous: Snapshot::new(),
            last_frame: None,
            version: VERSION,
            timing: None,
            last_time: None,
            clamps,
            event_clamps,
            seen: Vec::new(),
        }
    }

    /// The header, once the first line has been read (`None` if the trace has none).
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    /// Lines read so far.
    pub fn line(&self) -> usize {
        self.line
    }

    /// Bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes
    }

    /// The scalars that had out-of-range values, clamped as their quantiser does: how many
    /// and the first line.
    pub fn clamped(&self) -> Vec<Clamped> {
        let classes = self.schema.classes.iter().zip(self.schema.schema.classes);
        let classes = classes.map(|(layout, class)| (layout, class.name)).zip(&self.clamps);
        let events = self.schema.events.iter().zip(self.schema.schema.events);
        let events = events.map(|(layout, event)| (layout, event.name)).zip(&self.event_clamps);
        let mut out = Vec::new();
        for ((layout, name), clamps) in classes.chain(events) {
            for (scalar, c) in layout.scalars.iter().zip(clamps) {
                if c.count > 0 {
                    // A quaternion is clamped as a whole; name it rather than its index.
                    let path = scalar.path.strip_suffix(".largest").unwrap_or(&scalar.path);
                    out.push(Clamped {
                        field: format!("{name}.{path}"),
                        count: c.count,
                        first_line: c.first_line,
                    });
                }
            }
        }
        out
    }

    fn header_line(&mut self, map: &Map<String, Value>) -> Result<(), TraceErrorKind> {
        if self.started {
            return Err(TraceErrorKind::MisplacedHeader);
        }
        known_keys(map, &["netschema_trace", "schema", "rate_hz"], "header")?;
        let version = map.get("netschema_trace").unwrap_or(&Value::Null);
        self.version = match version.as_u64() {
            Some(v @ 1..=VERSION) => v,
            _ => return Err(TraceErrorKind::UnsupportedVersion(version.to_string())),
        };
        let schema = match map.get("schema") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(v) => return Err(expected("`schema`", "a string", v)),
        };
        let rate_hz = match map.get("rate_hz") {
            None => None,
            Some(v) => Some(
                v.as_f64()
                    .filter(|r| r.is_finite() && *r > 0.0)
                    .ok_or_else(|| expected("`rate_hz`", "a positive number", v))?,
            ),
        };
        self.header = Some(Header { schema, rate_hz });
        Ok(())
    }

    /// Reads one entity into `values` and its references into `targets` (with whether the
    /// line gives each, rather than keeping it, in `given`).
    fn entity(
        &mut self,
        n: usize,
        v: &Value,
        values: &mut Vec<i32>,
        targets: &mut Vec<(Option<u32>, bool)>,
    ) -> Result<Read, TraceErrorKind> {
        let Value::Object(e) = v else {
            return Err(expected(format!("entity {n} of `entities`"), "an object", v));
        };
        known_keys(e, &["id", "class", "fields"], "entity")?;
        let missing = |key| TraceErrorKind::MissingKey { key, context: "entity" };
        let id = entity_id(e.get("id").ok_or_else(|| missing("id"))?, || {
            format!("`id` of entity {n} of `entities`")
        })?;
        let class_value = e.get("class").ok_or_else(|| missing("class"))?;
        let name = class_value.as_str().ok_or_else(|| {
            expected(format!("`class` of entity {id}"), "a class name", class_value)
        })?;
        let class = self
            .schema
            .class_index(name)
            .ok_or_else(|| TraceErrorKind::UnknownClass(name.to_owned()))?;
        let shape = &self.classes[class];
        let (start, link_start) = (values.len(), targets.len());
        // An entity that was on the previous line with the same class keeps its values; one
        // that changed class is a new entity under the same id (a respawn) and enters.
        let previous = self.previous.ids.binary_search(&id).ok();
        let entering = match previous.filter(|&i| usize::from(self.previous.classes[i]) == class) {
            Some(i) => {
                values.extend_from_slice(self.previous.row(i));
                targets.extend(self.previous.links(i).iter().map(|&t| (t, false)));
                false
            }
            None => {
                values.resize(start + shape.quantisers.len(), 0);
                targets.resize(link_start + shape.references.len(), (None, true));
                true
            }
        };
        let fields = shape.fields.len();
        self.seen.clear();
        self.seen.resize(fields + shape.references.len(), false);
        if let Some(given) = e.get("fields") {
            let Value::Object(given) = given else {
                return Err(expected(format!("`fields` of entity {id}"), "an object", given));
            };
            let read = Fields {
                shape,
                row: &mut values[start..],
                targets: &mut targets[link_start..],
                clamps: &mut self.clamps[class],
                seen: &mut self.seen,
                line: self.line,
            };
            read.read(given, &|| format!("entity {id}"))?;
        }
        if entering && let Some(f) = self.seen.iter().position(|seen| !seen) {
            let field = match shape.fields.get(f) {
                Some(field) => field.name.clone(),
                None => shape.references[f - fields].0.clone(),
            };
            return Err(TraceErrorKind::MissingField { id, class: shape.name.clone(), field });
        }
        // The schema has at most `u16::MAX` classes (the runtime checks it).
        let class = u16::try_from(class).unwrap_or(u16::MAX);
        Ok(Read { id, class, start, link_start })
    }

    /// The references of entity `id` of `class`, read as `read` (each target with whether the
    /// line gives it), among the entities of the line (`line`, by ascending id): a reference the line gives must name an entity of the line of the
    /// class it is to; one kept from the previous line names nothing once its target has left
    /// (or entered again as a new entity), as a world's link does.
    fn resolve(
        &self,
        line: &[Read],
        read: &[(Option<u32>, bool)],
        id: u32,
        class: &ClassShape,
    ) -> Result<Vec<Option<u32>>, TraceErrorKind> {
        let mut out = Vec::with_capacity(read.len());
        for (&(target, given), (name, to)) in read.iter().zip(&class.references) {
            let Some(target) = target else {
                out.push(None);
                continue;
            };
            let found = line.binary_search_by_key(&target, |r| r.id).ok().map(|t| line[t].class);
            if !given {
                let before = self.previous.ids.binary_search(&target).ok();
                let same = before.is_some_and(|b| Some(self.previous.classes[b]) == found);
                out.push(same.then_some(target));
                continue;
            }
            let field = || format!("{}.{name}", class.name);
            let Some(found) = found.map(usize::from) else {
                return Err(TraceErrorKind::UnknownTarget { field: field(), id, target });
            };
            if let Some(to) = to.filter(|&to| to != found) {
                return Err(TraceErrorKind::TargetClass {
                    field: field(),
                    id,
                    target,
                    expected: self.classes[to].name.clone(),
                    found: self.classes[found].name.clone(),
                });
            }
            out.push(Some(target));
        }
        Ok(out)
    }

    /// The line's time in seconds, checked against the lines before.
    fn time(&mut self, map: &Map<String, Value>) -> Result<Option<f64>, TraceErrorKind> {
        let (time, tick) = (map.get("time"), map.get("tick"));
        let timing = match (time, tick) {
            (None, None) => Timing::None,
            (Some(_), None) => Timing::Seconds,
            (None, Some(_)) => Timing::Ticks,
            (Some(_), Some(_)) => return Err(TraceErrorKind::TimeAndTick),
        };
        let first = *self.timing.get_or_insert(timing);
        if timing != first {
            return Err(TraceErrorKind::MixedTiming { first: first.key(), found: timing.key() });
        }
        let seconds = match (time, tick) {
            (Some(v), _) => Some(
                v.as_f64()
                    .filter(|t| t.is_finite() && *t >= 0.0)
                    .ok_or_else(|| expected("`time`", "a number of seconds, at least 0", v))?,
            ),
            (_, Some(v)) => {
                let tick =
                    v.as_u64().ok_or_else(|| expected("`tick`", "a non-negative integer", v))?;
                let rate = self.header.as_ref().and_then(|h| h.rate_hz);
                Some(tick as f64 / rate.ok_or(TraceErrorKind::TickWithoutRate)?)
            }
            (None, None) => None,
        };
        if let (Some(time), Some(previous)) = (seconds, self.last_time)
            && time <= previous
        {
            return Err(TraceErrorKind::TimeOrder { time, previous });
        }
        Ok(seconds)
    }

    fn frame_line(&mut self, map: &Map<String, Value>) -> Result<TraceFrame, TraceErrorKind> {
        let keys: &[&str] = match self.version {
            1 => &["frame", "entities", "clients"],
            2 => &["frame", "time", "tick", "entities", "clients"],
            _ => &["frame", "time", "tick", "entities", "clients", "events"],
        };
        known_keys(map, keys, "line")?;
        let frame = match map.get("frame") {
            None => None,
            Some(v) => {
                Some(v.as_u64().ok_or_else(|| expected("`frame`", "a non-negative integer", v))?)
            }
        };
        if let (Some(frame), Some(previous)) = (frame, self.last_frame)
            && frame <= previous
        {
            return Err(TraceErrorKind::FrameOrder { frame, previous });
        }
        let time = self.time(map)?;
        let entities = map
            .get("entities")
            .ok_or(TraceErrorKind::MissingKey { key: "entities", context: "line" })?;
        let Value::Array(entities) = entities else {
            return Err(expected("`entities`", "an array of entities", entities));
        };
        let (mut values, mut targets) = (Vec::new(), Vec::new());
        let mut order = Vec::with_capacity(entities.len());
        for (n, e) in entities.iter().enumerate() {
            order.push(self.entity(n, e, &mut values, &mut targets)?);
        }
        order.sort_unstable_by_key(|read| read.id);
        if let Some(pair) = order.windows(2).find(|pair| pair[0].id == pair[1].id) {
            return Err(TraceErrorKind::DuplicateEntity(pair[0].id));
        }
        // References, once every entity they may name is known.
        let mut world = Snapshot::new();
        for read in &order {
            let shape = &self.classes[usize::from(read.class)];
            let given = &targets[read.link_start..][..shape.references.len()];
            let links = self.resolve(&order, given, read.id, shape)?;
            let row = &values[read.start..][..shape.quantisers.len()];
            world.push_linked(read.id, read.class, row, &links);
        }
        let clients = match map.get("clients") {
            None => None,
            Some(Value::Object(clients)) => {
                let mut out = Vec::with_capacity(clients.len());
                for (client, ids) in clients {
                    let what = || format!("visible set of client `{client}`");
                    let Value::Array(ids) = ids else {
                        return Err(expected(what(), "an array of entity ids", ids));
                    };
                    let mut visible = Vec::with_capacity(ids.len());
                    for v in ids {
                        let id = entity_id(v, what)?;
                        if world.ids.binary_search(&id).is_err() {
                            return Err(TraceErrorKind::UnknownEntity {
                                client: client.clone(),
                                id,
                            });
                        }
                        visible.push(id);
                    }
                    visible.sort_unstable();
                    visible.dedup();
                    out.push((client.clone(), visible));
                }
                Some(out)
            }
            Some(v) => return Err(expected("`clients`", "an object of visible sets", v)),
        };
        let events = match map.get("events") {
            None => Vec::new(),
            Some(Value::Array(list)) => list
                .iter()
                .enumerate()
                .map(|(n, e)| self.event(n, e, &world))
                .collect::<Result<_, _>>()?,
            Some(v) => return Err(expected("`events`", "an array of events", v)),
        };
        if frame.is_some() {
            self.last_frame = frame;
        }
        self.last_time = time;
        self.previous.clone_from(&world);
        Ok(TraceFrame { frame, time, world, clients, events })
    }

    /// Reads event `n` of the line: every field given, each reference naming an entity of the
    /// line's `world` of the class it is to, or `null`.
    fn event(&mut self, n: usize, v: &Value, world: &Snapshot) -> Result<Event, TraceErrorKind> {
        let Value::Object(e) = v else {
            return Err(expected(format!("event {n} of `events`"), "an object", v));
        };
        known_keys(e, &["event", "fields"], "event")?;
        let name_value =
            e.get("event").ok_or(TraceErrorKind::MissingKey { key: "event", context: "event" })?;
        let name = name_value.as_str().ok_or_else(|| {
            expected(format!("`event` of event {n} of `events`"), "an event name", name_value)
        })?;
        let index = self.schema.ir.events.iter().position(|ev| ev.name == name);
        let index = index.ok_or_else(|| TraceErrorKind::UnknownEvent(name.to_owned()))?;
        let shape = &self.events[index];
        let mut values = vec![0; shape.quantisers.len()];
        let mut targets = vec![(None, false); shape.references.len()];
        self.seen.clear();
        self.seen.resize(shape.fields.len() + shape.references.len(), false);
        if let Some(given) = e.get("fields") {
            let Value::Object(given) = given else {
                return Err(expected(format!("`fields` of event {n}"), "an object", given));
            };
            let read = Fields {
                shape,
                row: &mut values,
                targets: &mut targets,
                clamps: &mut self.event_clamps[index],
                seen: &mut self.seen,
                line: self.line,
            };
            read.read(given, &|| format!("event {n}"))?;
        }
        if let Some(f) = self.seen.iter().position(|seen| !seen) {
            let field = match shape.fields.get(f) {
                Some(field) => field.name.clone(),
                None => shape.references[f - shape.fields.len()].0.clone(),
            };
            return Err(TraceErrorKind::MissingEventField { event: name.to_owned(), field });
        }
        let mut resolved = Vec::with_capacity(targets.len());
        for (&(target, _), (field, to)) in targets.iter().zip(&shape.references) {
            let Some(target) = target else {
                resolved.push(None);
                continue;
            };
            let found = world.ids.binary_search(&target).ok().map(|i| world.classes[i]);
            let expected = match (found.map(usize::from), to) {
                (None, _) => None,
                (Some(found), Some(to)) if found != *to => Some(self.classes[*to].name.clone()),
                (Some(_), _) => {
                    resolved.push(Some(target));
                    continue;
                }
            };
            let field = format!("{name}.{field}");
            return Err(TraceErrorKind::EventTarget { field, target, expected });
        }
        Ok(Event { event: index, values, targets: resolved })
    }

    fn fail(&mut self, kind: TraceErrorKind) -> Option<Result<TraceFrame, TraceError>> {
        self.failed = true;
        Some(Err(TraceError { line: self.line, kind }))
    }
}

impl<R: BufRead> Iterator for TraceReader<'_, R> {
    type Item = Result<TraceFrame, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.failed {
            self.text.clear();
            let n = match self.input.read_line(&mut self.text) {
                Ok(0) => return None,
                Ok(n) => n,
                Err(e) => {
                    self.line += 1;
                    return self.fail(TraceErrorKind::Io(e.to_string()));
                }
            };
            self.line += 1;
            self.bytes += n as u64;
            let text = self.text.trim();
            if text.is_empty() {
                continue;
            }
            let map = match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(map)) => map,
                Ok(v) => return self.fail(expected("the line", "a JSON object", &v)),
                Err(e) => return self.fail(TraceErrorKind::Json(e.to_string())),
            };
            if map.contains_key("netschema_trace") {
                if let Err(kind) = self.header_line(&map) {
                    return self.fail(kind);
                }
                self.started = true;
                continue;
            }
            self.started = true;
            return match self.frame_line(&map) {
                Ok(frame) => Some(Ok(frame)),
                Err(kind) => self.fail(kind),
            };
        }
        None
    }
}
