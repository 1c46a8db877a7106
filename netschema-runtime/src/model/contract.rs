//! Predictive contracts: a game's own predictor, offered to the learned choice beside the
//! polynomial ones (Orsten 2011, §5.8).
//!
//! A [`Contract`] fast-forwards an entity from the rows the client is known to hold (the
//! history frames a packet uses) to the packet's frame, with whatever the game knows that
//! never changes during a session (gravity, level geometry). Fields that list the
//! [`Predictor::Contract`](crate::model::predict::Predictor::Contract) candidate may then be
//! coded against its prediction; the learned choice uses it only where it is cheapest, so a
//! contract that predicts badly costs little. Both ends call the contract with the same
//! inputs and must get the same outputs: the contract is part of the protocol, named in the
//! schema hash by [`Schema::with_contract`](crate::schema::Schema::with_contract).
//!
//! # Determinism rules
//!
//! A contract must compute the same output from the same input on every platform and build:
//! - integer arithmetic only (no `f32`/`f64`, no platform-dependent integer widths such as
//!   `usize` arithmetic that can overflow differently), with wrapping or saturating operations
//!   where a value could overflow;
//! - no global or mutable state, no clocks, no randomness, no I/O: its output depends only on
//!   the [`Rows`] it is given, the class and the contract's own immutable data;
//! - it must not panic. In the `std` build a panic is caught and makes the contract's
//!   prediction unavailable for that entity in that packet — identically on both ends if the
//!   panic is deterministic — but a build with `panic = "abort"` cannot catch it.
//!
//! What it writes is clamped into each field's range (wrapped for wrapping fields) before it
//! is used, so any `i32` is a valid, if useless, prediction.
//!
//! # Example
//!
//! ```
//! use netschema_runtime::model::contract::{Contract, Rows};
//!
//! /// Falls 3 raw steps per frame, per frame (field 0 is the height).
//! struct Falling;
//!
//! impl Contract for Falling {
//!     fn predict(&self, _class: usize, rows: &Rows<'_>, out: &mut [i32]) {
//!         if rows.len() < 2 {
//!             return; // `out` already holds the newest row: hold.
//!         }
//!         let (d0, d1) = (i64::from(rows.offset(0)), i64::from(rows.offset(1)));
//!         let (y0, y1) = (i64::from(rows.get(0, 0)), i64::from(rows.get(1, 0)));
//!         // Velocity at the newest row from the two newest, under acceleration -3.
//!         let gap = d1 - d0;
//!         let v = (y0 - y1) / gap - 3 * gap / 2;
//!         let y = y0 + v * d0 - 3 * d0 * (d0 + 1) / 2;
//!         out[0] = y.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
//!     }
//! }
//!
//! static FALLING: Falling = Falling;
//! # use netschema_runtime::model::predict::Predictor;
//! # use netschema_runtime::schema::{Class, Field, Schema};
//! const FIELDS: [Field; 1] =
//!     [Field::numeric("y", -100_000, 100_000, false, &[Predictor::Hold, Predictor::Contract])];
//! static CLASSES: [Class; 1] = [Class::new("stone", &FIELDS)];
//! // Both ends build the same schema; a build without the contract has another hash.
//! static SCHEMA: Schema = Schema::new("game", &CLASSES).with_contract("falling-v1", &FALLING);
//! assert_ne!(SCHEMA.hash, Schema::new("game", &CLASSES).hash);
//! ```
//!
//! The schema goes to [`Peer::new`](crate::Peer::new) and [`Client::new`](crate::Client::new),
//! or to the owned layer's server and client, as any other.

use crate::model::predict::MAX_SAMPLES;
use crate::schema::Field;

