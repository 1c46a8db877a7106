//! netschema replicates game and simulation state from a server to many clients over lossy
//! datagrams in as few bits as the data allows.
//!
//! This facade re-exports [`netschema_runtime`] (see its documentation for the codec; with it
//! [`Text`] and [`Blob`], the fixed-capacity values of `string<N>` and `bytes<N>` fields), the
//! `#[derive(Snapshot)]` / `#[derive(SnapshotStruct)]` / `#[derive(SnapshotEnum)]` /
//! `#[derive(Protocol)]` / `#[derive(Input)]` / `#[derive(Event)]` macros (default `derive`
//! feature; events: [`event`]), defines
//! [`SnapshotStruct`] for types held by derived classes, and defines [`include_schema!`] for
//! code generated from `.netidl` files by `netschema-idl`.
//!
//! # Two ways to declare replicated state
//!
//! From a `.netidl` schema compiled in `build.rs`:
//!
//! ```toml
//! [dependencies]
//! netschema = "0.1"
//! [build-dependencies]
//! netschema-idl = "0.1"
//! ```
//!
//! ```ignore
//! // build.rs
//! fn main() -> Result<(), netschema_idl::Error> {
//!     netschema_idl::Config::new().compile(&["schema/game.netidl"])
//! }
//!
//! // src/main.rs
//! #[allow(clippy::all)]
//! pub mod game {
//!     netschema::include_schema!("game");
//! }
//! ```
//!
//! Or with the derive, on structs you already have:
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! use netschema::{Snapshot, SnapshotEnum};
//!
//! #[derive(Clone, Copy, Debug, PartialEq, SnapshotEnum)]
//! enum Mood { Calm, Angry }
//!
//! #[derive(Debug, PartialEq, Snapshot)]
//! struct Unit {
//!     #[netschema(vec2(fixed(-64.0, 64.0, res = 1 / 512)))]
//!     pos: [f32; 2],
//!     #[netschema(int(0, 100), predict(hold))]
//!     hp: u8,
//!     #[netschema(angle(bits = 10))]
//!     heading: f32,
//!     alive: bool,
//!     mood: Mood,
//! }
//!
//! let unit = Unit { pos: [1.5, -2.0], hp: 40, heading: 0.0, alive: true, mood: Mood::Angry };
//! let mut raw = [0; 6];
//! unit.quantise(&mut raw);
//! assert_eq!(Unit::dequantise(&raw), unit);
//! assert_eq!(Unit::CLASS.fields[0].name, "pos.x");
//! # }
//! ```
//!
//! Both paths call the same code generator and produce the same [`schema::Class`] tables.
//!
//! # Replicating
//!
//! A schema is a Rust type: an enum over its classes (generated for a `.netidl` file, or
//! derived). The owned server and client of [`owned`] (feature `std`) are generic over it:
//!
//! ```
//! # #[cfg(all(feature = "derive", feature = "std"))] {
//! use netschema::owned::{Client, Event, Server, ServerConfig};
//! use netschema::{Protocol, Snapshot};
//!
//! #[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
//! struct Ball {
//!     #[netschema(vec2(fixed(-64.0, 64.0, res = 1 / 512)))]
//!     pos: [f32; 2],
//! }
//!
//! #[derive(Clone, Copy, Debug, PartialEq, Protocol)]
//! enum Game {
//!     Ball(Ball),
//! }
//!
//! let mut server = Server::<Game>::new(ServerConfig::new(16, 16)).unwrap();
//! let mut msg = [0; 64];
//! let n = Client::<Game>::hello(&mut msg).unwrap();
//! let player = server.connect(&msg[..n]).unwrap();
//! let n = server.welcome(&mut msg).unwrap();
//! let mut client = Client::<Game>::connect(&msg[..n], 16).unwrap();
//!
//! server.begin_frame();
//! server.set(42, &Ball { pos: [1.5, -2.0] }).unwrap(); // the game's own id
//! server.set_visible(player, 42, true).unwrap();
//! let mut packet = [0; 1200];
//! let len = server.encode(player, &mut packet).unwrap();
//!
//! client.decode(&packet[..len]).unwrap();
//! let created = client.events().next();
//! assert!(matches!(created, Some(Event::Created { value: Game::Ball(b), .. }) if b.pos == [1.5, -2.0]));
//! if let Some(ack) = client.ack() {
//!     server.receive_ack(player, &ack).unwrap();
//! }
//! # }
//! ```
//!
//! # Inputs
//!
//! What a client sends the server each tick is declared as an `input` item of a `.netidl`
//! schema or with `#[derive(Input)]`: a struct of a class's field kinds (exact, at most 16
//! scalars) whose [`Input::SCHEMA`] the owned server and client are set up with, so that the
//! handshake refuses a peer with other inputs (or none), and whose values they push and take:
//!
//! ```
//! # #[cfg(all(feature = "derive", feature = "std"))] {
//! use netschema::owned::{Client, Server, ServerConfig};
//! use netschema::{Input, Protocol, Snapshot};
//!
//! # #[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
//! # struct Ball {
//! #     #[netschema(vec2(fixed(-64.0, 64.0, res = 1 / 512)))]
//! #     pos: [f32; 2],
//! # }
//! # #[derive(Clone, Copy, Debug, PartialEq, Protocol)]
//! # enum Game {
//! #     Ball(Ball),
//! # }
//! #[derive(Clone, Copy, Debug, PartialEq, Input)]
//! struct Kick {
//!     #[netschema(angle(bits = 8))]
//!     dir: f32,
//!     hard: bool,
//! }
//!
//! let server = Server::<Game>::new(ServerConfig::new(16, 16)).unwrap();
//! let mut server = server.with_inputs(Kick::SCHEMA).unwrap();
//! let mut msg = [0; 64];
//! let n = Client::<Game>::hello_with_inputs(Kick::SCHEMA, &mut msg).unwrap();
//! let player = server.connect(&msg[..n]).unwrap();
//! let n = server.welcome(&mut msg).unwrap();
//! let mut client =
//!     Client::<Game>::connect_with_inputs(&msg[..n], 16, Kick::SCHEMA, 16_667).unwrap();
//!
//! let tick = server.begin_frame();
//! client.push(tick, &Kick { dir: 0.0, hard: true }).unwrap();
//! let mut up = [0; 256];
//! let n = client.write(0, &mut up).unwrap();
//! server.receive(player, &up[..n]).unwrap();
//! assert_eq!(server.take::<Kick>(player, tick).unwrap().value, Kick { dir: 0.0, hard: true });
//! # }
//! ```
#![no_std]

