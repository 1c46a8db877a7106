//! The trait generated code implements for a client input type.

use crate::schema::Schema;
use crate::snapshot::Snapshot;

/// A client input type: what a client sends the server each tick, a struct of fields whose
/// kinds are a class's, carried by the input stream of [`engine::input`](crate::engine::input).
///
/// Implemented by the code generated for a `.netidl` `input` item and by `#[derive(Input)]`;
/// both give the same schema, the same hash and the same raw values for the same declaration.
/// The input's fields are the one class of [`Input::SCHEMA`], which is also its
/// [`Snapshot::CLASS`]: [`Snapshot::try_quantise`] and [`Snapshot::dequantise`] turn a value
/// into the raw values the input stream carries and back
/// ([`InputSender::push`](crate::engine::input::InputSender::push),
/// [`Taken::values`](crate::engine::input::Taken::values)), and the owned layer does it for
/// the game (`owned::Client::push`, `owned::Server::take`).
///
/// ```
/// use netschema_runtime::engine::input::check_schema;
/// use netschema_runtime::schema::{Class, Field, Schema};
/// use netschema_runtime::{Input, Snapshot, Value};
///
/// // What generated code looks like for `input Jump { high: bool }`.
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Jump {
///     high: bool,
/// }
///
/// impl Snapshot for Jump {
///     const CLASS: Class = Class::new("Jump", &[Field::categorical("high", 2)]);
///     fn quantise_with(&self, raw: &mut [i32], _: &mut dyn FnMut(usize, Value)) {
///         raw[0] = i32::from(self.high);
///     }
///     fn dequantise(raw: &[i32]) -> Self {
///         Jump { high: raw[0] != 0 }
///     }
/// }
///
/// impl Input for Jump {
///     const SCHEMA: &'static Schema = &Schema::new("Jump", &[<Self as Snapshot>::CLASS]);
/// }
///
/// assert_eq!(check_schema(Jump::SCHEMA).unwrap().name, "Jump");
/// ```
pub trait Input: Snapshot {
    /// The input schema: named after the input, with [`Snapshot::CLASS`] as its one class, as
    /// [`check_schema`](crate::engine::input::check_schema) wants it (generated code checks
    /// the class at compile time). Its hash is the one the handshake compares
    /// ([`engine::handshake`](crate::engine::handshake)); set a server and a client up for
    /// inputs with it (`owned::Server::with_inputs`, `owned::Client::connect_with_inputs`).
    const SCHEMA: &'static Schema;
}
