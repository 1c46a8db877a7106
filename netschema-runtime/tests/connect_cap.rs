//! What connecting costs the server: a flood of hellos commits at most `max_pending` peers,
//! clients beyond the caps are refused without allocating, a client that proves it receives
//! is established and replicates, and one that never does expires.

mod support;

use std::collections::VecDeque;

use netschema_runtime::owned::{Client, ClientId, Server, ServerConfig};
use netschema_runtime::schema::Schema;
use netschema_runtime::{Ack, AckOutcome, Error, PeerStorage, Protocol, Value};
use support::SCHEMA;

const ENTITIES: usize = 1000;
const HANDLES: usize = 256;

/// A value of the test schema, raw: the owned server without generated code.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Row {
    class: usize,
    raw: [i32; 5],
}

impl Protocol for Row {
    const SCHEMA: &'static Schema = &SCHEMA;

    fn class(&self) -> usize {
        self.class
    }

    fn quantise_with(&self, raw: &mut [i32], _: &mut dyn FnMut(usize, Value)) {
        let n = raw.len().min(self.raw.len());
        raw[..n].copy_from_slice(&self.raw[..n]);
    }

    fn dequantise(class: usize, raw: &[i32]) -> Option<Self> {
        let mut row = Row { class, raw: [0; 5] };
        let n = raw.len().min(row.raw.len());
        row.raw[..n].copy_from_slice(&raw[..n]);
        Some(row)
    }
}

/// A ball at `x`.
fn ball(x: i32) -> Row {
    Row { class: 0, raw: [x, 200, 7, 1, 0] }
}

fn hello() -> Vec<u8> {
    let mut hello = [0; 64];
    let n = Client::<Row>::hello(&mut hello).unwrap();
    hello[..n].to_vec()
}

fn peer_bytes() -> usize {
    let config = ServerConfig::new(ENTITIES, HANDLES);
    PeerStorage::sizes(&SCHEMA, HANDLES, config.interest).bytes()
}

/// Sends `client` the current frame's packet and proves it with the ack a receiver would send.
fn prove(server: &mut Server<Row>, client: ClientId) -> AckOutcome {
    let frame = server.frame().unwrap();
    server.encode(client, &mut [0; 1200]).unwrap();
    let ack = server.ack_of(client, frame, |_| true).unwrap().unwrap();
    server.receive_ack(client, &ack).unwrap()
}

#[test]
fn a_flood_of_hellos_commits_at_most_max_pending_peers() {
    let config = ServerConfig::new(ENTITIES, HANDLES);
    let mut server = Server::<Row>::new(config).unwrap();
    let (hello, peer) = (hello(), peer_bytes());
    server.begin_frame();

    // 20,000 hellos at once, none of which ever acks.
    let mut accepted = 0;
    let burst = allocation_counter::measure(|| {
        for _ in 0..20_000 {
            match server.connect(&hello) {
                Ok(_) => accepted += 1,
                Err(e) => assert_eq!(e, Error::TooManyPending { max: config.max_pending }),
            }
        }
    });
    assert_eq!(accepted, config.max_pending);
    assert_eq!(server.connection_bytes(), config.max_pending * peer);
    // The heap holds the peers and little else: the connection list (each entry a peer's
    // state and its buffers' handles, with room for an input stream's) and the id map.
    let bound = (config.max_pending * (peer + 5184)) as u64;
    assert!(burst.bytes_max <= bound, "{} bytes allocated, bound {bound}", burst.bytes_max);

    // 20,000 more over 400 frames: each time the pending clients expire, as many are
    // accepted in their place, and storage stays the same.
    let mut accepted = 0;
    let steady = allocation_counter::measure(|| {
        for _ in 0..400 {
            server.begin_frame();
            for _ in 0..50 {
                accepted += usize::from(server.connect(&hello).is_ok());
            }
            assert!(server.connection_bytes() <= config.max_pending * peer);
        }
    });
    // Expiries at frames 129, 258 and 387 after the burst.
    assert_eq!(accepted, 3 * config.max_pending);
    assert!(steady.bytes_current < peer as i64, "{} bytes more", steady.bytes_current);
    assert!(steady.bytes_max <= bound, "{} bytes allocated, bound {bound}", steady.bytes_max);
    eprintln!(
        "peer: {peer} bytes; after 20,000 hellos: {} bytes of connections, {} of heap at most",
        server.connection_bytes(),
        burst.bytes_max.max(steady.bytes_max),
    );
}