pub use netschema_runtime::*;

mod chain;
mod compose;
mod list;
pub mod nested;

pub use list::{List, TooLong};
pub use nested::SnapshotStruct;

#[cfg(feature = "derive")]
pub use netschema_derive::{Event, Input, Protocol, Snapshot, SnapshotEnum, SnapshotStruct};

/// Includes the Rust module generated by `netschema_idl::Config::compile` for the schema
/// called `$name` (the root `.netidl` file's stem) from `OUT_DIR`.
///
/// The generated file holds items only (no inner attributes), so it can be included anywhere;
/// wrapping it in a module keeps its names apart and lets you silence lints on it:
///
/// ```ignore
/// #[allow(clippy::all)]
/// pub mod game {
///     netschema::include_schema!("game");
/// }
///
/// let frame = game::Particle::default();
/// let schema: &netschema::schema::Schema = &game::SCHEMA;
/// ```
///
/// The generated code names this crate as `::netschema` unless `Config::crate_path` says
/// otherwise.
#[macro_export]
macro_rules! include_schema {
    ($name:literal) => {
        include!(concat!(env!("OUT_DIR"), "/", $name, ".rs"));
    };
}

/// Support for generated code; not a public API.
#[doc(hidden)]
pub mod __private {
    /// Writing and reading a list's slots.
    pub mod chain {
        pub use crate::chain::{read, write};
    }
    pub use crate::compose::{
        Clause, Nested, Part, count, fields, names, names_len, reaches, scalars, tolerance_fits,
    };
    use netschema_runtime::quant::{AngleQuant, EnumQuant, FixedQuant, IntQuant, QuatQuant};
    use netschema_runtime::{Error, Value};

