//! The replication engine end to end, without a network: a server world of ships, one peer
//! and one client, packets and acks passed by hand over a link that delays and drops them.
//!
//! ```sh
//! cargo run --release --example replicate
//! ```

use std::collections::VecDeque;

use netschema::engine::handshake;
use netschema::model::predict::Predictor;
use netschema::owned::{ClientBuffers, PeerBuffers, WorldBuffers};
use netschema::quant::{AngleQuant, FixedQuant};
use netschema::schema::{Class, Field, Schema};
use netschema::{Ack, Event};

const POS: FixedQuant = match FixedQuant::with_resolution(-100.0, 100.0, 0.01) {
    Ok(q) => q,
    Err(_) => panic!("bad position quantiser"),
};
const HEADING: AngleQuant = match AngleQuant::new(10) {
    Ok(q) => q,
    Err(_) => panic!("bad heading quantiser"),
};
const MOVING: &[Predictor] = &[Predictor::Hold, Predictor::Linear, Predictor::Quadratic];
static SHIP: [Field; 4] = [
    Field::numeric("x", POS.raw_min(), POS.raw_max(), false, MOVING),
    Field::numeric("y", POS.raw_min(), POS.raw_max(), false, MOVING),
    Field::numeric("heading", HEADING.raw_min(), HEADING.raw_max(), true, MOVING),
    Field::categorical("shields_up", 2),
];
static CLASSES: [Class; 1] = [Class { name: "ship", fields: &SHIP }];
static SCHEMA: Schema = Schema::new("fleet", &CLASSES);

const SHIPS: usize = 64;
const LATENCY: usize = 3;

fn main() -> Result<(), netschema::Error> {
    // Connect: both ends must run the same schema.
    let mut hello = [0u8; handshake::HELLO_LEN];
    handshake::write_hello(&SCHEMA, &mut hello)?;
    handshake::check_hello(&SCHEMA, &hello)?;

    let mut world_buf = WorldBuffers::new(&SCHEMA, SHIPS);
    let mut world = world_buf.world(&SCHEMA, SHIPS)?;
    let mut peer_buf = PeerBuffers::new(&SCHEMA, SHIPS, SHIPS);
    let mut peer = peer_buf.peer(&SCHEMA, SHIPS, SHIPS)?;
    let mut client_buf = ClientBuffers::new(&SCHEMA, SHIPS);
    let mut client = client_buf.client(&SCHEMA, SHIPS)?;
    for id in 0..SHIPS {
        peer.set_visible(id, id % 4 != 0);
    }

    let mut link: VecDeque<Option<Vec<u8>>> = VecDeque::new();
    let mut acks: VecDeque<Ack> = VecDeque::new();
    let mut packet = [0u8; 1200];
    let mut total = 0;
    for tick in 0..300u32 {
        // Capture: quantise each ship's state into the world's rows.
        world.begin_frame();
        let t = tick as f64 / 60.0;
        for id in 0..SHIPS {
            let phase = id as f64 * 0.3;
            let row = [
                POS.quantise(60.0 * (t * 0.5 + phase).cos()),
                POS.quantise(60.0 * (t * 0.5 + phase).sin()),
                HEADING.quantise(t * 0.5 + phase + std::f64::consts::FRAC_PI_2),
                i32::from((tick / 90 + id as u32).is_multiple_of(3)),
            ];
            world.set(id, 0, &row)?;
        }
        if tick == 150 {
            peer.set_visible(1, false);
        }

        // Server: one packet per client per tick, into a caller buffer.
        let len = peer.encode(&world, &mut packet)?;
        total += len;
        // The link drops every seventh packet and delays the rest by LATENCY ticks.
        link.push_back((tick % 7 != 3).then(|| packet[..len].to_vec()));
        if link.len() > LATENCY
            && let Some(Some(bytes)) = link.pop_front()
        {
            let frame = client.decode(&bytes)?;
            for event in client.events() {
                if !matches!(event, Event::Updated { .. }) {
                    println!("frame {frame}: {event:?}");
                }
            }
            if let Some(ack) = client.ack() {
                acks.push_back(ack);
            }
        }
        if acks.len() > LATENCY
            && let Some(ack) = acks.pop_front()
        {
            peer.receive_ack(&ack);
        }
    }
    println!("300 ticks, {:.1} bytes per packet on average", total as f64 / 300.0);
    if let Some((handle, class, row)) = client.view().next() {
        let name = SCHEMA.classes[class].name;
        println!("handle {handle} is a {name} at x = {:.2}", POS.dequantise(row[0]));
    }
    Ok(())
}
