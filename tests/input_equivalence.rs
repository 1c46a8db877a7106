//! The same inputs as `.netidl` `input` items (`tests/schemas/inputs.netidl`, generated into
//! `tests/generated/inputs.rs`) and as `#[derive(Input)]` structs must give the same input
//! schemas and hashes, the same raw values and identical input datagrams, and each front end's
//! server must take the other's inputs.
//!
//! `NETSCHEMA_BLESS=1 cargo test --test input_equivalence` regenerates the checked-in file.

mod golden;

use netschema::engine::input::{InputSender, check_schema};
use netschema::owned::{Client, InputBuffers, Server, ServerConfig, TakenInput};
use netschema::schema::Schema;
use netschema::{Input, Snapshot};

/// The code generated from `tests/schemas/inputs.netidl`.
#[allow(clippy::all, dead_code, unreachable_pub)]
mod idl {
    include!("generated/inputs.rs");
}

/// The same inputs, derived.
#[allow(unreachable_pub)]
mod derived {
    use netschema::{Input, Protocol, Snapshot, SnapshotEnum, SnapshotStruct};

    /// The weapon a player holds.
    #[derive(Clone, Copy, Debug, PartialEq, Default, SnapshotEnum)]
    pub enum Weapon {
        #[default]
        Blaster,
        Rail,
    }

    /// Where a player looks.
    #[derive(Clone, Copy, Debug, PartialEq, Default, SnapshotStruct)]
    pub struct Aim {
        #[netschema(angle(bits = 16), predict(hold, linear))]
        pub yaw: f32,
        #[netschema(fixed(-1.5625, 1.5625, res = 1 / 64))]
        pub pitch: f32,
    }

    /// A ship.
    #[derive(Clone, Copy, Debug, PartialEq, Default, Snapshot)]
    pub struct Ship {
        #[netschema(vec2(fixed(-1024, 1024, res = 1 / 16)))]
        pub pos: [f32; 2],
    }

    /// The state the inputs steer.
    #[derive(Clone, Copy, Debug, PartialEq, Protocol)]
    #[netschema(name = "inputs")]
    pub enum Inputs {
        Ship(Ship),
    }

    /// A player's move for one tick.
    #[derive(Clone, Copy, Debug, PartialEq, Default, Input)]
    pub struct Move {
        /// The stick, from -1 to 1 on each axis.
        #[netschema(vec2(fixed(-1, 1, res = 1 / 127)))]
        pub dir: [f32; 2],
        #[netschema(angle(bits = 16))]
        pub yaw: f32,
        pub fire: bool,
    }

    /// Everything else a player does in a tick: every kind an input may hold, 15 scalars.
    #[derive(Clone, Copy, Debug, PartialEq, Default, Input)]
    pub struct Act {
        pub aim: Aim,
        pub weapon: Weapon,
        #[netschema(int(1, 4), predict(hold))]
        pub zoom: Option<u8>,
        pub keys: [bool; 4],
        #[netschema(quat(bits = 9, exact = []))]
        pub turret: [f32; 4],
        #[netschema(fixed(0, 1, bits = 8), predict(zero, hold))]
        pub throttle: f32,
        #[netschema(int(-3, 3))]
        pub r#type: i32,
    }
}

#[test]
fn checked_in_code_is_up_to_date() {
    let warnings = golden::assert_generated_is_current("inputs");
    assert!(warnings.is_empty(), "{warnings}");
}

