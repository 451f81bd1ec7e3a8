//! The EvalRun reconciler's decisions, as pure functions of what it
//! gathered and of the time: whether to execute a run now, the status of a
//! run it claims, which failure stopped a run, the status, Events and
//! metrics of a run that ends, and what a regression is blamed on.

use super::{PlannedEvent, Regarding};
use crate::core::suite::gate::{Baseline, BaselineCase, Means};
use crate::core::suite::report::{Outcome, Report};
use crate::k8s::conditions::{self, Want};
use crate::k8s::crd::{
    AgentSnapshot, CaseCounts, CaseResult, EvalRun, EvalRunStatus, Executor, Phase, RevisionResult,
};
use crate::k8s::kagent_agent;
use crate::k8s::vocabulary::{ConditionType, EventReason, Failure, Reason, RunResult};
use crate::pipeline::{OpenError, RunError};
use crate::resolve::{Refusal, RefusalReason};
use jiff::{SignedDuration, Timestamp};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use std::time::Duration;

/// Whether to execute a run that has not finished.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// Execute it as attempt `attempt`; `resumed` when an earlier attempt
    /// was interrupted.
    Execute { attempt: u32, resumed: bool },
    /// Another replica is executing it and was alive recently: look again
    /// after this long.
    Wait(Duration),
    /// Interrupted more often than allowed: end it in Error.
    GiveUp { attempts: u32 },
}

/// `me` is this replica; a run another replica executes is taken over only
/// when its heartbeat is older than `stale_after`, so two leaders for a
/// moment never execute one run twice.
pub fn start(
    status: &EvalRunStatus,
    me: &str,
    now: Timestamp,
    stale_after: SignedDuration,
    max_attempts: u32,
) -> Start {
    let attempts = status.attempts.unwrap_or(0);
    let resumed = status.phase == Some(Phase::Running);
    if resumed
        && let Some(executor) = &status.executor
        && executor.identity != me
    {
        let age = now.duration_since(executor.heartbeat_time.0);
        if age < stale_after {
            return Start::Wait((stale_after - age).unsigned_abs());
        }
    }
    if attempts >= max_attempts {
        return Start::GiveUp { attempts };
    }
    Start::Execute {
        attempt: attempts + 1,
        resumed,
    }
}

/// The status of a run this replica starts executing.
pub fn claimed(
    status: &EvalRunStatus,
    attempt: u32,
    resumed: bool,
    me: &str,
    generation: Option<i64>,
    now: Timestamp,
) -> EvalRunStatus {
    let mut claimed = EvalRunStatus {
        phase: Some(Phase::Running),
        attempts: Some(attempt),
        start_time: Some(status.start_time.clone().unwrap_or(Time(now))),
        message: resumed.then(|| format!("attempt {attempt}: resumed after an interruption")),
        executor: Some(Executor {
            identity: me.to_string(),
            heartbeat_time: Time(now),
        }),
        ..status.clone()
    };
    let mut wants = vec![Want {
        type_: ConditionType::Complete,
        status: false,
        reason: Reason::Running,
        message: String::new(),
    }];
    wants.extend(lifecycle(Lifecycle::InProgress(Reason::Running), ""));
    claimed.conditions = conditions::merge(&status.conditions, &wants, generation, now);
    claimed.observed_generation = generation;
    claimed
}

/// The status of a run that waits for one of the operator's `slots` run
/// slots: Pending, and Reconciling with the reason, so that kstatus and
/// `kubectl get` see it waiting rather than never looked at. None when the
/// status already says so, or the run has started (a run resumed after an
/// interruption keeps its Running status while it waits).
pub fn waiting_for_slot(
    status: &EvalRunStatus,
    slots: usize,
    generation: Option<i64>,
    now: Timestamp,
) -> Option<EvalRunStatus> {
    let started = matches!(status.phase, Some(phase) if phase != Phase::Pending);
    let said = status.conditions.iter().any(|c| {
        c.type_ == ConditionType::Reconciling.as_str()
            && c.reason == Reason::WaitingForSlot.as_str()
            && c.status == "True"
    });
    if started || said {
        return None;
    }
    let message =
        format!("waits for one of the operator's {slots} run slots (--max-concurrent-runs)");
    Some(EvalRunStatus {
        phase: Some(Phase::Pending),
        message: Some(message.clone()),
        observed_generation: generation,
        conditions: conditions::merge(
            &status.conditions,
            &lifecycle(Lifecycle::InProgress(Reason::WaitingForSlot), &message),
            generation,
            now,
        ),
        ..status.clone()
    })
}

