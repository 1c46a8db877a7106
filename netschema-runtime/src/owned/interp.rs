//! Client interpolation: what a client renders between the samples it received.

use core::fmt;
use core::marker::PhantomData;

use super::client::Client;
use super::rewind::blends;
use super::sight::RenderTime;
use crate::blend::{Blend, ONE, blend_row};
use crate::{ClassOf, Protocol};

/// Longest render delay, in frames ([`Interpolator::new`] takes no more).
pub const MAX_DELAY: u32 = 32;

/// Frames the render clock may fall behind its place (the newest frame less the delay) before
/// it jumps there instead of catching up.
pub const RESYNC: u32 = 4;

/// Samples kept per handle beyond the delay: enough to bracket the clock wherever
/// [`RESYNC`] lets it be (up to `delay + RESYNC` frames behind the newest, and a frame older).
const SPARE: usize = RESYNC as usize + 2;

/// One tick of the render clock is `1 / ONE` of a frame.
const TICK: i64 = ONE as i64;

/// The samples kept of the entity at one handle: a ring of at most `capacity`, oldest first.
#[derive(Clone, Copy, Debug, Default)]
struct Track {
    /// Its class.
    class: usize,
    /// The frame its handle got it (see [`crate::engine::client::Sample`]).
    born: u32,
    /// Where the oldest sample is in the ring.
    head: usize,
    /// How many samples the ring holds.
    len: usize,
    /// Whether the client's current view has the entity. An entity can be missing from a
    /// view and come back (an entering entity that a byte budget made wait again after a
    /// lost packet): its samples are kept meanwhile.
    present: bool,
}

/// The entities of a [`Client`] at a render time a little behind the newest frame it decoded,
/// blended between the two samples around that time.
///
/// A jitter buffer: each entity's values are kept as samples keyed by the frame at which the
/// server's world had them (its *source* frame: under a byte budget an entity can show values
/// older than the packet, see [`Client::age`]), and a render clock runs `delay` frames behind
/// the newest frame decoded, so that a late or lost packet still finds a sample after the
/// render time. Per frame:
///
/// - after every packet the client accepts, [`Interpolator::record`] takes the new samples;
/// - every rendered frame, [`Interpolator::advance`] moves the clock by the frame time (in
///   server frames: seconds × tick rate);
/// - [`Interpolator::get`], [`Interpolator::entity`] and [`Interpolator::iter`] give each
///   entity at the render time.
///
/// # What an entity shows
///
/// - **Between two samples** (source frames `a < b`, render time `r`): the blend
///   `t = ⌊(r − a)·65536 / (b − a)⌋ / 65536` of the way from `a`'s values to `b`'s, each field by
///   its kind ([`crate::blend`]: linear for `fixed`, the short way round for angles, normalised
///   lerp for quaternions, a step for ints, bools and enums), on raw values, so results stay on
///   the field's grid. Missing frames make the gap wider, not the blend different.
/// - **At a sample's frame**: exactly that sample's values, as the client decoded them.
/// - **Update groups**: a sample is keyed by the source frame of its class's default group;
///   fields of a slower group change in the sample where the client got them, so they are
///   blended over that one gap (and ints, bools and enums step there).
/// - **After the newest sample**: the newest sample, held. There is no extrapolation: the
///   limit is zero frames, as guessing past the data overshoots every stop and bounce; the
///   delay is what covers late packets. A sample older than the newest one kept is ignored
///   (the client's own view can step back to values it held longer than the frames it keeps),
///   so what an entity shows never steps back in time.
/// - **Before the oldest sample** (an entity that has just entered, or a clock far behind):
///   the oldest sample.
/// - An entity is shown while the client's view has it: entering and leaving are not delayed.
///   A new entity at a handle another one left (even between two packets received) starts
///   over and is never blended with the old one; the same entity back in the view after a
///   few frames out of it (an entering entity that a byte budget made wait again) keeps its
///   samples.
///
/// # The clock
///
/// The first [`Interpolator::record`] sets the render time to the newest frame less `delay`.
/// [`Interpolator::advance`] moves it by the frames given, 1/8 faster while it is more than a
/// frame behind that place and 1/8 slower while more than a frame ahead, so it settles
/// without jumps; it never passes the newest frame decoded (entities hold while packets are
/// late), and when it falls more than [`RESYNC`] frames behind its place (a long stall, a game
/// that stopped advancing) the next record puts it back there.
///
/// # Cost
///
/// Storage for `delay + 6` samples of every handle is allocated once, by
/// [`Interpolator::new`]; recording and advancing allocate nothing and cost one blend per
/// entity.
pub struct Interpolator<P: Protocol> {
    delay: u32,
    /// Samples per handle.
    capacity: usize,
    /// Values per row: the schema's largest class.
    stride: usize,
    /// How each field of each class blends.
    blends: Vec<Vec<Blend>>,
    tracks: Vec<Track>,
    /// Source frame of each sample, `capacity` per handle.
    frames: Vec<u32>,
    /// Raw values of each sample, `capacity × stride` per handle.
    rows: Vec<i32>,
    /// Raw values of each handle at the render time, `stride` per handle.
    shown: Vec<i32>,
    /// The newest frame recorded.
    newest: Option<u32>,
    /// How far the render time is behind `newest`, in ticks of `1 / ONE` frame.
    behind: i64,
    _schema: PhantomData<fn() -> P>,
}

