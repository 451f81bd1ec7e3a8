//! The `kagent-evals` command line.

mod documents;
mod extract;
mod match_cmd;
mod output;

use crate::source::{AnySource, SourceError, fixture::FixtureSource};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "kagent-evals",
    version,
    about = "Regression tests for kagent agents: score recorded sessions like agentevals and ADK do",
    propagate_version = true
)]
struct Cli {
    /// Log filter for stderr (e.g. `info`, `kagent_evals=debug`); overrides RUST_LOG.
    #[arg(long, global = true, value_name = "FILTER")]
    log: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Convert a session to an OpenAI-format trajectory, or explain the conversion.
    Extract(extract::ExtractArgs),
    /// Compare two trajectories with agentevals' trajectory match.
    Match(match_cmd::MatchArgs),
}

/// Where sessions are read from.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct SourceArgs {
    /// A JSONL file of ADK events (one session) or a directory of them (one session per file).
    #[arg(long, value_name = "PATH")]
    pub fixture: Option<PathBuf>,
}

impl SourceArgs {
    pub fn build(&self) -> Result<AnySource, SourceError> {
        match &self.fixture {
            Some(path) => Ok(AnySource::Fixture(FixtureSource::open(path)?)),
            None => Err(SourceError::Config(
                "no source given: pass --fixture PATH".into(),
            )),
        }
    }
}

/// The process exit status: 0 all good, 1 a check failed (or input was only
/// partly readable), 2 the command itself could not be done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ok,
    Failed,
    Error,
}

impl From<Status> for ExitCode {
    fn from(status: Status) -> ExitCode {
        ExitCode::from(match status {
            Status::Ok => 0,
            Status::Failed => 1,
            Status::Error => 2,
        })
    }
}

/// A command that could not be done; printed as `error: ...`, exit 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CommandError(pub String);

impl From<SourceError> for CommandError {
    fn from(e: SourceError) -> Self {
        CommandError(e.to_string())
    }
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.log.as_deref());
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return Status::Error.into();
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Extract(args) => extract::run(args).await,
            Command::Match(args) => match_cmd::run(args),
        }
    });
    match result {
        Ok(status) => status.into(),
        Err(e) => {
            eprintln!("error: {e}");
            Status::Error.into()
        }
    }
}

fn init_logging(filter: Option<&str>) {
    use tracing_subscriber::EnvFilter;
    let filter = match filter {
        Some(f) => EnvFilter::new(f),
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn")),
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
