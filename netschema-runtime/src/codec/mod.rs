//! The entropy-coding layer: turns integers into as few bits as their statistics allow.
//!
//! Bottom up:
//! - [`bits`]: a plain bit writer and reader over caller-provided slices, for fixed-width
//!   formats; the range coder does not need it;
//! - [`prob`]: adaptive binary probabilities ([`BitModel`](prob::BitModel)) and the ideal
//!   cost of a bit under them;
//! - [`coder`]: the 32-bit binary range coder that codes one decision at a time under such a
//!   probability, plus direct bits; its [`BinaryCoder`](coder::BinaryCoder) trait lets one
//!   description of a model encode, decode, measure costs or only learn;
//! - [`residual`]: the integer residual model, written once against
//!   [`BinaryCoder`](coder::BinaryCoder): how a prediction error becomes binary decisions.
//!
//! Nothing here knows about fields, frames or packets; [`crate::model`] decides what is
//! predicted and with which statistics, and [`crate::engine`] lays out packets.

pub mod bits;
pub mod coder;
pub mod prob;
pub mod residual;
