//! A suite spec checked and turned into ready-to-run evaluators. Every
//! problem names the field it is in (`spec.cases[1].evaluators[0]...`).

use super::spec::{
    AdkJudgedMetric, Approvals, Case, Defaults, EvaluatorSpec, EvaluatorType, JudgeSpec, ProbeSpec,
    ResponseMatchSpec, SecretKeyRef, SelectionMetric, SessionMatch, SuiteSpec, UnreadableEvents,
};
use crate::core::convert::ConvertOptions;
use crate::core::judge::adk::Rubric;
use crate::core::judge::{JudgeTask, Sampling, prompt};
use crate::core::schedule::Schedule;
use crate::core::score::ConfigError;
use crate::core::score::adk::{AdkMatchType, Comparison, ToolUse};
use crate::core::score::args::{ArgsConfig, Override};
use crate::core::score::golden::{Budget, ExpectedCall, Price};
use crate::core::score::trajectory_match::{MatchConfig, MatchMode, Matching};
use crate::core::session::AgentRef;
use crate::core::task::RecordChoice;
use crate::core::trajectory::{Step, messages_from_value, steps};
use jiff::SignedDuration;
use regex::Regex;
use serde_json::Value;
use std::fmt;

/// A problem in a suite, at a field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteError {
    pub path: String,
    pub message: String,
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for SuiteError {}

fn error(path: impl Into<String>, message: impl fmt::Display) -> SuiteError {
    SuiteError {
        path: path.into(),
        message: message.to_string(),
    }
}

#[derive(Clone, Debug)]
pub struct CompiledSuite {
    pub name: String,
    pub agent: Option<AgentRef>,
    pub since: Option<SignedDuration>,
    pub limit: Option<usize>,
    pub include_sub_agent_sessions: bool,
    /// Which record sessions are read from.
    pub record: RecordChoice,
    /// Set when the suite enables probes.
    pub probes: Option<ProbeLimits>,
    /// Gates whose stated threshold is not what they can tell apart.
    pub gates: Vec<String>,
    pub judge: Option<JudgeSpec>,
    /// The cron schedule, parsed once.
    pub schedule: Option<Schedule>,
    pub unreadable_events: UnreadableEvents,
    pub cases: Vec<CompiledCase>,
}

impl CompiledSuite {
    /// The cases that probe the Agent, with their index.
    pub fn probe_cases(&self) -> impl Iterator<Item = (usize, &CompiledCase, &Probe)> {
        self.cases
            .iter()
            .enumerate()
            .filter_map(|(i, c)| match &c.selector {
                Selector::Probe(probe) => Some((i, c, probe)),
                _ => None,
            })
    }

    /// A suite none of whose cases can be run (each is reported as not
    /// run), so that its report still names every case.
    pub fn without_cases(name: &str) -> Self {
        CompiledSuite {
            name: name.to_string(),
            agent: None,
            since: None,
            limit: None,
            include_sub_agent_sessions: false,
            record: RecordChoice::Auto,
            probes: None,
            gates: Vec::new(),
            judge: None,
            schedule: None,
            unreadable_events: UnreadableEvents::default(),
            cases: Vec::new(),
        }
    }

    /// Whether any evaluator needs an LLM judge.
    pub fn uses_judge(&self) -> bool {
        self.evaluators().any(|e| e.kind.is_judged())
    }

    pub fn warnings(&self) -> impl Iterator<Item = &str> {
        self.evaluators()
            .filter_map(|e| e.warning.as_deref())
            .chain(self.gates.iter().map(String::as_str))
    }

    fn evaluators(&self) -> impl Iterator<Item = &CompiledEvaluator> {
        self.cases.iter().flat_map(|c| c.evaluators.iter())
    }
}

#[derive(Clone, Debug)]
pub struct CompiledCase {
    pub name: String,
    pub selector: Selector,
    pub invocation_id: Option<String>,
    pub evaluators: Vec<CompiledEvaluator>,
    pub min_pass_rate: f64,
    pub allow_no_sessions: bool,
    pub convert: ConvertOptions,
}

/// Which sessions a case scores.
#[derive(Clone, Debug)]
pub enum Selector {
    SessionId(String),
    FirstUserMessage(TextMatch),
    All,
    /// The sessions its own probe runs make.
    Probe(Probe),
}

