//! Markdown, for a pull-request comment or a job summary.

use super::{
    comparison_lines, efficiency_lines, gate_lines, headline, input_lines,
    per_case_and_session_lines, rows, safety_failures,
};
use crate::suite::gate::shown;
use crate::suite::report::Report;

/// Opens with what a reviewer reads first (the pass rate, the mean cost
/// per run beside the baseline's, the mean latency, the safety failures by
/// name), then the suite, its gate and every result.
pub fn markdown(report: &Report) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let s = &report.summary;
    let rate = match s.cases {
        0 => "-".to_string(),
        cases => format!("{:.1}%", s.passed as f64 * 100.0 / cases as f64),
    };
    let row = |measure: &str| {
        report
            .baseline
            .as_ref()
            .and_then(|c| c.rows.iter().find(|r| r.measure == measure))
    };
    let against = |measure: &str| -> String {
        match row(measure) {
            Some(r) => {
                let baseline = r.baseline.map_or("-".into(), |v| shown(measure, v));
                let change = r
                    .change
                    .map(|c| format!(", {:+.1}%", c * 100.0))
                    .unwrap_or_default();
                let breached = if r.breached { ", over the limit" } else { "" };
                format!(" (baseline {baseline}{change}{breached})")
            }
            None => String::new(),
        }
    };
    let mean = |stat: &crate::efficiency::Stat, measure: &str| match stat.mean {
        Some(v) if stat.unmeasured == 0 => shown(measure, v),
        Some(v) => format!(
            "{} ({} session(s) unmeasured)",
            shown(measure, v),
            stat.unmeasured
        ),
        None => "unmeasured".to_string(),
    };
    let safety = safety_failures(report);
    let mut out = format!(
        "**Pass rate:** {rate} ({} of {} cases)  \n**Mean cost per run:** {}{}  \n**Mean latency:** {}{}  \n**Safety failures:** {}\n\n",
        s.passed,
        s.cases,
        mean(&report.efficiency.cost, "cost"),
        against("cost"),
        mean(&report.efficiency.latency_seconds, "latencySeconds"),
        against("latencySeconds"),
        if safety.is_empty() {
            "none".to_string()
        } else {
            safety
                .iter()
                .map(|c| cell(c))
                .collect::<Vec<_>>()
                .join(", ")
        }
    );
    let mark = if report.passed { "✅" } else { "❌" };
    out.push_str(&format!(
        "### {mark} {}: {}\n\n",
        cell(&report.suite),
        headline(report)
    ));
    for line in gate_lines(&report.gate) {
        out.push_str(&format!("- {}\n", cell(&line)));
    }
    if let Some(comparison) = &report.baseline {
        out.push_str("\n<details><summary>Against the baseline</summary>\n\n");
        for line in comparison_lines(comparison) {
            out.push_str(&format!("- {}\n", cell(&line)));
        }
        out.push_str("\n</details>\n\n");
    }
    let efficiency = efficiency_lines(&report.efficiency);
    if !efficiency.is_empty() {
        out.push_str("<details><summary>Cost, latency and tokens</summary>\n\n");
        for line in efficiency.iter().chain(&per_case_and_session_lines(report)) {
            out.push_str(&format!("- {}\n", cell(line)));
        }
        out.push_str("\n</details>\n\n");
    }
    if let Some(source) = &report.source {
        out.push_str(&format!("Read from {}.\n\n", cell(source)));
    }
    if let Some(protocol) = &report.probed_with {
        out.push_str(&format!("Probes spoke {}.\n\n", cell(protocol)));
    }
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
