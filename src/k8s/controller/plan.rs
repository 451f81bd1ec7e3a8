//! The operator's decisions, as pure functions of state and time: what a
//! schedule tick does, which runs history keeps, a suite's health, and a
//! run's status from its report.

use crate::core::schedule::{Due, Schedule, due};
use crate::core::suite::report::{Outcome, Report};
use crate::core::suite::spec::{ConcurrencyPolicy, SuiteSpec};
use crate::k8s::crd::{CaseCounts, CaseResult, EvalRun, Health, Phase};
use jiff::{SignedDuration, Timestamp};

/// Whether a run has ended: Succeeded, Failed or Error.
pub fn is_done(run: &EvalRun) -> bool {
    matches!(
        run.status.as_ref().and_then(|s| s.phase),
        Some(Phase::Succeeded | Phase::Failed | Phase::Error)
    )
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
    /// When to look again.
    pub next: Option<Timestamp>,
}

/// CronJob's semantics for one suite. `last` is the latest slot a run was
/// created for or skipped, `active` the number of unfinished runs.
pub fn tick(
    spec: &SuiteSpec,
    last: Option<Timestamp>,
    created: Timestamp,
    active: usize,
    now: Timestamp,
) -> Result<Tick, String> {
    let Some(expression) = &spec.schedule else {
        return Ok(Tick::default());
    };
    let schedule = Schedule::parse(expression, spec.time_zone.as_deref())?;
    if spec.suspend {
        return Ok(Tick {
            next: schedule.next_after(now),
            ..Tick::default()
        });
    }
    let deadline = spec
        .starting_deadline_seconds
        .map(SignedDuration::from_secs);
    Ok(match due(&schedule, last, created, now, deadline) {
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
    })
}

/// The name of a scheduled run: the same slot always gives the same name,
/// so a second replica or a restart meets AlreadyExists, not a second run.
pub fn run_name(suite: &str, slot: Timestamp) -> String {
    let minutes = slot.as_second().div_euclid(60);
    let suffix = format!("-{minutes}");
    let keep = 63 - suffix.len();
    format!(
        "{}{suffix}",
        &suite[..suite.len().min(keep)].trim_end_matches(['-', '.'])
    )
}

/// A finished run as history sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finished {
    pub name: String,
    pub succeeded: bool,
    pub completed: Timestamp,
}

/// The runs to delete: beyond the newest `keep_succeeded` succeeded runs and
/// the newest `keep_failed` failed or errored runs.
pub fn prune(finished: &[Finished], keep_succeeded: usize, keep_failed: usize) -> Vec<String> {
    let mut by_age: Vec<&Finished> = finished.iter().collect();
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

/// Results kept for health, oldest first.
pub const HEALTH_WINDOW: usize = 20;

/// Pass rate and flip rate over recent results (`Passed`, `Failed`, `Error`).
pub fn health(results: &[&str]) -> Option<Health> {
    if results.is_empty() {
        return None;
    }
    let passed = results.iter().filter(|r| **r == "Passed").count();
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
    pub phase: Phase,
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
                    outcome: format!("{:?}", case.outcome),
                    pass_rate: case.pass_rate,
                    sessions: case.sessions.len() as u32,
                    failed_sessions,
                    message: message.map(|m| truncate(&m, MAX_MESSAGE)),
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
            Some(m) => format!("case {} {}: {m}", r.name, r.outcome),
            None => format!("case {} {}", r.name, r.outcome),
        });
    let truncated = results.len() > MAX_RESULTS;
    results.truncate(MAX_RESULTS);
    Outcomes {
        phase: if s.errors > 0 {
            Phase::Error
        } else if report.passed {
            Phase::Succeeded
        } else {
            Phase::Failed
        },
        cases: CaseCounts {
            total: s.cases as u32,
            passed: s.passed as u32,
            failed: s.failed as u32,
            no_sessions: s.no_sessions as u32,
            errors: s.errors as u32,
        },
        pass_rate: (s.cases > 0).then(|| s.passed as f64 / s.cases as f64),
        sessions: s.sessions as u32,
        results: results.into_iter().map(|(_, r)| r).collect(),
        truncated,
        worst: worst.map(|w| truncate(&w, 900)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_due_slot_creates_its_run_once() {
        let s = spec("*/5 * * * *", ConcurrencyPolicy::Forbid);
        let created = t("2026-12-02T09:58:00Z");
        let now = t("2026-12-02T10:00:01Z");
        let first = tick(&s, None, created, 0, now).unwrap();
        assert_eq!(first.create, Some(t("2026-12-02T10:00:00Z")));
        assert_eq!(first.next, Some(t("2026-12-02T10:05:00Z")));
        let again = tick(&s, first.create, created, 1, now).unwrap();
        assert_eq!(again.create, None, "the recorded slot is not due twice");
    }

    #[test]
    fn forbid_waits_and_replace_replaces_as_cronjob_does() {
        let created = t("2026-12-02T09:58:00Z");
        let now = t("2026-12-02T10:00:01Z");
        let forbid = tick(
            &spec("*/5 * * * *", ConcurrencyPolicy::Forbid),
            None,
            created,
            1,
            now,
        )
        .unwrap();
        assert!(forbid.forbidden && forbid.create.is_none());
        let replace = tick(
            &spec("*/5 * * * *", ConcurrencyPolicy::Replace),
            None,
            created,
            1,
            now,
        )
        .unwrap();
        assert!(replace.replace_active && replace.create.is_some());
        let allow = tick(
            &spec("*/5 * * * *", ConcurrencyPolicy::Allow),
            None,
            created,
            1,
            now,
        )
        .unwrap();
        assert!(!allow.replace_active && allow.create.is_some());
    }

    #[test]
    fn suspend_deadline_and_outage() {
        let created = t("2026-12-02T08:00:00Z");
        let mut s = spec("0 * * * *", ConcurrencyPolicy::Forbid);
        s.suspend = true;
        assert_eq!(
            tick(&s, None, created, 0, t("2026-12-02T10:00:30Z"))
                .unwrap()
                .create,
            None
        );
        s.suspend = false;
        s.starting_deadline_seconds = Some(60);
        let late = tick(&s, None, created, 0, t("2026-12-02T10:05:00Z")).unwrap();
        assert_eq!(late.missed, Some(t("2026-12-02T10:00:00Z")));
        assert_eq!(late.create, None);
        s.starting_deadline_seconds = None;
        let outage = tick(
            &s,
            Some(t("2026-12-02T07:00:00Z")),
            created,
            0,
            t("2026-12-02T10:00:30Z"),
        )
        .unwrap();
        assert_eq!(outage.create, Some(t("2026-12-02T10:00:00Z")));
        assert_eq!(outage.passed_over, 2);
    }

    #[test]
    fn run_names_derive_from_the_slot_and_fit_a_name() {
        assert_eq!(
            run_name("weather", t("2026-12-02T10:00:00Z")),
            "weather-29936760"
        );
        let long = "a".repeat(80);
        assert!(run_name(&long, t("2026-12-02T10:00:00Z")).len() <= 63);
    }

    #[test]
    fn history_keeps_the_newest_of_each_kind() {
        let run = |name: &str, succeeded, minute: i64| Finished {
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
        let h = health(&["Passed", "Failed", "Passed", "Passed"]).unwrap();
        assert_eq!((h.runs, h.pass_rate), (4, 0.75));
        assert_eq!(h.flip_rate, 2.0 / 3.0);
        assert_eq!(health(&[]), None);
    }
}