/// Where a run is in its life, as kstatus reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lifecycle {
    /// Pending or running.
    InProgress(Reason),
    /// It finished with a verdict, passed or failed.
    Verdict(Reason),
    /// It could not be done.
    Stopped(Failure),
}

/// The kstatus conditions of a run: `Reconciling` while it is pending or
/// running, `Stalled` when it could not be done (with the reason), `Ready`
/// once it has a verdict: a failed eval is a verdict, not a broken
/// resource.
pub fn lifecycle(state: Lifecycle, message: &str) -> [Want; 3] {
    let want = |type_, status, reason| Want {
        type_,
        status,
        reason,
        message: message.to_string(),
    };
    match state {
        Lifecycle::InProgress(reason) => [
            want(ConditionType::Ready, false, reason),
            want(ConditionType::Reconciling, true, reason),
            want(ConditionType::Stalled, false, reason),
        ],
        Lifecycle::Verdict(reason) => [
            want(ConditionType::Ready, true, reason),
            want(ConditionType::Reconciling, false, Reason::Finished),
            want(ConditionType::Stalled, false, Reason::Finished),
        ],
        Lifecycle::Stopped(failure) => [
            want(ConditionType::Ready, false, Reason::Failure(failure)),
            want(ConditionType::Reconciling, false, Reason::Failure(failure)),
            want(ConditionType::Stalled, true, Reason::Failure(failure)),
        ],
    }
}

/// What a run learnt on the way, recorded in its last status however it ends.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Learnt {
    /// The Agent as it was evaluated.
    pub agent: Option<AgentSnapshot>,
    /// Where the sessions were read, and whose source that was.
    pub source: Option<String>,
}

/// How a run ends.
#[derive(Clone, Debug)]
pub enum Ending {
    /// Every case was scored.
    Scored { report: Box<Report>, learnt: Learnt },
    /// The run could not be done.
    Failed {
        failure: Failure,
        message: String,
        learnt: Learnt,
    },
}

impl Ending {
    /// A run that could not be done, `learnt` what it had learnt by then.
    pub fn failed(failure: Failure, message: impl Into<String>, learnt: Learnt) -> Ending {
        Ending::Failed {
            failure,
            message: message.into(),
            learnt,
        }
    }
}

