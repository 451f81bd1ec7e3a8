//! The suite as users write it: the `spec` of an `EvalSuite`.
//!
//! These types are the wire format, shared by the command line and the
//! Kubernetes CRDs (whose schema is generated from them). Checks a schema
//! cannot express happen when a suite is compiled ([`super::compile`]); the
//! CEL rules here repeat the type-specific ones so the API server refuses a
//! bad suite at `kubectl apply`.

use crate::core::score::args::ArgsMode;
use crate::core::score::trajectory_match::{MatchMode, Matching};
use crate::core::task::RecordChoice;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const API_VERSION: &str = "evals.kagent.dev/v1alpha1";
pub const GROUP: &str = "evals.kagent.dev";
pub const VERSION: &str = "v1alpha1";

/// A JSON object of any shape.
fn any_object(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
}

fn int_or_string(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"x-kubernetes-int-or-string": true})
}

/// Reference messages: OpenAI-format, each with a role.
fn messages(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "array",
        "items": {
            "type": "object",
            "required": ["role"],
            "properties": {"role": {"type": "string"}},
            "x-kubernetes-preserve-unknown-fields": true
        }
    })
}

fn default_true() -> bool {
    true
}

fn one() -> f64 {
    1.0
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SuiteSpec {
    /// The kagent Agent whose sessions are evaluated; optional for file runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_ref: Option<AgentRefSpec>,
    /// Where sessions come from; the operator's default source when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceSpec>,
    /// Which recent sessions cases without a `sessionId` score.
    #[serde(default, skip_serializing_if = "SessionSelection::is_default")]
    pub sessions: SessionSelection,
    /// Cron schedule (5 fields, or @hourly, @daily, ...); no schedule means runs happen only when an EvalRun is created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = crate::core::schedule::cron_pattern()))]
    pub schedule: Option<String>,
    /// IANA time zone the schedule is read in (default UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    /// Stop scheduling new runs; runs already started finish.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub suspend: bool,
    #[serde(default, skip_serializing_if = "ConcurrencyPolicy::is_default")]
    pub concurrency_policy: ConcurrencyPolicy,
    /// A scheduled run that cannot start within this many seconds of its time is skipped and recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub starting_deadline_seconds: Option<i64>,
    /// Succeeded runs to keep (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub successful_runs_history_limit: Option<u32>,
    /// Failed and errored runs to keep (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub failed_runs_history_limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Defaults::is_default")]
    pub defaults: Defaults,
    /// Where the full report goes beyond the run's status (an opt-in: it
    /// holds the conversations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<ReportSpec>,
    /// The endpoint of judged evaluators (trajectoryJudge, outcomeJudge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeSpec>,
    /// A session with an event that could not be read: `fail` (the default)
    /// reports it and does not score it; `skip` scores what was read and
    /// still reports what was skipped.
    #[serde(default, skip_serializing_if = "UnreadableEvents::is_default")]
    pub unreadable_events: UnreadableEvents,
    /// Opt-in to probes: cases that send golden tasks to the live Agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probes: Option<ProbesSpec>,
    #[schemars(length(min = 1, max = crate::core::suite::compile::MAX_CASES))]
    pub cases: Vec<Case>,
}

/// Probes act: they send tasks to the Agent as deployed, which may call its
/// tools. A suite runs them only when it says so here, within its limits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbesSpec {
    /// Send the probe cases' tasks to the Agent (default false).
    #[serde(default)]
    pub enabled: bool,
    /// At most this many probe runs (cases times runs) in one EvalRun
    /// (default 10).
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 100))]
    pub max_runs: u32,
    /// Probe runs in flight at once (default 1).
    #[serde(default = "one_u32")]
    #[schemars(range(min = 1, max = 10))]
    pub concurrency: u32,
}

fn ten() -> u32 {
    10
}

fn one_u32() -> u32 {
    1
}

