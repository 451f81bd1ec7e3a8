//! The EvalSuite reconciler: validity, the schedule, history, and the
//! suite's status. It is the only writer of EvalSuite status.

use super::metrics::SuiteLabels;
use super::plan::{self, Finished, HEALTH_WINDOW};
use super::{Context, Error, MANAGER};
use crate::core::suite::compile::compile;
use crate::k8s::conditions::{self, Want};
use crate::k8s::crd::{
    EvalRun, EvalRunSpec, EvalSuite, EvalSuiteStatus, LastRun, Phase, RecentResult, RunReference,
    SuiteRef, Trigger, TriggerType,
};
use jiff::Timestamp;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::controller::Action;
use kube::runtime::events::EventType;
use kube::{Api, Resource, ResourceExt};
use std::sync::Arc;
use std::time::Duration;

pub const SUITE_LABEL: &str = "evals.kagent.dev/suite";
pub const TRIGGER_LABEL: &str = "evals.kagent.dev/trigger";

/// Longest wait before looking at a suite again, whatever its schedule.
const RESYNC: Duration = Duration::from_secs(300);

fn result_of(run: &EvalRun) -> &'static str {
    match run.status.as_ref().and_then(|s| s.phase) {
        Some(Phase::Succeeded) => "Passed",
        Some(Phase::Failed) => "Failed",
        _ => "Error",
    }
}

fn completed(run: &EvalRun) -> Timestamp {
    run.status
        .as_ref()
        .and_then(|s| s.completion_time.as_ref())
        .map(|t| t.0)
        .or(run.metadata.creation_timestamp.as_ref().map(|t| t.0))
        .unwrap_or(Timestamp::UNIX_EPOCH)
}

