//! The handshake refuses a client whose schema differs from the server's in any parameter that
//! changes meaning on the wire, one test per kind of parameter; it accepts identical builds.

use netschema::engine::handshake::{self, WIRE_VERSION};
use netschema::owned::{Client, Server, ServerConfig};
use netschema::{Error, Protocol, Snapshot};

const CONFIG: ServerConfig = ServerConfig::new(8, 8);

/// Whether a client of schema `C` may connect to a server of schema `S`: the server checks the
/// hello, and the client checks the welcome.
fn connects<S: Protocol, C: Protocol>() -> Result<(), Error> {
    let mut server = Server::<S>::new(CONFIG)?;
    let mut hello = [0; 64];
    let n = Client::<C>::hello(&mut hello)?;
    let refused_by_server = server.connect(&hello[..n]).map(|_| ());
    let mut welcome = [0; 64];
    let n = server.welcome(&mut welcome)?;
    let refused_by_client = Client::<C>::connect(&welcome[..n], CONFIG.handles).map(|_| ());
    // Each end names its own hash first.
    let mirrored = refused_by_client.map_err(|e| match e {
        Error::SchemaMismatch { ours, theirs } => {
            Error::SchemaMismatch { ours: theirs, theirs: ours }
        }
        e => e,
    });
    assert_eq!(refused_by_server, mirrored, "both ends must agree");
    refused_by_server
}

/// Declares module `$m` with a one-class schema `Game` whose class `Unit` has the given fields:
/// every schema here has the same name and class name, so only the fields differ.
macro_rules! schema {
    ($m:ident { $($field:tt)* }) => {
        mod $m {
            #[allow(unused_imports)]
            use super::moods::*;
            use netschema::{Protocol, Snapshot};
            #[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
            pub(crate) struct Unit { $($field)* }
            #[derive(Clone, Copy, Debug, PartialEq, Protocol)]
            #[netschema(name = "game")]
            pub(crate) enum Game { Unit(Unit) }
        }
    };
}

/// Asserts that `$a` and `$b` refuse each other with both hashes in the error.
macro_rules! refused {
    ($a:ty, $b:ty) => {{
        let err = connects::<$a, $b>().unwrap_err();
        let (server, client) = (<$a as Protocol>::SCHEMA.hash, <$b as Protocol>::SCHEMA.hash);
        assert_eq!(err, Error::SchemaMismatch { ours: server, theirs: client });
        assert!(err.to_string().contains(&format!("{client:#018x}")), "{err}");
    }};
}

