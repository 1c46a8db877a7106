//! The handshake carries the input schema's hash: a client and a server refuse each other,
//! each with a typed error naming both hashes, when their input schemas differ or only one of
//! them has inputs; and the typed input API refuses an input type of another schema.

use netschema::engine::handshake::{self, HELLO_LEN, WELCOME_LEN, WIRE_VERSION};
use netschema::engine::input::Source;
use netschema::owned::{Client, Server, ServerConfig};
use netschema::schema::Schema;
use netschema::{Error, Input, Protocol, Snapshot};

#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
struct Ship {
    #[netschema(vec2(fixed(-64, 64, res = 1 / 16)))]
    pos: [f32; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "fleet")]
enum Fleet {
    Ship(Ship),
}

/// A move.
#[derive(Clone, Copy, Debug, PartialEq, Input)]
struct Move {
    #[netschema(vec2(fixed(-1, 1, res = 1 / 127)))]
    dir: [f32; 2],
    fire: bool,
}

/// The same fields as [`Move`] at another precision: another input schema.
mod finer {
    #[derive(Clone, Copy, Debug, PartialEq, netschema::Input)]
    pub(crate) struct Move {
        #[netschema(vec2(fixed(-1, 1, res = 1 / 255)))]
        pub(crate) dir: [f32; 2],
        pub(crate) fire: bool,
    }
}

/// Another input altogether.
#[derive(Clone, Copy, Debug, PartialEq, Input)]
struct Jump {
    high: bool,
}

const CONFIG: ServerConfig = ServerConfig::new(8, 8);

/// Whether a client sending inputs of `client` (none for `None`) connects to a server taking
/// inputs of `server`: the server checks the hello, the client the welcome, and both must
/// agree, each naming its own hash first.
fn connects(server: Option<&'static Schema>, client: Option<&'static Schema>) -> Result<(), Error> {
    let mut s = Server::<Fleet>::new(CONFIG)?;
    if let Some(input) = server {
        s = s.with_inputs(input)?;
    }
    let mut hello = [0; 64];
    let n = match client {
        Some(input) => Client::<Fleet>::hello_with_inputs(input, &mut hello)?,
        None => Client::<Fleet>::hello(&mut hello)?,
    };
    assert_eq!(n, HELLO_LEN);
    let by_server = s.connect(&hello[..n]).map(|_| ());
    let mut welcome = [0; 64];
    let n = s.welcome(&mut welcome)?;
    assert_eq!(n, WELCOME_LEN);
    let by_client = match client {
        Some(input) => Client::<Fleet>::connect_with_inputs(&welcome[..n], 8, input, 16_667),
        None => Client::<Fleet>::connect(&welcome[..n], 8),
    };
    let mirrored = by_client.map(|_| ()).map_err(|e| match e {
        Error::InputSchemaMismatch { ours, theirs } => {
            Error::InputSchemaMismatch { ours: theirs, theirs: ours }
        }
        e => e,
    });
    assert_eq!(by_server, mirrored, "both ends must agree");
    by_server
}

#[test]
fn the_same_inputs_or_none_connect() {
    connects(Some(Move::SCHEMA), Some(Move::SCHEMA)).unwrap();
    connects(None, None).unwrap();
}

#[test]
fn another_input_schema_is_refused_with_both_hashes() {
    let (ours, theirs) = (Move::SCHEMA.hash, finer::Move::SCHEMA.hash);
    assert_ne!(ours, theirs, "the precision is part of the input schema's hash");
    let err = connects(Some(Move::SCHEMA), Some(finer::Move::SCHEMA)).unwrap_err();
    assert_eq!(err, Error::InputSchemaMismatch { ours: Some(ours), theirs: Some(theirs) });
    let text = err.to_string();
    assert!(text.contains(&format!("{ours:#018x}")) && text.contains(&format!("{theirs:#018x}")));
    let err = connects(Some(Jump::SCHEMA), Some(Move::SCHEMA)).unwrap_err();
    assert!(matches!(err, Error::InputSchemaMismatch { ours: Some(_), theirs: Some(_) }));
}

#[test]
fn inputs_on_one_end_only_are_refused_by_both() {
    let hash = Move::SCHEMA.hash;
    // A server without inputs refuses a client with them, which refuses its welcome.
    let err = connects(None, Some(Move::SCHEMA)).unwrap_err();
    assert_eq!(err, Error::InputSchemaMismatch { ours: None, theirs: Some(hash) });
    assert!(err.to_string().contains(&format!("{hash:#018x}")), "{err}");
    // A server with inputs refuses a client without, which refuses its welcome.
    let err = connects(Some(Move::SCHEMA), None).unwrap_err();
    assert_eq!(err, Error::InputSchemaMismatch { ours: Some(hash), theirs: None });
    assert!(err.to_string().contains("the peer has none"), "{err}");
}

#[test]
fn the_state_schema_is_checked_before_the_inputs() {
    #[derive(Clone, Copy, Debug, PartialEq, Protocol)]
    #[netschema(name = "other")]
    enum Other {
        Ship(Ship),
    }
    let server = Server::<Fleet>::new(CONFIG).unwrap().with_inputs(Move::SCHEMA).unwrap();
    let mut hello = [0; 64];
    let n = Client::<Other>::hello(&mut hello).unwrap();
    let err = server_connect(server, &hello[..n]);
    assert!(matches!(err, Err(Error::SchemaMismatch { .. })), "{err:?}");
}

fn server_connect(mut server: Server<Fleet>, hello: &[u8]) -> Result<(), Error> {
    server.connect(hello).map(|_| ())
}

