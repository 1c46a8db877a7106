//! Many clients of one server: the shared world captured once per frame, then one packet per
//! client encoded against it, the clients' peers spread over a pool of threads.
//!
//! Every client sees the scenario's snapshots over a link of its own (the same latency and
//! loss, its own seed), so the clients' acks, baselines and packets differ. Clients are
//! simulated by their acks ([`Peer::ack_of`]): a client acknowledges each packet that reaches
//! it, naming every earlier one that did. What is measured is the server's work per frame:
//! encoding all peers, with `threads` threads, after the capture (which every server does once
//! whatever its number of clients). Packets do not depend on the number of threads.

use std::collections::BTreeSet;
use std::time::Instant;

use netschema_runtime::owned::{PeerBuffers, WorldBuffers};
use netschema_runtime::schema::Schema;
use netschema_runtime::{Ack, Peer};
use rayon::prelude::*;

use crate::netschema::{Capture, handles_for};
use crate::{Error, Link, Snapshot};

/// How many clients, over what link, on how many threads.
#[derive(Clone, Copy, Debug)]
pub struct FleetConfig {
    /// Clients of the server.
    pub clients: usize,
    /// Threads encoding the clients' packets.
    pub threads: usize,
    /// One-way latency of every link, in frames.
    pub latency: u32,
    /// Loss probability of every packet and ack.
    pub loss: f64,
    /// Seed of the links (client `i`'s link gets `seed + i`).
    pub seed: u64,
    /// Byte budget of every packet; `None`: room for everything.
    pub budget: Option<usize>,
}

/// What a fleet run measured.
#[derive(Clone, Debug)]
pub struct FleetReport {
    /// The run's configuration.
    pub config: FleetConfig,
    /// Frames encoded.
    pub frames: usize,
    /// Median time to encode every client's packet for one frame, in milliseconds.
    pub encode_ms: f64,
    /// Client-entity updates encoded (every client's visible entities, every frame).
    pub updates: u64,
    /// Client-entity updates per second of encoding, per thread.
    pub updates_per_core_s: f64,
    /// Mean packet length, bytes.
    pub bytes_mean: f64,
    /// A digest of every packet, in order: equal across thread counts.
    pub digest: u64,
}

/// One client: its peer, packet buffer and links.
struct Remote {
    peer: Peer<'static>,
    buf: Vec<u8>,
    len: usize,
    down: Link,
    up: Link,
    /// Frames whose packets reached the client, newest last.
    received: BTreeSet<u32>,
}

/// Runs `snapshots` of `schema` (at most `capacity` entities) through one server with
/// `config.clients` clients.
pub fn run(
    schema: &'static Schema,
    capacity: usize,
    snapshots: &[Snapshot],
    config: FleetConfig,
) -> Result<FleetReport, Error> {
    let handles = handles_for(capacity);
    let ids = handles;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads.max(1))
        .build()
        .map_err(|e| Error::Unsupported(format!("no thread pool: {e}")))?;
    let mut world = Box::leak(Box::new(WorldBuffers::new(schema, ids))).world(schema, ids)?;
    let mut capture = Capture::new(ids);
    let buf_len = config.budget.unwrap_or(4096 + handles * (8 + 6 * schema.max_fields));
    let mut remotes = (0..config.clients)
        .map(|i| {
            let buffers = Box::leak(Box::new(PeerBuffers::new(schema, handles, ids)));
            let seed = config.seed.wrapping_add(i as u64);
            Ok(Remote {
                peer: buffers.peer(schema, handles, ids)?,
                buf: vec![0; buf_len],
                len: 0,
                down: Link::new(config.latency, config.loss, seed),
                up: Link::new(config.latency, config.loss, seed ^ 0x5eed),
                received: BTreeSet::new(),
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let mut times = Vec::with_capacity(snapshots.len());
    let (mut updates, mut bytes, mut digest) = (0u64, 0u64, 0xcbf2_9ce4_8422_2325u64);
    for (frame, s) in (0u32..).zip(snapshots) {
        capture.frame(&mut world, frame, s, |slot, visible| {
            remotes.iter_mut().try_for_each(|r| r.peer.set_visible(slot, visible))
        })?;
        let world = &world;
        let started = Instant::now();
        let encoded: Result<(), Error> = pool.install(|| {
            remotes.par_iter_mut().try_for_each(|r| {
                r.len =
                    r.peer.encode(world, &mut r.buf).map_err(|e| Error::Encode(e.to_string()))?;
                Ok(())
            })
        });
        encoded?;
        times.push(started.elapsed().as_secs_f64());
        updates += (s.len() * remotes.len()) as u64;
        let now = f64::from(frame);
        for r in &mut remotes {
            bytes += r.len as u64;
            for &b in &r.buf[..r.len] {
                digest = (digest ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
            r.down.send(now, &frame.to_le_bytes());
            deliver(r, now);
        }
    }
    times.sort_by(f64::total_cmp);
    let total: f64 = times.iter().sum();
    let frames = snapshots.len();
    Ok(FleetReport {
        config,
        frames,
        encode_ms: times.get(frames / 2).copied().unwrap_or(0.0) * 1e3,
        updates,
        updates_per_core_s: updates as f64 / (total * config.threads.max(1) as f64).max(1e-9),
        bytes_mean: bytes as f64 / (frames * config.clients).max(1) as f64,
        digest,
    })
}

/// Moves `r`'s packets and acks due at `now`: each packet that arrives is acknowledged with
/// every earlier frame that did; acks that arrive reach the peer.
fn deliver(r: &mut Remote, now: f64) {
    for packet in r.down.receive(now) {
        let Ok(frame) = packet.try_into().map(u32::from_le_bytes) else { continue };
        if r.received.last().is_some_and(|&newest| newest >= frame) {
            continue; // Stale: a client refuses it.
        }
        r.received.insert(frame);
        let received = &r.received;
        if let Some(ack) = r.peer.ack_of(frame, |f| received.contains(&f)) {
            let mut bytes = [0; Ack::MAX_LEN];
            if let Ok(len) = ack.write(&mut bytes) {
                r.up.send(now, &bytes[..len]);
            }
        }
        while r.received.len() > 64 {
            r.received.pop_first();
        }
    }
    for bytes in r.up.receive(now) {
        if let Ok(ack) = Ack::read(&bytes) {
            r.peer.receive_ack(&ack);
        }
    }
}
