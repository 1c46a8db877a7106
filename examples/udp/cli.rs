//! The command line: `server` or `client`, then `--name value` options.

use std::net::SocketAddr;
use std::time::Duration;

use renetcode::NETCODE_KEY_BYTES;

use crate::netcode::DEMO_KEY;
use crate::server::Encoding;
use crate::shim::Impairment;

/// Most players netcode serves at once.
const MAX_PLAYERS: usize = 1024;

/// The usage text.
pub(crate) const USAGE: &str = "\
usage: udp server [options]   |   udp client [options]

both:
  --seconds S        stop after S seconds (default 10)
  --key HEX          the 32-byte private key connect tokens are sealed with, 64 hex digits
                     (default: a public demo key)
  --loss P --delay MS --jitter MS --reorder P --duplicate P --corrupt P --shim-seed N
                     impair what this process sends with a seeded shim (P: 0.05 or 5%)
server:
  --addr ADDR        where to listen (default 127.0.0.1:40000)
  --ships N          ships in the world (default 1000)
  --players N        most players at once, up to 1024 (default 64)
  --seed N           the world's seed (default 1)
  --encode MODE      serial, parallel or alternate (serial on even frames, parallel on odd
                     ones, both timed in one run; default parallel)
  --threads N        threads for parallel encoding (default: the cores)
client:
  --server ADDR      the server (default 127.0.0.1:40000)
  --timeout S        seconds of silence before the connection is dropped (default 3)
  --id N             netcode id of the first connection (default random)
  --stall-at S --stall-for S
                     freeze for a while (to time out and reconnect)
  --next-version     say hello with the game's next schema, which the server refuses";

/// Which end to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// The server.
    Server,
    /// A client.
    Client,
}

/// Everything the command line says.
#[derive(Clone, Debug)]
pub(crate) struct Options {
    /// Which end.
    pub(crate) role: Role,
    /// How long to run.
    pub(crate) seconds: Duration,
    /// The private key of connect tokens.
    pub(crate) key: [u8; NETCODE_KEY_BYTES],
    /// The loss shim, if any impairment was asked for.
    pub(crate) impairment: Option<Impairment>,
    /// The shim's seed.
    pub(crate) shim_seed: u64,
    /// The server's address (to listen on, or to connect to).
    pub(crate) addr: SocketAddr,
    /// Ships in the world.
    pub(crate) ships: u16,
    /// Most players.
    pub(crate) players: usize,
    /// The world's seed.
    pub(crate) seed: u64,
    /// How the server encodes.
    pub(crate) encoding: Encoding,
    /// The client's connection timeout, seconds.
    pub(crate) timeout: i32,
    /// The client's first netcode id.
    pub(crate) id: Option<u64>,
    /// When and for how long the client freezes.
    pub(crate) stall: Option<(Duration, Duration)>,
    /// Whether the client says hello with the next schema.
    pub(crate) next_version: bool,
}

