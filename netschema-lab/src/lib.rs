//! netschema beside the techniques it replaces, on the same data over the same lossy link.
//!
//! This is the machinery behind the benchmark (`cargo run --release -p netschema-bench`) and
//! `netschema profile`. It knows nothing about any game: its input is a sequence of quantised
//! [`Snapshot`]s (one per frame, the entities one client sees, as raw `i32` rows of a runtime
//! [`Schema`]), and it replays them through every [`Technique`] over the same simulated
//! [`Link`]:
//!
//! ```text
//! snapshots ──▶ technique encoder ──packet──▶ link (latency, loss) ──▶ technique decoder
//!                      ▲                                                     │ decoded frame,
//!                      └────────────── ack ◀── link (latency, loss) ◀───────┘ checked against
//!                                                                              the input
//! ```
//!
//! The techniques ([`techniques::all`]) are the ones Orsten (2011) §7.2 compares, Fiedler's
//! (2015) bit-packing, the encodings of three engines a game would pick instead, and the real
//! engine:
//!
//! | name        | what is sent                                                                |
//! |-------------|------------------------------------------------------------------------------|
//! | `BC`        | bitcode of the whole quantised snapshot                                     |
//! | `BD-Z6/Z9`  | bytes differenced against the acked baseline, then zlib level 6 / 9         |
//! | `BD-zstd`   | the same, then zstd level 3                                                 |
//! | `PD-Z6`     | prediction residuals as plain integers, then zlib level 6                   |
//! | `fiedler`   | Fiedler's bit-packing: the article's layout for cubes, generalised elsewhere |
//! | `N4E`       | Unity Netcode for Entities' snapshots ([`n4e`])                             |
//! | `Q3`        | Quake III's snapshots ([`q3`])                                              |
//! | `naia`      | naia's packets, and `naia-zd` with its trained zstd dictionary ([`naia`])   |
//! | `netschema` | the runtime's `World` / `Peer` / `Client`                                   |
//!
//! Techniques with static tables trained offline (`Q3`, `naia-zd`) train them on
//! [`Setup::training`], snapshots of another run of the same game.
//!
//! [`run`] measures one technique (bytes, encode and decode times, memory, verification, and
//! for netschema under a byte budget or tolerances how stale and how far from the input what
//! its client holds gets: [`HeldStats`]) and [`run_all`] a list of them with progress on
//! stderr; [`report`] prints tables and writes JSON and SVG plots of the results, and [`html`]
//! one self-contained page of a profile.
//!
//! For `netschema profile`, [`descriptors`] builds a schema's runtime descriptors from its
//! `.netidl` file while the program runs, [`trace`] reads and writes recorded traces (JSON
//! Lines in natural units, `docs/trace-format.md`), and [`profile`] sums what each field costs
//! in netschema's packets, reported by the engine through a
//! [`netschema_runtime::engine::probe::Probe`].

mod bitstream;
pub mod bytes;
pub mod descriptors;
pub mod events;
pub mod fiedler;
pub mod fleet;
pub mod html;
mod huffman;
pub mod keyframes;
pub mod link;
pub mod n4e;
pub mod naia;
pub mod netschema;
pub mod profile;
pub mod q3;
mod references;
pub mod report;
mod suite;
pub mod techniques;
#[cfg(test)]
mod tests;
mod timelines;
pub mod trace;
mod training;

use std::fmt;
use std::time::{Duration, Instant};

use netschema_runtime::model::ModelPolicy;
use netschema_runtime::schema::Coding;

pub use events::{Event, RecordStats};
pub use link::{Link, Rng};
pub use netschema_runtime::Ack;
pub use netschema_runtime::schema::Schema;
pub use suite::{TechniqueError, run_all};

