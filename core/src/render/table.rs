//! The terminal table `run` prints by default.

use super::terminal::cell;
use super::{
    comparison_lines, efficiency_lines, gate_lines, headline, input_lines,
    per_case_and_session_lines, rows,
};
use crate::suite::report::Report;
use crate::suite::scoring::SESSION_DETAIL;
use comfy_table::{Table, presets::NOTHING};

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
        table.add_row(
            [
                row.case.as_str(),
                &row.session,
                &row.evaluator,
                &row.key,
                &row.score,
                row.result,
            ]
            .map(|text| cell(text).into_owned()),
        );
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
            SESSION_DETAIL
        ));
    }
    out.push('\n');
    if let Some(source) = &report.source {
        out.push_str(&format!("read from {source}\n"));
    }
    if let Some(protocol) = &report.probed_with {
        out.push_str(&format!("probes spoke {protocol}\n"));
    }
    let per = per_case_and_session_lines(report);
    if !per.is_empty() {
        out.push_str("cost, latency and tokens:\n");
        for line in per {
            out.push_str(&format!("  {line}\n"));
        }
    }
    for line in efficiency_lines(&report.efficiency) {
        out.push_str(&format!("{line}\n"));
    }
    if let Some(comparison) = &report.baseline {
        for line in comparison_lines(comparison) {
            out.push_str(&format!("baseline: {line}\n"));
        }
    }
    for line in gate_lines(&report.gate) {
        out.push_str(&format!("gate: {line}\n"));
    }
    out.push_str(&headline(report));
    out.push('\n');
    out
}