/// A game-supplied predictor of whole rows (see the [module documentation](self) for the
/// rules it must follow).
pub trait Contract: Sync {
    /// Predicts the raw values of an entity of class `class` (an index into the schema's
    /// classes) at the packet's frame from its values at the history frames, `rows`. `out`
    /// holds one value per field of the class and starts as the newest row (a contract that
    /// writes nothing predicts "hold"); fields without the contract candidate ignore what is
    /// written. Called for every entity of every class coded against a history, on both ends.
    fn predict(&self, class: usize, rows: &Rows<'_>, out: &mut [i32]);
}

/// The history rows a [`Contract`] predicts from: an entity's raw values at up to
/// [`MAX_SAMPLES`] earlier frames, newest first, each with its distance from the predicted
/// frame. Values held over several frames appear once, at the frame they came from.
#[derive(Clone, Copy, Debug)]
pub struct Rows<'a> {
    /// Per field, its value at each row (newest first).
    samples: &'a [[i32; MAX_SAMPLES]],
    offsets: [u32; MAX_SAMPLES],
    len: usize,
}

impl<'a> Rows<'a> {
    /// Rows from `samples` (per field, its values newest first) at `offsets` (frames before
    /// the predicted frame, increasing; at most [`MAX_SAMPLES`] used).
    pub fn new(samples: &'a [[i32; MAX_SAMPLES]], offsets: &[u32]) -> Rows<'a> {
        let mut o = [0; MAX_SAMPLES];
        let len = offsets.len().min(MAX_SAMPLES);
        o[..len].copy_from_slice(&offsets[..len]);
        Rows { samples, offsets: o, len }
    }

    /// Number of rows (at least 2 when a contract is called).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of fields in each row.
    pub fn fields(&self) -> usize {
        self.samples.len()
    }

    /// Frames from row `j` to the predicted frame (at least 1; 0 past the last row).
    pub fn offset(&self, j: usize) -> u32 {
        self.offsets.get(j).copied().unwrap_or(0)
    }

    /// The value of `field` in row `j` (0 for a row or field out of range).
    pub fn get(&self, j: usize, field: usize) -> i32 {
        match self.samples.get(field) {
            Some(s) if j < self.len => s[j],
            _ => 0,
        }
    }
}

/// A contract attached to a schema ([`Schema::with_contract`](crate::schema::Schema::with_contract))
/// under the name that joins the schema hash.
#[derive(Clone, Copy)]
pub struct Attached {
    /// The name hashed into the schema (change it whenever the contract's predictions change).
    pub name: &'static str,
    /// The contract.
    pub contract: &'static dyn Contract,
}

impl core::fmt::Debug for Attached {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Attached").field(&self.name).finish()
    }
}

impl PartialEq for Attached {
    fn eq(&self, other: &Attached) -> bool {
        self.name == other.name
            && core::ptr::addr_eq(self.contract as *const dyn Contract, other.contract)
    }
}

impl Eq for Attached {}

impl Attached {
    /// Runs the contract for an entity of `class` with `fields` (`out` as long) and clamps
    /// what it wrote into each field's range. Returns `false`, with `out` unspecified, if the
    /// contract panicked (`std` builds only; see the module documentation).
    pub(crate) fn run(
        &self,
        class: usize,
        fields: &[Field],
        rows: &Rows<'_>,
        out: &mut [i32],
    ) -> bool {
        for (o, f) in out.iter_mut().zip(0..) {
            *o = rows.get(0, f);
        }
        if !self.call(class, rows, out) {
            return false;
        }
        for (o, field) in out.iter_mut().zip(fields) {
            *o = field.clamp(i64::from(*o));
        }
        true
    }

    #[cfg(feature = "std")]
    fn call(&self, class: usize, rows: &Rows<'_>, out: &mut [i32]) -> bool {
        let call = core::panic::AssertUnwindSafe(|| self.contract.predict(class, rows, out));
        std::panic::catch_unwind(call).is_ok()
    }

    #[cfg(not(feature = "std"))]
    fn call(&self, class: usize, rows: &Rows<'_>, out: &mut [i32]) -> bool {
        self.contract.predict(class, rows, out);
        true
    }
}
