//! Inputs through the owned server and client: one frame each way per tick over a link that
//! loses 10 % and delays 50 ± 20 ms, clocks simulated in microseconds. The client pushes the
//! input of each tick its synchronisation gives; the server takes each client's input of its
//! own frame. Malformed frames are refused and change nothing.

mod link;

use link::{Event, Rng};
use std::collections::BTreeMap;

use netschema::engine::input::Source;
use netschema::model::predict::Predictor;
use netschema::owned::{Client, ClientId, DOWN_HEADER, Server, ServerConfig, UP_HEADER};
use netschema::schema::{Class, Field, Schema};
use netschema::{Error, Protocol, Snapshot};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Ship {
    #[netschema(vec2(fixed(-1024.0, 1024.0, res = 1 / 16)))]
    pos: [f32; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "fleet")]
enum Fleet {
    Ship(Ship),
}

const STICK: &[Predictor] = &[Predictor::Hold, Predictor::Linear];
static FIELDS: [Field; 3] = [
    Field::numeric("dir.x", -127, 127, false, STICK),
    Field::numeric("dir.y", -127, 127, false, STICK),
    Field::categorical("fire", 2),
];
static CLASSES: [Class; 1] = [Class::new("Move", &FIELDS)];
static MOVE: Schema = Schema::new("Move", &CLASSES);

const TICK_US: u64 = 16_667;
const BUDGET: usize = 1200;

/// The input of `tick`: a stick turning in steps, and bursts of fire.
fn input(tick: u32) -> [i32; 3] {
    let dirs = [[127, 0], [90, 90], [0, 127], [-90, 90], [-127, 0], [0, -127]];
    let [x, y] = dirs[(tick / 30) as usize % dirs.len()];
    [x, y, i32::from(tick % 40 < 5)]
}

#[test]
fn inputs_drive_the_server_one_frame_each_way_per_tick() {
    let server = Server::<Fleet>::new(ServerConfig::new(16, 16)).unwrap();
    let mut server = server.with_inputs(&MOVE).unwrap();
    let mut buf = [0u8; 64];
    let n = Client::<Fleet>::hello_with_inputs(&MOVE, &mut buf).unwrap();
    let id: ClientId = server.connect(&buf[..n]).unwrap();
    let n = server.welcome(&mut buf).unwrap();
    let mut client =
        Client::<Fleet>::connect_with_inputs(&buf[..n], 16, &MOVE, TICK_US as u32).unwrap();
    server.set_session(id, 77).unwrap();
    client.set_session(77);
    assert_eq!(client.push_input(0, &[0, 0, 2]), Err(Error::OutOfRange));

    let mut rng = Rng(3);
    let mut events: BTreeMap<(u64, u64), Event> = BTreeMap::new();
    let mut order = 0u64;
    let mut at = |events: &mut BTreeMap<(u64, u64), Event>, time: u64, e: Event| {
        order += 1;
        events.insert((time, order), e);
    };
    at(&mut events, 0, Event::ClientTick);
    at(&mut events, 7_000, Event::ServerTick);
    let (settle, end) = (10_000_000, 40_000_000);
    let mut pushed: Option<u32> = None;
    let (mut taken, mut received, mut tick_error) = (0, 0, 0i64);
    let mut pos = [0i64; 2];
    let mut out = vec![0u8; BUDGET + DOWN_HEADER];
    while let Some(((now, _), event)) = events.pop_first() {
        if now > end {
            break;
        }
        match event {
            Event::ClientTick => {
                at(&mut events, now + TICK_US, Event::ClientTick);
                if let Some(due) = client.input_tick(now) {
                    for tick in pushed.map_or(due, |p| p + 1)..=due {
                        client.push_input(tick, &input(tick)).unwrap();
                        pushed = Some(tick);
                    }
                }
                if let (Some(estimate), Some(frame)) = (client.server_tick(now), server.frame())
                    && now > settle
                {
                    tick_error = tick_error.max((i64::from(estimate) - i64::from(frame)).abs());
                }
                let n = client.write(now, &mut out[..UP_HEADER + 512]).unwrap();
                if let Some(delay) = rng.delay(10) {
                    at(&mut events, now + delay, Event::ToServer(out[..n].to_vec()));
                }
            }
            Event::ServerTick => {
                at(&mut events, now + TICK_US, Event::ServerTick);
                let frame = server.begin_frame();
                let got = server.take_input(id, frame).unwrap();
                if now > settle {
                    taken += 1;
                    if got.source == Source::Received {
                        received += 1;
                        assert_eq!(got.values(), &input(frame)[..], "frame {frame}");
                    }
                }
                pos[0] = (pos[0] + i64::from(got.values()[0]) / 16).clamp(-16_000, 16_000);
                pos[1] = (pos[1] + i64::from(got.values()[1]) / 16).clamp(-16_000, 16_000);
                let ship = Ship { pos: [pos[0] as f32 / 16.0, pos[1] as f32 / 16.0] };
                server.set(1, &ship).unwrap();
                server.set_visible(id, 1, true).unwrap();
                let n = server.write(id, &mut out).unwrap();
                if let Some(delay) = rng.delay(10) {
                    at(&mut events, now + delay, Event::ToClient(out[..n].to_vec()));
                }
            }
            Event::ToServer(frame) => {
                server.receive(id, &frame).unwrap();
            }
            Event::ToClient(frame) => {
                let got = client.receive(&frame, now).unwrap();
                assert!(got.packet.is_some());
            }
        }
    }
    assert!(tick_error <= 1, "the server's tick estimated {tick_error} ticks off");
    // An input is missing only when every frame that could carry it in time was lost.
    assert!(received * 100 >= taken * 99, "{received} of {taken} inputs on time");
    let (sender, sync) = client.input_stats().unwrap();
    let stats = server.input_stats(id).unwrap();
    assert_eq!(sender.refused_acks, 0);
    assert!(stats.playout.error().abs() <= 16, "{stats:?} {sync:?}");
    assert!(client.iter::<Ship>().count() == 1 && server.is_proven(id).unwrap());
}

