//! `--record DIR`: a scenario's schema and trace, for `netschema profile`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use netschema_lab::descriptors::RuntimeSchema;
use netschema_lab::trace::{TraceWriter, WriteError};

use crate::Recording;

/// Writes `DIR/<scenario>.netidl` (the schema's source `netidl`) and `DIR/<scenario>.jsonl`
/// (the trace); returns the trace's path.
pub(crate) fn save(
    dir: &Path,
    rec: &Recording,
    runtime: &RuntimeSchema,
    netidl: &str,
) -> Result<PathBuf, String> {
    let fail =
        |path: &Path, e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
    std::fs::create_dir_all(dir).map_err(|e| fail(dir, &e))?;
    let schema = dir.join(format!("{}.netidl", rec.name));
    std::fs::write(&schema, netidl).map_err(|e| fail(&schema, &e))?;
    let trace = dir.join(format!("{}.jsonl", rec.name));
    let file = File::create(&trace).map_err(|e| fail(&trace, &e))?;
    write_trace(BufWriter::new(file), rec, runtime).map_err(|e| fail(&trace, &e))?;
    Ok(trace)
}

/// Writes `rec` as a trace: the world and every client's view where the scenario records them,
/// otherwise what its one client sees; each frame with its time (the recorded world's, else
/// frame `i` at `i / rate_hz` seconds).
pub(crate) fn write_trace<W: Write>(
    out: W,
    rec: &Recording,
    runtime: &RuntimeSchema,
) -> Result<W, WriteError> {
    let mut writer = TraceWriter::new(runtime, out, Some(rec.rate_hz))?;
    match &rec.world {
        Some(frames) => {
            for f in frames {
                writer.write_frame(f)?;
            }
        }
        None => {
            for (i, s) in rec.snapshots.iter().enumerate() {
                writer.write(s, None, Some(i as f64 / rec.rate_hz))?;
            }
        }
    }
    writer.finish()
}
