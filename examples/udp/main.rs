//! A game over real UDP: one server process and several client processes, in three layers —
//! a `std::net::UdpSocket`, netcode 1.02 connections (renetcode: connect tokens, encryption,
//! timeouts) and netschema's owned API (hello and welcome that check the schema, one packet of
//! at most 1200 bytes per player and frame, acks back).
//!
//! The server sails a fleet of ships on circular courses, a pure function of a seed and the
//! frame, at 60 Hz. Each client recomputes that world at the frame each ship's values come
//! from (`Client::age` frames before the frame decoded), quantises it and compares: a frame
//! is verified when every ship shown equals it. A client whose connection times out connects
//! again; one that speaks another schema is refused with the reason.
//!
//! Inputs go the other way. Each player has a pilot, its own ship, which only its inputs
//! steer: every tick a scripted bot on the client (`bot.rs`) turns it toward the nearest ship
//! it shows, pushes it forward and fires when that ship is in its sights, and the client sends
//! that input ([`game::Helm`], the input schema [`game::INPUT`]) with the render time of its
//! interpolated view, one up frame per tick carrying its ack too. The server takes each
//! player's input of each frame (the last one repeated when it is missing or late), moves the
//! pilot, and judges each shot on the world rewound to what that player showed when it fired
//! (`Server::seen_by`), with the same function the client judged it with (`game::aim`).
//!
//! ```sh
//! cargo run --release --example udp -- server --seconds 30 &
//! for i in 1 2 3; do cargo run --release --example udp -- client --seconds 25 & done; wait
//! ```
//!
//! Every second the server prints its players, the kbit/s of netschema frames per player, the
//! median time to encode every player's frame, the inputs it applied, repeated for want of
//! one and received late, the input delay it aims at, and the shots it judged (hits on the
//! rewound world, and how many the current world would have given); each client prints the
//! kbit/s it receives (UDP payload: netschema frames plus netcode's header and tag), the share
//! of the server's packets that never arrived, its decoded, verified and refused frames, the
//! inputs it sent, the round trip and input tick error its synchronisation measures, the
//! frames in which its own pilot moved, and its shots and hits as it saw them. A client exits
//! with 1 if any frame failed verification, none passed, or it was refused.
//!
//! Other things to try:
//!
//! ```sh
//! # the measurement: 8 clients × 1000 ships, serial and parallel encoding timed in one run
//! cargo build --release --example udp && udp=target/release/examples/udp
//! $udp server --seconds 36 --encode alternate &
//! for i in $(seq 8); do nice -n 19 $udp client --seconds 32 & done; wait
//! # the same under kernel packet loss, in a network namespace (as root)
//! ip netns add udp && ip -n udp link set lo up
//! tc -n udp qdisc add dev lo root netem loss 5% delay 50ms 10ms reorder 25% 50% duplicate 1% corrupt 1%
//! ip netns exec udp $udp server --seconds 36 --encode alternate &
//! for i in $(seq 8); do ip netns exec udp nice -n 19 $udp client --seconds 32 & done; wait
//! ip netns del udp
//! # a client of the game's next version, with another schema: refused, and told why
//! cargo run --release --example udp -- client --next-version
//! # a client that freezes for 5 s: both ends time it out after 3 s, and it reconnects
//! cargo run --release --example udp -- client --stall-at 3 --stall-for 5
//! # a bad network without privileges: this client's acks and the server's packets impaired
//! cargo run --release --example udp -- server --loss 5% --delay 50 --jitter 10 --reorder 2% --duplicate 1% --corrupt 1%
//! ```
//!
//! On a kernel without netem (`tc` says "Specified qdisc kind is unknown"), load
//! `tests/udp_netns.rs`'s nftables rules into the namespace for 5 % loss and 1 % duplication,
//! and give the server and every client `--delay 50 --jitter 10 --reorder 10% --corrupt 1%`
//! (each a `--shim-seed` of its own) for the rest.
//!
//! `tests/udp_netns.rs` runs it under the kernel's own packet loss in a namespace of its own,
//! and `tests/udp_loopback.rs` runs the same loop in one process with the shim.

