//! The game server: netcode connections on a UDP socket, the netschema server, the fleet, the
//! players' pilots driven by their inputs, and one down frame per player and frame.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use netschema::owned::{ClientId, Server, ServerConfig};
use renetcode::{NETCODE_KEY_BYTES, NETCODE_MAX_PACKET_BYTES, NetcodeServer, ServerResult};

use crate::encode::{Packet, encode_all};
use crate::game::{self, Fleet};
use crate::netcode;
use crate::pilots::{Course, InputCounts, Piloted, Shot};
use crate::shim::Shim;
use crate::socket::Socket;
use crate::wire::{MAX_MESSAGE, Message};

/// How the server encodes its players' packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// All on the server's thread.
    Serial,
    /// Spread over this many threads.
    Parallel(usize),
    /// Serial on even frames, parallel over this many threads on odd ones: both timed in the
    /// same run.
    Alternate(usize),
}

/// What a server is started with.
#[derive(Debug)]
pub(crate) struct Config {
    /// Where it listens.
    pub(crate) addr: SocketAddr,
    /// The private key connect tokens are sealed with.
    pub(crate) key: [u8; NETCODE_KEY_BYTES],
    /// The seed of the world.
    pub(crate) seed: u64,
    /// Ships in the world.
    pub(crate) ships: u16,
    /// Most players at once.
    pub(crate) players: usize,
    /// How packets are encoded.
    pub(crate) encoding: Encoding,
    /// A loss shim in front of the socket, if any.
    pub(crate) shim: Option<Shim>,
}

/// One player: a netcode client that completed netschema's handshake, and its pilot.
#[derive(Clone, Copy, Debug)]
struct Player {
    client: ClientId,
    /// Frame bytes sent since the last report.
    bytes: u64,
    pilot: Piloted,
}

/// Encode times per frame, for all players at once: serial and parallel.
#[derive(Debug, Default)]
pub(crate) struct Timings {
    /// Frames encoded on one thread.
    pub(crate) serial: Vec<Duration>,
    /// Frames encoded on several.
    pub(crate) parallel: Vec<Duration>,
    /// Frames encoded on several: the longest time one thread spent encoding, without the
    /// wait for the threads to start on a free core and end.
    pub(crate) parallel_work: Vec<Duration>,
}

/// Frames timed at most per kind (18 minutes at 60 Hz), so that memory stays bounded.
const TIMED: usize = 1 << 16;

impl Timings {
    fn record(&mut self, parallel: bool, took: Duration, work: Duration) {
        if self.serial.len().max(self.parallel.len()) >= TIMED {
            return;
        }
        if parallel {
            self.parallel.push(took);
            self.parallel_work.push(work);
        } else {
            self.serial.push(took);
        }
    }
}

/// The median of `times`, if any.
pub(crate) fn median(times: &[Duration]) -> Option<Duration> {
    let mut sorted = times.to_vec();
    sorted.sort_unstable();
    sorted.get(sorted.len() / 2).copied()
}

/// Counts of what happened to players.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Events {
    /// Hellos accepted.
    pub(crate) joined: u64,
    /// Hellos refused (another schema or wire version).
    pub(crate) refused: u64,
    /// Players gone: disconnected or timed out.
    pub(crate) left: u64,
    /// Packets that could not be written (never, unless the budget is below a packet header).
    pub(crate) unwritten: u64,
    /// Players' inputs and shots.
    pub(crate) inputs: InputCounts,
}

/// The server.
#[derive(Debug)]
pub(crate) struct GameServer {
    socket: Socket,
    netcode: NetcodeServer,
    /// The netschema server: the world and one connection per player.
    pub(crate) netschema: Server<Fleet>,
    players: BTreeMap<u64, Player>,
    /// The netcode id of each player.
    netcode_ids: HashMap<ClientId, u64>,
    fleet: Course,
    docked: Vec<bool>,
    /// Players joined so far: the next pilot's number.
    pilots: u64,
    /// Shots judged since [`GameServer::take_shots`].
    shots: Vec<Shot>,
    encoding: Encoding,
    packets: Vec<Packet>,
    clock: Duration,
    /// Encode times.
    pub(crate) timings: Timings,
    /// What happened to players.
    pub(crate) events: Events,
}

