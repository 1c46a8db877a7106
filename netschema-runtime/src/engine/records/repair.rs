//! When a record is sent again: what acks and their silence tell the outbox.
//!
//! A record is carried by the next packet after it is queued. An accepted ack that names the
//! packet that carried it last delivers it. An accepted ack whose newest frame is later than
//! that packet and that does not name it shows the packet lost: the client accepts only frames
//! newer than the newest it holds, so that packet will never be accepted, and the record is due
//! again, for the next packet. If no ack settles it within [`timeout`] frames (acks lost or
//! stopped), it is due again as well. A record the client received twice is applied once.

use super::Outbox;
use crate::engine::frame::{NO_FRAME, WINDOW, age};

/// Frames of slack past two round trips before a record whose packet no ack settled is sent
/// again.
const RESEND_SLACK: u32 = 8;

/// Frames after which a record whose packet no ack settled is sent again: twice the round
/// trip the newest ack showed and [`RESEND_SLACK`], or [`WINDOW`] before any ack.
pub(crate) fn timeout(round_trip: Option<u32>) -> u32 {
    round_trip.map_or(WINDOW, |r| r.saturating_mul(2).saturating_add(RESEND_SLACK))
}

impl Outbox {
    /// Takes an accepted ack whose newest frame is `latest` and which shows the client holds
    /// frame `f` when `holds(f)`: records carried by frames it holds are delivered, those
    /// carried by older frames it does not hold are due again.
    pub(crate) fn acked(&mut self, latest: u32, holds: impl Fn(u32) -> bool) {
        for i in 0..self.len() {
            let e = self.entry_mut(i);
            if e.delivered || e.carried == NO_FRAME {
                continue;
            }
            if holds(e.carried) {
                e.delivered = true;
                self.stats.delivered += 1;
            } else if age(latest, e.carried) as i32 > 0 {
                e.carried = NO_FRAME;
            }
        }
        self.pop_delivered();
    }

    /// Before the packet for `frame`: records whose packet was sent more than `timeout`
    /// frames ago and that no ack settled are due again.
    pub(crate) fn expire(&mut self, frame: u32, timeout: u32) {
        for i in 0..self.len() {
            let e = self.entry_mut(i);
            if !e.delivered && e.carried != NO_FRAME && age(frame, e.carried) > timeout {
                e.carried = NO_FRAME;
            }
        }
    }

    /// The stream of frames restarted: the client holds none sent so far, so no ack will name
    /// them, and every record not delivered is due again (the client applies none twice).
    pub(crate) fn restart(&mut self) {
        for i in 0..self.len() {
            let e = self.entry_mut(i);
            if !e.delivered {
                e.carried = NO_FRAME;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn carried(out: &Outbox) -> [u32; 3] {
        core::array::from_fn(|i| out.entry(i).carried)
    }

    #[test]
    fn a_record_is_due_again_only_once_its_packet_is_known_lost() {
        let mut out = Outbox::new();
        for _ in 0..3 {
            out.push(&[1, 2], false).unwrap();
        }
        out.carried(0b001, 10);
        out.carried(0b010, 11);
        out.carried(0b100, 12);
        // An ack of frame 10 alone says nothing of 11 and 12: they may be in flight.
        out.acked(10, |f| f == 10);
        assert_eq!((out.len(), carried(&out)[..2].to_vec()), (2, vec![11, 12]));
        // An ack of 12 without 11: 11 is lost, 12 delivered; nothing leaves until 11 does.
        out.acked(12, |f| f == 12 || f == 10);
        assert_eq!(out.len(), 2);
        assert_eq!(out.due().collect::<std::vec::Vec<_>>(), [0]);
        out.carried(0b01, 15);
        // Silence: due again only past the timeout.
        out.expire(15 + timeout(Some(12)), timeout(Some(12)));
        assert_eq!(out.due().count(), 0);
        out.expire(16 + timeout(Some(12)), timeout(Some(12)));
        assert_eq!(out.due().collect::<std::vec::Vec<_>>(), [0]);
        out.carried(0b01, 50);
        out.acked(50, |f| f == 50);
        assert_eq!((out.len(), out.bytes()), (0, 0));
        let stats = out.stats();
        assert_eq!((stats.queued, stats.sent, stats.resent, stats.delivered), (3, 5, 2, 3));
    }
}
