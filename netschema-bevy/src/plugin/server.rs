//! The server's plugin: its resource, where its systems run, and each class's capture.

use bevy_app::{App, Plugin, PostUpdate, PreUpdate};
use bevy_ecs::prelude::*;
use bevy_ecs::schedule::common_conditions::resource_changed;
use bevy_replicon::prelude::{ServerState, ServerSystems};
use bevy_replicon::server::server_tick::ServerTick;
use bevy_state::prelude::{OnExit, in_state};
use netschema::owned::ServerConfig;
use netschema::{ClassOf, Protocol};

use crate::input::Inputs;
use crate::server::{self, NsServer};
use crate::{capture, encode};

/// Where the server's work runs in `PostUpdate`, in this order, on each replicon server tick
/// ([`ServerTick`] changed), before [`ServerSystems::Send`].
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NetschemaSystems {
    /// With inputs ([`crate::NetschemaPlugins::inputs`]): every client's input of the frame
    /// about to be captured, written as [`crate::NsClientInput`] messages.
    Input,
    /// Free for the game's systems that read [`crate::NsClientInput`] and change the
    /// replicated components by it (or judge it with [`NsServer::seen_by`]): what they change
    /// is captured in the same tick.
    Apply,
    /// A new frame: removals, changed components, ownership.
    Capture,
    /// Free for the game's visibility and priority systems ([`NsServer::set_visible`]).
    Visibility,
    /// One packet per client.
    Encode,
}

/// The server's side of [`crate::NetschemaPlugins`]: the [`NsServer`] resource, connections
/// following replicon's, inputs, capture, the game's visibility and encoding in
/// [`NetschemaSystems`], and acks (and inputs) in `PreUpdate` after [`ServerSystems::Receive`].
pub struct NetschemaServerPlugin<P> {
    config: ServerConfig,
    visible_to_all: bool,
    classes: Vec<fn(&mut App)>,
    inputs: Option<Inputs>,
    _schema: core::marker::PhantomData<fn() -> P>,
}

impl<P: Protocol> NetschemaServerPlugin<P> {
    pub(super) fn new(
        config: ServerConfig,
        visible_to_all: bool,
        classes: Vec<fn(&mut App)>,
        inputs: Option<Inputs>,
    ) -> Self {
        NetschemaServerPlugin {
            config,
            visible_to_all,
            classes,
            inputs,
            _schema: core::marker::PhantomData,
        }
    }
}

/// Captures component `C` of the marked entities each tick, and removes it when it goes.
pub(super) fn class<P: Protocol, C: ClassOf<P> + Component>(app: &mut App) {
    app.add_observer(capture::class_removed::<P, C>).add_systems(
        PostUpdate,
        capture::capture::<P, C>
            .after(capture::begin_frame::<P>)
            .before(capture::own::<P>)
            .in_set(NetschemaSystems::Capture),
    );
}

impl<P: Protocol> Plugin for NetschemaServerPlugin<P> {
    fn build(&self, app: &mut App) {
        let ticked = || in_state(ServerState::Running).and_then(resource_changed::<ServerTick>);
        let schema = self.inputs.map(|i| i.schema);
        app.insert_resource(NsServer::<P>::new(self.config, self.visible_to_all, schema))
            .configure_sets(
                PostUpdate,
                (
                    NetschemaSystems::Input.run_if(ticked()),
                    NetschemaSystems::Apply.run_if(ticked()),
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
            .add_systems(OnExit(ServerState::Running), server::reset::<P>);
        for register in self.classes.iter().chain(self.inputs.iter().map(|i| &i.server)) {
            register(app);
        }
    }
}