impl<P: Protocol> fmt::Debug for Interpolator<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Interpolator")
            .field("schema", &P::SCHEMA.name)
            .field("handles", &self.tracks.len())
            .field("delay", &self.delay)
            .field("time", &self.time())
            .finish_non_exhaustive()
    }
}

impl<P: Protocol> Interpolator<P> {
    /// An interpolator for a client of `handles` handles ([`Client::handles`]) that renders
    /// `delay` frames behind the newest frame decoded (at most [`MAX_DELAY`]; larger values
    /// count as it). A delay of 0 shows the newest values; each frame of delay covers a frame
    /// of late or lost packets, at the cost of showing everything a frame later. Two or three
    /// frames suit links that lose a few percent.
    pub fn new(handles: usize, delay: u32) -> Self {
        let delay = delay.min(MAX_DELAY);
        let capacity = delay as usize + SPARE;
        let schema = P::SCHEMA;
        let stride = schema.max_fields;
        let blends = blends(schema);
        Interpolator {
            delay,
            capacity,
            stride,
            blends,
            tracks: vec![Track::default(); handles],
            frames: vec![0; handles * capacity],
            rows: vec![0; handles * capacity * stride],
            shown: vec![0; handles * stride],
            newest: None,
            behind: 0,
            _schema: PhantomData,
        }
    }

    /// The render delay in frames.
    pub fn delay(&self) -> u32 {
        self.delay
    }

    /// The render time: the frame at or before it (numbered as on the server) and how far
    /// past that frame it is, in `[0, 1)`; `None` before the first [`Interpolator::record`].
    pub fn time(&self) -> Option<(u32, f64)> {
        let t = self.render_time()?;
        Some((t.frame, f64::from(t.past) / TICK as f64))
    }

    /// The render time exactly, with the newest frame recorded: what to give
    /// [`Client::set_render_time`] so that the server can rewind to what this shows
    /// ([`Server::seen_by`](super::Server::seen_by)). `None` before the first
    /// [`Interpolator::record`].
    pub fn render_time(&self) -> Option<RenderTime> {
        let newest = self.newest?;
        let (frames, ticks) = (self.behind.div_euclid(TICK), self.behind.rem_euclid(TICK));
        let (frame, past) = match ticks {
            0 => (frames, 0),
            t => (frames + 1, TICK - t),
        };
        Some(RenderTime { frame: newest.wrapping_sub(frame as u32), past: past as u16, newest })
    }

    /// Takes the samples of the packet `client` just accepted (call it after every
    /// successful [`Client::decode`]; calling it again changes nothing): each entity's
    /// values at their source frame, and which entities left or entered.
    pub fn record(&mut self, client: &Client<P>) {
        let Some(frame) = client.frame() else {
            return;
        };
        let place = i64::from(self.delay) * TICK;
        self.behind = match self.newest {
            Some(old) => self.behind + i64::from(frame.wrapping_sub(old) as i32) * TICK,
            None => place,
        };
        if !(0..=place + i64::from(RESYNC) * TICK).contains(&self.behind) {
            self.behind = place;
        }
        self.newest = Some(frame);
        for h in 0..self.tracks.len() {
            match client.sample(h as u32) {
                Some(s) => self.push(h, s.class, s.born, s.source, s.row),
                None => self.tracks[h].present = false,
            }
        }
        self.refresh();
    }

