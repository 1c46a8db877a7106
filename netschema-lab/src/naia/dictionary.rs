//! naia's optional packet compression: zstd at level 3 with a dictionary trained on recorded
//! packets (`CompressionMode::Dictionary(3, dictionary)`), each packet compressed on its own
//! behind a byte that says whether it was (a packet that would grow is sent as it is).
//!
//! naia's trainer (`CompressionMode::Training`) gathers packets and asks zstd for a dictionary
//! a hundredth of their total size (`ZDICT_trainFromBuffer`); [`train`] does the same.

use super::super::Error;

/// zstd's level: naia's suggested starting point.
const LEVEL: i32 = 3;

/// Packets larger than this are refused when unpacked (more than any snapshot here).
const MAX_PACKET: usize = 1 << 24;

/// A dictionary trained on `packets`, or `None` if zstd cannot train one on them (too few or
/// too small).
pub(super) fn train(packets: &[Vec<u8>]) -> Option<Vec<u8>> {
    let data: Vec<u8> = packets.concat();
    let sizes: Vec<usize> = packets.iter().map(Vec::len).collect();
    zstd::dict::from_continuous(&data, &sizes, data.len() / 100).ok()
}

/// The compressing half.
pub(super) struct Packer(zstd::bulk::Compressor<'static>);

impl Packer {
    /// Compresses with `dictionary` (zstd's plain compression without one).
    pub(super) fn new(dictionary: &[u8]) -> Result<Self, Error> {
        let compressor = zstd::bulk::Compressor::with_dictionary(LEVEL, dictionary);
        Ok(Packer(compressor.map_err(|e| Error::Encode(e.to_string()))?))
    }

    /// Appends `payload` to `out`, compressed if that makes it smaller, behind the flag byte.
    pub(super) fn pack(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let packed = self.0.compress(payload).map_err(|e| Error::Encode(e.to_string()))?;
        if packed.len() < payload.len() {
            out.push(1);
            out.extend_from_slice(&packed);
        } else {
            out.push(0);
            out.extend_from_slice(payload);
        }
        Ok(())
    }
}

/// The decompressing half.
pub(super) struct Unpacker(zstd::bulk::Decompressor<'static>);

impl Unpacker {
    /// Decompresses with `dictionary`.
    pub(super) fn new(dictionary: &[u8]) -> Result<Self, Error> {
        let decompressor = zstd::bulk::Decompressor::with_dictionary(dictionary);
        Ok(Unpacker(decompressor.map_err(|e| Error::Decode(e.to_string()))?))
    }

    /// The payload of a packet written by [`Packer::pack`].
    pub(super) fn unpack(&mut self, packet: &[u8]) -> Result<Vec<u8>, Error> {
        match packet.split_first() {
            Some((0, payload)) => Ok(payload.to_vec()),
            Some((1, packed)) => {
                self.0.decompress(packed, MAX_PACKET).map_err(|e| Error::Decode(e.to_string()))
            }
            _ => Err(Error::Decode("bad compression flag".into())),
        }
    }
}
