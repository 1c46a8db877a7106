//! How learned statistics are kept in step between the ends: a [`ModelPolicy`], chosen per
//! schema ([`Schema::with_policy`](crate::schema::Schema::with_policy)) and part of its hash.

use core::fmt;
use core::str::FromStr;

use crate::engine::frame::WINDOW;

/// Most models a client keeps under [`ModelPolicy::Batched`].
pub const MAX_KEPT: u8 = 16;

/// Where each packet's models start from and where what it learned goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ModelPolicy {
    /// A model set is part of every frame's state: the packet for frame `n` starts from the
    /// models stored with its baseline and stores its result with `n` (both ends keep one set
    /// per frame in flight). Learning follows every packet the client acknowledges.
    #[default]
    PerFrame,
    /// Receiver-authoritative batches (Blow 2003): frames are grouped into batches of
    /// `batch` consecutive frames. Each packet starts from a model both ends built and names
    /// it; the models it ends with are averaged into its batch's accumulator. A client that
    /// decodes every packet of a batch builds the batch's model from the accumulator and
    /// keeps its `kept` newest models; its acks, naming those frames, tell the server to build
    /// the same model and code with it from then on.
    Batched {
        /// Frames per batch (at least 1).
        batch: u8,
        /// Models the client keeps (1 to [`MAX_KEPT`]).
        kept: u8,
    },
}

impl ModelPolicy {
    /// Seed 004's choice: batches of 10 packets, 7 models kept.
    pub const BATCHED: ModelPolicy = ModelPolicy::Batched { batch: 10, kept: 7 };

    /// Whether the parameters are usable (see the variants).
    pub const fn is_valid(&self) -> bool {
        match *self {
            ModelPolicy::PerFrame => true,
            ModelPolicy::Batched { batch, kept } => batch >= 1 && kept >= 1 && kept <= MAX_KEPT,
        }
    }

    /// A value identifying the policy in the schema hash (0 for [`ModelPolicy::PerFrame`],
    /// which leaves the hash as it was).
    pub const fn code(&self) -> u64 {
        match *self {
            ModelPolicy::PerFrame => 0,
            ModelPolicy::Batched { batch, kept } => 1 | (batch as u64) << 8 | (kept as u64) << 16,
        }
    }

    /// Accumulators a server keeps under [`ModelPolicy::Batched`]: one for every batch an
    /// ack may still prove whole (an ack names [`WINDOW`] + 1 frames).
    pub const fn accumulators(batch: u8) -> usize {
        let batch = if batch == 0 { 1 } else { batch as usize };
        WINDOW as usize / batch + 1
    }

    /// The first frame of the batch of `frame` (frame numbers are grouped from 0; the
    /// batch cut by the 32-bit wrap is short, and never completes).
    pub const fn batch_start(batch: u8, frame: u32) -> u32 {
        let batch = if batch == 0 { 1 } else { batch as u32 };
        frame - frame % batch
    }
}

/// Reads `per-frame`, `batched` ([`ModelPolicy::BATCHED`]) or `batched:B:K` (batches of `B`
/// frames, `K` models kept), as [`ModelPolicy`]'s `Display` writes it; `Err(())` for anything
/// else or an invalid policy.
impl FromStr for ModelPolicy {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        let policy = match s {
            "per-frame" => ModelPolicy::PerFrame,
            "batched" => ModelPolicy::BATCHED,
            _ => {
                let (b, k) = s.strip_prefix("batched:").and_then(|p| p.split_once(':')).ok_or(())?;
                ModelPolicy::Batched {
                    batch: b.parse().map_err(|_| ())?,
                    kept: k.parse().map_err(|_| ())?,
                }
            }
        };
        if policy.is_valid() { Ok(policy) } else { Err(()) }
    }
}

/// `per-frame` or `batched:B:K`.
impl fmt::Display for ModelPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelPolicy::PerFrame => f.write_str("per-frame"),
            ModelPolicy::Batched { batch, kept } => write!(f, "batched:{batch}:{kept}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_and_accumulators() {
        assert_eq!(ModelPolicy::batch_start(10, 0), 0);
        assert_eq!(ModelPolicy::batch_start(10, 29), 20);
        assert_eq!(ModelPolicy::accumulators(10), 4);
        assert_eq!(ModelPolicy::accumulators(1), 33);
        assert!(!ModelPolicy::Batched { batch: 0, kept: 1 }.is_valid());
        assert!(!ModelPolicy::Batched { batch: 4, kept: MAX_KEPT + 1 }.is_valid());
        assert!(ModelPolicy::BATCHED.is_valid());
        assert_eq!(ModelPolicy::PerFrame.code(), 0);
    }

    #[test]
    fn reads_what_it_writes() {
        for p in [ModelPolicy::PerFrame, ModelPolicy::Batched { batch: 3, kept: 16 }] {
            assert_eq!(std::format!("{p}").parse(), Ok(p));
        }
        assert_eq!("batched".parse(), Ok(ModelPolicy::BATCHED));
        for bad in ["", "batched:0:1", "batched:4", "batched:4:17", "frames", "batched:a:1"] {
            assert_eq!(bad.parse::<ModelPolicy>(), Err(()), "{bad}");
        }
    }
}
