//! Events through the owned server and client: over a link that loses one datagram in five
//! each way, reorders and duplicates them, every event sent arrives once, in order, typed, its
//! reference the client's handle of the target and its string whole; a client that cannot see
//! what an event is about never gets it; bad events and damaged records (strings too long, not
//! UTF-8, cut short) are refused with typed errors; ends declaring different events refuse
//! each other.

mod link;

use netschema::event::Event as _;
use netschema::owned::{Client, ClientId, Server, ServerConfig};
use netschema::{Error, Event, Protocol, Ref, Snapshot, Text};

use link::{Rng, Wire};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Unit {
    #[netschema(int(0, 100))]
    hp: u8,
}

/// What a hit is about: its target; `by` names whoever struck, of any class.
#[derive(Clone, Copy, Debug, PartialEq, Event)]
#[netschema(protocol = "Arena")]
struct Hit {
    target: Ref<Unit>,
    #[netschema(int(0, 255))]
    damage: u8,
    by: Ref<Arena>,
}

/// A unit said something: a chat line of at most 64 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Event)]
#[netschema(protocol = "Arena")]
struct Said {
    who: Ref<Unit>,
    text: Text<64>,
}

/// An event about no entity.
#[derive(Clone, Copy, Debug, PartialEq, Event)]
struct Score {
    #[netschema(int(-1000, 1000))]
    delta: i16,
}

/// An event the protocol does not declare.
#[derive(Clone, Copy, Debug, PartialEq, Event)]
struct Unlisted {
    #[netschema(int(0, 1))]
    flag: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "arena", events(Hit, Score, Said))]
enum Arena {
    Unit(Unit),
}

/// The same classes, declaring no events.
#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "arena")]
enum Quiet {
    Unit(Unit),
}

/// A server with `n` clients connected.
fn arena(n: usize) -> (Server<Arena>, Vec<(ClientId, Client<Arena>)>) {
    let mut server = Server::<Arena>::new(ServerConfig::new(8, 8)).unwrap();
    let clients = (0..n)
        .map(|_| {
            let mut hello = [0; 64];
            let len = Client::<Arena>::hello(&mut hello).unwrap();
            let id = server.connect(&hello[..len]).unwrap();
            let mut welcome = [0; 64];
            let len = server.welcome(&mut welcome).unwrap();
            (id, Client::<Arena>::connect(&welcome[..len], 8).unwrap())
        })
        .collect();
    (server, clients)
}

/// An event of the lossy run.
enum Sent {
    Hit(Hit),
    Score(Score),
    Said(Said),
}

/// Event `n` of the lossy run: a score, a hit on unit 1, or a line unit 1 said (0 to 64
/// bytes, some of them two-byte characters).
fn nth(n: u32) -> Sent {
    match n % 3 {
        0 => Sent::Score(Score { delta: (n as i16 * 37) % 1000 - 500 }),
        1 => Sent::Hit(Hit { target: Ref::to(1), damage: (n * 7 % 256) as u8, by: Ref::NONE }),
        _ => Sent::Said(Said { who: Ref::to(1), text: line(n) }),
    }
}

/// The line of event `n`: its number, then `é` and `!` up to a length that varies with `n`,
/// at most 64 bytes.
fn line(n: u32) -> Text<64> {
    let mut s = format!("line {n} ");
    for c in ['é', '!'].into_iter().cycle().take((n * 11 % 50) as usize) {
        if s.len() + c.len_utf8() <= 64 {
            s.push(c);
        }
    }
    Text::try_from(s.as_str()).unwrap()
}

#[test]
fn events_arrive_once_in_order_and_typed_over_a_lossy_link() {
    for seed in 1..=8 {
        lossy_run(seed);
    }
}

