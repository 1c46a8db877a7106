//! Encoding the down frames of a frame for every client (each a packet behind the timing
//! report and input ack): on this thread, or spread over several with
//! [`netschema::owned::Server::split`].

use std::thread;
use std::time::{Duration, Instant};

use netschema::Protocol;
use netschema::owned::{ClientId, Connection, Frame};

use crate::wire::MAX_DOWN;

/// One client's down frame for the frame.
#[derive(Debug)]
pub(crate) struct Packet {
    /// Whose it is.
    pub(crate) client: ClientId,
    /// Its length in `bytes`, or why it could not be written.
    pub(crate) len: netschema::Result<usize>,
    /// Room for it: the byte budget and the frame's header.
    pub(crate) bytes: Box<[u8; MAX_DOWN]>,
}

/// Encodes the down frame of `frame` for every connection into `packets` (resized to match), on
/// `threads` threads: the calling one and `threads - 1` scoped ones, each taking a run of
/// connections. The frames are the same whatever the number of threads. Returns the longest
/// time one thread spent encoding: the whole call also waits for the threads to start and end.
pub(crate) fn encode_all<P: Protocol>(
    frame: &Frame<'_, P>,
    connections: &mut [Connection],
    packets: &mut Vec<Packet>,
    threads: usize,
) -> Duration {
    packets.resize_with(connections.len(), || Packet {
        client: connections[0].client(),
        len: Ok(0),
        bytes: Box::new([0; MAX_DOWN]),
    });
    let run = connections.len().div_ceil(threads.max(1)).max(1);
    thread::scope(|s| {
        let mut jobs = connections.chunks_mut(run).zip(packets.chunks_mut(run));
        let here = jobs.next();
        let spawned: Vec<_> = jobs
            .map(|(connections, packets)| s.spawn(move || encode_run(frame, connections, packets)))
            .collect();
        let mine = here.map_or(Duration::ZERO, |(c, p)| encode_run(frame, c, p));
        spawned.into_iter().map(|t| t.join().unwrap_or_default()).fold(mine, Duration::max)
    })
}

/// Encodes a run of connections; returns how long it took.
fn encode_run<P: Protocol>(
    frame: &Frame<'_, P>,
    connections: &mut [Connection],
    out: &mut [Packet],
) -> Duration {
    let start = Instant::now();
    for (c, packet) in connections.iter_mut().zip(out) {
        packet.client = c.client();
        packet.len = c.write(frame, &mut packet.bytes[..]);
    }
    start.elapsed()
}
