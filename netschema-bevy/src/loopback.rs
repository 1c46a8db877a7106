//! An in-process carrier for examples, tests and measurements: moves replicon's messages
//! between a server app and client apps connected with [`ServerTestAppExt::connect_client`],
//! dropping a seeded fraction of those on unreliable channels (reliable ones are delivered, as
//! a real carrier would by resending), optionally delaying every message by a number of
//! exchanges, and counting the bytes sent each way.

use std::collections::VecDeque;

use bevy_app::App;
use bevy_replicon::bytes::Bytes;
use bevy_replicon::prelude::{Channel, ClientMessages, RepliconChannels, ServerMessages};
use bevy_replicon::test_app::TestClientEntity;

#[cfg(doc)]
use bevy_replicon::test_app::ServerTestAppExt;

/// A message on its way: the exchange it is delivered at, its channel and its bytes.
type InFlight = (u64, usize, Bytes);

/// A lossy link between a server app and one of its clients.
///
/// Each [`LossyLink::exchange`] is one step of the link, normally one per server tick. With a
/// latency of `n` (see [`LossyLink::with_latency`]) a message sent before an exchange reaches
/// the other side at the `n`-th exchange after it, in the order it was sent; with none (the
/// default) it arrives at that same exchange.
#[derive(Clone, Debug)]
pub struct LossyLink {
    state: u64,
    loss: f64,
    latency: u64,
    /// Exchanges done so far.
    now: u64,
    delivered: u64,
    dropped: u64,
    /// Bytes sent server to client and client to server, every channel, lost or not.
    bytes: (u64, u64),
    /// Messages server to client, and client to server, not yet delivered.
    down: VecDeque<InFlight>,
    up: VecDeque<InFlight>,
}

impl LossyLink {
    /// A link that drops each unreliable message with probability `loss`, from a generator
    /// seeded with `seed`, and delivers the others at once.
    pub fn new(seed: u64, loss: f64) -> Self {
        LossyLink {
            state: seed,
            loss,
            latency: 0,
            now: 0,
            delivered: 0,
            dropped: 0,
            bytes: (0, 0),
            down: VecDeque::new(),
            up: VecDeque::new(),
        }
    }

    /// The same link, delivering each message `exchanges` exchanges after the one that took
    /// it (each way: a round trip takes twice as many). Which messages are lost does not
    /// depend on the latency.
    pub fn with_latency(self, exchanges: u32) -> Self {
        LossyLink { latency: exchanges.into(), ..self }
    }

    /// Unreliable messages delivered (or on their way) and dropped so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.delivered, self.dropped)
    }

    /// Bytes of the messages the server sent to the client, and the client to the server, so
    /// far: every channel, each message counted once when the link takes it, lost or not.
    pub fn bytes(&self) -> (u64, u64) {
        self.bytes
    }

    /// Moves what `client` sent to `server`, and what `server` sent to `client`, as
    /// [`ServerTestAppExt::exchange_with_client`] does, losing some and delivering the others
    /// once their latency has passed.
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
        let due = self.now + self.latency;
        let mut client_messages = client.world_mut().resource_mut::<ClientMessages>();
        let mut server_messages = server.world_mut().resource_mut::<ServerMessages>();
        for (channel, message) in client_messages.drain_sent() {
            self.bytes.1 += message.len() as u64;
            if !self.lost(up[channel]) {
                self.up.push_back((due, channel, message));
            }
        }
        server_messages.retain_sent(|(to, channel, message)| {
            if *to != entity {
                return true;
            }
            self.bytes.0 += message.len() as u64;
            if !self.lost(down[*channel]) {
                self.down.push_back((due, *channel, message.clone()));
            }
            false
        });
        while let Some((_, channel, message)) = self.up.pop_front_if(|m| m.0 <= self.now) {
            server_messages.insert_received(entity, channel, message);
        }
        while let Some((_, channel, message)) = self.down.pop_front_if(|m| m.0 <= self.now) {
            client_messages.insert_received(channel, message);
        }
        self.now += 1;
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
