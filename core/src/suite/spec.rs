//! The suite as users write it: the `spec` of an `EvalSuite`.
//!
//! These types are the wire format, shared by the command line and the
//! Kubernetes CRDs (whose schema is generated from them). Checks a schema
//! cannot express happen when a suite is compiled ([`super::compile`]); the
//! CEL rules here repeat the type-specific ones so the API server refuses a
//! bad suite at `kubectl apply`.

use super::bounds;
use crate::score::args::ArgsMode;
use crate::score::trajectory_match::Matching;
use crate::suite::rules::{NameKind, Rule, Ruled, Validation, attach, name_rule, names, pair};
use crate::task::RecordChoice;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use super::evaluators::{
    AdkJudgeSpec, AdkJudgedMetric, ArgsOverride, ArgumentCorrectnessSpec, BudgetSpec,
    EvaluatorSpec, EvaluatorType, ExpectedCallSpec, ExpectedInvocation, ExpectedResponse,
    LoopsSpec, OutcomeJudgeSpec, PriceSpec, ResponseMatchSpec, RubricSpec, SafetySpec,
    SelectionMetric, ToolSelectionSpec, ToolTrajectorySpec, ToolsUsedSpec, TrajectoryDriftSpec,
    TrajectoryJudgeSpec, TrajectoryMatchSpec,
};

/// A JSON object of any shape.
pub(crate) fn any_object(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
}

pub(crate) fn int_or_string(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"x-kubernetes-int-or-string": true})
}

/// Reference messages: OpenAI-format, each with a role.
pub(crate) fn messages(_: &mut SchemaGenerator) -> Schema {
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

pub(crate) fn default_true() -> bool {
    true
}

pub(crate) fn is_greedy(m: &Matching) -> bool {
    *m == Matching::Greedy
}

pub(crate) fn eight_tenths() -> f64 {
    0.8
}

pub(crate) fn one_sample() -> u32 {
    1
}

pub(crate) fn one() -> f64 {
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
    #[schemars(length(max = crate::schedule::SCHEDULE_MAX))]
    #[schemars(extend("x-kubernetes-validations" = crate::schedule::cron_validation()))]
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
    #[serde(default, skip_serializing_if = "SuiteDefaults::is_default")]
    pub defaults: SuiteDefaults,
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
    /// A session whose last turn ended in an error (kagent's failed task,
    /// a model error): `fail` (the default) fails every case scored on it,
    /// whatever its evaluators say; `score` lets the evaluators decide, and
    /// the report counts the sessions so scored.
    #[serde(default, skip_serializing_if = "FailedTasks::is_default")]
    pub failed_tasks: FailedTasks,
    /// What every session's cost is priced at in reports and gates, per
    /// model, per million tokens (a budget's `maxCost` is priced at the
    /// budget's own prices).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prices: Vec<PriceSpec>,
    /// A budget or gate on a measure a session does not carry (no usage
    /// metadata, no timestamps, no price): `fail` (the default) does not
    /// evaluate it and counts it against the run; `skip` leaves that limit
    /// out and the report counts what was skipped.
    #[serde(default, skip_serializing_if = "Unmeasured::is_default")]
    pub unmeasured: Unmeasured,
    /// `blocking` (the default): failed cases fail the run, within
    /// `gates.maxFailRate`; `signal`: failures are reported, counted and
    /// raise Events, and the run still succeeds.
    #[serde(default, skip_serializing_if = "GateMode::is_default")]
    pub gate: GateMode,
    /// The run's gates beyond each case's verdict: a failure rate, and
    /// rises against the baseline run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gates: Option<GatesSpec>,
    /// The run compared with: in the cluster the suite's last Succeeded
    /// EvalRun unless one is pinned here; on the command line `--baseline`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineSpec>,
    /// Budgets for cases by tag (a risk profile: a market with tight costs,
    /// say): each case carrying one of a profile's tags is also held to its
    /// budget.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub profiles: Vec<ProfileSpec>,
    /// Opt-in to probes: cases that send golden tasks to the live Agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probes: Option<ProbesSpec>,
    /// Which cases run: one file can serve a fast pull-request gate and a
    /// full nightly. Every case when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select: Option<SelectSpec>,
    #[schemars(length(min = bounds::CASES.min, max = bounds::CASES.max))]
    pub cases: Vec<Case>,
}

/// The cases a run is made of, by tag and by name. A case runs when it
/// carries one of `tags` (any case when empty), none of `excludeTags`, and
/// its name matches one of `cases` (any name when empty).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SelectSpec {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude_tags: Vec<String>,
    /// Case names, or globs of them (`*` any run of characters, `?` one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cases: Vec<String>,
}