    /// Moves the render clock by `frames` (the frame time in server frames: seconds × the
    /// server's tick rate), adjusted as [the clock](Interpolator#the-clock) says; negative,
    /// NaN and infinite times count as 0.
    pub fn advance(&mut self, frames: f32) {
        let ticks = if frames.is_finite() && frames > 0.0 {
            (f64::from(frames) * TICK as f64).round().min(i64::MAX as f64 / 2.0) as i64
        } else {
            0
        };
        let off = self.behind - i64::from(self.delay) * TICK;
        let ticks = match off {
            _ if off > TICK => ticks + ticks / 8,
            _ if off < -TICK => ticks - ticks / 8,
            _ => ticks,
        };
        self.behind = self.behind.saturating_sub(ticks).max(0);
        self.refresh();
    }

    /// Adds a sample of the entity at handle `h`, or starts its samples over if another entity
    /// took the handle.
    fn push(&mut self, h: usize, class: usize, born: u32, source: u32, row: &[i32]) {
        let cap = self.capacity;
        let track = &mut self.tracks[h];
        track.present = true;
        let slot = if track.len == 0 || track.born != born || track.class != class {
            *track = Track { class, born, head: 0, len: 1, present: true };
            0
        } else {
            let newest = (track.head + track.len - 1) % cap;
            match source.wrapping_sub(self.frames[h * cap + newest]) as i32 {
                ..0 => return,
                0 => newest,
                _ if track.len < cap => {
                    track.len += 1;
                    (track.head + track.len - 1) % cap
                }
                _ => {
                    let oldest = track.head;
                    track.head = (oldest + 1) % cap;
                    oldest
                }
            }
        };
        self.frames[h * cap + slot] = source;
        let at = (h * cap + slot) * self.stride;
        self.rows[at..at + row.len()].copy_from_slice(row);
    }

    /// Blends every entity at the render time into `shown`.
    fn refresh(&mut self) {
        let Some(newest) = self.newest else {
            return;
        };
        let (cap, stride) = (self.capacity, self.stride);
        for (h, track) in self.tracks.iter().enumerate() {
            if !track.present {
                continue;
            }
            let fields = P::SCHEMA.classes[track.class].fields;
            let sample = |k: usize| {
                let slot = (track.head + k) % cap;
                let at = (h * cap + slot) * stride;
                let behind = i64::from(newest.wrapping_sub(self.frames[h * cap + slot])) * TICK;
                (behind, &self.rows[at..at + fields.len()])
            };
            // The newest sample at or before the render time, and the one after it.
            let (a, b) = match (0..track.len).rev().find(|&k| sample(k).0 >= self.behind) {
                Some(k) if k + 1 < track.len => (sample(k), sample(k + 1)),
                Some(k) => (sample(k), sample(k)),
                None => (sample(0), sample(0)),
            };
            // `0 <= a.0 - behind < gap`: `t < ONE`, in 128 bits for samples any age apart.
            let t = match a.0 - b.0 {
                0 => 0,
                gap => (i128::from(a.0 - self.behind) * i128::from(TICK) / i128::from(gap)) as u32,
            };
            let out = &mut self.shown[h * stride..h * stride + fields.len()];
            blend_row(fields, &self.blends[track.class], a.1, b.1, t, out);
        }
    }

    /// The raw values of the entity at `handle` at the render time, with its class.
    fn shown(&self, handle: u32) -> Option<(usize, &[i32])> {
        let track = self.tracks.get(handle as usize).filter(|t| t.present)?;
        let at = handle as usize * self.stride;
        let len = P::SCHEMA.classes[track.class].fields.len();
        Some((track.class, &self.shown[at..at + len]))
    }

    /// The entity at `handle` at the render time, if it is a `C`.
    pub fn get<C: ClassOf<P>>(&self, handle: u32) -> Option<C> {
        match self.shown(handle)? {
            (class, raw) if class == C::INDEX => Some(C::dequantise(raw)),
            _ => None,
        }
    }

    /// The entity at `handle` at the render time, whatever its class.
    pub fn entity(&self, handle: u32) -> Option<P> {
        let (class, raw) = self.shown(handle)?;
        P::dequantise(class, raw)
    }

    /// Every entity of class `C` at the render time, by handle.
    pub fn iter<C: ClassOf<P>>(&self) -> impl Iterator<Item = (u32, C)> + use<'_, P, C> {
        (0..self.tracks.len() as u32).filter_map(|h| Some((h, self.get::<C>(h)?)))
    }
}
