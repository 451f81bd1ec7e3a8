//! The suite reconciler's decisions with an injected clock, no API server.

use super::*;
use crate::core::suite::report::Outcome;
use crate::k8s::crd::{CaseResult, EvalRunStatus, EvalSuiteSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

fn t(s: &str) -> Timestamp {
    s.parse().unwrap()
}

fn spec(schedule: &str, policy: ConcurrencyPolicy) -> SuiteSpec {
    SuiteSpec {
        schedule: Some(schedule.into()),
        concurrency_policy: policy,
        ..SuiteSpec::default()
    }
}

fn parsed(s: &SuiteSpec) -> Schedule {
    Schedule::parse(s.schedule.as_deref().unwrap(), s.time_zone.as_deref()).unwrap()
}

fn ticked(
    s: &SuiteSpec,
    last: Option<Timestamp>,
    created: Timestamp,
    active: usize,
    now: Timestamp,
) -> Tick {
    tick(Some(&parsed(s)), s, last, created, active, now)
}

#[test]
fn a_due_slot_creates_its_run_once() {
    let s = spec("*/5 * * * *", ConcurrencyPolicy::Forbid);
    let created = t("2026-12-02T09:58:00Z");
    let now = t("2026-12-02T10:00:01Z");
    let first = ticked(&s, None, created, 0, now);
    assert_eq!(first.create, Some(t("2026-12-02T10:00:00Z")));
    assert_eq!(first.next, Some(t("2026-12-02T10:05:00Z")));
    let again = ticked(&s, first.create, created, 1, now);
    assert_eq!(again.create, None, "the recorded slot is not due twice");
}

#[test]
fn forbid_waits_and_replace_replaces_as_cronjob_does() {
    let created = t("2026-12-02T09:58:00Z");
    let now = t("2026-12-02T10:00:01Z");
    let forbid = ticked(
        &spec("*/5 * * * *", ConcurrencyPolicy::Forbid),
        None,
        created,
        1,
        now,
    );
    assert!(forbid.forbidden && forbid.create.is_none());
    let replace = ticked(
        &spec("*/5 * * * *", ConcurrencyPolicy::Replace),
        None,
        created,
        1,
        now,
    );
    assert!(replace.replace_active && replace.create.is_some());
    let allow = ticked(
        &spec("*/5 * * * *", ConcurrencyPolicy::Allow),
        None,
        created,
        1,
        now,
    );
    assert!(!allow.replace_active && allow.create.is_some());
}

#[test]
fn suspend_deadline_and_outage() {
    let created = t("2026-12-02T08:00:00Z");
    let mut s = spec("0 * * * *", ConcurrencyPolicy::Forbid);
    s.suspend = true;
    assert_eq!(
        ticked(&s, None, created, 0, t("2026-12-02T10:00:30Z")).create,
        None
    );
    s.suspend = false;
    s.starting_deadline_seconds = Some(60);
    let late = ticked(&s, None, created, 0, t("2026-12-02T10:05:00Z"));
    assert_eq!(late.missed, Some(t("2026-12-02T10:00:00Z")));
    assert_eq!(late.create, None);
    s.starting_deadline_seconds = None;
    let outage = ticked(
        &s,
        Some(t("2026-12-02T07:00:00Z")),
        created,
        0,
        t("2026-12-02T10:00:30Z"),
    );
    assert_eq!(outage.create, Some(t("2026-12-02T10:00:00Z")));
    assert_eq!(outage.passed_over, 2);
}

#[test]
fn run_names_derive_from_the_slot_and_fit_a_name() {
    assert_eq!(
        run_name("weather", t("2026-12-02T10:00:00Z")),
        "weather-29936760"
    );
    // Two valid 59-character suites sharing their first 54: each its own
    // run, every slot; a 253-character suite's run fits a name too.
    let slot = t("2026-12-02T10:00:00Z");
    let prefix = "a".repeat(54);
    let (one, two) = (
        run_name(&format!("{prefix}-nine"), slot),
        run_name(&format!("{prefix}-nein"), slot),
    );
    assert_ne!(one, two);
    for name in [one, two, run_name(&"b".repeat(253), slot)] {
        assert!(name.len() <= 63, "{name}");
        assert!(name.ends_with("-29936760"), "{name}");
    }
}

#[test]
fn history_keeps_the_newest_of_each_kind() {
    let run = |name: &str, succeeded, minute: i64| HistoryEntry {
        name: name.into(),
        succeeded,
        completed: Timestamp::from_second(minute * 60).unwrap(),
    };
    let finished = [
        run("a", true, 1),
        run("b", false, 2),
        run("c", true, 3),
        run("d", true, 4),
        run("e", false, 5),
    ];
    let mut deleted = prune(&finished, 2, 1);
    deleted.sort();
    assert_eq!(deleted, ["a", "b"]);
    assert_eq!(prune(&finished, 0, 0).len(), 5);
}

#[test]
fn health_counts_passes_and_flips() {
    use RunResult::{Failed, Passed};
    let h = health(&[Passed, Failed, Passed, Passed]).unwrap();
    assert_eq!((h.runs, h.pass_rate), (4, 0.75));
    assert_eq!(h.flip_rate, 2.0 / 3.0);
    assert_eq!(health(&[]), None);
}

// Whole decisions -----------------------------------------------------------

fn suite(s: SuiteSpec) -> EvalSuite {
    let mut suite = EvalSuite::new("nightly", EvalSuiteSpec { suite: s });
    suite.metadata.namespace = Some("team".into());
    suite.metadata.uid = Some("uid-1".into());
    suite.metadata.generation = Some(4);
    suite.metadata.creation_timestamp = Some(Time(t("2026-12-01T00:00:00Z")));
    suite
}

fn valid_spec() -> SuiteSpec {
    let mut s: SuiteSpec = serde_json::from_value(serde_json::json!({
        "cases": [{"name": "c", "evaluators": [{"name": "l", "type": "loops", "loops": {}}]}]
    }))
    .unwrap();
    s.schedule = Some("0 2 * * *".into());
    s
}

fn finished_run(
    name: &str,
    phase: Phase,
    minute: i64,
    trigger: TriggerType,
    reason: &str,
) -> EvalRun {
    let mut run = EvalRun::new(
        name,
        EvalRunSpec {
            suite_ref: SuiteRef {
                name: "nightly".into(),
            },
            trigger: Trigger {
                kind: trigger,
                scheduled_time: None,
            },
            suite: None,
            suite_generation: None,
        },
    );
    run.metadata.namespace = Some("team".into());
    run.status = Some(EvalRunStatus {
        phase: Some(phase),
        completion_time: Some(Time(
            t("2026-12-02T00:00:00Z") + SignedDuration::from_mins(minute),
        )),
        message: Some(format!("{name} said so")),
        failure: reason.parse().ok(),
        source: Some("the operator's kagent PostgreSQL at db:5432/kagent".into()),
        results: vec![CaseResult {
            name: "c".into(),
            outcome: if phase == Phase::Succeeded {
                Outcome::Passed
            } else {
                Outcome::Failed
            },
            pass_rate: None,
            sessions: 1,
            failed_sessions: 0,
            message: None,
            probe: None,
            efficiency: None,
            blocking: None,
        }],
        conditions: vec![Condition {
            type_: "Complete".into(),
            status: "True".into(),
            reason: reason.into(),
            message: String::new(),
            observed_generation: None,
            last_transition_time: Time(t("2026-12-02T00:00:00Z")),
        }],
        ..EvalRunStatus::default()
    });
    run
}

#[test]
fn a_due_suite_plans_its_run_with_the_snapshot_and_an_event_of_its_own() {
    let suite = suite(valid_spec());
    let decision = decide(&suite, &[], t("2026-12-02T02:00:03Z"));
    let run = decision.create.expect("the 02:00 slot is due");
    assert_eq!(run.metadata.name.as_deref(), Some("nightly-29936280"));
    assert_eq!(run.spec.suite_generation, Some(4));
    assert_eq!(run.spec.suite.as_ref(), Some(&suite.spec.suite));
    let event = decision.created_event.unwrap();
    assert_eq!(event.reason, EventReason::EvalRunCreated);
    assert_eq!(
        event.regarding,
        Regarding::Suite {
            related_run: Some("nightly-29936280".into())
        },
        "each run's Event is its own, not aggregated into the first one's"
    );
    assert_eq!(decision.status.active.len(), 1);
    assert_eq!(decision.status.agent, None, "a suite without agentRef");
    let mut named = valid_spec();
    named.agent_ref = serde_json::from_value(serde_json::json!({"name": "k8s-agent"})).unwrap();
    let status = decide(&self::suite(named), &[], t("2026-12-02T02:00:03Z")).status;
    assert_eq!(status.agent.as_deref(), Some("team/k8s-agent"));
    let ready = conditions::find(&decision.status.conditions, ConditionType::Ready).unwrap();
    assert_eq!(
        (ready.status.as_str(), ready.reason.as_str()),
        ("True", "Scheduled")
    );
    assert_eq!(decision.metrics.schedule_interval, Some(86_400));
    assert_eq!(decision.requeue, WHILE_ACTIVE, "a run is active");
    // Said in the write that records the run, not in one more after it.
    let why = conditions::find(&decision.status.conditions, ConditionType::Reconciling).unwrap();
    assert_eq!(
        (why.status.as_str(), why.reason.as_str()),
        ("True", "FirstRunPending")
    );
}

#[test]
fn an_invalid_schedule_is_said_once_with_its_own_reason() {
    let mut s = valid_spec();
    s.time_zone = Some("Mars/Olympus".into());
    let mut suite = suite(s);
    let now = t("2026-12-02T02:00:03Z");
    let first = decide(&suite, &[], now);
    let ready = conditions::find(&first.status.conditions, ConditionType::Ready).unwrap();
    assert_eq!(
        (ready.status.as_str(), ready.reason.as_str()),
        ("False", "InvalidSchedule")
    );
    assert!(ready.message.contains("Mars/Olympus"), "{}", ready.message);
    assert_eq!(first.events.len(), 1);
    assert_eq!(first.events[0].reason, EventReason::InvalidSchedule);
    assert!(first.create.is_none());
    suite.status = Some(first.status);
    let again = decide(&suite, &[], now + SignedDuration::from_mins(5));
    assert!(again.events.is_empty(), "{:?}", again.events);
}

#[test]
fn history_prunes_scheduled_runs_only_and_records_the_latest() {
    let suite = suite(valid_spec());
    let runs = [
        finished_run("s1", Phase::Succeeded, 1, TriggerType::Schedule, "Finished"),
        finished_run("s2", Phase::Succeeded, 2, TriggerType::Schedule, "Finished"),
        finished_run("s3", Phase::Succeeded, 3, TriggerType::Schedule, "Finished"),
        finished_run("s4", Phase::Succeeded, 4, TriggerType::Schedule, "Finished"),
        finished_run(
            "by-hand",
            Phase::Succeeded,
            0,
            TriggerType::Manual,
            "Finished",
        ),
        finished_run(
            "by-hand-failed",
            Phase::Failed,
            5,
            TriggerType::Manual,
            "Finished",
        ),
    ];
    let refs: Vec<&EvalRun> = runs.iter().collect();
    let now = t("2026-12-02T01:00:00Z");
    let first = decide(&suite, &refs, now);
    assert!(
        first.prune.is_empty(),
        "a run is recorded before it is deleted: {:?}",
        first.prune
    );
    let mut recorded = suite.clone();
    recorded.status = Some(first.status);
    let decision = decide(&recorded, &refs, now);
    assert_eq!(decision.prune, ["s1"]);
    let last = decision.status.last_run.unwrap();
    assert_eq!(
        (last.name.as_str(), last.result),
        ("by-hand-failed", RunResult::Failed)
    );
    assert_eq!(decision.metrics.last_run_passed, Some(false));
    assert_eq!(decision.metrics.cases, [("c".to_string(), false)]);
    assert_eq!(decision.status.recent_results.len(), 6);
    assert_eq!(
        decision.status.source.as_deref(),
        Some("the operator's kagent PostgreSQL at db:5432/kagent")
    );
    let passed =
        conditions::find(&decision.status.conditions, ConditionType::LastRunPassed).unwrap();
    assert_eq!(
        (passed.status.as_str(), passed.message.as_str()),
        ("False", "by-hand-failed said so")
    );
}

/// The suite a decision reads may not show the status the last decision
/// wrote yet; a run recorded then must still count once it is deleted.
#[test]
fn a_pruned_run_is_never_missing_from_health() {
    let mut spec = valid_spec();
    spec.successful_runs_history_limit = Some(2);
    let suite = suite(spec);
    let runs: Vec<EvalRun> = (1..=3)
        .map(|i| {
            finished_run(
                &format!("s{i}"),
                Phase::Succeeded,
                i,
                TriggerType::Schedule,
                "Finished",
            )
        })
        .collect();
    let refs: Vec<&EvalRun> = runs.iter().collect();
    let now = t("2026-12-02T01:00:00Z");
    // Three runs found finished at once: all recorded, none deleted yet.
    let first = decide(&suite, &refs, now);
    assert!(first.prune.is_empty(), "{:?}", first.prune);
    // A decision from the suite as it was before that write keeps them all.
    let stale = decide(&suite, &refs, now);
    assert!(stale.prune.is_empty(), "{:?}", stale.prune);
    // From the written status, the oldest goes and its result stays.
    let mut written = suite.clone();
    written.status = Some(first.status);
    let next = decide(&written, &refs, now);
    assert_eq!(next.prune, ["s1"]);
    let after: Vec<&EvalRun> = refs[1..].to_vec();
    let mut pruned = written.clone();
    pruned.status = Some(next.status);
    let health = decide(&pruned, &after, now).status.health.unwrap();
    assert_eq!(health.runs, 3);
}

/// Ready, Reconciling and Stalled, and Ready's reason.
fn kstatus_conditions(decision: &SuiteDecision) -> [String; 4] {
    let of = |type_| {
        conditions::find(&decision.status.conditions, type_)
            .unwrap_or_else(|| panic!("no {type_:?}"))
            .clone()
    };
    let ready = of(ConditionType::Ready);
    [
        ready.status,
        of(ConditionType::Reconciling).status,
        of(ConditionType::Stalled).status,
        ready.reason,
    ]
}

#[test]
fn a_suite_whose_last_run_could_not_be_done_is_stalled_and_a_failed_verdict_is_not() {
    let suite = suite(valid_spec());
    let at = t("2026-12-02T01:00:00Z");
    for (phase, last, want) in [
        (
            Phase::Error,
            "SourceUnavailable",
            ["False", "False", "True", "SourceUnavailable"],
        ),
        (
            Phase::Error,
            "TimedOut",
            ["False", "False", "True", "TimedOut"],
        ),
        (
            Phase::Error,
            "AgentUnavailable",
            ["False", "False", "True", "AgentUnavailable"],
        ),
        // A run that failed its cases was done: a verdict, not a stall.
        (
            Phase::Failed,
            "CasesFailed",
            ["True", "False", "False", "Scheduled"],
        ),
    ] {
        let runs = [finished_run("s1", phase, 1, TriggerType::Schedule, last)];
        let refs: Vec<&EvalRun> = runs.iter().collect();
        let got = kstatus_conditions(&decide(&suite, &refs, at));
        assert_eq!(got.each_ref().map(String::as_str), want, "{last}");
    }
}

#[test]
fn a_suite_whose_first_run_is_pending_is_reconciling() {
    let suite = suite(valid_spec());
    let mut first = finished_run("first", Phase::Pending, 0, TriggerType::Manual, "");
    first.status.as_mut().unwrap().completion_time = None;
    let decision = decide(&suite, &[&first], t("2026-12-02T00:00:30Z"));
    let [_, reconciling, stalled, _] = kstatus_conditions(&decision);
    assert_eq!([reconciling.as_str(), stalled.as_str()], ["True", "False"]);
    let why = conditions::find(&decision.status.conditions, ConditionType::Reconciling).unwrap();
    assert_eq!(why.reason, "FirstRunPending");
    assert!(why.message.contains("first"), "{}", why.message);
}

#[test]
fn replace_plans_the_stop_of_the_active_run() {
    let mut s = valid_spec();
    s.concurrency_policy = ConcurrencyPolicy::Replace;
    let suite = suite(s);
    let mut active = finished_run("old", Phase::Running, 0, TriggerType::Schedule, "Running");
    active.status.as_mut().unwrap().completion_time = None;
    let decision = decide(&suite, &[&active], t("2026-12-02T02:00:03Z"));
    assert_eq!(decision.replace, ["old"]);
    assert_eq!(decision.events[0].reason, EventReason::EvalRunReplaced);
    assert!(decision.create.is_some());
}

#[test]
fn a_slot_waiting_under_forbid_is_said_once_not_rewritten_at_each_look() {
    // Every status write wakes the suite again: a status that named the
    // next look (now + 15 s) was rewritten at every reconcile.
    let suite = suite(valid_spec());
    let mut active = finished_run("old", Phase::Running, 0, TriggerType::Schedule, "Running");
    active.status.as_mut().unwrap().completion_time = None;
    let first = decide(&suite, &[&active], t("2026-12-02T02:00:03Z"));
    assert!(first.create.is_none(), "Forbid starts nothing");
    assert_eq!(first.requeue, Duration::from_secs(5));
    let ready = conditions::find(&first.status.conditions, ConditionType::Ready).unwrap();
    assert!(
        ready.message.contains("2026-12-02T02:00:00Z") && ready.message.contains("Forbid"),
        "{}",
        ready.message
    );
    let mut written = suite.clone();
    written.status = Some(first.status.clone());
    let later = decide(&written, &[&active], t("2026-12-02T02:00:04.5Z"));
    assert_eq!(
        Some(&later.status),
        written.status.as_ref(),
        "nothing to write"
    );
}

#[test]
fn the_judges_use_of_the_last_run_is_published_and_an_unpriced_one_has_no_cost() {
    let suite = suite(valid_spec());
    let mut run = finished_run(
        "judged",
        Phase::Succeeded,
        0,
        TriggerType::Manual,
        "Finished",
    );
    run.status.as_mut().unwrap().judge = Some(crate::core::judge::JudgeUsage {
        calls: 3,
        prompt_tokens: 600,
        completion_tokens: 60,
        ..Default::default()
    });
    let decision = decide(&suite, &[&run], t("2026-12-02T01:00:00Z"));
    assert_eq!(
        decision.metrics.judge,
        Some(RunJudge {
            calls: 3,
            tokens: 660,
            cost: None
        })
    );
    run.status.as_mut().unwrap().judge = None;
    let unjudged = decide(&suite, &[&run], t("2026-12-02T01:00:00Z"));
    assert_eq!(unjudged.metrics.judge, None, "a run that judged nothing");
}

#[test]
fn a_run_not_created_keeps_its_slot_due_says_why_once_and_recovers() {
    let mut suite = suite(valid_spec());
    suite.status = Some(EvalSuiteStatus {
        last_schedule_time: Some(Time(t("2026-12-01T02:00:00Z"))),
        ..EvalSuiteStatus::default()
    });
    let now = t("2026-12-02T02:00:03Z");
    let why = "Invalid (422): metadata.labels: Invalid value";
    let (refused, event) = run_not_created(&suite, decide(&suite, &[], now), why, now);
    assert!(refused.create.is_none());
    assert_eq!(refused.created_event, None);
    assert!(refused.status.active.is_empty());
    assert_eq!(
        refused.status.last_schedule_time,
        Some(Time(t("2026-12-01T02:00:00Z"))),
        "the slot is not recorded as run"
    );
    assert_eq!(refused.requeue, RETRY_CREATE);
    let event = event.expect("said the first time");
    assert!(event.warning && event.note.contains(why), "{event:?}");
    assert_eq!(
        kstatus_conditions(&refused),
        ["False", "False", "True", "RunNotCreated"].map(String::from),
    );

    // Refused again a minute later: not said again, and Ready keeps the
    // time it became False.
    suite.status = Some(refused.status.clone());
    let later = t("2026-12-02T02:01:03Z");
    let (again, event) = run_not_created(&suite, decide(&suite, &[], later), why, later);
    assert_eq!(event, None);
    let ready = |d: &SuiteDecision| {
        conditions::find(&d.status.conditions, ConditionType::Ready)
            .unwrap()
            .clone()
    };
    assert_eq!(ready(&again).last_transition_time, Time(now));
    // Slots passed meanwhile are said to, and not blamed on leadership.
    let missed = decide(&suite, &[], t("2026-12-04T02:00:03Z"));
    let said = missed
        .events
        .iter()
        .find(|e| e.reason == EventReason::MissedSchedules)
        .expect("slots passed");
    assert!(said.note.contains("could not be created"), "{said:?}");
    // Created at last: Ready again.
    assert_eq!(ready(&missed).status, "True");
}
