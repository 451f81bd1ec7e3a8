//! A suite spec checked and turned into ready-to-run evaluators. Every
//! problem names the field it is in (`spec.cases[1].evaluators[0]...`).

use super::bounds;
pub use super::evaluators::Evaluator;
use super::evaluators::SuiteScope;
use super::rules::NameKind;
use super::select::Selection;
use super::spec::{
    Approvals, Case, EvaluatorSpec, EvaluatorType, FailedTasks, GateMode, JudgeSpec, KagentApiSpec,
    KagentPostgresSpec, MaxIncrease, PriceSpec, ProbeReadFrom, ProbeSpec, ScenarioSpec,
    SecretKeyRef, SelectSpec, SessionMatch, SourceSpec, SuiteSpec, Unmeasured, UnreadableEvents,
};
use crate::convert::ConvertOptions;
use crate::efficiency::Price;
use crate::schedule::Schedule;
use crate::session::AgentRef;
use crate::task::RecordChoice;
use jiff::SignedDuration;
use regex::Regex;
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

pub(crate) fn error(path: impl Into<String>, message: impl fmt::Display) -> SuiteError {
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
    pub include_forked_sessions: bool,
    /// Which record sessions are read from.
    pub record: RecordChoice,
    /// Set when the suite enables probes.
    pub probes: Option<ProbeSettings>,
    /// Gates whose stated threshold is not what they can tell apart.
    pub gates: Vec<String>,
    pub judge: Option<JudgeSpec>,
    /// The cron schedule, parsed once.
    pub schedule: Option<Schedule>,
    pub unreadable_events: UnreadableEvents,
    pub failed_tasks: FailedTasks,
    /// What every session's cost is priced at.
    pub prices: Vec<Price>,
    pub unmeasured: Unmeasured,
    /// When the run as a whole passes.
    pub run_gate: RunGate,
    /// An EvalRun pinned as the baseline (the cluster only).
    pub baseline_run: Option<String>,
    /// What `select` kept and left out, when the suite or the command line
    /// chose cases.
    pub selection: Option<Selection>,
    pub cases: Vec<CompiledCase>,
}

/// When a run passes, beyond each case's verdict.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunGate {
    pub mode: GateMode,
    /// The share of blocking cases that may fail.
    pub max_fail_rate: f64,
    pub max_increase: MaxIncrease,
    pub max_pass_rate_drop: Option<f64>,
}

impl RunGate {
    /// Whether any gate compares with a baseline.
    pub fn needs_baseline(&self) -> bool {
        let m = &self.max_increase;
        m.cost.is_some()
            || m.latency_seconds.is_some()
            || m.tokens.is_some()
            || self.max_pass_rate_drop.is_some()
    }
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

    /// Where its probe runs' conversations are read.
    pub fn probes_read_from(&self) -> ProbeReadFrom {
        self.probes.map_or(ProbeReadFrom::Source, |p| p.read_from)
    }

