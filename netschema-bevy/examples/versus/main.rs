//! bevy_replicon's own replication and netschema-bevy side by side: the same headless server
//! and clients, the same scene (built by one function for both), over the same seeded lossy
//! link with the same latency, each client checked against the server. Printed per scene, for
//! each loss rate: bytes per second per client, server and client time per tick, heap per
//! client, and how stale the clients' values are.
//!
//! ```sh
//! cargo run --release --example versus                        # from netschema-bevy/
//! cargo run --release --example versus -- --scene crowd --loss 5 --ticks 1200
//! ```
//!
//! Options: `--scene ships|crowd|still|all` (default all), `--loss 0,5,20` (percent of
//! unreliable messages lost each way, default 0,5,20), `--ticks N` (measured server ticks at
//! 60 Hz, default 600), `--clients N` (default 8), `--latency T` (ticks each way, default 3),
//! `--entities N` (instead of each scene's own count: 300 ships, 1000 particles, 1000 props).
//!
//! How it measures (see `harness.rs`):
//!
//! - **Bytes**: every message the server hands the link for a client, on every channel, lost
//!   or not, over the measured ticks (the scene is spawned after the clients connect, so its
//!   first copy is counted), divided by the simulated seconds and averaged over clients.
//!   Reliable messages are counted once: the link delivers them without resending.
//! - **Time**: the median wall time of `server.update()`, and of a client's `client.update()`
//!   over clients and ticks. Both modes run side by side in one process, tick by tick (which
//!   goes first alternates), so that a busy machine slows both alike. Both include the counting
//!   allocator's bookkeeping.
//! - **Heap**: a counting global allocator; an app's heap is what dropping it at the end gives
//!   back. Server heap per client: (server heap with N clients − server heap with none, same
//!   scene and ticks) / N. Client heap: a client app's, the mean over clients.
//! - **Staleness**: after each client update past the first second (the warm-up), for every
//!   entity the client shows, how many ticks back the server last held the value it shows
//!   (exactly for replicon, quantised for netschema): mean, 99th percentile and maximum over
//!   clients, entities and ticks. The latency is its floor. **Whole at** is the tick (from the
//!   scene's first) after which every client had shown every entity.
//! - **Vanished**: how many times an entity a client showed was gone from it at the next tick
//!   (the scene never despawns, so each is a despawn the client undoes later), over clients.
//! - **Check**: values the server held at none of the last 128 ticks (`unmatched`), and, once
//!   the scene stops and the link has emptied, client values that differ from the server's or
//!   entities not shown (`mismatched`). At 0 % loss both must be zero, or the run fails.

mod harness;

use std::time::Duration;

use harness::{Config, HZ, Outcome, Scene, run};

/// The command line.
struct Args {
    scenes: Vec<Scene>,
    /// Loss rates, in percent.
    losses: Vec<u32>,
    ticks: u32,
    clients: usize,
    latency: u32,
    entities: Option<usize>,
}

fn usage(problem: &str) -> ! {
    eprintln!("versus: {problem}");
    eprintln!(
        "usage: versus [--scene ships|crowd|still|all] [--loss 0,5,20] [--ticks N] [--clients N] \
         [--latency T] [--entities N]"
    );
    std::process::exit(2)
}

fn number<T: std::str::FromStr>(option: &str, value: &str) -> T {
    value.parse().unwrap_or_else(|_| usage(&format!("{option}: not a number: {value}")))
}

fn parse() -> Args {
    let mut args = Args {
        scenes: vec![Scene::Ships, Scene::Crowd, Scene::Still],
        losses: vec![0, 5, 20],
        ticks: 600,
        clients: 8,
        latency: 3,
        entities: None,
    };
    let mut words = std::env::args().skip(1);
    while let Some(option) = words.next() {
        let value = words.next().unwrap_or_else(|| usage(&format!("{option}: a value is missing")));
        match option.as_str() {
            "--scene" => {
                args.scenes = match value.as_str() {
                    "all" => vec![Scene::Ships, Scene::Crowd, Scene::Still],
                    name => vec![scene(name).unwrap_or_else(|| usage("unknown scene"))],
                }
            }
            "--loss" => args.losses = value.split(',').map(|l| number(&option, l)).collect(),
            "--ticks" => args.ticks = number(&option, &value),
            "--clients" => args.clients = number(&option, &value),
            "--latency" => args.latency = number(&option, &value),
            "--entities" => args.entities = Some(number(&option, &value)),
            _ => usage(&format!("unknown option {option}")),
        }
    }
    if args.ticks == 0 || args.clients == 0 || args.entities == Some(0) {
        usage("ticks, clients and entities must be positive");
    }
    if args.losses.iter().any(|&l| l >= 100) {
        usage("a loss rate is a percentage below 100");
    }
    args
}

fn scene(name: &str) -> Option<Scene> {
    match name {
        "ships" => Some(Scene::Ships),
        "crowd" => Some(Scene::Crowd),
        "still" => Some(Scene::Still),
        _ => None,
    }
}

fn name(scene: Scene) -> &'static str {
    match scene {
        Scene::Ships => "ships",
        Scene::Crowd => "crowd",
        Scene::Still => "still",
    }
}

/// Each scene's own entity count and what it is.
fn describe(scene: Scene) -> (usize, &'static str) {
    match scene {
        Scene::Ships => (300, "ships flying circles (examples/ships.rs)"),
        Scene::Crowd => (1000, "particles drifting in a box"),
        Scene::Still => (1000, "props, each hit or pushed once in 200 ticks"),
    }
}

