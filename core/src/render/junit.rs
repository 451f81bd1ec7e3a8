//! JUnit XML, which CI systems show as test results.

use crate::efficiency::EfficiencyStats;
use crate::suite::report::{CaseReport, Outcome, Report};
use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

/// One JUnit document for all suites: a test suite per case, a test per
/// session and evaluator, the case's cost, latency and tokens as the
/// suite's properties; and, where a suite has a gate beyond its cases, a
/// test suite of it.
pub fn junit(reports: &[Report]) -> String {
    let mut junit = quick_junit::Report::new("kagent-evals");
    for report in reports {
        for case in &report.cases {
            let mut suite = case_suite(&report.suite, case);
            suite.add_properties(properties(&case.efficiency));
            junit.add_test_suite(suite);
        }
        if let Some(gate) = gate_suite(report) {
            junit.add_test_suite(gate);
        }
    }
    junit.to_string().unwrap_or_default()
}

/// `cost.mean`, `latencySeconds.p95`, `tokens.unmeasured` and the like.
fn properties(stats: &EfficiencyStats) -> Vec<Property> {
    let mut properties = Vec::new();
    for (name, stat) in [
        ("cost", &stats.cost),
        ("latencySeconds", &stats.latency_seconds),
        ("tokens", &stats.total_tokens),
        ("modelCalls", &stats.model_calls),
        ("toolCalls", &stats.tool_calls),
        ("probeLatencySeconds", &stats.probe_latency_seconds),
    ] {
        for (which, value) in [("mean", stat.mean), ("p50", stat.p50), ("p95", stat.p95)] {
            if let Some(value) = value {
                properties.push(Property::new(format!("{name}.{which}"), value.to_string()));
            }
        }
        if stat.unmeasured > 0 {
            properties.push(Property::new(
                format!("{name}.unmeasured"),
                stat.unmeasured.to_string(),
            ));
        }
    }
    properties
}

/// The run's gate as tests: one per breach or gate that could not be
/// evaluated, with the run's own cost, latency and tokens as properties.
fn gate_suite(report: &Report) -> Option<TestSuite> {
    let gate = &report.gate;
    if report.baseline.is_none() && gate.errors.is_empty() {
        return None;
    }
    let mut suite = TestSuite::new(format!("{}: gate", report.suite));
    suite.add_properties(properties(&report.efficiency));
    for breach in &gate.breaches {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status.set_message(breach.as_str());
        suite.add_test_case(TestCase::new("baseline", status));
    }
    for error in &gate.errors {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status.set_message(error.as_str());
        suite.add_test_case(TestCase::new("baseline", status));
    }
    if gate.breaches.is_empty() && gate.errors.is_empty() {
        suite.add_test_case(TestCase::new("baseline", TestCaseStatus::success()));
    }
    Some(suite)
}

fn case_suite(suite_name: &str, case: &CaseReport) -> TestSuite {
    let mut suite = TestSuite::new(format!("{suite_name}: {}", case.name));
    let failure = |message: Option<&str>, kind: NonSuccessKind| {
        let mut status = TestCaseStatus::non_success(kind);
        if let Some(message) = message {
            status.set_message(message);
        }
        status
    };
    if case.outcome == Outcome::NoSessions {
        let status = if case.passed {
            TestCaseStatus::skipped()
        } else {
            failure(
                Some(&non_empty_or(
                    &case.notes.join("; "),
                    "no session matched this case",
                )),
                NonSuccessKind::Failure,
            )
        };
        let mut test = TestCase::new("(no sessions)", status);
        test.set_classname(case.name.clone());
        suite.add_test_case(test);
    }
    if case.outcome == Outcome::Error && case.sessions.is_empty() {
        // A case that could not be run: an error CI shows, not an empty
        // suite that reads as nothing wrong.
        let message = non_empty_or(&case.notes.join("; "), "the case could not be run");
        let mut test = TestCase::new("(not run)", failure(Some(&message), NonSuccessKind::Error));
        test.set_classname(case.name.clone());
        suite.add_test_case(test);
    }
    for session in &case.sessions {
        if let Some(error) = &session.error {
            // A session that could not be read is an error of the run, and
            // says which lines or events.
            let (kind, message) = if session.unreadable {
                let lines: Vec<String> = session.issues.iter().map(ToString::to_string).collect();
                let message = if lines.is_empty() {
                    error.clone()
                } else {
                    format!("{error}: {}", lines.join("; "))
                };
                (NonSuccessKind::Error, message)
            } else {
                (NonSuccessKind::Failure, error.clone())
            };
            let mut test = TestCase::new(session.session_id.clone(), failure(Some(&message), kind));
            test.set_classname(case.name.clone());
            suite.add_test_case(test);
        }
        if let Some(failed) = session.failing_task() {
            let status = failure(Some(&failed.error), NonSuccessKind::Failure);
            let mut test = TestCase::new(format!("{} / (last turn)", session.session_id), status);
            test.set_classname(case.name.clone());
            suite.add_test_case(test);
        }
        for e in &session.evaluations {
            let status = match (&e.error, e.passed) {
                (Some(error), _) => failure(Some(error), NonSuccessKind::Error),
                (None, true) => TestCaseStatus::success(),
                (None, false) => failure(e.comment.as_deref(), NonSuccessKind::Failure),
            };
            let mut test = TestCase::new(format!("{} / {}", session.session_id, e.name), status);
            test.set_classname(case.name.clone());
            suite.add_test_case(test);
        }
    }
    suite
}

fn non_empty_or(text: &str, fallback: &str) -> String {
    if text.is_empty() {
        fallback.into()
    } else {
        text.into()
    }
}
