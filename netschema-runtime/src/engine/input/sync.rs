//! Tick synchronisation: the client's estimate of the server's tick and of the round trip,
//! and the input tick it runs so that its inputs reach the server just before they are
//! taken.
//!
//! Times are the client's own clock in microseconds (any origin; never decreasing), a tick
//! lasts `tick_us` of them, and positions are kept in 1/[`SUB`] ticks. The server reports,
//! with the state it sends ([`Timing`]), its tick when it sent it and, once inputs arrive,
//! the newest input tick it received, the server tick during which that input arrived and
//! its receiver's target delay ([`Arrival`]). The client notes when it first sent each input
//! tick ([`TickSync::sent`]). From each report received at local time `t` ([`TickSync::received`]):
//!
//! - the *down offset* `frame − τ(t)`, where `τ(t) = t / tick_us` is the local time in ticks;
//! - for an arrival naming an input tick newer than any before, whose send time `s` is
//!   known: the *up offset* `at − τ(s)` (where a tick sent now lands on the server's clock)
//!   and a round trip `t − s` (which includes the server's wait for its next state);
//!
//! each a running mean over about 32 samples (the first sample starts it). The server's tick
//! at `t` is estimated as `τ(t) + down + rtt / 2` ([`TickSync::server_tick`]). The input tick
//! the client should push at `t` is `⌊τ(t) + shift⌋` ([`TickSync::input_tick`]), where the
//! *shift* follows `up + target + 1 + trim`: an input then arrives, on average, the target
//! delay and half a tick before the server's tick of the same number begins. Before any
//! arrival `down` stands in for `up`. The *trim* corrects what the up offset misses (the
//! newest input is often one that came fast; a drifting clock runs ahead of the means): each
//! report subtracts 1/256 of the receiver's error ([`Arrival::error`], its averaged lead less
//! its target) beyond a quarter of a tick, within ±16 ticks.
//!
//! The shift moves only when it is more than half a tick from where the estimates put it,
//! and then all the way (an *adjustment*: forward when the client must run further ahead,
//! back otherwise), so jitter rarely moves it and a clock that drifts by 1 % makes about one
//! adjustment of half a tick every 50 ticks. [`SyncStats`] shows the estimates, the last
//! error and the adjustments.

/// Fractions of a tick positions are kept in.
pub const SUB: i64 = 256;
/// Input ticks whose send time is kept.
const SENT: usize = 64;
/// Running means are over about `2^MEAN_SHIFT` samples.
const MEAN_SHIFT: u32 = 5;
/// Each report moves the trim by `1/2^TRIM_SHIFT` of the receiver's error beyond the
/// [`DEADBAND`].
const TRIM_SHIFT: u32 = 8;
/// Errors the trim leaves alone, in 1/[`SUB`] ticks.
const DEADBAND: i64 = SUB / 4;
/// The trim stays within this many ticks (in its units).
const MAX_TRIM: i64 = (16 * SUB) << TRIM_SHIFT;

/// What a server's state frame tells the client's tick synchronisation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    /// The server's tick (its frame) when it sent the state.
    pub frame: u32,
    /// How the client's inputs arrive, once any has.
    pub arrival: Option<Arrival>,
}

/// When the newest of a client's inputs reached the server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Arrival {
    /// The newest input tick the server received.
    pub newest: u32,
    /// The server's tick (its frame) during which it arrived.
    pub at: u32,
    /// The receiver's target delay, in ticks
    /// ([`PlayoutStats::target`](crate::engine::input::PlayoutStats::target)).
    pub target: u32,
    /// How far the receiver's lead runs above its target, in sixteenths of a tick
    /// ([`PlayoutStats::error`](crate::engine::input::PlayoutStats::error)).
    pub error: i32,
}

/// The estimates of a [`TickSync`] and the adjustments it made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SyncStats {
    /// Reports received ([`TickSync::received`]).
    pub reports: u32,
    /// Arrivals that gave an up offset and a round trip.
    pub arrivals: u32,
    /// The round trip, a running mean, in microseconds (0 before an arrival).
    pub rtt_us: u32,
    /// How far the input tick runs ahead of the estimated server tick, in sixteenths of a
    /// tick.
    pub lead: i32,
    /// The server's target delay last reported, in ticks.
    pub target: u32,
    /// Where the estimates put the shift less where it was, at the last report, in
    /// sixteenths of a tick (positive: the client ran too little ahead).
    pub error: i32,
    /// Adjustments that moved the input tick forward.
    pub forward: u32,
    /// Adjustments that moved it back.
    pub back: u32,
}

/// A running mean, `m += (x − m) / 2^MEAN_SHIFT`, kept with `MEAN_SHIFT` more bits.
#[derive(Clone, Copy, Debug, Default)]
struct Mean(Option<i64>);

impl Mean {
    fn add(&mut self, x: i64) {
        let x = x.wrapping_shl(MEAN_SHIFT);
        self.0 = Some(match self.0 {
            None => x,
            Some(m) => m.wrapping_add(x.wrapping_sub(m) >> MEAN_SHIFT),
        });
    }

    fn get(&self) -> Option<i64> {
        self.0.map(|m| m >> MEAN_SHIFT)
    }
}