/// What stopped a run before it scored: the resolver refused, something
/// could not be opened, or the run could not be done.
#[derive(Clone, Copy, Debug)]
pub enum Stopped<'a> {
    Refused(&'a Refusal),
    NotOpened(&'a OpenError),
    Run(&'a RunError),
}

/// The failure a run that stopped ends with.
pub fn failure_of(stopped: Stopped<'_>) -> Failure {
    match stopped {
        Stopped::Refused(refusal) => match refusal.reason {
            RefusalReason::Forbidden => Failure::Forbidden,
            RefusalReason::InvalidSpec => Failure::InvalidSpec,
            RefusalReason::SourceUnavailable => Failure::SourceUnavailable,
            RefusalReason::JudgeUnavailable => Failure::JudgeUnavailable,
        },
        Stopped::NotOpened(OpenError::Source(_)) | Stopped::Run(RunError::Source(_)) => {
            Failure::SourceUnavailable
        }
        Stopped::NotOpened(OpenError::Judge(_)) | Stopped::Run(RunError::Judge(_)) => {
            Failure::JudgeUnavailable
        }
        Stopped::NotOpened(OpenError::Agent(_))
        | Stopped::Run(RunError::Agent(_) | RunError::CannotProbe(_)) => Failure::AgentUnavailable,
    }
}

/// A run's last status and what to publish about it.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedRun {
    pub status: EvalRunStatus,
    pub result: RunResult,
    pub events: Vec<PlannedEvent>,
    /// From start to end, for the duration histogram.
    pub seconds: Option<f64>,
}

/// The status, Events and metrics of a run that ends: `status` as it was
/// claimed, and what the run learnt carried in its ending.
pub fn finish(
    status: &EvalRunStatus,
    generation: Option<i64>,
    ending: Ending,
    now: Timestamp,
) -> FinishedRun {
    let mut status = EvalRunStatus {
        completion_time: Some(Time(now)),
        executor: None,
        ..status.clone()
    };
    let learnt = match &ending {
        Ending::Scored { learnt, .. } | Ending::Failed { learnt, .. } => learnt.clone(),
    };
    status.agent = learnt.agent.or(status.agent);
    status.source = learnt.source.or(status.source);
    let (result, reason, message) = match ending {
        Ending::Failed {
            failure, message, ..
        } => {
            status.phase = Some(Phase::Error);
            status.failure = Some(failure);
            (RunResult::Error, Reason::Failure(failure), message)
        }
        Ending::Scored { report, .. } => {
            let outcomes = outcomes(&report);
            let summary = format!("{}/{}", outcomes.cases.passed, outcomes.cases.total);
            let gate = &report.gate;
            let (result, reason) = match outcomes.failure {
                None if report.passed && gate.non_blocking_failures.is_empty() => {
                    (RunResult::Passed, Reason::Passed)
                }
                None if report.passed => (RunResult::Passed, Reason::PassedWithNonBlockingFailures),
                _ if gate.blocked() => (RunResult::Failed, Reason::Failed),
                Some(failure) => (RunResult::Error, Reason::Failure(failure)),
                None => (RunResult::Failed, Reason::Failed),
            };
            let message = match (&outcomes.worst, result) {
                _ if result == RunResult::Failed && !gate.breaches.is_empty() => {
                    format!("{summary} cases passed; {}", gate.breaches.join("; "))
                }
                _ if result == RunResult::Error && !gate.errors.is_empty() => {
                    format!("{summary} cases passed; {}", gate.errors.join("; "))
                }
                (Some(worst), RunResult::Failed | RunResult::Error) => {
                    format!("{summary} cases passed; {worst}")
                }
                _ if !gate.non_blocking_failures.is_empty() => format!(
                    "{summary} cases passed over {} session(s); {} case(s) failed without blocking the run: {}",
                    outcomes.sessions,
                    gate.non_blocking_failures.len(),
                    gate.non_blocking_failures.join(", ")
                ),
                _ => format!(
                    "{summary} cases passed over {} session(s)",
                    outcomes.sessions
                ),
            };
            status.phase = Some(match result {
                RunResult::Passed => Phase::Succeeded,
                RunResult::Failed => Phase::Failed,
                RunResult::Error => Phase::Error,
            });
            status.failure = match reason {
                Reason::Failure(failure) => Some(failure),
                _ => None,
            };
            status.sessions_evaluated = Some(outcomes.sessions);
            status.summary = Some(summary);
            status.pass_rate = outcomes.pass_rate;
            status.results = outcomes.results;
            status.results_truncated = outcomes.truncated;
            status.revisions = outcomes.revisions;
            status.cases = Some(outcomes.cases);
            status.judge = report.judge.clone();
            status.probe_protocol = report.probed_with.clone();
            status.selection = report.selection.as_ref().map(|s| s.counted());
            status.efficiency = Some(report.efficiency.clone());
            status.baseline = report.baseline.clone();
            status.gate = Some(report.gate.clone());
            (result, reason, message)
        }
    };
    status.message = (result != RunResult::Passed).then(|| message.clone());
    let (complete_reason, state) = match reason {
        Reason::Failure(failure) => (reason, Lifecycle::Stopped(failure)),
        _ => (Reason::Finished, Lifecycle::Verdict(reason)),
    };
    let mut wants = vec![
        Want {
            type_: ConditionType::Complete,
            status: true,
            reason: complete_reason,
            message: message.clone(),
        },
        Want {
            type_: ConditionType::Passed,
            status: result == RunResult::Passed,
            reason,
            message: message.clone(),
        },
    ];
    wants.extend(lifecycle(state, &message));
    status.conditions = conditions::merge(&status.conditions, &wants, generation, now);
    status.observed_generation = generation;
    let event_reason = match reason {
        Reason::Failure(failure) => EventReason::Failure(failure),
        Reason::Passed => EventReason::EvalRunPassed,
        _ => EventReason::EvalRunFailed,
    };
    let seconds = status
        .start_time
        .as_ref()
        .map(|start| now.duration_since(start.0).as_secs_f64().max(0.0));
    let mut events = vec![PlannedEvent {
        warning: result != RunResult::Passed,
        reason: event_reason,
        note: message,
        regarding: Regarding::RunAndSuite,
    }];
    if let Some(gate) = status
        .gate
        .as_ref()
        .filter(|g| !g.non_blocking_failures.is_empty())
    {
        events.push(PlannedEvent {
            warning: true,
            reason: EventReason::NonBlockingCasesFailed,
            note: truncate(
                &format!(
                    "{} case(s) failed without blocking the run: {}",
                    gate.non_blocking_failures.len(),
                    gate.non_blocking_failures.join(", ")
                ),
                900,
            ),
            regarding: Regarding::RunAndSuite,
        });
    }
    FinishedRun {
        result,
        seconds,
        events,
        status,
    }
}

/// The name of a run's full-report ConfigMap: `<run>-report`, shortened
/// with a hash of the run's name when the whole would pass 253 characters.
pub fn report_config_map(run: &str) -> String {
    crate::k8s::names::bounded(run, "-report", crate::core::suite::bounds::OBJECT_NAME_MAX)
}

/// Case results kept in a run's status, and the length of each message: an
/// object stays far below etcd's limit however large the suite.
pub const MAX_RESULTS: usize = 256;
pub const MAX_MESSAGE: usize = 240;

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

/// What a report says, in the shape of a run's status.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcomes {
    /// Why cases could not be done, when any could not.
    pub failure: Option<Failure>,
    pub cases: CaseCounts,
    pub pass_rate: Option<f64>,
    pub sessions: u32,
    pub results: Vec<CaseResult>,
    pub truncated: bool,
    pub revisions: Vec<RevisionResult>,
    /// The first failing case, briefly, for Events.
    pub worst: Option<String>,
}

