//! Young entities: an entity that enters again while the packet that first brought it in is
//! in flight is coded against the values that packet carried rather than whole.
//!
//! Every packet is coded against a baseline about a round trip old, so an entity that enters
//! is in no baseline for a round trip and enters in every packet until then. Its first entry
//! carries its values whole; the packets after it (while the client's acks have not shown that
//! packet lost) code it *young*: each field's residual against its value in that entry, with
//! the residual model an entry codes against a reference with. A residual is read, and learnt
//! from, without the value it is added to, so a client that lost the entry decodes the rest of
//! the packet as well; it only leaves the young entity out of that frame.
//!
//! Both ends then agree on which frames hold it: the client decodes frames in order, so it held
//! the entry when it decoded a young packet exactly if it ever acknowledges the entry's frame.
//! The server resolves the young handles of a frame when an ack first names the frame
//! (`Peer::resolve_young`): those whose entry that ack (or an earlier one) names stay, the others
//! leave the frame's record. A frame where that cannot be told is not taken as held at all: an
//! entry older than the ack's window and not known held, or one the server forgot, the handle
//! having been given other entities twice since while the entry's fate was unknown
//! (`Peer::give_since`).

/// The most frames a young entity's entry may be older than the packet that codes it
/// against it: the frames an ack names ([`WINDOW`](super::frame::WINDOW) + 1) and the client's
/// frame slots both reach that far.
pub(crate) const YOUNG_REACH: u32 = 32;