impl Options {
    /// Reads the arguments (without the program's name).
    pub(crate) fn parse(args: &[String]) -> Result<Options, String> {
        let (role, rest) = match args.split_first() {
            Some((r, rest)) if r == "server" => (Role::Server, rest),
            Some((r, rest)) if r == "client" => (Role::Client, rest),
            _ => return Err("say `server` or `client` first".into()),
        };
        let mut o = Options {
            role,
            seconds: Duration::from_secs(10),
            key: DEMO_KEY,
            impairment: None,
            shim_seed: 1,
            addr: "127.0.0.1:40000".parse().expect("a valid address"),
            ships: 1000,
            players: 64,
            seed: 1,
            encoding: Encoding::Parallel(cores()),
            timeout: 3,
            id: None,
            stall: None,
            next_version: false,
        };
        let (mut threads, mut mode, mut stall_at, mut stall_for) =
            (cores(), "parallel", None, None);
        let mut impair = Impairment::default();
        let mut i = 0;
        while i < rest.len() {
            let name = rest[i].as_str();
            if name == "--next-version" {
                o.next_version = true;
                i += 1;
                continue;
            }
            let value = rest.get(i + 1).ok_or(format!("{name} needs a value"))?.as_str();
            let bad = |what: &str| format!("{name} {value}: {what}");
            match name {
                "--seconds" => o.seconds = seconds(value).map_err(bad)?,
                "--key" => o.key = key(value).map_err(bad)?,
                "--loss" => impair.loss = share(value).map_err(bad)?,
                "--delay" => impair.delay = millis(value).map_err(bad)?,
                "--jitter" => impair.jitter = millis(value).map_err(bad)?,
                "--reorder" => impair.reorder = share(value).map_err(bad)?,
                "--duplicate" => impair.duplicate = share(value).map_err(bad)?,
                "--corrupt" => impair.corrupt = share(value).map_err(bad)?,
                "--shim-seed" => o.shim_seed = value.parse().map_err(|_| bad("not a number"))?,
                "--addr" | "--server" => {
                    o.addr = value.parse().map_err(|_| bad("not an address"))?
                }
                "--ships" => o.ships = value.parse().map_err(|_| bad("not a number of ships"))?,
                "--players" => {
                    o.players =
                        value.parse().ok().filter(|n| (1..=MAX_PLAYERS).contains(n)).ok_or_else(
                            || bad(&format!("not a number of players from 1 to {MAX_PLAYERS}")),
                        )?
                }
                "--seed" => o.seed = value.parse().map_err(|_| bad("not a number"))?,
                "--encode" => mode = value,
                "--threads" => threads = value.parse().map_err(|_| bad("not a number"))?,
                "--timeout" => {
                    o.timeout = value
                        .parse()
                        .ok()
                        .filter(|t| *t > 0)
                        .ok_or_else(|| bad("not a number of seconds"))?
                }
                "--id" => o.id = Some(value.parse().map_err(|_| bad("not a number"))?),
                "--stall-at" => stall_at = Some(seconds(value).map_err(bad)?),
                "--stall-for" => stall_for = Some(seconds(value).map_err(bad)?),
                _ => return Err(format!("unknown option {name}")),
            }
            i += 2;
        }
        o.encoding = match mode {
            "serial" => Encoding::Serial,
            "parallel" => Encoding::Parallel(threads),
            "alternate" => Encoding::Alternate(threads),
            _ => return Err(format!("--encode {mode}: say serial, parallel or alternate")),
        };
        o.stall = stall_at.zip(stall_for);
        o.impairment = (impair != Impairment::default()).then_some(impair);
        Ok(o)
    }
}

/// The cores this machine has.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn number(value: &str) -> Result<f64, &'static str> {
    value.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0).ok_or("not a number")
}

fn seconds(value: &str) -> Result<Duration, &'static str> {
    Duration::try_from_secs_f64(number(value)?).map_err(|_| "too long")
}

fn millis(value: &str) -> Result<Duration, &'static str> {
    Duration::try_from_secs_f64(number(value)? / 1000.0).map_err(|_| "too long")
}

/// A probability: `0.05` or `5%`.
fn share(value: &str) -> Result<f64, &'static str> {
    let p = match value.strip_suffix('%') {
        Some(percent) => number(percent)? / 100.0,
        None => number(value)?,
    };
    (p <= 1.0).then_some(p).ok_or("not between 0 and 1 (or 0% and 100%)")
}

fn key(value: &str) -> Result<[u8; NETCODE_KEY_BYTES], &'static str> {
    let mut key = [0; NETCODE_KEY_BYTES];
    if value.len() != 2 * NETCODE_KEY_BYTES || !value.is_ascii() {
        return Err("not 64 hex digits");
    }
    for (i, byte) in key.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&value[2 * i..2 * i + 2], 16).map_err(|_| "not hex")?;
    }
    Ok(key)
}