impl SelectSpec {
    pub fn is_empty(&self) -> bool {
        self.tags.is_empty() && self.exclude_tags.is_empty() && self.cases.is_empty()
    }

    /// "tags fast, smoke; excluding tags slow; cases login-*"
    pub fn describe(&self) -> String {
        [
            ("tags", &self.tags),
            ("excluding tags", &self.exclude_tags),
            ("cases", &self.cases),
        ]
        .iter()
        .filter(|(_, values)| !values.is_empty())
        .map(|(what, values)| format!("{what} {}", values.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
    }
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
    #[schemars(range(min = bounds::PROBE_RUNS_PER_RUN.min, max = bounds::PROBE_RUNS_PER_RUN.max))]
    pub max_runs: u32,
    /// Probe runs in flight at once (default 1).
    #[serde(default = "one_u32")]
    #[schemars(range(min = bounds::PROBE_CONCURRENCY.min, max = bounds::PROBE_CONCURRENCY.max))]
    pub concurrency: u32,
    /// The A2A version probes speak: `"0.3"` (kagent 0.10) or `"1.0"`
    /// (kagent 1.0). Unset, it follows the agentRef (a `v1alpha3` Agent
    /// speaks 1.0), else the Agent's card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<A2aProtocol>,
    /// Where a probe run's conversation is read to be scored: `source`
    /// (default), the session the Agent recorded, read back from the
    /// suite's source by its conversation id, as kagent records it; or
    /// `agent`, the Agent's own record of each turn's task (A2A 1.0
    /// `GetTask`, with its whole history), for an A2A 1.0 agent that is
    /// not kagent: a suite whose every case probes so needs no source.
    #[serde(default)]
    pub read_from: ProbeReadFrom,
}

/// Where a probe run's conversation is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ProbeReadFrom {
    /// The session the Agent recorded, from the suite's source.
    #[default]
    Source,
    /// The Agent's tasks, from the Agent itself.
    Agent,
}

/// An A2A protocol version a probe can speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum A2aProtocol {
    /// JSON-RPC `message/send`, `kind` discriminators, lower-case task
    /// states: what kagent 0.10 serves (A2A 0.2 and 0.3 alike).
    #[serde(rename = "0.3")]
    V0_3,
    /// JSON-RPC `SendMessage`, the `A2A-Version: 1.0` header, enum strings.
    #[serde(rename = "1.0")]
    V1_0,
}

impl A2aProtocol {
    pub fn words(self) -> &'static str {
        match self {
            A2aProtocol::V0_3 => "A2A 0.3",
            A2aProtocol::V1_0 => "A2A 1.0",
        }
    }
}

impl std::str::FromStr for A2aProtocol {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "0.3" => Ok(A2aProtocol::V0_3),
            "1.0" => Ok(A2aProtocol::V1_0),
            other => Err(format!(
                "{other:?} is not an A2A version probes speak (0.3 or 1.0)"
            )),
        }
    }
}

impl std::str::FromStr for ProbeReadFrom {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "source" => Ok(ProbeReadFrom::Source),
            "agent" => Ok(ProbeReadFrom::Agent),
            other => Err(format!(
                "{other:?} is not where probes read a conversation (source or agent)"
            )),
        }
    }
}

fn ten() -> u32 {
    10
}

fn one_u32() -> u32 {
    1
}

