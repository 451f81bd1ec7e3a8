//! `kagent-evals report`: a run's JSON report as one self-contained HTML
//! page, from a file `run --format json` wrote or from an EvalRun's full
//! report ConfigMap in the cluster.

use super::output::emit;
use super::run_cmd::{ReportFormat, render_all};
use super::{CommandError, Status};
use crate::core::render::html;
use crate::core::suite::report::Report;
use crate::core::suite::rules::NameKind;
use crate::k8s::api_problem;
use crate::k8s::controller::run_decision::report_config_map;
use k8s_openapi::api::core::v1::ConfigMap;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ReportArgs {
    /// A JSON report (`run --format json`, one suite or several), or
    /// `evalrun/NAME` for an EvalRun's full report ConfigMap (its suite
    /// must set `report.configMap`).
    input: String,
    /// The EvalRun's namespace (default: the kubeconfig's).
    #[arg(short, long)]
    namespace: Option<String>,
    /// Write the page here instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// What to write: the HTML page (default), or another of `run`'s
    /// formats, so that one run's JSON gives every report a CI job keeps.
    #[arg(long, value_enum, default_value = "html")]
    format: PageFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum PageFormat {
    Html,
    Markdown,
    Junit,
    Table,
}

pub async fn run(args: ReportArgs) -> Result<Status, CommandError> {
    let (origin, text) = match args.input.strip_prefix("evalrun/") {
        Some(name) => (
            format!("EvalRun {name}"),
            from_cluster(name, args.namespace.as_deref()).await?,
        ),
        None => (
            args.input.clone(),
            std::fs::read_to_string(&args.input)
                .map_err(|e| CommandError(format!("cannot read {}: {e}", args.input)))?,
        ),
    };
    let reports: Vec<Report> = serde_json::from_str::<Vec<Report>>(&text)
        .or_else(|_| serde_json::from_str::<Report>(&text).map(|r| vec![r]))
        .map_err(|e| CommandError(format!("{origin} is not a kagent-evals JSON report: {e}")))?;
    let text = match args.format {
        // Several suites: one page each, one after another.
        PageFormat::Html => reports.iter().map(html).collect::<Vec<_>>().join("\n"),
        PageFormat::Markdown => render_all(&reports, ReportFormat::Markdown),
        PageFormat::Junit => render_all(&reports, ReportFormat::Junit),
        PageFormat::Table => render_all(&reports, ReportFormat::Table),
    };
    emit(args.output.as_deref(), &text)?;
    Ok(Status::Ok)
}

/// The `report.json` of the EvalRun's full-report ConfigMap, named as the
/// operator names it.
async fn from_cluster(run: &str, namespace: Option<&str>) -> Result<String, CommandError> {
    if !NameKind::Object.allows(run) {
        return Err(CommandError(format!(
            "evalrun/{run:?}: the run's name {}",
            NameKind::Object.message()
        )));
    }
    if let Some(namespace) = namespace.filter(|n| !NameKind::Namespace.allows(n)) {
        return Err(CommandError(format!(
            "--namespace {namespace:?} {}",
            NameKind::Namespace.message()
        )));
    }
    let client = kube::Client::try_default()
        .await
        .map_err(|e| CommandError(format!("cannot reach the cluster: {}", api_problem(&e))))?;
    let namespace = namespace.map_or_else(|| client.default_namespace().to_string(), String::from);
    let api: kube::Api<ConfigMap> = kube::Api::namespaced(client, &namespace);
    let name = report_config_map(run);
    let found = api
        .get_opt(&name)
        .await
        .map_err(|e| {
            CommandError(format!(
                "cannot read ConfigMap {namespace}/{name}: {}",
                api_problem(&e)
            ))
        })?
        .ok_or_else(|| {
            CommandError(format!(
                "no ConfigMap {namespace}/{name}: the full report is written only for suites with report.configMap: true"
            ))
        })?;
    found
        .data
        .and_then(|mut d| d.remove("report.json"))
        .ok_or_else(|| CommandError(format!("ConfigMap {namespace}/{name} has no report.json")))
}