/// 249 events, one every other frame, over a link seeded with `seed`.
fn lossy_run(seed: u64) {
    let (mut server, mut clients) = arena(1);
    let (id, client) = &mut clients[0];
    let mut rng = Rng(seed);
    let (mut down, mut up) = (Wire::default(), Wire::default());
    let (mut sent, mut got, mut said_bytes) = (0u32, 0u32, 0usize);
    let mut buf = [0u8; 1200];
    for now in 0..700u32 {
        server.begin_frame();
        server.set(1, &Unit { hp: (now % 101) as u8 }).unwrap();
        server.set_visible(*id, 1, true).unwrap();
        // From frame 2 on: the client has a handle for unit 1 once frame 0's packet is encoded.
        if (1..500).contains(&now) && now % 2 == 0 {
            let number = match nth(sent) {
                Sent::Hit(hit) => server.send_event(*id, &hit),
                Sent::Score(score) => server.send_event(*id, &score),
                Sent::Said(said) => server.send_event(*id, &said),
            };
            assert_eq!(number, Ok(Some(sent)));
            sent += 1;
        }
        let n = server.encode(*id, &mut buf).unwrap();
        down.send(&mut rng, now, &buf[..n]);
        for packet in down.receive(now) {
            if client.decode(&packet).is_err() {
                continue;
            }
            for e in client.received_events() {
                assert_eq!(e.number, got, "seed {seed}: in order, once");
                match nth(got) {
                    Sent::Hit(hit) => {
                        let h = e.get::<Hit>().unwrap().expect("a hit");
                        assert_eq!((h.damage, h.by), (hit.damage, Ref::NONE));
                        let handle = h.target.handle().expect("the target is seen");
                        assert!(matches!(client.entity(handle), Some(Arena::Unit(_))));
                        assert_eq!(e.get::<Score>(), Ok(None));
                    }
                    Sent::Score(score) => assert_eq!(e.get::<Score>(), Ok(Some(score))),
                    Sent::Said(said) => {
                        let s = e.get::<Said>().unwrap().expect("a line");
                        assert_eq!(s.text, said.text, "seed {seed}: the line arrives whole");
                        let handle = s.who.handle().expect("the speaker is seen");
                        assert!(matches!(client.entity(handle), Some(Arena::Unit(_))));
                        said_bytes += e.bytes.len();
                    }
                }
                got += 1;
            }
            let mut ack = [0u8; netschema::Ack::MAX_LEN];
            let len = client.ack().unwrap().write(&mut ack).unwrap();
            up.send(&mut rng, now, &ack[..len]);
        }
        for ack in up.receive(now) {
            server.receive_ack(*id, &netschema::Ack::read(&ack).unwrap()).unwrap();
        }
    }
    assert_eq!((got, sent), (249, 249));
    assert_eq!(server.unacked_records(*id), Ok((0, 0)));
    let stats = server.record_stats(*id).unwrap();
    println!(
        "seed {seed}: {:.2} sends per event; the 83 lines took {said_bytes} record bytes",
        stats.sent as f64 / f64::from(sent)
    );
}

/// Encodes a packet for every client and decodes it, losing nothing.
fn deliver(server: &mut Server<Arena>, clients: &mut [(ClientId, Client<Arena>)]) {
    let mut buf = [0u8; 1200];
    for (id, client) in clients {
        let n = server.encode(*id, &mut buf).unwrap();
        client.decode(&buf[..n]).unwrap();
    }
}

#[test]
fn a_client_that_cannot_see_what_an_event_is_about_never_gets_it() {
    let (mut server, mut clients) = arena(2);
    let (a, b) = (clients[0].0, clients[1].0);
    server.begin_frame();
    for unit in [1, 2] {
        server.set(unit, &Unit { hp: 50 }).unwrap();
    }
    server.set_visible(a, 1, true).unwrap();
    for client in [a, b] {
        server.set_visible(client, 2, true).unwrap();
    }
    deliver(&mut server, &mut clients);
    server.begin_frame();
    let on_1 = Hit { target: Ref::to(1), damage: 9, by: Ref::to(2) };
    assert_eq!(server.send_event_to_viewers(1, &on_1), Ok(1));
    assert_eq!(server.send_event(b, &on_1), Ok(None), "about an entity b cannot see");
    let on_2 = Hit { target: Ref::to(2), damage: 4, by: Ref::to(1) };
    assert_eq!(server.send_event_to_viewers(2, &on_2), Ok(2));
    assert_eq!(server.send_event(b, &Score { delta: -3 }), Ok(Some(1)));
    deliver(&mut server, &mut clients);
    let handle =
        |c: &Client<Arena>, hp| c.entities().find(|e| e.1 == Arena::Unit(Unit { hp })).map(|e| e.0);
    let (ca, cb) = (&clients[0].1, &clients[1].1);
    let a_hits: Vec<Hit> = ca.received_events().map(|e| e.get().unwrap().unwrap()).collect();
    assert_eq!(a_hits.len(), 2);
    assert_eq!((a_hits[0].damage, a_hits[1].damage), (9, 4));
    assert_eq!(a_hits[0].target.id(), a_hits[1].by.id());
    assert!(a_hits[0].target.handle().is_some() && handle(ca, 50).is_some());
    let b_events: Vec<_> = cb.received_events().collect();
    assert_eq!(b_events.len(), 2);
    let hit = b_events[0].get::<Hit>().unwrap().unwrap();
    assert_eq!((hit.damage, hit.by), (4, Ref::NONE), "b cannot see unit 1: `by` reads none");
    assert_eq!(hit.target.handle(), handle(cb, 50));
    assert_eq!(b_events[1].get::<Score>(), Ok(Some(Score { delta: -3 })));
}

