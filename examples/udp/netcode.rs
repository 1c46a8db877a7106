//! The connection layer, netcode 1.02 (renetcode): connect tokens, encryption, timeouts.
//!
//! The server only accepts clients that present a connect token sealed with its private key.
//! In a real game a backend that has authenticated the player mints the token
//! ([`ConnectToken::generate`]) and hands it to the client over HTTPS; the key never leaves
//! the backend and the game servers. In this example the client mints its own token from the
//! key it is given (by default [`DEMO_KEY`]): the same bytes on the wire, but whoever has the
//! key can connect, so give a real server a secret key (`--key`) and keep it off clients.

use std::net::SocketAddr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use renetcode::{
    ClientAuthentication, ConnectToken, NETCODE_KEY_BYTES, NetcodeClient, NetcodeServer,
    ServerAuthentication, ServerConfig,
};

/// Which game this is: netcode refuses tokens of any other.
pub(crate) const PROTOCOL_ID: u64 = 0x6e65_7473_6368_656d;
/// The example's private key when none is given: public, so for trying things out only.
pub(crate) const DEMO_KEY: [u8; NETCODE_KEY_BYTES] = *b"netschema udp example: demo key!";
/// Seconds a connect token stays valid for connecting.
const TOKEN_EXPIRY: u64 = 300;

/// The time netcode's tokens are stamped with: since the Unix epoch.
pub(crate) fn unix_time() -> Duration {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default()
}

/// A netcode server at `addr`, for at most `clients` clients with tokens sealed with `key`,
/// its clock at `time` (see [`unix_time`]).
pub(crate) fn server(
    addr: SocketAddr,
    key: [u8; NETCODE_KEY_BYTES],
    clients: usize,
    time: Duration,
) -> NetcodeServer {
    NetcodeServer::new(ServerConfig {
        current_time: time,
        max_clients: clients,
        protocol_id: PROTOCOL_ID,
        public_addresses: vec![addr],
        authentication: ServerAuthentication::Secure { private_key: key },
    })
}

/// A netcode client `id` of the server at `addr`, with a token sealed with `key` that times
/// the connection out after `timeout` seconds of silence, its clock at `time`.
pub(crate) fn client(
    addr: SocketAddr,
    key: [u8; NETCODE_KEY_BYTES],
    id: u64,
    timeout: i32,
    time: Duration,
) -> Result<NetcodeClient, renetcode::NetcodeError> {
    let connect_token = ConnectToken::generate(
        time,
        PROTOCOL_ID,
        TOKEN_EXPIRY,
        id,
        timeout,
        vec![addr],
        None,
        &key,
    )?;
    NetcodeClient::new(time, ClientAuthentication::Secure { connect_token })
}
