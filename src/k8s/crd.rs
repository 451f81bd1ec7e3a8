//! The `EvalSuite` and `EvalRun` custom resources. Their specs are the
//! core's suite spec; the statuses are what `kubectl`, GitOps tools and
//! alerts read.

use crate::core::efficiency::EfficiencyStats;
use crate::core::suite::bounds::OBJECT_NAME_MAX;
use crate::core::suite::gate::{Comparison, GateReport, Means};
use crate::core::suite::report::Outcome;
use crate::core::suite::rules::{NameKind, Ruled, Validation, attach, name_rule};
use crate::core::suite::spec::{AgentApiVersion, SuiteSpec};
use crate::k8s::vocabulary::{Failure, RunResult};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use kube::{CustomResource, CustomResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A regression suite for a kagent Agent: which sessions to read, what to
/// check, and when.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "evals.kagent.dev",
    version = "v1alpha1",
    kind = "EvalSuite",
    doc = "A regression suite for a kagent Agent: which recorded sessions to read, what to check in them, and when.",
    namespaced,
    status = "EvalSuiteStatus",
    shortname = "evs",
    category = "evals",
    printcolumn = r#"{"name":"Agent","type":"string","jsonPath":".status.agent","description":"namespace/name of the evaluated Agent"}"#,
    printcolumn = r#"{"name":"Schedule","type":"string","jsonPath":".spec.schedule"}"#,
    printcolumn = r#"{"name":"Ready","type":"string","jsonPath":".status.conditions[?(@.type==\"Ready\")].status"}"#,
    printcolumn = r#"{"name":"Reason","type":"string","priority":1,"jsonPath":".status.conditions[?(@.type==\"Ready\")].reason"}"#,
    printcolumn = r#"{"name":"Last Result","type":"string","jsonPath":".status.lastRun.result"}"#,
    printcolumn = r#"{"name":"Pass Rate","type":"number","jsonPath":".status.lastRun.passRate"}"#,
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#
)]
#[schemars(transform = super::cel::rules_as_cel)]
pub struct EvalSuiteSpec {
    #[serde(flatten)]
    pub suite: SuiteSpec,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvalSuiteStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Ready (the spec is valid and the last run could be done),
    /// Reconciling (the first run is pending), Stalled (it cannot proceed,
    /// and why) and LastRunPassed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// The latest schedule slot a run was created for (or skipped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_schedule_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_successful_time: Option<Time>,
    /// The latest slot skipped because it was past the starting deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_missed_time: Option<Time>,
    /// Runs not yet finished.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub active: Vec<RunReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run: Option<LastRun>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<Health>,
    /// The latest finished runs, oldest first; health is computed from
    /// them, and they outlive pruned runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recent_results: Vec<RecentResult>,
    /// Where the latest run read its sessions (no credentials), e.g. the
    /// operator's default source, which changes with the operator's flags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The Agent the suite evaluates, `namespace/name`: its namespace
    /// defaults to the suite's, which `spec.agentRef` does not show.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RecentResult {
    pub name: String,
    pub result: RunResult,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RunReference {
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LastRun {
    pub name: String,
    pub result: RunResult,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_time: Option<Time>,
    /// The cases that failed the run or could not be scored, which Argo CD's
    /// health script names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_cases: Vec<String>,
}

/// How the suite has fared over its recent finished runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    /// Finished runs considered (those still kept).
    pub runs: u32,
    /// Share of them that passed.
    pub pass_rate: f64,
    /// Share of consecutive pairs whose result differs: a flaky suite flips often.
    pub flip_rate: f64,
}

/// One evaluation of a suite: scheduled, or created by hand to run now.
#[derive(CustomResource, Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "evals.kagent.dev",
    version = "v1alpha1",
    kind = "EvalRun",
    doc = "One evaluation of an EvalSuite: created by the suite's schedule, or by hand to run the suite now.",
    namespaced,
    status = "EvalRunStatus",
    shortname = "evr",
    category = "evals",
    printcolumn = r#"{"name":"Suite","type":"string","jsonPath":".spec.suiteRef.name"}"#,
    printcolumn = r#"{"name":"Phase","type":"string","jsonPath":".status.phase"}"#,
    printcolumn = r#"{"name":"Passed","type":"string","jsonPath":".status.summary","description":"cases passed/total"}"#,
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#
)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = super::cel::rules_as_cel)]
// On the spec, not on `suiteRef`: rules set on a field replace those of its
// type, and `SuiteRef` carries the name rule.
#[schemars(extend("x-kubernetes-validations" = [{"rule": "self.suiteRef == oldSelf.suiteRef", "message": "suiteRef cannot change", "fieldPath": ".suiteRef"}]))]
pub struct EvalRunSpec {
    pub suite_ref: SuiteRef,
    #[serde(default)]
    pub trigger: Trigger,
    /// The suite as it was when the run started; the controller fills it in
    /// for runs created without one, and it cannot change afterwards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-validations" = [{"rule": "self == oldSelf", "message": "the suite snapshot of a run cannot change"}]))]
    pub suite: Option<SuiteSpec>,
    /// The suite's generation the snapshot was taken at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-validations" = [{"rule": "self == oldSelf", "message": "the suite generation of a run cannot change"}]))]
    pub suite_generation: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = attach::<Self>)]
