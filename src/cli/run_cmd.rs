//! `kagent-evals run`: score suites against sessions and report.

use super::output::{emit, say};
use super::suite::{CriteriaArgs, SelectArgs, read_suites, suite_files};
use super::{CommandError, JudgeArgs, SourceArgs, Status, open_for_suite};
use crate::core::render;
use crate::core::render::terminal::terminal_safe;
use crate::core::suite::compile::{CompiledSuite, compile};
use crate::core::suite::gate::{Baseline, apply_baseline, without_baseline};
use crate::core::suite::loaded::{LoadedSuite, SuiteFormat};
use crate::core::suite::report::{FORMAT_VERSION, Report};
use crate::core::suite::spec::{A2aProtocol, ProbeReadFrom, ProbesSpec, SelectSpec};
use crate::pipeline::{ProbeIds, run_suite};
use crate::resolve::Party;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    Table,
    Json,
    Junit,
    Markdown,
}

#[derive(clap::Args)]
pub struct RunArgs {
    /// EvalSuite manifests (one or more documents a file),
    /// kagent-agentevals suites, ADK EvalSets or `.test.json` files, or
    /// folders of them: one report, and the worst exit code.
    #[arg(required = true, value_name = "FILE|DIR")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    select: SelectArgs,
    #[command(flatten)]
    criteria: CriteriaArgs,
    #[command(flatten)]
    source: SourceArgs,
    #[arg(long, value_enum, default_value = "table")]
    format: ReportFormat,
    /// Write the report here instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Put each scored trajectory (the conversation) and the judges'
    /// reasoning in the JSON report.
    #[arg(long)]
    include_trajectories: bool,
    #[command(flatten)]
    judge: JudgeArgs,
    #[command(flatten)]
    probes: ProbeArgs,
    /// A JSON report of an earlier run of the same suites (`--format
    /// json`), to compare cost, latency, tokens and the pass rate with and
    /// to hold the suites' `gates` against.
    #[arg(long, value_name = "REPORT.json")]
    baseline: Option<PathBuf>,
}

/// Where probe cases send their tasks.
#[derive(clap::Args)]
struct ProbeArgs {
    /// The Agent's A2A endpoint, for probe cases: kagent 0.10 serves it at
    /// http://CONTROLLER:8083/api/a2a/NAMESPACE/NAME/, kagent 1.0 at
    /// http://CONTROLLER:8083/agents/NAMESPACE/NAME (reach it with
    /// `kubectl port-forward`). With an ADK eval file, its cases run as
    /// probes: their user turns are sent and the sessions scored.
    #[arg(long, value_name = "URL", env = "KAGENT_EVALS_A2A_URL")]
    a2a_url: Option<String>,
    /// The A2A version probes speak, 0.3 or 1.0, over the suite's
    /// probes.protocol; by default a kagent 1.0 agentRef's, else what the
    /// Agent's card offers.
    #[arg(long, value_name = "VERSION")]
    a2a_protocol: Option<A2aProtocol>,
    /// Where probe runs' conversations are read, over the suite's
    /// probes.readFrom: `source`, the sessions the Agent recorded (kagent),
    /// or `agent`, the Agent's own A2A 1.0 tasks (an agent that is not
    /// kagent; then a suite of probes needs no source).
    #[arg(long, value_name = "source|agent")]
    probe_read_from: Option<ProbeReadFrom>,
    /// Runs of each case of an ADK eval file sent as probes (ADK's num_runs).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=20))]
    probe_runs: u32,
}

pub async fn run(args: RunArgs) -> Result<Status, CommandError> {
    let select = args.select.spec();
    let mut suites = Vec::new();
    for file in suite_files(&args.files)? {
        for (loaded, compiled) in read_suites(&file, &args.criteria, select.as_ref())? {
            suites.push((file.clone(), loaded, compiled));
        }
    }
    let baselines = args
        .baseline
        .as_deref()
        .map(|file| read_reports(file, "--baseline"))
        .transpose()?;
    let mut defaults = args.source.defaults(Party::CommandLine)?;
    args.judge.add_to(&mut defaults)?;
    defaults.a2a_url = args.probes.a2a_url.clone();
    defaults.a2a_protocol = args.probes.a2a_protocol;
    if args.probes.a2a_url.is_some() {
        for (_, loaded, compiled) in &mut suites {
            if matches!(
                loaded.format,
                SuiteFormat::AdkEvalSet | SuiteFormat::GoldenSet
            ) {
                *compiled = as_probes(loaded, args.probes.probe_runs, select.as_ref())?;
            }
        }
    }
    if let Some(read_from) = args.probes.probe_read_from {
        for (_, _, compiled) in &mut suites {
            if let Some(probes) = &mut compiled.probes {
                probes.read_from = read_from;
            }
        }
    }
    if let Some(select) = &select {
        suites = selected(suites, select)?;
    }
    for (_, _, compiled) in &mut suites {
        args.judge.apply_to(compiled);
    }
    let now = jiff::Timestamp::now();
    let mut reports = Vec::new();
    for (file, loaded, compiled) in &suites {
        for warning in compiled.warnings() {
            say(&format!("warning: {warning}"));
        }
        // kagent-agentevals reads its fixture paths from the working
        // directory; an EvalSuite's are relative to its file.
        let base = match loaded.format {
            SuiteFormat::KagentAgentevals => PathBuf::from("."),
            _ => file.parent().map(PathBuf::from).unwrap_or_default(),
        };
        let opened = open_for_suite(&loaded.spec, compiled, &defaults, &base)?;
        let mut report = run_suite(
            compiled,
            &opened.source,
            &opened.judge,
            opened.agent.as_ref(),
            &ProbeIds::Fresh,
            now,
            args.include_trajectories,
        )
        .await
        .map_err(|e| CommandError(e.to_string()))?;
        report.add_not_run(&loaded.not_run);
        match (&baselines, &args.baseline) {
            (Some(earlier), Some(file)) => {
                let baseline = pick_baseline(earlier, &report.suite, file)?;
                apply_baseline(
                    &mut report,
                    &baseline,
                    &compiled.run_gate,
                    compiled.unmeasured,
                )
                .map_err(|e| CommandError(e.to_string()))?;
            }
            _ if compiled.run_gate.needs_baseline() => without_baseline(
                &mut report,
                &compiled.run_gate,
                "no baseline was given (pass --baseline REPORT.json)",
                compiled.unmeasured,
            ),
            _ => {}
        }
        reports.push(report);
    }
    emit(args.output.as_deref(), &render_all(&reports, args.format))?;
    Ok(worst(&reports))
}