pub fn outcomes(report: &Report) -> Outcomes {
    let s = &report.summary;
    let mut results: Vec<(bool, CaseResult)> = report
        .cases
        .iter()
        .map(|case| {
            let failed_sessions = case.sessions.iter().filter(|s| !s.passed).count() as u32;
            let first_failure = case.sessions.iter().filter(|s| !s.passed).find_map(|s| {
                s.error
                    .clone()
                    .or_else(|| s.failing_task().map(|f| f.error.clone()))
                    .map(|e| format!("{}: {e}", s.session_id))
                    .or_else(|| {
                        s.evaluations.iter().find(|e| !e.passed).map(|e| {
                            let why = e
                                .error
                                .as_deref()
                                .or(e.comment.as_deref())
                                .unwrap_or("failed");
                            format!("{} / {}: {why}", s.session_id, e.name)
                        })
                    })
            });
            let message = match (case.outcome, first_failure) {
                (_, Some(m)) => Some(m),
                (Outcome::NoSessions, None) => Some(if case.notes.is_empty() {
                    "no session matched".to_string()
                } else {
                    case.notes.join("; ")
                }),
                _ => None,
            };
            (
                case.passed,
                CaseResult {
                    name: case.name.clone(),
                    outcome: case.outcome,
                    pass_rate: case.pass_rate,
                    sessions: case.sessions.len() as u32,
                    failed_sessions,
                    message: message.map(|m| truncate(&m, MAX_MESSAGE)),
                    probe: case.probe,
                    efficiency: Some(compact(Means::of(&case.efficiency))),
                    blocking: (!case.blocking).then_some(false),
                },
            )
        })
        .collect();
    // Failing cases first; the order within each group is the suite's.
    results.sort_by_key(|(passed, _)| *passed);
    let worst = results
        .iter()
        .find(|(passed, _)| !passed)
        .map(|(_, r)| match &r.message {
            Some(m) => format!("case {} {:?}: {m}", r.name, r.outcome),
            None => format!("case {} {:?}", r.name, r.outcome),
        });
    let truncated = results.len() > MAX_RESULTS;
    results.truncate(MAX_RESULTS);
    let failure = match (
        s.errors,
        s.unreadable_sessions,
        report.gate.errors.is_empty(),
    ) {
        (0, _, true) => None,
        (0, _, false) => Some(Failure::GateNotEvaluated),
        (_, 0, _) => Some(Failure::EvaluatorError),
        _ => Some(Failure::UnreadableSessions),
    };
    Outcomes {
        failure,
        cases: CaseCounts {
            total: s.cases as u32,
            passed: s.passed as u32,
            failed: s.failed as u32,
            no_sessions: s.no_sessions as u32,
            errors: s.errors as u32,
            unreadable_sessions: s.unreadable_sessions as u32,
            failed_tasks: s.failed_tasks as u32,
            failed_tasks_scored: s.failed_tasks_scored as u32,
        },
        pass_rate: (s.cases > 0).then(|| s.passed as f64 / s.cases as f64),
        sessions: s.sessions as u32,
        results: results.into_iter().map(|(_, r)| r).collect(),
        truncated,
        revisions: revisions(report),
        worst: worst.map(|w| truncate(&w, 900)),
    }
}

