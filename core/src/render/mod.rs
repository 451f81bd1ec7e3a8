//! A run's report for people and tools: a terminal table, JSON, Markdown,
//! JUnit XML and one self-contained HTML page. Each renderer reads only the
//! [`Report`]; a new one is a module here beside these.

mod html;
mod junit;
mod markdown;
mod table;

pub use html::html;
pub use junit::junit;
pub use markdown::markdown;
pub use table::table;

use crate::suite::report::{Report, SessionReport};

/// One line of a table: a case, a session and an evaluator's result.
pub(crate) struct Row {
    pub case: String,
    pub session: String,
    pub evaluator: String,
    pub key: String,
    pub score: String,
    pub result: &'static str,
    /// Why, for failures.
    pub detail: Option<String>,
}

pub(crate) fn rows(report: &Report) -> Vec<Row> {
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

pub(crate) fn headline(report: &Report) -> String {
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

/// Each session's problems of one kind, `session: location: message`, once.
pub(crate) fn input_lines(
    report: &Report,
    of: impl Fn(&SessionReport) -> &Vec<crate::ingest::Issue>,
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