/// A golden task sent to the Agent over A2A, `runs` times, each in a new
/// conversation whose session is then scored by the case's evaluators.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-kubernetes-validations" = [
    {"rule": "has(self.input) != has(self.conversation)", "message": "a probe has exactly one of input and conversation"}
]))]
pub struct ProbeSpec {
    /// One user message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// User turns, sent in order, each after the Agent finished the last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 20))]
    pub conversation: Vec<String>,
    /// How many times the task is sent, each in a fresh conversation (k).
    #[serde(default = "one_u32")]
    #[schemars(range(min = 1, max = 20))]
    pub runs: u32,
    /// Seconds one run may take, every turn included (default 120).
    #[serde(default = "probe_timeout")]
    #[schemars(range(min = 1, max = 3600))]
    pub timeout_seconds: u32,
    /// The user the probe acts as (`X-User-Id`), default `kagent-evals-probe`:
    /// a dedicated identity, never the operator's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    /// What to answer when the Agent asks to approve a tool call: `fail`
    /// (the default: the run fails), `approve` or `reject`.
    #[serde(default, skip_serializing_if = "Approvals::is_default")]
    pub approvals: Approvals,
}

/// Seconds one probe run may take unless its case says otherwise.
pub const DEFAULT_PROBE_TIMEOUT_SECONDS: u32 = 120;

fn probe_timeout() -> u32 {
    DEFAULT_PROBE_TIMEOUT_SECONDS
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Approvals {
    #[default]
    Fail,
    Approve,
    Reject,
}

impl Approvals {
    fn is_default(&self) -> bool {
        *self == Approvals::Fail
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportSpec {
    /// Write the full report, trajectories included, to a ConfigMap
    /// `<run>-report` in the suite's namespace, owned by the run. Whoever
    /// may read ConfigMaps there may read the conversations.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub config_map: bool,
}

/// What a run does with a session holding events that cannot be read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum UnreadableEvents {
    /// Report the session and do not score it: a gate never passes on
    /// data it did not see.
    #[default]
    Fail,
    /// Score what could be read; the report still lists what was skipped.
    Skip,
}

impl UnreadableEvents {
    fn is_default(&self) -> bool {
        *self == UnreadableEvents::default()
    }
}

/// How concurrent runs of one suite are treated, as for a CronJob.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ConcurrencyPolicy {
    /// Start the new run alongside the running one.
    Allow,
    /// Skip the new run while one is running (the default: overlapping
    /// nightly regressions are never wanted).
    #[default]
    Forbid,
    /// Stop the running run and start the new one.
    Replace,
}

impl ConcurrencyPolicy {
    fn is_default(&self) -> bool {
        *self == ConcurrencyPolicy::default()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionSelection {
    /// Only sessions updated within this long before the run, e.g. `24h`, `7d`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// At most this many sessions, most recent first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    /// Also score sessions where another agent called this one as a tool.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub include_sub_agent_sessions: bool,
    /// Read sessions from ADK's events or kagent's A2A task records: `auto`
    /// (the default) reads the tasks of a session without events, as an
    /// agent on kagent's LangGraph, CrewAI or OpenAI runtime has.
    #[serde(default, skip_serializing_if = "is_auto")]
    pub record: RecordChoice,
}

fn is_auto(record: &RecordChoice) -> bool {
    *record == RecordChoice::Auto
}

impl SessionSelection {
    fn is_default(&self) -> bool {
        *self == SessionSelection::default()
    }
}

/// Defaults for every case and evaluator of the suite.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Defaults {
    /// Tool-argument matching of trajectoryMatch evaluators (default exact).
    #[serde(default)]
    pub args_mode: ArgsMode,
    /// Drop the runtime's own `adk_*` tools from trajectories (default true).
    #[serde(default = "default_true")]
    pub drop_internal_tools: bool,
    /// Further tools to drop from trajectories.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny_tools: Vec<String>,
    /// Keep model reasoning (`thought` parts) in trajectories (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub include_thoughts: bool,
    /// Read an MCP tool result that also carries `structuredContent` as its
    /// text, like one without (default true); false keeps it whole, as
    /// kagent-agentevals does.
    #[serde(default = "default_true", skip_serializing_if = "Clone::clone")]
    pub unwrap_structured_content: bool,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            args_mode: ArgsMode::Exact,
            drop_internal_tools: true,
            deny_tools: Vec::new(),
            include_thoughts: false,
            unwrap_structured_content: true,
        }
    }
}

