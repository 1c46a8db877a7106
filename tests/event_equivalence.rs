//! The same events as `.netidl` `event` items (`tests/schemas/events.netidl`, generated into
//! `tests/generated/events.rs`) and as `#[derive(Event)]` structs must give the same event
//! schemas and hashes, the same protocol schema and hash, and the same record bytes.
//!
//! `NETSCHEMA_BLESS=1 cargo test --test event_equivalence` regenerates the checked-in file.

mod golden;

use netschema::event::Event;
use netschema::owned::{Client, Server, ServerConfig};
use netschema::{Protocol, Ref};

/// The code generated from `tests/schemas/events.netidl`.
#[allow(clippy::all, dead_code, unreachable_pub)]
mod idl {
    include!("generated/events.rs");
}

/// The same events, derived.
#[allow(unreachable_pub)]
mod derived {
    use netschema::{Blob, Event, Protocol, Ref, Snapshot, SnapshotEnum, Text};

    /// A team.
    #[derive(Clone, Copy, Debug, PartialEq, Default, SnapshotEnum)]
    pub enum Team {
        #[default]
        Red,
        Blue,
    }

    /// A unit of the arena.
    #[derive(Clone, Copy, Debug, PartialEq, Default, Snapshot)]
    pub struct Unit {
        #[netschema(int(0, 100))]
        pub hp: u8,
        #[netschema(vec2(fixed(-64, 64, res = 1 / 16)))]
        pub pos: [f32; 2],
    }

    /// A unit was hit: the event is about its target.
    #[derive(Clone, Copy, Debug, PartialEq, Event)]
    #[netschema(protocol = "Events")]
    pub struct Hit {
        pub target: Ref<Unit>,
        /// Hit points taken.
        #[netschema(int(0, 255))]
        pub damage: u8,
        pub by: Ref<Events>,
    }

    /// A team scored.
    #[derive(Clone, Copy, Debug, PartialEq, Event)]
    pub struct Score {
        pub team: Team,
        #[netschema(int(-1000, 1000))]
        pub delta: i16,
        pub last: bool,
    }

    /// A unit said something: a line and a signature after its reference.
    #[derive(Clone, Copy, Debug, PartialEq, Event)]
    #[netschema(protocol = "Events")]
    pub struct Said {
        pub who: Ref<Unit>,
        pub text: Text<64>,
        pub sig: Blob<4>,
    }

    /// The state the events are about.
    #[derive(Clone, Copy, Debug, PartialEq, Protocol)]
    #[netschema(name = "events", events(Hit, Score, Said))]
    pub enum Events {
        Unit(Unit),
    }
}

#[test]
fn checked_in_code_is_up_to_date() {
    let warnings = golden::assert_generated_is_current("events");
    assert!(warnings.is_empty(), "{warnings}");
}

#[test]
fn event_and_protocol_schemas_and_hashes_are_identical() {
    for (a, b) in [
        (<idl::Hit as Event>::SCHEMA, <derived::Hit as Event>::SCHEMA),
        (<idl::Score as Event>::SCHEMA, <derived::Score as Event>::SCHEMA),
        (<idl::Said as Event>::SCHEMA, <derived::Said as Event>::SCHEMA),
    ] {
        assert_eq!(a, b);
        assert_eq!(a.hash, b.hash);
    }
    let (a, b) = (<idl::Events as Protocol>::SCHEMA, <derived::Events as Protocol>::SCHEMA);
    assert_eq!(a, b);
    assert_eq!(a.hash, b.hash);
    assert_eq!(a.events.len(), 3);
    // The hash `netschema inspect tests/schemas/events.netidl` prints, events included (the
    // descriptors of `netschema-lab` check it too).
    assert_eq!(a.hash, 0x6786_2ee0_a2d5_691b);
    let fields = |s: &netschema::schema::Schema| {
        s.classes[0].fields.iter().map(|f| f.name).collect::<Vec<_>>()
    };
    assert_eq!(fields(<derived::Hit as Event>::SCHEMA), ["damage"]);
    assert_eq!(<derived::Hit as Event>::SCHEMA.classes[0].links.len(), 2);
    assert_eq!(fields(<derived::Score as Event>::SCHEMA), ["team", "delta", "last"]);
    let said = &<derived::Said as Event>::SCHEMA.classes[0];
    assert_eq!((said.fields.len(), said.links.len()), (0, 1));
    let texts = said.texts.iter().map(|t| (t.name, t.max, t.utf8)).collect::<Vec<_>>();
    assert_eq!(texts, [("text", 64, true), ("sig", 4, false)]);
}