    /// The meaning of an optional's presence flag in the schema hash: an enum of `absent` and
    /// `present`, so that it differs from a plain bool.
    pub const PRESENCE: u64 = EnumQuant::fingerprint(&["absent", "present"]);

    /// Writes the value scalars of an absent optional: each its field's lowest raw value.
    #[inline]
    pub fn absent(raw: &mut [i32], fields: &[netschema_runtime::schema::Field]) {
        for (r, f) in raw.iter_mut().zip(fields) {
            *r = f.min;
        }
    }

    /// A quantiser of real values (`fixed` and `angle`).
    pub trait RealQuantiser {
        /// The raw value of `v`, or an error if `v` is NaN, infinite or out of range.
        fn checked(&self, v: f64) -> Result<i32, Error>;
        /// The raw value of `v`, clamped.
        fn clamped(&self, v: f64) -> i32;
    }

    impl RealQuantiser for FixedQuant {
        #[inline]
        fn checked(&self, v: f64) -> Result<i32, Error> {
            self.try_quantise(v)
        }
        #[inline]
        fn clamped(&self, v: f64) -> i32 {
            self.quantise(v)
        }
    }

    impl RealQuantiser for AngleQuant {
        #[inline]
        fn checked(&self, v: f64) -> Result<i32, Error> {
            self.try_quantise(v)
        }
        #[inline]
        fn clamped(&self, v: f64) -> i32 {
            self.quantise(v)
        }
    }

    /// The raw value of a real field's `v`; a value that needs clamping is reported as scalar
    /// field `field`.
    #[inline]
    pub fn real<Q: RealQuantiser, T: Real>(
        q: &Q,
        v: T,
        field: usize,
        clamped: &mut dyn FnMut(usize, Value),
    ) -> i32 {
        let v = v.to_f64();
        match q.checked(v) {
            Ok(raw) => raw,
            Err(_) => {
                clamped(field, Value::Real(v));
                q.clamped(v)
            }
        }
    }

    /// The raw value of an integer field's `v`, reported as [`real`] does.
    #[inline]
    pub fn int<T: Integer>(
        q: &IntQuant,
        v: T,
        field: usize,
        clamped: &mut dyn FnMut(usize, Value),
    ) -> i32 {
        let wide = v.to_i64();
        let narrow = v.to_i32();
        if i64::from(narrow) == wide
            && let Ok(raw) = q.try_quantise(narrow)
        {
            return raw;
        }
        clamped(field, Value::Int(wide));
        q.quantise(narrow)
    }

    /// The raw form of a quaternion field's `v`, reported as [`real`] does (with its first
    /// non-finite component, or 0 for a zero quaternion).
    #[inline]
    pub fn quat<R: Rotation>(
        q: &QuatQuant,
        v: R,
        field: usize,
        clamped: &mut dyn FnMut(usize, Value),
    ) -> [i32; 4] {
        let v = v.to_array().map(Real::to_f64);
        match q.try_quantise(v) {
            Ok(raw) => raw,
            Err(_) => {
                let bad = v.iter().copied().find(|c| !c.is_finite()).unwrap_or(0.0);
                clamped(field, Value::Real(bad));
                q.quantise(v)
            }
        }
    }

    /// A real type a `fixed`, `angle` or `quat` field may be stored in.
    pub trait Real: Copy {
        /// The value as an `f64`.
        fn to_f64(self) -> f64;
        /// The nearest value to `v`.
        fn from_f64(v: f64) -> Self;
    }

    impl Real for f32 {
        #[inline]
        fn to_f64(self) -> f64 {
            f64::from(self)
        }
        #[inline]
        fn from_f64(v: f64) -> Self {
            v as f32
        }
    }