/// The user a probe acts as unless its case names one.
pub const DEFAULT_PROBE_USER: &str = "kagent-evals-probe";

/// A golden task to send to the Agent `runs` times.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub turns: Vec<String>,
    pub runs: u32,
    pub timeout: std::time::Duration,
    pub user_id: String,
    pub approvals: Approvals,
}

/// How many probe runs a run may make, and how many at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeLimits {
    pub max_runs: u32,
    pub concurrency: u32,
}

#[derive(Clone, Debug)]
pub enum TextMatch {
    Contains(String),
    Regex(Regex),
}

impl TextMatch {
    pub fn matches(&self, text: &str) -> bool {
        match self {
            TextMatch::Contains(needle) => text.contains(needle.as_str()),
            TextMatch::Regex(re) => re.is_match(text),
        }
    }
}

#[derive(Clone, Debug)]
pub struct CompiledEvaluator {
    pub name: String,
    pub kind: EvaluatorType,
    pub evaluator: Evaluator,
    /// Settings that are valid but probably not meant, with their path.
    pub warning: Option<String>,
}

/// One of ADK's judged metrics, ready to ask.
#[derive(Clone, Debug, PartialEq)]
pub struct AdkJudge {
    pub metric: AdkJudgedMetric,
    pub threshold: f64,
    pub samples: u32,
    pub temperature: Option<f64>,
    pub rubrics: Vec<Rubric>,
    pub include_intermediate: bool,
    pub evaluate_intermediate: bool,
    /// The expected final response of each invocation.
    pub expected: Vec<String>,
}

/// An evaluator with its settings checked and parsed.
#[derive(Clone, Debug)]
pub enum Evaluator {
    AdkJudge(AdkJudge),
    ToolsUsed {
        expected: Vec<String>,
        mode: MatchMode,
        matching: Matching,
    },
    TrajectoryMatch {
        reference: Vec<Step>,
        config: MatchConfig,
    },
    ToolTrajectory {
        expected: Vec<Vec<ToolUse>>,
        comparison: Comparison,
        threshold: f64,
    },
    ResponseMatch {
        reference: ResponseReference,
        threshold: f64,
    },
    ToolSelection {
        expected: Vec<String>,
        metric: SelectionMetric,
        threshold: f64,
    },
    ArgumentCorrectness {
        calls: Vec<ExpectedCall>,
        threshold: f64,
    },
    TrajectoryDrift {
        reference: Vec<String>,
        threshold: f64,
    },
    Loops {
        window: usize,
        min_repeats: usize,
    },
    Safety {
        required: Vec<String>,
        forbidden: Vec<String>,
    },
    Budget {
        budget: Budget,
        prices: Vec<Price>,
        per_invocation: bool,
    },
    /// An LLM judge gives the verdict.
    Judged {
        task: JudgeTask,
        sampling: Sampling,
    },
}

#[derive(Clone, Debug)]
pub enum ResponseReference {
    /// Compared with the final response of the last invocation.
    Last(String),
    /// One per invocation, in order.
    PerInvocation(Vec<String>),
}

/// The CRD's limits, applied on the command line too.
pub const MAX_CASES: usize = 256;
pub const MAX_EVALUATORS: usize = 64;

/// Every Secret a suite refers to, with its field path below `spec`.
fn secret_references(spec: &SuiteSpec) -> Vec<(&'static str, &SecretKeyRef)> {
    let source = spec.source.as_ref();
    [
        (
            "source.kagentPostgres.urlSecretRef",
            source
                .and_then(|s| s.kagent_postgres.as_ref())
                .and_then(|p| p.url_secret_ref.as_ref()),
        ),
        (
            "source.kagentApi.tokenSecretRef",
            source
                .and_then(|s| s.kagent_api.as_ref())
                .and_then(|a| a.token_secret_ref.as_ref()),
        ),
        (
            "source.adkDatabase.urlSecretRef",
            source
                .and_then(|s| s.adk_database.as_ref())
                .and_then(|a| a.url_secret_ref.as_ref()),
        ),
        (
            "judge.apiKeySecretRef",
            spec.judge
                .as_ref()
                .and_then(|j| j.api_key_secret_ref.as_ref()),
        ),
    ]
    .into_iter()
    .filter_map(|(field, reference)| reference.map(|r| (field, r)))
    .collect()
}

