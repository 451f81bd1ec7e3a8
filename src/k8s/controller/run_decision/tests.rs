//! The run reconciler's decisions with an injected clock, no API server.

use super::*;
use crate::core::suite::compile::RunGate;
use crate::core::suite::gate;
use crate::core::suite::report::{CaseReport, FORMAT_VERSION, Summary};
use crate::k8s::crd::TemplateSnapshot;

fn t(s: &str) -> Timestamp {
    s.parse().unwrap()
}

fn running(executor: &str, heartbeat: &str, attempts: u32) -> EvalRunStatus {
    EvalRunStatus {
        phase: Some(Phase::Running),
        attempts: Some(attempts),
        executor: Some(Executor {
            identity: executor.into(),
            heartbeat_time: Time(t(heartbeat)),
        }),
        ..EvalRunStatus::default()
    }
}

#[test]
fn a_new_run_is_executed_as_the_first_attempt() {
    let start = start(
        &EvalRunStatus::default(),
        "a",
        t("2026-12-02T10:00:00Z"),
        SignedDuration::from_secs(45),
        3,
    );
    assert_eq!(
        start,
        Start::Execute {
            attempt: 1,
            resumed: false
        }
    );
}

#[test]
fn a_run_another_replica_keeps_alive_is_left_to_it() {
    let now = t("2026-12-02T10:00:30Z");
    let status = running("b", "2026-12-02T10:00:20Z", 1);
    assert_eq!(
        start(&status, "a", now, SignedDuration::from_secs(45), 3),
        Start::Wait(Duration::from_secs(35))
    );
    // Silent for longer than the stale interval: taken over, as a resumption.
    let stale = running("b", "2026-12-02T09:59:00Z", 1);
    assert_eq!(
        start(&stale, "a", now, SignedDuration::from_secs(45), 3),
        Start::Execute {
            attempt: 2,
            resumed: true
        }
    );
    // This replica's own run, found Running after a restart: resumed at once.
    let mine = running("a", "2026-12-02T10:00:20Z", 1);
    assert_eq!(
        start(&mine, "a", now, SignedDuration::from_secs(45), 3),
        Start::Execute {
            attempt: 2,
            resumed: true
        }
    );
    let worn = running("a", "2026-12-02T10:00:20Z", 3);
    assert_eq!(
        start(&worn, "a", now, SignedDuration::from_secs(45), 3),
        Start::GiveUp { attempts: 3 }
    );
}

#[test]
fn a_claimed_run_carries_the_generation_it_was_claimed_at() {
    let now = t("2026-12-02T10:00:00Z");
    let claimed = claimed(&EvalRunStatus::default(), 1, false, "a", Some(2), now);
    assert_eq!(claimed.phase, Some(Phase::Running));
    assert_eq!(claimed.executor.as_ref().unwrap().identity, "a");
    let complete = conditions::find(&claimed.conditions, ConditionType::Complete).unwrap();
    assert_eq!(
        (complete.status.as_str(), complete.observed_generation),
        ("False", Some(2))
    );
    assert_eq!(claimed.message, None);
    let resumed = super::claimed(&claimed, 2, true, "b", Some(2), now);
    assert_eq!(
        resumed.start_time, claimed.start_time,
        "the first start is kept"
    );
    assert!(resumed.message.unwrap().contains("resumed"));
}

