//! The EvalSuite reconciler's decisions, as pure functions of the suite, its
//! runs and the time: validity, what the schedule asks for (CronJob's
//! semantics), which runs history keeps, the suite's health and status, and
//! the Events and metrics that go with them.

use super::metrics::{RunJudge, RunMeans, SuiteMetrics};
use super::{PlannedEvent, Regarding};
use crate::core::efficiency::Stat;
use crate::core::schedule::{Due, Schedule, due};
use crate::core::suite::compile::{CompiledSuite, SuiteError, compile};
use crate::core::suite::report::Outcome;
use crate::core::suite::spec::{ConcurrencyPolicy, SuiteSpec};
use crate::k8s::conditions::{self, Want};
use crate::k8s::crd::{
    EvalRun, EvalRunSpec, EvalSuite, EvalSuiteStatus, Health, LastRun, Phase, RecentResult,
    RunReference, SuiteRef, Trigger, TriggerType,
};
use crate::k8s::names;
use crate::k8s::vocabulary::{ConditionType, EventReason, Failure, Reason, RunResult};
use jiff::{SignedDuration, Timestamp};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kube::{Resource, ResourceExt};
use std::collections::BTreeSet;
use std::time::Duration;

pub const SUITE_LABEL: &str = "evals.kagent.dev/suite";
pub const TRIGGER_LABEL: &str = "evals.kagent.dev/trigger";
pub const RUN_LABEL: &str = "evals.kagent.dev/run";

/// Longest wait before looking at a suite again, whatever its schedule.
pub const RESYNC: Duration = Duration::from_secs(300);

/// How soon to look again while a run is active: the shared run cache is
/// fed by another watch than the one that wakes this reconciler, so a run's
/// end may reach the cache a moment after the suite was woken for it.
pub const WHILE_ACTIVE: Duration = Duration::from_secs(5);

/// Results kept for health, oldest first.
pub const HEALTH_WINDOW: usize = 20;

/// How a finished run went; `None` while it runs.
pub fn result_of(run: &EvalRun) -> Option<RunResult> {
    match run.status.as_ref().and_then(|s| s.phase)? {
        Phase::Succeeded => Some(RunResult::Passed),
        Phase::Failed => Some(RunResult::Failed),
        Phase::Error => Some(RunResult::Error),
        Phase::Pending | Phase::Running => None,
    }
}

/// Whether a run has ended: Succeeded, Failed or Error.
pub fn is_done(run: &EvalRun) -> bool {
    result_of(run).is_some()
}

fn completed(run: &EvalRun) -> Timestamp {
    run.status
        .as_ref()
        .and_then(|s| s.completion_time.as_ref())
        .map(|t| t.0)
        .or(run.metadata.creation_timestamp.as_ref().map(|t| t.0))
        .unwrap_or(Timestamp::UNIX_EPOCH)
}

/// What to do about a suite's schedule now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tick {
    /// Create the run of this slot.
    pub create: Option<Timestamp>,
    /// Delete the active runs first (Replace).
    pub replace_active: bool,
    /// This slot was skipped: past the starting deadline.
    pub missed: Option<Timestamp>,
    /// Earlier slots passed over since the last run (a controller outage).
    pub passed_over: usize,
    /// A run is due but one is active and the policy is Forbid.
    pub forbidden: bool,
    /// The slot that waits (Forbid), for the suite's status to name: `next`
    /// is only when to look again, and a status saying it would change at
    /// every look.
    pub waiting: Option<Timestamp>,
    /// When to look again.
    pub next: Option<Timestamp>,
}

