//! Replicates a few units through a netschema world, peer and client, with the types
//! `build.rs` generated from `schema/game.netidl`.
//!
//! ```text
//! cargo run -p netschema-example-schema-build
//! ```

use netschema::Snapshot;
use netschema::owned::{ClientBuffers, PeerBuffers, WorldBuffers};

/// The code generated from `schema/game.netidl`.
#[allow(clippy::all)]
pub mod game {
    netschema::include_schema!("game");
}

use game::{Flag, Unit, UnitState};

const ENTITIES: usize = 8;
const HANDLES: usize = 8;

fn main() -> Result<(), netschema::Error> {
    let schema = &game::SCHEMA;
    println!("schema `{}`, hash {:#018x}", schema.name, schema.hash);
    for class in schema.classes {
        let fields: Vec<&str> = class.fields.iter().map(|f| f.name).collect();
        println!("  class {}: {}", class.name, fields.join(", "));
    }

    let mut wb = WorldBuffers::new(schema, ENTITIES);
    let mut world = wb.world(schema, ENTITIES)?;
    let mut pb = PeerBuffers::new(schema, HANDLES, ENTITIES);
    let mut peer = pb.peer(schema, HANDLES, ENTITIES)?;
    let mut cb = ClientBuffers::new(schema, HANDLES);
    let mut client = cb.client(schema, HANDLES)?;
    let mut buf = [0u8; 1500];

    let mut units = [
        Unit {
            pos: [1.0, 2.0],
            heading: 0.5,
            turret: [0.0, 0.0, 0.0, 1.0],
            hp: 100,
            state: UnitState::Idle,
            selected: true,
        },
        Unit {
            pos: [-10.25, 33.3],
            heading: 3.0,
            turret: [0.5, 0.5, 0.5, 0.5],
            hp: 72,
            state: UnitState::Moving,
            selected: false,
        },
    ];
    let flag = Flag { owner: 2, progress: 0.4 };

    for tick in 0..5 {
        world.begin_frame();
        for (id, unit) in units.iter_mut().enumerate() {
            unit.pos[0] += 0.25;
            unit.heading += 0.1;
            if tick == 3 {
                unit.state = UnitState::Attacking;
            }
            let mut row = [0; Unit::CLASS.fields.len()];
            unit.quantise(&mut row);
            world.set(id, Unit::CLASS_INDEX, &row)?;
        }
        let mut row = [0; Flag::CLASS.fields.len()];
        flag.quantise(&mut row);
        world.set(units.len(), Flag::CLASS_INDEX, &row)?;
        for id in 0..=units.len() {
            peer.set_visible(id, true)?;
        }

        let len = peer.encode(&world, &mut buf)?;
        let frame = client.decode(&buf[..len])?;
        if let Some(ack) = client.ack() {
            peer.receive_ack(&ack);
        }
        println!("frame {frame}: {len} bytes");
        for (handle, class, raw) in client.view() {
            match class {
                Unit::CLASS_INDEX => println!("  #{handle} {:?}", Unit::dequantise(raw)),
                Flag::CLASS_INDEX => println!("  #{handle} {:?}", Flag::dequantise(raw)),
                _ => println!("  #{handle} unknown class {class}"),
            }
        }
    }
    Ok(())
}
