//! Offline training of static tables: a technique's encoder replayed over another run's
//! snapshots ([`Setup::training`](super::Setup::training)), as a game studio trains a table on
//! recorded traffic before shipping it.
//!
//! The training link is fixed and lossless: every packet is acknowledged
//! [`ROUND_TRIP`] frames after it is sent, whatever link the measured run uses (a shipped table
//! cannot know each player's link either).

use super::{Ack, Encoder, Error, Snapshot};

/// Frames between sending a training packet and receiving its acknowledgement.
pub(crate) const ROUND_TRIP: u32 = 6;

/// Encodes each training frame in order with `encoder`, hands each packet to `packet`, and
/// gives the encoder the acknowledgement of frame `f - ROUND_TRIP` before it encodes frame `f`,
/// as a client that received every packet would send it.
pub(crate) fn replay(
    snapshots: &[Snapshot],
    encoder: &mut dyn Encoder,
    mut packet: impl FnMut(&[u8]),
) -> Result<(), Error> {
    let mut out = Vec::new();
    for (f, s) in snapshots.iter().enumerate() {
        let frame = f as u32;
        if let Some(held) = frame.checked_sub(ROUND_TRIP) {
            encoder.receive_ack(&Ack::from_frames(held, |f| f < held));
        }
        encoder.encode(frame, s, &mut out)?;
        packet(&out);
    }
    Ok(())
}