impl GameServer {
    /// A server on `config.addr`, its clock at `now`.
    pub(crate) fn bind(config: Config, now: Duration) -> Result<Self, Box<dyn std::error::Error>> {
        let socket = Socket::bind(config.addr, config.shim)?;
        let addr = socket.local_addr()?;
        let netcode = netcode::server(addr, config.key, config.players, netcode::unix_time());
        let entities = usize::from(config.ships) + config.players;
        // Netcode admits only clients with a sealed token, `players` at most: all may be pending.
        let (max_clients, max_pending) = (config.players, config.players);
        let netschema = Server::new(ServerConfig {
            max_clients,
            max_pending,
            ..ServerConfig::new(entities, entities)
        })?
        .with_inputs(game::INPUT)?;
        Ok(GameServer {
            socket,
            netcode,
            netschema,
            players: BTreeMap::new(),
            netcode_ids: HashMap::new(),
            fleet: Course { seed: config.seed, ships: config.ships },
            docked: vec![true; usize::from(config.ships)],
            pilots: 0,
            shots: Vec::new(),
            encoding: config.encoding,
            packets: Vec::new(),
            clock: now,
            timings: Timings::default(),
            events: Events::default(),
        })
    }

    /// The address it listens on.
    pub(crate) fn addr(&self) -> SocketAddr {
        self.socket.local_addr().expect("a bound socket has an address")
    }

