//! The client's side of the plugin: entities spawned, updated and despawned from netschema's
//! events, an ack for every packet, and (when the game asks) components interpolated at render
//! time.

use bevy_ecs::component::Mutable;
use bevy_ecs::prelude::*;
use bevy_ecs::system::EntityCommands;
use bevy_replicon::bytes::Bytes;
use bevy_time::{Real, Time};
use netschema::engine::ack::Ack;
use netschema::owned::{Client, Event, FromServer, Interpolator, RenderTime};
use netschema::schema::Schema;
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

/// Inserts the `C` a handle shows into its entity.
type Write<P> = fn(&Shown<'_, P>, u32, &mut EntityCommands);

/// Render-time interpolation: the delay in frames and the server's ticks per second.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Interpolation {
    pub(crate) delay: u32,
    pub(crate) tick_rate: f32,
}

/// A client's input stream, when the plugin sends inputs.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct InputState {
    /// The input schema and the server's tick in microseconds.
    pub(crate) stream: Option<(&'static Schema, u32)>,
    /// The newest tick whose input was pushed on this connection.
    pub(crate) pushed: Option<u32>,
    /// Whether a packet came since the last up frame, which carries its ack.
    pub(crate) ack_due: bool,
}

/// The netschema client of schema `P`, from the server's welcome to the disconnection, and the
/// entities it spawned.
#[derive(Resource)]
pub struct NsClient<P: Protocol> {
    pub(crate) client: Option<Client<P>>,
    interpolator: Option<Interpolator<P>>,
    interpolation: Option<Interpolation>,
    /// Most handles accepted from a server.
    handles: usize,
    /// The entity of each handle.
    entities: Vec<Option<Entity>>,
    /// How to insert each class, by class index; `None` for classes not registered.
    writers: Vec<Option<Write<P>>>,
    pub(crate) inputs: InputState,
}