impl Defaults {
    fn is_default(&self) -> bool {
        *self == Defaults::default()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-kubernetes-validations" = [
    {"rule": "!(has(self.sessionId) && has(self.match))", "message": "a case selects sessions by sessionId or by match, not both"}
]))]
pub struct Case {
    #[schemars(length(min = 1))]
    pub name: String,
    /// Score only this session (a JSONL fixture stands in for any id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Score the selected sessions whose first user message matches.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub session_match: Option<SessionMatch>,
    /// Score only this invocation (user turn) of each session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation_id: Option<String>,
    #[schemars(length(min = 1, max = crate::core::suite::compile::MAX_EVALUATORS))]
    pub evaluators: Vec<EvaluatorSpec>,
    /// Share of scored sessions that must pass (default 1.0).
    #[serde(default = "one")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_pass_rate: f64,
    /// A case that matched no session passes instead of failing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_no_sessions: bool,
    /// Override the suite's `defaults.dropInternalTools` for this case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_internal_tools: Option<bool>,
    /// Tools dropped in this case, added to the suite's `defaults.denyTools`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny_tools: Vec<String>,
    /// Send this task to the Agent and score the sessions it makes, instead
    /// of looking at recent traffic (needs `probes.enabled`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeSpec>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-kubernetes-validations" = [
    {"rule": "has(self.contains) != has(self.regex)", "message": "match needs exactly one of contains or regex"}
]))]
pub struct SessionMatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
    /// A Rust regular expression (no look-around).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,
}

/// The evaluator types; each has a field of the same name with its settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum EvaluatorType {
    ToolsUsed,
    TrajectoryMatch,
    ToolTrajectory,
    ResponseMatch,
    ToolSelection,
    ArgumentCorrectness,
    TrajectoryDrift,
    Loops,
    Safety,
    Budget,
    TrajectoryJudge,
    OutcomeJudge,
    AdkJudge,
}

impl EvaluatorType {
    pub const ALL: [EvaluatorType; 13] = [
        EvaluatorType::ToolsUsed,
        EvaluatorType::TrajectoryMatch,
        EvaluatorType::ToolTrajectory,
        EvaluatorType::ResponseMatch,
        EvaluatorType::ToolSelection,
        EvaluatorType::ArgumentCorrectness,
        EvaluatorType::TrajectoryDrift,
        EvaluatorType::Loops,
        EvaluatorType::Safety,
        EvaluatorType::Budget,
        EvaluatorType::TrajectoryJudge,
        EvaluatorType::OutcomeJudge,
        EvaluatorType::AdkJudge,
    ];

    /// Whether an LLM judge gives the verdict.
    pub fn is_judged(self) -> bool {
        matches!(
            self,
            EvaluatorType::TrajectoryJudge | EvaluatorType::OutcomeJudge | EvaluatorType::AdkJudge
        )
    }

    /// The name in YAML, which is also the name of its settings field.
    pub fn field(self) -> &'static str {
        match self {
            EvaluatorType::ToolsUsed => "toolsUsed",
            EvaluatorType::TrajectoryMatch => "trajectoryMatch",
            EvaluatorType::ToolTrajectory => "toolTrajectory",
            EvaluatorType::ResponseMatch => "responseMatch",
            EvaluatorType::ToolSelection => "toolSelection",
            EvaluatorType::ArgumentCorrectness => "argumentCorrectness",
            EvaluatorType::TrajectoryDrift => "trajectoryDrift",
            EvaluatorType::Loops => "loops",
            EvaluatorType::Safety => "safety",
            EvaluatorType::Budget => "budget",
            EvaluatorType::TrajectoryJudge => "trajectoryJudge",
            EvaluatorType::OutcomeJudge => "outcomeJudge",
            EvaluatorType::AdkJudge => "adkJudge",
        }
    }
}

