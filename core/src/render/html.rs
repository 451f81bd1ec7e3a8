//! A report as one self-contained HTML page: the summary, each case and
//! its sessions failing first, and for a failed trajectory evaluator the
//! session's tool calls beside the reference, the differing call and
//! argument paths marked. No script, font or stylesheet is fetched: the
//! page reads the same offline. Conversation content appears only where
//! the report holds it (`--include-trajectories`).

use super::{comparison_lines, efficiency_lines, gate_lines, session_numbers};
use crate::suite::report::{CaseReport, Evaluation, Reference, Report, SessionReport};
use crate::trajectory::Message;
use serde_json::Value;
use std::fmt::Write;

const STYLE: &str = "
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem;color:#1f2328;background:#fff}
h1{font-size:1.5rem;margin:0 0 .5rem}h2{font-size:1.15rem;margin:1.5rem 0 .4rem}h3{font-size:1rem;margin:1rem 0 .3rem}
.pass{color:#1a7f37}.fail{color:#cf222e}.error{color:#9a6700}
.badge{display:inline-block;padding:0 .45rem;border-radius:.6rem;font-size:.8rem;font-weight:600;border:1px solid currentColor}
table{border-collapse:collapse;margin:.3rem 0 .8rem;width:100%}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem}
pre{margin:0;white-space:pre-wrap;word-break:break-word}
section.case{border-top:2px solid #d0d7de;margin-top:1.2rem}
tr.differs td{background:#ffebe9}.path{background:#fff8c5;border-radius:.2rem;padding:0 .2rem}
.muted{color:#59636e}
";

/// Markup escaped, and what would steer a reader (C0 and C1 controls but
/// newline and tab, U+202E and the other bidirectional controls) shown as
/// its escape, as the terminal outputs show it: the page is read by people.
fn escape(text: &str) -> String {
    let text = super::terminal::terminal_safe(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

fn badge(passed: bool, error: bool) -> &'static str {
    match (passed, error) {
        (_, true) => "<span class=\"badge error\">ERROR</span>",
        (true, false) => "<span class=\"badge pass\">PASS</span>",
        (false, false) => "<span class=\"badge fail\">FAIL</span>",
    }
}

/// The page.
pub fn html(report: &Report) -> String {
    let s = &report.summary;
    let mut page = String::new();
    let _ = writeln!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>{}</title><style>{STYLE}</style></head><body>",
        escape(&format!("kagent-evals: {}", report.suite))
    );
    let _ = writeln!(
        page,
        "<h1>{} {}</h1><p>{}/{} cases passed, {} failed, {} could not be done; {} session(s) scored{}.</p>",
        escape(&report.suite),
        badge(report.passed, s.errors > 0 && s.failed == 0),
        s.passed,
        s.cases,
        s.failed,
        s.errors,
        s.sessions,
        if s.unreadable_sessions > 0 {
            format!(", {} not fully readable", s.unreadable_sessions)
        } else {
            String::new()
        }
    );
    if let Some(source) = &report.source {
        let _ = writeln!(page, "<p class=\"muted\">Read from {}.</p>", escape(source));
    }
    if let Some(protocol) = &report.probed_with {
        let _ = writeln!(
            page,
            "<p class=\"muted\">Probes spoke {}.</p>",
            escape(protocol)
        );
    }
    if let Some(judge) = super::judge_line(report) {
        let _ = writeln!(page, "<p class=\"muted\">{}.</p>", escape(&judge));
    }
    write_list(&mut page, "Gate", &gate_lines(&report.gate));
    if let Some(comparison) = &report.baseline {
        write_list(
            &mut page,
            "Against the baseline",
            &comparison_lines(comparison),
        );
    }
    write_list(
        &mut page,
        "Cost, latency and tokens",
        &efficiency_lines(&report.efficiency),
    );
    let mut cases: Vec<&CaseReport> = report.cases.iter().collect();
    cases.sort_by_key(|c| c.passed);
    for case in cases {
        write_case(&mut page, case);
    }
    page.push_str("</body></html>\n");
    page
}

fn write_case(page: &mut String, case: &CaseReport) {
    let _ = writeln!(
        page,
        "<section class=\"case\" id=\"case-{}\"><h2>{} {} <span class=\"muted\">{:?}{}</span></h2>",
        escape(&case.name),
        escape(&case.name),
        badge(
            case.passed,
            case.outcome == crate::suite::report::Outcome::Error
        ),
        case.outcome,
        case.pass_rate
            .map(|r| format!(
                ", pass rate {r:.2} of {} session(s), at least {:.2} needed",
                case.session_count, case.min_pass_rate
            ))
            .unwrap_or_default()
    );
    if let Some(probe) = &case.probe {
        let _ = writeln!(
            page,
            "<p>Probe: {} of {} run(s) passed; pass@k {}, pass^k {}.</p>",
            probe.passed, probe.runs, probe.pass_at_k, probe.pass_all_k
        );
    }
    for note in &case.notes {
        let _ = writeln!(page, "<p class=\"muted\">{}</p>", escape(note));
    }
    if !case.blocking {
        let _ = writeln!(
            page,
            "<p class=\"muted\">Not blocking: its failure does not fail the run.</p>"
        );
    }
    write_list(
        page,
        "Cost, latency and tokens",
        &efficiency_lines(&case.efficiency),
    );
    for session in &case.sessions {
        write_session(page, case, session);
    }
    if case.sessions_omitted > 0 {
        let _ = writeln!(
            page,
            "<p class=\"muted\">{} more session(s) left out of the report.</p>",
            case.sessions_omitted
        );
    }
    page.push_str("</section>\n");
}

fn write_session(page: &mut String, case: &CaseReport, session: &SessionReport) {
    let error = session.is_error();
    let _ = writeln!(
        page,
        "<h3>Session <code>{}</code>{} {}</h3>",
        escape(&session.label()),
        session
            .user_id
            .as_deref()
            .map(|u| format!(" <span class=\"muted\">user {}</span>", escape(u)))
            .unwrap_or_default(),
        badge(session.passed, error)
    );
    if let Some(why) = &session.error {
        let _ = writeln!(page, "<p class=\"fail\">{}</p>", escape(why));
    }
    if let Some(failed) = &session.failed_task {
        let class = if failed.fails_case { "fail" } else { "muted" };
        let _ = writeln!(page, "<p class=\"{class}\">{}</p>", escape(&failed.words()));
    }
    if let Some(e) = &session.efficiency {
        let _ = writeln!(
            page,
            "<p class=\"muted\">{}</p>",
            escape(&session_numbers(e))
        );
    }
    for issue in &session.issues {
        let _ = writeln!(
            page,
            "<p class=\"error\">{}</p>",
            escape(&issue.to_string())
        );
    }
    if !session.evaluations.is_empty() {
        page.push_str("<table><tr><th>Evaluator</th><th>Key</th><th>Score</th><th>Result</th><th>Why</th></tr>\n");
        for e in &session.evaluations {
            let _ = writeln!(
                page,
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&e.name),
                escape(e.key.as_deref().unwrap_or("-")),
                e.score.map_or("-".into(), |s| s.to_string()),
                badge(e.passed, e.error.is_some()),
                escape(e.error.as_deref().or(e.comment.as_deref()).unwrap_or(""))
            );
            // A panel's members, each under its evaluator.
            for member in &e.panel {
                let _ = writeln!(
                    page,
                    "<tr class=\"muted\"><td>&nbsp;&nbsp;{}</td><td></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    escape(&member.model),
                    member.score.map_or("-".into(), |s| s.to_string()),
                    member
                        .passed
                        .map_or(badge(false, true), |p| badge(p, false)),
                    escape(
                        member
                            .error
                            .as_deref()
                            .or(member.reasoning.as_deref())
                            .unwrap_or("")
                    )
                );
            }
        }
        page.push_str("</table>\n");
    }
    for e in session
        .evaluations
        .iter()
        .filter(|e| !e.passed && e.error.is_none())
    {
        let Some(reference) = case.references.iter().find(|r| r.evaluator == e.name) else {
            continue;
        };
        match session.trajectory.as_deref() {
            Some(trajectory) => write_comparison(page, e, reference, trajectory),
            None => {
                let _ = writeln!(
                    page,
                    "<p class=\"muted\">{}: the session's calls beside the reference are in the report only with --include-trajectories.</p>",
                    escape(&e.name)
                );
            }
        }
    }
}

/// A session's calls in order: name and arguments.
fn session_calls(messages: &[Message]) -> Vec<(String, Value)> {
    messages
        .iter()
        .flat_map(|m| m.tool_calls.iter().flatten())
        .map(|c| {
            let args = match &c.function.arguments {
                Value::String(text) => {
                    serde_json::from_str(text).unwrap_or(Value::String(text.clone()))
                }
                other => other.clone(),
            };
            (c.function.name.clone(), args)
        })
        .collect()
}

/// Argument paths where two values differ: a key missing on one side, or
/// a different value (`city`, `filter.labels[0]`).
fn differing_paths(actual: &Value, expected: &Value, at: &str, out: &mut Vec<String>) {
    let join = |key: &str| {
        if at.is_empty() {
            key.to_string()
        } else {
            format!("{at}.{key}")
        }
    };
    match (actual, expected) {
        (Value::Object(a), Value::Object(e)) => {
            let mut keys: Vec<&String> = a.keys().chain(e.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                match (a.get(key), e.get(key)) {
                    (Some(x), Some(y)) => differing_paths(x, y, &join(key), out),
                    _ => out.push(join(key)),
                }
            }
        }
        (Value::Array(a), Value::Array(e)) if a.len() == e.len() => {
            for (i, (x, y)) in a.iter().zip(e).enumerate() {
                differing_paths(x, y, &format!("{at}[{i}]"), out);
            }
        }
        (a, e) if crate::pyjson::eq(a, e) => {}
        _ => out.push(if at.is_empty() {
            "(arguments)".into()
        } else {
            at.to_string()
        }),
    }
}

fn write_comparison(
    page: &mut String,
    e: &Evaluation,
    reference: &Reference,
    trajectory: &[Message],
) {
    let _ = writeln!(
        page,
        "<table class=\"comparison\" data-evaluator=\"{}\"><tr><th>#</th><th>Session's call</th><th>Reference's call</th></tr>",
        escape(&e.name)
    );
    let actual = session_calls(trajectory);
    // A reference of names only (toolsUsed, ignoreArgs) compares no arguments.
    let names_only = reference.calls.iter().all(|c| c.args.is_null());
    let rows = actual.len().max(reference.calls.len());
    for i in 0..rows {
        let ours = actual.get(i);
        let theirs = reference.calls.get(i);
        let mut paths = Vec::new();
        let name_differs = ours.map(|c| &c.0) != theirs.map(|c| &c.name);
        if let (Some((_, args)), Some(expected)) = (ours, theirs)
            && !names_only
            && !expected.args.is_null()
        {
            differing_paths(args, &expected.args, "", &mut paths);
        }
        let differs = name_differs || !paths.is_empty();
        let cell = |call: Option<(&str, &Value)>| match call {
            None => "<td class=\"muted\">(none)</td>".to_string(),
            Some((name, args)) if args.is_null() => {
                format!("<td><code>{}</code></td>", escape(name))
            }
            Some((name, args)) => format!(
                "<td><code>{}</code><pre>{}</pre></td>",
                escape(name),
                escape(&serde_json::to_string_pretty(args).unwrap_or_default())
            ),
        };
        let marks: String = paths
            .iter()
            .map(|p| {
                format!(
                    " <span class=\"path\" data-path=\"{0}\">{0}</span>",
                    escape(p)
                )
            })
            .collect();
        let _ = writeln!(
            page,
            "<tr{}><td>{}{}</td>{}{}</tr>",
            if differs { " class=\"differs\"" } else { "" },
            i + 1,
            if differs {
                format!(
                    "<br><small>differs{}</small>",
                    if name_differs {
                        " (tool)"
                    } else {
                        marks.as_str()
                    }
                )
            } else {
                String::new()
            },
            cell(ours.map(|(n, a)| (n.as_str(), a))),
            cell(theirs.map(|c| (c.name.as_str(), &c.args)))
        );
    }
    page.push_str("</table>\n");
}

/// A titled list of lines, when there are any.
fn write_list(page: &mut String, title: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(page, "<h3>{}</h3><ul>", escape(title));
    for line in lines {
        let _ = writeln!(page, "<li>{}</li>", escape(line));
    }
    page.push_str("</ul>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_differing_argument_path_is_named() {
        let mut paths = Vec::new();
        differing_paths(
            &json!({"city": "Paris", "units": "C", "opts": {"days": [1, 2]}}),
            &json!({"city": "London", "units": "C", "opts": {"days": [1, 3]}}),
            "",
            &mut paths,
        );
        assert_eq!(paths, ["city", "opts.days[1]"]);
        assert_eq!(escape("<a href='x'>&"), "&lt;a href=&#39;x&#39;&gt;&amp;");
        assert_eq!(
            escape("sunny\u{202e}ynnus\u{1b}[2J\n\tok"),
            "sunny\\u{202e}ynnus\\u{1b}[2J\n\tok"
        );
    }
}
