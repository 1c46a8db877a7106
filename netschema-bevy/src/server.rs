//! The server's side of the plugin: its state as a resource, connections following replicon's
//! authorised clients, and acks coming back.

use std::collections::HashMap;

use bevy_ecs::prelude::*;
use bevy_replicon::bytes::Bytes;
use bevy_replicon::prelude::{
    AuthorizedClient, ConnectedClient, FromClient, SendTargets, ToClients,
};
use netschema::engine::ack::Ack;
use netschema::owned::{Client, ClientId, Seen, Server, ServerConfig};
use netschema::schema::Schema;
use netschema::{ClassOf, Protocol};

use crate::capture::NsReplicate;
use crate::messages::{NsAck, NsWelcome};

/// The netschema id of a Bevy entity: its bits, generation included, so a despawned entity's
/// id is never reused for another.
pub fn ns_id(entity: Entity) -> u64 {
    entity.to_bits()
}

/// The netschema server of schema `P`: the world of replicated entities and one connection per
/// authorised client. The plugin captures, encodes and takes acks; game systems use it for
/// visibility and priority (in [`crate::NetschemaSystems::Visibility`]).
#[derive(Resource)]
pub struct NsServer<P: Protocol> {
    pub(crate) server: Server<P>,
    /// The replicon client entity of each connection.
    pub(crate) peers: HashMap<ClientId, Entity>,
    /// Ids removed since the last frame, applied at the next one.
    pub(crate) removed: Vec<u64>,
    /// `(client entity, id)` pairs whose ownership ended since the last frame.
    pub(crate) disowned: Vec<(Entity, u64)>,
    pub(crate) visible_to_all: bool,
    /// The input schema clients send, if any.
    pub(crate) inputs: Option<&'static Schema>,
}

impl<P: Protocol> NsServer<P> {
    /// A server with nobody connected, taking inputs of `inputs` if given.
    ///
    /// # Panics
    ///
    /// If `config` is refused by [`Server::new`] (no handles, or too many), or `inputs` by
    /// [`Server::with_inputs`] (not an input schema).
    pub(crate) fn new(
        config: ServerConfig,
        visible_to_all: bool,
        inputs: Option<&'static Schema>,
    ) -> Self {
        let server = Server::new(config)
            .and_then(|server| match inputs {
                Some(schema) => server.with_inputs(schema),
                None => Ok(server),
            })
            .unwrap_or_else(|e| panic!("netschema refused the server configuration: {e}"));
        NsServer {
            server,
            peers: HashMap::new(),
            removed: Vec::new(),
            disowned: Vec::new(),
            visible_to_all,
            inputs,
        }
    }

    /// The owned netschema server, to read (frame, stats, staleness).
    pub fn server(&self) -> &Server<P> {
        &self.server
    }

    /// The owned netschema server, to change: for [`netschema::owned::Interest::update_server`]
    /// and the calls this type does not wrap. Leave frames, `set` and `remove` to the plugin.
    pub fn server_mut(&mut self) -> &mut Server<P> {
        &mut self.server
    }

    /// Shows or hides `entity` to the client of `peer` from the next packet on. The entity must
    /// be captured: in [`crate::NetschemaSystems::Visibility`] it is from the tick it was
    /// marked on.
    pub fn set_visible(
        &mut self,
        peer: &NsPeer,
        entity: Entity,
        visible: bool,
    ) -> netschema::Result<()> {
        self.server.set_visible(peer.0, ns_id(entity), visible)
    }

    /// Sets how much `entity` matters to the client of `peer` when its packet cannot carry
    /// every update.
    pub fn set_priority(
        &mut self,
        peer: &NsPeer,
        entity: Entity,
        weight: u16,
    ) -> netschema::Result<()> {
        self.server.set_priority(peer.0, ns_id(entity), weight)
    }

    /// The world as the client of `peer` showed it when it sent its input of `tick` (the
    /// [`crate::NsClientInput::tick`] of a received input): lag compensation, see
    /// [`Server::seen_by`]. Look entities up by [`ns_id`]. `None` if no render time came with
    /// that input; [`netschema::Error::NoInputs`] without inputs.
    pub fn seen_by(&mut self, peer: &NsPeer, tick: u32) -> netschema::Result<Option<Seen<'_, P>>> {
        self.server.seen_by(peer.0, tick)
    }

    /// Writes `value` as entity `id`, showing it to every client if it is new and the plugin
    /// shows everything.
    pub(crate) fn capture<C: ClassOf<P>>(&mut self, id: u64, value: &C) -> netschema::Result<()> {
        let new = !self.server.contains(id);
        self.server.set(id, value)?;
        if new && self.visible_to_all {
            for &client in self.peers.keys() {
                self.server.set_visible(client, id, true)?;
            }
        }
        Ok(())
    }
}

