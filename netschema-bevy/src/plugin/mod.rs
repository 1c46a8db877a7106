//! The plugins: [`NetschemaPlugins`], the group a game adds, builds the shared registration
//! and, with their features, the server's and the client's plugin.

use core::marker::PhantomData;

use bevy_app::{App, Plugin, PluginGroup, PluginGroupBuilder};
use bevy_ecs::component::Mutable;
use bevy_ecs::prelude::*;
use bevy_replicon::prelude::ProtocolHasher;
use netschema::owned::ServerConfig;
use netschema::schema::Schema;
use netschema::{ClassOf, Protocol};

use crate::input::{CarriedInput, Inputs};
use crate::messages;

#[cfg(feature = "client")]
mod client;
#[cfg(feature = "server")]
mod server;

#[cfg(feature = "client")]
pub use client::NetschemaClientPlugin;
#[cfg(feature = "server")]
pub use server::{NetschemaServerPlugin, NetschemaSystems};

#[cfg(feature = "client")]
use crate::client::Interpolation;

/// Replicates the components registered with [`NetschemaPlugins::class`] of the entities
/// marked [`crate::NsReplicate`], from a replicon server to its clients, through netschema's
/// codec: a group of the shared registration ([`NetschemaSharedPlugin`]), the server's plugin
/// (feature `server`, [`NetschemaServerPlugin`]) and the client's (feature `client`,
/// [`NetschemaClientPlugin`]), as replicon's own `RepliconPlugins` groups its sides.
///
/// Add it after replicon's plugins, with the same classes in the same order on server and
/// client. One schema per app. A dedicated server builds this crate without the `client`
/// feature (and a client without `server`): the other side's code is not compiled.
pub struct NetschemaPlugins<P> {
    config: ServerConfig,
    visible_to_all: bool,
    #[cfg(feature = "client")]
    interpolation: Option<Interpolation>,
    /// Each class's registration on the server and on the client.
    classes: Vec<Class>,
    inputs: Option<Inputs>,
    _schema: PhantomData<fn() -> P>,
}

/// How a class is registered on each side.
#[derive(Clone, Copy)]
struct Class {
    #[cfg(feature = "server")]
    server: fn(&mut App),
    #[cfg(feature = "client")]
    client: fn(&mut App),
}

impl<P: Protocol> NetschemaPlugins<P> {
    /// Plugins for schema `P` whose server holds `config.entities` entities and shows each
    /// client at most `config.handles` at once (a client refuses a server that shows more).
    pub fn new(config: ServerConfig) -> Self {
        NetschemaPlugins {
            config,
            visible_to_all: true,
            #[cfg(feature = "client")]
            interpolation: None,
            classes: Vec::new(),
            inputs: None,
            _schema: PhantomData,
        }
    }

    /// Replicates component `C`, a class of `P`.
    pub fn class<C: ClassOf<P> + Component<Mutability = Mutable>>(mut self) -> Self {
        self.classes.push(Class {
            #[cfg(feature = "server")]
            server: server::class::<P, C>,
            #[cfg(feature = "client")]
            client: client::class::<P, C>,
        });
        self
    }

    /// Carries inputs of `I` (a `.netidl` `input` or `#[derive(Input)]`) from clients to the
    /// server, for a server of `tick_rate` ticks a second: each client sends [`crate::NsInput`], which its
    /// game sets, for every tick, and the server hands out every client's input of each tick
    /// as [`crate::NsClientInput`] messages in [`crate::NetschemaSystems::Input`], for the
    /// game's systems in [`crate::NetschemaSystems::Apply`]; [`crate::NsServer::seen_by`]
    /// rewinds to what a client showed when it sent an input. Register the same input on
    /// server and client.
    pub fn inputs<I: CarriedInput>(self, tick_rate: f32) -> Self {
        NetschemaPlugins { inputs: Some(Inputs::of::<P, I>(tick_rate)), ..self }
    }

    /// Makes clients show components interpolated between the frames received, `delay`
    /// server ticks behind the newest (see [`netschema::owned::Interpolator`]; 2 or 3 suit
    /// links that lose a few percent), the render clock advancing by Bevy's frame time at
    /// `tick_rate` server ticks per second. Without it, components show the newest values.
    /// Without the `client` feature it changes nothing.
    pub fn interpolate(self, delay: u32, tick_rate: f32) -> Self {
        #[cfg(feature = "client")]
        return NetschemaPlugins {
            interpolation: Some(Interpolation { delay, tick_rate }),
            ..self
        };
        #[cfg(not(feature = "client"))]
        {
            let _ = (delay, tick_rate);
            self
        }
    }

    /// Whether every client sees every replicated entity (the default), or only what game
    /// systems show it ([`crate::NsServer::set_visible`], or [`netschema::owned::Interest`]
    /// through [`crate::NsServer::server_mut`]). Without the `server` feature it changes
    /// nothing.
    pub fn visible_to_all(mut self, all: bool) -> Self {
        self.visible_to_all = all;
        self
    }
}

impl<P: Protocol> PluginGroup for NetschemaPlugins<P> {
    fn build(self) -> PluginGroupBuilder {
        let shared = NetschemaSharedPlugin::<P> {
            inputs: self.inputs.map(|i| i.schema),
            _schema: PhantomData,
        };
        let group = PluginGroupBuilder::start::<Self>().add(shared);
        #[cfg(feature = "server")]
        let group = group.add(NetschemaServerPlugin::<P>::new(
            self.config,
            self.visible_to_all,
            self.classes.iter().map(|c| c.server).collect(),
            self.inputs,
        ));
        #[cfg(feature = "client")]
        let group = group.add(NetschemaClientPlugin::<P>::new(
            self.config.handles,
            self.interpolation,
            self.classes.iter().map(|c| c.client).collect(),
            self.inputs,
        ));
        #[cfg(not(all(feature = "server", feature = "client")))]
        let _ = (&self.config, self.visible_to_all, &self.classes);
        group
    }
}

/// What server and client register alike: the schema's hash, and the input schema's if any,
/// in replicon's protocol hash (so replicon refuses a peer of another schema, or of other
/// inputs) and netschema's three messages.
pub struct NetschemaSharedPlugin<P> {
    inputs: Option<&'static Schema>,
    _schema: PhantomData<fn() -> P>,
}

impl<P: Protocol> Plugin for NetschemaSharedPlugin<P> {
    fn build(&self, app: &mut App) {
        let mut hasher = app
            .world_mut()
            .get_resource_mut::<ProtocolHasher>()
            .expect("add replicon's plugins before NetschemaPlugins");
        hasher.add_custom((P::SCHEMA.name, P::SCHEMA.hash));
        if let Some(input) = self.inputs {
            hasher.add_custom(("input", input.name, input.hash));
        }
        messages::register(app);
    }
}
