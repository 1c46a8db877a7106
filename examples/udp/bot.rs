//! The scripted player a client runs so that the example plays unattended: it steers its pilot
//! toward the nearest ship it shows and fires when that ship is in its sights.

use crate::game::{self, Helm, Pilot, RANGE, Ship};

/// Frames between two shots at least.
const RELOAD: u32 = 15;
/// Radians off the target's bearing within which the bot holds its heading.
const STEADY: f32 = 0.02;
/// Metres from the target within which the bot stops pushing forward.
const CLOSE: f32 = 150.0;

/// The bot: what it remembers between ticks.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Bot {
    /// Ticks until it may fire again.
    reload: u32,
}

impl Bot {
    /// The input for the next tick, from the client's own `pilot` and the `ships` it shows.
    pub(crate) fn helm(&mut self, pilot: &Pilot, ships: impl IntoIterator<Item = Ship>) -> Helm {
        let distance = |s: &Ship| (s.pos[0] - pilot.pos[0]).hypot(s.pos[1] - pilot.pos[1]);
        let nearest = ships.into_iter().min_by(|a, b| distance(a).total_cmp(&distance(b)));
        self.reload = self.reload.saturating_sub(1);
        let Some(target) = nearest else { return Helm::default() };
        let (dx, dy) = (target.pos[0] - pilot.pos[0], target.pos[1] - pilot.pos[1]);
        let off = game::wrap(dy.atan2(dx) - pilot.heading);
        let turn = if off.abs() <= STEADY { 0 } else { off.signum() as i8 };
        let fire = self.reload == 0 && off.abs() < 0.1 && distance(&target) < RANGE;
        if fire {
            self.reload = RELOAD;
        }
        Helm { turn, thrust: distance(&target) > CLOSE, fire }
    }
}