/// A golden task sent to the Agent over A2A, `runs` times, each in a new
/// conversation whose session is then scored by the case's evaluators.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = attach::<Self>)]
pub struct ProbeSpec {
    /// One user message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// User turns, sent in order, each after the Agent finished the last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = bounds::CONVERSATION_TURNS.max))]
    pub conversation: Vec<String>,
    /// A simulated user: the suite's judge model writes each turn after the
    /// first from the plan and the Agent's replies, and says when it is done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<ScenarioSpec>,
    /// How many times the task is sent, each in a fresh conversation (k).
    #[serde(default = "one_u32")]
    #[schemars(range(min = bounds::RUNS_PER_PROBE.min, max = bounds::RUNS_PER_PROBE.max))]
    pub runs: u32,
    /// Seconds one run may take, every turn included (default 120).
    #[serde(default = "probe_timeout")]
    #[schemars(range(min = bounds::PROBE_TIMEOUT_SECONDS.min, max = bounds::PROBE_TIMEOUT_SECONDS.max))]
    pub timeout_seconds: u32,
    /// The user the probe acts as (`X-User-Id`), default `kagent-evals-probe`:
    /// a dedicated identity, never the operator's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = bounds::ID_MAX))]
    pub user_id: Option<String>,
    /// What to answer when the Agent asks to approve a tool call: `fail`
    /// (the default: the run fails), `approve` or `reject`.
    #[serde(default, skip_serializing_if = "Approvals::is_default")]
    pub approvals: Approvals,
    /// Answers to the questions the Agent asks the user (kagent's
    /// `ask_user`), in the order it asks them, one list per question (the
    /// choices picked, or one free text); a question beyond them fails the
    /// run, naming it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 100))]
    pub answers: Vec<Vec<String>>,
}

impl Ruled for ProbeSpec {
    fn rules() -> Vec<Validation> {
        let inputs = names(&["input", "conversation", "scenario"]);
        let message = "a probe has exactly one of input, conversation and scenario";
        vec![
            Validation::new(
                Rule::AnySet {
                    fields: inputs.clone(),
                },
                message,
            ),
            Validation::new(Rule::AtMostOneOf { fields: inputs }, message),
            name_rule("userId", NameKind::Id),
        ]
    }
}

/// A conversation a simulated user holds with the Agent, as ADK's
/// `conversation_scenario`: it opens with `startingPrompt` and follows
/// `plan`, answering what the Agent says, until the plan is done.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScenarioSpec {
    /// The first user message, sent as written.
    #[schemars(length(min = 1))]
    pub starting_prompt: String,
    /// What the user wants, in the order they would ask for it.
    #[schemars(length(min = 1))]
    pub plan: String,
    /// Who the user is and how they talk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persona: Option<String>,
    /// User turns at most, the first included (default 5): a plan not done
    /// by then fails the run.
    #[serde(default = "five_turns")]
    #[schemars(range(min = bounds::SCENARIO_TURNS.min, max = bounds::SCENARIO_TURNS.max))]
    pub max_turns: u32,
    /// The model that plays the user, asked of the judge endpoint; the
    /// judge's own model when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Its sampling temperature; the endpoint's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = bounds::TEMPERATURE.min, max = bounds::TEMPERATURE.max))]
    pub temperature: Option<f64>,
}

fn five_turns() -> u32 {
    5
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

/// What a run does with a session whose last turn failed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum FailedTasks {
    /// Cases scored on it do not pass: the agent did not finish.
    #[default]
    Fail,
    /// The evaluators decide; the report counts it.
    Score,
}

impl FailedTasks {
    fn is_default(&self) -> bool {
        *self == FailedTasks::default()
    }
}

/// What a run does with a limit on a measure a session does not carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Unmeasured {
    /// The limit is not evaluated and counts against the run.
    #[default]
    Fail,
    /// The limit is left out; the report counts how many were.
    Skip,
}

impl Unmeasured {
    fn is_default(&self) -> bool {
        *self == Unmeasured::default()
    }
}

/// Whether failed cases fail the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum GateMode {
    #[default]
    Blocking,
    Signal,
}

