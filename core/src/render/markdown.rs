//! Markdown, for a pull-request comment or a job summary.

use super::{headline, input_lines, rows};
use crate::suite::report::Report;

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
