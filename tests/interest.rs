//! Interest management driving an owned server: after every update each client decodes
//! exactly the entities the grid shows it, while entities move, go away, come back under their
//! ids, and are removed and added again within a frame.

use std::collections::BTreeSet;

use netschema::owned::{Client, ClientId, Interest, Server, ServerConfig, View};
use netschema::{Protocol, Snapshot};

/// An entity that carries its id, so that a client can name what it holds.
#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Tagged {
    #[netschema(int(0, 255))]
    id: u8,
    #[netschema(vec2(fixed(-64.0, 64.0, res = 1 / 16)))]
    pos: [f32; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
enum Game {
    Tagged(Tagged),
}

const ENTITIES: u8 = 100;

/// Where entity (or client) `n` is at `tick`: on a circle about a centre of its own.
fn position(n: u64, tick: u32) -> [f32; 2] {
    let centre = [(n * 37 % 80) as f32 - 40.0, (n * 53 % 80) as f32 - 40.0];
    let (radius, angle) = ((n % 15) as f32, (tick as f32 + n as f32) / 20.0);
    [centre[0] + radius * angle.cos(), centre[1] + radius * angle.sin()]
}

#[test]
fn clients_decode_what_the_grid_shows() {
    let config = ServerConfig::new(256, 256);
    let mut server = Server::<Game>::new(config).unwrap();
    let mut interest = Interest::<ClientId, 2>::new(8.0);
    let mut clients = Vec::new();
    for _ in 0..3 {
        let mut msg = [0; 64];
        let n = Client::<Game>::hello(&mut msg).unwrap();
        let who = server.connect(&msg[..n]).unwrap();
        let n = server.welcome(&mut msg).unwrap();
        clients.push((who, Client::<Game>::connect(&msg[..n], 256).unwrap()));
    }
    let mut packet = vec![0; 1 << 16];
    for tick in 0..200 {
        server.begin_frame();
        for id in 0..ENTITIES {
            let n = u64::from(id);
            let renewed = tick % 25 == 0 && id % 11 == 0;
            if renewed || (id % 7 == 0 && tick / 10 % 2 == 1) {
                server.remove(n);
                interest.remove_entity(n);
            }
            if id % 7 != 0 || tick / 10 % 2 == 0 {
                let pos = position(n, tick);
                server.set(n, &Tagged { id, pos }).unwrap();
                interest.set_entity(n, pos);
            }
        }
        for (i, (who, _)) in (200..).zip(&clients) {
            interest.set_view(*who, View { pos: position(i, tick), enter: 20.0, leave: 24.0 });
            if tick == 50 {
                interest.set_always(*who, i - 193, true);
            }
        }
        interest.update_server(&mut server).unwrap();
        for (who, client) in &mut clients {
            let n = server.encode(*who, &mut packet).unwrap();
            client.decode(&packet[..n]).unwrap();
            if let Some(ack) = client.ack() {
                server.receive_ack(*who, &ack).unwrap();
            }
            let held: BTreeSet<u64> =
                client.entities().map(|(_, Game::Tagged(t))| u64::from(t.id)).collect();
            let shown: BTreeSet<u64> = interest.visible(*who).collect();
            assert_eq!(held, shown, "tick {tick}, {who}");
        }
    }
}
