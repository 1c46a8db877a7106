//! An in-process carrier for examples and tests: moves replicon's messages between a server
//! app and client apps connected with [`ServerTestAppExt::connect_client`], dropping a seeded
//! fraction of those on unreliable channels (reliable ones are delivered, as a real carrier
//! would by resending).

use bevy_app::App;
use bevy_replicon::prelude::{Channel, ClientMessages, RepliconChannels, ServerMessages};
use bevy_replicon::test_app::TestClientEntity;

#[cfg(doc)]
use bevy_replicon::test_app::ServerTestAppExt;

/// A lossy link between a server app and its clients.
#[derive(Clone, Debug)]
pub struct LossyLink {
    state: u64,
    loss: f64,
    delivered: u64,
    dropped: u64,
}

impl LossyLink {
    /// A link that drops each unreliable message with probability `loss`, from a generator
    /// seeded with `seed`.
    pub fn new(seed: u64, loss: f64) -> Self {
        LossyLink { state: seed, loss, delivered: 0, dropped: 0 }
    }

    /// Unreliable messages delivered and dropped so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.delivered, self.dropped)
    }

    /// Moves what `client` sent to `server`, and what `server` sent to `client`, as
    /// [`ServerTestAppExt::exchange_with_client`] does, losing some.
    ///
    /// # Panics
    ///
    /// If `client` is not connected to `server`.
    pub fn exchange(&mut self, server: &mut App, client: &mut App) {
        let entity = **client.world().resource::<TestClientEntity>();
        let unreliable = |channels: &[Channel]| -> Vec<bool> {
            channels.iter().map(|c| matches!(c, Channel::Unreliable)).collect()
        };
        let channels = server.world().resource::<RepliconChannels>();
        let (up, down) =
            (unreliable(channels.client_channels()), unreliable(channels.server_channels()));
        let mut client_messages = client.world_mut().resource_mut::<ClientMessages>();
        let mut server_messages = server.world_mut().resource_mut::<ServerMessages>();
        for (channel, message) in client_messages.drain_sent() {
            if !self.lost(up[channel]) {
                server_messages.insert_received(entity, channel, message);
            }
        }
        server_messages.retain_sent(|(to, channel, message)| {
            if *to != entity {
                return true;
            }
            if !self.lost(down[*channel]) {
                client_messages.insert_received(*channel, message.clone());
            }
            false
        });
    }

    /// Whether a message is lost: never on a reliable channel.
    fn lost(&mut self, unreliable: bool) -> bool {
        if !unreliable {
            return false;
        }
        self.state = self
            .state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let lost = ((self.state >> 11) as f64 / (1u64 << 53) as f64) < self.loss;
        if lost {
            self.dropped += 1;
        } else {
            self.delivered += 1;
        }
        lost
    }
}
