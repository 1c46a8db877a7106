//! The client side of netschema compiled to WebAssembly (`wasm32-unknown-unknown`, the
//! browser's target) decodes a recorded packet stream to the state the host decodes.
//!
//! [`record`] plays a short game through the owned server (ships that move, leave and come
//! back, one packet in five lost) and keeps the packets a client received, each behind its
//! length as two little-endian bytes; `stream.bin` beside this crate is that recording.
//! [`replay`] decodes such a stream with the engine's [`Client`] and hashes every frame it
//! shows. The module built for WebAssembly exports `replay_recorded`, the hash of
//! `stream.bin`, which `run.mjs` checks against `digest` in a JavaScript engine's WebAssembly
//! runtime; the tests here check the same on the host, and that the recording is still what
//! the server sends.
//!
//! ```sh
//! cargo build -p netschema-wasm-check --release --target wasm32-unknown-unknown
//! node tests/wasm/run.mjs target/wasm32-unknown-unknown/release/netschema_wasm_check.wasm
//! ```

use netschema::owned::{Client as OwnedClient, ClientBuffers, Server, ServerConfig};
use netschema::{Client, Error, Protocol, Snapshot};

/// A ship.
#[derive(Clone, Copy, Debug, PartialEq, Snapshot)]
pub struct Ship {
    #[netschema(vec2(fixed(-256.0, 256.0, res = 1 / 256)))]
    pos: [f32; 2],
    #[netschema(angle(bits = 12))]
    heading: f32,
    #[netschema(int(0, 100))]
    health: i32,
}

/// The recorded game's schema.
#[derive(Clone, Copy, Debug, PartialEq, Protocol)]
pub enum Fleet {
    /// A ship.
    Ship(Ship),
}

/// Ships in the recorded game.
const SHIPS: u64 = 24;
/// Frames in the recorded game.
const FRAMES: u32 = 90;
/// Handles of the recorded client.
const HANDLES: usize = 32;

/// The recording [`replay`] decodes in WebAssembly.
pub const RECORDED: &[u8] = include_bytes!("../stream.bin");

/// Ship `k` at frame `t`, from integers only, so that the recording is the same wherever it
/// is made.
fn ship(k: u64, t: u64) -> Ship {
    let step = |v: u64| (v % 40_000) as f32 / 256.0 - 78.0;
    Ship {
        pos: [step(k * 1_931 + t * (40 + k * 7)), step(k * 977 + t * t * (1 + k % 3))],
        heading: ((k * 300 + t * 12) % 4096) as f32 / 4096.0 * 6.0,
        health: (100 - (t * (k % 4)) % 100) as i32,
    }
}

/// Plays the recorded game and returns the packets its client received, each behind its
/// length (two bytes, little-endian).
pub fn record() -> Result<Vec<u8>, Error> {
    let mut server = Server::<Fleet>::new(ServerConfig::new(64, HANDLES))?;
    let mut msg = [0; 64];
    let n = OwnedClient::<Fleet>::hello(&mut msg)?;
    let player = server.connect(&msg[..n])?;
    let n = server.welcome(&mut msg)?;
    let mut client = OwnedClient::<Fleet>::connect(&msg[..n], HANDLES)?;
    let (mut stream, mut packet, mut acks) = (Vec::new(), [0u8; 1200], Vec::new());
    for t in 0..FRAMES {
        server.begin_frame();
        for k in 0..SHIPS {
            // Every third ship is away for 10 frames in 30.
            if k % 3 == 0 && (u64::from(t) + k) % 30 < 10 {
                server.remove(k);
            } else {
                server.set(k, &ship(k, u64::from(t)))?;
                server.set_visible(player, k, true)?;
            }
        }
        let len = server.encode(player, &mut packet)?;
        // One packet in five is lost; acks arrive two frames late.
        if t % 5 != 2 {
            client.decode(&packet[..len])?;
            stream.extend_from_slice(&(len as u16).to_le_bytes());
            stream.extend_from_slice(&packet[..len]);
            acks.extend(client.ack().map(|ack| (t + 2, ack)));
        }
        while acks.first().is_some_and(|&(due, _)| due <= t) {
            let (_, ack) = acks.remove(0);
            server.receive_ack(player, &ack)?;
        }
    }
    Ok(stream)
}

/// Decodes `stream` (as [`record`] writes it) with the engine's client and returns a 64-bit
/// FNV-1a hash of every frame it decoded: the frame number, then each handle, class and raw
/// value the client holds there.
pub fn replay(stream: &[u8]) -> Result<u64, Error> {
    let schema = Fleet::SCHEMA;
    let mut buffers = ClientBuffers::new(schema, HANDLES);
    let mut client: Client<'_> = buffers.client(schema, HANDLES)?;
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut add = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    let mut rest = stream;
    while let [lo, hi, tail @ ..] = rest {
        let len = usize::from(u16::from_le_bytes([*lo, *hi]));
        let (packet, next) = tail.split_at_checked(len).ok_or(Error::Corrupt)?;
        rest = next;
        add(&client.decode(packet)?.to_le_bytes());
        for (handle, class, row) in client.frame_view() {
            add(&handle.to_le_bytes());
            add(&(class as u32).to_le_bytes());
            row.iter().for_each(|v| add(&v.to_le_bytes()));
        }
    }
    Ok(hash)
}

/// The hash [`replay`] gives of the recording, or 0 if it does not decode.
#[allow(unsafe_code)] // the module's export: nothing else is named `replay_recorded`
#[unsafe(no_mangle)]
pub extern "C" fn replay_recorded() -> u64 {
    replay(RECORDED).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Set to re-record `stream.bin` and `digest` after a change of the wire.
    const BLESS: &str = "NETSCHEMA_BLESS";

    fn path(name: &str) -> String {
        format!("{}/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn the_recording_is_what_the_server_sends_and_decodes_to_its_digest() {
        let stream = record().unwrap();
        let digest = format!("{:016x}\n", replay(&stream).unwrap());
        if std::env::var_os(BLESS).is_some() {
            std::fs::write(path("stream.bin"), &stream).unwrap();
            std::fs::write(path("digest"), &digest).unwrap();
            return;
        }
        assert!(stream == RECORDED, "the wire changed: re-record with {BLESS}=1");
        assert_eq!(digest, std::fs::read_to_string(path("digest")).unwrap());
        assert_eq!(format!("{:016x}\n", replay_recorded()), digest);
    }
}
