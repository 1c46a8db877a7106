//! The game's messages inside netcode payloads: a tag byte, then the message.
//!
//! | tag | message | direction | body |
//! | --- | --- | --- | --- |
//! | 0 | hello | client → server | netschema's hello (schema hash, wire version) |
//! | 1 | welcome | server → client | the world's seed (u64, little-endian), then netschema's welcome |
//! | 2 | refused | server → client | why, in UTF-8 |
//! | 3 | down | server → client | one netschema down frame: timing report, input ack and a packet of at most [`BUDGET`] bytes |
//! | 4 | up | client → server | one netschema up frame: ack, render times and inputs |

use netschema::engine::peer::DEFAULT_BUDGET;
use netschema::owned::{DOWN_HEADER, UP_HEADER};

/// The byte budget of a netschema packet: netcode carries up to 1300 payload bytes, and 1200
/// is what a datagram usually carries without fragmenting.
pub(crate) const BUDGET: usize = DEFAULT_BUDGET;
/// The longest down frame: a packet and what the frame adds before it.
pub(crate) const MAX_DOWN: usize = BUDGET + DOWN_HEADER;
/// The longest up frame: the ack and render times, and room for the inputs of a few dozen
/// ticks the server has not acknowledged.
pub(crate) const MAX_UP: usize = UP_HEADER + 512;
/// The longest message: a down frame and its tag.
pub(crate) const MAX_MESSAGE: usize = MAX_DOWN + 1;

const HELLO: u8 = 0;
const WELCOME: u8 = 1;
const REFUSED: u8 = 2;
const DOWN: u8 = 3;
const UP: u8 = 4;

/// One message.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Message<'a> {
    /// A client asks to join, with netschema's hello.
    Hello(&'a [u8]),
    /// The server accepts, with the world's seed and netschema's welcome.
    Welcome {
        /// The seed the world is computed from.
        seed: u64,
        /// netschema's welcome.
        welcome: &'a [u8],
    },
    /// The server refuses a hello, and says why.
    Refused(&'a str),
    /// A netschema down frame ([`netschema::owned::Server::write`]).
    Down(&'a [u8]),
    /// A netschema up frame ([`netschema::owned::Client::write`]).
    Up(&'a [u8]),
}

impl<'a> Message<'a> {
    /// Reads a message; `None` for anything else.
    pub(crate) fn read(bytes: &'a [u8]) -> Option<Self> {
        let (&tag, body) = bytes.split_first()?;
        Some(match tag {
            HELLO => Message::Hello(body),
            WELCOME => {
                let (seed, welcome) = body.split_first_chunk::<8>()?;
                Message::Welcome { seed: u64::from_le_bytes(*seed), welcome }
            }
            REFUSED => Message::Refused(core::str::from_utf8(body).ok()?),
            DOWN => Message::Down(body),
            UP => Message::Up(body),
            _ => return None,
        })
    }

    /// Writes the message into `out` and returns its bytes; a body too long is cut (none is
    /// in this game).
    pub(crate) fn write<'o>(&self, out: &'o mut [u8; MAX_MESSAGE]) -> &'o [u8] {
        let (tag, rest) = out.split_first_mut().expect("a message has room for its tag");
        let len = match *self {
            Message::Hello(body) => put(tag, HELLO, rest, &[body]),
            Message::Welcome { seed, welcome } => {
                put(tag, WELCOME, rest, &[&seed.to_le_bytes(), welcome])
            }
            Message::Refused(why) => put(tag, REFUSED, rest, &[why.as_bytes()]),
            Message::Down(body) => put(tag, DOWN, rest, &[body]),
            Message::Up(body) => put(tag, UP, rest, &[body]),
        };
        &out[..1 + len]
    }
}

/// Writes `tag` and the `parts` one after another, as far as they fit; returns the body's length.
fn put(tag: &mut u8, value: u8, out: &mut [u8], parts: &[&[u8]]) -> usize {
    *tag = value;
    let mut len = 0;
    for part in parts {
        let n = part.len().min(out.len() - len);
        out[len..len + n].copy_from_slice(&part[..n]);
        len += n;
    }
    len
}
