//! Rewind: the server's `seen_by` gives exactly what the client's interpolator showed when it
//! pushed each input. A server and a client exchange one frame each way per tick over a link
//! that loses 20 % and delays 50 ± 20 ms (so frames also arrive out of order); ships sail on
//! circles, so blending between the wrong two frames would show. The client notes what it
//! renders at each input's tick; the server rewinds to every input it receives and compares.

mod link;

use link::{Event, Rng};
use std::collections::BTreeMap;

use netschema::engine::input::Source;
use netschema::model::predict::Predictor;
use netschema::owned::{Client, DOWN_HEADER, Interpolator, Server, ServerConfig, UP_HEADER};
use netschema::schema::{Class, Field, Schema};
use netschema::{Protocol, Snapshot};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Ship {
    #[netschema(int(0, 255))]
    id: u8,
    #[netschema(vec2(fixed(-1024.0, 1024.0, res = 1 / 64)))]
    pos: [f32; 2],
    #[netschema(angle(bits = 10))]
    heading: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "fleet")]
enum Fleet {
    Ship(Ship),
}

static FIELDS: [Field; 1] = [Field::numeric("turn", -1, 1, false, &[Predictor::Hold])];
static CLASSES: [Class; 1] = [Class::new("Steer", &FIELDS)];
static STEER: Schema = Schema::new("Steer", &CLASSES);

const TICK_US: u64 = 16_667;
const SHIPS: u8 = 4;

/// Ship `id` at `frame`: on a circle of its own.
fn ship(id: u8, frame: u32) -> Ship {
    let phase = f32::from(id) + frame as f32 * 0.05 * (1.0 + f32::from(id) / 4.0);
    let r = 40.0 + 20.0 * f32::from(id);
    Ship { id, pos: [r * phase.cos(), r * phase.sin()], heading: phase.sin() * 3.0 }
}

/// Ships by id, as shown.
type Shown = BTreeMap<u8, Ship>;

#[test]
fn rewind_returns_exactly_what_the_client_rendered_at_each_input() {
    let server = Server::<Fleet>::new(ServerConfig::new(16, 16)).unwrap();
    let mut server = server.with_inputs(&STEER).unwrap();
    let mut buf = [0u8; 64];
    let n = Client::<Fleet>::hello_with_inputs(&STEER, &mut buf).unwrap();
    let id = server.connect(&buf[..n]).unwrap();
    let n = server.welcome(&mut buf).unwrap();
    let mut client =
        Client::<Fleet>::connect_with_inputs(&buf[..n], 16, &STEER, TICK_US as u32).unwrap();
    let mut interp = Interpolator::<Fleet>::new(client.handles(), 3);

    let mut rng = Rng(11);
    let mut events: BTreeMap<(u64, u64), Event> = BTreeMap::new();
    let mut order = 0u64;
    let mut at = |events: &mut BTreeMap<(u64, u64), Event>, time: u64, e: Event| {
        order += 1;
        events.insert((time, order), e);
    };
    at(&mut events, 0, Event::ClientTick);
    at(&mut events, 5_000, Event::ServerTick);
    let (mut pushed, mut ticks): (Option<u32>, u32) = (None, 0);
    let mut rendered: BTreeMap<u32, Shown> = BTreeMap::new();
    let (mut compared, mut blended, mut missing, mut ships) = (0, 0, 0, 0);
    let mut out = vec![0u8; 1200 + DOWN_HEADER + UP_HEADER];
    while let Some(((now, _), event)) = events.pop_first() {
        if now > 30_000_000 {
            break;
        }
        match event {
            Event::ClientTick => {
                at(&mut events, now + TICK_US, Event::ClientTick);
                // Render frames of uneven length, a server frame on average.
                ticks += 1;
                interp.advance(if ticks % 3 == 0 { 1.4 } else { 0.8 });
                client.set_render_time(interp.render_time()).unwrap();
                let shown: Shown = interp.iter::<Ship>().map(|(_, s)| (s.id, s)).collect();
                if let Some(due) = client.input_tick(now) {
                    for tick in pushed.map_or(due, |p| p + 1)..=due {
                        client.push_input(tick, &[0]).unwrap();
                        rendered.insert(tick, shown.clone());
                        pushed = Some(tick);
                    }
                }
                let n = client.write(now, &mut out).unwrap();
                if let Some(delay) = rng.delay(5) {
                    at(&mut events, now + delay, Event::ToServer(out[..n].to_vec()));
                }
            }
            Event::ServerTick => {
                at(&mut events, now + TICK_US, Event::ServerTick);
                let frame = server.begin_frame();
                for s in 0..SHIPS {
                    server.set(u64::from(s), &ship(s, frame)).unwrap();
                    server.set_visible(id, u64::from(s), true).unwrap();
                }
                if server.take_input(id, frame).unwrap().source == Source::Received {
                    let mut seen = server.seen_by(id, frame).unwrap().expect("a render time");
                    let shown: Shown = seen.iter::<Ship>().map(|(_, s)| (s.id, s)).collect();
                    let time = seen.time();
                    assert_eq!(Some(&shown), rendered.get(&frame), "tick {frame}: {time:?}");
                    compared += 1;
                    ships += shown.len();
                    blended += usize::from(time.past != 0);
                } else {
                    missing += 1;
                }
                let n = server.write(id, &mut out).unwrap();
                if let Some(delay) = rng.delay(5) {
                    at(&mut events, now + delay, Event::ToClient(out[..n].to_vec()));
                }
            }
            Event::ToServer(frame) => {
                server.receive(id, &frame).unwrap();
            }
            Event::ToClient(frame) => {
                if let Some(Ok(_)) = client.receive(&frame, now).unwrap().packet {
                    interp.record(&client);
                }
            }
        }
    }
    println!(
        "{compared} inputs compared ({blended} between frames, {ships} ships), {missing} missing"
    );
    assert!(compared > 1500 && ships > 3 * compared, "{compared} compared, {ships} ships");
    assert!(blended > 0, "no render time between two frames");
}
