//! The game client: a netcode connection on a UDP socket, netschema's handshake, then
//! packets decoded, checked against the recomputed world and acknowledged, and every tick an
//! up frame with the ack and the bot's inputs. It reconnects when the connection times out.

use std::net::SocketAddr;
use std::time::Duration;

use netschema::Error;
use netschema::owned::{Client, FromServer};
use renetcode::{NETCODE_KEY_BYTES, NETCODE_MAX_PACKET_BYTES, NetcodeClient};

use crate::game::{self, Fleet, FleetV2};
use crate::netcode;
use crate::player::{Played, Player};
use crate::shim::Shim;
use crate::socket::Socket;
use crate::wire::{MAX_MESSAGE, MAX_UP, Message};

/// Most ships a client holds: it refuses a server that may show it more.
const MAX_HANDLES: usize = 4096;
/// How often a client that has not been welcomed says hello again.
const HELLO_EVERY: Duration = Duration::from_millis(100);
/// The server's tick, microseconds.
const TICK_US: u32 = 1_000_000 / game::HZ;

/// What a client is started with.
#[derive(Debug)]
pub(crate) struct Config {
    /// The server's address.
    pub(crate) server: SocketAddr,
    /// The private key it mints its connect tokens with (see [`crate::netcode`]).
    pub(crate) key: [u8; NETCODE_KEY_BYTES],
    /// Its netcode id; each reconnection takes the next one.
    pub(crate) id: u64,
    /// Seconds of silence after which either end drops the connection.
    pub(crate) timeout: i32,
    /// Says hello with the game's next schema, [`FleetV2`], which the server refuses.
    pub(crate) next_version: bool,
    /// A loss shim in front of the socket, if any.
    pub(crate) shim: Option<Shim>,
}

/// Counts since the client started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Stats {
    /// Packets that arrived (netcode drops duplicates and damaged ones).
    pub(crate) packets: u64,
    /// Frames the server sent while this client played: from the first frame decoded to the
    /// newest, per connection.
    pub(crate) sent: u64,
    /// Packets decoded.
    pub(crate) decoded: u64,
    /// Packets refused as stale or coded against a frame this client lacks (normal on a lossy
    /// link).
    pub(crate) stale: u64,
    /// Packets refused for anything else.
    pub(crate) refused: u64,
    /// Decoded frames in which every ship shown equals the world at the frame its values came
    /// from.
    pub(crate) verified: u64,
    /// Decoded frames in which some ship does not.
    pub(crate) wrong: u64,
    /// Ships shown, summed over decoded frames.
    pub(crate) ships: u64,
    /// Frames of age of the values shown, summed over ships and decoded frames.
    pub(crate) age: u64,
    /// Connections after the first.
    pub(crate) reconnects: u64,
    /// UDP payload bytes received.
    pub(crate) bytes: u64,
    /// What its inputs did.
    pub(crate) played: Played,
    /// The round trip its tick synchronisation measures, a running mean, µs.
    pub(crate) rtt_us: u32,
    /// How far its input tick runs from where the synchronisation aims it, at the server's
    /// last report, sixteenths of a tick.
    pub(crate) tick_error: i32,
}

impl Stats {
    /// What changed since `earlier`.
    pub(crate) fn since(self, earlier: Stats) -> Stats {
        Stats {
            packets: self.packets - earlier.packets,
            sent: self.sent - earlier.sent,
            decoded: self.decoded - earlier.decoded,
            stale: self.stale - earlier.stale,
            refused: self.refused - earlier.refused,
            verified: self.verified - earlier.verified,
            wrong: self.wrong - earlier.wrong,
            ships: self.ships - earlier.ships,
            age: self.age - earlier.age,
            reconnects: self.reconnects - earlier.reconnects,
            bytes: self.bytes - earlier.bytes,
            played: self.played.since(earlier.played),
            ..self
        }
    }

    /// The share of the server's packets that never arrived.
    pub(crate) fn loss(&self) -> f64 {
        1.0 - self.packets.min(self.sent) as f64 / self.sent.max(1) as f64
    }
}

