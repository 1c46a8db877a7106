//! The client's side of inputs: the game sets [`NsInput`], and each update the plugin pushes
//! it for every tick due and sends the up frame.

use bevy_app::{App, PostUpdate};
use bevy_ecs::prelude::*;
use bevy_replicon::bytes::Bytes;
use bevy_replicon::prelude::{ClientState, ClientSystems};
use bevy_state::prelude::in_state;
use bevy_time::{Real, Time};
use netschema::Protocol;
use netschema::engine::input::MAX_INPUT_FIELDS;
use netschema::owned::UP_HEADER;

use super::CarriedInput;
use crate::client::NsClient;
use crate::messages::NsAck;

/// Where a client's input work runs in `PostUpdate`, in this order, before replicon's
/// [`ClientSystems::Send`].
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NetschemaClientSystems {
    /// Free for the game's systems that set [`NsInput`] (they may as well run earlier, in
    /// `Update`).
    Input,
    /// While connected: [`NsInput`] pushed for every tick due since the last update, with
    /// what the client shows now, and the up frame (ack, render times, inputs) sent.
    Send,
}

/// The input a client sends, on the client: the game sets it, and each update the plugin
/// sends it for every server tick that came due (usually one; none, or several, when the
/// client's updates run faster or slower than the server's ticks). Until the game sets it,
/// each field holds its value nearest 0. A value outside its field's range is clamped.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct NsInput<I: CarriedInput>(pub I);

impl<I: CarriedInput> Default for NsInput<I> {
    fn default() -> Self {
        let mut raw = [0; MAX_INPUT_FIELDS];
        I::CLASS.zero_row(&mut raw);
        NsInput(I::dequantise(&raw[..I::CLASS.fields.len().min(MAX_INPUT_FIELDS)]))
    }
}

/// Room for the input datagram of an up frame: the inputs of a few dozen ticks.
const INPUTS_ROOM: usize = 512;
/// Most ticks pushed in one update: after a stall, only the newest are worth sending.
const CATCH_UP: u32 = 8;

/// Registers the resource, the sets and the system that sends.
pub(super) fn register<P: Protocol, I: CarriedInput>(app: &mut App) {
    app.init_resource::<NsInput<I>>()
        .configure_sets(
            PostUpdate,
            (NetschemaClientSystems::Input, NetschemaClientSystems::Send)
                .chain()
                .before(ClientSystems::Send),
        )
        .add_systems(
            PostUpdate,
            send::<P, I>
                .in_set(NetschemaClientSystems::Send)
                .run_if(in_state(ClientState::Connected)),
        );
}

/// Pushes the input for every tick due, noting what the client shows (its interpolator's
/// render time, or the newest frame), and sends the up frame if it pushed any or a packet
/// came since the last one.
fn send<P: Protocol, I: CarriedInput>(
    mut ns: ResMut<NsClient<P>>,
    input: Res<NsInput<I>>,
    time: Res<Time<Real>>,
    mut up: MessageWriter<NsAck>,
) {
    let now_us = time.elapsed().as_micros() as u64;
    let ns = &mut *ns;
    let shown = ns.render_time();
    let Some(client) = &mut ns.client else { return };
    let _ = client.set_render_time(shown);
    let due = client.input_tick(now_us);
    let pushed = match (due, ns.inputs.pushed) {
        (Some(due), pushed) if pushed.is_none_or(|p| p < due) => {
            let first = pushed.map_or(due, |p| (p + 1).max(due.saturating_sub(CATCH_UP)));
            ns.inputs.pushed = Some(due);
            (first..=due).all(|tick| client.push(tick, &input.0).is_ok())
        }
        _ => false,
    };
    if !pushed && !ns.inputs.ack_due {
        return;
    }
    ns.inputs.ack_due = false;
    let mut frame = [0; UP_HEADER + INPUTS_ROOM];
    match client.write(now_us, &mut frame) {
        Ok(n) => {
            up.write(NsAck(Bytes::copy_from_slice(&frame[..n])));
        }
        Err(e) => log::warn!("netschema could not write the up frame: {e}"),
    }
}
