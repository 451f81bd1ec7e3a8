//! The `kagent-evals` command line.

mod documents;
mod extract;
mod match_cmd;
mod output;
mod run;
mod score;
mod suite;

use crate::core::suite::spec::{SourceKind, SourceSpec};
use crate::source::{AnySource, SourceError, fixture::FixtureSource};
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
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
    /// Run suites against sessions and report; exit 0 all passed, 1 a case failed, 2 the run could not be done.
    Run(run::RunArgs),
    /// Score one trajectory with one evaluator.
    Score(score::ScoreArgs),
    /// Work with suite files.
    Suite {
        #[command(subcommand)]
        command: suite::SuiteCommand,
    },
    /// Print the EvalSuite and EvalRun CustomResourceDefinitions.
    Crd,
}

/// Where sessions are read from.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct SourceArgs {
    /// A JSONL file of ADK events (one session) or a directory of them (one session per file).
    #[arg(long, value_name = "PATH")]
    pub fixture: Option<PathBuf>,
}

impl SourceArgs {
    /// The source the command line names.
    pub fn build(&self) -> Result<AnySource, SourceError> {
        self.build_for(None, Path::new("."))
    }

    /// The command line's source, else the suite's (`base` is the suite
    /// file's folder, which fixture paths are relative to).
    pub fn build_for(
        &self,
        suite_source: Option<&SourceSpec>,
        base: &Path,
    ) -> Result<AnySource, SourceError> {
        if let Some(path) = &self.fixture {
            return Ok(AnySource::Fixture(FixtureSource::open(path)?));
        }
        match suite_source {
            Some(SourceSpec {
                kind: SourceKind::Fixture,
                fixture: Some(fixture),
                ..
            }) => Ok(AnySource::Fixture(FixtureSource::open(
                base.join(&fixture.path),
            )?)),
            Some(other) => Err(SourceError::Config(format!(
                "the suite's {:?} source needs its connection flags",
                other.kind
            ))),
            None => Err(SourceError::Config(
                "no source: pass --fixture PATH, or set the suite's spec.source".into(),
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
            Command::Run(args) => run::run(args).await,
            Command::Score(args) => score::run(args),
            Command::Suite { command } => suite::run(command),
            Command::Crd => suite::print_crds(),
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
