//! The EvalRun reconciler's decisions, as pure functions of what it
//! gathered and of the time: whether to execute a run now, the status of a
//! run it claims, which failure stopped a run, the status, Events and
//! metrics of a run that ends, and what a regression is blamed on.

use super::{PlannedEvent, Regarding};
use crate::core::suite::report::{Outcome, Report};
use crate::k8s::conditions::{self, Want};
use crate::k8s::crd::{AgentSnapshot, CaseCounts, CaseResult, EvalRunStatus, Executor, Phase};
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
    claimed.conditions = conditions::merge(
        &status.conditions,
        &[Want {
            type_: ConditionType::Complete,
            status: false,
            reason: Reason::Running,
            message: String::new(),
        }],
        generation,
        now,
    );
    claimed
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
        | Stopped::Run(RunError::Agent(_) | RunError::NoAgentEndpoint(_)) => {
            Failure::AgentUnavailable
        }
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
            let (result, reason) = match outcomes.failure {
                None if report.passed => (RunResult::Passed, Reason::Passed),
                _ if outcomes.cases.failed > 0 => (RunResult::Failed, Reason::Failed),
                Some(failure) => (RunResult::Error, Reason::Failure(failure)),
                None => (RunResult::Failed, Reason::Failed),
            };
            let message = match (&outcomes.worst, result) {
                (Some(worst), RunResult::Failed | RunResult::Error) => {
                    format!("{summary} cases passed; {worst}")
                }
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
            status.cases = Some(outcomes.cases);
            status.judge = report.judge.clone();
            (result, reason, message)
        }
    };
    status.message = (result != RunResult::Passed).then(|| message.clone());
    let complete_reason = match reason {
        Reason::Failure(_) => reason,
        _ => Reason::Finished,
    };
    status.conditions = conditions::merge(
        &status.conditions,
        &[
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
        ],
        generation,
        now,
    );
    let event_reason = match reason {
        Reason::Failure(failure) => EventReason::Failure(failure),
        Reason::Passed => EventReason::EvalRunPassed,
        _ => EventReason::EvalRunFailed,
    };
    let seconds = status
        .start_time
        .as_ref()
        .map(|start| now.duration_since(start.0).as_secs_f64().max(0.0));
    FinishedRun {
        result,
        seconds,
        events: vec![PlannedEvent {
            warning: result != RunResult::Passed,
            reason: event_reason,
            note: message,
            regarding: Regarding::RunAndSuite,
        }],
        status,
    }
}

/// The name of a run's full-report ConfigMap: `<run>-report`, the run's
/// name shortened so that the whole stays a Kubernetes name.
pub fn report_config_map(run: &str) -> String {
    const SUFFIX: &str = "-report";
    let keep = crate::core::suite::bounds::OBJECT_NAME_MAX - SUFFIX.len();
    let stem = run[..run.len().min(keep)].trim_end_matches(['-', '.']);
    format!("{stem}{SUFFIX}")
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
    let failure = (s.errors > 0).then_some(if s.unreadable_sessions > 0 {
        Failure::UnreadableSessions
    } else {
        Failure::EvaluatorError
    });
    Outcomes {
        failure,
        cases: CaseCounts {
            total: s.cases as u32,
            passed: s.passed as u32,
            failed: s.failed as u32,
            no_sessions: s.no_sessions as u32,
            errors: s.errors as u32,
            unreadable_sessions: s.unreadable_sessions as u32,
        },
        pass_rate: (s.cases > 0).then(|| s.passed as f64 / s.cases as f64),
        sessions: s.sessions as u32,
        results: results.into_iter().map(|(_, r)| r).collect(),
        truncated,
        worst: worst.map(|w| truncate(&w, 900)),
    }
}

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
            "the Agent ({} -> {})",
            agent(&previous.status.agent),
            agent(&current.status.agent)
        ));
    }
    if previous.status.source != current.status.source {
        changes.push(format!(
            "the source ({} -> {})",
            previous.status.source.as_deref().unwrap_or("unknown"),
            current.status.source.as_deref().unwrap_or("unknown")
        ));
    }
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
    let cause = if changes.is_empty() {
        format!(
            "nothing known changed since (the suite, the Agent ({}) and the source are as they were){}",
            agent(&current.status.agent),
            if failing.is_empty() {
                ""
            } else {
                ": the model or its tools behave differently"
            }
        )
    } else {
        format!("changed since: {}", changes.join(", "))
    };
    Some(PlannedEvent {
        warning: true,
        reason: EventReason::RegressionDetected,
        note: format!("{}; {cause}", parts.join("; ")),
        regarding: Regarding::RunAndSuite,
    })
}

fn generation(g: Option<i64>) -> String {
    g.map_or("?".into(), |g| g.to_string())
}

fn agent(snapshot: &Option<AgentSnapshot>) -> String {
    match snapshot {
        Some(a) => format!(
            "generation {}, fingerprint {}",
            generation(a.generation),
            a.fingerprint.as_deref().unwrap_or("?")
        ),
        None => "not read".into(),
    }
}

#[cfg(test)]
mod tests;