/// A case's means for a run's status: the percentiles left out, so a
/// status with many cases stays small.
fn compact(mut means: Means) -> Means {
    for stat in [
        &mut means.cost,
        &mut means.latency_seconds,
        &mut means.total_tokens,
    ] {
        stat.p50 = None;
        stat.p95 = None;
    }
    means
}

/// The sessions of every case by the kagent 1.0 revision they ran on, in
/// the order revisions are first met; none for a 0.10 run, whose sessions
/// have no revision. Bounded, as the rest of the status is.
fn revisions(report: &Report) -> Vec<RevisionResult> {
    const MAX_REVISIONS: usize = 32;
    let sessions = || report.cases.iter().flat_map(|c| &c.sessions);
    if sessions().all(|s| s.revision.is_none()) {
        return Vec::new();
    }
    let mut grouped: Vec<RevisionResult> = Vec::new();
    for session in sessions() {
        let revision = session.revision.as_deref().unwrap_or(UNKNOWN_REVISION);
        let at = match grouped.iter().position(|r| r.revision == revision) {
            Some(at) => at,
            None => {
                grouped.push(RevisionResult {
                    revision: revision.to_string(),
                    sessions: 0,
                    failed_sessions: 0,
                });
                grouped.len() - 1
            }
        };
        grouped[at].sessions += 1;
        grouped[at].failed_sessions += u32::from(!session.passed);
    }
    grouped.truncate(MAX_REVISIONS);
    grouped
}

/// A 1.0 session whose revision is no longer recorded (deleting a runtime
/// clears it).
const UNKNOWN_REVISION: &str = "unknown";

/// What is known about one finished run, to compare two of them.
#[derive(Clone, Copy, Debug)]
pub struct RunFacts<'a> {
    pub name: &'a str,
    pub status: &'a EvalRunStatus,
    pub suite_generation: Option<i64>,
}