/// `24h`, `90m`, `7d` (days of 24 hours) or ISO 8601 `PT24H`.
pub fn parse_duration(text: &str) -> Result<SignedDuration, String> {
    let span: jiff::Span = text
        .trim()
        .parse()
        .map_err(|e| format!("`{text}` is not a duration like 24h, 90m or 7d: {e}"))?;
    let duration = span
        .to_duration(jiff::SpanRelativeTo::days_are_24_hours())
        .map_err(|e| format!("`{text}`: {e}"))?;
    if duration.is_negative() {
        return Err(format!("`{text}` is negative"));
    }
    Ok(duration)
}

/// Check a suite and build its evaluators; `at` is the path of the spec
/// (`spec` for a manifest), `namespace` the suite's, which an `agentRef`
/// without one is in.
pub fn compile(
    name: &str,
    spec: &SuiteSpec,
    at: &str,
    namespace: &str,
) -> Result<CompiledSuite, SuiteError> {
    if let Some(source) = &spec.source {
        source
            .kind()
            .map_err(|e| error(format!("{at}.source"), e))?;
    }
    for (field, reference) in secret_references(spec) {
        if reference.namespace.is_some() {
            return Err(error(
                format!("{at}.{field}"),
                "a Secret is read only in the suite's own namespace: remove namespace",
            ));
        }
    }
    let since = spec
        .sessions
        .since
        .as_deref()
        .map(parse_duration)
        .transpose()
        .map_err(|e| error(format!("{at}.sessions.since"), e))?;
    if let Some(zone) = &spec.time_zone {
        jiff::tz::TimeZone::get(zone).map_err(|_| {
            error(
                format!("{at}.timeZone"),
                format!("`{zone}` is not an IANA time zone"),
            )
        })?;
    }
    let schedule = spec
        .schedule
        .as_deref()
        .map(|s| Schedule::parse(s, spec.time_zone.as_deref()))
        .transpose()
        .map_err(|e| error(format!("{at}.schedule"), e))?;
    if spec.cases.len() > MAX_CASES {
        return Err(error(
            format!("{at}.cases"),
            format!("at most {MAX_CASES} cases, as the EvalSuite CRD allows"),
        ));
    }
    let mut names = std::collections::BTreeSet::new();
    let cases = spec
        .cases
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let path = format!("{at}.cases[{i}]");
            if !names.insert(case.name.as_str()) {
                return Err(error(
                    format!("{path}.name"),
                    format!("`{}` names two cases", case.name),
                ));
            }
            compile_case(case, spec, &path)
        })
        .collect::<Result<Vec<_>, _>>()?;
    if cases.is_empty() {
        return Err(error(
            format!("{at}.cases"),
            "a suite needs at least one case",
        ));
    }
    let probes = match &spec.probes {
        Some(p) if p.enabled => {
            let runs: u32 = cases
                .iter()
                .filter_map(|c| match &c.selector {
                    Selector::Probe(probe) => Some(probe.runs),
                    _ => None,
                })
                .sum();
            if runs > p.max_runs {
                return Err(error(
                    format!("{at}.probes.maxRuns"),
                    format!(
                        "the probe cases make {runs} runs, more than maxRuns {}",
                        p.max_runs
                    ),
                ));
            }
            if !(1..=10).contains(&p.concurrency) {
                return Err(error(
                    format!("{at}.probes.concurrency"),
                    "must be between 1 and 10",
                ));
            }
            Some(ProbeLimits {
                max_runs: p.max_runs,
                concurrency: p.concurrency,
            })
        }
        _ => None,
    };
    Ok(CompiledSuite {
        name: name.to_string(),
        agent: spec.agent_ref.as_ref().map(|a| AgentRef {
            namespace: a.namespace.clone().unwrap_or_else(|| namespace.to_string()),
            name: a.name.clone(),
        }),
        since,
        limit: spec.sessions.limit.map(|l| l as usize),
        include_sub_agent_sessions: spec.sessions.include_sub_agent_sessions,
        record: spec.sessions.record,
        probes,
        gates: effective_thresholds(&cases, at),
        judge: spec.judge.clone(),
        schedule,
        unreadable_events: spec.unreadable_events,
        cases,
    })
}