    impl Real for f64 {
        #[inline]
        fn to_f64(self) -> f64 {
            self
        }
        #[inline]
        fn from_f64(v: f64) -> Self {
            v
        }
    }

    /// A type a `vec2` or `vec3` field may be stored in: an array, or (feature `glam`) glam's
    /// vectors. Components are read by index.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot hold a netschema vector",
        note = "use an array `[T; N]`, or glam's vectors with netschema's `glam` feature"
    )]
    pub trait Vector<const N: usize>: Copy {
        /// The component type.
        type Elem: Copy;
        /// The vector of `components`.
        fn from_array(components: [Self::Elem; N]) -> Self;
    }

    impl<T: Copy, const N: usize> Vector<N> for [T; N] {
        type Elem = T;
        #[inline]
        fn from_array(components: [T; N]) -> Self {
            components
        }
    }

    /// A type a `quat` field may be stored in: `[x, y, z, w]`, or (feature `glam`) glam's
    /// quaternions.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot hold a netschema quaternion",
        note = "use `[f32; 4]` or `[f64; 4]` as `[x, y, z, w]`, or glam's `Quat` with netschema's `glam` feature"
    )]
    pub trait Rotation: Copy {
        /// The component type.
        type Elem: Real;
        /// `[x, y, z, w]`.
        fn to_array(self) -> [Self::Elem; 4];
        /// The rotation `[x, y, z, w]`.
        fn from_array(xyzw: [Self::Elem; 4]) -> Self;
    }

    impl<T: Real> Rotation for [T; 4] {
        type Elem = T;
        #[inline]
        fn to_array(self) -> [T; 4] {
            self
        }
        #[inline]
        fn from_array(xyzw: [T; 4]) -> Self {
            xyzw
        }
    }

    #[cfg(feature = "glam")]
    mod glam_types {
        use super::{Rotation, Vector};

        macro_rules! vector {
            ($($t:ty, $n:literal, $e:ty;)*) => {$(
                impl Vector<$n> for $t {
                    type Elem = $e;
                    #[inline]
                    fn from_array(components: [$e; $n]) -> Self {
                        <$t>::from_array(components)
                    }
                }
            )*};
        }
        vector!(glam::Vec2, 2, f32; glam::Vec3, 3, f32; glam::DVec2, 2, f64; glam::DVec3, 3, f64;);

        macro_rules! rotation {
            ($($t:ty, $e:ty;)*) => {$(
                impl Rotation for $t {
                    type Elem = $e;
                    #[inline]
                    fn to_array(self) -> [$e; 4] {
                        <$t>::to_array(self)
                    }
                    #[inline]
                    fn from_array(xyzw: [$e; 4]) -> Self {
                        <$t>::from_array(xyzw)
                    }
                }
            )*};
        }
        rotation!(glam::Quat, f32; glam::DQuat, f64;);
    }

    /// An integer type an `int` field may be stored in.
    pub trait Integer: Copy {
        /// The value, saturated to `i32`.
        fn to_i32(self) -> i32;
        /// The value, saturated to `i64`.
        fn to_i64(self) -> i64;
        /// `v`, saturated to this type.
        fn from_i32(v: i32) -> Self;
    }

    macro_rules! integer {
        ($($t:ty),*) => {$(
            impl Integer for $t {
                #[inline]
                fn to_i32(self) -> i32 {
                    (self as i128).clamp(i32::MIN as i128, i32::MAX as i128) as i32
                }
                #[inline]
                fn to_i64(self) -> i64 {
                    (self as i128).clamp(i64::MIN as i128, i64::MAX as i128) as i64
                }
                #[inline]
                fn from_i32(v: i32) -> Self {
                    (v as i128).clamp(<$t>::MIN as i128, <$t>::MAX as i128) as $t
                }
            }
        )*};
    }
    integer!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

    /// The number of values of the raw range `raw_min..=raw_max` (a categorical field's cases).
    pub const fn cases(raw_min: i32, raw_max: i32) -> u32 {
        (raw_max as i64 - raw_min as i64 + 1) as u32
    }
}
