//! `kagent-evals run`: score suites against sessions and report.

use super::output::emit;
use super::suite::{CriteriaArgs, read_suites};
use super::{CommandError, JudgeArgs, SourceArgs, Status, open_for_suite};
use crate::core::render;
use crate::core::suite::compile::{CompiledSuite, compile};
use crate::core::suite::loaded::{LoadedSuite, SuiteFormat};
use crate::core::suite::report::Report;
use crate::core::suite::spec::ProbesSpec;
use crate::pipeline::run_suite;
use crate::resolve::Party;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    Table,
    Json,
    Junit,
    Markdown,
}

#[derive(clap::Args)]
pub struct RunArgs {
    /// An EvalSuite manifest (one or more documents), a kagent-agentevals
    /// suite, an ADK EvalSet or an ADK `.test.json` file.
    file: PathBuf,
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
}

/// Where probe cases send their tasks.
#[derive(clap::Args)]
struct ProbeArgs {
    /// The Agent's A2A endpoint, for probe cases: kagent serves it at
    /// http://CONTROLLER:8083/api/a2a/NAMESPACE/NAME/ (reach it with
    /// `kubectl port-forward`). With an ADK eval file, its cases run as
    /// probes: their user turns are sent and the sessions scored.
    #[arg(long, value_name = "URL", env = "KAGENT_EVALS_A2A_URL")]
    a2a_url: Option<String>,
    /// Runs of each case of an ADK eval file sent as probes (ADK's num_runs).
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=20))]
    probe_runs: u32,
}

pub async fn run(args: RunArgs) -> Result<Status, CommandError> {
    let mut suites = read_suites(&args.file, &args.criteria)?;
    let mut defaults = args.source.defaults(Party::CommandLine)?;
    args.judge.add_to(&mut defaults)?;
    defaults.a2a_url = args.probes.a2a_url.clone();
    if args.probes.a2a_url.is_some() {
        for (loaded, compiled) in &mut suites {
            if loaded.format == SuiteFormat::AdkEvalSet {
                *compiled = as_probes(loaded, args.probes.probe_runs)?;
            }
        }
    }
    let now = jiff::Timestamp::now();
    let mut reports = Vec::new();
    for (loaded, compiled) in &suites {
        for warning in compiled.warnings() {
            eprintln!("warning: {warning}");
        }
        // kagent-agentevals reads its fixture paths from the working
        // directory; an EvalSuite's are relative to its file.
        let base = match loaded.format {
            SuiteFormat::KagentAgentevals => PathBuf::from("."),
            _ => args.file.parent().map(PathBuf::from).unwrap_or_default(),
        };
        let opened = open_for_suite(&loaded.spec, compiled, &defaults, &base)?;
        let mut report = run_suite(
            compiled,
            &opened.source,
            &opened.judge,
            opened.agent.as_ref(),
            now,
            args.include_trajectories,
        )
        .await
        .map_err(|e| CommandError(e.to_string()))?;
        report.add_not_run(&loaded.not_run);
        reports.push(report);
    }
    emit(args.output.as_deref(), &render_all(&reports, args.format))?;
    Ok(worst(&reports))
}

/// An ADK eval file's cases as probes: each case's user turns sent `runs`
/// times, as ADK's evaluation runs an agent on its eval set.
fn as_probes(loaded: &mut LoadedSuite, runs: u32) -> Result<CompiledSuite, CommandError> {
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
    });
    compile(&loaded.name, &loaded.spec, "", "default").map_err(|e| CommandError(e.to_string()))
}

fn render_all(reports: &[Report], format: ReportFormat) -> String {
    match (format, reports) {
        (ReportFormat::Json, [one]) => render::json(one),
        (ReportFormat::Json, many) => {
            let mut text = serde_json::to_string_pretty(many).unwrap_or_default();
            text.push('\n');
            text
        }
        (ReportFormat::Junit, many) => render::junit(many),
        (ReportFormat::Table, many) => many
            .iter()
            .map(render::table)
            .collect::<Vec<_>>()
            .join("\n"),
        (ReportFormat::Markdown, many) => many
            .iter()
            .map(render::markdown)
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
