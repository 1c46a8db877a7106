//! The server's side of inputs: each tick, every client's input of the frame about to be
//! captured, as messages the game's systems read.

use bevy_app::{App, PostUpdate};
use bevy_ecs::prelude::*;
use netschema::Protocol;
use netschema::engine::input::Source;

use super::CarriedInput;
use crate::plugin::NetschemaSystems;
use crate::server::NsServer;

/// One client's input for one tick, on the server: written in [`NetschemaSystems::Input`] on
/// every replicon server tick, once per connected client, for game systems in
/// [`NetschemaSystems::Apply`] to read with a `MessageReader`.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct NsClientInput<I: CarriedInput> {
    /// The replicon client entity (the one with `ConnectedClient` and [`crate::NsPeer`]).
    pub client: Entity,
    /// The tick: the netschema frame this tick captures, and the tick to give
    /// [`NsServer::seen_by`] to judge the input on what the client showed.
    pub tick: u32,
    /// The input.
    pub input: I,
    /// Whether it is the client's own input for the tick ([`Source::Received`]), or stands in
    /// for one that is missing or late: the last one repeated ([`Source::Repeated`]), or the
    /// defaults before any ([`Source::Default`]).
    pub source: Source,
}

/// Registers the message and the system that writes it.
pub(super) fn register<P: Protocol, I: CarriedInput>(app: &mut App) {
    app.add_message::<NsClientInput<I>>()
        .add_systems(PostUpdate, take::<P, I>.in_set(NetschemaSystems::Input));
}

/// Takes every client's input of the frame the tick captures.
fn take<P: Protocol, I: CarriedInput>(
    mut ns: ResMut<NsServer<P>>,
    mut inputs: MessageWriter<NsClientInput<I>>,
) {
    let ns = &mut *ns;
    let tick = ns.server.frame().map_or(0, |f| f.wrapping_add(1));
    for (&client, &entity) in &ns.peers {
        if let Ok(taken) = ns.server.take::<I>(client, tick) {
            let (input, source) = (taken.value, taken.source);
            inputs.write(NsClientInput { client: entity, tick, input, source });
        }
    }
}