impl<P: Protocol> NsClient<P> {
    /// A client of at most `handles` handles, sending inputs of `inputs.0` at ticks of
    /// `inputs.1` microseconds if given.
    pub(crate) fn new(
        handles: usize,
        interpolation: Option<Interpolation>,
        inputs: Option<(&'static Schema, u32)>,
    ) -> Self {
        NsClient {
            client: None,
            interpolator: None,
            interpolation,
            handles,
            entities: Vec::new(),
            writers: vec![None; P::SCHEMA.classes.len()],
            inputs: InputState { stream: inputs, ..InputState::default() },
        }
    }

    /// What the components show now: the interpolator's render time, or the newest frame.
    pub(crate) fn render_time(&self) -> Option<RenderTime> {
        match &self.interpolator {
            Some(interpolator) => interpolator.render_time(),
            None => {
                self.client.as_ref()?.frame().map(|f| RenderTime { frame: f, past: 0, newest: f })
            }
        }
    }

    /// The newest tick whose input this client pushed: the tick of what it sent last, once
    /// [`crate::NetschemaClientSystems::Send`] ran; `None` without inputs or before the first.
    pub fn newest_input_tick(&self) -> Option<u32> {
        self.inputs.pushed
    }

    /// The owned netschema client, once the server's welcome has arrived.
    pub fn client(&self) -> Option<&Client<P>> {
        self.client.as_ref()
    }

    /// The interpolator whose values the components show, when the plugin interpolates.
    pub fn interpolator(&self) -> Option<&Interpolator<P>> {
        self.interpolator.as_ref()
    }

    /// The entity spawned for `handle`, if it is visible.
    pub fn entity(&self, handle: u32) -> Option<Entity> {
        self.entities.get(handle as usize).copied().flatten()
    }

    /// Registers `C` as the component of its class.
    pub(crate) fn register<C: ClassOf<P> + Component>(&mut self) {
        self.writers[C::INDEX] = Some(|shown, handle, entity| {
            if let Some(value) = shown.get::<C>(handle) {
                entity.insert(value);
            }
        });
    }
}

/// Where a client's components come from: the newest values, or the interpolator's.
enum Shown<'a, P: Protocol> {
    Newest(&'a Client<P>),
    Interpolated(&'a Interpolator<P>),
}

impl<P: Protocol> Shown<'_, P> {
    fn get<C: ClassOf<P>>(&self, handle: u32) -> Option<C> {
        match self {
            Shown::Newest(client) => client.get(handle),
            Shown::Interpolated(interpolator) => interpolator.get(handle),
        }
    }
}

/// Despawns every entity in `entities`.
fn despawn_all(entities: &mut [Option<Entity>], commands: &mut Commands) {
    for entity in entities.iter_mut().filter_map(Option::take) {
        commands.entity(entity).despawn();
    }
}

/// Connects to the server that welcomes this client.
pub(crate) fn welcome<P: Protocol>(
    mut welcomes: MessageReader<NsWelcome>,
    mut ns: ResMut<NsClient<P>>,
    mut commands: Commands,
) {
    for NsWelcome(welcome) in welcomes.read() {
        let client = match ns.inputs.stream {
            Some((schema, tick_us)) => {
                Client::<P>::connect_with_inputs(welcome, ns.handles, schema, tick_us)
            }
            None => Client::<P>::connect(welcome, ns.handles),
        };
        match client {
            Ok(client) => {
                despawn_all(&mut ns.entities, &mut commands);
                ns.entities = vec![None; client.handles()];
                ns.interpolator =
                    ns.interpolation.map(|i| Interpolator::new(client.handles(), i.delay));
                ns.client = Some(client);
                ns.inputs = InputState { stream: ns.inputs.stream, ..InputState::default() };
            }
            Err(e) => log::error!("netschema refused the server's welcome: {e}"),
        }
    }
}

/// Decodes each packet (with inputs, each down frame: its timing and input ack too), applies
/// its events to the entities, and acks it (with inputs, in the next up frame). Packets that
/// are stale or coded against a lost frame are normal on a lossy link and dropped.
pub(crate) fn decode<P: Protocol>(
    mut packets: MessageReader<NsPacket>,
    mut acks: MessageWriter<NsAck>,
    mut ns: ResMut<NsClient<P>>,
    time: Res<Time<Real>>,
    mut commands: Commands,
) {
    let ns = &mut *ns;
    let Some(client) = &mut ns.client else { return };
    let now_us = time.elapsed().as_micros() as u64;
    for NsPacket(packet) in packets.read() {
        let decoded = match ns.inputs.stream {
            Some(_) => match client.receive(packet, now_us) {
                Ok(FromServer { packet: Some(decoded), .. }) => decoded,
                Ok(FromServer { packet: None, .. }) => continue,
                Err(e) => Err(e),
            },
            None => client.decode(packet),
        };
        if decoded.is_ok() {
            let shown = match &mut ns.interpolator {
                Some(interpolator) => {
                    interpolator.record(client);
                    Shown::Interpolated(interpolator)
                }
                None => Shown::Newest(client),
            };
            apply(client, &shown, &ns.writers, &mut ns.entities, &mut commands);
        } else if client.frame().is_none() {
            // The client forgot its frames to start over: the server sends everything again.
            despawn_all(&mut ns.entities, &mut commands);
        }
        if ns.inputs.stream.is_some() {
            ns.inputs.ack_due = true;
        } else if let Some(ack) = client.ack() {
            let mut buf = [0; Ack::MAX_LEN];
            if let Ok(n) = ack.write(&mut buf) {
                acks.write(NsAck(Bytes::copy_from_slice(&buf[..n])));
            }
        }
    }
}

/// Spawns, updates and despawns entities as the current view's events say; updates are left
/// to [`show`] when interpolating.
fn apply<P: Protocol>(
    client: &Client<P>,
    shown: &Shown<'_, P>,
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
                    write(shown, handle, &mut entity);
                }
                if let Some(old) = entities[handle as usize].replace(entity.id()) {
                    commands.entity(old).despawn();
                }
            }
            Event::Updated { handle, value } => {
                if let (Shown::Newest(_), Some(entity), Some(write)) =
                    (shown, entities[handle as usize], writers[value.class()])
                {
                    write(shown, handle, &mut commands.entity(entity));
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

/// Moves the render clock by the frame's time, in server ticks, before the frame's packets.
pub(crate) fn advance<P: Protocol>(mut ns: ResMut<NsClient<P>>, time: Res<Time>) {
    let ns = &mut *ns;
    if let (Some(interpolator), Some(i)) = (&mut ns.interpolator, ns.interpolation) {
        interpolator.advance(time.delta_secs() * i.tick_rate);
    }
}

/// Writes each `C` as the interpolator shows it at the render time.
pub(crate) fn show<P: Protocol, C: ClassOf<P> + Component<Mutability = Mutable>>(
    ns: Res<NsClient<P>>,
    mut entities: Query<(&NsHandle, &mut C)>,
) {
    let Some(interpolator) = &ns.interpolator else { return };
    for (handle, mut value) in &mut entities {
        if let Some(shown) = interpolator.get::<C>(handle.0) {
            *value = shown;
        }
    }
}

/// Forgets the session and its entities when the client disconnects.
pub(crate) fn disconnected<P: Protocol>(mut ns: ResMut<NsClient<P>>, mut commands: Commands) {
    despawn_all(&mut ns.entities, &mut commands);
    ns.client = None;
    ns.interpolator = None;
    ns.inputs = InputState { stream: ns.inputs.stream, ..InputState::default() };
}
