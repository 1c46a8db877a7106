//! A crowd far bigger than one packet, replicated in packets of at most 1200 bytes: what the
//! client sees first and most often is what matters to it (nearest its camera), and positions
//! carry a tolerance.
//!
//! ```sh
//! cargo run --release --example budget
//! ```
//!
//! Every second it prints the largest packet, the bandwidth, how many units the client holds
//! and how stale their values are near the camera and far from it. The lines that talk to
//! netschema are marked `// ns`.

use netschema::engine::peer::DEFAULT_BUDGET;
use netschema::owned::{Client, Server, ServerConfig};
use netschema::{Error, Protocol, Snapshot};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)] // ns
struct Unit {
    #[netschema(vec2(fixed(0.0, 2048.0, res = 1 / 64)), tolerance = 1 / 32)] // ns
    pos: [f32; 2],
    #[netschema(int(0, 1000))] // ns
    hp: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)] // ns
enum Crowd {
    Unit(Unit),
}

const UNITS: u64 = 8000;
const HZ: u32 = 60;

/// Unit `id` at tick `t`: walking in a circle of its own, losing hit points slowly.
fn unit(id: u64, t: u32) -> Unit {
    let phase = id as f32 * 0.37 + t as f32 * 0.01 * (1.0 + (id % 5) as f32 * 0.2);
    let centre = [(id % 100) as f32 * 16.0 + 40.0, (id / 100) as f32 * 16.0 + 40.0];
    Unit {
        pos: [centre[0] + 6.0 * phase.cos(), centre[1] + 6.0 * phase.sin()],
        hp: 1000 - ((t / 7 + id as u32) % 1000) as u16,
    }
}

fn main() -> Result<(), Error> {
    let config = ServerConfig::new(UNITS as usize, UNITS as usize);
    let mut server = Server::<Crowd>::new(config)?; // ns
    let mut hello = [0; 64];
    let n = Client::<Crowd>::hello(&mut hello)?; // ns
    let who = server.connect(&hello[..n])?; // ns
    let mut welcome = [0; 64];
    let n = server.welcome(&mut welcome)?; // ns
    let mut client = Client::<Crowd>::connect(&welcome[..n], UNITS as usize)?; // ns
    let camera = [200.0f32, 200.0];

    let mut packet = [0u8; DEFAULT_BUDGET]; // ns: the buffer is the byte budget
    let (mut largest, mut bytes) = (0, 0);
    for t in 0..5 * HZ {
        server.begin_frame(); // ns
        for id in 0..UNITS {
            let u = unit(id, t);
            server.set(id, &u)?; // ns
            let d = (u.pos[0] - camera[0]).hypot(u.pos[1] - camera[1]);
            if t == 0 {
                server.set_visible(who, id, true)?; // ns
            }
            // Nearer units matter more: weight 1 far away, up to 64 next to the camera.
            let weight = (64.0 * 32.0 / (32.0 + d)).max(1.0) as u16;
            server.set_priority(who, id, weight)?; // ns
        }
        let len = server.encode(who, &mut packet)?; // ns
        (largest, bytes) = (largest.max(len), bytes + len);
        client.decode(&packet[..len])?; // ns (a perfect link here: see examples/replicate.rs)
        let ack = client.ack().expect("a frame was decoded"); // ns
        server.receive_ack(who, &ack)?; // ns

        if (t + 1) % HZ == 0 {
            let (mut near, mut far) = (Vec::new(), Vec::new());
            for id in 0..UNITS {
                let u = unit(id, t);
                let d = (u.pos[0] - camera[0]).hypot(u.pos[1] - camera[1]);
                if let Some(s) = server.staleness(who, id)? {
                    if d < 100.0 { near.push(s) } else { far.push(s) }
                }
            }
            let mean = |v: &[u32]| v.iter().sum::<u32>() as f64 / v.len().max(1) as f64;
            println!(
                "{:>2} s: largest packet {largest} B, {:.0} kbit/s, client holds {} of {UNITS} \
                 units; frames since sent: {:.1} near the camera, {:.1} far",
                (t + 1) / HZ,
                bytes as f64 * 8.0 / 1000.0,
                client.entities().count(),
                mean(&near),
                mean(&far),
            );
            (largest, bytes) = (0, 0);
        }
    }
    Ok(())
}