/// CronJob's semantics for one suite. `last` is the latest slot a run was
/// created for or skipped, `active` the number of unfinished runs.
pub fn tick(
    schedule: Option<&Schedule>,
    spec: &SuiteSpec,
    last: Option<Timestamp>,
    created: Timestamp,
    active: usize,
    now: Timestamp,
) -> Tick {
    let Some(schedule) = schedule else {
        return Tick::default();
    };
    if spec.suspend {
        return Tick {
            next: schedule.next_after(now),
            ..Tick::default()
        };
    }
    let deadline = spec
        .starting_deadline_seconds
        .map(SignedDuration::from_secs);
    match due(schedule, last, created, now, deadline) {
        Due::Wait { next } => Tick {
            next,
            ..Tick::default()
        },
        Due::TooLate { slot, next } => Tick {
            missed: Some(slot),
            next,
            ..Tick::default()
        },
        Due::Start { slot, missed, next } => match (spec.concurrency_policy, active) {
            (ConcurrencyPolicy::Forbid, n) if n > 0 => Tick {
                forbidden: true,
                waiting: Some(slot),
                // Look again soon: the slot runs once the active run ends,
                // unless the deadline passes first.
                next: Some(now + SignedDuration::from_secs(15)),
                ..Tick::default()
            },
            (policy, n) => Tick {
                create: Some(slot),
                replace_active: policy == ConcurrencyPolicy::Replace && n > 0,
                passed_over: missed,
                next,
                ..Tick::default()
            },
        },
    }
}

/// The name of a scheduled run: the same slot always gives the same name,
/// so a second replica or a restart meets AlreadyExists, not a second run.
/// At most 63 characters, like a CronJob's Jobs; a suite whose name leaves
/// no room for the slot is shortened with a hash of its whole name, so two
/// suites sharing a long prefix never share a run.
pub fn run_name(suite: &str, slot: Timestamp) -> String {
    let minutes = slot.as_second().div_euclid(60);
    names::bounded(suite, &format!("-{minutes}"), names::LABEL_VALUE_MAX)
}

/// A finished scheduled run as history sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryEntry {
    pub name: String,
    pub succeeded: bool,
    pub completed: Timestamp,
}

/// The runs to delete: beyond the newest `keep_succeeded` succeeded runs and
/// the newest `keep_failed` failed or errored runs.
pub fn prune(finished: &[HistoryEntry], keep_succeeded: usize, keep_failed: usize) -> Vec<String> {
    let mut by_age: Vec<&HistoryEntry> = finished.iter().collect();
    by_age.sort_by(|a, b| {
        b.completed
            .cmp(&a.completed)
            .then_with(|| b.name.cmp(&a.name))
    });
    let (mut succeeded, mut failed) = (0, 0);
    by_age
        .into_iter()
        .filter(|run| {
            let (count, keep) = if run.succeeded {
                (&mut succeeded, keep_succeeded)
            } else {
                (&mut failed, keep_failed)
            };
            *count += 1;
            *count > keep
        })
        .map(|run| run.name.clone())
        .collect()
}

/// Pass rate and flip rate over recent results.
pub fn health(results: &[RunResult]) -> Option<Health> {
    if results.is_empty() {
        return None;
    }
    let passed = results.iter().filter(|r| **r == RunResult::Passed).count();
    let flips = results.windows(2).filter(|w| w[0] != w[1]).count();
    Some(Health {
        runs: results.len() as u32,
        pass_rate: passed as f64 / results.len() as f64,
        flip_rate: if results.len() > 1 {
            flips as f64 / (results.len() - 1) as f64
        } else {
            0.0
        },
    })
}

/// Seconds between the next two slots of a schedule, for staleness alerts.
fn interval(schedule: &Schedule, now: Timestamp) -> Option<i64> {
    let first = schedule.next_after(now)?;
    let second = schedule.next_after(first)?;
    Some(second.as_second() - first.as_second())
}

/// Everything a suite reconcile does, decided up front.
#[derive(Clone, Debug)]
pub struct SuiteDecision {
    pub status: EvalSuiteStatus,
    /// Runs to stop and delete for a newer one (concurrencyPolicy Replace).
    pub replace: Vec<String>,
    /// The scheduled run to create.
    pub create: Option<EvalRun>,
    /// Finished scheduled runs beyond the history limits.
    pub prune: Vec<String>,
    /// Events about the suite.
    pub events: Vec<PlannedEvent>,
    /// Published only when `create` was created (not AlreadyExists).
    pub created_event: Option<PlannedEvent>,
    pub metrics: SuiteMetrics,
    pub requeue: Duration,
}