/// The client's tick synchronisation: fed the times inputs are sent and the server's
/// [`Timing`] reports, it gives the server's tick and the input tick to run at any local time.
#[derive(Clone, Copy, Debug)]
pub struct TickSync {
    tick_us: u32,
    /// The local send time of recent input ticks, by tick modulo [`SENT`].
    sent: [(u32, u64); SENT],
    down: Mean,
    up: Mean,
    rtt: Mean,
    /// The newest input tick an arrival was measured for.
    measured: Option<u32>,
    /// The input tick's offset from local time, in 1/[`SUB`] ticks.
    shift: Option<i64>,
    /// The sum of the receiver's reported errors, in 1/[`SUB`] ticks `<< TRIM_SHIFT`.
    trim: i64,
    stats: SyncStats,
}

impl TickSync {
    /// A synchronisation for ticks of `tick_us` microseconds (at least 1).
    pub fn new(tick_us: u32) -> Self {
        TickSync {
            tick_us: tick_us.max(1),
            sent: [(u32::MAX, 0); SENT],
            down: Mean::default(),
            up: Mean::default(),
            rtt: Mean::default(),
            measured: None,
            shift: None,
            trim: 0,
            stats: SyncStats { target: 1, ..SyncStats::default() },
        }
    }

    /// Local time `now` in 1/[`SUB`] ticks.
    fn position(&self, now: u64) -> i64 {
        (i128::from(now) * i128::from(SUB) / i128::from(self.tick_us)) as i64
    }

    /// A datagram carrying the input of `tick` as its newest was sent at `now`; only the
    /// first send of a tick counts.
    pub fn sent(&mut self, tick: u32, now: u64) {
        let slot = &mut self.sent[tick as usize % SENT];
        if slot.0 != tick {
            *slot = (tick, now);
        }
    }

    /// Takes the server's report `timing`, received at `now`.
    pub fn received(&mut self, timing: &Timing, now: u64) {
        let here = self.position(now);
        self.down.add(i64::from(timing.frame) * SUB - here);
        self.stats.reports += 1;
        if let Some(arrival) = timing.arrival {
            self.stats.target = arrival.target;
            let error = i64::from(arrival.error.clamp(-(1 << 16), 1 << 16)) * (SUB / 16);
            let error = error - error.clamp(-DEADBAND, DEADBAND);
            self.trim = self.trim.wrapping_sub(error).clamp(-MAX_TRIM, MAX_TRIM);
            self.measure(&arrival, now);
        }
        self.steer();
    }

    /// Adds the up offset and round trip of `arrival`, if it names an input tick newer than
    /// any measured and sent recently.
    fn measure(&mut self, arrival: &Arrival, now: u64) {
        let newer = self.measured.is_none_or(|m| arrival.newest.wrapping_sub(m) as i32 > 0);
        let (tick, sent) = self.sent[arrival.newest as usize % SENT];
        if !newer || tick != arrival.newest || sent > now {
            return;
        }
        self.measured = Some(arrival.newest);
        self.up.add(i64::from(arrival.at) * SUB - self.position(sent));
        self.rtt.add((now - sent).min(u64::from(u32::MAX)) as i64);
        self.stats.arrivals += 1;
        self.stats.rtt_us = self.rtt.get().unwrap_or(0) as u32;
    }

    /// Moves the shift to where the estimates put it, if it is more than half a tick away.
    fn steer(&mut self) {
        let Some(offset) = self.up.get().or(self.down.get()) else { return };
        let ahead = i64::from(self.stats.target) * SUB + SUB + (self.trim >> TRIM_SHIFT);
        let wanted = offset.wrapping_add(ahead);
        let shift = *self.shift.get_or_insert(wanted);
        let error = wanted.wrapping_sub(shift);
        self.stats.error = (error / (SUB / 16)).clamp(i32::MIN.into(), i32::MAX.into()) as i32;
        if error.abs() > SUB / 2 {
            self.shift = Some(wanted);
            match error > 0 {
                true => self.stats.forward += 1,
                false => self.stats.back += 1,
            }
        }
        let server = self.server_offset().unwrap_or(0);
        let lead = self.shift.unwrap_or(0).wrapping_sub(server) / (SUB / 16);
        self.stats.lead = lead.clamp(i32::MIN.into(), i32::MAX.into()) as i32;
    }

    /// The server's tick less the local time, in 1/[`SUB`] ticks.
    fn server_offset(&self) -> Option<i64> {
        let half_rtt = self.position(self.rtt.get().unwrap_or(0).max(0) as u64) / 2;
        Some(self.down.get()?.wrapping_add(half_rtt))
    }

    /// The server's tick at local time `now`, as estimated; `None` before a report.
    pub fn server_tick(&self, now: u64) -> Option<u32> {
        let at = self.position(now).wrapping_add(self.server_offset()?);
        Some(at.div_euclid(SUB) as u32)
    }

    /// The tick whose input the client should push at local time `now`; `None` before a
    /// report.
    pub fn input_tick(&self, now: u64) -> Option<u32> {
        let at = self.position(now).wrapping_add(self.shift?);
        Some(at.div_euclid(SUB) as u32)
    }

    /// The estimates and the adjustments made.
    pub fn stats(&self) -> SyncStats {
        self.stats
    }
}
