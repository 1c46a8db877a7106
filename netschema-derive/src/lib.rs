//! `#[derive(Snapshot)]`, `#[derive(SnapshotStruct)]`, `#[derive(SnapshotEnum)]`,
//! `#[derive(Protocol)]` and `#[derive(Input)]` for netschema.
//!
//! The derive is a thin front-end: it lowers the struct and its `#[netschema(...)]` field
//! attributes into the IR of `netschema-idl`, checks it with the same validator as `.netidl`
//! files, and emits the impl with the same code generator, so a struct and the equivalent
//! `.netidl` class produce the same class table and the same bytes on the wire. Use it through
//! the `netschema` facade (`netschema::Snapshot`), which re-exports it.
//!
//! Field attributes (one `#[netschema(...)]` list, or several):
//!
//! | attribute | Rust type |
//! |---|---|
//! | `int(min, max)` | any primitive integer type |
//! | `fixed(min, max, res = R)` / `fixed(min, max, bits = N)` | `f32` or `f64` |
//! | `angle(bits = N)` | `f32` or `f64` (radians) |
//! | `quat(bits = N)` | `[f32; 4]` or `[f64; 4]`, `[x, y, z, w]` |
//! | `vec2(K)` / `vec3(K)` | `[T; 2]` / `[T; 3]` with `K` one of `int`, `fixed`, `angle` |
//! | none | `bool`, a struct deriving `SnapshotStruct` (flattened in place: `stats.health`), or an enum deriving `SnapshotEnum` |
//! | the kind of `T` (or none) | `Option<T>`: `.netidl`'s `optional<K>` (a presence flag, then `T`'s scalars) |
//! | the kind of `T` (or none) | `netschema::List<T, N>`, `N` an integer literal: `.netidl`'s `list<K, N>` (a head link, then `N` slots of a link and `T`'s scalars) |
//! | none | `netschema::Text<N>` / `netschema::Blob<N>`, `N` an integer literal: `.netidl`'s `string<N>` / `bytes<N>` (at most `N` bytes, UTF-8 for a `Text`), a class's or an event's own field |
//! | `predict(p, ...)` | with any numeric kind: candidates among `zero`, `hold`, `linear`, `quadratic`, `cubic`, `contract` |
//! | `tolerance = V` | with any numeric kind: the error accepted, in the kind's units (`.netidl`'s `tolerance(V)`) |
//! | `group = "name"` | any field: its update group, declared on the struct (`.netidl`'s `group(name)`) |
//! | `timeline(interp, ahead = A, history = H, keep = K)` | with a kind (`bool` for bools; enums are not supported here): `netschema::timeline::Timeline<W, A + H>` (`.netidl`'s `timeline(...)`); the struct gets the empty timeline as an associated constant, `POS_TIMELINE` for a field `pos` |
//!
//! Struct attributes schedule the fields (`.netidl`'s `class Unit(every = 2, priority = 3)` and
//! `group slow(every = 8, priority = 2);`): `#[netschema(every = N, priority = P)]` for the fields
//! of no named group, and `#[netschema(group(name = "slow", every = N, priority = P))]`, once per
//! update group; every parameter but a group's name is optional.
//!
//! A kind on an array type `[T; N]` applies to every element: `#[netschema(int(0, 255))]` on
//! `[u8; 3]` is the `.netidl` kind `[int(0, 255); 3]`, and `#[netschema(vec2(fixed(..)))]` on
//! `[[f32; 2]; 4]` is `[vec2<fixed(..)>; 4]`. Values are literals, optionally negated, or a
//! ratio of two (`res = 1 / 512`). On the struct or enum, `#[netschema(crate = "path")]` names
//! the facade crate if it is not `::netschema`.
//!
//! ```ignore
//! #[derive(Snapshot)]
//! #[netschema(group(name = "slow", every = 8, priority = 2))]
//! struct Particle {
//!     #[netschema(vec2(fixed(-64.0, 64.0, res = 1 / 512)), tolerance = 0.01)]
//!     pos: [f32; 2],
//!     #[netschema(angle(bits = 10), predict(hold, linear))]
//!     heading: f32,
//!     #[netschema(quat(bits = 9))]
//!     orientation: [f32; 4],
//!     #[netschema(group = "slow")]
//!     alive: bool,
//!     state: UnitState, // #[derive(SnapshotEnum)]
//! }
//! ```
//!
//! `#[derive(SnapshotStruct)]` takes the same field attributes but `group` and `timeline`;
//! the classes holding the struct read its scalars through the facade's `SnapshotStruct`
//! trait, whose constant table they copy at compile time.
//!
//! `#[derive(Input)]` makes a client input type (`.netidl`'s `input Move { ... }`): the same
//! field attributes but `tolerance`, `group` and `timeline`, no `Ref` fields, at most 16
//! scalars; it implements `Snapshot` for the input's one class and `Input`, whose `SCHEMA` is
//! the input schema the owned server and client are set up with:
//!
//! ```ignore
//! #[derive(Clone, Copy, Debug, PartialEq, Input)]
//! struct Move {
//!     #[netschema(vec2(fixed(-1, 1, res = 1 / 127)))]
//!     dir: [f32; 2],
//!     #[netschema(angle(bits = 16))]
//!     yaw: f32,
//!     fire: bool,
//! }
//! ```
//!
//! Every mistake is reported at the tokens that cause it, all in one pass.

