//! Reports as a terminal table, JSON, JUnit XML and Markdown.

use super::report::{CaseReport, Outcome, Report};
use comfy_table::{Table, presets::NOTHING};
use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

/// One line of a table: a case, a session and an evaluator's result.
struct Row {
    case: String,
    session: String,
    evaluator: String,
    key: String,
    score: String,
    result: &'static str,
    /// Why, for failures.
    detail: Option<String>,
}

fn rows(report: &Report) -> Vec<Row> {
    let mut rows = Vec::new();
    for case in &report.cases {
        if case.sessions.is_empty() {
            rows.push(Row {
                case: case.name.clone(),
                session: "-".into(),
                evaluator: "-".into(),
                key: "-".into(),
                score: "-".into(),
                result: if case.passed {
                    "NO SESSIONS (allowed)"
                } else {
                    "NO SESSIONS"
                },
                detail: (!case.notes.is_empty()).then(|| case.notes.join("; ")),
            });
        }
        for session in &case.sessions {
            if let Some(error) = &session.error {
                rows.push(Row {
                    case: case.name.clone(),
                    session: session.session_id.clone(),
                    evaluator: "-".into(),
                    key: "-".into(),
                    score: "-".into(),
                    result: if session.unreadable { "ERROR" } else { "FAIL" },
                    detail: Some(error.clone()),
                });
            }
            for e in &session.evaluations {
                rows.push(Row {
                    case: case.name.clone(),
                    session: session.session_id.clone(),
                    evaluator: e.name.clone(),
                    key: e.key.clone().unwrap_or_else(|| "-".into()),
                    score: e.score.map_or("-".into(), |s| s.to_string()),
                    result: match (&e.error, e.passed) {
                        (Some(_), _) => "ERROR",
                        (None, true) => "PASS",
                        (None, false) => "FAIL",
                    },
                    detail: e.error.clone().or_else(|| e.comment.clone()),
                });
            }
        }
    }
    rows
}

fn headline(report: &Report) -> String {
    let s = &report.summary;
    let mut line = format!("{}/{} cases passed", s.passed, s.cases);
    if s.errors > 0 {
        line.push_str(&format!(", {} could not be evaluated", s.errors));
    }
    if let Some(judge) = &report.judge {
        line.push_str(&format!(
            "; judge: {} calls, {} prompt and {} completion tokens, {:.1}s",
            judge.calls, judge.prompt_tokens, judge.completion_tokens, judge.seconds
        ));
    }
    line
}

pub fn table(report: &Report) -> String {
    let rows = rows(report);
    let mut table = Table::new();
    table.load_preset(NOTHING).set_header([
        "CASE",
        "SESSION",
        "EVALUATOR",
        "KEY",
        "SCORE",
        "RESULT",
    ]);
    for row in &rows {
        table.add_row([
            &row.case,
            &row.session,
            &row.evaluator,
            &row.key,
            &row.score,
            row.result,
        ]);
    }
    for column in table.column_iter_mut() {
        column.set_padding((0, 3));
    }
    let mut out: String = table
        .lines()
        .map(|l| format!("{}\n", l.trim_end()))
        .collect();
    let why: Vec<String> = rows
        .iter()
        .filter(|r| r.result != "PASS")
        .filter_map(|r| {
            r.detail
                .as_ref()
                .map(|d| format!("  {} / {} / {}: {d}\n", r.case, r.session, r.evaluator))
        })
        .collect();
    if !why.is_empty() {
        out.push_str("\nwhy:\n");
        out.extend(why);
    }
    for (heading, lines) in [
        ("could not be read", input_lines(report, |s| &s.issues)),
        (
            "read with a loss, or odd",
            input_lines(report, |s| &s.notes),
        ),
    ] {
        if !lines.is_empty() {
            out.push_str(&format!("\n{heading}:\n"));
            for line in lines {
                out.push_str(&format!("  {line}\n"));
            }
        }
    }
    let omitted: usize = report.cases.iter().map(|c| c.sessions_omitted).sum();
    if omitted > 0 {
        out.push_str(&format!(
            "\n{omitted} passing session(s) not listed (each case lists at most {} sessions, failing first)\n",
            super::report::SESSION_DETAIL
        ));
    }
    out.push('\n');
    out.push_str(&headline(report));
    out.push('\n');
    out
}

/// Each session's problems of one kind, `session: location: message`, once.
fn input_lines(
    report: &Report,
    of: impl Fn(&super::report::SessionReport) -> &Vec<crate::core::ingest::Issue>,
) -> Vec<String> {
    report
        .cases
        .iter()
        .flat_map(|c| &c.sessions)
        .flat_map(|s| of(s).iter().map(move |i| format!("{}: {i}", s.session_id)))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

pub fn json(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
    text.push('\n');
    text
}

pub fn markdown(report: &Report) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let mark = if report.passed { "✅" } else { "❌" };
    let mut out = format!(
        "### {mark} {}: {}\n\n",
        cell(&report.suite),
        headline(report)
    );
    out.push_str(
        "| Case | Session | Evaluator | Key | Score | Result |\n|---|---|---|---|---|---|\n",
    );
    let rows = rows(report);
    for row in &rows {
        out.push_str(&format!(
            "| {} | {} | {} | `{}` | {} | {} |\n",
            cell(&row.case),
            cell(&row.session),
            cell(&row.evaluator),
            cell(&row.key),
            cell(&row.score),
            row.result
        ));
    }
    let why: Vec<String> = rows
        .iter()
        .filter(|r| r.result != "PASS")
        .filter_map(|r| {
            r.detail.as_ref().map(|d| {
                format!(
                    "- **{}** / {} / {}: {}\n",
                    cell(&r.case),
                    cell(&r.session),
                    cell(&r.evaluator),
                    cell(d)
                )
            })
        })
        .collect();
    if !why.is_empty() {
        out.push_str("\n<details><summary>Why</summary>\n\n");
        out.extend(why);
        out.push_str("\n</details>\n");
    }
    let unreadable = input_lines(report, |s| &s.issues);
    if !unreadable.is_empty() {
        out.push_str("\n<details><summary>Could not be read</summary>\n\n");
        for line in unreadable {
            out.push_str(&format!("- {}\n", cell(&line)));
        }
        out.push_str("\n</details>\n");
    }
    out
}

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