/// A peer of another wire version is told apart by its version, whatever the length of its
/// messages (version 8's hello had no input hash and was 14 bytes long).
#[test]
fn an_older_wire_version_is_refused_by_its_version() {
    let mut hello = [0; 64];
    let n = Client::<Fleet>::hello(&mut hello).unwrap();
    hello[4..6].copy_from_slice(&8u16.to_le_bytes());
    let err = handshake::check_hello(Fleet::SCHEMA, None, &hello[..14]).unwrap_err();
    assert_eq!(err, Error::VersionMismatch { ours: WIRE_VERSION, theirs: 8 });
    let mut welcome = [0; 64];
    let server = Server::<Fleet>::new(CONFIG).unwrap();
    let w = server.welcome(&mut welcome).unwrap();
    welcome[4..6].copy_from_slice(&8u16.to_le_bytes());
    let err = Client::<Fleet>::connect(&welcome[..22], 8).unwrap_err();
    assert_eq!(err, Error::VersionMismatch { ours: WIRE_VERSION, theirs: 8 });
    // Cut short at the current version, it is incomplete.
    welcome[4..6].copy_from_slice(&WIRE_VERSION.to_le_bytes());
    let err = Client::<Fleet>::connect(&welcome[..w - 1], 8).unwrap_err();
    assert_eq!(err, Error::UnexpectedEnd);
    hello[4..6].copy_from_slice(&WIRE_VERSION.to_le_bytes());
    let err = handshake::check_hello(Fleet::SCHEMA, None, &hello[..n - 1]);
    assert_eq!(err, Err(Error::UnexpectedEnd));
}

#[test]
fn an_invalid_input_schema_writes_no_hello() {
    use netschema::schema::{Class, Field};
    static TOLERANT: [Field; 1] = [Field::numeric("x", 0, 9, false, &[]).with_tolerance(1)];
    static CLASSES: [Class; 1] = [Class::new("Loose", &TOLERANT)];
    static LOOSE: Schema = Schema::new("Loose", &CLASSES);
    let mut hello = [0; 64];
    assert_eq!(Client::<Fleet>::hello_with_inputs(&LOOSE, &mut hello), Err(Error::InvalidSchema));
    assert_eq!(
        Server::<Fleet>::new(CONFIG).unwrap().with_inputs(&LOOSE).err(),
        Some(Error::InvalidSchema)
    );
}

/// Typed pushes and takes check the input type against the input schema the end was set up
/// with, and a value that does not fit is refused before anything is pushed.
#[test]
fn typed_inputs_are_checked_against_the_ends_input_schema() {
    let mut server = Server::<Fleet>::new(CONFIG).unwrap().with_inputs(Move::SCHEMA).unwrap();
    let mut msg = [0; 64];
    let n = Client::<Fleet>::hello_with_inputs(Move::SCHEMA, &mut msg).unwrap();
    let id = server.connect(&msg[..n]).unwrap();
    let n = server.welcome(&mut msg).unwrap();
    let mut client =
        Client::<Fleet>::connect_with_inputs(&msg[..n], 8, Move::SCHEMA, 16_667).unwrap();

    let wrong = Error::WrongInput { expected: "Move", given: "Jump" };
    assert_eq!(client.push(0, &Jump { high: true }), Err(wrong));
    assert_eq!(
        client.push(0, &finer::Move { dir: [0.0; 2], fire: false }),
        Err(Error::WrongInput { expected: "Move", given: "Move" })
    );
    assert!(Error::WrongInput { expected: "Move", given: "Move" }.to_string().contains("differ"));
    let err = client.push(0, &Move { dir: [f32::NAN, 0.0], fire: true }).unwrap_err();
    let Error::Capture(clamped) = err else { panic!("{err:?}") };
    assert_eq!((clamped.class, clamped.field), ("Move", "dir.x"));
    assert_eq!(client.input_stats().unwrap().0.datagrams, 0);

    let mut buf = [0; 512];
    for tick in 0..10u32 {
        let frame = server.begin_frame();
        let input = Move { dir: [tick as f32 / 10.0, -0.5], fire: tick % 3 == 0 };
        client.push(tick, &input).unwrap();
        let n = client.write(u64::from(tick) * 16_667, &mut buf).unwrap();
        assert_eq!(server.receive(id, &buf[..n]).unwrap().inputs, Some(Ok(1)));
        assert_eq!(server.take::<Jump>(id, frame), Err(wrong));
        let taken = server.take::<Move>(id, frame).unwrap();
        assert_eq!((taken.tick, taken.source), (tick, Source::Received));
        let mut raw = [[0; 3]; 2];
        input.quantise(&mut raw[0]);
        taken.value.quantise(&mut raw[1]);
        assert_eq!(raw[0], raw[1]);
    }
    // Nothing new: the last input stands in.
    server.begin_frame();
    let next = server.take_next::<Move>(id).unwrap();
    assert!(next.is_some_and(|t| t.source != Source::Received), "{next:?}");

    // Ends without inputs.
    let mut plain = Server::<Fleet>::new(CONFIG).unwrap();
    let n = Client::<Fleet>::hello(&mut msg).unwrap();
    let other = plain.connect(&msg[..n]).unwrap();
    assert_eq!(plain.take::<Move>(other, 0), Err(Error::NoInputs));
    let n = plain.welcome(&mut msg).unwrap();
    let mut client = Client::<Fleet>::connect(&msg[..n], 8).unwrap();
    assert_eq!(client.push(0, &Move { dir: [0.0; 2], fire: false }), Err(Error::NoInputs));
}
