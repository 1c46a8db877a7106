//! The netschema runtime: a `no_std`, allocation-free codec and replication engine.
//!
//! Layers, bottom up:
//! - [`bits`]: bit-level writer and reader over caller-provided slices;
//! - [`coder`]: a 32-bit binary range coder with direct bits and a minimal flush;
//! - [`prob`]: adaptive binary probabilities and their ideal costs;
//! - [`residual`]: the integer residual model (zero flag, sign, magnitude class, offset);
//! - [`quant`]: the quantisers that turn natural values into integers and back.
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]

#[cfg(feature = "std")]
extern crate std;

pub mod bits;
pub mod coder;
mod error;
pub mod prob;
pub mod quant;
pub mod residual;

pub use error::{Error, Result};