fn report(cases: &[(&str, Outcome)]) -> Report {
    let mut summary = Summary {
        cases: cases.len(),
        sessions: 1,
        ..Summary::default()
    };
    for (_, outcome) in cases {
        match outcome {
            Outcome::Passed => summary.passed += 1,
            Outcome::Error => summary.errors += 1,
            _ => summary.failed += 1,
        }
    }
    let cases: Vec<CaseReport> = cases
        .iter()
        .map(|(name, outcome)| CaseReport {
            name: name.to_string(),
            passed: *outcome == Outcome::Passed,
            outcome: *outcome,
            pass_rate: None,
            min_pass_rate: 1.0,
            session_count: 0,
            failed_sessions: 0,
            notes: vec![],
            sessions: vec![],
            sessions_omitted: 0,
            probe: None,
            pooled: vec![],
            references: vec![],
            efficiency: Default::default(),
            blocking: true,
            tags: vec![],
        })
        .collect();
    let mut report = Report {
        format_version: FORMAT_VERSION,
        suite: "s".into(),
        passed: false,
        summary,
        efficiency: Default::default(),
        gate: gate::judge(&cases, &RunGate::default()),
        baseline: None,
        source: None,
        probed_with: None,
        judge: None,
        judge_calibration: None,
        selection: None,
        cases,
    };
    report.settle();
    report
}

fn scored(report: Report) -> Ending {
    Ending::Scored {
        report: Box::new(report),
        learnt: Learnt::default(),
    }
}

fn claimed_at(generation: i64) -> EvalRunStatus {
    claimed(
        &EvalRunStatus::default(),
        1,
        false,
        "a",
        Some(generation),
        t("2026-12-02T10:00:00Z"),
    )
}

#[test]
fn a_passing_run_ends_succeeded_with_both_conditions_at_its_generation() {
    let done = finish(
        &claimed_at(2),
        Some(2),
        scored(report(&[("a", Outcome::Passed)])),
        t("2026-12-02T10:00:05Z"),
    );
    assert_eq!(done.result, RunResult::Passed);
    assert_eq!(done.status.phase, Some(Phase::Succeeded));
    assert_eq!(done.status.executor, None);
    assert_eq!(done.seconds, Some(5.0));
    for type_ in [ConditionType::Complete, ConditionType::Passed] {
        let c = conditions::find(&done.status.conditions, type_).unwrap();
        assert_eq!(
            (c.status.as_str(), c.observed_generation),
            ("True", Some(2)),
            "{type_:?}"
        );
    }
    assert_eq!(done.events.len(), 1);
    assert_eq!(done.events[0].reason, EventReason::EvalRunPassed);
    assert!(!done.events[0].warning);
}

#[test]
fn a_failed_case_wins_over_one_that_could_not_be_done() {
    let done = finish(
        &claimed_at(1),
        Some(1),
        scored(report(&[("a", Outcome::Error), ("b", Outcome::Failed)])),
        t("2026-12-02T10:00:05Z"),
    );
    assert_eq!(done.result, RunResult::Failed);
    let errored = finish(
        &claimed_at(1),
        Some(1),
        scored(report(&[("a", Outcome::Error), ("b", Outcome::Passed)])),
        t("2026-12-02T10:00:05Z"),
    );
    assert_eq!(errored.result, RunResult::Error);
    assert_eq!(
        errored.events[0].reason,
        EventReason::Failure(Failure::EvaluatorError)
    );
    let complete = conditions::find(&errored.status.conditions, ConditionType::Complete).unwrap();
    assert_eq!(complete.reason, "EvaluatorError");
    assert_eq!(errored.status.failure, Some(Failure::EvaluatorError));
    assert_eq!(done.status.failure, None, "a failed case is a verdict");
}

/// Ready, Reconciling and Stalled of a run's status, and Stalled's reason.
fn kstatus(status: &EvalRunStatus) -> [String; 4] {
    let of = |type_| conditions::find(&status.conditions, type_).unwrap().clone();
    let stalled = of(ConditionType::Stalled);
    [
        of(ConditionType::Ready).status,
        of(ConditionType::Reconciling).status,
        stalled.status,
        stalled.reason,
    ]
}

