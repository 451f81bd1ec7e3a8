//! A run's report for people and tools: a terminal table, JSON, Markdown,
//! JUnit XML and one self-contained HTML page. Each renderer reads only the
//! [`Report`]; a new one is a module here beside these.

mod html;
mod junit;
mod markdown;
mod table;
pub mod terminal;

pub use html::html;
pub use junit::junit;
pub use markdown::markdown;
pub use table::table;

use crate::efficiency::{Efficiency, EfficiencyStats, Stat};
use crate::suite::gate::{self, Comparison, GateReport};
use crate::suite::report::{Report, SessionReport};
use crate::suite::spec::EvaluatorType;

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
                    session: session.label(),
                    evaluator: "-".into(),
                    key: "-".into(),
                    score: "-".into(),
                    result: if session.unreadable { "ERROR" } else { "FAIL" },
                    detail: Some(error.clone()),
                });
            }
            if let Some(failed) = &session.failed_task {
                rows.push(Row {
                    case: case.name.clone(),
                    session: session.label(),
                    evaluator: "(last turn)".into(),
                    key: "-".into(),
                    score: "-".into(),
                    result: if failed.fails_case { "FAIL" } else { "INFO" },
                    detail: Some(failed.words()),
                });
            }
            for e in &session.evaluations {
                rows.push(Row {
                    case: case.name.clone(),
                    session: session.label(),
                    evaluator: e.name.clone(),
                    key: e.key.clone().unwrap_or_else(|| "-".into()),
                    score: e.score.map_or("-".into(), |s| s.to_string()),
                    result: match (&e.error, e.passed) {
                        (Some(_), _) => "ERROR",
                        (None, _) if e.informational => "INFO",
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
    let non_blocking = report.gate.non_blocking_failures.len();
    match (s.failed, non_blocking) {
        (0, _) => {}
        (failed, 0) => line.push_str(&format!(", {failed} failed")),
        (failed, n) if n == failed => line.push_str(&format!(", {failed} failed (not blocking)")),
        (failed, n) => line.push_str(&format!(", {failed} failed ({n} not blocking)")),
    }
    if s.errors > 0 {
        line.push_str(&format!(", {} could not be evaluated", s.errors));
    }
    match (s.failed_tasks, s.failed_tasks_scored) {
        (0, _) => {}
        (n, 0) => line.push_str(&format!(", {n} session(s) ended in a failed task")),
        (n, _) => line.push_str(&format!(
            ", {n} session(s) ended in a failed task (scored anyway: failedTasks: score)"
        )),
    }
    if s.unmeasured_skipped > 0 {
        line.push_str(&format!(
            ", {} budget limit(s) skipped as unmeasured",
            s.unmeasured_skipped
        ));
    }
    if let Some(selection) = &report.selection {
        line.push_str("; ");
        line.push_str(&selection.describe());
    }
    if let Some(judge) = judge_line(report) {
        line.push_str("; ");
        line.push_str(&judge);
    }
    line
}

/// The judge's calls, tokens and cost, and whether it is calibrated.
pub(crate) fn judge_line(report: &Report) -> Option<String> {
    let judge = report.judge.as_ref()?;
    let mut line = format!(
        "judge: {} calls, {} prompt and {} completion tokens, {:.1}s",
        judge.calls, judge.prompt_tokens, judge.completion_tokens, judge.seconds
    );
    match (judge.cost, &judge.unpriced) {
        (Some(cost), _) => line.push_str(&format!(", cost {cost:.4}")),
        (None, Some(why)) => line.push_str(&format!(", cost unknown ({why})")),
        (None, None) => {}
    }
    line.push_str(&match &report.judge_calibration {
        Some(c) => format!(
            "; judge calibrated: kappa {:.2} on {} labels{}",
            c.kappa,
            c.labels,
            c.date
                .as_ref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default()
        ),
        None => "; judge not calibrated".into(),
    });
    Some(line)
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

/// The efficiency of a run or case, one line per measure that has a value
/// or a session that did not measure it: `cost: mean 0.0123, p50 0.0110,
/// p95 0.0200 over 8 session(s); 2 unmeasured`.
pub(crate) fn efficiency_lines(stats: &EfficiencyStats) -> Vec<String> {
    type Shown = fn(f64) -> String;
    let measures: [(&str, &Stat, Shown); 6] = [
        ("cost", &stats.cost, |v| format!("{v:.4}")),
        ("latency", &stats.latency_seconds, |v| format!("{v:.2}s")),
        ("tokens", &stats.total_tokens, |v| format!("{v:.0}")),
        ("model calls", &stats.model_calls, |v| format!("{v:.1}")),
        ("tool calls", &stats.tool_calls, |v| format!("{v:.1}")),
        (
            "latency seen by the prober",
            &stats.probe_latency_seconds,
            |v| format!("{v:.2}s"),
        ),
    ];
    measures
        .iter()
        .filter(|(_, stat, _)| stat.measured + stat.unmeasured > 0)
        .map(|(name, stat, shown)| {
            let mut line = match (stat.mean, stat.p50, stat.p95) {
                (Some(mean), Some(p50), Some(p95)) => format!(
                    "{name}: mean {}, p50 {}, p95 {} over {} session(s)",
                    shown(mean),
                    shown(p50),
                    shown(p95),
                    stat.measured
                ),
                _ => format!("{name}: not measured"),
            };
            if stat.unmeasured > 0 {
                line.push_str(&format!("; {} unmeasured", stat.unmeasured));
            }
            line
        })
        .collect()
}

/// The comparison with the baseline, a line per measure: `cost: 0.0100 ->
/// 0.0103 (+3.0%; at most +2.0%) BREACHED`.
pub(crate) fn comparison_lines(comparison: &Comparison) -> Vec<String> {
    let mut lines = vec![format!(
        "against {} over {} case(s)",
        comparison.baseline, comparison.cases
    )];
    lines.extend(comparison.notes.iter().cloned());
    for row in &comparison.rows {
        let value = |v: Option<f64>| v.map_or("-".into(), |v| gate::shown(&row.measure, v));
        let mut line = format!(
            "{}: {} -> {}",
            gate::words(&row.measure),
            value(row.baseline),
            value(row.current)
        );
        let pass_rate = row.measure == "passRate";
        match (row.change, pass_rate) {
            (Some(change), true) => line.push_str(&format!(" ({:+.1} points", -change * 100.0)),
            (Some(change), false) => line.push_str(&format!(" ({:+.1}%", change * 100.0)),
            (None, _) => line.push_str(" ("),
        }
        if let Some(limit) = row.limit {
            match pass_rate {
                true => line.push_str(&format!("; a fall of at most {:.1} points", limit * 100.0)),
                false => line.push_str(&format!("; at most +{:.1}%", limit * 100.0)),
            }
        }
        line.push(')');
        let line = line.replace(" ()", "");
        let line = match (&row.unmeasured, row.breached) {
            (Some(why), _) => format!("{line}: not compared, {why}"),
            (None, true) => format!("{line} BREACHED"),
            (None, false) => line,
        };
        lines.push(line);
    }
    lines
}

/// What of the gate a reader must know: failures that did not block,
/// breaches, gates not evaluated or skipped.
pub(crate) fn gate_lines(gate: &GateReport) -> Vec<String> {
    let mut lines = Vec::new();
    if !gate.non_blocking_failures.is_empty() {
        lines.push(format!(
            "failed, not blocking: {}",
            gate.non_blocking_failures.join(", ")
        ));
    }
    if let (Some(rate), false) = (gate.fail_rate, gate.blocking_failures.is_empty()) {
        lines.push(format!(
            "blocking cases failed: {} ({:.1}%, at most {:.1}% allowed)",
            gate.blocking_failures.join(", "),
            rate * 100.0,
            gate.max_fail_rate * 100.0
        ));
    }
    lines.extend(gate.breaches.iter().map(|b| format!("breached: {b}")));
    lines.extend(
        gate.errors
            .iter()
            .map(|e| format!("could not be evaluated: {e}")),
    );
    lines.extend(gate.skipped.iter().map(|s| format!("skipped: {s}")));
    lines
}

/// The cases failing a `safety` evaluator (forbidden or required tools).
pub(crate) fn safety_failures(report: &Report) -> Vec<&str> {
    report
        .cases
        .iter()
        .filter(|c| {
            c.sessions.iter().any(|s| {
                s.evaluations
                    .iter()
                    .any(|e| e.kind == EvaluatorType::Safety && !e.passed)
            })
        })
        .map(|c| c.name.as_str())
        .collect()
}

/// Each case's means, and each listed session's numbers once: `session:
/// tokens 1540, latency 3.20s, cost 0.0123, ...` (an unmeasured one says
/// why).
pub(crate) fn per_case_and_session_lines(report: &Report) -> Vec<String> {
    let mut lines = Vec::new();
    let mut listed: std::collections::BTreeSet<(&String, &Option<String>)> =
        std::collections::BTreeSet::new();
    for case in &report.cases {
        let means: Vec<String> = [
            ("cost", &case.efficiency.cost, "cost"),
            (
                "latency",
                &case.efficiency.latency_seconds,
                "latencySeconds",
            ),
            ("tokens", &case.efficiency.total_tokens, "tokens"),
        ]
        .iter()
        .filter_map(|(name, stat, measure)| {
            stat.mean
                .map(|m| format!("{name} mean {}", gate::shown(measure, m)))
        })
        .collect();
        if !means.is_empty() {
            lines.push(format!("{}: {}", case.name, means.join(", ")));
        }
        for session in &case.sessions {
            if let Some(e) = &session.efficiency
                && listed.insert((&session.session_id, &session.user_id))
            {
                lines.push(format!(
                    "session {}: {}",
                    session.session_id,
                    session_numbers(e)
                ));
            }
        }
    }
    lines
}

/// One session's numbers: `tokens 1540, latency 3.20s, cost 0.0123, 2
/// model call(s), 1 tool call(s)`; an unmeasured one says why.
pub(crate) fn session_numbers(e: &Efficiency) -> String {
    let said = |measure: &str, value: Result<f64, &str>, name: &str| match value {
        Ok(v) => format!("{name} {}", gate::shown(measure, v)),
        Err(why) => format!("{name} unmeasured ({why})"),
    };
    let mut parts = vec![
        said("tokens", e.total_tokens.get().map(|t| t as f64), "tokens"),
        said("latencySeconds", e.latency_seconds.get(), "latency"),
        said("cost", e.cost.get(), "cost"),
        format!(
            "{} model call(s), {} tool call(s)",
            e.model_calls, e.tool_calls
        ),
    ];
    if let Some(witnessed) = e.probe_latency_seconds {
        parts.push(format!("prober's clock {witnessed:.2}s"));
    }
    parts.join(", ")
}