schema!(small { #[netschema(fixed(-128.0, 128.0, res = 1 / 256))] pub(crate) x: f32 });
schema!(large { #[netschema(fixed(-256.0, 256.0, res = 1 / 128))] pub(crate) x: f32 });
schema!(small_again { #[netschema(fixed(-128.0, 128.0, res = 1 / 256))] pub(crate) x: f32 });
schema!(bits_8 { #[netschema(fixed(-1.0, 1.0, bits = 8))] pub(crate) x: f32 });
schema!(bits_9 { #[netschema(fixed(-1.0, 1.0, bits = 9))] pub(crate) x: f32 });
schema!(upper_one { #[netschema(fixed(0.0, 1.0, bits = 8))] pub(crate) x: f32 });
schema!(int_100 { #[netschema(int(0, 100))] pub(crate) x: i32 });
schema!(int_from_1 { #[netschema(int(1, 100))] pub(crate) x: i32 });
schema!(angle_10 { #[netschema(angle(bits = 10))] pub(crate) x: f32 });
schema!(angle_11 { #[netschema(angle(bits = 11))] pub(crate) x: f32 });
schema!(quat_9 { #[netschema(quat(bits = 9))] pub(crate) q: [f32; 4] });
schema!(quat_10 { #[netschema(quat(bits = 10))] pub(crate) q: [f32; 4] });
schema!(hold { #[netschema(int(0, 100), predict(hold))] pub(crate) x: i32 });
schema!(hold_linear { #[netschema(int(0, 100), predict(hold, linear))] pub(crate) x: i32 });
schema!(x_then_y { #[netschema(int(0, 9))] pub(crate) x: i32, #[netschema(int(0, 9))] pub(crate) y: i32 });
schema!(y_then_x { #[netschema(int(0, 9))] pub(crate) y: i32, #[netschema(int(0, 9))] pub(crate) x: i32 });
schema!(named_x { #[netschema(int(0, 9))] pub(crate) x: i32 });
schema!(named_z { #[netschema(int(0, 9))] pub(crate) z: i32 });

/// An enum, its cases swapped, and one case renamed, each named `Mood`.
mod moods {
    use netschema::SnapshotEnum;
    #[derive(Clone, Copy, Debug, PartialEq, SnapshotEnum)]
    pub(crate) enum Mood {
        Calm,
        Angry,
    }
    pub(crate) mod swapped {
        #[derive(Clone, Copy, Debug, PartialEq, netschema::SnapshotEnum)]
        pub(crate) enum Mood {
            Angry,
            Calm,
        }
    }
    pub(crate) mod renamed {
        #[derive(Clone, Copy, Debug, PartialEq, netschema::SnapshotEnum)]
        pub(crate) enum Mood {
            Calm,
            Furious,
        }
    }
}
schema!(calm_angry { pub(crate) m: Mood });
schema!(angry_calm { pub(crate) m: super::moods::swapped::Mood });
schema!(calm_furious { pub(crate) m: super::moods::renamed::Mood });
schema!(flag { pub(crate) b: bool });

#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "game")]
enum TwoClasses {
    Small(small::Unit),
    Int(int_100::Unit),
}
#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
#[netschema(name = "game")]
enum TwoClassesSwapped {
    Int(int_100::Unit),
    Small(small::Unit),
}

#[test]
fn identical_schemas_connect() {
    connects::<small::Game, small_again::Game>().unwrap();
    connects::<calm_angry::Game, calm_angry::Game>().unwrap();
}

#[test]
fn scale_changes_are_refused_although_the_raw_range_is_the_same() {
    assert_eq!(small::Unit::CLASS.fields[0].max, large::Unit::CLASS.fields[0].max);
    refused!(small::Game, large::Game);
    refused!(large::Game, small::Game);
}

#[test]
fn fixed_bits_and_bounds_are_refused() {
    refused!(bits_8::Game, bits_9::Game);
    refused!(bits_8::Game, upper_one::Game);
}

#[test]
fn int_bounds_are_refused() {
    refused!(int_100::Game, int_from_1::Game);
}

#[test]
fn angle_bits_are_refused() {
    refused!(angle_10::Game, angle_11::Game);
}

#[test]
fn quaternion_bits_are_refused() {
    refused!(quat_9::Game, quat_10::Game);
}

#[test]
fn candidate_predictors_are_refused() {
    refused!(hold::Game, hold_linear::Game);
}

#[test]
fn field_order_and_names_are_refused() {
    refused!(x_then_y::Game, y_then_x::Game);
    refused!(named_x::Game, named_z::Game);
}

#[test]
fn enum_case_order_and_names_are_refused() {
    refused!(calm_angry::Game, angry_calm::Game);
    refused!(calm_angry::Game, calm_furious::Game);
    refused!(calm_angry::Game, flag::Game);
}

#[test]
fn class_order_is_refused() {
    refused!(TwoClasses, TwoClassesSwapped);
}

#[test]
fn another_wire_version_is_refused() {
    let mut hello = [0; 64];
    let n = Client::<small::Game>::hello(&mut hello).unwrap();
    hello[4..6].copy_from_slice(&(WIRE_VERSION + 1).to_le_bytes());
    let err = handshake::check_hello(small::Game::SCHEMA, None, &hello[..n]).unwrap_err();
    assert_eq!(err, Error::VersionMismatch { ours: WIRE_VERSION, theirs: WIRE_VERSION + 1 });
}

#[test]
fn a_client_too_small_for_the_server_refuses_with_both_numbers() {
    let server = Server::<small::Game>::new(ServerConfig::new(100, 50)).unwrap();
    let mut welcome = [0; 64];
    let n = server.welcome(&mut welcome).unwrap();
    let err = Client::<small::Game>::connect(&welcome[..n], 20).unwrap_err();
    assert_eq!(err, Error::TooManyHandles { server: 50, client: 20 });
    assert!(err.to_string().contains("50") && err.to_string().contains("20"), "{err}");
    assert_eq!(Client::<small::Game>::connect(&welcome[..n], 50).unwrap().handles(), 50);
}

/// Without the handshake, a client of another schema refuses every packet as
/// [`Error::CheckMismatch`] (check values cover the schema hash), and the error says that a
/// schema mismatch is one cause and the handshake the way to tell.
#[test]
fn a_client_of_another_schema_that_skipped_the_handshake_refuses_every_packet() {
    let mut server = Server::<small::Game>::new(CONFIG).unwrap();
    let mut hello = [0; 64];
    let n = Client::<small::Game>::hello(&mut hello).unwrap();
    let id = server.connect(&hello[..n]).unwrap();
    // The same raw range: without the hash in the check, the values would decode, scaled wrong.
    let schema = large::Game::SCHEMA;
    let mut buffers = netschema::owned::ClientBuffers::new(schema, CONFIG.handles);
    let mut client = buffers.client(schema, CONFIG.handles).unwrap();
    let mut buf = [0; 512];
    for frame in 0..40 {
        server.begin_frame();
        server.set(1, &small::Unit { x: frame as f32 / 4.0 }).unwrap();
        server.set_visible(id, 1, true).unwrap();
        let n = server.encode(id, &mut buf).unwrap();
        let err = client.decode(&buf[..n]).unwrap_err();
        assert_eq!(err, Error::CheckMismatch, "frame {frame}");
    }
    let message = Error::CheckMismatch.to_string();
    assert!(message.contains("schema") && message.contains("handshake"), "{message}");
}