/// A score that is a count of passing slots can only be a multiple of
/// 1/slots, so a stated threshold really asks for the next such multiple:
/// said for every judged gate and every pass rate over a probe's runs where
/// the two differ (`threshold 0.7 is effectively 1.0: 1 rubric x 2 runs x 1
/// invocation`).
fn effective_thresholds(cases: &[CompiledCase], at: &str) -> Vec<String> {
    let shown = |v: f64| {
        let text = format!("{v:.3}");
        let text = text.trim_end_matches('0');
        if text.ends_with('.') {
            format!("{text}0")
        } else {
            text.to_string()
        }
    };
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut notes = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let path = format!("{at}.cases[{i}]")
            .trim_start_matches('.')
            .to_string();
        let runs = match &case.selector {
            Selector::Probe(p) => p.runs as usize,
            _ => 1,
        };
        // Invocations a session of the case has, when its expectations say.
        let invocations = case
            .evaluators
            .iter()
            .find_map(|e| match &e.evaluator {
                Evaluator::ToolTrajectory { expected, .. } => Some(expected.len()),
                Evaluator::AdkJudge(j) if !j.expected.is_empty() => Some(j.expected.len()),
                _ => None,
            })
            .unwrap_or(1);
        for (j, e) in case.evaluators.iter().enumerate() {
            let Evaluator::AdkJudge(judge) = &e.evaluator else {
                continue;
            };
            // Groundedness scores are fractions of sentences: no grid.
            if judge.metric == AdkJudgedMetric::HallucinationsV1 {
                continue;
            }
            let rubrics = judge.rubrics.len().max(1);
            let slots = (rubrics * runs * invocations) as u32;
            let effective = crate::core::judge::adk::effective_threshold(judge.threshold, slots);
            if effective != judge.threshold {
                notes.push(format!(
                    "{path}.evaluators[{j}]: threshold {} is effectively {}: {} x {} x {}",
                    shown(judge.threshold),
                    shown(effective),
                    plural(rubrics, "rubric"),
                    plural(runs, "run"),
                    plural(invocations, "invocation")
                ));
            }
        }
        if runs > 1 {
            let effective =
                crate::core::judge::adk::effective_threshold(case.min_pass_rate, runs as u32);
            if effective != case.min_pass_rate {
                notes.push(format!(
                    "{path}.minPassRate {} is effectively {}: {}",
                    shown(case.min_pass_rate),
                    shown(effective),
                    plural(runs, "run")
                ));
            }
        }
    }
    notes
}

fn compile_probe(probe: &ProbeSpec, path: &str) -> Result<Probe, SuiteError> {
    let turns = match (&probe.input, probe.conversation.as_slice()) {
        (Some(input), []) => vec![input.clone()],
        (None, turns) if !turns.is_empty() => turns.to_vec(),
        _ => {
            return Err(error(
                path,
                "a probe has exactly one of input and conversation",
            ));
        }
    };
    if turns.iter().any(|t| t.trim().is_empty()) {
        return Err(error(path, "a probe's user turns must not be empty"));
    }
    if !(1..=20).contains(&probe.runs) {
        return Err(error(format!("{path}.runs"), "must be between 1 and 20"));
    }
    if !(1..=3600).contains(&probe.timeout_seconds) {
        return Err(error(
            format!("{path}.timeoutSeconds"),
            "must be between 1 and 3600",
        ));
    }
    Ok(Probe {
        turns,
        runs: probe.runs,
        timeout: std::time::Duration::from_secs(probe.timeout_seconds.into()),
        user_id: probe
            .user_id
            .clone()
            .unwrap_or_else(|| DEFAULT_PROBE_USER.to_string()),
        approvals: probe.approvals,
    })
}

