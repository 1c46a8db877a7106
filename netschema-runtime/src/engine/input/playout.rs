//! The target delay and the tick the receiver takes next.
//!
//! The receiver's clock counts its calls of
//! [`InputReceiver::take_next`](crate::engine::input::InputReceiver::take_next), one per server
//! tick. Each datagram accepted gives a
//! *transit*: the clock less the datagram's newest input tick (a constant offset apart, how
//! long its newest input took to arrive). The *jitter* `J` is the running mean of how much
//! consecutive transits differ, `J += (|Δtransit| − J) / 16` (RFC 3550's interarrival
//! jitter), in sixteenths of a tick. The *target delay* is how many ticks the tick taken
//! should run behind the newest input received: `⌈5J/2⌉ + 1` ticks (delays spread evenly
//! over a width `w` give `J = w/3`, and the newest input received trails the clock by up to
//! the width), between 1 and [`MAX_DELAY`]; it moves only once that value is half a tick
//! away from it.
//!
//! The *lead* is how far the newest input received is ahead of the tick taken, averaged over
//! about 16 takes. The receiver takes the next tick while the lead stays within a tick of the
//! target. When it is more than a tick above (inputs wait longer than needed), it passes over
//! one tick (a *skip*: its input is counted skipped); when more than a tick below (inputs
//! arrive too late), it takes no new tick (a *stall*: the last input stands in). Once tick
//! synchronisation has the client run its ticks ahead by what the receiver needs, skips and
//! stalls become rare.

/// Most ticks of target delay.
pub const MAX_DELAY: u32 = 16;

/// Fractional bits of the jitter and the lead in [`PlayoutStats`].
const FRAC: u32 = 4;
const ONE: i32 = 1 << FRAC;
/// Fractional bits of the running means, so that steps below a tick still move them.
const FINE: u32 = 2 * FRAC;
/// The jitter is a running mean over about `2^JITTER_SHIFT` datagrams.
const JITTER_SHIFT: u32 = 6;

/// The target delay, its inputs and the adjustments made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayoutStats {
    /// Ticks the tick taken runs behind the newest input received, as the receiver aims.
    pub target: u32,
    /// Jitter of transits, in sixteenths of a tick.
    pub jitter: u32,
    /// Lead of the newest input received over the tick taken, averaged, in sixteenths of a
    /// tick.
    pub lead: i32,
    /// Ticks passed over because inputs waited longer than the target.
    pub skips: u32,
    /// Takes that repeated the last input because inputs came later than the target.
    pub stalls: u32,
}

impl PlayoutStats {
    /// The lead's error from the target, in sixteenths of a tick (positive: more delay than
    /// the target).
    pub fn error(&self) -> i32 {
        self.lead - self.target as i32 * ONE
    }
}

/// What the playout decides for a take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Take this tick.
    Take(u32),
    /// Take no new tick: repeat the last input.
    Stall,
}

/// The receiver's playout clock.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Playout {
    clock: u32,
    transit: Option<i32>,
    /// The jitter and the lead in 1/2^[`FINE`] ticks.
    jitter: i32,
    lead: i32,
    stats: PlayoutStats,
}

impl Playout {
    pub(crate) fn new() -> Playout {
        let stats = PlayoutStats { target: 2, ..PlayoutStats::default() };
        Playout { clock: 0, transit: None, jitter: 0, lead: 0, stats }
    }

    /// A datagram whose newest input is for `tick` arrived.
    pub(crate) fn arrived(&mut self, tick: u32) {
        let transit = self.clock.wrapping_sub(tick) as i32;
        if let Some(before) = self.transit {
            let d = (transit.wrapping_sub(before).unsigned_abs().min(1 << 16) as i32) << FINE;
            self.jitter += (d - self.jitter) >> JITTER_SHIFT;
        }
        self.transit = Some(transit);
        let s = &mut self.stats;
        s.jitter = (self.jitter >> (FINE - FRAC)) as u32;
        let needed = (5 * s.jitter).div_ceil(2) + ONE as u32;
        let target = s.target * ONE as u32;
        if needed > target + ONE as u32 / 2 || needed + (ONE as u32) < target {
            s.target = needed.div_ceil(ONE as u32).clamp(1, MAX_DELAY);
        }
    }

    /// The take at the receiver's next tick, given the next tick not yet taken (`next`) and
    /// the newest input received, if any.
    pub(crate) fn step(&mut self, next: Option<u32>, newest: Option<u32>) -> Option<Step> {
        self.clock = self.clock.wrapping_add(1);
        let newest = newest?;
        let first = next.is_none();
        let next = next.unwrap_or(newest.wrapping_sub(self.stats.target));
        self.measure(newest, next, first);
        let (target, tick) = ((self.stats.target as i32) << FINE, 1 << FINE);
        let s = &mut self.stats;
        let step = if self.lead > target + tick {
            self.lead -= tick;
            s.skips += 1;
            Step::Take(next.wrapping_add(1))
        } else if self.lead < target - tick {
            self.lead += tick;
            s.stalls += 1;
            Step::Stall
        } else {
            Step::Take(next)
        };
        s.lead = self.lead >> (FINE - FRAC);
        Some(step)
    }

    /// The game took `tick` itself, the first time if `first`: the clock advances and the
    /// lead is measured against `tick`, with no skip or stall.
    pub(crate) fn taken(&mut self, tick: u32, newest: Option<u32>, first: bool) {
        self.clock = self.clock.wrapping_add(1);
        if let Some(newest) = newest {
            self.measure(newest, tick, first);
            self.stats.lead = self.lead >> (FINE - FRAC);
        }
    }

    /// Averages in the lead of `newest` over `next`, or starts from it if `first`.
    fn measure(&mut self, newest: u32, next: u32, first: bool) {
        let lead = (newest.wrapping_sub(next) as i32).clamp(-(1 << 16), 1 << 16) << FINE;
        match first {
            true => self.lead = lead,
            false => self.lead += (lead - self.lead) >> FRAC,
        }
    }

    pub(crate) fn stats(&self) -> PlayoutStats {
        self.stats
    }
}