/// Decide what a suite needs now, given its runs (from the shared store):
/// the schedule's plan, the history, the conditions and the metrics, each
/// a decision of its own.
pub fn decide(suite: &EvalSuite, runs: &[&EvalRun], now: Timestamp) -> SuiteDecision {
    let spec = &suite.spec.suite;
    let old = suite.status.clone().unwrap_or_default();
    let compiled = compile(
        &suite.name_any(),
        spec,
        "spec",
        &suite.namespace().unwrap_or_default(),
    );
    let active: Vec<&EvalRun> = runs.iter().copied().filter(|r| !is_done(r)).collect();
    let plan = match &compiled {
        Ok(compiled) => plan(suite, compiled.schedule.as_ref(), &old, &active, now),
        Err(_) => Plan::default(),
    };
    let mut finished: Vec<&EvalRun> = runs.iter().copied().filter(|r| is_done(r)).collect();
    finished.sort_by_key(|r| (completed(r), r.name_any()));
    let mut status = EvalSuiteStatus {
        observed_generation: suite.metadata.generation,
        last_schedule_time: plan
            .created_slot
            .map(Time)
            .or(old.last_schedule_time.clone()),
        last_missed_time: plan.missed_slot.map(Time).or(old.last_missed_time.clone()),
        ..old.clone()
    };
    record_results(&mut status, &old, &finished);
    let prune = history(spec, &old, &status, &finished);
    status.active = active
        .iter()
        .filter(|r| !plan.replace.contains(&r.name_any()))
        .map(|r| r.name_any())
        .chain(plan.create.as_ref().map(ResourceExt::name_any))
        .collect::<BTreeSet<String>>()
        .into_iter()
        .map(|name| RunReference { name })
        .collect();
    let last = finished.last().copied();
    if let Some(last) = last {
        status.source = last.status.as_ref().and_then(|s| s.source.clone());
    }
    if let Ok(compiled) = &compiled {
        status.agent = compiled.agent.as_ref().map(ToString::to_string);
    }
    // The runs the status lists as active, the one this decision creates
    // included: said in the same write as the run is recorded.
    let (wants, invalid_event) = conditions(
        suite,
        &compiled,
        &old,
        last,
        &status.active,
        plan.next,
        plan.waiting,
    );
    status.conditions = conditions::merge(&old.conditions, &wants, suite.metadata.generation, now);
    let metrics = metrics(suite, &compiled, last, &status, now);
    let ceiling = if status.active.is_empty() {
        RESYNC
    } else {
        WHILE_ACTIVE
    };
    let requeue = plan
        .next
        .map(|n| n.duration_since(now).as_secs_f64().max(1.0))
        .map(Duration::from_secs_f64)
        .unwrap_or(ceiling)
        .min(ceiling);
    SuiteDecision {
        status,
        replace: plan.replace,
        create: plan.create,
        prune,
        events: plan.events.into_iter().chain(invalid_event).collect(),
        created_event: plan.created_event,
        metrics,
        requeue,
    }
}