/// The bytes of the records a client of protocol `P` receives for `send`, sent after entity
/// 7 (a unit) was given a handle.
fn records<P: Protocol>(
    set: impl Fn(&mut Server<P>),
    send: impl Fn(&mut Server<P>, netschema::owned::ClientId),
) -> Vec<Vec<u8>> {
    let mut server = Server::<P>::new(ServerConfig::new(8, 8)).unwrap();
    let mut msg = [0; 64];
    let n = Client::<P>::hello(&mut msg).unwrap();
    let id = server.connect(&msg[..n]).unwrap();
    let n = server.welcome(&mut msg).unwrap();
    let mut client = Client::<P>::connect(&msg[..n], 8).unwrap();
    let mut packet = [0; 1200];
    server.begin_frame();
    set(&mut server);
    server.set_visible(id, 7, true).unwrap();
    let n = server.encode(id, &mut packet).unwrap();
    client.decode(&packet[..n]).unwrap();
    server.begin_frame();
    send(&mut server, id);
    let n = server.encode(id, &mut packet).unwrap();
    client.decode(&packet[..n]).unwrap();
    client.received_events().map(|e| e.bytes.to_vec()).collect()
}

#[test]
fn record_bytes_are_identical() {
    let idl = records::<idl::Events>(
        |s| s.set(7, &idl::Unit { hp: 40, pos: [1.0, -2.0] }).unwrap(),
        |s, id| {
            let hit = idl::Hit { target: Ref::to(7), damage: 200, by: Ref::to(7) };
            assert_eq!(s.send_event(id, &hit), Ok(Some(0)));
            let score = idl::Score { team: idl::Team::Blue, delta: -300, last: true };
            assert_eq!(s.send_event(id, &score), Ok(Some(1)));
            let text = "gg".try_into().unwrap();
            let said = idl::Said { who: Ref::to(7), text, sig: (&[9u8][..]).try_into().unwrap() };
            assert_eq!(s.send_event(id, &said), Ok(Some(2)));
        },
    );
    let derived = records::<derived::Events>(
        |s| s.set(7, &derived::Unit { hp: 40, pos: [1.0, -2.0] }).unwrap(),
        |s, id| {
            let hit = derived::Hit { target: Ref::to(7), damage: 200, by: Ref::to(7) };
            assert_eq!(s.send_event(id, &hit), Ok(Some(0)));
            let score = derived::Score { team: derived::Team::Blue, delta: -300, last: true };
            assert_eq!(s.send_event(id, &score), Ok(Some(1)));
            let (text, sig) = ("gg".try_into().unwrap(), (&[9u8][..]).try_into().unwrap());
            assert_eq!(
                s.send_event(id, &derived::Said { who: Ref::to(7), text, sig }),
                Ok(Some(2))
            );
        },
    );
    assert_eq!(idl, derived);
    // Index 0, damage 200 (2 bytes), the unit's handle 0 twice (plus 1); index 1, blue,
    // -300 zig-zagged to 599 (2 bytes), true; index 2, the unit's handle, the line's length
    // and bytes, the signature's.
    assert_eq!(
        idl,
        [vec![0, 0xc8, 0x01, 1, 1], vec![1, 1, 0xd7, 0x04, 1], vec![2, 1, 2, b'g', b'g', 1, 9]]
    );
}