#[test]
fn clients_past_the_caps_are_refused_without_allocating() {
    let config = ServerConfig { max_clients: 3, max_pending: 2, ..ServerConfig::new(64, 64) };
    let mut server = Server::<Row>::new(config).unwrap();
    let hello = hello();
    server.begin_frame();
    let first = server.connect(&hello).unwrap();
    let second = server.connect(&hello).unwrap();
    let refused = allocation_counter::measure(|| {
        assert_eq!(server.connect(&hello), Err(Error::TooManyPending { max: 2 }));
    });
    assert_eq!(refused.count_total, 0);

    // A proven client frees its pending place, but still counts against the cap.
    assert_eq!(prove(&mut server, first), AckOutcome::Accepted);
    let third = server.connect(&hello).unwrap();
    let refused = allocation_counter::measure(|| {
        assert_eq!(server.connect(&hello), Err(Error::TooManyClients { max: 3 }));
    });
    assert_eq!(refused.count_total, 0);
    assert_eq!(server.clients().collect::<Vec<_>>(), [first, second, third]);

    // Leaving makes room.
    server.disconnect(second).unwrap();
    assert!(server.connect(&hello).is_ok());
    // A hello of another schema is refused as such, full or not.
    let mut other = hello.clone();
    other[13] ^= 1;
    assert!(matches!(server.connect(&other), Err(Error::SchemaMismatch { .. })));
}

#[test]
fn a_client_that_proves_an_ack_is_established_and_replicates() {
    let config = ServerConfig::new(ENTITIES, HANDLES);
    let mut server = Server::<Row>::new(config).unwrap();
    let who = server.connect(&hello()).unwrap();
    let mut welcome = [0; 64];
    let n = server.welcome(&mut welcome).unwrap();
    let mut client = Client::<Row>::connect(&welcome[..n], HANDLES).unwrap();

    // Acks arrive three frames after their packet.
    let (mut acks, mut buf, mut out) = (VecDeque::<(u32, Ack)>::new(), [0; 1200], [0; 5]);
    let mut proven_at = None;
    for frame in 0..3 * config.pending_frames {
        server.begin_frame();
        assert!(server.expired().is_empty(), "frame {frame}");
        server.set_entity(7, &ball(100 + 3 * frame as i32)).unwrap();
        server.set_visible(who, 7, true).unwrap();
        let n = server.encode(who, &mut buf).unwrap();
        client.decode(&buf[..n]).unwrap();
        let (handle, _) = server.client_view(who, 7, &mut out).unwrap().unwrap();
        assert_eq!(client.entity(handle), Some(ball(100 + 3 * frame as i32)), "frame {frame}");
        acks.push_back((frame + 3, client.ack().unwrap()));
        while acks.front().is_some_and(|&(at, _)| at <= frame) {
            let (_, ack) = acks.pop_front().unwrap();
            let proven = server.is_proven(who).unwrap();
            assert_eq!(proven, proven_at.is_some());
            let outcome = server.receive_ack(who, &ack).unwrap();
            if !proven {
                assert_eq!(outcome, AckOutcome::Accepted);
                proven_at = Some(frame);
            }
            assert!(server.is_proven(who).unwrap());
        }
    }
    assert_eq!(proven_at, Some(3));
    // Cold until the first ack came back, warm since.
    let stats = server.stats(who).unwrap();
    assert_eq!((stats.packets, stats.cold_packets), (u64::from(3 * config.pending_frames), 4));
}

#[test]
fn an_unproven_client_expires() {
    let config = ServerConfig::new(64, 64);
    let mut server = Server::<Row>::new(config).unwrap();
    let hello = hello();
    server.begin_frame();
    let (silent, liar, honest) = (
        server.connect(&hello).unwrap(),
        server.connect(&hello).unwrap(),
        server.connect(&hello).unwrap(),
    );
    for frame in 1..=config.pending_frames {
        server.begin_frame();
        assert!(server.expired().is_empty(), "frame {frame}");
        for client in [silent, liar, honest] {
            server.encode(client, &mut [0; 1200]).unwrap();
        }
        // A forged proof and a forged restart request prove nothing.
        let ack = server.ack_of(liar, frame, |_| true).unwrap().unwrap();
        let forged = Ack { proof: ack.proof ^ 1, ..ack };
        assert_eq!(server.receive_ack(liar, &forged), Ok(AckOutcome::Refused));
        let restart = Ack::restart([ack.proof, ack.bits]);
        assert_eq!(server.receive_ack(liar, &restart), Ok(AckOutcome::Refused));
        if frame == config.pending_frames {
            let ack = server.ack_of(honest, frame, |_| true).unwrap().unwrap();
            assert_eq!(server.receive_ack(honest, &ack), Ok(AckOutcome::Accepted));
        }
    }
    assert!(!server.is_proven(silent).unwrap() && !server.is_proven(liar).unwrap());

    server.begin_frame();
    assert_eq!(server.expired(), [silent, liar]);
    for gone in [silent, liar] {
        let encoded = server.encode(gone, &mut [0; 1200]);
        assert!(matches!(encoded, Err(Error::UnknownClient { .. })), "{encoded:?}");
        assert!(server.is_proven(gone).is_err());
    }
    assert_eq!(server.clients().collect::<Vec<_>>(), [honest]);
    assert!(server.encode(honest, &mut [0; 1200]).is_ok());
    server.begin_frame();
    assert!(server.expired().is_empty());
}