enum Phase {
    /// Connecting, or connected and saying hello.
    Joining { hello_at: Option<Duration> },
    /// Welcomed: decoding packets and sending inputs; `ack_due` once a packet came since the
    /// last up frame.
    Playing {
        client: Box<Client<Fleet>>,
        seed: u64,
        newest: Option<u32>,
        player: Box<Player>,
        ack_due: bool,
    },
    /// Refused, or failed: stays so.
    Stopped(String),
}

/// The client.
pub(crate) struct GameClient {
    config: Config,
    socket: Socket,
    netcode: NetcodeClient,
    attempt: u64,
    phase: Phase,
    clock: Duration,
    stats: Stats,
}

impl GameClient {
    /// A client of `config.server`, connecting from an ephemeral port, its clock at `now`.
    pub(crate) fn connect(
        mut config: Config,
        now: Duration,
    ) -> Result<Self, Box<dyn std::error::Error>> {
        let any = if config.server.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" };
        let socket = Socket::bind(any.parse()?, config.shim.take())?;
        let netcode = netcode_client(&config, 0)?;
        let phase = Phase::Joining { hello_at: None };
        Ok(GameClient {
            config,
            socket,
            netcode,
            attempt: 0,
            phase,
            clock: now,
            stats: Stats::default(),
        })
    }

    /// Counts so far.
    pub(crate) fn stats(&self) -> Stats {
        Stats { bytes: self.socket.received, ..self.stats }
    }

    /// Why the client stopped (refused by the server, or failed), if it did.
    pub(crate) fn stopped(&self) -> Option<&str> {
        match &self.phase {
            Phase::Stopped(why) => Some(why),
            _ => None,
        }
    }

    /// Its netcode id on the current connection.
    pub(crate) fn id(&self) -> u64 {
        self.netcode.client_id()
    }

    /// The ship the shot this client fired at `tick` hit in what it showed then; `None` if
    /// it fired none then, or not on this connection.
    #[allow(dead_code, reason = "tests/udp_loopback.rs checks the server's judgement with it")]
    pub(crate) fn shot(&self, tick: u32) -> Option<Option<u16>> {
        match &self.phase {
            Phase::Playing { player, .. } => player.shot(tick),
            _ => None,
        }
    }

    /// Everything due at `now`: netcode's own traffic, what arrived, a hello while waiting for
    /// the welcome, the bot's inputs and an up frame while playing. `on_frame` sees the client
    /// after each packet it decodes.
    pub(crate) fn tick(&mut self, now: Duration, mut on_frame: impl FnMut(&Client<Fleet>)) {
        let elapsed = now.saturating_sub(self.clock);
        if let Some((datagram, addr)) = self.netcode.update(elapsed) {
            self.socket.send(now, addr, datagram);
        }
        self.clock = now;
        if let Some(reason) = self.netcode.disconnect_reason()
            && !matches!(self.phase, Phase::Stopped(_))
        {
            self.reconnect(&reason.to_string());
        }
        let mut buf = [0; NETCODE_MAX_PACKET_BYTES];
        while let Some((n, _)) = self.socket.recv(&mut buf) {
            if let Some(payload) = self.netcode.process_packet(&mut buf[..n]) {
                self.on_message(now, payload, &mut on_frame);
            }
        }
        if let Phase::Joining { hello_at } = &mut self.phase
            && self.netcode.is_connected()
            && hello_at.is_none_or(|at| now >= at + HELLO_EVERY)
        {
            *hello_at = Some(now);
            let mut hello = [0; 64];
            let n = if self.config.next_version {
                Client::<FleetV2>::hello_with_inputs(game::INPUT, &mut hello)
            } else {
                Client::<Fleet>::hello_with_inputs(game::INPUT, &mut hello)
            };
            if let Ok(n) = n {
                self.send(now, Message::Hello(&hello[..n]));
            }
        }
        self.play(now, elapsed);
        self.socket.flush(now);
    }