/// What went wrong while comparing.
#[derive(Debug)]
pub enum Error {
    /// The technique cannot code this schema or these snapshots (e.g. `fiedler` on anything
    /// but the cube schema).
    Unsupported(String),
    /// A packet did not decode.
    Decode(String),
    /// A packet could not be written.
    Encode(String),
    /// Writing a report failed.
    Io(std::io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unsupported(s) => write!(f, "unsupported: {s}"),
            Error::Decode(s) => write!(f, "decode failed: {s}"),
            Error::Encode(s) => write!(f, "encode failed: {s}"),
            Error::Io(e) => write!(f, "i/o error: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

impl From<netschema_runtime::Error> for Error {
    fn from(e: netschema_runtime::Error) -> Self {
        Error::Decode(e.to_string())
    }
}

/// One frame of what a client should hold: entities with their class, quantised row and
/// references.
///
/// Entities are kept in ascending id order. An id names an entity for as long as it keeps its
/// class: an id absent for a frame, or present with another class, is a new entity (a respawn).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// Entity ids, strictly ascending.
    pub ids: Vec<u32>,
    /// Class index of each entity.
    pub classes: Vec<u16>,
    /// Start of each entity's row in [`Snapshot::values`].
    pub starts: Vec<u32>,
    /// The rows of all entities, one raw value per scalar field of the class.
    pub values: Vec<i32>,
    /// Start of each entity's references in [`Snapshot::targets`].
    pub link_starts: Vec<u32>,
    /// The references of all entities, one per link of the class in order (an entity given
    /// none has none): the id of the entity each names in this snapshot, or `None`.
    pub targets: Vec<Option<u32>>,
}

impl Snapshot {
    /// An empty snapshot.
    pub fn new() -> Self {
        Snapshot::default()
    }

    /// Removes every entity.
    pub fn clear(&mut self) {
        self.ids.clear();
        self.classes.clear();
        self.starts.clear();
        self.values.clear();
        self.link_starts.clear();
        self.targets.clear();
    }

    /// Appends an entity without references; its id must be larger than every id already
    /// present.
    pub fn push(&mut self, id: u32, class: u16, row: &[i32]) {
        self.push_linked(id, class, row, &[]);
    }

    /// Appends an entity with its references (the ids its class's links name, in order); its
    /// id must be larger than every id already present.
    pub fn push_linked(&mut self, id: u32, class: u16, row: &[i32], targets: &[Option<u32>]) {
        debug_assert!(self.ids.last().is_none_or(|&last| last < id), "ids must ascend");
        self.ids.push(id);
        self.classes.push(class);
        self.starts.push(self.values.len() as u32);
        self.values.extend_from_slice(row);
        self.link_starts.push(self.targets.len() as u32);
        self.targets.extend_from_slice(targets);
    }

    /// Number of entities.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there is no entity.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The row of the `i`-th entity.
    pub fn row(&self, i: usize) -> &[i32] {
        let start = self.starts[i] as usize;
        let end = self.starts.get(i + 1).map_or(self.values.len(), |&s| s as usize);
        &self.values[start..end]
    }

    /// The snapshot without the entities whose ids `drop` returns true for (references to
    /// them name nothing).
    pub fn without(&self, drop: impl Fn(u32) -> bool) -> Snapshot {
        let mut out = Snapshot::new();
        let mut targets = Vec::new();
        for (i, &id) in self.ids.iter().enumerate() {
            if drop(id) {
                continue;
            }
            targets.clear();
            targets.extend(self.links(i).iter().map(|t| t.filter(|&t| !drop(t))));
            out.push_linked(id, self.classes[i], self.row(i), &targets);
        }
        out
    }

    /// The references of the `i`-th entity (empty if it was given none).
    pub fn links(&self, i: usize) -> &[Option<u32>] {
        let start = self.link_starts[i] as usize;
        let end = self.link_starts.get(i + 1).map_or(self.targets.len(), |&s| s as usize);
        &self.targets[start..end]
    }

    /// The entity the `r`-th reference of the `i`-th entity names, if any.
    pub fn link(&self, i: usize, r: usize) -> Option<u32> {
        self.links(i).get(r).copied().flatten()
    }

    /// Checks the snapshot against `schema`: ids ascending, classes known, rows of the right
    /// length and inside each field's range, references (if given) one per link and naming
    /// entities of the snapshot.
    pub fn validate(&self, schema: &Schema) -> Result<(), Error> {
        let n = self.ids.len();
        if self.classes.len() != n || self.starts.len() != n || self.link_starts.len() != n {
            return Err(Error::Unsupported("snapshot columns differ in length".into()));
        }
        for i in 0..n {
            if i > 0 && self.ids[i - 1] >= self.ids[i] {
                return Err(Error::Unsupported("snapshot ids do not ascend".into()));
            }
            let class = schema
                .classes
                .get(usize::from(self.classes[i]))
                .ok_or_else(|| Error::Unsupported("unknown class".into()))?;
            let row = self.row(i);
            if row.len() != class.fields.len() {
                return Err(Error::Unsupported(format!(
                    "row of class {} has wrong length",
                    class.name
                )));
            }
            for (v, f) in row.iter().zip(class.fields) {
                if *v < f.min || *v > f.max {
                    return Err(Error::Unsupported(format!(
                        "value {v} of {}.{} outside {}..={}",
                        class.name, f.name, f.min, f.max
                    )));
                }
            }
            let links = self.links(i);
            if !links.is_empty() && links.len() != class.links.len() {
                return Err(Error::Unsupported(format!(
                    "references of class {} have the wrong length",
                    class.name
                )));
            }
            if let Some(t) = links.iter().flatten().find(|t| self.ids.binary_search(t).is_err()) {
                return Err(Error::Unsupported(format!(
                    "a reference of entity {} names {t}, which the snapshot does not hold",
                    self.ids[i]
                )));
            }
        }
        Ok(())
    }
}

/// What every technique is told before it starts.
#[derive(Clone, Copy, Debug)]
pub struct Setup<'a> {
    /// The schema of the snapshots.
    pub schema: &'static Schema,
    /// Most entities any snapshot holds.
    pub capacity: usize,
    /// Snapshots of another run of the same game (another seed of a scenario, another
    /// recording of a trace), for techniques whose static tables are trained offline; empty
    /// for none (they then use untrained tables).
    pub training: &'a [Snapshot],
    /// The events each frame sends the client (`events[i]` at frame `i`; frames past its end
    /// send none), for techniques that carry events (netschema's record stream); empty for
    /// none.
    pub events: &'a [Vec<Event>],
}

/// The two halves of a technique for one connection.
pub type Halves = (Box<dyn Encoder>, Box<dyn Decoder>);

/// A way of sending snapshots: a factory of matched encoder and decoder halves.
pub trait Technique {
    /// Short name, as in the tables (`BC`, `BD-Z6`, …).
    fn name(&self) -> &'static str;
    /// A fresh encoder (the server's state for one client) and decoder (the client's).
    fn start(&self, setup: &Setup<'_>) -> Result<Halves, Error>;
    /// Whether the technique carries references ([`Snapshot::links`]) itself. [`run`] gives
    /// one that does not (the default) each reference as one more integer field of its
    /// entity's row, the id it names plus one (0: none), as a game without references sends
    /// its own ids.
    fn carries_references(&self) -> bool {
        false
    }
}

/// The server half of a technique, for one client.
pub trait Encoder {
    /// Work a server does once per frame for all its clients (netschema's world archive),
    /// called before [`Encoder::encode`] and timed apart from it: the per-client encode time
    /// leaves it out. Most techniques have none.
    fn capture(&mut self, _frame: u32, _snapshot: &Snapshot) -> Result<(), Error> {
        Ok(())
    }
    /// Writes the packet for `frame` (frames are numbered from 0, one per call, ascending)
    /// into `out` (cleared first).
    fn encode(&mut self, frame: u32, snapshot: &Snapshot, out: &mut Vec<u8>) -> Result<(), Error>;
    /// What the decoder should produce for the snapshot just encoded, if the technique names
    /// entities differently from the input (netschema's clients see handles, not ids).
    fn expected(&self, _snapshot: &Snapshot) -> Option<Snapshot> {
        None
    }
    /// What the client holds after the snapshot just encoded, for a technique whose client may
    /// hold other values than the input's (netschema under a byte budget, with tolerances or
    /// update groups): replaces [`Encoder::expected`] and adds what [`HeldStats`] measures.
    /// `None` (the default): the client holds the input exactly.
    fn held(&self, _snapshot: &Snapshot) -> Option<Held> {
        None
    }
    /// Entities the snapshot just encoded codes against an earlier packet's (netschema's young
    /// entities: a handle and the frame of its entry): the decoder shows each only if it
    /// decoded that frame. Empty (the default) for the others.
    fn young(&self) -> Vec<(u32, u32)> {
        Vec::new()
    }
    /// Takes an acknowledgement from the client.
    fn receive_ack(&mut self, ack: &Ack);
    /// What the technique's record stream did with [`Setup::events`] so far, for a technique
    /// that carries events; `None` (the default) for the others.
    fn records(&self) -> Option<RecordStats> {
        None
    }
    /// Bytes of state the server keeps for this client (besides any world state shared by
    /// all clients).
    fn memory_bytes(&self) -> usize;
}

/// What a client holds of one frame, as its server records it ([`Encoder::held`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Held {
    /// What the decoder should produce: the values the client holds, by the technique's names.
    pub view: Snapshot,
    /// Per entity of `view`, in its order: frames since the values the client holds of it
    /// were the input's (0: all sent in this frame).
    pub staleness: Vec<u32>,
    /// The input's values at this frame of the same entities, laid out as `view.values`.
    pub truth: Vec<i32>,
}

/// What a technique's server records the client holds besides the values: per entity its
/// staleness, and the input's values ([`Held`]).
type Recorded = Option<(Vec<u32>, Vec<i32>)>;

/// A frame's young entities ([`Encoder::young`]).
type Young = Vec<(u32, u32)>;

/// The expected snapshot and record of a frame, without the entities `lost` names (if any).
fn without_young(
    want: &Snapshot,
    recorded: &Recorded,
    lost: Option<impl Fn(u32) -> bool>,
) -> (Snapshot, Recorded) {
    let Some(lost) = lost else { return (want.clone(), recorded.clone()) };
    match recorded {
        Some((staleness, truth)) => {
            let held =
                Held { view: want.clone(), staleness: staleness.clone(), truth: truth.clone() };
            let held = held.without(lost);
            (held.view, Some((held.staleness, held.truth)))
        }
        None => (want.without(lost), None),
    }
}

impl Held {
    /// What the client holds without the entities whose ids `drop` returns true for.
    pub fn without(&self, drop: impl Fn(u32) -> bool) -> Held {
        let mut out = Held { view: self.view.without(&drop), ..Held::default() };
        for (i, &id) in self.view.ids.iter().enumerate() {
            if !drop(id) {
                let start = self.view.starts[i] as usize;
                out.staleness.push(self.staleness[i]);
                out.truth.extend_from_slice(&self.truth[start..start + self.view.row(i).len()]);
            }
        }
        out
    }
}

/// The client half of a technique.
pub trait Decoder {
    /// Decodes a packet into `out` and returns its frame.
    fn decode(&mut self, packet: &[u8], out: &mut Snapshot) -> Result<u32, Error>;
    /// The acknowledgement to send after the last decode.
    fn ack(&self) -> Option<Ack>;
    /// What the client shows after the last decode, when it can differ from the frame
    /// decoded (netschema shows each entity's newest values, which a held entity may have
    /// from a frame after the packet's baseline): fills `out` with the same entities as the
    /// decoded frame, in its order, and `ages` with how many frames old each one's values are,
    /// and returns true. The default shows the decoded frame and returns false.
    fn shown(&self, _out: &mut Snapshot, _ages: &mut Vec<u32>) -> bool {
        false
    }
    /// Bytes of state the client keeps.
    fn memory_bytes(&self) -> usize;
}

/// The longest one-way latency, in frames, a run may simulate: netschema's packets reach back
/// at most 127 frames (see `netschema_runtime::engine::frame::REACH`), and a round trip must
/// fit in them with room for losses.
pub const MAX_LATENCY: u32 = 60;

/// A latency in frames, at most [`MAX_LATENCY`]; the error says what is wrong, for a
/// command line's `--latency`.
pub fn parse_latency(s: &str) -> Result<u32, String> {
    let latency: u32 = s.parse().map_err(|_| format!("bad latency `{s}`"))?;
    if latency > MAX_LATENCY {
        return Err(format!(
            "--latency must be at most {MAX_LATENCY} frames (packets reach back 127 frames)"
        ));
    }
    Ok(latency)
}

/// A byte budget of netschema's packets, a positive number of bytes; the error says what is
/// wrong, for a command line's `--budget`.
pub fn parse_budget(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(bytes) if bytes > 0 => Ok(bytes),
        _ => Err(format!("bad budget `{s}` (a positive number of bytes, e.g. 1200)")),
    }
}