impl std::fmt::Display for EvaluatorType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.field())
    }
}

/// One evaluator: a name, a type, and the settings field that type names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = evaluator_rules)]
pub struct EvaluatorSpec {
    #[schemars(length(min = 1))]
    pub name: String,
    #[serde(rename = "type")]
    pub kind: EvaluatorType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_used: Option<ToolsUsedSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trajectory_match: Option<TrajectoryMatchSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_trajectory: Option<ToolTrajectorySpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_match: Option<ResponseMatchSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_selection: Option<ToolSelectionSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument_correctness: Option<ArgumentCorrectnessSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trajectory_drift: Option<TrajectoryDriftSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loops: Option<LoopsSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety: Option<SafetySpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trajectory_judge: Option<TrajectoryJudgeSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome_judge: Option<OutcomeJudgeSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adk_judge: Option<AdkJudgeSpec>,
}

/// One of google-adk's judged metrics, scored with ADK's arithmetic: per
/// invocation `numSamples` judge answers, a majority per rubric (or per
/// answer), the mean over the session's invocations, and, for a probe's
/// runs, the mean over every invocation of every run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AdkJudgeSpec {
    pub metric: AdkJudgedMetric,
    /// Passing score (ADK has no default).
    #[schemars(range(min = 0.0, max = 1.0))]
    pub threshold: f64,
    /// Judge answers per invocation (ADK's default 5; hallucinations asks once).
    #[serde(default = "five_samples")]
    #[schemars(range(min = 1, max = 9))]
    pub num_samples: u32,
    /// Sampling temperature; the endpoint's default when absent, as in ADK.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 2.0))]
    pub temperature: Option<f64>,
    /// The properties a rubric metric checks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 20))]
    pub rubrics: Vec<RubricSpec>,
    /// Judge the text before the final response with it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub include_intermediate_responses_in_final: bool,
    /// Hallucinations: judge every text the agent wrote, not only the last.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub evaluate_intermediate_nl_responses: bool,
    /// finalResponseMatchV2: the expected final response of each invocation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expected_responses: Vec<String>,
}