/// One loss rate's outcomes: replicon's, then netschema's.
struct Row {
    loss: u32,
    replicon: Outcome,
    netschema: Outcome,
}

fn kib(bytes: f64) -> String {
    format!("{:.0}", bytes / 1024.0)
}

fn ms(time: Duration) -> String {
    format!("{:.3}", time.as_secs_f64() * 1e3)
}

fn ratio(netschema: f64, replicon: f64) -> String {
    format!("{:.2}×", netschema / replicon)
}

fn whole(o: &Outcome) -> String {
    o.complete.map_or("never".into(), |tick| tick.to_string())
}

fn stale(o: &Outcome) -> String {
    let s = &o.staleness;
    format!("{:.2} / {} / {}", s.mean(), s.quantile(0.99), s.max())
}

/// `ok`, or what did not match.
fn check(o: &Outcome) -> String {
    let s = &o.staleness;
    let faults: Vec<String> = [(s.unmatched, "unmatched"), (o.mismatched as u64, "mismatched")]
        .into_iter()
        .filter(|&(n, _)| n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
    if faults.is_empty() { "ok".into() } else { faults.join(", ") }
}

fn main() {
    let args = parse();
    println!(
        "versus: bevy_replicon's own replication (R) and netschema-bevy (N), {} ticks at {HZ} Hz, \
         {} clients, latency {} ticks each way",
        args.ticks, args.clients, args.latency
    );
    for &scene in &args.scenes {
        let (own, what) = describe(scene);
        let entities = args.entities.unwrap_or(own);
        let config = |clients, loss: u32| Config {
            scene,
            entities,
            clients,
            ticks: args.ticks,
            warmup: (args.ticks / 4).min(HZ as u32),
            loss: f64::from(loss) / 100.0,
            latency: args.latency,
        };
        let alone = run(&config(0, 0));
        let rows: Vec<Row> = args
            .losses
            .iter()
            .map(|&loss| {
                eprintln!("{}: {loss} % loss", name(scene));
                let [replicon, netschema] = run(&config(args.clients, loss));
                Row { loss, replicon, netschema }
            })
            .collect();
        let per_client = |o: &Outcome, alone: &Outcome| {
            (o.server_heap as f64 - alone.server_heap as f64) / args.clients as f64
        };

        println!("\n### {}: {entities} {what}\n", name(scene));
        println!(
            "| loss | R B/s per client | N B/s per client | N ÷ R | R staleness mean / p99 / max | \
             N staleness mean / p99 / max | R whole at | N whole at | R vanished | N vanished | \
             R check | N check |"
        );
        println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for Row { loss, replicon: r, netschema: n } in &rows {
            println!(
                "| {loss} % | {:.0} | {:.0} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                r.bytes_per_second,
                n.bytes_per_second,
                ratio(n.bytes_per_second, r.bytes_per_second),
                stale(r),
                stale(n),
                whole(r),
                whole(n),
                r.vanished,
                n.vanished,
                check(r),
                check(n),
            );
        }
        println!();
        println!(
            "| loss | R server ms/tick | N server ms/tick | N ÷ R | R client ms/tick | \
             N client ms/tick | N ÷ R | R server KiB per client | N server KiB per client | \
             R client KiB | N client KiB |"
        );
        println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for Row { loss, replicon: r, netschema: n } in &rows {
            println!(
                "| {loss} % | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                ms(r.server_tick),
                ms(n.server_tick),
                ratio(n.server_tick.as_secs_f64(), r.server_tick.as_secs_f64()),
                ms(r.client_tick),
                ms(n.client_tick),
                ratio(n.client_tick.as_secs_f64(), r.client_tick.as_secs_f64()),
                kib(per_client(r, &alone[0])),
                kib(per_client(n, &alone[1])),
                kib(r.client_heap as f64),
                kib(n.client_heap as f64),
            );
        }
        targets(scene, args.clients, &rows);
        for row in rows.iter().filter(|row| row.loss == 0) {
            for (mode, o) in [("replicon", &row.replicon), ("netschema", &row.netschema)] {
                assert_eq!(
                    check(o),
                    "ok",
                    "{}: {mode}'s clients differ from the server",
                    name(scene)
                );
            }
        }
    }
}

/// Prints whether the issue's targets at 5 % loss are met: bytes per client at most 0.25 of
/// replicon's on the crowd and ships scenes and 0.5 on the still world; server time per tick
/// at most twice replicon's for 8 clients on the crowd scene.
fn targets(scene: Scene, clients: usize, rows: &[Row]) {
    let Some(row) = rows.iter().find(|row| row.loss == 5) else { return };
    let met = |ok: bool| if ok { "met" } else { "NOT met" };
    let bound = if scene == Scene::Still { 0.5 } else { 0.25 };
    let bytes = row.netschema.bytes_per_second / row.replicon.bytes_per_second;
    println!(
        "\ntarget at 5 % loss, bytes per client ≤ {bound}× replicon's: {bytes:.2}×, {}",
        met(bytes <= bound)
    );
    if scene == Scene::Crowd {
        let time = row.netschema.server_tick.as_secs_f64() / row.replicon.server_tick.as_secs_f64();
        let of = if clients == 8 {
            String::new()
        } else {
            format!(" (measured with {clients} clients, the target is for 8)")
        };
        println!(
            "target at 5 % loss, server time per tick ≤ 2× replicon's: {time:.2}×, {}{of}",
            met(time <= 2.0)
        );
    }
}