/// A model policy for netschema, for a command line's `--policy`: `per-frame`, `batched`
/// (seed 004's batches of 10 packets, 7 models kept) or `batched:B:K` (batches of `B`
/// packets, `K` models kept); the error says what is wrong.
pub fn parse_policy(s: &str) -> Result<ModelPolicy, String> {
    s.parse().map_err(|()| {
        format!("bad policy `{s}` (per-frame, batched or batched:B:K, e.g. batched:10:7)")
    })
}

/// A loss probability written as `0.05` or `5%`, in `[0, 1)`.
pub fn parse_loss(s: &str) -> Option<f64> {
    let v = match s.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().ok()? / 100.0,
        None => s.parse::<f64>().ok()?,
    };
    (0.0..1.0).contains(&v).then_some(v)
}

/// How a comparison run is set up.
#[derive(Clone, Copy, Debug)]
pub struct RunConfig {
    /// One-way latency of the link, in frames (both directions).
    pub latency: u32,
    /// Probability that a datagram (packet or ack) is lost.
    pub loss: f64,
    /// Seed of the link's losses (the same for every technique).
    pub seed: u64,
    /// Frames at the start left out of the statistics (cold start).
    pub warmup: usize,
}

impl RunConfig {
    /// A run with the usual warm-up: two round trips and ten frames.
    pub fn new(latency: u32, loss: f64, seed: u64) -> RunConfig {
        RunConfig { latency, loss, seed, warmup: 2 * latency as usize + 10 }
    }
}