/// A replicon client's netschema connection, on its [`ConnectedClient`] entity from the time
/// replicon authorises it (its protocol hash, which covers the schema, matched).
#[derive(Component, Clone, Copy, Debug)]
pub struct NsPeer(ClientId);

impl NsPeer {
    /// The client, as the netschema server names it.
    pub fn client(&self) -> ClientId {
        self.0
    }
}

/// Connects an authorised client: a netschema connection, its welcome, and (when the plugin
/// shows everything) every captured entity.
pub(crate) fn connect<P: Protocol>(
    add: On<Add, AuthorizedClient>,
    mut ns: ResMut<NsServer<P>>,
    replicated: Query<Entity, With<NsReplicate>>,
    mut welcomes: MessageWriter<ToClients<NsWelcome>>,
    mut commands: Commands,
) {
    join(&mut ns, add.entity, &replicated, &mut welcomes, &mut commands);
}

/// Connects again the clients the server dropped at this frame's start because none of their
/// acks came back in time ([`Server::expired`]): each starts over from a new welcome.
pub(crate) fn rejoin_expired<P: Protocol>(
    mut ns: ResMut<NsServer<P>>,
    replicated: Query<Entity, With<NsReplicate>>,
    mut welcomes: MessageWriter<ToClients<NsWelcome>>,
    mut commands: Commands,
) {
    let ns = &mut *ns;
    for client in ns.server.expired().to_vec() {
        if let Some(entity) = ns.peers.remove(&client) {
            log::warn!(
                "netschema dropped {client} of {entity}: no ack came back; connecting again"
            );
            join(ns, entity, &replicated, &mut welcomes, &mut commands);
        }
    }
}

/// Gives the client of replicon's `entity` a netschema connection and sends its welcome.
fn join<P: Protocol>(
    ns: &mut NsServer<P>,
    entity: Entity,
    replicated: &Query<Entity, With<NsReplicate>>,
    welcomes: &mut MessageWriter<ToClients<NsWelcome>>,
    commands: &mut Commands,
) {
    // Replicon has already compared the schema hash (part of its protocol hash), so the hello
    // the netschema handshake expects is this build's own.
    let mut hello = [0; 64];
    let mut welcome = [0; 64];
    let written = match ns.inputs {
        Some(schema) => Client::<P>::hello_with_inputs(schema, &mut hello),
        None => Client::<P>::hello(&mut hello),
    };
    let accepted = written
        .and_then(|n| ns.server.connect(&hello[..n]))
        .and_then(|client| Ok((client, ns.server.welcome(&mut welcome)?)));
    let (client, n) = match accepted {
        Ok(accepted) => accepted,
        Err(e) => return log::error!("netschema could not connect client {entity}: {e}"),
    };
    ns.peers.insert(client, entity);
    if ns.visible_to_all {
        for id in replicated.iter().map(ns_id) {
            if ns.server.contains(id) {
                let _ = ns.server.set_visible(client, id, true);
            }
        }
    }
    commands.entity(entity).insert(NsPeer(client));
    welcomes.write(ToClients {
        targets: SendTargets::Single(entity.into()),
        message: NsWelcome(Bytes::copy_from_slice(&welcome[..n])),
    });
}

/// Forgets the connection of a client replicon dropped.
pub(crate) fn disconnect<P: Protocol>(
    remove: On<Remove, NsPeer>,
    peers: Query<&NsPeer>,
    mut ns: ResMut<NsServer<P>>,
) {
    if let Ok(&NsPeer(client)) = peers.get(remove.entity) {
        ns.peers.remove(&client);
        let _ = ns.server.disconnect(client);
    }
}

/// Hands each client's acks (with inputs, up frames: acks, render times and inputs) to its
/// connection. Acks are idempotent and refused when forged (counted in
/// [`netschema::engine::peer::PeerStats`]), and so are input datagrams (counted in
/// [`netschema::engine::input::InputStats`]), so lost or odd ones need nothing.
pub(crate) fn receive_acks<P: Protocol>(
    mut acks: MessageReader<FromClient<NsAck>>,
    peers: Query<&NsPeer, With<ConnectedClient>>,
    mut ns: ResMut<NsServer<P>>,
) {
    for FromClient { client_id, message } in acks.read() {
        let Some(Ok(&NsPeer(client))) = client_id.entity().map(|e| peers.get(e)) else { continue };
        if ns.inputs.is_some() {
            let _ = ns.server.receive(client, &message.0);
        } else if let Ok(ack) = Ack::read(&message.0) {
            let _ = ns.server.receive_ack(client, &ack);
        }
    }
}

/// Starts afresh when the server stops: every connection is gone.
pub(crate) fn reset<P: Protocol>(mut ns: ResMut<NsServer<P>>) {
    let config = ns.server.config();
    *ns = NsServer::new(config, ns.visible_to_all, ns.inputs);
}