#[test]
fn input_schemas_and_hashes_are_identical() {
    for (a, b) in [
        (<idl::Move as Input>::SCHEMA, <derived::Move as Input>::SCHEMA),
        (<idl::Act as Input>::SCHEMA, <derived::Act as Input>::SCHEMA),
    ] {
        assert_eq!(a, b);
        assert_eq!(a.hash, b.hash);
        assert_eq!(check_schema(a).unwrap(), check_schema(b).unwrap());
    }
    let moves: &Schema = <derived::Move as Input>::SCHEMA;
    assert_eq!((moves.name, moves.classes.len()), ("Move", 1));
    assert_eq!(moves.classes[0], <derived::Move as Snapshot>::CLASS);
    let paths = |s: &Schema| s.classes[0].fields.iter().map(|f| f.name).collect::<Vec<_>>();
    assert_eq!(paths(moves), ["dir.x", "dir.y", "yaw", "fire"]);
    assert_eq!(
        paths(<derived::Act as Input>::SCHEMA),
        [
            "aim.yaw",
            "aim.pitch",
            "weapon",
            "zoom.present",
            "zoom.value",
            "keys[0]",
            "keys[1]",
            "keys[2]",
            "keys[3]",
            "turret.largest",
            "turret.c0",
            "turret.c1",
            "turret.c2",
            "throttle",
            "type",
        ]
    );
    // `netschema inspect tests/schemas/inputs.netidl` prints the same hash, which the handshake
    // compares (`netschema-cli/tests/cli.rs`).
    assert_eq!(<idl::Act as Input>::SCHEMA.hash, 0xd4d3_d57d_11b9_4bfb);
    // The input schemas are not the state schema, which the inputs leave alone.
    let state = <derived::Inputs as netschema::Protocol>::SCHEMA;
    assert_eq!(*state, idl::SCHEMA);
    assert_ne!(state.hash, moves.hash);
    assert_ne!(moves.hash, <derived::Act as Input>::SCHEMA.hash);
}

/// A small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 =
            self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn unit(&mut self) -> f32 {
        (self.next() % 10_001) as f32 / 5_000.0 - 1.0
    }
}

/// A player's moves over `ticks` ticks, as both front ends' types.
fn moves(ticks: u32) -> Vec<(idl::Move, derived::Move)> {
    let mut rng = Rng(5);
    let mut yaw = 0.0f32;
    (0..ticks)
        .map(|tick| {
            let dir = if tick % 30 < 20 { [rng.unit(), rng.unit()] } else { [0.0, 1.0] };
            yaw = (yaw + rng.unit() * 0.1).rem_euclid(std::f32::consts::TAU);
            let fire = tick % 40 < 6;
            (idl::Move { dir, yaw, fire }, derived::Move { dir, yaw, fire })
        })
        .collect()
}

/// The other actions over `ticks` ticks, as both front ends' types.
fn acts(ticks: u32) -> Vec<(idl::Act, derived::Act)> {
    let mut rng = Rng(9);
    (0..ticks)
        .map(|tick| {
            let (yaw, pitch) = (rng.unit() * 3.0, rng.unit() * 1.5);
            let zoom = (tick % 50 < 20).then_some((tick / 50 % 4 + 1) as u8);
            let fourth = rng.next().is_multiple_of(2);
            let keys = [tick.is_multiple_of(3), tick.is_multiple_of(5), tick % 7 == 1, fourth];
            let half = (rng.unit() * 0.7).sin_cos();
            let turret = [0.0, half.0, 0.0, half.1];
            let (throttle, kind) = ((tick % 100) as f32 / 100.0, (tick % 7) as i32 - 3);
            let rail = tick % 60 >= 30;
            let idl = idl::Act {
                aim: idl::Aim { yaw, pitch },
                weapon: if rail { idl::Weapon::Rail } else { idl::Weapon::Blaster },
                zoom: zoom.map(i32::from),
                keys,
                turret,
                throttle,
                r#type: kind,
            };
            let derived = derived::Act {
                aim: derived::Aim { yaw, pitch },
                weapon: if rail { derived::Weapon::Rail } else { derived::Weapon::Blaster },
                zoom,
                keys,
                turret,
                throttle,
                r#type: kind,
            };
            (idl, derived)
        })
        .collect()
}

/// The raw values of `value`, checked.
fn raw<I: Input>(value: &I) -> Vec<i32> {
    let mut raw = vec![0; I::CLASS.fields.len()];
    value.try_quantise(&mut raw).unwrap();
    raw
}