/// Measurements of one technique over one run.
#[derive(Clone, Debug)]
pub struct TechniqueResult {
    /// Technique name.
    pub name: String,
    /// Packet bytes of every frame (including the warm-up).
    pub bytes: Vec<usize>,
    /// Encode time of every frame.
    pub encode: Vec<Duration>,
    /// Time of the shared per-frame work ([`Encoder::capture`]) of every frame.
    pub capture: Vec<Duration>,
    /// Decode time of every packet that arrived.
    pub decode: Vec<Duration>,
    /// Server-side bytes per client at the end of the run.
    pub server_memory: usize,
    /// Client-side bytes at the end of the run.
    pub client_memory: usize,
    /// Packets that arrived and were decoded and checked.
    pub verified_frames: usize,
    /// Packets that arrived but failed to decode or decoded to something else than was sent.
    pub mismatches: usize,
    /// The first mismatch, for the report.
    pub first_error: Option<String>,
    /// Frames left out of the statistics.
    pub warmup: usize,
    /// How stale and how far from the input the client's values were, for a technique that
    /// records what its client holds ([`Encoder::held`]); `None` for the others.
    pub held: Option<HeldStats>,
    /// What its record stream did with the run's events, for a technique that carries them
    /// ([`Encoder::records`]); `None` for the others.
    pub records: Option<RecordStats>,
}