    /// The players: netcode id and netschema client of each.
    pub(crate) fn players(&self) -> impl Iterator<Item = (u64, ClientId)> + '_ {
        self.players.iter().map(|(&id, p)| (id, p.client))
    }

    /// One frame at `now`: what arrived, timeouts, the world's next frame with every pilot
    /// driven by its player's input, and a down frame to every player.
    pub(crate) fn tick(&mut self, now: Duration) -> netschema::Result<()> {
        self.netcode.update(now.saturating_sub(self.clock));
        self.clock = now;
        self.receive(now);
        for id in self.netcode.clients_id() {
            match self.netcode.update_client(id) {
                ServerResult::PacketToSend { addr, payload } => {
                    self.socket.send(now, addr, payload)
                }
                ServerResult::ClientDisconnected { addr, payload, .. } => {
                    if let Some(payload) = payload {
                        self.socket.send(now, addr, payload);
                    }
                    self.leave(id, "timed out");
                }
                _ => {}
            }
        }
        let frame = self.simulate()?;
        self.expire(now);
        self.fly(frame)?;
        self.encode_and_send(now, frame);
        self.socket.flush(now);
        Ok(())
    }

    fn receive(&mut self, now: Duration) {
        let mut buf = [0; NETCODE_MAX_PACKET_BYTES];
        while let Some((n, from)) = self.socket.recv(&mut buf) {
            match self.netcode.process_packet(from, &mut buf[..n]) {
                ServerResult::PacketToSend { addr, payload } => {
                    self.socket.send(now, addr, payload)
                }
                ServerResult::ClientConnected { addr, payload, .. } => {
                    self.socket.send(now, addr, payload)
                }
                ServerResult::Payload { client_id, payload } => match Message::read(payload) {
                    Some(Message::Hello(hello)) => self.hello(now, client_id, hello),
                    Some(Message::Up(up)) => {
                        if let Some(p) = self.players.get(&client_id) {
                            // A stale or refused ack or input datagram is counted by
                            // netschema and ignored.
                            let _ = self.netschema.receive(p.client, up);
                        }
                    }
                    _ => {}
                },
                ServerResult::ClientDisconnected { client_id, addr, payload } => {
                    if let Some(payload) = payload {
                        self.socket.send(now, addr, payload);
                    }
                    self.leave(client_id, "disconnected");
                }
                ServerResult::None => {}
            }
        }
    }

    /// Answers a hello from netcode client `id`: a welcome (again, if it already joined) or a
    /// refusal that says why.
    fn hello(&mut self, now: Duration, id: u64, hello: &[u8]) {
        let joined = match self.players.get(&id) {
            Some(_) => Ok(()),
            None => self.netschema.connect(hello).map(|client| self.join(id, client)),
        };
        let mut welcome = [0; 64];
        let written = joined.and_then(|()| self.netschema.welcome(&mut welcome));
        match written {
            Ok(n) => self.send(
                now,
                id,
                Message::Welcome { seed: self.fleet.seed, welcome: &welcome[..n] },
            ),
            Err(e) => {
                let why = format!("this server refuses the hello: {e}");
                println!("player {id:#x} refused: {e}");
                self.events.refused += 1;
                self.send(now, id, Message::Refused(&why));
            }
        }
    }

    fn join(&mut self, id: u64, client: ClientId) {
        println!("player {id:#x} joined as {client}");
        self.events.joined += 1;
        // Both ends know the netcode id: packets and acks of another connection are refused.
        let _ = self.netschema.set_session(client, id);
        let pilot = Piloted::new(self.pilots);
        self.pilots += 1;
        self.players.insert(id, Player { client, bytes: 0, pilot });
        self.netcode_ids.insert(client, id);
        for (ship, _) in self.docked.iter().enumerate().filter(|(_, docked)| !**docked) {
            // Every ship exists in the world here, so this cannot fail.
            let _ = self.netschema.set_visible(client, ship as u64, true);
        }
    }

    /// Disconnects the players netschema dropped at this frame's start because none of their
    /// acks came back in time: their clients connect again.
    fn expire(&mut self, now: Duration) {
        for client in self.netschema.expired().to_vec() {
            let Some(&id) = self.netcode_ids.get(&client) else { continue };
            if let ServerResult::ClientDisconnected { addr, payload: Some(payload), .. } =
                self.netcode.disconnect(id)
            {
                self.socket.send(now, addr, payload);
            }
            self.leave(id, "no ack came back");
        }
    }

    fn leave(&mut self, id: u64, why: &str) {
        if let Some(p) = self.players.remove(&id) {
            println!("player {id:#x} ({}) left: {why}", p.client);
            self.events.left += 1;
            self.netcode_ids.remove(&p.client);
            let _ = self.netschema.disconnect(p.client);
            self.netschema.remove(p.pilot.id);
        }
    }

    fn send(&mut self, now: Duration, id: u64, message: Message<'_>) {
        let mut out = [0; MAX_MESSAGE];
        if let Ok((addr, datagram)) =
            self.netcode.generate_payload_packet(id, message.write(&mut out))
        {
            self.socket.send(now, addr, datagram);
        }
    }

    /// Starts the world's next frame: ships that sail are set (and shown to every player when
    /// they leave the dock), docked ones removed.
    fn simulate(&mut self) -> netschema::Result<u32> {
        let frame = self.netschema.begin_frame();
        for (id, docked) in self.docked.iter_mut().enumerate() {
            match game::ship(self.fleet.seed, id as u16, frame) {
                Some(ship) => {
                    self.netschema.set(id as u64, &ship)?;
                    if *docked {
                        for p in self.players.values() {
                            self.netschema.set_visible(p.client, id as u64, true)?;
                        }
                    }
                    *docked = false;
                }
                None => {
                    self.netschema.remove(id as u64);
                    *docked = true;
                }
            }
        }
        Ok(frame)
    }

    /// Drives every player's pilot by its input of `frame` and judges its shots; shows a new
    /// pilot to every player, and every pilot to a new player.
    fn fly(&mut self, frame: u32) -> netschema::Result<()> {
        let (server, counts) = (&mut self.netschema, &mut self.events.inputs);
        for p in self.players.values_mut() {
            let shot = p.pilot.fly(server, self.fleet, frame, p.client, counts)?;
            self.shots.extend(shot);
        }
        let pilots: Vec<(ClientId, u64, bool)> =
            self.players.values().map(|p| (p.client, p.pilot.id, p.pilot.fresh)).collect();
        for &(client, id, _) in pilots.iter().filter(|(_, _, fresh)| *fresh) {
            self.netschema.set_own(client, id, true)?;
            for &(other, other_id, _) in &pilots {
                self.netschema.set_visible(other, id, true)?;
                self.netschema.set_visible(client, other_id, true)?;
            }
        }
        self.players.values_mut().for_each(|p| p.pilot.fresh = false);
        Ok(())
    }

    /// The shots judged since the last call.
    pub(crate) fn take_shots(&mut self) -> Vec<Shot> {
        std::mem::take(&mut self.shots)
    }

    /// The target delay of the players' input streams: the longest, in ticks.
    pub(crate) fn input_delay(&mut self) -> u32 {
        let clients: Vec<ClientId> = self.players.values().map(|p| p.client).collect();
        let stats = clients.into_iter().filter_map(|c| self.netschema.input_stats(c).ok());
        stats.map(|s| s.playout.target).max().unwrap_or(0)
    }

    /// Encodes every player's down frame (timed) and sends them.
    fn encode_and_send(&mut self, now: Duration, frame: u32) {
        let threads = match self.encoding {
            Encoding::Serial => 1,
            Encoding::Parallel(n) => n,
            Encoding::Alternate(n) => {
                if frame.is_multiple_of(2) {
                    1
                } else {
                    n
                }
            }
        };
        let mut packets = std::mem::take(&mut self.packets);
        let start = Instant::now();
        let (world, connections) = self.netschema.split();
        let work = encode_all(&world, connections, &mut packets, threads);
        if !packets.is_empty() {
            self.timings.record(threads > 1, start.elapsed(), work);
        }
        for packet in &packets {
            let Ok(len) = packet.len else {
                self.events.unwritten += 1;
                continue;
            };
            let Some(&id) = self.netcode_ids.get(&packet.client) else { continue };
            self.send(now, id, Message::Down(&packet.bytes[..len]));
            if let Some(p) = self.players.get_mut(&id) {
                p.bytes += len as u64;
            }
        }
        self.packets = packets;
    }

    /// Frame bytes sent to each player since the last call.
    pub(crate) fn take_bytes(&mut self) -> Vec<u64> {
        self.players.values_mut().map(|p| std::mem::take(&mut p.bytes)).collect()
    }
}