mod bot;
mod cli;
mod client;
mod encode;
mod game;
mod netcode;
mod pilots;
mod player;
mod server;
mod shim;
mod socket;
mod wire;

use std::process::ExitCode;
use std::thread::sleep;
use std::time::{Duration, Instant};

use cli::{Options, Role, USAGE};
use client::GameClient;
use server::{GameServer, median};
use shim::Shim;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let options = match Options::parse(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("udp: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let shim = options.impairment.map(|i| Shim::new(i, options.shim_seed));
    let run = match options.role {
        Role::Server => serve(&options, shim),
        Role::Client => play(&options, shim),
    };
    run.unwrap_or_else(|e| {
        eprintln!("udp: {e}");
        ExitCode::FAILURE
    })
}

type Run = Result<ExitCode, Box<dyn std::error::Error>>;

/// Runs the server at 60 Hz for the time asked, reporting every second.
fn serve(o: &Options, shim: Option<Shim>) -> Run {
    let (addr, key, seed, ships, players, encoding) =
        (o.addr, o.key, o.seed, o.ships, o.players, o.encoding);
    let config = server::Config { addr, key, seed, ships, players, encoding, shim };
    let mut server = GameServer::bind(config, Duration::ZERO)?;
    println!(
        "server on {}: {ships} ships at {} Hz, packets of at most {} bytes, {encoding:?} encoding, for {:?}",
        server.addr(),
        game::HZ,
        wire::BUDGET,
        o.seconds,
    );
    let start = Instant::now();
    let frame = Duration::from_secs(1) / game::HZ;
    let (mut next, mut report) = (Duration::ZERO, (Duration::ZERO, Duration::from_secs(1)));
    let mut inputs = server.events.inputs;
    while next < o.seconds {
        sleep(next.saturating_sub(start.elapsed()));
        server.tick(start.elapsed())?;
        next += frame;
        let now = start.elapsed();
        if now >= report.1 {
            let kbps: Vec<f64> = server
                .take_bytes()
                .into_iter()
                .map(|bytes| bytes as f64 * 8.0 / 1000.0 / (now - report.0).as_secs_f64())
                .collect();
            let mean = kbps.iter().fold(0.0, |sum, k| sum + k) / kbps.len().max(1) as f64;
            let min = kbps.iter().copied().reduce(f64::min).unwrap_or(0.0);
            let max = kbps.iter().copied().reduce(f64::max).unwrap_or(0.0);
            println!(
                "t={:>3.0}s players {} | kbit/s per player: mean {mean:.1}, min {min:.1}, max {max:.1} | encode all: {} | {}",
                now.as_secs_f64(),
                server.players().count(),
                medians(&server),
                input_report(server.events.inputs.since(inputs), server.input_delay()),
            );
            server.take_shots(); // counted above; tests/udp_loopback.rs checks each one
            inputs = server.events.inputs;
            report = (now, report.1 + Duration::from_secs(1));
        }
    }
    let inputs = input_report(server.events.inputs, server.input_delay());
    println!(
        "done: {} joined, {} refused, {} left, {} packets unwritten | encode all players per frame, median over the run: {} | {}",
        server.events.joined,
        server.events.refused,
        server.events.left,
        server.events.unwritten,
        medians(&server),
        inputs,
    );
    let frames = (o.seconds.as_secs_f64() * f64::from(game::HZ)).max(1.0);
    if let (Some(cpu), Ok(load)) = (process_cpu(), std::fs::read_to_string("/proc/loadavg")) {
        println!(
            "server CPU, all its work (simulation, netcode, encryption, encoding): {:.3} ms per frame, {:.0}% of a core; load average {}",
            cpu.as_secs_f64() * 1e3 / frames,
            cpu.as_secs_f64() * 100.0 / o.seconds.as_secs_f64(),
            load.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The server's input figures: inputs applied, repeated and late, the input delay, and shots.
fn input_report(i: pilots::InputCounts, delay: u32) -> String {
    format!(
        "inputs: {} applied, {} repeated, {} late, delay {delay} ticks | shots: {} judged as seen, {} hits ({} without rewind), {} unjudged",
        i.applied, i.repeated, i.late, i.shots, i.hits, i.hits_now, i.unjudged,
    )
}

/// CPU time this process has used, user and system, on Linux (`/proc/self/stat`, in the
/// kernel's 10 ms ticks).
fn process_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command's closing parenthesis, from the state (field 3) on.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

fn medians(server: &GameServer) -> String {
    let show = |times: &[Duration]| {
        median(times).map_or("-".to_owned(), |m| {
            format!("{:.3} ms ({} frames)", m.as_secs_f64() * 1e3, times.len())
        })
    };
    let t = &server.timings;
    let work = median(&t.parallel_work).map_or(0.0, |m| m.as_secs_f64() * 1e3);
    format!(
        "serial {}, parallel {} (longest thread's own work {work:.3} ms)",
        show(&t.serial),
        show(&t.parallel)
    )
}

/// Runs a client for the time asked, reporting every second.
fn play(o: &Options, shim: Option<Shim>) -> Run {
    let id = o.id.unwrap_or_else(|| u64::from_le_bytes(renetcode::generate_random_bytes()));
    let config = client::Config {
        server: o.addr,
        key: o.key,
        id,
        timeout: o.timeout,
        next_version: o.next_version,
        shim,
    };
    let mut client = GameClient::connect(config, Duration::ZERO)?;
    let start = Instant::now();
    let (mut last, mut report) = (client.stats(), (Duration::ZERO, Duration::from_secs(1)));
    let mut stall = o.stall;
    while start.elapsed() < o.seconds {
        if let Some((at, length)) = stall.filter(|(at, _)| start.elapsed() >= *at) {
            println!("client {:#x}: freezing for {length:?} at {at:?}", client.id());
            sleep(length);
            stall = None;
        }
        client.tick(start.elapsed(), |_| {});
        if let Some(why) = client.stopped() {
            eprintln!("client {:#x}: {why}", client.id());
            return Ok(ExitCode::FAILURE);
        }
        let now = start.elapsed();
        if now >= report.1 {
            let stats = client.stats();
            print_stats(client.id(), now, now - report.0, stats.since(last));
            (last, report) = (stats, (now, report.1 + Duration::from_secs(1)));
        }
        sleep(Duration::from_millis(1));
    }
    let total = client.stats();
    print!("done: ");
    print_stats(client.id(), start.elapsed(), start.elapsed(), total);
    let ok = total.verified > 0 && total.wrong == 0;
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn print_stats(id: u64, now: Duration, span: Duration, s: client::Stats) {
    println!(
        "t={:>3.0}s client {id:#x}: {:.1} kbit/s, loss seen {:.1}% | frames: {} decoded, {} verified, {} wrong, {} stale, {} refused | {:.0} ships, mean age {:.2} frames | {} reconnects | inputs: {} sent, rtt {:.1} ms, tick error {:+.2} | {} own moves, {} shots, {} hits",
        now.as_secs_f64(),
        s.bytes as f64 * 8.0 / 1000.0 / span.as_secs_f64().max(1e-9),
        s.loss() * 100.0,
        s.decoded,
        s.verified,
        s.wrong,
        s.stale,
        s.refused,
        s.ships as f64 / s.decoded.max(1) as f64,
        s.age as f64 / s.ships.max(1) as f64,
        s.reconnects,
        s.played.inputs,
        f64::from(s.rtt_us) / 1000.0,
        f64::from(s.tick_error) / 16.0,
        s.played.moves,
        s.played.shots,
        s.played.hits,
    );
}
