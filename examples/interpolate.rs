//! Client interpolation: a server ticking at 30 Hz, a client rendering at 144 Hz over a link
//! that delays packets by 2 to 3 ticks and loses 10 % of them, and ships flying circles.
//!
//! ```sh
//! cargo run --release --example interpolate
//! ```
//!
//! Rendered straight from the newest packet, a ship stands still for several render frames,
//! then jumps a whole tick ahead (two or more after a loss). Through an `Interpolator` with a
//! delay of 2 ticks it moves a little every render frame, along the path it flew, for the
//! price of showing the world those 2 ticks later. The example prints, for both, how often the
//! ship stood still, its largest jump and how late it was shown. The lines that talk to
//! netschema are marked `// ns`.

use netschema::owned::{Client, Interpolator, Server, ServerConfig};
use netschema::{Error, Protocol, Snapshot};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)] // ns
struct Ship {
    #[netschema(vec2(fixed(-256.0, 256.0, res = 1 / 256)))] // ns
    pos: [f32; 2],
    #[netschema(angle(bits = 12))] // ns
    heading: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)] // ns
enum Fleet {
    Ship(Ship),
}

const TICK_HZ: f32 = 30.0;
const RENDER_HZ: f32 = 144.0;
const SHIPS: u64 = 8;

/// Ship `id` at time `t` in ticks: a circle of its own, flown at 12 m/s.
fn ship(id: u64, t: f32) -> Ship {
    let radius = 20.0 + 10.0 * id as f32;
    let angle = id as f32 + t / TICK_HZ * 12.0 / radius;
    Ship {
        pos: [radius * angle.cos(), radius * angle.sin()],
        heading: angle + std::f32::consts::FRAC_PI_2,
    }
}

/// Drops about one datagram in ten, deterministically; otherwise delays it 2 or 3 ticks.
fn delay(tick: u32) -> Option<u32> {
    let h = tick.wrapping_mul(2_654_435_761);
    (!h.is_multiple_of(10)).then_some(2 + (h >> 16) % 2)
}

/// How a way of rendering did, from the positions of one ship in successive render frames.
#[derive(Default)]
struct Motion {
    frames: u32,
    still: u32,
    largest_jump: f32,
    /// Sum over frames of how many ticks before the render time the ship's values were true.
    late: f32,
    last: Option<[f32; 2]>,
}

impl Motion {
    /// A render frame showing the ship at `pos`, values `late` ticks old.
    fn show(&mut self, pos: [f32; 2], late: f32) {
        if let Some(last) = self.last {
            let step = (pos[0] - last[0]).hypot(pos[1] - last[1]);
            self.still += u32::from(step == 0.0);
            self.largest_jump = self.largest_jump.max(step);
        }
        self.late += late;
        self.frames += 1;
        self.last = Some(pos);
    }

    fn print(&self, name: &str) {
        println!(
            "{name:>13}: still in {:>4.1} % of render frames, largest jump {:.2} m, \
             {:>3.0} ms late on average",
            100.0 * self.still as f32 / self.frames as f32,
            self.largest_jump,
            1000.0 * self.late / self.frames as f32 / TICK_HZ,
        );
    }
}

fn main() -> Result<(), Error> {
    let mut server = Server::<Fleet>::new(ServerConfig::new(64, 64))?; // ns
    let mut msg = [0; 64];
    let n = Client::<Fleet>::hello(&mut msg)?; // ns
    let who = server.connect(&msg[..n])?; // ns
    let n = server.welcome(&mut msg)?; // ns
    let mut client = Client::<Fleet>::connect(&msg[..n], 64)?; // ns
    let mut interp = Interpolator::<Fleet>::new(client.handles(), 2); // ns

    let mut in_flight: Vec<(u32, Vec<u8>)> = Vec::new();
    let (mut newest, mut smooth) = (Motion::default(), Motion::default());
    let mut buf = [0u8; 1200];
    let (mut start, mut render_time) = (None, 0.0f32);
    for tick in 0..900u32 {
        let frame = server.begin_frame(); // ns
        let start = *start.get_or_insert(frame);
        for id in 0..SHIPS {
            server.set(id, &ship(id, (frame - start) as f32))?; // ns
            server.set_visible(who, id, true)?; // ns
        }
        let len = server.encode(who, &mut buf)?; // ns
        if let Some(d) = delay(tick) {
            in_flight.push((tick + d, buf[..len].to_vec()));
        }
        for (_, packet) in in_flight.extract_if(.., |(at, _)| *at <= tick) {
            match client.decode(&packet) {
                Ok(_) => {
                    interp.record(&client); // ns
                    if let Some(ack) = client.ack() {
                        server.receive_ack(who, &ack)?; // ns
                    }
                }
                Err(Error::StalePacket | Error::UnknownBaseline) => {}
                Err(e) => return Err(e),
            }
        }

        // The render frames of this tick, with ship 0 drawn both ways.
        while render_time < (tick + 1) as f32 {
            render_time += TICK_HZ / RENDER_HZ;
            interp.advance(TICK_HZ / RENDER_HZ); // ns
            let Some((at, past)) = interp.time() else { continue }; // ns
            if tick < 60 {
                continue; // Let the link settle.
            }
            let shown_at = at.wrapping_sub(start) as f32 + past as f32;
            let handle = 0;
            if let (Some(a), Some(b)) = (client.get::<Ship>(handle), interp.get::<Ship>(handle)) {
                let newest_at = client.frame().map_or(0.0, |f| f.wrapping_sub(start) as f32);
                newest.show(a.pos, render_time - newest_at);
                smooth.show(b.pos, render_time - shown_at);
            }
        }
    }
    newest.print("newest values");
    smooth.print("interpolated");
    Ok(())
}
