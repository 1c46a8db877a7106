//! `netschema train`: the models netschema learns from a recorded trace, as a prior.

use std::path::PathBuf;

use netschema_lab::netschema::Netschema;
use netschema_runtime::model::ModelPolicy;

use crate::error::{Error, Outcome};
use crate::profile::{load_runtime, read_trace};

/// Replay a recorded trace (the format `netschema profile` reads) through netschema, every
/// packet delivered and acknowledged, and write the models it learned as a prior. A schema
/// that embeds it (`SCHEMA.with_prior(include_bytes!("game.prior"))`) starts every connection
/// and restart from it instead of cold models; learning continues from there. The prior joins
/// the schema hash, and is refused by a schema it was not trained for.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The schema the trace was recorded with.
    #[arg(long, value_name = "FILE.netidl")]
    schema: PathBuf,
    /// The trace: JSON lines, gzip-compressed or not.
    #[arg(long, value_name = "FILE")]
    trace: PathBuf,
    /// Whose visible set to replay (default: the first client the trace names, else
    /// everything).
    #[arg(long, value_name = "NAME")]
    client: Option<String>,
    /// The model policy the prior is for (default: the schema's): per-frame, batched or
    /// batched:B:K.
    #[arg(long, value_name = "POLICY", value_parser = netschema_lab::parse_policy)]
    policy: Option<ModelPolicy>,
    /// Where to write the prior.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: PathBuf,
}

pub(crate) fn run(args: &Args) -> Result<Outcome, Error> {
    let runtime = load_runtime(&args.schema)?;
    let trace = read_trace(&args.trace, &runtime)?;
    let clients = trace.clients();
    if let Some(c) = args.client.as_ref().filter(|c| !clients.contains(c)) {
        return Err(Error::Invalid(format!("client `{c}` is not in the trace")));
    }
    let snapshots = trace.views(args.client.as_deref().or(clients.first().map(String::as_str)));
    if snapshots.is_empty() {
        return Err(Error::Invalid(format!("{}: the trace has no frames", args.trace.display())));
    }
    let engine = Netschema { policy: args.policy, ..Netschema::default() };
    let schema = engine.schema_for(runtime.schema).map_err(|e| Error::Invalid(e.to_string()))?;
    let prior = netschema_lab::netschema::train(schema, &snapshots)
        .map_err(|e| Error::Invalid(format!("training failed: {e}")))?;
    std::fs::write(&args.output, &prior)
        .map_err(|source| Error::Write { path: args.output.clone(), source })?;
    eprintln!(
        "wrote {} ({} bytes: the models learned over {} frames, for schema hash {:#018x}, \
         models {})",
        args.output.display(),
        prior.len(),
        snapshots.len(),
        schema.hash,
        schema.policy
    );
    Ok(Outcome::Clean)
}
