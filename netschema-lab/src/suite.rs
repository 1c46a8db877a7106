//! Running several techniques over one recording, with progress on stderr.

use std::fmt;
use std::io::{IsTerminal as _, Write as _};
use std::time::Instant;

use super::{Error, RunConfig, Setup, Snapshot, Technique, TechniqueResult, run};

/// A technique that failed for another reason than not supporting the schema.
#[derive(Debug)]
pub struct TechniqueError {
    /// The technique's name.
    pub technique: String,
    /// What went wrong.
    pub error: Error,
}

impl fmt::Display for TechniqueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed: {}", self.technique, self.error)
    }
}

impl std::error::Error for TechniqueError {}

/// Runs each technique over `snapshots` (at `ticks`, see [`run`]) and returns their results in
/// order, leaving out those that do not support the schema ([`Error::Unsupported`]).
///
/// Progress goes to stderr, labelled `label`: a frame counter redrawn in place on a terminal,
/// one line per technique otherwise.
pub fn run_all(
    label: &str,
    techniques: &[Box<dyn Technique>],
    setup: &Setup<'_>,
    snapshots: &[Snapshot],
    ticks: Option<&[f64]>,
    config: &RunConfig,
) -> Result<Vec<TechniqueResult>, TechniqueError> {
    let frames = snapshots.len();
    let step = (frames / 20).max(1);
    let terminal = std::io::stderr().is_terminal();
    let mut results = Vec::new();
    for technique in techniques {
        let name = technique.name();
        let t = Instant::now();
        let outcome = run(technique.as_ref(), setup, snapshots, ticks, config, |done| {
            if terminal && (done % step == 0 || done == frames) {
                eprint!("\r{label}: {name:<10} {done:>6}/{frames}");
                let _ = std::io::stderr().flush();
            }
        });
        match outcome {
            Ok(result) => {
                if !terminal {
                    eprintln!(
                        "{label}: {name:<10} {frames} frames in {:.1} s",
                        t.elapsed().as_secs_f64()
                    );
                }
                results.push(result);
            }
            Err(Error::Unsupported(_)) => {}
            Err(error) => {
                if terminal {
                    eprintln!();
                }
                return Err(TechniqueError { technique: name.to_string(), error });
            }
        }
    }
    if terminal {
        eprint!("\r{:60}\r", "");
    }
    Ok(results)
}