impl GateMode {
    fn is_default(&self) -> bool {
        *self == GateMode::default()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GatesSpec {
    /// The share of blocking cases that may fail (default 0: any fails the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = bounds::UNIT.min, max = bounds::UNIT.max))]
    pub max_fail_rate: Option<f64>,
    /// The largest rise of a mean against the baseline, as a fraction
    /// (`cost: 0.02` is 2%).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_increase: Option<MaxIncrease>,
    /// The largest fall of the pass rate against the baseline, in points
    /// of a fraction (`0.05` is five points).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = bounds::UNIT.min, max = bounds::UNIT.max))]
    pub max_pass_rate_drop: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MaxIncrease {
    /// Mean cost per session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub cost: Option<f64>,
    /// Mean latency per session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub latency_seconds: Option<f64>,
    /// Mean total tokens per session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub tokens: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = attach::<Self>)]
pub struct BaselineSpec {
    /// An EvalRun of this suite, in its namespace, to compare with instead
    /// of the last Succeeded one.
    #[schemars(length(max = bounds::OBJECT_NAME_MAX))]
    pub run_name: String,
}

impl Ruled for BaselineSpec {
    fn rules() -> Vec<Validation> {
        vec![name_rule("runName", NameKind::Object)]
    }
}

/// A budget for the cases of some tags.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProfileSpec {
    #[schemars(length(min = 1))]
    pub name: String,
    /// Cases carrying any of these tags.
    #[schemars(length(min = 1))]
    pub tags: Vec<String>,
    pub budget: BudgetSpec,
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
    #[schemars(range(min = bounds::SESSION_LIMIT_MIN))]
    pub limit: Option<u32>,
    /// Also score sessions where another agent called this one as a tool.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub include_sub_agent_sessions: bool,
    /// kagent 1.0: also score Sessions forked from another's checkpoint,
    /// whose first turns are a copy of that Session's (left out by default,
    /// so that those turns are not scored twice). kagent 0.10 has no forks.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub include_forked_sessions: bool,
    /// Read sessions from ADK's events or kagent's A2A task records: `auto`
    /// (the default) reads the tasks of a session without events, as an
    /// agent on kagent's LangGraph, CrewAI or OpenAI runtime has.
    #[serde(default, skip_serializing_if = "is_auto")]
    pub record: RecordChoice,
    /// How much of one session the database sources hold: a row or session
    /// over a limit is not decoded, and is unreadable (fails closed).
    #[serde(default, skip_serializing_if = "ReadLimitsSpec::is_default")]
    pub limits: ReadLimitsSpec,
}

/// Limits on what a database source holds of one session; each left out
/// is its default (the README lists them).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadLimitsSpec {
    /// Bytes of one stored row (default 16 MiB); a longer row is not sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub row_bytes: Option<u64>,
    /// Messages, artifacts, parts and JSON values one row may decode into
    /// (default 100,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub row_elements: Option<u64>,
    /// Rows of one session (default 20,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub session_rows: Option<u64>,
    /// Bytes of one session's rows together (default 64 MiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub session_bytes: Option<u64>,
}

impl ReadLimitsSpec {
    fn is_default(&self) -> bool {
        *self == ReadLimitsSpec::default()
    }

    /// `self`, with what `over` sets in its place.
    pub fn overridden_by(&self, over: &ReadLimitsSpec) -> ReadLimitsSpec {
        ReadLimitsSpec {
            row_bytes: over.row_bytes.or(self.row_bytes),
            row_elements: over.row_elements.or(self.row_elements),
            session_rows: over.session_rows.or(self.session_rows),
            session_bytes: over.session_bytes.or(self.session_bytes),
        }
    }
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
pub struct SuiteDefaults {
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

impl Default for SuiteDefaults {
    fn default() -> Self {
        SuiteDefaults {
            args_mode: ArgsMode::Exact,
            drop_internal_tools: true,
            deny_tools: Vec::new(),
            include_thoughts: false,
            unwrap_structured_content: true,
        }
    }
}

impl SuiteDefaults {
    fn is_default(&self) -> bool {
        *self == SuiteDefaults::default()
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = attach::<Self>)]
pub struct Case {
    #[schemars(length(min = 1))]
    pub name: String,
    /// Score only this session (a JSONL fixture stands in for any id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = bounds::ID_MAX))]
    pub session_id: Option<String>,
    /// Score the selected sessions whose first user message matches.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub session_match: Option<SessionMatch>,
    /// Score only this invocation (user turn) of each session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation_id: Option<String>,
    #[schemars(length(min = bounds::EVALUATORS.min, max = bounds::EVALUATORS.max))]
    pub evaluators: Vec<EvaluatorSpec>,
    /// Share of scored sessions that must pass (default 1.0).
    #[serde(default = "one")]
    #[schemars(range(min = bounds::UNIT.min, max = bounds::UNIT.max))]
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
    /// Labels to select cases by and to hold them to a profile's budget.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// `false`: a failure of this case is reported, counted and raises
    /// Events, and does not fail the run (a new case finding its feet).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub blocking: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

impl Ruled for Case {
    fn rules() -> Vec<Validation> {
        vec![
            Validation::new(
                Rule::NotBoth {
                    fields: pair("sessionId", "match"),
                },
                "a case selects sessions by sessionId or by match, not both",
            ),
            name_rule("sessionId", NameKind::Id),
        ]
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = attach::<Self>)]
pub struct SessionMatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contains: Option<String>,
    /// A Rust regular expression (no look-around).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,
}

impl Ruled for SessionMatch {
    fn rules() -> Vec<Validation> {
        vec![Validation::new(
            Rule::ExactlyOneOf {
                fields: pair("contains", "regex"),
            },
            "match needs exactly one of contains or regex",
        )]
    }
}

/// The OpenAI-compatible chat-completions endpoint judged evaluators ask.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    #[schemars(range(min = bounds::JUDGE_TIMEOUT_SECONDS_MIN))]
    pub timeout_seconds: Option<u32>,
    /// Judge calls in flight at once (default 4). Results keep their order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = bounds::JUDGE_CONCURRENCY.min, max = bounds::JUDGE_CONCURRENCY.max))]
    pub concurrency: Option<u32>,
    /// Judge calls one run may make; the judged evaluations past it are
    /// errors of the run, saying so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_calls: Option<u64>,
    /// Judge tokens (prompt and completion) one run may spend; no call is
    /// made once they are spent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_tokens: Option<u64>,
    /// What the judge's tokens cost, by the model that answered, so the
    /// report and the metrics show the judge's cost.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prices: Vec<PriceSpec>,
    /// How the judge agreed with people, as `kagent-evals judge calibrate`
    /// measured it; reports show it, or that the judge is not calibrated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Calibration>,
}

/// A judge's recorded agreement with human labels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Calibration {
    /// Cohen's kappa between the judge's verdicts and the labels.
    #[schemars(range(min = -1.0, max = 1.0))]
    pub kappa: f64,
    /// How many labelled verdicts it was measured on.
    #[schemars(range(min = 1))]
    pub labels: u32,
    /// The labels file, for the record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels_file: Option<String>,
    /// When it was measured (YYYY-MM-DD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
}

/// An object in the suite's own namespace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = attach::<Self>)]
pub struct LocalObjectRef {
    #[schemars(length(max = bounds::OBJECT_NAME_MAX))]
    pub name: String,
}

impl Ruled for LocalObjectRef {
    fn rules() -> Vec<Validation> {
        vec![name_rule("name", NameKind::Object)]
    }
}

/// A key of a Secret in the suite's own namespace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = attach::<Self>)]
pub struct SecretKeyRef {
    #[schemars(length(max = bounds::OBJECT_NAME_MAX))]
    pub name: String,
    pub key: String,
    /// Not allowed: references resolve in the suite's namespace. Present so
    /// that a cross-namespace reference is refused rather than silently dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

impl Ruled for SecretKeyRef {
    fn rules() -> Vec<Validation> {
        vec![
            name_rule("name", NameKind::Object),
            Validation::new(
                Rule::Absent {
                    field: "namespace".into(),
                },
                "a Secret is read only in the suite's own namespace: remove namespace",
            ),
        ]
    }
}

/// A kagent Agent, by name; the namespace defaults to the suite's own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = attach::<Self>)]
pub struct AgentRefSpec {
    /// Which kagent line's Agent: `kagent.dev/v1alpha2` (kagent 0.10, the
    /// default) or `api.kagent.dev/v1alpha3` (kagent 1.0, an Agent pairing
    /// an AgentTemplate and a Harness).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<AgentApiVersion>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = bounds::NAMESPACE_MAX))]
    pub namespace: Option<String>,
    #[schemars(length(min = 1, max = bounds::OBJECT_NAME_MAX))]
    pub name: String,
}

/// The API version of a kagent Agent, one per kagent line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum AgentApiVersion {
    /// kagent 0.10.
    #[default]
    #[serde(rename = "kagent.dev/v1alpha2")]
    V1Alpha2,
    /// kagent 1.0.
    #[serde(rename = "api.kagent.dev/v1alpha3")]
    V1Alpha3,
}

impl AgentApiVersion {
    /// The API group and version, as the API server serves them.
    pub fn group_version(self) -> (&'static str, &'static str) {
        match self {
            AgentApiVersion::V1Alpha2 => ("kagent.dev", "v1alpha2"),
            AgentApiVersion::V1Alpha3 => ("api.kagent.dev", "v1alpha3"),
        }
    }
}

impl Ruled for AgentRefSpec {
    fn rules() -> Vec<Validation> {
        vec![
            name_rule("name", NameKind::Object),
            name_rule("namespace", NameKind::Namespace),
        ]
    }
}

/// Where sessions come from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = attach::<Self>)]
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

/// The same rules [`SourceSpec::kind`] applies.
impl Ruled for SourceSpec {
    fn rules() -> Vec<Validation> {
        let fields: Vec<String> = SourceKind::ALL
            .iter()
            .map(|k| k.field().to_string())
            .collect();
        let mut rules = vec![
            Validation::new(
                Rule::TagOrExactlyOneOf {
                    tag: "type".into(),
                    fields: fields.clone(),
                },
                "a source needs `type`, or exactly one of fixture, kagentPostgres, kagentApi and adkDatabase",
            ),
            Validation::new(
                Rule::AtMostOneOf {
                    fields: fields.clone(),
                },
                "a source has the settings of one source type only",
            ),
            Validation::new(
                Rule::TagRequires {
                    tag: "type".into(),
                    value: "fixture".into(),
                    field: "fixture".into(),
                    tag_optional: true,
                },
                "a fixture source needs `fixture`",
            ),
        ];
        for field in fields {
            rules.push(Validation::new(
                Rule::FieldNamesTag {
                    field: field.clone(),
                    tag: "type".into(),
                },
                format!("`{field}` is for a source of type {field}"),
            ));
        }
        rules
    }
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
#[schemars(transform = attach::<Self>)]
pub struct KagentPostgresSpec {
    /// The database URL, from a Secret in the suite's namespace; the operator's default database when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_secret_ref: Option<SecretKeyRef>,
    /// The PostgreSQL schema holding kagent's tables, in the suite's own
    /// database (`urlSecretRef`); searched in `kagent`, then `public`,
    /// when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = bounds::NAMESPACE_MAX))]
    pub schema: Option<String>,
}

impl Ruled for KagentPostgresSpec {
    fn rules() -> Vec<Validation> {
        vec![name_rule("schema", NameKind::SqlSchema)]
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = attach::<Self>)]
pub struct KagentApiSpec {
    /// Base URL of the kagent controller, e.g. http://kagent-controller.kagent:8083;
    /// the operator's own kagent API when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The user whose sessions are read (default admin@kagent.dev).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = bounds::ID_MAX))]
    pub user_id: Option<String>,
    /// A bearer token, from a Secret in the suite's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_secret_ref: Option<SecretKeyRef>,
}

impl Ruled for KagentApiSpec {
    fn rules() -> Vec<Validation> {
        vec![name_rule("userId", NameKind::Id)]
    }
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