#[test]
fn a_run_is_reconciling_until_it_has_a_verdict_and_stalled_only_when_it_could_not_be_done() {
    let running = claimed_at(3);
    assert_eq!(kstatus(&running), ["False", "True", "False", "Running"]);
    assert_eq!(running.observed_generation, Some(3));
    let at = t("2026-12-02T10:00:05Z");
    for (cases, want) in [
        (
            vec![("a", Outcome::Passed)],
            ["True", "False", "False", "Finished"],
        ),
        // A failed eval is a verdict, not a broken resource.
        (
            vec![("a", Outcome::Failed)],
            ["True", "False", "False", "Finished"],
        ),
        (
            vec![("a", Outcome::Error)],
            ["False", "False", "True", "EvaluatorError"],
        ),
    ] {
        let done = finish(&running, Some(3), scored(report(&cases)), at);
        assert_eq!(kstatus(&done.status), want, "{cases:?}");
        assert_eq!(done.status.observed_generation, Some(3));
    }
    let unreachable = finish(
        &running,
        Some(3),
        Ending::failed(Failure::SourceUnavailable, "down", Learnt::default()),
        at,
    );
    assert_eq!(
        kstatus(&unreachable.status),
        ["False", "False", "True", "SourceUnavailable"]
    );
}

#[test]
fn a_queued_run_says_once_that_it_waits_for_a_slot() {
    let now = t("2026-12-02T10:00:00Z");
    let waiting = waiting_for_slot(&EvalRunStatus::default(), 4, Some(1), now).unwrap();
    assert_eq!(waiting.phase, Some(Phase::Pending));
    assert_eq!(
        kstatus(&waiting),
        ["False", "True", "False", "WaitingForSlot"]
    );
    assert!(waiting.message.unwrap().contains("4 run slots"));
    let said = waiting_for_slot(&EvalRunStatus::default(), 4, Some(1), now).unwrap();
    assert_eq!(waiting_for_slot(&said, 4, Some(1), now), None, "said once");
    // A resumed run keeps its Running status while it waits.
    assert_eq!(waiting_for_slot(&claimed_at(1), 4, Some(1), now), None);
}

#[test]
fn each_way_of_stopping_maps_to_the_part_that_is_down() {
    use crate::core::judge::JudgeError;
    use crate::pipeline::{OpenError, RunError};
    use crate::resolve::{Refusal, RefusalReason};
    use crate::source::SourceError;
    let refused = |reason| Refusal {
        reason,
        message: String::new(),
    };
    let cases = [
        (
            Stopped::Refused(&refused(RefusalReason::Forbidden)),
            Failure::Forbidden,
        ),
        (
            Stopped::Refused(&refused(RefusalReason::InvalidSpec)),
            Failure::InvalidSpec,
        ),
        (
            Stopped::Refused(&refused(RefusalReason::SourceUnavailable)),
            Failure::SourceUnavailable,
        ),
        (
            Stopped::Refused(&refused(RefusalReason::JudgeUnavailable)),
            Failure::JudgeUnavailable,
        ),
        (
            Stopped::NotOpened(&OpenError::Source(SourceError::Config("x".into()))),
            Failure::SourceUnavailable,
        ),
        (
            Stopped::NotOpened(&OpenError::Judge(JudgeError("x".into()))),
            Failure::JudgeUnavailable,
        ),
        (
            Stopped::NotOpened(&OpenError::Agent("x".into())),
            Failure::AgentUnavailable,
        ),
        (
            Stopped::Run(&RunError::Source(SourceError::Config("x".into()))),
            Failure::SourceUnavailable,
        ),
        (
            Stopped::Run(&RunError::Judge(JudgeError("x".into()))),
            Failure::JudgeUnavailable,
        ),
        (
            Stopped::Run(&RunError::CannotProbe("x".into())),
            Failure::AgentUnavailable,
        ),
    ];
    for (stopped, failure) in cases {
        assert_eq!(failure_of(stopped), failure, "{stopped:?}");
    }
}