/// Cases that passed in the previous run and do not now, and what changed
/// between the two runs: the suite, the Agent, the source, or nothing known.
pub fn regression(previous: RunFacts<'_>, current: RunFacts<'_>) -> Option<PlannedEvent> {
    let passed_before: Vec<&str> = previous
        .status
        .results
        .iter()
        .filter(|r| r.outcome == Outcome::Passed)
        .map(|r| r.name.as_str())
        .collect();
    let regressed: Vec<&CaseResult> = current
        .status
        .results
        .iter()
        .filter(|r| r.outcome != Outcome::Passed && passed_before.contains(&r.name.as_str()))
        .collect();
    if regressed.is_empty() {
        return None;
    }
    let names = |outcomes: &[Outcome]| -> Vec<&str> {
        regressed
            .iter()
            .filter(|r| outcomes.contains(&r.outcome))
            .map(|r| r.name.as_str())
            .collect()
    };
    let failing = names(&[Outcome::Failed, Outcome::Error]);
    let empty = names(&[Outcome::NoSessions]);
    let mut parts = Vec::new();
    if !failing.is_empty() {
        parts.push(format!(
            "case(s) {} passed in {} and fail now",
            failing.join(", "),
            previous.name
        ));
    }
    if !empty.is_empty() {
        parts.push(format!(
            "case(s) {} passed in {} and now found no sessions to score (less traffic, or the session selection no longer matches)",
            empty.join(", "),
            previous.name
        ));
    }
    if let Some(said) = attribution(previous.status, current.status) {
        parts.push(said);
    }
    let cause = cause(previous, current, !failing.is_empty());
    Some(PlannedEvent {
        warning: true,
        reason: EventReason::RegressionDetected,
        note: format!("{}; {cause}", parts.join("; ")),
        regarding: Regarding::RunAndSuite,
    })
}

/// What changed between two runs: the suite, the Agent, the source; or
/// that nothing known did (`behaved`: then the model or its tools behave
/// differently).
fn cause(previous: RunFacts<'_>, current: RunFacts<'_>, behaved: bool) -> String {
    let mut changes = Vec::new();
    if previous.suite_generation != current.suite_generation {
        changes.push(format!(
            "the suite (generation {} -> {})",
            generation(previous.suite_generation),
            generation(current.suite_generation)
        ));
    }
    if previous.status.agent != current.status.agent {
        changes.push(format!(
            "the Agent ({})",
            agent_change(&previous.status.agent, &current.status.agent)
        ));
    }
    if previous.status.source != current.status.source {
        changes.push(format!(
            "the source ({} -> {})",
            previous.status.source.as_deref().unwrap_or("unknown"),
            current.status.source.as_deref().unwrap_or("unknown")
        ));
    }
    if changes.is_empty() {
        format!(
            "nothing known changed since (the suite, the Agent ({}) and the source are as they were){}",
            agent(&current.status.agent),
            if behaved {
                ": the model or its tools behave differently"
            } else {
                ""
            }
        )
    } else {
        format!("changed since: {}", changes.join(", "))
    }
}

/// The gates the run breached against its baseline run, with their
/// numbers, and what changed since that run, as for a regression.
pub fn efficiency_regressed(baseline: RunFacts<'_>, current: RunFacts<'_>) -> Option<PlannedEvent> {
    let breaches = &current.status.gate.as_ref()?.breaches;
    if breaches.is_empty() {
        return None;
    }
    Some(PlannedEvent {
        warning: true,
        reason: EventReason::EfficiencyRegressed,
        note: truncate(
            &format!(
                "{} against {}; {}",
                breaches.join("; "),
                baseline.name,
                cause(baseline, current, true)
            ),
            900,
        ),
        regarding: Regarding::RunAndSuite,
    })
}

/// The run a new run is compared with: the suite's pinned EvalRun, else
/// its latest Succeeded one (by completion); `Err` when the pinned one is
/// not there or is another suite's.
pub fn baseline_run<'r>(
    runs: &'r [std::sync::Arc<EvalRun>],
    namespace: &str,
    suite: &str,
    this: &str,
    pinned: Option<&str>,
) -> Result<Option<&'r EvalRun>, String> {
    let ours = |r: &&std::sync::Arc<EvalRun>| {
        r.metadata.namespace.as_deref() == Some(namespace)
            && r.metadata.name.as_deref() != Some(this)
    };
    if let Some(name) = pinned {
        let run = runs
            .iter()
            .filter(ours)
            .find(|r| r.metadata.name.as_deref() == Some(name))
            .ok_or_else(|| format!("the pinned baseline EvalRun {name} is not in {namespace}"))?;
        if run.spec.suite_ref.name != suite {
            return Err(format!(
                "the pinned baseline EvalRun {name} is a run of suite {}, not {suite}",
                run.spec.suite_ref.name
            ));
        }
        return Ok(Some(run));
    }
    Ok(runs
        .iter()
        .filter(ours)
        .filter(|r| r.spec.suite_ref.name == suite)
        .filter(|r| r.status.as_ref().and_then(|s| s.phase) == Some(Phase::Succeeded))
        .max_by_key(|r| {
            (
                r.status
                    .as_ref()
                    .and_then(|s| s.completion_time.clone())
                    .map(|t| t.0),
                r.metadata.name.clone(),
            )
        })
        .map(|r| &**r))
}