fn five_samples() -> u32 {
    5
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum AdkJudgedMetric {
    /// `rubric_based_final_response_quality_v1`
    RubricBasedFinalResponseQualityV1,
    /// `rubric_based_tool_use_quality_v1`
    RubricBasedToolUseQualityV1,
    /// `hallucinations_v1`: is every sentence grounded in what the tools said?
    HallucinationsV1,
    /// `final_response_match_v2`: a judge comparing the response with the expected one.
    FinalResponseMatchV2,
}

impl AdkJudgedMetric {
    /// ADK's metric name, the key of its verdicts.
    pub fn adk_name(self) -> &'static str {
        match self {
            AdkJudgedMetric::RubricBasedFinalResponseQualityV1 => {
                "rubric_based_final_response_quality_v1"
            }
            AdkJudgedMetric::RubricBasedToolUseQualityV1 => "rubric_based_tool_use_quality_v1",
            AdkJudgedMetric::HallucinationsV1 => "hallucinations_v1",
            AdkJudgedMetric::FinalResponseMatchV2 => "final_response_match_v2",
        }
    }

    pub fn uses_rubrics(self) -> bool {
        matches!(
            self,
            AdkJudgedMetric::RubricBasedFinalResponseQualityV1
                | AdkJudgedMetric::RubricBasedToolUseQualityV1
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RubricSpec {
    #[schemars(length(min = 1))]
    pub id: String,
    #[schemars(length(min = 1))]
    pub text: String,
}

impl EvaluatorSpec {
    /// An evaluator of `kind` with the settings of that kind.
    pub fn with_settings(
        name: &str,
        kind: EvaluatorType,
        settings: impl Serialize,
    ) -> Result<Self, String> {
        let settings = serde_json::to_value(settings).map_err(|e| e.to_string())?;
        let mut spec = serde_json::json!({"name": name, "type": kind});
        spec[kind.field()] = settings;
        serde_json::from_value(spec).map_err(|e| format!("{name}: {e}"))
    }
}

/// CEL: the field the type names is set, and no other type's field is.
fn evaluator_rules(schema: &mut Schema) {
    let fields: Vec<&str> = EvaluatorType::ALL.iter().map(|t| t.field()).collect();
    let mut rules: Vec<Value> = fields
        .iter()
        .map(|f| {
            serde_json::json!({
                "rule": format!("self.type != '{f}' || has(self.{f})"),
                "message": format!("an evaluator of type {f} needs its settings in the `{f}` field"),
                "fieldPath": format!(".{f}"),
                "reason": "FieldValueRequired"
            })
        })
        .collect();
    let present = fields
        .iter()
        .map(|f| format!("has(self.{f})"))
        .collect::<Vec<_>>()
        .join(", ");
    rules.push(serde_json::json!({
        "rule": format!("[{present}].filter(x, x).size() <= 1"),
        "message": "an evaluator has the settings field of its own type only"
    }));
    schema.insert("x-kubernetes-validations".into(), Value::Array(rules));
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-kubernetes-validations" = [
    {"rule": "self.mode != 'strict'", "message": "toolsUsed cannot be strict: a list of tool names has no messages", "fieldPath": ".mode"}
]))]
pub struct ToolsUsedSpec {
    /// Tool names; arguments are ignored.
    #[schemars(length(min = 1))]
    pub expected: Vec<String>,
    /// superset (default: every expected tool was called), subset (no other tool was), unordered, or inOrder.
    #[serde(default = "superset")]
    pub mode: MatchMode,
    #[serde(default, skip_serializing_if = "is_greedy")]
    pub matching: Matching,
}

fn superset() -> MatchMode {
    MatchMode::Superset
}

fn is_greedy(m: &Matching) -> bool {
    *m == Matching::Greedy
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TrajectoryMatchSpec {
    /// The reference trajectory: OpenAI-format messages.
    #[schemars(schema_with = "messages")]
    pub reference: Vec<Value>,
    /// strict (default), unordered, subset, superset or inOrder.
    #[serde(default)]
    pub mode: MatchMode,
    /// Defaults to the suite's `defaults.argsMode`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args_mode: Option<ArgsMode>,
    /// Per-tool argument matching.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<ArgsOverride>,
    #[serde(default, skip_serializing_if = "is_greedy")]
    pub matching: Matching,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-kubernetes-validations" = [
    {"rule": "has(self.mode) != has(self.keys)", "message": "an override sets exactly one of mode or keys"}
]))]
pub struct ArgsOverride {
    pub tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ArgsMode>,
    /// Dotted key paths that must agree; others are not compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<String>>,
}

/// Expected tool calls of one invocation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExpectedInvocation {
    #[serde(default)]
    pub tool_uses: Vec<crate::core::score::adk::ToolUse>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolTrajectorySpec {
    /// One entry per invocation (user turn) of the session, in order.
    #[schemars(length(min = 1))]
    pub invocations: Vec<ExpectedInvocation>,
    /// EXACT (default), IN_ORDER or ANY_ORDER; ADK's spellings and 0, 1, 2 are accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "int_or_string")]
    pub match_type: Option<Value>,
    /// Compare tool names only, not arguments (ADK's `ignore_args`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_args: bool,
    /// Passing mean score (default 1.0, as ADK).
    #[serde(default = "one")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub threshold: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-kubernetes-validations" = [
    {"rule": "has(self.reference) != has(self.invocations)", "message": "responseMatch needs exactly one of reference or invocations"}
]))]
pub struct ResponseMatchSpec {
    /// The expected final response of the last invocation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The expected final response of each invocation, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocations: Option<Vec<ExpectedResponse>>,
    /// Passing ROUGE-1 F-measure (default 0.8, as ADK).
    #[serde(default = "eight_tenths")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub threshold: f64,
}