pub async fn reconcile(suite: Arc<EvalSuite>, ctx: Arc<Context>) -> Result<Action, Error> {
    if !ctx.is_leader() {
        return Ok(Action::await_change());
    }
    let namespace = suite.namespace().unwrap_or_default();
    let name = suite.name_any();
    let now = Timestamp::now();
    let runs_api: Api<EvalRun> = Api::namespaced(ctx.client.clone(), &namespace);
    let runs: Vec<EvalRun> = runs_api
        .list(&ListParams::default())
        .await?
        .into_iter()
        .filter(|r| r.spec.suite_ref.name == name)
        .collect();
    let old = suite.status.clone().unwrap_or_default();
    let mut status = EvalSuiteStatus {
        observed_generation: suite.metadata.generation,
        ..old.clone()
    };
    let reference = suite.object_ref(&());
    let spec = &suite.spec.suite;
    let created = suite
        .metadata
        .creation_timestamp
        .as_ref()
        .map_or(now, |t| t.0);

    let validity = compile(&name, spec, "spec")
        .map(|_| ())
        .map_err(|e| e.to_string());
    let mut active: Vec<&EvalRun> = runs.iter().filter(|r| !plan::is_done(r)).collect();
    let mut created_run = None;
    let mut next = None;
    if validity.is_ok() {
        let last = [
            old.last_schedule_time.as_ref(),
            old.last_missed_time.as_ref(),
        ]
        .into_iter()
        .flatten()
        .map(|t| t.0)
        .max();
        let tick = plan::tick(spec, last, created, active.len(), now).map_err(Error::Serve)?;
        next = tick.next;
        if tick.replace_active {
            for run in active.drain(..) {
                ctx.cancel(&format!("{namespace}/{}", run.name_any()));
                delete_run(&runs_api, &run.name_any()).await?;
                ctx.event(
                    &reference,
                    EventType::Normal,
                    "EvalRunReplaced",
                    format!(
                        "stopped {} for a newer scheduled run (concurrencyPolicy Replace)",
                        run.name_any()
                    ),
                )
                .await;
            }
        }
        if let Some(slot) = tick.create {
            let run_name = plan::run_name(&name, slot);
            if create_scheduled(&runs_api, &suite, &run_name, slot).await? {
                ctx.event(
                    &reference,
                    EventType::Normal,
                    "EvalRunCreated",
                    format!("created {run_name} for {slot}"),
                )
                .await;
            }
            created_run = Some(run_name);
            status.last_schedule_time = Some(Time(slot));
        }
        if tick.passed_over > 0 {
            ctx.event(
                &reference,
                EventType::Warning,
                "MissedSchedules",
                format!("{} earlier slot(s) passed while no controller was leading; only the latest ran", tick.passed_over),
            )
            .await;
        }
        if let Some(slot) = tick.missed
            && old.last_missed_time.as_ref().map(|t| t.0) != Some(slot)
        {
            status.last_missed_time = Some(Time(slot));
            ctx.event(
                &reference,
                EventType::Warning,
                "MissedSchedule",
                format!("the run for {slot} could not start within startingDeadlineSeconds and was skipped"),
            )
            .await;
        }
    }

    let mut finished: Vec<&EvalRun> = runs.iter().filter(|r| plan::is_done(r)).collect();
    finished.sort_by_key(|r| (completed(r), r.name_any()));
    record_results(&mut status, &old, &finished);
    let keep_ok = spec.successful_runs_history_limit.unwrap_or(3) as usize;
    let keep_failed = spec.failed_runs_history_limit.unwrap_or(1) as usize;
    let history: Vec<Finished> = finished
        .iter()
        .map(|r| Finished {
            name: r.name_any(),
            succeeded: result_of(r) == "Passed",
            completed: completed(r),
        })
        .collect();
    for stale in plan::prune(&history, keep_ok, keep_failed) {
        delete_run(&runs_api, &stale).await?;
    }
    let active_names: std::collections::BTreeSet<String> = active
        .iter()
        .map(|r| r.name_any())
        .chain(created_run)
        .collect();
    status.active = active_names
        .into_iter()
        .map(|name| RunReference { name })
        .collect();

    let mut wants = vec![match &validity {
        Ok(()) => Want {
            type_: "Ready",
            status: true,
            reason: if spec.schedule.is_some() {
                "Scheduled"
            } else {
                "Ready"
            },
            message: match next {
                Some(n) => format!("next run at {n}"),
                None if spec.schedule.is_some() && spec.suspend => "suspended".into(),
                None => "runs when an EvalRun is created".into(),
            },
        },
        Err(e) => Want {
            type_: "Ready",
            status: false,
            reason: "InvalidSpec",
            message: e.clone(),
        },
    }];
    if let Some(last) = finished.last() {
        let result = result_of(last);
        wants.push(Want {
            type_: "LastRunPassed",
            status: result == "Passed",
            reason: match result {
                "Passed" => "Passed",
                "Failed" => "Failed",
                _ => "Error",
            },
            message: last
                .status
                .as_ref()
                .and_then(|s| {
                    s.message
                        .clone()
                        .or(s.summary.clone().map(|m| format!("{m} cases passed")))
                })
                .unwrap_or_default(),
        });
        if let Some(reason) = source_failure(last) {
            wants[0] = Want {
                type_: "Ready",
                status: false,
                reason,
                message: last
                    .status
                    .as_ref()
                    .and_then(|s| s.message.clone())
                    .unwrap_or_default(),
            };
        }
    }
    status.conditions = conditions::merge(&old.conditions, &wants, suite.metadata.generation, now);
    let labels = SuiteLabels {
        namespace: namespace.clone(),
        suite: name.clone(),
    };
    if let Some(success) = &status.last_successful_time {
        ctx.metrics
            .last_success
            .get_or_create(&labels)
            .set(success.0.as_second());
    }
    if let Some(interval) = spec
        .schedule
        .as_deref()
        .and_then(|s| interval(s, spec.time_zone.as_deref(), now))
    {
        ctx.metrics
            .schedule_interval
            .get_or_create(&labels)
            .set(interval);
    }
    if status != old {
        let patch = serde_json::json!({
            "apiVersion": "evals.kagent.dev/v1alpha1",
            "kind": "EvalSuite",
            "status": status,
        });
        let suites: Api<EvalSuite> = Api::namespaced(ctx.client.clone(), &namespace);
        suites
            .patch_status(
                &name,
                &PatchParams::apply(MANAGER).force(),
                &Patch::Apply(&patch),
            )
            .await?;
    }
    let wait = next
        .map(|n| n.duration_since(now).as_secs_f64().max(1.0))
        .map(Duration::from_secs_f64)
        .unwrap_or(RESYNC)
        .min(RESYNC);
    Ok(Action::requeue(wait))
}