    /// Whether any case is scored on sessions a source records: every one
    /// but a probe that reads its conversation from the Agent.
    pub fn reads_recorded_sessions(&self) -> bool {
        let probes_read_source = self.probes_read_from() == ProbeReadFrom::Source;
        self.cases
            .iter()
            .any(|c| probes_read_source || !matches!(c.selector, Selector::Probe(_)))
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
            include_forked_sessions: false,
            record: RecordChoice::Auto,
            probes: None,
            gates: Vec::new(),
            judge: None,
            schedule: None,
            unreadable_events: UnreadableEvents::default(),
            failed_tasks: FailedTasks::default(),
            prices: Vec::new(),
            unmeasured: Unmeasured::default(),
            run_gate: RunGate::default(),
            baseline_run: None,
            selection: None,
            cases: Vec::new(),
        }
    }

    /// Only the cases `select` chooses, in place of those of the suite's
    /// own `select`; possibly none, for the caller to report.
    pub fn narrow(&mut self, select: &SelectSpec) -> Result<(), SuiteError> {
        let all = std::mem::take(&mut self.cases);
        let (cases, selection) = crate::suite::select::select(all, select, "select")?;
        self.cases = cases;
        self.selection = selection;
        Ok(())
    }

    /// Judge calls in flight at once.
    pub fn judge_concurrency(&self) -> usize {
        self.judge
            .as_ref()
            .and_then(|j| j.concurrency)
            .unwrap_or(bounds::JUDGE_CONCURRENCY_DEFAULT) as usize
    }

    /// Whether any evaluator needs an LLM judge.
    /// Whether a judge model is asked: by a judged evaluator, or as the
    /// simulated user of a scenario probe.
    pub fn uses_judge(&self) -> bool {
        self.evaluators().any(|e| e.kind.is_judged()) || self.simulates()
    }

    /// Whether a probe's user is simulated.
    pub fn simulates(&self) -> bool {
        self.probe_cases()
            .any(|(_, _, probe)| matches!(probe.turns, Turns::Scenario(_)))
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
    /// Whether its failure fails the run.
    pub blocking: bool,
    pub tags: Vec<String>,
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
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub turns: Turns,
    pub runs: u32,
    pub timeout: std::time::Duration,
    pub user_id: String,
    pub approvals: Approvals,
    /// Answers to the Agent's questions, in the order it asks them.
    pub answers: Vec<Vec<String>>,
}

/// What a probe says to the Agent: a script, or a simulated user.
#[derive(Clone, Debug, PartialEq)]
pub enum Turns {
    Script(Vec<String>),
    Scenario(Scenario),
}

/// A simulated user's conversation, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub starting_prompt: String,
    pub plan: String,
    pub persona: Option<String>,
    pub max_turns: u32,
    /// In place of the judge's model.
    pub model: Option<String>,
    pub temperature: Option<f64>,
}

impl Turns {
    /// The most user turns one run may send.
    pub fn most(&self) -> u32 {
        match self {
            Turns::Script(turns) => turns.len() as u32,
            Turns::Scenario(scenario) => scenario.max_turns,
        }
    }
}

/// How many probe runs a run may make, how many at once, and where their
/// conversations are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeSettings {
    pub max_runs: u32,
    pub concurrency: u32,
    pub read_from: ProbeReadFrom,
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