impl TechniqueResult {
    /// Whether every decoded frame matched its input (and at least one was decoded).
    pub fn verified(&self) -> bool {
        self.mismatches == 0
            && self.verified_frames > 0
            && self.records.as_ref().is_none_or(|r| r.mismatches == 0)
    }
}

/// Staleness and error of what a client held, over the decoded frames after the warm-up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeldStats {
    /// `staleness[s]`: (decoded frame, entity) pairs whose values were `s` frames old.
    pub staleness: Vec<u64>,
    /// Numeric values compared with the input.
    pub values: u64,
    /// Sum of their absolute errors, in raw steps.
    pub error_sum: u64,
    /// Largest absolute error, in raw steps.
    pub error_max: u64,
}

impl HeldStats {
    /// Counts decoded frame `decoded` of `schema`, with the [`Held::staleness`] and
    /// [`Held::truth`] its server recorded: the staleness of each entity and the error of each
    /// numeric value (bools and enums are left out), wrapping fields the short way round.
    pub fn add(&mut self, schema: &Schema, decoded: &Snapshot, staleness: &[u32], truth: &[i32]) {
        for (i, &age) in staleness.iter().enumerate().take(decoded.len()) {
            let age = age as usize;
            if self.staleness.len() <= age {
                self.staleness.resize(age + 1, 0);
            }
            self.staleness[age] += 1;
            let Some(class) = schema.classes.get(usize::from(decoded.classes[i])) else {
                continue;
            };
            let start = decoded.starts[i] as usize;
            let truth = truth.get(start..).unwrap_or_default();
            for ((&v, &t), field) in decoded.row(i).iter().zip(truth).zip(class.fields) {
                if field.coding == Coding::Categorical {
                    continue;
                }
                let error = if field.wraps {
                    u64::from(field.residual(v, t).unsigned_abs())
                } else {
                    i64::from(v).abs_diff(i64::from(t))
                };
                self.values += 1;
                self.error_sum += error;
                self.error_max = self.error_max.max(error);
            }
        }
    }

