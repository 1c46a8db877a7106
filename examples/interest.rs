//! Visibility driven by interest management: three shepherds walk about a field of 400
//! wandering sheep. Each sees the sheep within 30 m (until they are beyond 35 m) and always
//! itself; halfway through, 100 sheep are taken away.
//!
//! ```sh
//! cargo run --release --example interest
//! ```

use netschema::owned::{Client, ClientId, Interest, Server, ServerConfig, View};
use netschema::{Error, Protocol, Snapshot};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Body {
    #[netschema(vec2(fixed(-128.0, 128.0, res = 1 / 64)))]
    pos: [f32; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
enum Pasture {
    Body(Body),
}

/// Entity ids: the shepherds first, then the sheep.
const SHEPHERDS: u64 = 3;
const SHEEP: u64 = 400;

/// Where entity `id` is at `tick`: on a circle of its own, shepherds on wider ones.
fn position(id: u64, tick: u32) -> [f32; 2] {
    let seed = id.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
    let (cx, cy) = ((seed % 160) as f32 - 80.0, (seed / 160 % 160) as f32 - 80.0);
    let radius = if id < SHEPHERDS { 40.0 } else { 2.0 + (seed % 7) as f32 };
    let angle = tick as f32 / 60.0 + seed as f32;
    [cx + radius * angle.cos(), cy + radius * angle.sin()]
}

fn main() -> Result<(), Error> {
    let mut server = Server::<Pasture>::new(ServerConfig::new(512, 512))?;
    let mut interest = Interest::<ClientId, 2>::new(35.0);
    let mut shepherds = Vec::new();
    for avatar in 0..SHEPHERDS {
        let mut msg = [0; 64];
        let n = Client::<Pasture>::hello(&mut msg)?;
        let id = server.connect(&msg[..n])?;
        let n = server.welcome(&mut msg)?;
        let client = Client::<Pasture>::connect(&msg[..n], 512)?;
        interest.set_view(id, View { pos: position(avatar, 0), enter: 30.0, leave: 35.0 });
        interest.set_always(id, avatar, true);
        shepherds.push((id, client, avatar));
    }

    let mut packet = vec![0; 1 << 16];
    for tick in 0..600 {
        let flock = if tick < 300 { SHEEP } else { SHEEP - 100 };
        server.begin_frame();
        for id in 0..SHEPHERDS + flock {
            let pos = position(id, tick);
            server.set(id, &Body { pos })?;
            interest.set_entity(id, pos);
        }
        if tick == 300 {
            for id in SHEPHERDS + flock..SHEPHERDS + SHEEP {
                server.remove(id);
                interest.remove_entity(id);
            }
        }
        for (id, _, avatar) in &shepherds {
            let pos = position(*avatar, tick);
            interest.set_view(*id, View { pos, enter: 30.0, leave: 35.0 });
        }
        interest.update_server(&mut server)?;

        for (id, client, _) in &mut shepherds {
            let n = server.encode(*id, &mut packet)?;
            client.decode(&packet[..n])?;
            if let Some(ack) = client.ack() {
                server.receive_ack(*id, &ack)?;
            }
            if tick % 100 == 99 {
                let (held, visible) = (client.entities().count(), interest.visible(*id).len());
                println!("tick {tick}: {id} holds {held} entities, the grid shows it {visible}");
            }
        }
    }
    Ok(())
}