fn compile_case(case: &Case, spec: &SuiteSpec, path: &str) -> Result<CompiledCase, SuiteError> {
    let probing = spec.probes.as_ref().is_some_and(|p| p.enabled);
    let passive = match (&case.session_id, &case.session_match) {
        (Some(_), Some(_)) => {
            return Err(error(
                path,
                "a case selects sessions by sessionId or by match, not both",
            ));
        }
        (Some(id), None) => Some(Selector::SessionId(id.clone())),
        (None, Some(m)) => Some(Selector::FirstUserMessage(text_match(
            m,
            &format!("{path}.match"),
        )?)),
        (None, None) => None,
    };
    // A case with a probe and a match (an ADK EvalSet's) probes when the
    // suite enables probes and looks at recent sessions otherwise.
    let selector = match (&case.probe, passive) {
        (Some(probe), _) if probing => {
            if case.session_id.is_some() {
                return Err(error(
                    format!("{path}.sessionId"),
                    "a probe scores the sessions it makes, not a named one",
                ));
            }
            Selector::Probe(compile_probe(probe, &format!("{path}.probe"))?)
        }
        (Some(probe), Some(passive)) => {
            compile_probe(probe, &format!("{path}.probe"))?;
            passive
        }
        (Some(_), None) => {
            return Err(error(
                format!("{path}.probe"),
                "a probe sends tasks to the Agent: it runs only in a suite with probes.enabled: true",
            ));
        }
        (None, Some(passive)) => passive,
        (None, None) => Selector::All,
    };
    if !(0.0..=1.0).contains(&case.min_pass_rate) {
        return Err(error(
            format!("{path}.minPassRate"),
            "must be between 0 and 1",
        ));
    }
    if case.evaluators.len() > MAX_EVALUATORS {
        return Err(error(
            format!("{path}.evaluators"),
            format!("at most {MAX_EVALUATORS} evaluators, as the EvalSuite CRD allows"),
        ));
    }
    if case.evaluators.is_empty() {
        return Err(error(
            format!("{path}.evaluators"),
            "a case needs at least one evaluator",
        ));
    }
    let mut names = std::collections::BTreeSet::new();
    let evaluators = case
        .evaluators
        .iter()
        .enumerate()
        .map(|(j, e)| {
            let at = format!("{path}.evaluators[{j}]");
            if !names.insert(e.name.as_str()) {
                return Err(error(
                    format!("{at}.name"),
                    format!("`{}` names two evaluators of this case", e.name),
                ));
            }
            compile_evaluator(e, &spec.defaults, &at)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut deny_tools = spec.defaults.deny_tools.clone();
    deny_tools.extend(case.deny_tools.iter().cloned());
    Ok(CompiledCase {
        name: case.name.clone(),
        selector,
        invocation_id: case.invocation_id.clone(),
        evaluators,
        min_pass_rate: case.min_pass_rate,
        allow_no_sessions: case.allow_no_sessions,
        convert: ConvertOptions {
            drop_internal_tools: case
                .drop_internal_tools
                .unwrap_or(spec.defaults.drop_internal_tools),
            deny_tools,
            include_thoughts: spec.defaults.include_thoughts,
            unwrap_structured_content: spec.defaults.unwrap_structured_content,
            ..ConvertOptions::default()
        },
    })
}

fn text_match(m: &SessionMatch, path: &str) -> Result<TextMatch, SuiteError> {
    match (&m.contains, &m.regex) {
        (Some(text), None) => Ok(TextMatch::Contains(text.clone())),
        (None, Some(pattern)) => Regex::new(pattern).map(TextMatch::Regex).map_err(|e| {
            error(
                format!("{path}.regex"),
                format!("not a regular expression: {e}"),
            )
        }),
        _ => Err(error(path, "match needs exactly one of contains or regex")),
    }
}

/// The settings field of the evaluator's type, or an error naming it.
fn settings<'a, T>(
    field: &'a Option<T>,
    kind: EvaluatorType,
    at: &str,
) -> Result<&'a T, SuiteError> {
    field.as_ref().ok_or_else(|| {
        error(
            format!("{at}.{kind}"),
            format!("an evaluator of type {kind} needs its settings in the `{kind}` field"),
        )
    })
}

