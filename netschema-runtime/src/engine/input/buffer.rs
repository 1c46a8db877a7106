//! The receiver's inputs by tick, and what a tick gets when its input is missing, late or
//! comes twice.
//!
//! The buffer holds the inputs of [`BUFFER`] ticks from the next tick to take. Taking a tick
//! hands out its input once ([`Source::Received`]); an input that has not arrived is
//! replaced by the last input taken ([`Source::Repeated`], or [`Source::Default`] before any),
//! and counted missing. An input that arrives after its tick was taken, or passed over, is
//! dropped and counted late; one already held is ignored and counted duplicate (redundancy
//! makes this the common case); one [`BUFFER`] ticks or more ahead of the next tick to take is
//! dropped and counted ahead. Inputs passed over when the game takes a later tick are counted
//! skipped. So no input is handed out twice or out of order.

use crate::engine::input::MAX_INPUT_FIELDS;
use crate::engine::input::recent::Input;
use crate::schema::Class;

/// Ticks of inputs the receiver holds ahead of the next tick it takes.
pub const BUFFER: usize = 64;

/// Where the input a tick got comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The client's input for the tick, handed out for the first time.
    Received,
    /// The client's input for the tick has not arrived (or the tick was taken before): the
    /// last input taken stands in.
    Repeated,
    /// No input has been taken yet: each field's value nearest 0 stands in.
    Default,
}

/// The input a tick gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Taken {
    /// The tick.
    pub tick: u32,
    /// Where the values come from.
    pub source: Source,
    values: [i32; MAX_INPUT_FIELDS],
    len: usize,
}

impl Taken {
    /// The input's raw values, one per field.
    pub fn values(&self) -> &[i32] {
        &self.values[..self.len.min(MAX_INPUT_FIELDS)]
    }
}

/// How inputs fared in a receiver's buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferStats {
    /// Inputs stored.
    pub received: u32,
    /// Inputs that arrived again while held, or after being handed out or passed over:
    /// ignored.
    pub duplicates: u32,
    /// Inputs that arrived after their tick was taken without them: dropped.
    pub late: u32,
    /// Inputs [`BUFFER`] ticks or more ahead of the next tick to take: dropped.
    pub ahead: u32,
    /// Ticks taken whose input had not arrived: the last input repeated.
    pub missing: u32,
    /// Inputs held but passed over when a later tick was taken.
    pub skipped: u32,
}

/// What became of a buffer entry's input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// No input.
    Free,
    /// Waiting for its tick.
    Pending,
    /// Handed out, or passed over.
    Done,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    input: Input,
    state: State,
}

/// The inputs of the next [`BUFFER`] ticks, by tick modulo [`BUFFER`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Buffer {
    entries: [Entry; BUFFER],
    /// The next tick to take, once one was taken.
    next: Option<u32>,
    /// The values taken last, or the defaults.
    last: Taken,
    stats: BufferStats,
}

impl Buffer {
    /// An empty buffer for inputs of `class`.
    pub(crate) fn new(class: &Class) -> Buffer {
        let mut values = [0; MAX_INPUT_FIELDS];
        class.zero_row(&mut values);
        let len = class.fields.len();
        Buffer {
            entries: [Entry { input: Input::EMPTY, state: State::Free }; BUFFER],
            next: None,
            last: Taken { tick: 0, source: Source::Default, values, len },
            stats: BufferStats::default(),
        }
    }

    /// Stores `input` unless it is late, ahead or held already; returns whether it stored it.
    pub(crate) fn insert(&mut self, input: Input) -> bool {
        let tick = input.tick;
        if let Some(next) = self.next {
            let ahead = tick.wrapping_sub(next);
            if ahead as i32 >= 0 && ahead as usize >= BUFFER {
                self.stats.ahead += 1;
                return false;
            }
        }
        let entry = &mut self.entries[tick as usize % BUFFER];
        let passed = self.next.is_some_and(|next| (tick.wrapping_sub(next) as i32) < 0);
        if entry.state != State::Free && entry.input.tick == tick {
            self.stats.duplicates += 1;
            return false;
        }
        let newer_waits =
            entry.state == State::Pending && entry.input.tick.wrapping_sub(tick) as i32 > 0;
        if passed || newer_waits {
            // Its tick was taken without it, or (before the first take) a newer input holds
            // its place.
            self.stats.late += 1;
            return false;
        }
        *entry = Entry { input, state: State::Pending };
        self.stats.received += 1;
        true
    }

    /// Hands out the input of `tick` (see the module documentation) and passes over the
    /// inputs held for earlier ticks.
    pub(crate) fn take(&mut self, tick: u32) -> Taken {
        if self.next.is_some_and(|next| (tick.wrapping_sub(next) as i32) < 0) {
            self.stats.missing += 1;
            return self.stand_in(tick);
        }
        for entry in self.entries.iter_mut().filter(|e| e.state == State::Pending) {
            if (entry.input.tick.wrapping_sub(tick) as i32) < 0 {
                entry.state = State::Done;
                self.stats.skipped += 1;
            }
        }
        self.next = Some(tick.wrapping_add(1));
        let entry = &mut self.entries[tick as usize % BUFFER];
        if entry.state == State::Pending && entry.input.tick == tick {
            entry.state = State::Done;
            self.last.values = entry.input.values;
            self.last.source = Source::Received;
            return Taken { tick, ..self.last };
        }
        self.stats.missing += 1;
        self.stand_in(tick)
    }

    /// The input standing in for a tick whose own is missing: the last taken, repeated.
    pub(crate) fn stand_in(&self, tick: u32) -> Taken {
        let source = match self.last.source {
            Source::Default => Source::Default,
            _ => Source::Repeated,
        };
        Taken { tick, source, ..self.last }
    }

    /// The next tick to take, once one was taken.
    pub(crate) fn next(&self) -> Option<u32> {
        self.next
    }

    /// How inputs fared.
    pub(crate) fn stats(&self) -> BufferStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Field;

    const FIELDS: [Field; 1] = [Field::categorical("fire", 2)];
    const CLASS: Class = Class::new("in", &FIELDS);

    fn input(tick: u32, v: i32) -> Input {
        let mut values = [0; MAX_INPUT_FIELDS];
        values[0] = v;
        Input { tick, values }
    }

    #[test]
    fn missing_late_duplicate_and_ahead_inputs_follow_the_policy() {
        let mut b = Buffer::new(&CLASS);
        assert_eq!(b.take(1).source, Source::Default);
        assert!(b.insert(input(2, 1)) && !b.insert(input(2, 1)));
        let t = b.take(2);
        assert_eq!((t.source, t.values()), (Source::Received, &[1][..]));
        assert!(!b.insert(input(2, 1)), "taken: a duplicate");
        assert_eq!(b.take(3).source, Source::Repeated);
        assert!(!b.insert(input(3, 0)), "late");
        assert!(b.insert(input(5, 0)) && b.insert(input(6, 1)));
        assert!(!b.insert(input(4 + BUFFER as u32, 1)), "ahead");
        assert_eq!(b.take(6).values(), &[1], "5 passed over");
        assert_eq!(b.take(6).source, Source::Repeated, "a tick is handed out once");
        let s = b.stats();
        assert_eq!((s.received, s.duplicates, s.late, s.ahead), (3, 2, 1, 1));
        assert_eq!((s.missing, s.skipped), (3, 1));
    }
}