/// What a later run compares with, from a finished run's status; `None`
/// for a run that recorded no efficiency (one from before it was kept).
pub fn baseline_of(run: &EvalRun) -> Option<Baseline> {
    let status = run.status.as_ref()?;
    let efficiency = status.efficiency.as_ref()?;
    Some(Baseline {
        from: format!("EvalRun {}", run.metadata.name.as_deref().unwrap_or("?")),
        suite: run.spec.suite_ref.name.clone(),
        means: Means::of(efficiency),
        cases: status
            .results
            .iter()
            .map(|r| BaselineCase {
                name: r.name.clone(),
                passed: (r.outcome != Outcome::Error).then_some(r.outcome == Outcome::Passed),
                means: r.efficiency.clone().unwrap_or_default(),
            })
            .collect(),
    })
}

fn generation(g: Option<i64>) -> String {
    g.map_or("?".into(), |g| g.to_string())
}

fn agent(snapshot: &Option<AgentSnapshot>) -> String {
    match snapshot {
        Some(a) => format!(
            "{}generation {}, fingerprint {}",
            a.latest_successful_revision
                .as_ref()
                .map_or(String::new(), |r| format!("revision {r}, ")),
            generation(a.generation),
            a.fingerprint.as_deref().unwrap_or("?")
        ),
        None => "not read".into(),
    }
}

/// How the Agent changed between two runs: for two readings of a kagent
/// 1.0 Agent, what differs in its revision, template and harness.
fn agent_change(before: &Option<AgentSnapshot>, after: &Option<AgentSnapshot>) -> String {
    if let (Some(b), Some(a)) = (before, after)
        && b.template.is_some()
        && a.template.is_some()
    {
        let said = kagent_agent::changes(b, a);
        if !said.is_empty() {
            return said.join("; ");
        }
    }
    format!("{} -> {}", agent(before), agent(after))
}

/// The kagent 1.0 revision the failures came with: the revisions of this
/// run with failing sessions, those the previous run never met named as
/// the ones that brought them, and the revisions whose sessions all passed.
fn attribution(previous: &EvalRunStatus, current: &EvalRunStatus) -> Option<String> {
    let failing: Vec<&RevisionResult> = current
        .revisions
        .iter()
        .filter(|r| r.failed_sessions > 0)
        .collect();
    if failing.is_empty() {
        return None;
    }
    let described = |revisions: &[&RevisionResult]| -> String {
        revisions
            .iter()
            .map(|r| {
                format!(
                    "{} ({} of {} sessions failed)",
                    r.revision, r.failed_sessions, r.sessions
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let met_before =
        |r: &RevisionResult| previous.revisions.iter().any(|p| p.revision == r.revision);
    let new: Vec<&RevisionResult> = failing
        .iter()
        .copied()
        .filter(|r| r.revision != UNKNOWN_REVISION && !met_before(r))
        .collect();
    let mut said = match new.is_empty() {
        false => format!(
            "the failures came with revision {}, new since the previous run",
            described(&new)
        ),
        true => format!(
            "the failing sessions ran on revision {}, which the previous run read too",
            described(&failing)
        ),
    };
    let clean: Vec<&str> = current
        .revisions
        .iter()
        .filter(|r| r.failed_sessions == 0)
        .map(|r| r.revision.as_str())
        .collect();
    if !clean.is_empty() {
        said.push_str(&format!(
            "; every session on revision {} passed",
            clean.join(", ")
        ));
    }
    Some(said)
}

#[cfg(test)]
mod tests;
