//! The plugin: registration, and where its systems run.

use core::marker::PhantomData;

use bevy_app::{App, Plugin, PostUpdate, PreUpdate};
use bevy_ecs::component::Mutable;
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::common_conditions::resource_changed;
use bevy_replicon::prelude::{
    ClientState, ClientSystems, ProtocolHasher, ServerState, ServerSystems,
};
use bevy_replicon::server::server_tick::ServerTick;
use bevy_state::prelude::{OnExit, in_state};
use netschema::owned::ServerConfig;
use netschema::{ClassOf, Protocol};

use crate::capture;
use crate::client::{self, Interpolation, NsClient};
use crate::server::{self, NsServer};
use crate::{encode, messages};

/// Where the server's work runs in `PostUpdate`, in this order, on each replicon server tick
/// ([`ServerTick`] changed), before [`ServerSystems::Send`].
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NetschemaSystems {
    /// A new frame: removals, changed components, ownership.
    Capture,
    /// Free for the game's visibility and priority systems ([`NsServer::set_visible`]).
    Visibility,
    /// One packet per client.
    Encode,
}

/// Replicates the components registered with [`NetschemaPlugin::class`] of the entities marked
/// [`crate::NsReplicate`], from a replicon server to its clients, through netschema's codec.
///
/// Add it after replicon's plugins, with the same classes in the same order on server and
/// client. One schema per app.
pub struct NetschemaPlugin<P> {
    config: ServerConfig,
    visible_to_all: bool,
    interpolation: Option<Interpolation>,
    classes: Vec<fn(&mut App)>,
    _schema: PhantomData<fn() -> P>,
}

impl<P: Protocol> NetschemaPlugin<P> {
    /// A plugin for schema `P` whose server holds `config.entities` entities and shows each
    /// client at most `config.handles` at once (a client refuses a server that shows more).
    pub fn new(config: ServerConfig) -> Self {
        NetschemaPlugin {
            config,
            visible_to_all: true,
            interpolation: None,
            classes: Vec::new(),
            _schema: PhantomData,
        }
    }

    /// Replicates component `C`, a class of `P`.
    pub fn class<C: ClassOf<P> + Component<Mutability = Mutable>>(mut self) -> Self {
        self.classes.push(|app| {
            app.world_mut().resource_mut::<NsClient<P>>().register::<C>();
            app.add_observer(capture::class_removed::<P, C>)
                .add_systems(
                    PostUpdate,
                    capture::capture::<P, C>
                        .after(capture::begin_frame::<P>)
                        .before(capture::own::<P>)
                        .in_set(NetschemaSystems::Capture),
                )
                .add_systems(
                    PreUpdate,
                    client::show::<P, C>
                        .after(client::decode::<P>)
                        .run_if(in_state(ClientState::Connected)),
                );
        });
        self
    }

    /// Makes clients show components interpolated between the frames received, `delay`
    /// server ticks behind the newest (see [`netschema::owned::Interpolator`]; 2 or 3 suit
    /// links that lose a few percent), the render clock advancing by Bevy's frame time at
    /// `tick_rate` server ticks per second. Without it, components show the newest values.
    pub fn interpolate(mut self, delay: u32, tick_rate: f32) -> Self {
        self.interpolation = Some(Interpolation { delay, tick_rate });
        self
    }

    /// Whether every client sees every replicated entity (the default), or only what game
    /// systems show it ([`NsServer::set_visible`], or [`netschema::owned::Interest`] through
    /// [`NsServer::server_mut`]).
    pub fn visible_to_all(mut self, all: bool) -> Self {
        self.visible_to_all = all;
        self
    }
}

impl<P: Protocol> Plugin for NetschemaPlugin<P> {
    fn build(&self, app: &mut App) {
        app.world_mut()
            .get_resource_mut::<ProtocolHasher>()
            .expect("add replicon's plugins before NetschemaPlugin")
            .add_custom((P::SCHEMA.name, P::SCHEMA.hash));
        messages::register(app);
        let ticked = || in_state(ServerState::Running).and_then(resource_changed::<ServerTick>);
        app.insert_resource(NsServer::<P>::new(self.config, self.visible_to_all))
            .insert_resource(NsClient::<P>::new(self.config.handles, self.interpolation))
            .configure_sets(
                PostUpdate,
                (
                    NetschemaSystems::Capture.run_if(ticked()),
                    NetschemaSystems::Visibility.run_if(ticked()),
                    NetschemaSystems::Encode.run_if(ticked()),
                )
                    .chain()
                    .after(ServerSystems::IncrementTick)
                    .before(ServerSystems::Send),
            )
            .add_observer(server::connect::<P>)
            .add_observer(server::disconnect::<P>)
            .add_observer(capture::unmarked::<P>)
            .add_observer(capture::owner_replaced::<P>)
            .add_systems(
                PreUpdate,
                server::receive_acks::<P>
                    .after(ServerSystems::Receive)
                    .run_if(in_state(ServerState::Running)),
            )
            .add_systems(
                PostUpdate,
                (
                    (capture::begin_frame::<P>, server::rejoin_expired::<P>, capture::own::<P>)
                        .chain()
                        .in_set(NetschemaSystems::Capture),
                    encode::encode::<P>.in_set(NetschemaSystems::Encode),
                ),
            )
            .add_systems(OnExit(ServerState::Running), server::reset::<P>)
            .add_systems(
                PreUpdate,
                (client::welcome::<P>, client::advance::<P>, client::decode::<P>)
                    .chain()
                    .after(ClientSystems::Receive)
                    .run_if(in_state(ClientState::Connected)),
            )
            .add_systems(OnExit(ClientState::Connected), client::disconnected::<P>);
        for register in &self.classes {
            register(app);
        }
    }
}
