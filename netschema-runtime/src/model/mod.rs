//! Prediction and learned statistics: what each value is coded against, and with which odds.
//!
//! Bottom up:
//! - [`predict`]: integer polynomial predictors ([`Predictor`](predict::Predictor)) that
//!   extrapolate a field from its values at earlier frames, bit-identically on both ends;
//! - [`Model`]: the learned statistics of one scalar field — a
//!   [`ResidualModel`](crate::codec::residual::ResidualModel) and a running cost per candidate
//!   predictor, from which both ends derive the same choice of predictor, and the transition
//!   flags of categorical fields; [`ModelLayout`] places the models of every field and class,
//!   and one for the packet's structure, in a frame's model set;
//! - `motion`: what an entity's own history says about a field's next residual: its zero
//!   flag's activity context and the context and expected direction of its sign;
//! - [`contract`]: predictive contracts, a game's own deterministic predictor offered as one
//!   more candidate;
//! - [`policy`]: how model sets are kept in step between the ends ([`ModelPolicy`]): one per
//!   frame, or built from batches of packets the client received whole;
//! - `stored`: per frame, each frame's set kept without the parts its fields never change.
//!
//! Under the per-frame policy a model set is part of a frame's state: it is stored with every
//! frame on both ends, and the packet for frame `n` is coded starting from the models stored
//! with its baseline; under the batched policy it is named by the packet.
//! Coding goes through [`crate::codec`]; the engine ([`crate::engine`]) stores the models and
//! walks the fields.

pub mod contract;
mod learned;
mod motion;
pub mod policy;
pub mod predict;
pub(crate) mod stored;

pub use learned::{
    CONTEXTS, COST_DECAY, LEARN_PERIOD, Model, ModelLayout, TIE_MARGIN, fitted_candidates,
};
pub(crate) use learned::{COUNT_SLOTS, History, Prediction, neighbour};
pub use policy::ModelPolicy;
