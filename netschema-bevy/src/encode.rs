//! Encode: each server tick, one packet per connected client (with inputs, a down frame:
//! timing report, input ack and packet), as long as its carrier takes without splitting, the
//! clients' packets coded in parallel on Bevy's compute task pool.

use bevy_ecs::prelude::*;
use bevy_replicon::bytes::Bytes;
use bevy_replicon::prelude::{ConnectedClient, SendTargets, ToClients};
use bevy_tasks::{ComputeTaskPool, TaskPool};
use netschema::Protocol;
use netschema::owned::Connection;

use crate::messages::NsPacket;
use crate::server::NsServer;

/// Codes every client's packet for the current frame and hands them to replicon.
pub(crate) fn encode<P: Protocol>(
    mut ns: ResMut<NsServer<P>>,
    carriers: Query<&ConnectedClient>,
    mut packets: MessageWriter<ToClients<NsPacket>>,
) {
    let ns = &mut *ns;
    let framed = ns.inputs.is_some();
    let (frame, connections) = ns.server.split();
    // Each client's entity and budget: the largest message its carrier sends whole.
    let targets: Vec<(Entity, usize)> = connections
        .iter()
        .map(|c| {
            let entity = ns.peers[&c.client()];
            (entity, carriers.get(entity).map_or(0, |c| c.max_size))
        })
        .collect();
    let pool = ComputeTaskPool::get_or_init(TaskPool::default);
    let chunk = connections.len().div_ceil(pool.thread_num().max(1)).max(1);
    let coded = pool.scope(|s| {
        for (connections, targets) in connections.chunks_mut(chunk).zip(targets.chunks(chunk)) {
            let frame = &frame;
            s.spawn(async move {
                connections
                    .iter_mut()
                    .zip(targets)
                    .filter_map(|(c, &(entity, budget))| {
                        Some((entity, code(c, frame, budget, framed)?))
                    })
                    .collect::<Vec<_>>()
            });
        }
    });
    for (entity, packet) in coded.into_iter().flatten() {
        packets.write(ToClients {
            targets: SendTargets::Single(entity.into()),
            message: NsPacket(packet),
        });
    }
}

/// One client's packet within `budget` bytes (in a down frame if `framed`), or `None`
/// (logged) if none fits.
fn code<P: Protocol>(
    connection: &mut Connection,
    frame: &netschema::owned::Frame<'_, P>,
    budget: usize,
    framed: bool,
) -> Option<Bytes> {
    let mut buf = vec![0; budget];
    let written = match framed {
        true => connection.write(frame, &mut buf),
        false => connection.encode(frame, &mut buf),
    };
    match written {
        Ok(n) => {
            buf.truncate(n);
            Some(buf.into())
        }
        Err(e) => {
            log::warn!("netschema could not code {}'s packet: {e}", connection.client());
            None
        }
    }
}