#[test]
fn every_failure_gets_a_warning_event_and_its_reason() {
    let done = finish(
        &claimed_at(1),
        Some(1),
        Ending::failed(
            Failure::JudgeUnavailable,
            "spec.judge.apiKeySecretRef: Secret team/key: forbidden",
            Learnt {
                agent: None,
                source: Some("the suite's own kagent API at http://kagent:8083".into()),
            },
        ),
        t("2026-12-02T10:00:05Z"),
    );
    assert_eq!(done.status.phase, Some(Phase::Error));
    assert_eq!(done.status.failure, Some(Failure::JudgeUnavailable));
    assert_eq!(
        done.status.source.as_deref(),
        Some("the suite's own kagent API at http://kagent:8083"),
        "what the run learnt before it stopped is kept"
    );
    assert_eq!(
        done.events[0].reason,
        EventReason::Failure(Failure::JudgeUnavailable)
    );
    assert!(done.events[0].warning);
    assert_eq!(done.events[0].regarding, Regarding::RunAndSuite);
    let passed = conditions::find(&done.status.conditions, ConditionType::Passed).unwrap();
    assert_eq!(
        (passed.status.as_str(), passed.reason.as_str()),
        ("False", "JudgeUnavailable")
    );
    assert_eq!(
        done.status.message.as_deref(),
        Some("spec.judge.apiKeySecretRef: Secret team/key: forbidden")
    );
}

fn with_results(
    results: &[(&str, Outcome)],
    agent: Option<(i64, &str)>,
    source: &str,
) -> EvalRunStatus {
    EvalRunStatus {
        results: results
            .iter()
            .map(|(name, outcome)| CaseResult {
                name: name.to_string(),
                outcome: *outcome,
                pass_rate: None,
                sessions: 1,
                failed_sessions: 0,
                message: None,
                probe: None,
                efficiency: None,
                blocking: None,
            })
            .collect(),
        agent: agent.map(|(generation, fingerprint)| AgentSnapshot {
            name: "team/weather".into(),
            generation: Some(generation),
            fingerprint: Some(fingerprint.into()),
            ..AgentSnapshot::default()
        }),
        source: Some(source.into()),
        ..EvalRunStatus::default()
    }
}

fn cause(previous: (&EvalRunStatus, i64), current: (&EvalRunStatus, i64)) -> Option<String> {
    regression(
        RunFacts {
            name: "run-1",
            status: previous.0,
            suite_generation: Some(previous.1),
        },
        RunFacts {
            name: "run-2",
            status: current.0,
            suite_generation: Some(current.1),
        },
    )
    .map(|e| e.note)
}

#[test]
fn a_regression_names_what_changed() {
    let before = with_results(
        &[("a", Outcome::Passed), ("b", Outcome::Passed)],
        Some((3, "f1")),
        "db",
    );
    let failing = with_results(
        &[("a", Outcome::Failed), ("b", Outcome::Passed)],
        Some((3, "f1")),
        "db",
    );
    let note = cause((&before, 1), (&failing, 1)).unwrap();
    assert!(
        note.starts_with("case(s) a passed in run-1 and fail now; nothing known changed"),
        "{note}"
    );
    assert!(
        note.contains("the model or its tools behave differently"),
        "{note}"
    );

    let suite_changed = cause((&before, 1), (&failing, 2)).unwrap();
    assert!(
        suite_changed.contains("changed since: the suite (generation 1 -> 2)"),
        "{suite_changed}"
    );

    let agent_changed = with_results(&[("a", Outcome::Failed)], Some((4, "f2")), "db");
    let both = cause((&before, 1), (&agent_changed, 2)).unwrap();
    assert!(both.contains("the suite (generation 1 -> 2), the Agent (generation 3, fingerprint f1 -> generation 4, fingerprint f2)"), "{both}");

    let moved = with_results(&[("a", Outcome::Failed)], Some((3, "f1")), "api");
    let source = cause((&before, 1), (&moved, 1)).unwrap();
    assert!(
        source.contains("changed since: the source (db -> api)"),
        "{source}"
    );

    let quiet = with_results(
        &[("a", Outcome::NoSessions), ("b", Outcome::Passed)],
        Some((3, "f1")),
        "db",
    );
    let empty = cause((&before, 1), (&quiet, 1)).unwrap();
    assert!(
        empty.contains("case(s) a passed in run-1 and now found no sessions"),
        "{empty}"
    );
    assert!(!empty.contains("behave differently"), "{empty}");

    assert_eq!(
        cause((&failing, 1), (&before, 1)),
        None,
        "a recovery is no regression"
    );
}