mod event;
mod input;
mod list;
mod lower;
mod nested;
mod protocol;
mod schedule;
mod text;

use proc_macro::TokenStream;

/// Implements `netschema::Snapshot` for a struct with named fields; see the crate docs for the
/// `#[netschema(...)]` attributes.
#[proc_macro_derive(Snapshot, attributes(netschema))]
pub fn derive_snapshot(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    lower::snapshot(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Implements `netschema::SnapshotStruct` for a struct with named fields, which derived
/// classes and structs may then hold as a field, flattened in place (`.netidl`'s `struct`).
/// Its fields take the attributes of a class's fields, but no `group` or `timeline`.
#[proc_macro_derive(SnapshotStruct, attributes(netschema))]
pub fn derive_snapshot_struct(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    nested::snapshot_struct(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Implements `netschema::SnapshotEnum` for a fieldless enum: its cases are its variants in
/// declaration order.
#[proc_macro_derive(SnapshotEnum, attributes(netschema))]
pub fn derive_snapshot_enum(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    lower::snapshot_enum(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Implements `netschema::Input` (and `netschema::Snapshot`, its one class) for a struct with
/// named fields: a client input type, `.netidl`'s `input` item, whose input schema
/// (`Input::SCHEMA`, named after the struct) the owned server and client are set up with. Its
/// fields take the attributes of a class's fields but `tolerance` (inputs are exact), `group`
/// and `timeline`, and hold no `Ref`; at most 16 scalars in all (`MAX_INPUT_FIELDS`, checked at
/// compile time through the `SnapshotStruct`s it holds).
#[proc_macro_derive(Input, attributes(netschema))]
pub fn derive_input(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    input::input(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Implements `netschema::event::Event` (and `netschema::Snapshot`, its one class) for a
/// struct with named fields: an event the server sends a client once, over the record stream.
/// Its fields take the attributes of a class's fields, references included (with
/// `#[netschema(protocol = "Game")]` on the struct), but no groups or timelines; the enum
/// deriving `Protocol` lists it with `#[netschema(events(Hit, ...))]`.
#[proc_macro_derive(Event, attributes(netschema))]
pub fn derive_event(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    event::event(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}

/// Implements `netschema::Protocol` for an enum with one variant per class, each holding the
/// class's `Snapshot` type, in class order (`enum Game { Player(Player), Shot(Shot) }`), with
/// `ClassOf<Game>` and `From` for each class. `#[netschema(name = "game")]` names the schema
/// (default: the enum's name); `#[netschema(models = "batched:10:7")]` chooses its model policy
/// (`per-frame`, the default, `batched` or `batched:B:K`: the `.netidl` `models` statement);
/// `#[netschema(prior = "file")]` embeds a prior `netschema train` wrote (a path relative to
/// the crate's manifest), which every connection starts from.
#[proc_macro_derive(Protocol, attributes(netschema))]
pub fn derive_protocol(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    protocol::protocol(&input).unwrap_or_else(syn::Error::into_compile_error).into()
}