fn eight_tenths() -> f64 {
    0.8
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExpectedResponse {
    pub final_response: String,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum SelectionMetric {
    Precision,
    Recall,
    #[default]
    F1,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolSelectionSpec {
    /// The tools the agent should use.
    #[schemars(length(min = 1))]
    pub expected: Vec<String>,
    /// f1 (default), precision or recall.
    #[serde(default)]
    pub metric: SelectionMetric,
    #[serde(default = "one")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub threshold: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExpectedCallSpec {
    pub name: String,
    #[serde(default)]
    #[schemars(schema_with = "any_object")]
    pub args: serde_json::Map<String, Value>,
    /// The load-bearing keys (dotted paths); all keys of `args` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<String>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArgumentCorrectnessSpec {
    #[schemars(length(min = 1))]
    pub calls: Vec<ExpectedCallSpec>,
    #[serde(default = "one")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub threshold: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TrajectoryDriftSpec {
    /// The expected sequence of tool names.
    pub reference: Vec<String>,
    /// Passing similarity (difflib ratio, default 0.8).
    #[serde(default = "eight_tenths")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub threshold: f64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LoopsSpec {
    /// Calls before each call that a repeat of its tool and arguments is
    /// looked for in (default 3, as the reference harness; 0: all of them).
    #[serde(default = "three")]
    pub window: u32,
    /// Occurrences of one (tool, args) signature, among a call and the window before it, that make a loop (default 2).
    #[serde(default = "two")]
    #[schemars(range(min = 2))]
    pub min_repeats: u32,
}

fn three() -> u32 {
    3
}

fn two() -> u32 {
    2
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-kubernetes-validations" = [
    {"rule": "(has(self.required) && size(self.required) > 0) || (has(self.forbidden) && size(self.forbidden) > 0)", "message": "safety needs required or forbidden tools"}
]))]
pub struct SafetySpec {
    /// Tools that must be called.
    #[serde(default)]
    pub required: Vec<String>,
    /// Tools that must never be called.
    #[serde(default)]
    pub forbidden: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-kubernetes-validations" = [
    {"rule": "has(self.maxSteps) || has(self.maxTokens) || has(self.maxLatencySeconds) || has(self.maxCost)", "message": "budget needs at least one limit"},
    {"rule": "!has(self.maxCost) || (has(self.prices) && size(self.prices) > 0)", "message": "maxCost needs prices", "fieldPath": ".prices"}
]))]
pub struct BudgetSpec {
    /// Tool calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u64>,
    /// Total tokens from usage metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Seconds from the first to the last event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub max_latency_seconds: Option<f64>,
    /// In the currency of `prices`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub max_cost: Option<f64>,
    /// Per model; an entry without `model` prices every other model.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prices: Vec<PriceSpec>,
    /// Apply the limits to each invocation instead of the whole session.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_invocation: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PriceSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub prompt_per_million_tokens: f64,
    pub completion_per_million_tokens: f64,
}