    /// (Decoded frame, entity) pairs counted.
    pub fn samples(&self) -> u64 {
        self.staleness.iter().sum()
    }

    /// Mean staleness, frames (0 without samples).
    pub fn staleness_mean(&self) -> f64 {
        histogram_mean(&self.staleness)
    }

    /// The staleness that 99 % of the samples do not exceed, frames (0 without samples).
    pub fn staleness_p99(&self) -> u32 {
        histogram_p99(&self.staleness)
    }

    /// Mean absolute error of the numeric values, raw steps (0 without values).
    pub fn error_mean(&self) -> f64 {
        self.error_sum as f64 / self.values.max(1) as f64
    }
}

/// The mean of a histogram whose entry `v` counts the samples of value `v` (0 if empty).
pub(crate) fn histogram_mean(counts: &[u64]) -> f64 {
    let n: u64 = counts.iter().sum();
    let weighted: u64 = counts.iter().enumerate().map(|(v, &k)| v as u64 * k).sum();
    weighted as f64 / n.max(1) as f64
}

/// The value that 99 % of a histogram's samples do not exceed (0 if empty).
pub(crate) fn histogram_p99(counts: &[u64]) -> u32 {
    let target = counts.iter().sum::<u64>().saturating_mul(99).div_ceil(100);
    let mut seen = 0;
    for (v, &k) in counts.iter().enumerate() {
        seen += k;
        if seen >= target {
            return v as u32;
        }
    }
    0
}

/// Runs one technique over `snapshots` and measures it. `ticks` says when each frame happens,
/// in frames of the nominal rate (ascending; `None`: frame `i` at `i`), so that the link's
/// latency holds in time when frames are unevenly spaced. `progress` is called after every
/// frame with the number of frames done. A technique that does not carry references gets
/// them as fields ([`Technique::carries_references`]).
pub fn run(
    technique: &dyn Technique,
    setup: &Setup<'_>,
    snapshots: &[Snapshot],
    ticks: Option<&[f64]>,
    config: &RunConfig,
    progress: impl FnMut(usize),
) -> Result<TechniqueResult, Error> {
    if !technique.carries_references()
        && let Some(converted) = references::as_fields(setup, snapshots)
    {
        let setup = converted.setup(setup.capacity);
        return replay(technique, &setup, &converted.snapshots, ticks, config, progress);
    }
    replay(technique, setup, snapshots, ticks, config, progress)
}