/// The decision once its run could not be created, `why` in the API's
/// words: the slot is not recorded as run (the next look tries it again),
/// the run is not active, and the suite is `Ready=False` and `Stalled`
/// with reason `RunNotCreated`; with the Event that says so, when that
/// news is new.
pub fn run_not_created(
    suite: &EvalSuite,
    mut decision: SuiteDecision,
    why: &str,
    now: Timestamp,
) -> (SuiteDecision, Option<PlannedEvent>) {
    let old = suite.status.clone().unwrap_or_default();
    let run = decision
        .create
        .take()
        .map(|r| r.name_any())
        .unwrap_or_default();
    let message = format!("the scheduled run {run} could not be created: {why}");
    let status = &mut decision.status;
    status.last_schedule_time = old.last_schedule_time.clone();
    status.active.retain(|r| r.name != run);
    // kstatus: stalled, not reconciling, whatever run was pending.
    let wants = [
        ConditionType::Ready,
        ConditionType::Stalled,
        ConditionType::Reconciling,
    ]
    .map(|type_| Want {
        type_,
        status: type_ == ConditionType::Stalled,
        reason: Reason::RunNotCreated,
        message: message.clone(),
    });
    // Merged over the conditions read, not the decision's: a Ready that
    // was already False keeps its transition time.
    for condition in conditions::merge(&old.conditions, &wants, suite.metadata.generation, now) {
        if wants.iter().any(|w| w.type_.as_str() == condition.type_) {
            match status
                .conditions
                .iter_mut()
                .find(|c| c.type_ == condition.type_)
            {
                Some(slot) => *slot = condition,
                None => status.conditions.push(condition),
            }
        }
    }
    let said = conditions::find(&old.conditions, ConditionType::Ready)
        .is_some_and(|c| c.reason == Reason::RunNotCreated.as_str() && c.message == message);
    let event = (!said).then(|| suite_event(true, EventReason::RunNotCreated, message, None));
    decision.created_event = None;
    decision.requeue = RETRY_CREATE;
    (decision, event)
}

/// How soon a run that could not be created is tried again.
pub const RETRY_CREATE: Duration = Duration::from_secs(15);

fn suite_event(
    warning: bool,
    reason: EventReason,
    note: String,
    related_run: Option<String>,
) -> PlannedEvent {
    PlannedEvent {
        warning,
        reason,
        note,
        regarding: Regarding::Suite { related_run },
    }
}

/// What the schedule asks for now: runs to replace, the run to create, the
/// slots it records, its Events and when to look again.
#[derive(Clone, Debug, Default)]
struct Plan {
    replace: Vec<String>,
    create: Option<EvalRun>,
    created_event: Option<PlannedEvent>,
    created_slot: Option<Timestamp>,
    missed_slot: Option<Timestamp>,
    events: Vec<PlannedEvent>,
    next: Option<Timestamp>,
    /// The due slot that waits for the active run (Forbid).
    waiting: Option<Timestamp>,
}

fn plan(
    suite: &EvalSuite,
    schedule: Option<&Schedule>,
    old: &EvalSuiteStatus,
    active: &[&EvalRun],
    now: Timestamp,
) -> Plan {
    let last = [
        old.last_schedule_time.as_ref(),
        old.last_missed_time.as_ref(),
    ]
    .into_iter()
    .flatten()
    .map(|t| t.0)
    .max();
    let created = suite
        .metadata
        .creation_timestamp
        .as_ref()
        .map_or(now, |t| t.0);
    let tick = tick(
        schedule,
        &suite.spec.suite,
        last,
        created,
        active.len(),
        now,
    );
    let mut plan = Plan {
        next: tick.next,
        waiting: tick.waiting,
        ..Plan::default()
    };
    if tick.replace_active {
        for run in active {
            let run_name = run.name_any();
            plan.events.push(suite_event(
                false,
                EventReason::EvalRunReplaced,
                format!("stopped {run_name} for a newer scheduled run (concurrencyPolicy Replace)"),
                Some(run_name.clone()),
            ));
            plan.replace.push(run_name);
        }
    }
    if let Some(slot) = tick.create {
        let run = scheduled_run(suite, slot);
        let run_name = run.name_any();
        plan.created_event = Some(suite_event(
            false,
            EventReason::EvalRunCreated,
            format!("created {run_name} for {slot}"),
            Some(run_name),
        ));
        plan.create = Some(run);
        plan.created_slot = Some(slot);
    }
    if tick.passed_over > 0 {
        // Slots also pass while a run cannot be created, with a controller
        // leading: the Event says which.
        let not_created = conditions::find(&old.conditions, ConditionType::Ready)
            .is_some_and(|c| c.reason == Reason::RunNotCreated.as_str());
        let why = match not_created {
            true => "while the suite's run could not be created (see its Ready condition)",
            false => "while no controller was leading",
        };
        plan.events.push(suite_event(
            true,
            EventReason::MissedSchedules,
            format!(
                "{} earlier slot(s) passed {why}; only the latest ran",
                tick.passed_over
            ),
            None,
        ));
    }
    if let Some(slot) = tick.missed
        && old.last_missed_time.as_ref().map(|t| t.0) != Some(slot)
    {
        plan.missed_slot = Some(slot);
        plan.events.push(suite_event(
            true,
            EventReason::MissedSchedule,
            format!(
                "the run for {slot} could not start within startingDeadlineSeconds and was skipped"
            ),
            None,
        ));
    }
    plan
}

