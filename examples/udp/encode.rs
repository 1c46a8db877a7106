//! Encoding the packets of a frame for every client: on this thread, or spread over several
//! with [`netschema::owned::Server::split`].

use std::thread;

use netschema::Protocol;
use netschema::owned::{ClientId, Connection, Frame};

use crate::wire::BUDGET;

/// One client's packet for the frame.
#[derive(Debug)]
pub(crate) struct Packet {
    /// Whose it is.
    pub(crate) client: ClientId,
    /// Its length in `bytes`, or why it could not be written.
    pub(crate) len: netschema::Result<usize>,
    /// Room for it: the byte budget.
    pub(crate) bytes: Box<[u8; BUDGET]>,
}

/// Encodes the packet of `frame` for every connection into `packets` (resized to match), on
/// `threads` threads: the calling one and `threads - 1` scoped ones, each taking a run of
/// connections. The packets are the same whatever the number of threads.
pub(crate) fn encode_all<P: Protocol>(
    frame: &Frame<'_, P>,
    connections: &mut [Connection],
    packets: &mut Vec<Packet>,
    threads: usize,
) {
    packets.resize_with(connections.len(), || Packet {
        client: connections[0].client(),
        len: Ok(0),
        bytes: Box::new([0; BUDGET]),
    });
    let run = connections.len().div_ceil(threads.max(1)).max(1);
    thread::scope(|s| {
        let mut jobs = connections.chunks_mut(run).zip(packets.chunks_mut(run));
        let here = jobs.next();
        for (connections, packets) in jobs {
            s.spawn(move || encode_run(frame, connections, packets));
        }
        if let Some((connections, packets)) = here {
            encode_run(frame, connections, packets);
        }
    });
}

fn encode_run<P: Protocol>(
    frame: &Frame<'_, P>,
    connections: &mut [Connection],
    out: &mut [Packet],
) {
    for (c, packet) in connections.iter_mut().zip(out) {
        packet.client = c.client();
        packet.len = c.encode(frame, &mut packet.bytes[..]);
    }
}