#[test]
fn a_report_config_map_name_is_always_a_kubernetes_name() {
    use crate::core::suite::rules::NameKind;
    assert_eq!(
        report_config_map("nightly-29936280"),
        "nightly-29936280-report"
    );
    // Two 253-character runs sharing their first 246 characters.
    let (one, two) = (
        format!("{}.bbbbbb", "a".repeat(246)),
        format!("{}.cccccc", "a".repeat(246)),
    );
    let (a, b) = (report_config_map(&one), report_config_map(&two));
    assert_ne!(a, b);
    for name in [a, b] {
        assert!(NameKind::Object.allows(&name), "{name}");
        assert!(name.ends_with("-report"), "{name}");
    }
}

fn on_revisions(status: &EvalRunStatus, revisions: &[(&str, u32, u32)]) -> EvalRunStatus {
    EvalRunStatus {
        revisions: revisions
            .iter()
            .map(|(revision, sessions, failed_sessions)| RevisionResult {
                revision: revision.to_string(),
                sessions: *sessions,
                failed_sessions: *failed_sessions,
            })
            .collect(),
        ..status.clone()
    }
}

#[test]
fn a_regression_names_the_1_0_revision_that_brought_it() {
    let before = on_revisions(
        &with_results(&[("a", Outcome::Passed)], Some((3, "f1")), "db"),
        &[("rev-1", 4, 0)],
    );
    let failing = with_results(&[("a", Outcome::Failed)], Some((3, "f1")), "db");
    let introduced = cause(
        (&before, 1),
        (
            &on_revisions(&failing, &[("rev-2", 3, 3), ("rev-1", 2, 0)]),
            1,
        ),
    )
    .unwrap();
    assert!(
        introduced.contains("the failures came with revision rev-2 (3 of 3 sessions failed), new since the previous run; every session on revision rev-1 passed"),
        "{introduced}"
    );
    let same = cause(
        (&before, 1),
        (
            &on_revisions(&failing, &[("rev-1", 2, 1), ("unknown", 1, 1)]),
            1,
        ),
    )
    .unwrap();
    assert!(
        same.contains("the failing sessions ran on revision rev-1 (1 of 2 sessions failed), unknown (1 of 1 sessions failed), which the previous run read too"),
        "{same}"
    );
    let without = cause((&before, 1), (&failing, 1)).unwrap();
    assert!(
        !without.contains("revision"),
        "0.10 runs have none: {without}"
    );
}

#[test]
fn a_changed_1_0_agent_is_told_by_what_changed_in_its_template() {
    let snapshot = |revision: &str, model: &str| AgentSnapshot {
        name: "team/weather".into(),
        latest_successful_revision: Some(revision.into()),
        template: Some(TemplateSnapshot {
            from: "AgentTemplate weather".into(),
            model_config: Some(model.into()),
            ..TemplateSnapshot::default()
        }),
        ..AgentSnapshot::default()
    };
    let before = EvalRunStatus {
        agent: Some(snapshot("rev-1", "gpt")),
        ..with_results(&[("a", Outcome::Passed)], None, "db")
    };
    let after = EvalRunStatus {
        agent: Some(snapshot("rev-2", "gpt-mini")),
        ..with_results(&[("a", Outcome::Failed)], None, "db")
    };
    let note = cause((&before, 1), (&after, 1)).unwrap();
    assert!(
        note.contains(
            "changed since: the Agent (revision rev-1 -> rev-2; model config gpt -> gpt-mini)"
        ),
        "{note}"
    );
}