/// Check one evaluator; `defaults` are its suite's, `at` its field path.
pub fn compile_evaluator(
    e: &EvaluatorSpec,
    defaults: &Defaults,
    at: &str,
) -> Result<CompiledEvaluator, SuiteError> {
    let present: Vec<&str> = EvaluatorType::ALL
        .iter()
        .filter(|t| e.has_settings(**t))
        .map(|t| t.field())
        .collect();
    if present.iter().any(|f| *f != e.kind.field()) {
        return Err(error(
            at,
            "an evaluator has the settings field of its own type only",
        ));
    }
    let here = |field: &str| format!("{at}.{}.{field}", e.kind);
    let evaluator = match e.kind {
        EvaluatorType::ToolsUsed => {
            let s = settings(&e.tools_used, e.kind, at)?;
            if s.mode == MatchMode::Strict {
                return Err(error(
                    here("mode"),
                    "toolsUsed cannot be strict: a list of tool names has no messages",
                ));
            }
            non_empty(&s.expected, &here("expected"))?;
            Evaluator::ToolsUsed {
                expected: s.expected.clone(),
                mode: s.mode,
                matching: s.matching,
            }
        }
        EvaluatorType::TrajectoryMatch => {
            let s = settings(&e.trajectory_match, e.kind, at)?;
            let messages = messages_from_value(Value::Array(s.reference.clone()))
                .map_err(|err| error(here("reference"), err))?;
            let reference = steps(&messages).map_err(|err| {
                let at = match err.message() {
                    Some(n) => format!("{}[{}]", here("reference"), n - 1),
                    None => here("reference"),
                };
                error(at, err)
            })?;
            let mut args = ArgsConfig {
                default: s.args_mode.unwrap_or(defaults.args_mode),
                overrides: Default::default(),
            };
            for (k, o) in s.overrides.iter().enumerate() {
                let parsed = match (o.mode, &o.keys) {
                    (Some(mode), None) => Override::Mode(mode),
                    (None, Some(keys)) => Override::Keys(keys.clone()),
                    _ => {
                        return Err(error(
                            format!("{}[{k}]", here("overrides")),
                            "an override sets exactly one of mode or keys",
                        ));
                    }
                };
                args.overrides.insert(o.tool.clone(), parsed);
            }
            Evaluator::TrajectoryMatch {
                reference,
                config: MatchConfig {
                    mode: s.mode,
                    args,
                    matching: s.matching,
                },
            }
        }
        EvaluatorType::ToolTrajectory => {
            let s = settings(&e.tool_trajectory, e.kind, at)?;
            let match_type = match &s.match_type {
                None => AdkMatchType::Exact,
                Some(v) => {
                    AdkMatchType::parse(v).map_err(|ConfigError(m)| error(here("matchType"), m))?
                }
            };
            Evaluator::ToolTrajectory {
                expected: s.invocations.iter().map(|i| i.tool_uses.clone()).collect(),
                comparison: Comparison {
                    match_type,
                    ignore_args: s.ignore_args,
                },
                threshold: unit(s.threshold, &here("threshold"))?,
            }
        }
        EvaluatorType::ResponseMatch => {
            let s: &ResponseMatchSpec = settings(&e.response_match, e.kind, at)?;
            let reference = match (&s.reference, &s.invocations) {
                (Some(text), None) => ResponseReference::Last(text.clone()),
                (None, Some(each)) => ResponseReference::PerInvocation(
                    each.iter().map(|r| r.final_response.clone()).collect(),
                ),
                _ => {
                    return Err(error(
                        format!("{at}.responseMatch"),
                        "responseMatch needs exactly one of reference or invocations",
                    ));
                }
            };
            Evaluator::ResponseMatch {
                reference,
                threshold: unit(s.threshold, &here("threshold"))?,
            }
        }
        EvaluatorType::ToolSelection => {
            let s = settings(&e.tool_selection, e.kind, at)?;
            non_empty(&s.expected, &here("expected"))?;
            Evaluator::ToolSelection {
                expected: s.expected.clone(),
                metric: s.metric,
                threshold: unit(s.threshold, &here("threshold"))?,
            }
        }
        EvaluatorType::ArgumentCorrectness => {
            let s = settings(&e.argument_correctness, e.kind, at)?;
            non_empty(&s.calls, &here("calls"))?;
            Evaluator::ArgumentCorrectness {
                calls: s
                    .calls
                    .iter()
                    .map(|c| ExpectedCall {
                        name: c.name.clone(),
                        args: c.args.clone(),
                        keys: c.keys.clone(),
                    })
                    .collect(),
                threshold: unit(s.threshold, &here("threshold"))?,
            }
        }
        EvaluatorType::TrajectoryDrift => {
            let s = settings(&e.trajectory_drift, e.kind, at)?;
            Evaluator::TrajectoryDrift {
                reference: s.reference.clone(),
                threshold: unit(s.threshold, &here("threshold"))?,
            }
        }
        EvaluatorType::Loops => {
            let s = settings(&e.loops, e.kind, at)?;
            if s.min_repeats < 2 {
                return Err(error(here("minRepeats"), "must be at least 2"));
            }
            Evaluator::Loops {
                window: s.window as usize,
                min_repeats: s.min_repeats as usize,
            }
        }
        EvaluatorType::Safety => {
            let s = settings(&e.safety, e.kind, at)?;
            if s.required.is_empty() && s.forbidden.is_empty() {
                return Err(error(
                    format!("{at}.safety"),
                    "safety needs required or forbidden tools",
                ));
            }
            Evaluator::Safety {
                required: s.required.clone(),
                forbidden: s.forbidden.clone(),
            }
        }
        EvaluatorType::Budget => {
            let s = settings(&e.budget, e.kind, at)?;
            if s.max_steps.is_none()
                && s.max_tokens.is_none()
                && s.max_latency_seconds.is_none()
                && s.max_cost.is_none()
            {
                return Err(error(
                    format!("{at}.budget"),
                    "budget needs at least one limit",
                ));
            }
            if s.max_cost.is_some() && s.prices.is_empty() {
                return Err(error(here("prices"), "maxCost needs prices"));
            }
            for (field, value) in [
                ("maxLatencySeconds", s.max_latency_seconds),
                ("maxCost", s.max_cost),
            ] {
                if value.is_some_and(|v| v.is_nan() || v < 0.0) {
                    return Err(error(here(field), "must not be negative"));
                }
            }
            Evaluator::Budget {
                budget: Budget {
                    max_steps: s.max_steps,
                    max_tokens: s.max_tokens,
                    max_latency_seconds: s.max_latency_seconds,
                    max_cost: s.max_cost,
                },
                prices: s
                    .prices
                    .iter()
                    .map(|p| Price {
                        model: p.model.clone(),
                        prompt_per_million: p.prompt_per_million_tokens,
                        completion_per_million: p.completion_per_million_tokens,
                    })
                    .collect(),
                per_invocation: s.per_invocation,
            }
        }
        EvaluatorType::TrajectoryJudge => {
            let s = settings(&e.trajectory_judge, e.kind, at)?;
            let reference = if s.reference.is_empty() {
                None
            } else {
                let messages = messages_from_value(Value::Array(s.reference.clone()))
                    .map_err(|err| error(here("reference"), err))?;
                steps(&messages).map_err(|err| error(here("reference"), err))?;
                Some(messages)
            };
            Evaluator::Judged {
                task: JudgeTask::Trajectory {
                    reference,
                    continuous: s.continuous,
                    threshold: unit(s.threshold, &here("threshold"))?,
                },
                sampling: sampling(s.num_samples, s.temperature, &s.prompt, &here)?,
            }
        }
        EvaluatorType::AdkJudge => {
            let s = settings(&e.adk_judge, e.kind, at)?;
            if s.metric.uses_rubrics() == s.rubrics.is_empty() {
                return Err(error(
                    here("rubrics"),
                    if s.metric.uses_rubrics() {
                        "a rubric metric needs its rubrics"
                    } else {
                        "only the rubric metrics read rubrics"
                    },
                ));
            }
            let mut ids: Vec<&str> = s.rubrics.iter().map(|r| r.id.as_str()).collect();
            ids.sort_unstable();
            if let Some(twice) = ids.windows(2).find(|w| w[0] == w[1]) {
                return Err(error(
                    here("rubrics"),
                    format!("rubric id `{}` is used twice", twice[0]),
                ));
            }
            if (s.metric == AdkJudgedMetric::FinalResponseMatchV2)
                == s.expected_responses.is_empty()
            {
                return Err(error(
                    here("expectedResponses"),
                    if s.expected_responses.is_empty() {
                        "finalResponseMatchV2 compares with the expected responses"
                    } else {
                        "only finalResponseMatchV2 reads expected responses"
                    },
                ));
            }
            if !(1..=9).contains(&s.num_samples) {
                return Err(error(here("numSamples"), "must be from 1 to 9"));
            }
            Evaluator::AdkJudge(AdkJudge {
                metric: s.metric,
                threshold: unit(s.threshold, &here("threshold"))?,
                samples: s.num_samples,
                temperature: s.temperature,
                rubrics: s
                    .rubrics
                    .iter()
                    .map(|r| Rubric {
                        id: r.id.clone(),
                        text: r.text.clone(),
                    })
                    .collect(),
                include_intermediate: s.include_intermediate_responses_in_final,
                evaluate_intermediate: s.evaluate_intermediate_nl_responses,
                expected: s.expected_responses.clone(),
            })
        }
        EvaluatorType::OutcomeJudge => {
            let s = settings(&e.outcome_judge, e.kind, at)?;
            if !(1..=5).contains(&s.min_score) {
                return Err(error(here("minScore"), "must be from 1 to 5"));
            }
            Evaluator::Judged {
                task: JudgeTask::Outcome {
                    goal: s.goal.clone(),
                    forbidden: s.forbidden_tools.clone(),
                    min_score: s.min_score,
                    require_goal_met: s.require_goal_met,
                },
                sampling: sampling(s.num_samples, s.temperature, &s.prompt, &here)?,
            }
        }
    };
    let samples_at_zero = match &evaluator {
        Evaluator::Judged { sampling, .. } => Some((sampling.samples, sampling.temperature)),
        Evaluator::AdkJudge(j) => Some((j.samples, j.temperature)),
        _ => None,
    };
    let warning = match samples_at_zero {
        Some((samples, Some(t))) if samples > 1 && t == 0.0 => Some(format!(
            "{at}.{}: {samples} samples at temperature 0 are likely the same answer {samples} times; the vote means little",
            e.kind
        )),
        _ => None,
    };
    Ok(CompiledEvaluator {
        name: e.name.clone(),
        kind: e.kind,
        evaluator,
        warning,
    })
}