/// Seconds between the next two slots of a schedule.
fn interval(schedule: &str, zone: Option<&str>, now: Timestamp) -> Option<i64> {
    let schedule = crate::core::schedule::Schedule::parse(schedule, zone).ok()?;
    let first = schedule.next_after(now)?;
    let second = schedule.next_after(first)?;
    Some(second.as_second() - first.as_second())
}

/// The reason a run's Error means the suite is not ready.
fn source_failure(run: &EvalRun) -> Option<&'static str> {
    let reason = run
        .status
        .as_ref()?
        .conditions
        .iter()
        .find(|c| c.type_ == "Complete")
        .map(|c| c.reason.as_str())?;
    match reason {
        "SourceUnavailable" => Some("SourceUnavailable"),
        "Forbidden" => Some("Forbidden"),
        _ => None,
    }
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
        if !recorded && watermark.is_none_or(|t| completed(run) >= t) {
            status.recent_results.push(RecentResult {
                name,
                result: result_of(run).to_string(),
            });
        }
    }
    let excess = status.recent_results.len().saturating_sub(HEALTH_WINDOW);
    status.recent_results.drain(..excess);
    let results: Vec<&str> = status
        .recent_results
        .iter()
        .map(|r| r.result.as_str())
        .collect();
    status.health = plan::health(&results);
    if let Some(last) = finished.last() {
        let s = last.status.clone().unwrap_or_default();
        status.last_run = Some(LastRun {
            name: last.name_any(),
            result: result_of(last).to_string(),
            pass_rate: s.pass_rate,
            completion_time: s.completion_time.clone(),
        });
        if let Some(ok) = finished.iter().rev().find(|r| result_of(r) == "Passed") {
            status.last_successful_time =
                ok.status.as_ref().and_then(|s| s.completion_time.clone());
        }
    }
}

/// Delete a run that may already be gone.
async fn delete_run(api: &Api<EvalRun>, name: &str) -> Result<(), Error> {
    match api.delete(name, &DeleteParams::background()).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(e)) if e.code == 404 => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Create the run of a slot; `false` when it already exists (another
/// replica, or this one before a restart, created it).
async fn create_scheduled(
    api: &Api<EvalRun>,
    suite: &EvalSuite,
    name: &str,
    slot: Timestamp,
) -> Result<bool, Error> {
    let mut run = EvalRun::new(
        name,
        EvalRunSpec {
            suite_ref: SuiteRef {
                name: suite.name_any(),
            },
            trigger: Trigger {
                kind: TriggerType::Schedule,
                scheduled_time: Some(Time(slot)),
            },
            suite: Some(suite.spec.suite.clone()),
        },
    );
    run.metadata.namespace = suite.namespace();
    run.metadata.labels = Some(
        [
            (SUITE_LABEL.to_string(), suite.name_any()),
            (TRIGGER_LABEL.to_string(), "schedule".to_string()),
        ]
        .into(),
    );
    run.metadata.owner_references = suite.controller_owner_ref(&()).map(|o| vec![o]);
    match api.create(&PostParams::default(), &run).await {
        Ok(_) => Ok(true),
        Err(kube::Error::Api(e)) if e.code == 409 => Ok(false),
        Err(e) => Err(e.into()),
    }
}