#[test]
fn bad_events_and_damaged_records_are_refused_with_typed_errors() {
    let (mut server, mut clients) = arena(1);
    let id = clients[0].0;
    server.begin_frame();
    server.set(1, &Unit { hp: 1 }).unwrap();
    assert_eq!(
        server.send_event(id, &Unlisted { flag: 1 }),
        Err(Error::UnknownEvent { name: "Unlisted" })
    );
    assert!(matches!(server.send_event(id, &Score { delta: 2000 }), Err(Error::Capture(_))));
    for bytes in [&[][..], &[1, 0x80], &[1, 0xff, 0xff, 0xff, 0xff, 0xff], &[1, 0, 0], &[0, 1]] {
        server.send_record(id, bytes).unwrap();
    }
    deliver(&mut server, &mut clients);
    let got: Vec<_> = clients[0].1.received_events().map(|e| e.get::<Score>()).collect();
    assert_eq!(
        got,
        [
            Err(Error::UnexpectedEnd),
            Err(Error::UnexpectedEnd),
            Err(Error::Corrupt),
            Err(Error::Corrupt),
            Ok(None),
        ]
    );
    let unlisted = clients[0].1.received_events().map(|e| e.get::<Unlisted>()).last();
    assert_eq!(unlisted, Some(Err(Error::UnknownEvent { name: "Unlisted" })));
}

#[test]
fn damaged_strings_are_refused_with_typed_errors() {
    let (mut server, mut clients) = arena(1);
    let id = clients[0].0;
    server.begin_frame();
    server.set(1, &Unit { hp: 1 }).unwrap();
    server.set_visible(id, 1, true).unwrap();
    deliver(&mut server, &mut clients);
    server.begin_frame();
    let hi = Said { who: Ref::to(1), text: Text::try_from("hé").unwrap() };
    assert_eq!(server.send_event(id, &hi), Ok(Some(0)));
    // Said is event 2; the speaker is handle 0 (1 on the wire), then the line's length.
    let mut long = vec![2, 1, 65];
    long.extend([b'a'; 65]);
    for bytes in [&long[..], &[2, 1, 2, 0xc3, 0x28], &[2, 1, 3, b'a', b'b'], &[2, 1], &[2, 1, 0, 0]]
    {
        server.send_record(id, bytes).unwrap();
    }
    deliver(&mut server, &mut clients);
    let got: Vec<_> = clients[0].1.received_events().map(|e| e.get::<Said>()).collect();
    assert_eq!(got[0], Ok(Some(Said { who: Ref::to(0), text: hi.text })));
    assert_eq!(clients[0].1.received_events().next().unwrap().bytes, [2, 1, 3, b'h', 0xc3, 0xa9]);
    assert_eq!(
        got[1..],
        [
            Err(Error::TextTooLong { len: 65, max: 64 }),
            Err(Error::NotUtf8),
            Err(Error::UnexpectedEnd),
            Err(Error::UnexpectedEnd),
            Err(Error::Corrupt),
        ]
    );
}

#[test]
fn ends_declaring_different_events_refuse_each_other() {
    use netschema::Protocol as _;
    assert_ne!(Arena::SCHEMA.hash, Quiet::SCHEMA.hash);
    assert_eq!(Arena::SCHEMA.events, [Hit::SCHEMA, Score::SCHEMA, Said::SCHEMA]);
    let server = Server::<Quiet>::new(ServerConfig::new(8, 8)).unwrap();
    let mut welcome = [0; 64];
    let len = server.welcome(&mut welcome).unwrap();
    assert!(matches!(
        Client::<Arena>::connect(&welcome[..len], 8),
        Err(Error::SchemaMismatch { .. })
    ));
}