/// The finished scheduled runs to delete. Runs made by hand are their
/// makers' to delete; history limits keep the schedule's runs in check.
fn history(
    spec: &SuiteSpec,
    old: &EvalSuiteStatus,
    status: &EvalSuiteStatus,
    finished: &[&EvalRun],
) -> Vec<String> {
    let scheduled: Vec<HistoryEntry> = finished
        .iter()
        .filter(|r| r.spec.trigger.kind == TriggerType::Schedule)
        .map(|r| HistoryEntry {
            name: r.name_any(),
            succeeded: result_of(r) == Some(RunResult::Passed),
            completed: completed(r),
        })
        .collect();
    let mut prune = prune(
        &scheduled,
        spec.successful_runs_history_limit.unwrap_or(3) as usize,
        spec.failed_runs_history_limit.unwrap_or(1) as usize,
    );
    // A run recorded by this decision is deleted by a later one, once the
    // status recording it is what the suite reads: the suite read here may
    // be a write behind, and a run recorded and deleted at once would be
    // lost from health if the next decision started from the older status.
    let recorded = |results: &[RecentResult], name: &str| results.iter().any(|r| r.name == name);
    prune.retain(|name| {
        !recorded(&status.recent_results, name) || recorded(&old.recent_results, name)
    });
    prune
}

