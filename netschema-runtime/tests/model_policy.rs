//! The batched model policy: models named by packets, dropped models, memory and the hash.

mod support;

use netschema_runtime::model::{ModelLayout, ModelPolicy};

use netschema_runtime::{ClientStorage, Error, PeerStorage};
use support::*;

const ENTITIES: usize = 40;

/// Pairs of frames, one model kept: a client drops a model as soon as it builds the next.
static PAIRS: netschema_runtime::schema::Schema =
    SCHEMA.with_policy(ModelPolicy::Batched { batch: 2, kept: 1 });

/// A server that does not hear from its client for a while keeps coding with a model the
/// client has replaced since: the client refuses those packets with `UnknownModel` and
/// nothing changes; once an ack gets through, the server codes with the client's newest model
/// and the stream goes on, exact.
#[test]
fn a_packet_coded_with_a_dropped_model_is_refused_and_the_stream_recovers() {
    let schema = &PAIRS;
    let (mut world, mut peer, mut client) = session(schema, ENTITIES, ENTITIES);
    for id in 0..ENTITIES {
        peer.set_visible(id, true).unwrap();
    }
    let mut sim = Sim::new(3, ENTITIES);
    let mut buf = vec![0u8; 1 << 14];
    let (mut refused, mut recovered) = (0, false);
    let mut young = YoungLog::default();
    for now in 0..120u32 {
        sim.step(&mut world);
        let frame = world.frame().unwrap();
        let len = peer.encode(&world, &mut buf).unwrap();
        young.sent(&peer, frame);
        // The model the packet is coded with, as the client keeps it (if it does).
        let used = peer.batch_model();
        let kept = used.map(|(start, _)| client.batch_model_digest(start));
        let before = (client.frame(), client.frame().and_then(|f| client.model_digest(f)));
        let view: Vec<_> = client.view().map(|(h, c, r)| (h, c, r.to_vec())).collect();
        match client.decode(&buf[..len]) {
            Ok(f) => {
                assert_eq!(f, frame);
                let want = young.decoded(f, &record(schema, &world, &peer));
                assert_eq!(frame_view(&client), want, "frame {f}");
                assert_eq!(client.model_digest(f), peer.model_digest(f), "frame {f}");
                assert_eq!(kept, used.map(|(_, digest)| Some(digest)), "frame {f}");
                recovered |= refused > 0;
            }
            Err(e) => {
                assert_eq!(e, Error::UnknownModel, "frame {frame}");
                assert!((40..=60).contains(&now), "frame {frame} refused");
                assert_eq!(kept, Some(None), "frame {frame}: the client keeps the model");
                let after = (client.frame(), client.frame().and_then(|f| client.model_digest(f)));
                assert_eq!(before, after);
                let after: Vec<_> = client.view().map(|(h, c, r)| (h, c, r.to_vec())).collect();
                assert_eq!(view, after, "a refused packet changed the view");
                refused += 1;
            }
        }
        // Acks are lost from frame 40 to 59; the next packet is coded before the ack of 60 is in.
        if !(40..60).contains(&now) {
            peer.receive_ack(&client.ack().unwrap());
        }
    }
    assert!(refused > 10, "{refused} packets refused");
    assert!(recovered, "the stream did not recover");
}

/// Per frame, a peer stores 8 sets compactly (for its model frame and the frames in flight
/// that keep their models) and codes in scratch room of two whole sets (one to code in, one
/// to save models in) that the peers of a server share; a client keeps a whole set to decode
/// in and stores 8 (for the newest model frame named and the frames decoded since). A batched peer keeps its model in use
/// and an accumulator per batch an ack may prove; a batched client its kept models, one
/// accumulator and a working set: far less than a set per frame slot.
#[test]
fn model_storage_follows_the_policy() {
    let set = 1 + 2 + 7; // packet model, two classes' entity models, seven fields
    let model = core::mem::size_of::<netschema_runtime::model::Model>();
    let peer = |s| PeerStorage::sizes(s, 100, 100);
    let client = |s| ClientStorage::sizes(s, 100);
    assert_eq!(peer(&SCHEMA).models, 0);
    assert_eq!(peer(&SCHEMA).scratch.models, 2 * set);
    assert_eq!(client(&SCHEMA).models, set);
    // Stored sets leave out what the fields never change: smaller than whole ones.
    let stored = peer(&SCHEMA).stored / 8;
    assert_eq!(peer(&SCHEMA).stored, 8 * stored);
    assert_eq!(client(&SCHEMA).stored, 8 * stored);
    assert!(2 * stored < set * model);
    // Batches of 10: accumulators for 32 / 10 + 1 = 4 batches.
    assert_eq!(peer(&BATCHED).models, (1 + 4) * set);
    assert_eq!(peer(&BATCHED).scratch.models, 2 * set);
    assert_eq!(client(&BATCHED).models, (7 + 2) * set);
    assert_eq!((peer(&BATCHED).stored, client(&BATCHED).stored), (0, 0));
}

/// The policy is part of the schema hash, so ends with different policies refuse each
/// other; per frame leaves the hash as it was.
#[test]
fn the_policy_joins_the_schema_hash() {
    assert_ne!(SCHEMA.hash, BATCHED.hash);
    assert_ne!(BATCHED.hash, BATCHED_SMALL.hash);
    assert_eq!(SCHEMA.with_policy(ModelPolicy::PerFrame).hash, SCHEMA.hash);
    let invalid = SCHEMA.with_policy(ModelPolicy::Batched { batch: 0, kept: 1 });
    assert_eq!(invalid.validate(), Err(Error::InvalidSchema));
}

/// A prior written from what a peer learned starts every connection of a schema that embeds
/// it: its first packets are smaller than cold ones, both ends agree, and a prior written for
/// another schema is refused.
#[test]
fn a_prior_starts_connections_warm() {
    fn first_bytes(schema: &netschema_runtime::schema::Schema, frames: u32) -> (usize, Vec<u8>) {
        let (mut world, mut peer, mut client) = session(schema, ENTITIES, ENTITIES);
        for id in 0..ENTITIES {
            peer.set_visible(id, true).unwrap();
        }
        let mut sim = Sim::new(11, ENTITIES);
        let (mut buf, mut total) = (vec![0u8; 1 << 14], 0);
        for _ in 0..frames {
            sim.step(&mut world);
            let len = peer.encode(&world, &mut buf).unwrap();
            total += len;
            let f = client.decode(&buf[..len]).unwrap();
            assert_eq!(client.model_digest(f), peer.model_digest(f));
            peer.receive_ack(&client.ack().unwrap());
        }
        let mut prior = vec![0u8; ModelLayout::prior_len(schema)];
        ModelLayout::write_prior(schema, peer.learned().unwrap(), &mut prior).unwrap();
        (total, prior)
    }
    let (_, prior) = first_bytes(&SCHEMA, 300);
    let warm = SCHEMA.with_prior(Box::leak(prior.clone().into_boxed_slice()));
    assert_eq!(warm.validate(), Ok(()));
    assert_ne!(warm.hash, SCHEMA.hash);
    let (cold, _) = first_bytes(&SCHEMA, 20);
    let (started, _) = first_bytes(&warm, 20);
    assert!(started < cold, "{started} bytes with the prior, {cold} cold");
    let other = BATCHED.with_prior(Box::leak(prior.into_boxed_slice()));
    assert_eq!(other.validate(), Err(Error::InvalidSchema));
}