pub struct SuiteRef {
    #[schemars(length(min = 1, max = OBJECT_NAME_MAX))]
    pub name: String,
}

impl Ruled for SuiteRef {
    fn rules() -> Vec<Validation> {
        vec![name_rule("name", NameKind::Object)]
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Trigger {
    #[serde(rename = "type", default)]
    pub kind: TriggerType,
    /// The schedule slot this run is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduled_time: Option<Time>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum TriggerType {
    Schedule,
    #[default]
    Manual,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Phase {
    Pending,
    Running,
    /// Every case passed.
    Succeeded,
    /// A case failed.
    Failed,
    /// The run could not be done (source down, invalid suite, evaluator error).
    Error,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvalRunStatus {
    /// The run's generation the operator last wrote this status for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    /// Why the run ended in Error, or what it is waiting for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Why the run could not be done, when it ended in Error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sessions_evaluated: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cases: Option<CaseCounts>,
    /// Cases passed over cases, e.g. `2/3`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_rate: Option<f64>,
    /// Per-case results, failing cases first; bounded in size.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<CaseResult>,
    /// Results were left out to bound the status; the full report is in the
    /// controller's log (target `kagent_evals::report`) and, when the suite
    /// opts in, in the `<run>-report` ConfigMap.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub results_truncated: bool,
    /// The Agent as it was evaluated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentSnapshot>,
    /// kagent 1.0: the sessions scored, grouped by the Agent revision they
    /// ran on (`unknown` where the revision is no longer recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revisions: Vec<RevisionResult>,
    /// Complete, and Passed, for `kubectl wait --for=condition=Passed`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// Times execution started; more than one means it was resumed after
    /// the controller stopped mid-run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
    /// The run's LLM judge calls and tokens, when it has judged evaluators.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<crate::core::judge::JudgeUsage>,
    /// Cost, latency and tokens over the run's sessions: mean, p50, p95,
    /// and how many sessions did not measure each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<EfficiencyStats>,
    /// The run beside its baseline run: the pass rate and mean cost,
    /// latency and tokens of each, the change, the gate's limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Comparison>,
    /// How the run fared against its gate: cases that failed without
    /// blocking it, breaches, gates not evaluated or skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<GateReport>,
    /// The A2A version the run's probes spoke, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_protocol: Option<String>,
    /// The cases the suite's `select` chose, and those it left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selection: Option<String>,
    /// Where the run read its sessions, and whose source it was (no credentials).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The replica executing the run and its latest sign of life; another
    /// replica resumes the run only once that sign is stale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executor: Option<Executor>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Executor {
    pub identity: String,
    pub heartbeat_time: Time,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CaseCounts {
    pub total: u32,
    pub passed: u32,
    pub failed: u32,
    pub no_sessions: u32,
    pub errors: u32,
    /// Sessions with events that could not be read.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unreadable_sessions: u32,
    /// Sessions whose last turn failed (a failed task), and how many of
    /// them were scored anyway (`failedTasks: score`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed_tasks: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed_tasks_scored: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CaseResult {
    pub name: String,
    pub outcome: Outcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_rate: Option<f64>,
    pub sessions: u32,
    pub failed_sessions: u32,
    /// The first failure, briefly: evaluator, key and diagnostic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// A probe case's runs: how many passed, pass@k and pass^k.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<crate::core::suite::report::ProbeSummary>,
    /// Mean cost, latency and tokens over the case's sessions, which a
    /// later run compares with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<Means>,
    /// `false`: its failure does not fail the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocking: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevisionResult {
    pub revision: String,
    /// Sessions scored, over every case.
    pub sessions: u32,
    pub failed_sessions: u32,
}

/// The Agent as a run saw it: configuration only, never a prompt's text
/// or an environment value.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentSnapshot {
    pub name: String,
    /// Set for a kagent 1.0 Agent (`api.kagent.dev/v1alpha3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<AgentApiVersion>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    /// sha256 of the Agent's spec (for kagent 1.0, with its template's and
    /// harness's), to tell a changed agent from a flaky one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// kagent 1.0: the generation the Agent's controller last saw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// kagent 1.0: the revision new Sessions start on
    /// (`status.latestSuccessfulRevision`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latest_successful_revision: Option<String>,
    /// kagent 1.0: the AgentTemplate, inline or by reference, as resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<TemplateSnapshot>,
    /// kagent 1.0: the Harness, inline or by reference, as resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness: Option<HarnessSnapshot>,
}

/// What of a kagent 1.0 AgentTemplate decides how its Agent behaves.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateSnapshot {
    /// `inline`, or `AgentTemplate NAME`.
    pub from: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_config: Option<String>,
    /// Where the system prompt comes from: `inline (sha256 …)` or the
    /// ConfigMap key it is read from; never its text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Each tool binding, e.g. `mcp RemoteMCPServer/weather: forecast`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
}

/// What kind of harness runs a kagent 1.0 Agent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HarnessSnapshot {
    /// `inline`, or `Harness NAME`.
    pub from: String,
    /// kagent, claude, codex or byo.
    pub kind: String,
}

/// The API version of both kinds, as the API server serves them.
pub const API_VERSION: &str = "evals.kagent.dev/v1alpha1";

/// Both CRDs as YAML documents, as `crds/` holds them.
pub fn crd_yaml() -> Vec<(String, String)> {
    [EvalSuite::crd(), EvalRun::crd()]
        .into_iter()
        .map(|crd| {
            let name = crd.metadata.name.clone().unwrap_or_default();
            let mut value = serde_json::to_value(&crd).expect("CRDs serialise");
            drop_unknown_formats(&mut value);
            let yaml = serde_saphyr::to_string(&value).expect("CRDs serialise");
            (format!("{name}.yaml"), yaml)
        })
        .collect()
}

/// The `format`s the API server knows; schemars writes others (`uint32`)
/// for unsigned integers, which `kubectl apply` warns about. Their bounds
/// are kept as `minimum`.
const KNOWN_FORMATS: &[&str] = &[
    "int32",
    "int64",
    "float",
    "double",
    "byte",
    "binary",
    "date",
    "date-time",
    "password",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "duration",
];

fn drop_unknown_formats(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            if map
                .get("format")
                .and_then(|f| f.as_str())
                .is_some_and(|f| !KNOWN_FORMATS.contains(&f))
            {
                map.remove("format");
            }
            map.values_mut().for_each(drop_unknown_formats);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(drop_unknown_formats),
        _ => {}
    }
}