/// The suite's `Ready`, `Stalled`, `Reconciling` and `LastRunPassed`, and
/// the Event saying a spec cannot be used, once, when it becomes so.
fn conditions(
    suite: &EvalSuite,
    compiled: &Result<CompiledSuite, SuiteError>,
    old: &EvalSuiteStatus,
    last: Option<&EvalRun>,
    active: &[RunReference],
    next: Option<Timestamp>,
    waiting: Option<Timestamp>,
) -> (Vec<Want>, Option<PlannedEvent>) {
    let spec = &suite.spec.suite;
    let mut ready = match compiled {
        Ok(compiled) => Want {
            type_: ConditionType::Ready,
            status: true,
            reason: match (&spec.schedule, spec.suspend) {
                (Some(_), true) => Reason::Suspended,
                (Some(_), false) => Reason::Scheduled,
                (None, _) => Reason::Ready,
            },
            message: {
                let base = match (waiting, next) {
                    (Some(slot), _) if !spec.suspend => format!(
                        "the run for {slot} waits for the active run to finish (concurrencyPolicy Forbid)"
                    ),
                    (None, Some(n)) if !spec.suspend => format!("next run at {n}"),
                    _ if spec.schedule.is_some() && spec.suspend => "suspended".into(),
                    _ => "runs when an EvalRun is created".into(),
                };
                // Settings that work but likely not as meant, said where
                // `kubectl describe` shows them.
                std::iter::once(base)
                    .chain(compiled.warnings().map(String::from))
                    .collect::<Vec<_>>()
                    .join("; ")
            },
        },
        Err(e) => {
            let schedule = e.path.ends_with(".schedule") || e.path.ends_with(".timeZone");
            Want {
                type_: ConditionType::Ready,
                status: false,
                reason: if schedule {
                    Reason::InvalidSchedule
                } else {
                    Reason::Failure(Failure::InvalidSpec)
                },
                message: e.to_string(),
            }
        }
    };
    let mut wants = Vec::new();
    if let Some(last) = last {
        let result = result_of(last).expect("finished");
        let last_status = last.status.clone().unwrap_or_default();
        wants.push(Want {
            type_: ConditionType::LastRunPassed,
            status: result == RunResult::Passed,
            reason: match result {
                RunResult::Passed => Reason::Passed,
                RunResult::Failed => Reason::Failed,
                RunResult::Error => Reason::Error,
            },
            message: last_status
                .message
                .clone()
                .or(last_status
                    .summary
                    .clone()
                    .map(|m| format!("{m} cases passed")))
                .unwrap_or_default(),
        });
        if let (Some(failure), true) = (
            // A suite is Ready while its last run could be done.
            last_status.failure,
            compiled.is_ok(),
        ) {
            ready = Want {
                type_: ConditionType::Ready,
                status: false,
                reason: Reason::Failure(failure),
                message: last_status.message.clone().unwrap_or_default(),
            };
        }
    }
    let was = conditions::find(&old.conditions, ConditionType::Ready);
    let invalid_event = (!ready.status
        && matches!(
            ready.reason,
            Reason::InvalidSchedule | Reason::Failure(Failure::InvalidSpec)
        )
        && was.is_none_or(|c| c.reason != ready.reason.as_str() || c.message != ready.message))
    .then(|| {
        let reason = match ready.reason {
            Reason::InvalidSchedule => EventReason::InvalidSchedule,
            _ => EventReason::InvalidSpec,
        };
        suite_event(true, reason, ready.message.clone(), None)
    });
    // kstatus: a suite that cannot run as it is has stalled; one whose
    // first run has not finished is still being reconciled.
    wants.push(match ready.status {
        true => Want {
            type_: ConditionType::Stalled,
            status: false,
            reason: Reason::Idle,
            message: String::new(),
        },
        false => Want {
            type_: ConditionType::Stalled,
            status: true,
            ..ready.clone()
        },
    });
    let first = active.iter().map(|r| r.name.as_str()).min();
    wants.push(match (last, first) {
        (None, Some(first)) => Want {
            type_: ConditionType::Reconciling,
            status: true,
            reason: Reason::FirstRunPending,
            message: format!("its first run, {first}, has not finished"),
        },
        _ => Want {
            type_: ConditionType::Reconciling,
            status: false,
            reason: Reason::Idle,
            message: String::new(),
        },
    });
    wants.insert(0, ready);
    (wants, invalid_event)
}

/// The suite's gauges, from its latest finished run.
fn metrics(
    suite: &EvalSuite,
    compiled: &Result<CompiledSuite, SuiteError>,
    last: Option<&EvalRun>,
    status: &EvalSuiteStatus,
    now: Timestamp,
) -> SuiteMetrics {
    let namespace = suite.namespace().unwrap_or_default();
    let results = last
        .and_then(|r| r.status.as_ref())
        .map(|s| s.results.as_slice())
        .unwrap_or_default();
    SuiteMetrics {
        agent: suite
            .spec
            .suite
            .agent_ref
            .as_ref()
            .map(|a| {
                format!(
                    "{}/{}",
                    a.namespace.as_deref().unwrap_or(&namespace),
                    a.name
                )
            })
            .unwrap_or_default(),
        last_run_passed: last.and_then(result_of).map(|r| r == RunResult::Passed),
        last_success: status
            .last_successful_time
            .as_ref()
            .map(|t| t.0.as_second()),
        schedule_interval: compiled
            .as_ref()
            .ok()
            .and_then(|c| c.schedule.as_ref())
            .and_then(|s| interval(s, now)),
        probe_pass_rates: results
            .iter()
            .filter_map(|c| {
                let p = c.probe?;
                (p.runs > 0).then(|| (c.name.clone(), p.passed as f64 / p.runs as f64))
            })
            .collect(),
        cases: results
            .iter()
            .map(|c| (c.name.clone(), c.outcome == Outcome::Passed))
            .collect(),
        means: last
            .and_then(|r| r.status.as_ref()?.efficiency.as_ref())
            .map(|e| {
                let whole = |stat: &Stat| stat.mean.filter(|_| stat.unmeasured == 0);
                RunMeans {
                    cost: whole(&e.cost),
                    latency_seconds: whole(&e.latency_seconds),
                    tokens: whole(&e.total_tokens),
                }
            }),
        non_blocking_failures: last
            .and_then(|r| r.status.as_ref()?.gate.as_ref())
            .map(|g| g.non_blocking_failures.len()),
        judge: last
            .and_then(|r| r.status.as_ref()?.judge.as_ref())
            .map(|j| RunJudge {
                calls: j.calls,
                tokens: j.prompt_tokens + j.completion_tokens,
                cost: j.cost,
            }),
    }
}