#[test]
fn malformed_frames_change_nothing() {
    let server = Server::<Fleet>::new(ServerConfig::new(16, 16)).unwrap();
    let mut server = server.with_inputs(&MOVE).unwrap();
    let mut buf = [0u8; 2048];
    let n = Client::<Fleet>::hello_with_inputs(&MOVE, &mut buf).unwrap();
    let id = server.connect(&buf[..n]).unwrap();
    let n = server.welcome(&mut buf).unwrap();
    let mut client = Client::<Fleet>::connect_with_inputs(&buf[..n], 16, &MOVE, 16_667).unwrap();
    for tick in 0..20u32 {
        let frame = server.begin_frame();
        server.set(1, &Ship { pos: [tick as f32, 0.0] }).unwrap();
        server.set_visible(id, 1, true).unwrap();
        let n = server.write(id, &mut buf).unwrap();
        client.receive(&buf[..n], u64::from(tick) * 16_667).unwrap();
        client.push_input(frame, &input(frame)).unwrap();
        let n = client.write(u64::from(tick) * 16_667, &mut buf).unwrap();
        server.receive(id, &buf[..n]).unwrap();
    }
    let up = {
        client.push_input(1000, &input(1000)).unwrap();
        let n = client.write(400_000, &mut buf).unwrap();
        buf[..n].to_vec()
    };
    let before = (server.input_stats(id).unwrap(), server.stats(id).unwrap());
    // The kind byte, the ack's length and the ack: cut anywhere in them, the frame is malformed.
    let header = 2 + usize::from(up[1]);
    let mut bad: Vec<Vec<u8>> = vec![vec![], vec![0xb0], vec![0xa4], vec![0xa1, 0, 1]];
    bad.extend((0..=header).map(|n| up[..n].to_vec()));
    bad.push([&up[..1], &[16], &up[2..]].concat());
    bad.push([&[0xa1], &up[1..]].concat());
    for frame in &bad {
        let result = server.receive(id, frame);
        assert!(matches!(result, Err(Error::Corrupt | Error::UnexpectedEnd)), "{frame:?}");
        assert_eq!((server.input_stats(id).unwrap(), server.stats(id).unwrap()), before);
    }
    // Cut in the input datagram, the frame is whole but its datagram is refused as the
    // receiver refuses one alone: nothing changes but the count of refusals.
    for n in header + 1..up.len() {
        let got = server.receive(id, &up[..n]).unwrap();
        assert!(matches!(got.inputs, Some(Err(_))), "{n}: {got:?}");
        assert_eq!(server.input_stats(id).unwrap().buffer, before.0.buffer);
    }
    let got = server.receive(id, &up).unwrap();
    assert_eq!(got.inputs, Some(Ok(1)));

    server.begin_frame();
    let n = server.write(id, &mut buf).unwrap();
    let down = buf[..n].to_vec();
    let before = (client.input_stats(), client.frame());
    for frame in [&down[..1], &down[..5], &[0xa0][..], &[0xbf][..]] {
        assert!(client.receive(frame, 500_000).is_err(), "{frame:?}");
        assert_eq!((client.input_stats(), client.frame()), before);
    }
    let got = client.receive(&down, 500_000).unwrap();
    assert!(matches!(got.packet, Some(Ok(_))) && got.input_ack.is_some());
    // Without inputs set up the parts are refused one by one.
    let mut plain = Server::<Fleet>::new(ServerConfig::new(16, 16)).unwrap();
    let n = Client::<Fleet>::hello(&mut buf).unwrap();
    let other = plain.connect(&buf[..n]).unwrap();
    assert_eq!(plain.receive(other, &up).unwrap().inputs, Some(Err(Error::NoInputs)));
    assert_eq!(plain.take_input(other, 3), Err(Error::NoInputs));
}