/// [`run`] over snapshots the technique takes as they are.
fn replay(
    technique: &dyn Technique,
    setup: &Setup<'_>,
    snapshots: &[Snapshot],
    ticks: Option<&[f64]>,
    config: &RunConfig,
    mut progress: impl FnMut(usize),
) -> Result<TechniqueResult, Error> {
    let (mut encoder, mut decoder) = technique.start(setup)?;
    let mut down = Link::new(config.latency, config.loss, config.seed);
    let mut up = Link::new(config.latency, config.loss, config.seed ^ 0x5eed_u64.rotate_left(32));
    let mut result = TechniqueResult {
        name: technique.name().to_string(),
        bytes: Vec::with_capacity(snapshots.len()),
        encode: Vec::with_capacity(snapshots.len()),
        capture: Vec::with_capacity(snapshots.len()),
        decode: Vec::with_capacity(snapshots.len()),
        server_memory: 0,
        client_memory: 0,
        verified_frames: 0,
        mismatches: 0,
        first_error: None,
        warmup: config.warmup,
        held: None,
        records: None,
    };
    // What the client should hold for each frame in flight, oldest first, and what its server
    // records of it if the technique says.
    let mut expected: std::collections::VecDeque<(u32, Snapshot, Recorded, Young)> =
        Default::default();
    let mut decoded_frames = std::collections::BTreeSet::new();
    let mut packet = Vec::new();
    let mut decoded = Snapshot::new();
    let (mut shown, mut ages) = (Snapshot::new(), Vec::new());
    for (i, snapshot) in snapshots.iter().enumerate() {
        let frame = i as u32;
        let t = Instant::now();
        encoder.capture(frame, snapshot)?;
        result.capture.push(t.elapsed());
        let t = Instant::now();
        encoder.encode(frame, snapshot, &mut packet)?;
        result.encode.push(t.elapsed());
        result.bytes.push(packet.len());
        let (want, held) = match encoder.held(snapshot) {
            Some(Held { view, staleness, truth }) => {
                result.held.get_or_insert_with(HeldStats::default);
                (view, Some((staleness, truth)))
            }
            None => (encoder.expected(snapshot).unwrap_or_else(|| snapshot.clone()), None),
        };
        expected.push_back((frame, want, held, encoder.young()));
        let now = ticks.and_then(|t| t.get(i).copied()).unwrap_or(i as f64);
        down.send(now, &packet);
        for arrived in down.receive(now) {
            let t = Instant::now();
            let outcome = decoder.decode(&arrived, &mut decoded);
            let elapsed = t.elapsed();
            match outcome {
                Ok(f) => {
                    result.decode.push(elapsed);
                    // Packets arrive in the order sent: older frames were decoded or lost.
                    while expected.front().is_some_and(|(e, ..)| *e < f) {
                        expected.pop_front();
                    }
                    // A young entity whose entry the decoder did not decode is not shown.
                    let sent = expected.iter().find(|(e, ..)| *e == f).map(|(_, s, r, young)| {
                        let lost = |h: u32| {
                            young.iter().any(|&(y, e)| y == h && !decoded_frames.contains(&e))
                        };
                        without_young(s, r, young.iter().any(|&(y, _)| lost(y)).then_some(lost))
                    });
                    decoded_frames.insert(f);
                    decoded_frames = decoded_frames.split_off(&f.saturating_sub(64));
                    if let Some((_, recorded)) = sent.filter(|(s, _)| *s == decoded) {
                        result.verified_frames += 1;
                        if let (Some(stats), Some((staleness, truth))) =
                            (&mut result.held, recorded)
                            && f as usize >= config.warmup
                        {
                            if decoder.shown(&mut shown, &mut ages) {
                                stats.add(setup.schema, &shown, &ages, &truth);
                            } else {
                                stats.add(setup.schema, &decoded, &staleness, &truth);
                            }
                        }
                    } else {
                        result.mismatches += 1;
                        result.first_error.get_or_insert_with(|| {
                            format!("frame {f} decoded to a different snapshot")
                        });
                    }
                    if let Some(ack) = decoder.ack() {
                        let mut b = [0u8; Ack::MAX_LEN];
                        if let Ok(len) = ack.write(&mut b) {
                            up.send(now, &b[..len]);
                        }
                    }
                }
                Err(e) => {
                    result.mismatches += 1;
                    result.first_error.get_or_insert_with(|| e.to_string());
                }
            }
        }
        for bytes in up.receive(now) {
            if let Ok(ack) = Ack::read(&bytes) {
                encoder.receive_ack(&ack);
            }
        }
        progress(i + 1);
    }
    result.server_memory = encoder.memory_bytes();
    result.client_memory = decoder.memory_bytes();
    // The record log counts delays in frames of the packets; each reached the client a
    // one-way latency after it was sent.
    result.records = encoder.records().map(|mut r| {
        r.delays.splice(0..0, std::iter::repeat_n(0, config.latency as usize));
        r
    });
    Ok(result)
}
