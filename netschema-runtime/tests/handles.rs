//! Handles follow the world's entities when few change: a peer whose visible set and world
//! stayed as they were leaves its handles alone, and an entity removed or spawned after quiet
//! frames leaves and enters as ever, also when the world changes between two peers' packets of
//! one frame.

mod support;

use netschema_runtime::owned::{ClientBuffers, PeerBuffers, WorldBuffers};
use netschema_runtime::{Client, Peer, World};
use support::*;

const ENTITIES: usize = 8;
const HANDLES: usize = 8;

/// A ball at `id`'s place, still.
fn ball(id: usize) -> [i32; 5] {
    [id as i32 * 100, 7, 12, 1, 0]
}

/// Encodes `peer`'s packet for the world's frame, delivers it to `client` and returns the ack;
/// the client's frame then equals what the peer records it holds.
fn exchange(world: &World<'_>, peer: &mut Peer<'_>, client: &mut Client<'_>) {
    let mut buf = [0u8; 1200];
    let len = peer.encode(world, &mut buf).unwrap();
    client.decode(&buf[..len]).unwrap();
    assert_eq!(frame_view(client), record(&SCHEMA, world, peer), "frame {:?}", world.frame());
    peer.receive_ack(&client.ack().unwrap());
}

#[test]
fn quiet_frames_keep_handles_and_changes_still_reach_every_client() {
    let mut wb = WorldBuffers::new(&SCHEMA, ENTITIES);
    let mut world = wb.world(&SCHEMA, ENTITIES).unwrap();
    let (mut pa, mut pb) = (
        PeerBuffers::new(&SCHEMA, HANDLES, ENTITIES),
        PeerBuffers::new(&SCHEMA, HANDLES, ENTITIES),
    );
    let (mut ca, mut cb) =
        (ClientBuffers::new(&SCHEMA, HANDLES), ClientBuffers::new(&SCHEMA, HANDLES));
    let mut peers = [
        pa.peer(&SCHEMA, HANDLES, ENTITIES).unwrap(),
        pb.peer(&SCHEMA, HANDLES, ENTITIES).unwrap(),
    ];
    let mut clients = [ca.client(&SCHEMA, HANDLES).unwrap(), cb.client(&SCHEMA, HANDLES).unwrap()];
    let crate_row = [40, 1];
    for frame in 0..60u32 {
        world.begin_frame();
        for id in 0..ENTITIES {
            // The game marks every entity visible every frame: marks that change nothing
            // leave the peer's handles as they are.
            for peer in &mut peers {
                peer.set_visible(id, true).unwrap();
            }
            match (id, frame) {
                (3, 20..40) => {}
                (3, 40..) => world.set(3, 1, &crate_row).unwrap(),
                _ => world.set(id, 0, &ball(id)).unwrap(),
            }
        }
        let [a, b] = &mut peers;
        let [ca, cb] = &mut clients;
        if frame == 19 {
            // A mark that changes something: peer A's handles are worked out anew this frame.
            a.set_own(0, true).unwrap();
        }
        exchange(&world, a, ca);
        // Between the two peers' packets of frame 19, entity 3 goes.
        if frame == 19 {
            world.remove(3);
        }
        exchange(&world, b, cb);
        let held = |peer: &Peer<'_>| peer.handle_of(3).is_some();
        match frame {
            // Peer A's frame 19 still shows entity 3, peer B's does not.
            19 => assert!(held(a) && !held(b)),
            20..40 => assert!(!held(a) && !held(b), "frame {frame}"),
            _ => assert!(held(a) && held(b), "frame {frame}"),
        }
        for client in &clients {
            let classes: Vec<usize> = client.view().map(|(_, class, _)| class).collect();
            let crates = classes.iter().filter(|&&c| c == 1).count();
            assert_eq!(crates, usize::from(frame >= 40), "frame {frame}");
        }
    }
}
