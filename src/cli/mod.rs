//! The `kagent-evals` command line.

mod case_cmd;
mod controller;
mod documents;
mod extract;
mod judge_cmd;
mod match_cmd;
mod output;
mod report_cmd;
mod run_cmd;
mod score;
mod sessions;
mod suite;

use crate::core::suite::bounds;
use crate::core::suite::compile::CompiledSuite;
use crate::core::suite::spec::{ReadLimitsSpec, SourceKind, SuiteSpec};
use crate::pipeline::{Opened, open};
use crate::resolve::{Party, Policy, Refusal, Request, RunnerSettings, resolve};
use crate::secret::{self, Secret};
use crate::source::open::open_source;
use crate::source::{AnySource, SourceError};
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

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
    /// Log lines as text or JSON.
    #[arg(long, global = true, value_enum, default_value = "text")]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Convert a session to an OpenAI-format trajectory, or explain the conversion.
    Extract(extract::ExtractArgs),
    /// Compare two trajectories with agentevals' trajectory match.
    Match(match_cmd::MatchArgs),
    /// Run suites against sessions and report; exit 0 all passed, 1 a case failed, 2 the run could not be done.
    Run(run_cmd::RunArgs),
    /// Score one trajectory with one evaluator.
    Score(score::ScoreArgs),
    /// A run's JSON report as one self-contained HTML page, a failed
    /// trajectory shown beside its reference.
    Report(report_cmd::ReportArgs),
    /// Work with the LLM judge: calibrate it against human labels.
    Judge {
        #[command(subcommand)]
        command: judge_cmd::JudgeCommand,
    },
    /// Work with suite files.
    Suite {
        #[command(subcommand)]
        command: suite::SuiteCommand,
    },
    /// Print the EvalSuite and EvalRun CustomResourceDefinitions.
    Crd,
    /// List sessions: id, user, agent, events, last update.
    Sessions(sessions::SessionsArgs),
    /// Save a session's raw events, secrets redacted, as a regression fixture.
    Capture(sessions::CaptureArgs),
    /// Make golden cases from real sessions.
    Case {
        #[command(subcommand)]
        command: case_cmd::CaseCommand,
    },
    /// Run the Kubernetes operator: schedule EvalSuites, execute EvalRuns.
    Controller(controller::ControllerArgs),
}

/// Which source to read sessions from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SourceChoice {
    Fixture,
    KagentPostgres,
    KagentApi,
    AdkDatabase,
}

impl From<SourceChoice> for SourceKind {
    fn from(choice: SourceChoice) -> Self {
        match choice {
            SourceChoice::Fixture => SourceKind::Fixture,
            SourceChoice::KagentPostgres => SourceKind::KagentPostgres,
            SourceChoice::KagentApi => SourceKind::KagentApi,
            SourceChoice::AdkDatabase => SourceKind::AdkDatabase,
        }
    }
}