    /// While playing: moves the view on by `elapsed`, pushes the bot's inputs due at `now`,
    /// and sends an up frame if it pushed any or a packet is to be acknowledged.
    fn play(&mut self, now: Duration, elapsed: Duration) {
        let Phase::Playing { client, player, ack_due, .. } = &mut self.phase else { return };
        let (frames, now_us) = (elapsed.as_secs_f32() * game::HZ as f32, now.as_micros() as u64);
        let pushed = match player.play(client, frames, now_us, &mut self.stats.played) {
            Ok(pushed) => pushed,
            Err(e) => {
                eprintln!("client {:#x}: input refused: {e}", self.netcode.client_id());
                false
            }
        };
        if let Some((_, sync)) = client.input_stats() {
            (self.stats.rtt_us, self.stats.tick_error) = (sync.rtt_us, sync.error);
        }
        if !pushed && !*ack_due {
            return;
        }
        *ack_due = false;
        let mut up = [0; MAX_UP];
        if let Ok(n) = client.write(now_us, &mut up) {
            self.send(now, Message::Up(&up[..n]));
        }
    }

    fn on_message(
        &mut self,
        now: Duration,
        bytes: &[u8],
        on_frame: &mut impl FnMut(&Client<Fleet>),
    ) {
        match (Message::read(bytes), &mut self.phase) {
            (Some(Message::Welcome { seed, welcome }), Phase::Joining { .. }) => {
                let client = Client::<Fleet>::connect_with_inputs(
                    welcome,
                    MAX_HANDLES,
                    game::INPUT,
                    TICK_US,
                );
                self.phase = match client {
                    Ok(mut client) => {
                        client.set_session(self.netcode.client_id());
                        let player = Box::new(Player::new(client.handles()));
                        let client = Box::new(client);
                        Phase::Playing { client, seed, newest: None, player, ack_due: false }
                    }
                    Err(e) => Phase::Stopped(format!("the server's welcome is refused: {e}")),
                };
            }
            (Some(Message::Refused(why)), Phase::Joining { .. }) => {
                self.phase = Phase::Stopped(why.to_owned());
                if let Ok((addr, datagram)) = self.netcode.disconnect() {
                    self.socket.send(now, addr, datagram);
                }
            }
            (
                Some(Message::Down(down)),
                Phase::Playing { client, seed, newest, player, ack_due },
            ) => {
                let decoded = match client.receive(down, now.as_micros() as u64) {
                    Ok(FromServer { packet: Some(decoded), .. }) => decoded,
                    Ok(FromServer { packet: None, .. }) => return,
                    Err(e) => Err(e), // a malformed frame: refused below
                };
                self.stats.packets += 1;
                *ack_due = true;
                match decoded {
                    Ok(frame) => {
                        self.stats.sent += newest.map_or(1, |n| u64::from(frame.saturating_sub(n)));
                        *newest = Some(frame.max(newest.unwrap_or(0)));
                        let check = game::check(*seed, client);
                        self.stats.decoded += 1;
                        self.stats.ships += check.ships as u64;
                        self.stats.age += check.age;
                        if check.wrong == 0 {
                            self.stats.verified += 1;
                        } else {
                            self.stats.wrong += 1;
                        }
                        player.record(client, &mut self.stats.played);
                        on_frame(client);
                    }
                    Err(Error::StalePacket | Error::UnknownBaseline) => self.stats.stale += 1,
                    Err(_) => self.stats.refused += 1,
                }
            }
            _ => {}
        }
    }

    fn send(&mut self, now: Duration, message: Message<'_>) {
        let mut out = [0; MAX_MESSAGE];
        if let Ok((addr, datagram)) = self.netcode.generate_payload_packet(message.write(&mut out))
        {
            self.socket.send(now, addr, datagram);
        }
    }

    /// Starts a new connection, with the next netcode id, after the last one ended.
    fn reconnect(&mut self, why: &str) {
        println!("client {:#x}: connection lost ({why}); reconnecting", self.netcode.client_id());
        self.attempt += 1;
        self.stats.reconnects += 1;
        match netcode_client(&self.config, self.attempt) {
            Ok(netcode) => {
                self.netcode = netcode;
                self.phase = Phase::Joining { hello_at: None };
            }
            Err(e) => self.phase = Phase::Stopped(format!("cannot reconnect: {e}")),
        }
    }
}

/// The netcode client of connection `attempt` (0 first), its clock at the wall clock's time.
fn netcode_client(config: &Config, attempt: u64) -> Result<NetcodeClient, renetcode::NetcodeError> {
    let id = config.id.wrapping_add(attempt);
    netcode::client(config.server, config.key, id, config.timeout, netcode::unix_time())
}
