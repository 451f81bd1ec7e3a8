//! `kagent-evals case from-session`: a golden case made from a real
//! session, or from the failing (or passing) sessions of a report.

use super::extract::fetch_one;
use super::output::{emit, say};
use super::run_cmd::read_reports;
use super::{CommandError, SourceArgs, Status};
use crate::core::formats::append::append_case;
use crate::core::redact;
use crate::core::score::trajectory_match::MatchMode;
use crate::core::suite::harvest::{HarvestOptions, harvest};
use crate::source::SessionSource;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[derive(clap::Subcommand)]
pub enum CaseCommand {
    /// Make a golden case from a real session: its first user message (or
    /// every user turn, with --probe), its tool calls in order as the
    /// reference trajectory, its final answer, and budgets at what it used
    /// times --headroom. Secrets are masked as `capture` masks them. Prints
    /// the case, or adds it to --suite FILE; says on stderr what to review.
    FromSession(FromSessionArgs),
}

#[derive(clap::Args)]
pub struct FromSessionArgs {
    /// The session id (leave it out with --from-report).
    #[arg(
        required_unless_present = "from_report",
        conflicts_with = "from_report"
    )]
    session: Option<String>,
    #[command(flatten)]
    source: SourceArgs,
    /// The session's user, where one id belongs to several users.
    #[arg(long)]
    user: Option<String>,
    /// The case's name (default: `harvested-` and the session id's start;
    /// with --from-report, the report's case and the session id's start).
    #[arg(long, conflicts_with = "from_report")]
    name: Option<String>,
    /// Add the case to this EvalSuite file, keeping its comments and
    /// layout, instead of printing it. The file is left unchanged when the
    /// suite would not load with the case.
    #[arg(long, value_name = "FILE")]
    suite: Option<PathBuf>,
    /// A probe case: the session's user turns sent to the Agent, instead
    /// of a case that scores recent sessions asking what this one asked.
    #[arg(long)]
    probe: bool,
    /// How trajectories are compared with the reference: strict,
    /// unordered, subset, superset or inOrder.
    #[arg(long, default_value = "strict", value_parser = parse_mode)]
    mode: MatchMode,
    /// Budgets are what the session used times this.
    #[arg(long, default_value_t = 1.5, value_parser = parse_headroom)]
    headroom: f64,
    /// Make a case of each failing session of this JSON report (`run
    /// --format json`): a reviewed production failure becomes a
    /// regression case.
    #[arg(long, value_name = "REPORT.json")]
    from_report: Option<PathBuf>,
    /// With --from-report, the passing sessions instead.
    #[arg(long, requires = "from_report")]
    passing: bool,
}

fn parse_mode(text: &str) -> Result<MatchMode, String> {
    serde_json::from_value(serde_json::Value::String(text.into()))
        .map_err(|_| format!("`{text}` is not strict, unordered, subset, superset or inOrder"))
}

fn parse_headroom(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(h) if h.is_finite() && h >= 1.0 => Ok(h),
        _ => Err(format!("`{text}` is not a number of at least 1")),
    }
}

/// One session to make a case of, and the case's name.
struct Wanted {
    id: String,
    user: Option<String>,
    name: String,
}

fn short(id: &str) -> String {
    let cleaned: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .take(8)
        .collect();
    cleaned.trim_matches('-').to_string()
}

pub async fn run(command: CaseCommand) -> Result<Status, CommandError> {
    let CaseCommand::FromSession(args) = command;
    let wanted = match (&args.session, &args.from_report) {
        (Some(id), _) => vec![Wanted {
            id: id.clone(),
            user: args.user.clone(),
            name: args
                .name
                .clone()
                .unwrap_or_else(|| format!("harvested-{}", short(id))),
        }],
        (None, Some(report)) => from_report(report, args.passing)?,
        (None, None) => unreachable!("clap requires a session or a report"),
    };
    let mut source = args.source.build()?;
    source.keep_event_json();
    let mut documents = Vec::new();
    for wanted in &wanted {
        let raw = fetch_one(&source, &wanted.id, wanted.user.as_deref()).await?;
        // Secrets of the session as stored (a kagent 1.0 Session's rows
        // too), masked wherever they recur in the case.
        let (stored, _) = raw.stored(None).map_err(CommandError)?;
        let secrets = redact::Secrets::of(&stored);
        let session = raw.normalise();
        let harvested = harvest(
            &session,
            &HarvestOptions {
                name: wanted.name.clone(),
                probe: args.probe,
                mode: args.mode,
                headroom: args.headroom,
            },
        )
        .map_err(|e| CommandError(format!("session {}: {e}", wanted.id)))?;
        let mut case =
            serde_json::to_value(&harvested.case).map_err(|e| CommandError(e.to_string()))?;
        let redaction = redact::redact_with(&mut case, &secrets);
        let yaml = serde_saphyr::to_string(&vec![case]).map_err(|e| CommandError(e.to_string()))?;
        for warning in &harvested.warnings {
            say(&format!("warning: {}: {warning}", wanted.name));
        }
        if redaction.count > 0 {
            eprintln!(
                "redacted {} secret(s) in {}, at {}",
                redaction.count,
                wanted.name,
                redaction.paths.join(", ")
            );
        }
        for item in &harvested.review {
            say(&format!("review: {}: {item}", wanted.name));
        }
        let mut header = format!(
            "# Harvested from session {} ({}). Review before committing:\n",
            wanted.id,
            source.describe()
        );
        for item in harvested.warnings.iter().chain(&harvested.review) {
            header.push_str(&format!("# - {}\n", item.replace('\n', " ")));
        }
        documents.push(format!("{header}{yaml}"));
    }
    match &args.suite {
        Some(file) => add_to_suite(file, &documents),
        None => {
            emit(None, &documents.concat())?;
            Ok(Status::Ok)
        }
    }
}

/// The failing (or passing) sessions of a report, each once.
fn from_report(file: &Path, passing: bool) -> Result<Vec<Wanted>, CommandError> {
    let reports = read_reports(file, "--from-report")?;
    let mut seen = BTreeSet::new();
    let mut wanted = Vec::new();
    for report in &reports {
        for case in &report.cases {
            for session in &case.sessions {
                if session.passed != passing
                    || session.error.is_some()
                    || !seen.insert((session.session_id.clone(), session.user_id.clone()))
                {
                    continue;
                }
                wanted.push(Wanted {
                    id: session.session_id.clone(),
                    user: session.user_id.clone(),
                    name: format!("{}-{}", case.name, short(&session.session_id)),
                });
            }
        }
    }
    if wanted.is_empty() {
        return Err(CommandError(format!(
            "--from-report {}: no {} session to make a case of",
            file.display(),
            if passing { "passing" } else { "failing" }
        )));
    }
    Ok(wanted)
}

/// Each case added to the suite file, which is written only once all of
/// them load with it.
fn add_to_suite(file: &Path, documents: &[String]) -> Result<Status, CommandError> {
    let shown = file.display().to_string();
    let mut text = std::fs::read_to_string(file)
        .map_err(|e| CommandError(format!("cannot read {shown}: {e}")))?;
    for document in documents {
        text = append_case(&shown, &text, document)
            .map_err(|e| CommandError(format!("{e} (the file is left as it was)")))?;
    }
    std::fs::write(file, &text).map_err(|e| CommandError(format!("cannot write {shown}: {e}")))?;
    eprintln!("added {} case(s) to {shown}", documents.len());
    Ok(Status::Ok)
}