/// The run of a slot, with the suite as it is now.
fn scheduled_run(suite: &EvalSuite, slot: Timestamp) -> EvalRun {
    let mut run = EvalRun::new(
        &run_name(&suite.name_any(), slot),
        EvalRunSpec {
            suite_ref: SuiteRef {
                name: suite.name_any(),
            },
            trigger: Trigger {
                kind: TriggerType::Schedule,
                scheduled_time: Some(Time(slot)),
            },
            suite: Some(suite.spec.suite.clone()),
            suite_generation: suite.metadata.generation,
        },
    );
    run.metadata.namespace = suite.namespace();
    run.metadata.labels = Some(
        [
            (
                SUITE_LABEL.to_string(),
                names::label_value(&suite.name_any()),
            ),
            (TRIGGER_LABEL.to_string(), "schedule".to_string()),
        ]
        .into(),
    );
    run.metadata.owner_references = suite.controller_owner_ref(&()).map(|o| vec![o]);
    run
}

/// Record the results of runs not yet recorded, oldest first. Times have a
/// one-second resolution, so a run counts as new when it is not among the
/// recorded names and did not finish before the latest recorded run.
fn record_results(status: &mut EvalSuiteStatus, old: &EvalSuiteStatus, finished: &[&EvalRun]) {
    let watermark = old
        .last_run
        .as_ref()
        .and_then(|l| l.completion_time.as_ref())
        .map(|t| t.0);
    for run in finished {
        let name = run.name_any();
        let recorded = old.recent_results.iter().any(|r| r.name == name)
            || old.last_run.as_ref().is_some_and(|l| l.name == name);
        if !recorded
            && watermark.is_none_or(|t| completed(run) >= t)
            && let Some(result) = result_of(run)
        {
            status.recent_results.push(RecentResult { name, result });
        }
    }
    let excess = status.recent_results.len().saturating_sub(HEALTH_WINDOW);
    status.recent_results.drain(..excess);
    let results: Vec<RunResult> = status.recent_results.iter().map(|r| r.result).collect();
    status.health = health(&results);
    if let Some(last) = finished.last() {
        let s = last.status.clone().unwrap_or_default();
        status.last_run = Some(LastRun {
            name: last.name_any(),
            result: result_of(last).expect("finished"),
            pass_rate: s.pass_rate,
            completion_time: s.completion_time.clone(),
            failed_cases: s
                .results
                .iter()
                .filter(|c| c.outcome != Outcome::Passed && c.blocking != Some(false))
                .map(|c| c.name.clone())
                .collect(),
        });
        if let Some(ok) = finished
            .iter()
            .rev()
            .find(|r| result_of(r) == Some(RunResult::Passed))
        {
            status.last_successful_time =
                ok.status.as_ref().and_then(|s| s.completion_time.clone());
        }
    }
}

#[cfg(test)]
mod tests;