#[test]
fn raw_values_are_identical_and_read_back_alike() {
    for (a, b) in moves(200) {
        assert_eq!(raw(&a), raw(&b));
        let back = derived::Move::dequantise(&raw(&a));
        assert_eq!(raw(&back), raw(&a));
    }
    for (a, b) in acts(200) {
        assert_eq!(raw(&a), raw(&b));
        let (x, y) = (idl::Act::dequantise(&raw(&b)), derived::Act::dequantise(&raw(&a)));
        assert_eq!((x.zoom.map(|z| z as u8), x.keys, x.r#type), (y.zoom, y.keys, y.r#type));
    }
}

/// The datagrams an input sender of `I` encodes for `inputs`, one per tick, none acked.
fn datagrams<I: Input>(inputs: impl Iterator<Item = I>) -> Vec<Vec<u8>> {
    let mut buffers = InputBuffers::new(I::SCHEMA);
    let mut sender = InputSender::new(I::SCHEMA, buffers.storage()).unwrap();
    sender.set_session(17);
    let mut buf = [0u8; 1024];
    inputs
        .enumerate()
        .map(|(tick, input)| {
            sender.push(tick as u32, &raw(&input)).unwrap();
            let n = sender.encode(&mut buf).unwrap();
            buf[..n].to_vec()
        })
        .collect()
}

#[test]
fn input_datagrams_are_identical() {
    let (a, b): (Vec<_>, Vec<_>) = moves(300).into_iter().unzip();
    assert_eq!(datagrams(a.into_iter()), datagrams(b.into_iter()));
    let (a, b): (Vec<_>, Vec<_>) = acts(300).into_iter().unzip();
    assert_eq!(datagrams(a.into_iter()), datagrams(b.into_iter()));
}

/// Each front end's client pushes the same moves through the owned layer: the up frames are
/// byte-identical, and a server set up with the other front end's input schema takes them as
/// its own type.
#[test]
fn owned_ends_of_either_front_end_exchange_typed_inputs() {
    fn connect<I: Input>(
        server: &mut Server<idl::Inputs>,
    ) -> (netschema::owned::ClientId, Client<idl::Inputs>) {
        let mut msg = [0u8; 64];
        let n = Client::<idl::Inputs>::hello_with_inputs(I::SCHEMA, &mut msg).unwrap();
        let id = server.connect(&msg[..n]).unwrap();
        let n = server.welcome(&mut msg).unwrap();
        let client =
            Client::<idl::Inputs>::connect_with_inputs(&msg[..n], 8, I::SCHEMA, 16_667).unwrap();
        (id, client)
    }
    let server = Server::<idl::Inputs>::new(ServerConfig::new(8, 8)).unwrap();
    let mut server = server.with_inputs(<derived::Move as Input>::SCHEMA).unwrap();
    let (from_idl, mut idl_client) = connect::<idl::Move>(&mut server);
    let (from_derived, mut derived_client) = connect::<derived::Move>(&mut server);
    let mut up = [0u8; 1024];
    for (tick, (a, b)) in moves(120).into_iter().enumerate() {
        let tick = tick as u32;
        let frame = server.begin_frame();
        assert_eq!(frame, tick);
        idl_client.push(tick, &a).unwrap();
        derived_client.push(tick, &b).unwrap();
        let now = u64::from(tick) * 16_667;
        let n = idl_client.write(now, &mut up).unwrap();
        let from_a = up[..n].to_vec();
        let n = derived_client.write(now, &mut up).unwrap();
        assert_eq!(from_a, up[..n], "tick {tick}");
        assert_eq!(server.receive(from_idl, &from_a).unwrap().inputs, Some(Ok(1)));
        assert_eq!(server.receive(from_derived, &up[..n]).unwrap().inputs, Some(Ok(1)));
        let TakenInput { value, .. } = server.take::<idl::Move>(from_derived, tick).unwrap();
        assert_eq!(raw(&value), raw(&a));
        let taken: TakenInput<derived::Move> = server.take(from_idl, tick).unwrap();
        assert_eq!((taken.tick, taken.source), (tick, netschema::engine::input::Source::Received));
        assert_eq!(raw(&taken.value), raw(&b));
    }
}
