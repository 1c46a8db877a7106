//! `--clients N`: one server with N clients per scenario, its peers encoded on 1, 2, …
//! threads ([`netschema_lab::fleet`]), printed as a table of time per frame, client-entity
//! updates per second per core and the scaling against one thread.

use netschema::schema::Schema;
use netschema_lab::fleet::{self, FleetConfig, FleetReport};

use crate::Recording;

/// Runs `rec` coded with `schema` (the scenario's, with the options' policy and prior) with
/// `base`'s clients and link on each of `threads`, prints the table and checks that every
/// thread count wrote the same packets.
pub(crate) fn run(
    rec: &Recording,
    schema: &'static Schema,
    base: FleetConfig,
    threads: &[usize],
) -> Result<(), String> {
    let mut reports: Vec<FleetReport> = Vec::new();
    for &t in threads {
        let config = FleetConfig { threads: t, ..base };
        eprint!("{}: {} clients on {t} thread(s)...", rec.name, base.clients);
        let report = fleet::run(schema, rec.capacity, &rec.snapshots, config)
            .map_err(|e| format!("{}: {e}", rec.name))?;
        eprintln!(" {:.1} ms per frame", report.encode_ms);
        reports.push(report);
    }
    let entities = rec.snapshots.iter().map(|s| s.len()).sum::<usize>() as f64
        / rec.snapshots.len().max(1) as f64;
    println!(
        "{}: {} clients × {entities:.0} entities, {} frames, latency {} frames, loss {:.1} %",
        rec.name,
        base.clients,
        rec.snapshots.len(),
        base.latency,
        base.loss * 100.0
    );
    println!(
        "{:>7} {:>10} {:>18} {:>14} {:>8} {:>10}",
        "threads", "encode_ms", "updates_per_core_s", "updates_per_s", "scaling", "bytes_mean"
    );
    let one = reports.first().map(|r| r.encode_ms).unwrap_or(0.0);
    for r in &reports {
        let per_s = r.updates_per_core_s * r.config.threads as f64;
        println!(
            "{:>7} {:>10.2} {:>18.3e} {:>14.3e} {:>7.2}× {:>10.1}",
            r.config.threads,
            r.encode_ms,
            r.updates_per_core_s,
            per_s,
            one / r.encode_ms.max(1e-9),
            r.bytes_mean
        );
    }
    println!();
    if reports.windows(2).any(|w| w[0].digest != w[1].digest) {
        return Err(format!("{}: packets differ between thread counts", rec.name));
    }
    Ok(())
}