/// Where sessions are read from. Given on the command line, these override
/// a suite's `spec.source`; credentials come only from here (flags, the
/// environment or files), never from a suite file, and go only to the
/// endpoints given here.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct SourceArgs {
    /// fixture, kagent-postgres, kagent-api or adk-database; inferred from the other flags (or the suite) when absent.
    #[arg(long, value_enum)]
    pub source: Option<SourceChoice>,
    /// A JSONL file of ADK events (one session) or a directory of them (one session per file).
    #[arg(long, value_name = "PATH")]
    pub fixture: Option<PathBuf>,
    /// Database URL: kagent's PostgreSQL, or an ADK database (sqlite:PATH, or postgres:// with --adk-app). Prefer the environment or a file.
    #[arg(
        long,
        value_name = "URL",
        env = "KAGENT_EVALS_DATABASE_URL",
        hide_env_values = true
    )]
    pub database_url: Option<String>,
    /// A file holding the database URL (a mounted Secret).
    #[arg(long, value_name = "FILE", env = "KAGENT_EVALS_DATABASE_URL_FILE")]
    pub database_url_file: Option<PathBuf>,
    /// The PostgreSQL schema of kagent's tables (default: `kagent`, then `public`).
    #[arg(long, value_name = "SCHEMA", env = "KAGENT_EVALS_DATABASE_SCHEMA", value_parser = sql_schema)]
    pub database_schema: Option<String>,
    /// Base URL of the kagent controller's REST API, e.g. http://localhost:8083.
    #[arg(
        long,
        value_name = "URL",
        env = "KAGENT_EVALS_API_URL",
        hide_env_values = true
    )]
    pub api_url: Option<String>,
    /// The kagent user whose sessions are read (default admin@kagent.dev).
    #[arg(long, value_name = "USER", env = "KAGENT_EVALS_API_USER")]
    pub api_user: Option<String>,
    /// A file holding a bearer token for the kagent API (or set KAGENT_EVALS_API_TOKEN); sent only to --api-url.
    #[arg(long, value_name = "FILE", env = "KAGENT_EVALS_API_TOKEN_FILE")]
    pub api_token_file: Option<PathBuf>,
    /// The ADK app whose sessions are read from an ADK database.
    #[arg(long, value_name = "NAME")]
    pub adk_app: Option<String>,
    /// Seconds before a kagent API request gives up.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub api_timeout: u64,
    /// A database row longer than this is not read, and its session is unreadable (default 16 MiB; over the suite's sessions.limits.rowBytes).
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_row_bytes: Option<u64>,
    /// A row holding more messages, artifacts, parts and JSON values than this is not decoded (default 100000).
    #[arg(long, value_name = "COUNT", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_row_elements: Option<u64>,
    /// A session of more rows than this is not read (default 20000).
    #[arg(long, value_name = "COUNT", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_session_rows: Option<u64>,
    /// A session whose rows hold more bytes than this together is not read (default 64 MiB).
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_session_bytes: Option<u64>,
}

/// A schema name that may go into a query.
fn sql_schema(name: &str) -> Result<String, String> {
    use crate::core::suite::rules::NameKind;
    match NameKind::SqlSchema.allows(name) {
        true => Ok(name.to_string()),
        false => Err(NameKind::SqlSchema.message().to_string()),
    }
}

impl SourceArgs {
    /// The settings the flags and environment give, as `party`'s defaults.
    pub fn defaults(&self, party: Party) -> Result<RunnerSettings, CommandError> {
        let database_url = match (&self.database_url, &self.database_url_file) {
            (Some(url), _) => Some(Secret::new(url.clone())),
            (None, Some(file)) => Some(Secret::from_file(file)?),
            (None, None) => None,
        };
        Ok(RunnerSettings {
            source: self.source.map(SourceKind::from),
            fixture: self.fixture.clone(),
            database_url,
            database_schema: self.database_schema.clone(),
            api_url: self.api_url.clone(),
            api_user: self.api_user.clone(),
            api_token: Secret::from_file_or_env(
                self.api_token_file.as_deref(),
                "KAGENT_EVALS_API_TOKEN",
            )?,
            api_timeout: Duration::from_secs(self.api_timeout),
            adk_app: self.adk_app.clone(),
            read_limits: ReadLimitsSpec {
                row_bytes: self.max_row_bytes,
                row_elements: self.max_row_elements,
                session_rows: self.max_session_rows,
                session_bytes: self.max_session_bytes,
            },
            ..RunnerSettings::new(party)
        })
    }

    /// The source the command line names, for commands without a suite.
    pub fn build(&self) -> Result<AnySource, CommandError> {
        let defaults = self.defaults(Party::CommandLine)?;
        let resolution = resolve(&Request {
            spec: &SuiteSpec::default(),
            agent: None,
            needs_judge: false,
            needs_agent_endpoint: false,
            needs_source: true,
            defaults: &defaults,
            base: Path::new("."),
            cluster: None,
            policy: &Policy::default(),
        })?;
        Ok(open_source(
            &resolution.source.settings,
            resolution.read_limits,
        )?)
    }
}