/// An LLM judge asked whether the trajectory is logical, progressing and
/// efficient (and, with a reference, equivalent to it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TrajectoryJudgeSpec {
    /// A good trajectory to compare with: OpenAI-format messages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "messages")]
    pub reference: Vec<Value>,
    /// Score from 0 to 1 and pass at `threshold`, instead of yes or no.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub continuous: bool,
    /// Passing score of a continuous judgement (default 0.8).
    #[serde(default = "eight_tenths")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub threshold: f64,
    /// Answers to ask for; the verdict is their majority (default 1).
    #[serde(default = "one_sample")]
    #[schemars(range(min = 1, max = 9))]
    pub num_samples: u32,
    /// Sampling temperature; the endpoint's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 2.0))]
    pub temperature: Option<f64>,
    /// A prompt template in place of the built-in one; see docs/judges.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

/// An LLM judge scoring the outcome on a 1-5 rubric: was the goal met, by
/// a sound and safe path?
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OutcomeJudgeSpec {
    /// The user's goal; the session's first user message when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    /// Tools whose use caps the score at 2, however good the answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forbidden_tools: Vec<String>,
    /// Passing rubric score (default 4).
    #[serde(default = "four_of_five")]
    #[schemars(range(min = 1, max = 5))]
    pub min_score: u8,
    /// Also require the judge's `goal_met` (default true).
    #[serde(default = "default_true")]
    pub require_goal_met: bool,
    /// Answers to ask for; the verdict is their median (default 1).
    #[serde(default = "one_sample")]
    #[schemars(range(min = 1, max = 9))]
    pub num_samples: u32,
    /// Sampling temperature; the endpoint's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 2.0))]
    pub temperature: Option<f64>,
    /// A prompt template in place of the built-in one; see docs/judges.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

fn one_sample() -> u32 {
    1
}

fn four_of_five() -> u8 {
    4
}

/// The OpenAI-compatible chat-completions endpoint judged evaluators ask.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JudgeSpec {
    /// Base URL of the API, up to and including `/v1`, e.g. https://api.openai.com/v1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The API key, from a Secret in the suite's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_secret_ref: Option<SecretKeyRef>,
    /// A kagent ModelConfig in the suite's namespace: its model, base URL
    /// and API key Secret, where `url`, `model` and `apiKeySecretRef` are absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_config_ref: Option<LocalObjectRef>,
    /// Seconds to wait for one answer (default 60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub timeout_seconds: Option<u32>,
}

/// An object in the suite's own namespace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LocalObjectRef {
    pub name: String,
}

/// A key of a Secret in the suite's own namespace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-kubernetes-validations" = [
    {"rule": "!has(self.__namespace__)", "message": "a Secret is read only in the suite's own namespace: remove namespace"}
]))]
pub struct SecretKeyRef {
    pub name: String,
    pub key: String,
    /// Not allowed: references resolve in the suite's namespace. Present so
    /// that a cross-namespace reference is refused rather than silently dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

/// A kagent Agent, by name; the namespace defaults to the suite's own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentRefSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[schemars(length(min = 1))]
    pub name: String,
}

/// Where sessions come from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = source_rules)]
pub struct SourceSpec {
    /// Which source; may be left out when exactly one source block is set.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<SourceKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixture: Option<FixtureSourceSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kagent_postgres: Option<KagentPostgresSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kagent_api: Option<KagentApiSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adk_database: Option<AdkDatabaseSpec>,
}

/// CEL: the same rules [`SourceSpec::kind`] applies.
fn source_rules(schema: &mut Schema) {
    let present = SourceKind::ALL
        .iter()
        .map(|k| format!("has(self.{})", k.field()))
        .collect::<Vec<_>>()
        .join(", ");
    let mut rules = vec![
        serde_json::json!({
            "rule": format!("has(self.type) || [{present}].filter(x, x).size() == 1"),
            "message": "a source needs `type`, or exactly one of fixture, kagentPostgres, kagentApi and adkDatabase"
        }),
        serde_json::json!({
            "rule": format!("[{present}].filter(x, x).size() <= 1"),
            "message": "a source has the settings of one source type only"
        }),
        serde_json::json!({
            "rule": "!has(self.type) || self.type != 'fixture' || has(self.fixture)",
            "message": "a fixture source needs `fixture`"
        }),
    ];
    for kind in SourceKind::ALL {
        let field = kind.field();
        rules.push(serde_json::json!({
            "rule": format!("!has(self.{field}) || !has(self.type) || self.type == '{field}'"),
            "message": format!("`{field}` is for a source of type {field}")
        }));
    }
    schema.insert("x-kubernetes-validations".into(), Value::Array(rules));
}

