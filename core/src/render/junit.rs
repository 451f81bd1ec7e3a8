//! JUnit XML, which CI systems show as test results.

use crate::suite::report::{CaseReport, Outcome, Report};
use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

/// One JUnit document for all suites: a test suite per case, a test per
/// session and evaluator.
pub fn junit(reports: &[Report]) -> String {
    let mut junit = quick_junit::Report::new("kagent-evals");
    for report in reports {
        for case in &report.cases {
            junit.add_test_suite(case_suite(&report.suite, case));
        }
    }
    junit.to_string().unwrap_or_default()
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
