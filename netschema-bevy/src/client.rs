//! The client's side of the plugin: entities spawned, updated and despawned from netschema's
//! events, and an ack for every packet.

use bevy_ecs::prelude::*;
use bevy_ecs::system::EntityCommands;
use bevy_replicon::bytes::Bytes;
use netschema::owned::{Client, Event};
use netschema::{ClassOf, Protocol};

use crate::messages::{NsAck, NsPacket, NsWelcome};

/// An entity the plugin spawned on a client for a netschema entity: the handle the server
/// names it by while it stays visible.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct NsHandle(pub u32);

/// Marks, on a client, an entity the server says is this client's own (see
/// [`crate::NsOwner`]).
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct NsOwn;

/// Writes the `C` of a handle into its entity.
type Write<P> = fn(&Client<P>, u32, &mut EntityCommands);

/// The netschema client of schema `P`, from the server's welcome to the disconnection, and the
/// entities it spawned.
#[derive(Resource)]
pub struct NsClient<P: Protocol> {
    client: Option<Client<P>>,
    /// Most handles accepted from a server.
    handles: usize,
    /// The entity of each handle.
    entities: Vec<Option<Entity>>,
    /// How to write each class, by class index; `None` for classes not registered.
    writers: Vec<Option<Write<P>>>,
}

impl<P: Protocol> NsClient<P> {
    pub(crate) fn new(handles: usize) -> Self {
        NsClient {
            client: None,
            handles,
            entities: Vec::new(),
            writers: vec![None; P::SCHEMA.classes.len()],
        }
    }

    /// The owned netschema client, once the server's welcome has arrived.
    pub fn client(&self) -> Option<&Client<P>> {
        self.client.as_ref()
    }

    /// The entity spawned for `handle`, if it is visible.
    pub fn entity(&self, handle: u32) -> Option<Entity> {
        self.entities.get(handle as usize).copied().flatten()
    }

    /// Registers `C` as the component of its class.
    pub(crate) fn register<C: ClassOf<P> + Component>(&mut self) {
        self.writers[C::INDEX] = Some(|client, handle, entity| {
            if let Some(value) = client.get::<C>(handle) {
                entity.insert(value);
            }
        });
    }

    /// Despawns every entity it spawned.
    fn clear(&mut self, commands: &mut Commands) {
        for entity in self.entities.iter_mut().filter_map(Option::take) {
            commands.entity(entity).despawn();
        }
    }
}

/// Connects to the server that welcomes this client.
pub(crate) fn welcome<P: Protocol>(
    mut welcomes: MessageReader<NsWelcome>,
    mut ns: ResMut<NsClient<P>>,
    mut commands: Commands,
) {
    for NsWelcome(welcome) in welcomes.read() {
        match Client::<P>::connect(welcome, ns.handles) {
            Ok(client) => {
                ns.clear(&mut commands);
                ns.entities = vec![None; client.handles()];
                ns.client = Some(client);
            }
            Err(e) => log::error!("netschema refused the server's welcome: {e}"),
        }
    }
}

/// Decodes each packet, applies its events to the entities, and acks it. Packets that are
/// stale or coded against a lost frame are normal on a lossy link and dropped.
pub(crate) fn decode<P: Protocol>(
    mut packets: MessageReader<NsPacket>,
    mut acks: MessageWriter<NsAck>,
    mut ns: ResMut<NsClient<P>>,
    mut commands: Commands,
) {
    let ns = &mut *ns;
    let Some(client) = &mut ns.client else { return };
    for NsPacket(packet) in packets.read() {
        let decoded = client.decode(packet);
        if decoded.is_ok() {
            apply(client, &ns.writers, &mut ns.entities, &mut commands);
        } else if client.frame().is_none() {
            // The client forgot its frames to start over: the server sends everything again.
            for entity in ns.entities.iter_mut().filter_map(Option::take) {
                commands.entity(entity).despawn();
            }
        }
        if let Some(ack) = client.ack() {
            let mut buf = [0; netschema::engine::ack::Ack::WIRE_LEN];
            if let Ok(n) = ack.write(&mut buf) {
                acks.write(NsAck(Bytes::copy_from_slice(&buf[..n])));
            }
        }
    }
}

/// Spawns, updates and despawns entities as the current view's events say.
fn apply<P: Protocol>(
    client: &Client<P>,
    writers: &[Option<Write<P>>],
    entities: &mut [Option<Entity>],
    commands: &mut Commands,
) {
    for event in client.events() {
        match event {
            Event::Created { handle, value, own } => {
                let mut entity = commands.spawn(NsHandle(handle));
                if own {
                    entity.insert(NsOwn);
                }
                if let Some(write) = writers[value.class()] {
                    write(client, handle, &mut entity);
                }
                if let Some(old) = entities[handle as usize].replace(entity.id()) {
                    commands.entity(old).despawn();
                }
            }
            Event::Updated { handle, value } => {
                if let (Some(entity), Some(write)) =
                    (entities[handle as usize], writers[value.class()])
                {
                    write(client, handle, &mut commands.entity(entity));
                }
            }
            Event::Removed { handle } => {
                if let Some(entity) = entities[handle as usize].take() {
                    commands.entity(entity).despawn();
                }
            }
        }
    }
}

/// Forgets the session and its entities when the client disconnects.
pub(crate) fn disconnected<P: Protocol>(mut ns: ResMut<NsClient<P>>, mut commands: Commands) {
    ns.clear(&mut commands);
    ns.client = None;
}