impl SourceSpec {
    /// The source type: `type`, else the one source block that is set.
    pub fn kind(&self) -> Result<SourceKind, String> {
        let present: Vec<SourceKind> = SourceKind::ALL
            .into_iter()
            .filter(|k| self.has_block(*k))
            .collect();
        if present.len() > 1 {
            return Err("a source has the settings of one source type only".into());
        }
        match (self.kind, present.first()) {
            (Some(kind), Some(block)) if kind != *block => Err(format!(
                "`{}` is for a source of type {}",
                block.field(),
                block.field()
            )),
            (Some(SourceKind::Fixture), None) => Err("a fixture source needs `fixture`".into()),
            (Some(kind), _) => Ok(kind),
            (None, Some(block)) => Ok(*block),
            (None, None) => Err(
                "a source needs `type`, or exactly one of fixture, kagentPostgres, kagentApi and adkDatabase"
                    .into(),
            ),
        }
    }

    fn has_block(&self, kind: SourceKind) -> bool {
        match kind {
            SourceKind::Fixture => self.fixture.is_some(),
            SourceKind::KagentPostgres => self.kagent_postgres.is_some(),
            SourceKind::KagentApi => self.kagent_api.is_some(),
            SourceKind::AdkDatabase => self.adk_database.is_some(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum SourceKind {
    /// JSONL files: one session per file.
    Fixture,
    /// kagent's PostgreSQL database.
    KagentPostgres,
    /// kagent controller's REST API.
    KagentApi,
    /// Google ADK's DatabaseSessionService tables (SQLite or PostgreSQL).
    AdkDatabase,
}

impl SourceKind {
    pub const ALL: [SourceKind; 4] = [
        SourceKind::Fixture,
        SourceKind::KagentPostgres,
        SourceKind::KagentApi,
        SourceKind::AdkDatabase,
    ];

    /// The name in YAML, which is also the name of its settings block.
    pub fn field(self) -> &'static str {
        match self {
            SourceKind::Fixture => "fixture",
            SourceKind::KagentPostgres => "kagentPostgres",
            SourceKind::KagentApi => "kagentApi",
            SourceKind::AdkDatabase => "adkDatabase",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FixtureSourceSpec {
    /// A JSONL file or a directory of them, relative to the suite file.
    pub path: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KagentPostgresSpec {
    /// The database URL, from a Secret in the suite's namespace; the operator's default database when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_secret_ref: Option<SecretKeyRef>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KagentApiSpec {
    /// Base URL of the kagent controller, e.g. http://kagent-controller.kagent:8083;
    /// the operator's own kagent API when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The user whose sessions are read (default admin@kagent.dev).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
    /// A bearer token, from a Secret in the suite's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_secret_ref: Option<SecretKeyRef>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AdkDatabaseSpec {
    /// sqlite:// or postgres:// URL, from a Secret in the suite's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_secret_ref: Option<SecretKeyRef>,
    /// The ADK app whose sessions are read (ADK's `app_name`); by default
    /// the app kagent runs the suite's Agent as (`<namespace>__NS__<name>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_name: Option<String>,
}

/// An `EvalSuite` manifest as a file holds it; the CRD type in the
/// Kubernetes adapter has the same shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuiteManifest {
    pub api_version: String,
    pub kind: String,
    #[serde(default)]
    pub metadata: ManifestMetadata,
    pub spec: SuiteSpec,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ManifestMetadata {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, flatten)]
    pub other: serde_json::Map<String, Value>,
}
