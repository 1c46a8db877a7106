//! The three messages netschema sends through bevy_replicon, each its raw bytes with nothing
//! added: packets and acks on unreliable channels, the welcome on an ordered one.

use bevy_app::App;
use bevy_ecs::error::Result;
use bevy_ecs::message::Message;
use bevy_replicon::bytes::Bytes;
use bevy_replicon::prelude::{Channel, ClientMessageAppExt, ServerMessageAppExt};
use bevy_replicon::shared::message::ctx::{
    ClientReceiveCtx, ClientSendCtx, ServerReceiveCtx, ServerSendCtx,
};

/// One netschema packet, server to client: a frame coded against what the client acked.
#[derive(Message, Clone, Debug)]
pub struct NsPacket(pub Bytes);

/// One acknowledgement, client to server ([`netschema::engine::ack::Ack`]'s wire form).
#[derive(Message, Clone, Debug)]
pub struct NsAck(pub Bytes);

/// The server's welcome, sent once to a client it has accepted: handle capacity, wire version,
/// schema hash and frame origin.
#[derive(Message, Clone, Debug)]
pub struct NsWelcome(pub Bytes);

/// Messages whose payload is their bytes.
trait Raw: Message {
    fn bytes(&self) -> &Bytes;
    fn from_bytes(bytes: Bytes) -> Self;
}

macro_rules! raw {
    ($($t:ty),*) => {$(
        impl Raw for $t {
            fn bytes(&self) -> &Bytes {
                &self.0
            }
            fn from_bytes(bytes: Bytes) -> Self {
                Self(bytes)
            }
        }
    )*};
}
raw!(NsPacket, NsAck, NsWelcome);

fn write<C, M: Raw>(_: &mut C, message: &M, out: &mut Vec<u8>) -> Result<()> {
    out.extend_from_slice(message.bytes());
    Ok(())
}

fn read<C, M: Raw>(_: &mut C, bytes: &mut Bytes) -> Result<M> {
    Ok(M::from_bytes(core::mem::take(bytes)))
}

/// Registers the messages with replicon, in the same order on server and client (replicon's
/// protocol hash covers them).
pub(crate) fn register(app: &mut App) {
    app.add_server_message_with(
        Channel::Unreliable,
        write::<ServerSendCtx, NsPacket>,
        read::<ClientReceiveCtx, NsPacket>,
    )
    .make_message_independent::<NsPacket>()
    .add_server_message_with(
        Channel::Ordered,
        write::<ServerSendCtx, NsWelcome>,
        read::<ClientReceiveCtx, NsWelcome>,
    )
    .make_message_independent::<NsWelcome>()
    .add_client_message_with(
        Channel::Unreliable,
        write::<ClientSendCtx, NsAck>,
        read::<ServerReceiveCtx, NsAck>,
    );
}