/// Every name a suite gives that may reach a URL, an API path or a query,
/// with its field path below `spec` and the kind of name it must be.
fn path_names(spec: &SuiteSpec) -> Vec<(String, &str, NameKind)> {
    let mut names = Vec::new();
    if let Some(agent) = &spec.agent_ref {
        names.push((
            "agentRef.name".to_string(),
            agent.name.as_str(),
            NameKind::Object,
        ));
        if let Some(namespace) = &agent.namespace {
            names.push((
                "agentRef.namespace".to_string(),
                namespace.as_str(),
                NameKind::Namespace,
            ));
        }
    }
    for (field, reference) in secret_references(spec) {
        names.push((
            format!("{field}.name"),
            reference.name.as_str(),
            NameKind::Object,
        ));
    }
    if let Some(config) = spec
        .judge
        .as_ref()
        .and_then(|j| j.model_config_ref.as_ref())
    {
        names.push((
            "judge.modelConfigRef.name".to_string(),
            config.name.as_str(),
            NameKind::Object,
        ));
    }
    if let Some(SourceSpec {
        kagent_postgres:
            Some(KagentPostgresSpec {
                schema: Some(schema),
                ..
            }),
        ..
    }) = &spec.source
    {
        names.push((
            "source.kagentPostgres.schema".to_string(),
            schema.as_str(),
            NameKind::SqlSchema,
        ));
    }
    if let Some(SourceSpec {
        kagent_api: Some(KagentApiSpec {
            user_id: Some(user),
            ..
        }),
        ..
    }) = &spec.source
    {
        names.push((
            "source.kagentApi.userId".to_string(),
            user.as_str(),
            NameKind::Id,
        ));
    }
    for (i, case) in spec.cases.iter().enumerate() {
        let ids = [
            ("sessionId", case.session_id.as_ref()),
            (
                "probe.userId",
                case.probe.as_ref().and_then(|p| p.user_id.as_ref()),
            ),
        ];
        for (field, id) in ids {
            if let Some(id) = id {
                names.push((format!("cases[{i}].{field}"), id.as_str(), NameKind::Id));
            }
        }
    }
    names
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
    for (field, name, kind) in path_names(spec) {
        if !kind.allows(name) {
            return Err(error(format!("{at}.{field}"), kind.message()));
        }
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
    if spec.cases.len() > bounds::CASES.max {
        return Err(error(
            format!("{at}.cases"),
            format!(
                "at most {} cases, as the EvalSuite CRD allows",
                bounds::CASES.max
            ),
        ));
    }
    if spec
        .sessions
        .limit
        .is_some_and(|limit| limit < bounds::SESSION_LIMIT_MIN)
    {
        return Err(error(
            format!("{at}.sessions.limit"),
            format!("must be at least {}", bounds::SESSION_LIMIT_MIN),
        ));
    }
    if spec.starting_deadline_seconds.is_some_and(|s| s < 0) {
        return Err(error(
            format!("{at}.startingDeadlineSeconds"),
            "must not be negative",
        ));
    }
    if let Some(judge) = &spec.judge {
        check_judge(judge, &format!("{at}.judge"))?;
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
    let (cases, selection) = crate::suite::select::select(
        cases,
        spec.select.as_ref().unwrap_or(&SelectSpec::default()),
        &format!("{at}.select"),
    )?;
    if let Some(selection) = selection.as_ref().filter(|_| cases.is_empty()) {
        return Err(error(format!("{at}.select"), selection.nothing_selected()));
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
            bounds::PROBE_RUNS_PER_RUN.check(p.max_runs, format!("{at}.probes.maxRuns"))?;
            if runs > p.max_runs {
                return Err(error(
                    format!("{at}.probes.maxRuns"),
                    format!(
                        "the probe cases make {runs} runs, more than maxRuns {}",
                        p.max_runs
                    ),
                ));
            }
            bounds::PROBE_CONCURRENCY.check(p.concurrency, format!("{at}.probes.concurrency"))?;
            let simulated: u32 = cases
                .iter()
                .filter_map(|c| match &c.selector {
                    Selector::Probe(probe) if matches!(probe.turns, Turns::Scenario(_)) => {
                        Some(probe.runs * probe.turns.most())
                    }
                    _ => None,
                })
                .sum();
            if simulated > bounds::SIMULATED_TURNS_PER_RUN {
                return Err(error(
                    format!("{at}.cases"),
                    format!(
                        "the scenario probes may simulate {simulated} user turns (runs times maxTurns), more than the {} one run allows",
                        bounds::SIMULATED_TURNS_PER_RUN
                    ),
                ));
            }
            Some(ProbeSettings {
                max_runs: p.max_runs,
                concurrency: p.concurrency,
                read_from: p.read_from,
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
        include_forked_sessions: spec.sessions.include_forked_sessions,
        record: spec.sessions.record,
        probes,
        gates: effective_thresholds(&cases, at),
        judge: spec.judge.clone(),
        schedule,
        unreadable_events: spec.unreadable_events,
        failed_tasks: spec.failed_tasks,
        prices: spec.prices.iter().map(PriceSpec::price).collect(),
        unmeasured: spec.unmeasured,
        run_gate: run_gate(spec, at)?,
        baseline_run: spec.baseline.as_ref().map(|b| b.run_name.clone()),
        selection,
        cases,
    })
}

/// Prices are numbers, not negative.
fn check_prices(prices: &[PriceSpec], at: &str) -> Result<(), SuiteError> {
    for (i, price) in prices.iter().enumerate() {
        for (field, value) in [
            ("promptPerMillionTokens", price.prompt_per_million_tokens),
            (
                "completionPerMillionTokens",
                price.completion_per_million_tokens,
            ),
        ] {
            if !value.is_finite() || value < 0.0 {
                return Err(error(
                    format!("{at}[{i}].{field}"),
                    "must be a number, not negative",
                ));
            }
        }
    }
    Ok(())
}

/// The judge's own limits, prices and calibration, checked.
fn check_judge(judge: &JudgeSpec, at: &str) -> Result<(), SuiteError> {
    if let Some(timeout) = judge.timeout_seconds
        && timeout < bounds::JUDGE_TIMEOUT_SECONDS_MIN
    {
        return Err(error(
            format!("{at}.timeoutSeconds"),
            format!("must be at least {}", bounds::JUDGE_TIMEOUT_SECONDS_MIN),
        ));
    }
    if let Some(concurrency) = judge.concurrency {
        bounds::JUDGE_CONCURRENCY.check(concurrency, format!("{at}.concurrency"))?;
    }
    for (field, value) in [
        ("maxCalls", judge.max_calls),
        ("maxTokens", judge.max_tokens),
    ] {
        if value == Some(0) {
            return Err(error(format!("{at}.{field}"), "must be at least 1"));
        }
    }
    check_prices(&judge.prices, &format!("{at}.prices"))?;
    if let Some(calibration) = &judge.calibration {
        if !(-1.0..=1.0).contains(&calibration.kappa) {
            return Err(error(
                format!("{at}.calibration.kappa"),
                "must be between -1 and 1",
            ));
        }
        if calibration.labels == 0 {
            return Err(error(
                format!("{at}.calibration.labels"),
                "must be at least 1",
            ));
        }
    }
    Ok(())
}

/// The run's gates, checked.
fn run_gate(spec: &SuiteSpec, at: &str) -> Result<RunGate, SuiteError> {
    check_prices(&spec.prices, &format!("{at}.prices"))?;
    let gates = spec.gates.clone().unwrap_or_default();
    let path = |field: &str| format!("{at}.gates.{field}");
    if let Some(rate) = gates.max_fail_rate {
        bounds::UNIT.check(rate, path("maxFailRate"))?;
    }
    if let Some(drop) = gates.max_pass_rate_drop {
        bounds::UNIT.check(drop, path("maxPassRateDrop"))?;
    }
    let max_increase = gates.max_increase.unwrap_or_default();
    for (field, value) in [
        ("cost", max_increase.cost),
        ("latencySeconds", max_increase.latency_seconds),
        ("tokens", max_increase.tokens),
    ] {
        if value.is_some_and(|v| !v.is_finite() || v < 0.0) {
            return Err(error(
                path(&format!("maxIncrease.{field}")),
                "must be a fraction, not negative",
            ));
        }
    }
    Ok(RunGate {
        mode: spec.gate,
        max_fail_rate: gates.max_fail_rate.unwrap_or(0.0),
        max_increase,
        max_pass_rate_drop: gates.max_pass_rate_drop,
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
            .find_map(|e| e.evaluator.scorer().expected_invocations())
            .unwrap_or(1);
        for (j, e) in case.evaluators.iter().enumerate() {
            let Some(judge) = e.evaluator.scorer().adk_judge() else {
                continue;
            };
            // Groundedness scores are fractions of sentences: no grid.
            if judge.metric == crate::judge::adk::Metric::Hallucinations {
                continue;
            }
            let rubrics = judge.rubrics.len().max(1);
            let slots = (rubrics * runs * invocations) as u32;
            let effective = crate::judge::adk::effective_threshold(judge.threshold, slots);
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
            let effective = crate::judge::adk::effective_threshold(case.min_pass_rate, runs as u32);
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
    let turns = match (&probe.input, probe.conversation.as_slice(), &probe.scenario) {
        (Some(input), [], None) => Turns::Script(vec![input.clone()]),
        (None, turns, None) if !turns.is_empty() => Turns::Script(turns.to_vec()),
        (None, [], Some(scenario)) => Turns::Scenario(compile_scenario(scenario, path)?),
        _ => {
            return Err(error(
                path,
                "a probe has exactly one of input, conversation and scenario",
            ));
        }
    };
    if let Turns::Script(turns) = &turns
        && turns.iter().any(|t| t.trim().is_empty())
    {
        return Err(error(path, "a probe's user turns must not be empty"));
    }
    if probe.conversation.len() > bounds::CONVERSATION_TURNS.max {
        return Err(error(
            format!("{path}.conversation"),
            format!(
                "at most {} user turns, as the EvalSuite CRD allows",
                bounds::CONVERSATION_TURNS.max
            ),
        ));
    }
    bounds::RUNS_PER_PROBE.check(probe.runs, format!("{path}.runs"))?;
    bounds::PROBE_TIMEOUT_SECONDS.check(probe.timeout_seconds, format!("{path}.timeoutSeconds"))?;
    Ok(Probe {
        turns,
        runs: probe.runs,
        timeout: std::time::Duration::from_secs(probe.timeout_seconds.into()),
        user_id: probe
            .user_id
            .clone()
            .unwrap_or_else(|| DEFAULT_PROBE_USER.to_string()),
        approvals: probe.approvals,
        answers: probe.answers.clone(),
    })
}

fn compile_scenario(scenario: &ScenarioSpec, path: &str) -> Result<Scenario, SuiteError> {
    let at = format!("{path}.scenario");
    for (field, text) in [
        ("startingPrompt", &scenario.starting_prompt),
        ("plan", &scenario.plan),
    ] {
        if text.trim().is_empty() {
            return Err(error(format!("{at}.{field}"), "must not be empty"));
        }
    }
    bounds::SCENARIO_TURNS.check(scenario.max_turns, format!("{at}.maxTurns"))?;
    if let Some(temperature) = scenario.temperature {
        bounds::TEMPERATURE.check(temperature, format!("{at}.temperature"))?;
    }
    Ok(Scenario {
        starting_prompt: scenario.starting_prompt.clone(),
        plan: scenario.plan.clone(),
        persona: scenario.persona.clone(),
        max_turns: scenario.max_turns,
        model: scenario.model.clone(),
        temperature: scenario.temperature,
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
    bounds::UNIT.check(case.min_pass_rate, format!("{path}.minPassRate"))?;
    if case.evaluators.len() > bounds::EVALUATORS.max {
        return Err(error(
            format!("{path}.evaluators"),
            format!(
                "at most {} evaluators, as the EvalSuite CRD allows",
                bounds::EVALUATORS.max
            ),
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
            compile_evaluator(e, SuiteScope::of(spec), &at)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut evaluators = evaluators;
    for (p, profile) in spec.profiles.iter().enumerate() {
        if !profile.tags.iter().any(|t| case.tags.contains(t)) {
            continue;
        }
        let at = format!("spec.profiles[{p}]");
        let name = format!("{} budget", profile.name);
        if names.contains(name.as_str()) {
            return Err(error(
                format!("{path}.evaluators"),
                format!(
                    "`{name}` names an evaluator of the case and the budget of profile {}",
                    profile.name
                ),
            ));
        }
        let budget = EvaluatorSpec::with_settings(&name, EvaluatorType::Budget, &profile.budget)
            .map_err(|e| error(format!("{at}.budget"), e))?;
        evaluators.push(compile_evaluator(&budget, SuiteScope::of(spec), &at)?);
    }
    let mut deny_tools = spec.defaults.deny_tools.clone();
    deny_tools.extend(case.deny_tools.iter().cloned());
    Ok(CompiledCase {
        name: case.name.clone(),
        selector,
        invocation_id: case.invocation_id.clone(),
        evaluators,
        min_pass_rate: case.min_pass_rate,
        allow_no_sessions: case.allow_no_sessions,
        blocking: case.blocking,
        tags: case.tags.clone(),
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

/// Check one evaluator of the suite `scope` is of; `at` its field path.
pub fn compile_evaluator(
    e: &EvaluatorSpec,
    scope: SuiteScope<'_>,
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
    let evaluator = e.compile_settings(scope, at)?;
    let warning = match evaluator.scorer().sampling() {
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

pub(crate) fn non_empty<T>(items: &[T], path: &str) -> Result<(), SuiteError> {
    if items.is_empty() {
        Err(error(path, "must not be empty"))
    } else {
        Ok(())
    }
}

pub(crate) fn unit(threshold: f64, path: &str) -> Result<f64, SuiteError> {
    bounds::UNIT.check(threshold, path)
}
