//! The client's plugin: its resource, decoding in `PreUpdate`, and each class's display.

use bevy_app::{App, Plugin, PreUpdate};
use bevy_ecs::component::Mutable;
use bevy_ecs::prelude::*;
use bevy_replicon::prelude::{ClientState, ClientSystems};
use bevy_state::prelude::{OnExit, in_state};
use netschema::{ClassOf, Protocol};

use crate::client::{self, Interpolation, NsClient};
use crate::input::Inputs;

/// The client's side of [`crate::NetschemaPlugins`]: the [`NsClient`] resource, and in
/// `PreUpdate` after [`ClientSystems::Receive`], while replicon's client is connected, the
/// welcome, every packet decoded into entities, an ack for each, and the components shown;
/// with inputs, [`crate::NsInput`] sent in [`crate::NetschemaClientSystems`].
pub struct NetschemaClientPlugin<P> {
    handles: usize,
    interpolation: Option<Interpolation>,
    classes: Vec<fn(&mut App)>,
    inputs: Option<Inputs>,
    _schema: core::marker::PhantomData<fn() -> P>,
}

impl<P: Protocol> NetschemaClientPlugin<P> {
    pub(super) fn new(
        handles: usize,
        interpolation: Option<Interpolation>,
        classes: Vec<fn(&mut App)>,
        inputs: Option<Inputs>,
    ) -> Self {
        NetschemaClientPlugin {
            handles,
            interpolation,
            classes,
            inputs,
            _schema: core::marker::PhantomData,
        }
    }
}

/// Shows component `C` on the entities of the handles that hold it.
pub(super) fn class<P: Protocol, C: ClassOf<P> + Component<Mutability = Mutable>>(app: &mut App) {
    app.world_mut().resource_mut::<NsClient<P>>().register::<C>();
    app.add_systems(
        PreUpdate,
        client::show::<P, C>.after(client::decode::<P>).run_if(in_state(ClientState::Connected)),
    );
}

impl<P: Protocol> Plugin for NetschemaClientPlugin<P> {
    fn build(&self, app: &mut App) {
        let stream = self.inputs.map(|i| (i.schema, i.tick_us));
        app.insert_resource(NsClient::<P>::new(self.handles, self.interpolation, stream))
            .add_systems(
                PreUpdate,
                (client::welcome::<P>, client::advance::<P>, client::decode::<P>)
                    .chain()
                    .after(ClientSystems::Receive)
                    .run_if(in_state(ClientState::Connected)),
            )
            .add_systems(OnExit(ClientState::Connected), client::disconnected::<P>);
        for register in self.classes.iter().chain(self.inputs.iter().map(|i| &i.client)) {
            register(app);
        }
    }
}