fn sampling(
    samples: u32,
    temperature: Option<f64>,
    template: &Option<String>,
    here: &impl Fn(&str) -> String,
) -> Result<Sampling, SuiteError> {
    if !(1..=9).contains(&samples) {
        return Err(error(here("numSamples"), "must be from 1 to 9"));
    }
    if temperature.is_some_and(|t| !(0.0..=2.0).contains(&t)) {
        return Err(error(here("temperature"), "must be from 0 to 2"));
    }
    if let Some(template) = template {
        prompt::check_template(template).map_err(|e| error(here("prompt"), e))?;
    }
    Ok(Sampling {
        samples,
        temperature,
        template: template.clone(),
    })
}

fn non_empty<T>(items: &[T], path: &str) -> Result<(), SuiteError> {
    if items.is_empty() {
        Err(error(path, "must not be empty"))
    } else {
        Ok(())
    }
}

fn unit(threshold: f64, path: &str) -> Result<f64, SuiteError> {
    if (0.0..=1.0).contains(&threshold) {
        Ok(threshold)
    } else {
        Err(error(path, "must be between 0 and 1"))
    }
}

impl EvaluatorSpec {
    /// Whether the settings field of this type is set.
    pub fn has_settings(&self, kind: EvaluatorType) -> bool {
        match kind {
            EvaluatorType::ToolsUsed => self.tools_used.is_some(),
            EvaluatorType::TrajectoryMatch => self.trajectory_match.is_some(),
            EvaluatorType::ToolTrajectory => self.tool_trajectory.is_some(),
            EvaluatorType::ResponseMatch => self.response_match.is_some(),
            EvaluatorType::ToolSelection => self.tool_selection.is_some(),
            EvaluatorType::ArgumentCorrectness => self.argument_correctness.is_some(),
            EvaluatorType::TrajectoryDrift => self.trajectory_drift.is_some(),
            EvaluatorType::Loops => self.loops.is_some(),
            EvaluatorType::Safety => self.safety.is_some(),
            EvaluatorType::Budget => self.budget.is_some(),
            EvaluatorType::TrajectoryJudge => self.trajectory_judge.is_some(),
            EvaluatorType::OutcomeJudge => self.outcome_judge.is_some(),
            EvaluatorType::AdkJudge => self.adk_judge.is_some(),
        }
    }
}
