//! The players' pilots on the server: each frame a pilot takes its player's input of that
//! frame (the last one repeated when it is missing or late, as the input buffer's policy
//! says), moves, and has its shots judged against the world as its player saw it.

use netschema::engine::input::Source;
use netschema::owned::{ClientId, Server};

use crate::game::{self, Fleet, Helm, Pilot, Ship};

/// The world id of the first pilot: ships take the ids below it.
pub(crate) const FIRST: u64 = 1 << 32;

/// Counts of what became of players' inputs and shots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct InputCounts {
    /// Frames a player's own input for the frame steered its pilot.
    pub(crate) applied: u64,
    /// Frames whose input had not arrived: the last one stood in.
    pub(crate) repeated: u64,
    /// Inputs that arrived after their frame had been played.
    pub(crate) late: u64,
    /// Shots judged against the world as their player saw it.
    pub(crate) shots: u64,
    /// Shots that could not be: no render time came with the input.
    pub(crate) unjudged: u64,
    /// Judged shots that hit a ship.
    pub(crate) hits: u64,
    /// Judged shots that would have hit one in the server's current world, without rewind.
    pub(crate) hits_now: u64,
}

impl InputCounts {
    /// What changed since `earlier`.
    pub(crate) fn since(self, earlier: InputCounts) -> InputCounts {
        InputCounts {
            applied: self.applied - earlier.applied,
            repeated: self.repeated - earlier.repeated,
            late: self.late - earlier.late,
            shots: self.shots - earlier.shots,
            unjudged: self.unjudged - earlier.unjudged,
            hits: self.hits - earlier.hits,
            hits_now: self.hits_now - earlier.hits_now,
        }
    }
}

/// A shot the server judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shot {
    /// Whose.
    pub(crate) client: ClientId,
    /// The tick of the input that fired it.
    pub(crate) tick: u32,
    /// The ship it hit in the world as its player saw it ([`Server::seen_by`]), by id.
    pub(crate) hit: Option<u16>,
    /// The ship it would have hit in the server's current world.
    pub(crate) hit_now: Option<u16>,
}

/// What the fleet's courses are computed from: the world's seed and its ships.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Course {
    /// The world's seed.
    pub(crate) seed: u64,
    /// Ships in the world.
    pub(crate) ships: u16,
}

/// A player's pilot.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Piloted {
    /// Its world id.
    pub(crate) id: u64,
    /// Where it is.
    pub(crate) ship: Pilot,
    /// Whether it has yet to be shown to the players (and they to it).
    pub(crate) fresh: bool,
    /// The receiver's count of late inputs when last read.
    late: u32,
}

impl Piloted {
    /// The pilot of the `n`-th player to join (0 first).
    pub(crate) fn new(n: u64) -> Self {
        Piloted { id: FIRST + n, ship: game::spawn(n), fresh: true, late: 0 }
    }

    /// One frame: takes `client`'s input of `frame`, judges its shot if it fired, moves the
    /// pilot and sets it in the world.
    pub(crate) fn fly(
        &mut self,
        server: &mut Server<Fleet>,
        fleet: Course,
        frame: u32,
        client: ClientId,
        counts: &mut InputCounts,
    ) -> netschema::Result<Option<Shot>> {
        let taken = server.take::<Helm>(client, frame)?;
        let helm = taken.value;
        let received = taken.source == Source::Received;
        counts.applied += u64::from(received);
        counts.repeated += u64::from(!received);
        let late = server.input_stats(client)?.buffer.late;
        counts.late += u64::from(late.wrapping_sub(self.late));
        self.late = late;
        let shot = if received && helm.fire {
            self.judge(server, fleet, frame, client, counts)?
        } else {
            None
        };
        self.ship = game::steer(self.ship, helm);
        server.set(self.id, &self.ship)?;
        Ok(shot)
    }

    /// Judges the shot `client` fired at `tick` on the world as it saw it then, its own pilot
    /// included; `None` if no render time came with the input.
    fn judge(
        &self,
        server: &mut Server<Fleet>,
        fleet: Course,
        tick: u32,
        client: ClientId,
        counts: &mut InputCounts,
    ) -> netschema::Result<Option<Shot>> {
        let now = (0..fleet.ships).filter_map(|id| game::ship(fleet.seed, id, tick));
        let hit_now = game::aim(&self.ship, now);
        let hit = server.seen_by(client, tick)?.and_then(|mut seen| {
            let shooter = seen.get::<Pilot>(self.id)?;
            let ships: Vec<Ship> = seen.iter::<Ship>().map(|(_, ship)| ship).collect();
            Some(game::aim(&shooter, ships))
        });
        let Some(hit) = hit else {
            counts.unjudged += 1;
            return Ok(None);
        };
        counts.shots += 1;
        counts.hits += u64::from(hit.is_some());
        counts.hits_now += u64::from(hit_now.is_some());
        Ok(Some(Shot { client, tick, hit, hit_now }))
    }
}