/// An ADK eval file's cases as probes: each case's user turns sent `runs`
/// times, as ADK's evaluation runs an agent on its eval set.
fn as_probes(
    loaded: &mut LoadedSuite,
    runs: u32,
    select: Option<&SelectSpec>,
) -> Result<CompiledSuite, CommandError> {
    for case in &mut loaded.spec.cases {
        if let Some(probe) = &mut case.probe {
            probe.runs = runs;
        }
    }
    let total = loaded
        .spec
        .cases
        .iter()
        .filter_map(|c| c.probe.as_ref())
        .map(|p| p.runs)
        .sum();
    loaded.spec.probes = Some(ProbesSpec {
        enabled: true,
        max_runs: total,
        concurrency: 1,
        protocol: None,
        read_from: ProbeReadFrom::default(),
    });
    let mut compiled = compile(&loaded.name, &loaded.spec, "", "default")
        .map_err(|e| CommandError(e.to_string()))?;
    if let Some(select) = select {
        compiled
            .narrow(select)
            .map_err(|e| CommandError(e.to_string()))?;
    }
    Ok(compiled)
}

/// The suites the command line's selection left a case in, each other
/// named on stderr; none at all is an error, never a green run of zero
/// cases.
fn selected(
    suites: Vec<(PathBuf, LoadedSuite, CompiledSuite)>,
    select: &SelectSpec,
) -> Result<Vec<(PathBuf, LoadedSuite, CompiledSuite)>, CommandError> {
    let mut kept = Vec::new();
    let mut why_not = Vec::new();
    for (file, loaded, compiled) in suites {
        match &compiled.selection {
            Some(selection) if compiled.cases.is_empty() => {
                eprintln!(
                    "note: suite {}: {}",
                    compiled.name,
                    selection.nothing_selected()
                );
                why_not.push(format!("{} ({})", compiled.name, file.display()));
            }
            _ => kept.push((file, loaded, compiled)),
        }
    }
    if kept.is_empty() {
        return Err(CommandError(format!(
            "no case selected by {} in {}",
            select.describe(),
            why_not.join(", ")
        )));
    }
    Ok(kept)
}

pub fn render_all(reports: &[Report], format: ReportFormat) -> String {
    match (format, reports) {
        (ReportFormat::Json, [one]) => render::json(one),
        (ReportFormat::Json, many) => {
            let mut text = serde_json::to_string_pretty(many).unwrap_or_default();
            text.push('\n');
            text
        }
        (ReportFormat::Junit, many) => render::junit(many),
        // Text for a terminal or a pull request: what a record put in a
        // note or a reason is shown, never steering either.
        (ReportFormat::Table, many) => many
            .iter()
            .map(|r| terminal_safe(&render::table(r)).into_owned())
            .collect::<Vec<_>>()
            .join("\n"),
        (ReportFormat::Markdown, many) => many
            .iter()
            .map(|r| terminal_safe(&render::markdown(r)).into_owned())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

fn worst(reports: &[Report]) -> Status {
    match reports.iter().map(Report::exit_code).max().unwrap_or(0) {
        0 => Status::Ok,
        1 => Status::Failed,
        _ => Status::Error,
    }
}

/// The reports of a JSON report file (`flag` names where it was given):
/// one report, or a list of them; a file that does not parse, or that a
/// newer kagent-evals wrote, is refused.
pub(super) fn read_reports(file: &Path, flag: &str) -> Result<Vec<Report>, CommandError> {
    let shown = format!("{flag} {}", file.display());
    let text = std::fs::read_to_string(file).map_err(|e| CommandError(format!("{shown}: {e}")))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| CommandError(format!("{shown}: not JSON: {e}")))?;
    let documents = match value {
        serde_json::Value::Array(many) => many,
        one => vec![one],
    };
    documents
        .into_iter()
        .enumerate()
        .map(|(i, document)| {
            let version = document["formatVersion"].as_u64().unwrap_or(1);
            if version > u64::from(FORMAT_VERSION) {
                return Err(CommandError(format!(
                    "{shown}: report {i} is of format version {version}, newer than the {FORMAT_VERSION} this kagent-evals reads"
                )));
            }
            serde_json::from_value(document).map_err(|e| {
                CommandError(format!("{shown}: report {i} is not a kagent-evals JSON report: {e}"))
            })
        })
        .collect()
}

/// The run of `suite` in a baseline file.
fn pick_baseline(reports: &[Report], suite: &str, file: &Path) -> Result<Baseline, CommandError> {
    let found = reports.iter().find(|r| r.suite == suite).ok_or_else(|| {
        let held: Vec<&str> = reports.iter().map(|r| r.suite.as_str()).collect();
        CommandError(format!(
            "--baseline {}: no run of suite {suite} (it holds {})",
            file.display(),
            held.join(", ")
        ))
    })?;
    Ok(Baseline::of_report(found, file.display().to_string()))
}
