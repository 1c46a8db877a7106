//! The client's side of play: what it shows (interpolated between the frames it decodes), the
//! bot's input pushed for every tick its synchronisation gives, each with the render time it
//! was chosen at, and the client's own judgement of every shot it fires.

use std::collections::BTreeMap;

use netschema::owned::{Client, Interpolator};

use crate::bot::Bot;
use crate::game::{self, Fleet, Pilot, Ship};

/// Frames the view runs behind the newest frame decoded: covers a few percent of loss.
const DELAY: u32 = 3;
/// Most ticks pushed at once, when the client fell behind.
const CATCH_UP: u32 = 8;
/// Shots whose judgement the client keeps, the newest.
const KEPT: usize = 512;

/// Counts of what the client's inputs did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Played {
    /// Inputs pushed.
    pub(crate) inputs: u64,
    /// Shots fired.
    pub(crate) shots: u64,
    /// Shots that hit a ship in what the client showed when it fired.
    pub(crate) hits: u64,
    /// Decoded frames in which the client's own pilot had moved or turned since the frame
    /// before.
    pub(crate) moves: u64,
}

impl Played {
    /// What changed since `earlier`.
    pub(crate) fn since(self, earlier: Played) -> Played {
        Played {
            inputs: self.inputs - earlier.inputs,
            shots: self.shots - earlier.shots,
            hits: self.hits - earlier.hits,
            moves: self.moves - earlier.moves,
        }
    }
}

/// One connection's play.
pub(crate) struct Player {
    view: Interpolator<Fleet>,
    bot: Bot,
    /// The newest tick whose input was pushed.
    pushed: Option<u32>,
    /// The client's own pilot at the frame decoded last.
    own: Option<Pilot>,
    /// The ship each recent shot hit in what the client showed, by tick.
    shots: BTreeMap<u32, Option<u16>>,
}

impl Player {
    /// Play for a client of `handles` handles.
    pub(crate) fn new(handles: usize) -> Self {
        Player {
            view: Interpolator::new(handles, DELAY),
            bot: Bot::default(),
            pushed: None,
            own: None,
            shots: BTreeMap::new(),
        }
    }

    /// Takes the frame `client` just decoded.
    pub(crate) fn record(&mut self, client: &Client<Fleet>, played: &mut Played) {
        self.view.record(client);
        let own = client.iter::<Pilot>().find(|&(handle, _)| client.is_own(handle));
        let own = own.map(|(_, pilot)| pilot);
        played.moves += u64::from(self.own.is_some() && own.is_some() && own != self.own);
        self.own = own;
    }

    /// The client's own pilot and the ships, as it shows them now.
    fn shown(&self, client: &Client<Fleet>) -> Option<(Pilot, Vec<Ship>)> {
        let own = self.view.iter::<Pilot>().find(|&(handle, _)| client.is_own(handle))?.1;
        Some((own, self.view.iter::<Ship>().map(|(_, ship)| ship).collect()))
    }

    /// Moves the view on by `frames` and pushes the bot's input for every tick due at local
    /// time `now_us`, noting the render time it was chosen at; returns whether it pushed any.
    pub(crate) fn play(
        &mut self,
        client: &mut Client<Fleet>,
        frames: f32,
        now_us: u64,
        played: &mut Played,
    ) -> netschema::Result<bool> {
        self.view.advance(frames);
        client.set_render_time(self.view.render_time())?;
        let Some(due) = client.input_tick(now_us) else { return Ok(false) };
        // Ticks may skip: after a stall only the newest few are worth sending.
        let first = self.pushed.map_or(due, |p| (p + 1).max(due.saturating_sub(CATCH_UP)));
        if first > due {
            return Ok(false);
        }
        let shown = self.shown(client);
        for tick in first..=due {
            let helm = match &shown {
                Some((own, ships)) => self.bot.helm(own, ships.iter().copied()),
                None => game::Helm::default(),
            };
            client.push(tick, &helm)?;
            played.inputs += 1;
            if let (true, Some((own, ships))) = (helm.fire, &shown) {
                let hit = game::aim(own, ships.iter().copied());
                played.shots += 1;
                played.hits += u64::from(hit.is_some());
                self.shots.insert(tick, hit);
            }
        }
        while self.shots.len() > KEPT {
            self.shots.pop_first();
        }
        self.pushed = Some(due);
        Ok(true)
    }

    /// The ship the shot fired at `tick` hit in what the client showed; `None` if it fired
    /// none then (or it is no longer kept).
    pub(crate) fn shot(&self, tick: u32) -> Option<Option<u16>> {
        self.shots.get(&tick).copied()
    }
}