/// The LLM judge of judged evaluators; these flags override the suite's
/// `judge`, and the key goes only to the URL given with it.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct JudgeArgs {
    /// Base URL of an OpenAI-compatible API, up to /v1.
    #[arg(
        long,
        value_name = "URL",
        env = "KAGENT_EVALS_JUDGE_URL",
        hide_env_values = true
    )]
    judge_url: Option<String>,
    #[arg(long, value_name = "MODEL", env = "KAGENT_EVALS_JUDGE_MODEL")]
    judge_model: Option<String>,
    /// A file holding the judge's API key (or set KAGENT_EVALS_JUDGE_API_KEY); sent only to --judge-url.
    #[arg(long, value_name = "FILE", env = "KAGENT_EVALS_JUDGE_API_KEY_FILE")]
    judge_api_key_file: Option<PathBuf>,
    /// Judge calls in flight at once, over the suite's judge.concurrency (default 4).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(i64::from(bounds::JUDGE_CONCURRENCY.min)..=i64::from(bounds::JUDGE_CONCURRENCY.max)))]
    judge_concurrency: Option<u32>,
}

impl JudgeArgs {
    /// Add the judge flags to `defaults`.
    pub fn add_to(&self, defaults: &mut RunnerSettings) -> Result<(), CommandError> {
        defaults.judge_url = self.judge_url.clone();
        defaults.judge_model = self.judge_model.clone();
        defaults.judge_api_key = Secret::from_file_or_env(
            self.judge_api_key_file.as_deref(),
            "KAGENT_EVALS_JUDGE_API_KEY",
        )?;
        Ok(())
    }

    /// `--judge-concurrency` is refused where it would mean nothing.
    pub fn without_concurrency(&self, because: &str) -> Result<(), CommandError> {
        match self.judge_concurrency {
            Some(_) => Err(CommandError(format!("--judge-concurrency: {because}"))),
            None => Ok(()),
        }
    }

    /// The suite's judge settings with `--judge-concurrency` over them.
    pub fn apply_to(&self, compiled: &mut CompiledSuite) {
        if let Some(concurrency) = self.judge_concurrency {
            compiled.judge.get_or_insert_default().concurrency = Some(concurrency);
        }
    }
}

/// Resolve the source, judge and A2A endpoint of a suite from the flags,
/// environment and suite, print what the flags replaced, and open them.
pub fn open_for_suite(
    spec: &SuiteSpec,
    compiled: &CompiledSuite,
    defaults: &RunnerSettings,
    base: &Path,
) -> Result<Opened, CommandError> {
    let resolution = resolve(&Request {
        spec,
        agent: compiled.agent.as_ref(),
        needs_judge: compiled.uses_judge(),
        needs_agent_endpoint: compiled.probe_cases().next().is_some(),
        needs_source: compiled.reads_recorded_sessions(),
        defaults,
        base,
        cluster: None,
        policy: &Policy::default(),
    })?;
    for note in &resolution.notes {
        output::say(&format!("note: {note}"));
    }
    open(&resolution).map_err(|e| CommandError(e.to_string()))
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

impl From<secret::Unreadable> for CommandError {
    fn from(e: secret::Unreadable) -> Self {
        CommandError(e.to_string())
    }
}

impl From<Refusal> for CommandError {
    fn from(e: Refusal) -> Self {
        CommandError(e.message)
    }
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let default_filter = if matches!(cli.command, Command::Controller(_)) {
        "info"
    } else {
        "warn"
    };
    init_logging(cli.log.as_deref(), default_filter, cli.log_format);
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
            Command::Run(args) => run_cmd::run(args).await,
            Command::Score(args) => score::run(args).await,
            Command::Report(args) => report_cmd::run(args).await,
            Command::Suite { command } => suite::run(command),
            Command::Judge { command } => judge_cmd::run(command).await,
            Command::Crd => suite::print_crds(),
            Command::Sessions(args) => sessions::list(args).await,
            Command::Capture(args) => sessions::capture(args).await,
            Command::Case { command } => case_cmd::run(command).await,
            Command::Controller(args) => controller::run(args).await,
        }
    });
    match result {
        Ok(status) => status.into(),
        // An error may quote a record (a task id, a tool name).
        Err(e) => {
            output::say(&format!("error: {e}"));
            Status::Error.into()
        }
    }
}

fn init_logging(filter: Option<&str>, default: &str, format: LogFormat) {
    use tracing_subscriber::EnvFilter;
    let filter = match filter {
        Some(f) => EnvFilter::new(f),
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default)),
    };
    use std::io::IsTerminal;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}
