//! Whether a run passes as a whole: its blocking cases' failures within the
//! allowed rate, and no rise against a baseline run beyond the suite's
//! thresholds. Pure: the baseline is handed in, from a report file on the
//! command line or from an EvalRun's status in the cluster.
//!
//! Fail closed: a gate on a mean that either run did not measure for every
//! session is not evaluated, and the run is an error unless the suite says
//! `unmeasured: skip` (then the report counts the gate as skipped).

use super::compile::RunGate;
use super::report::{CaseReport, Outcome, Report};
use super::spec::{GateMode, Unmeasured};
use crate::efficiency::{EfficiencyStats, Stat};
use serde::{Deserialize, Serialize};

/// How the run fared against its gates.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GateReport {
    pub mode: GateMode,
    pub max_fail_rate: f64,
    /// Failed blocking cases over decided blocking cases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocking_failures: Vec<String>,
    /// Failed cases that do not fail the run (`blocking: false`, or the
    /// suite's `gate: signal`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub non_blocking_failures: Vec<String>,
    /// Gates against the baseline that were breached, with the numbers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub breaches: Vec<String>,
    /// Gates that could not be evaluated, and why: the run is an error.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Gates left out under `unmeasured: skip`, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

impl GateReport {
    /// Whether the run fails: a blocking suite whose failures pass the
    /// allowed rate, or which breached a gate against its baseline.
    pub fn blocked(&self) -> bool {
        self.mode == GateMode::Blocking
            && (self.fail_rate.is_some_and(|r| r > self.max_fail_rate) || !self.breaches.is_empty())
    }
}

/// The gate over the cases' verdicts.
pub fn judge(cases: &[CaseReport], gate: &RunGate) -> GateReport {
    let mut report = GateReport {
        mode: gate.mode,
        max_fail_rate: gate.max_fail_rate,
        ..GateReport::default()
    };
    let mut decided = 0usize;
    for case in cases.iter().filter(|c| c.outcome != Outcome::Error) {
        let blocking = case.blocking && gate.mode == GateMode::Blocking;
        decided += usize::from(blocking);
        match (case.passed, blocking) {
            (true, _) => {}
            (false, true) => report.blocking_failures.push(case.name.clone()),
            (false, false) => report.non_blocking_failures.push(case.name.clone()),
        }
    }
    report.fail_rate =
        (decided > 0).then(|| report.blocking_failures.len() as f64 / decided as f64);
    report
}

/// What a run is compared with: its suite, and per case whether it passed
/// and its means.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Baseline {
    /// `report.json`, or `EvalRun weather-41`.
    pub from: String,
    pub suite: String,
    pub cases: Vec<BaselineCase>,
    /// Over the run's distinct sessions.
    pub means: Means,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct BaselineCase {
    pub name: String,
    /// `None`: the case could not be done.
    pub passed: Option<bool>,
    pub means: Means,
}

/// The statistics the relative gates read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Means {
    pub cost: Stat,
    pub latency_seconds: Stat,
    pub total_tokens: Stat,
}

impl Means {
    pub fn of(stats: &EfficiencyStats) -> Means {
        Means {
            cost: stats.cost.clone(),
            latency_seconds: stats.latency_seconds.clone(),
            total_tokens: stats.total_tokens.clone(),
        }
    }
}

impl Baseline {
    /// A baseline read from an earlier report of the suite.
    pub fn of_report(report: &Report, from: impl Into<String>) -> Baseline {
        Baseline {
            from: from.into(),
            suite: report.suite.clone(),
            means: Means::of(&report.efficiency),
            cases: report
                .cases
                .iter()
                .map(|c| BaselineCase {
                    name: c.name.clone(),
                    passed: (c.outcome != Outcome::Error).then_some(c.passed),
                    means: Means::of(&c.efficiency),
                })
                .collect(),
        }
    }
}

/// The run beside its baseline.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    pub baseline: String,
    /// Cases in both runs, which the comparison is over.
    pub cases: usize,
    /// Cases in one run only, said rather than compared in silence.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub rows: Vec<ComparisonRow>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComparisonRow {
    /// `passRate`, `cost`, `latencySeconds` or `tokens`.
    pub measure: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current: Option<f64>,
    /// The rise as a fraction of the baseline (means), or the fall in
    /// points (pass rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<f64>,
    /// The gate's threshold, when this row is gated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<f64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub breached: bool,
    /// Why the row could not be compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unmeasured: Option<String>,
}

/// A baseline that cannot be compared with at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BaselineError(pub String);

/// Compare `report` with `baseline` under the suite's gates, and settle
/// the report's verdict: a breach fails the run, a gate that could not be
/// evaluated makes it an error (or is skipped, and counted, when the suite
/// says `unmeasured: skip`).
pub fn apply_baseline(
    report: &mut Report,
    baseline: &Baseline,
    gate: &RunGate,
    unmeasured: Unmeasured,
) -> Result<(), BaselineError> {
    if baseline.suite != report.suite {
        return Err(BaselineError(format!(
            "the baseline {} is a run of suite {}, not {}",
            baseline.from, baseline.suite, report.suite
        )));
    }
    let current: Vec<&CaseReport> = report.cases.iter().collect();
    let in_both: Vec<(&CaseReport, &BaselineCase)> = current
        .iter()
        .filter_map(|c| Some((*c, baseline.cases.iter().find(|b| b.name == c.name)?)))
        .collect();
    if in_both.is_empty() {
        return Err(BaselineError(format!(
            "the baseline {} has no case in common with this run",
            baseline.from
        )));
    }
    let mut notes = Vec::new();
    let only_now: Vec<&str> = current
        .iter()
        .filter(|c| !baseline.cases.iter().any(|b| b.name == c.name))
        .map(|c| c.name.as_str())
        .collect();
    let only_then: Vec<&str> = baseline
        .cases
        .iter()
        .filter(|b| !current.iter().any(|c| c.name == b.name))
        .map(|b| b.name.as_str())
        .collect();
    if !only_now.is_empty() {
        notes.push(format!(
            "not in the baseline, left out: {}",
            only_now.join(", ")
        ));
    }
    if !only_then.is_empty() {
        notes.push(format!(
            "only in the baseline, left out: {}",
            only_then.join(", ")
        ));
    }
    let same_cases = only_now.is_empty() && only_then.is_empty();
    // The run's own statistics when both ran the same cases; over the
    // cases in common otherwise (a session two cases score counts twice).
    let (now, then) = match same_cases {
        true => (Means::of(&report.efficiency), baseline.means.clone()),
        false => (
            pooled(in_both.iter().map(|(c, _)| Means::of(&c.efficiency))),
            pooled(in_both.iter().map(|(_, b)| b.means.clone())),
        ),
    };
    let mut rows = vec![pass_rate_row(&in_both, gate.max_pass_rate_drop)];
    let limits = &gate.max_increase;
    for (measure, limit, current, before) in [
        ("cost", limits.cost, &now.cost, &then.cost),
        (
            "latencySeconds",
            limits.latency_seconds,
            &now.latency_seconds,
            &then.latency_seconds,
        ),
        (
            "tokens",
            limits.tokens,
            &now.total_tokens,
            &then.total_tokens,
        ),
    ] {
        rows.push(mean_row(measure, limit, current, before));
    }
    for row in &rows {
        let Some(limit) = row.limit else { continue };
        let gate_name = match row.measure.as_str() {
            "passRate" => "maxPassRateDrop".to_string(),
            other => format!("maxIncrease.{other}"),
        };
        match (&row.unmeasured, row.breached) {
            (Some(why), _) => {
                let said = format!("{gate_name} not evaluated: {why}");
                match unmeasured {
                    Unmeasured::Fail => report.gate.errors.push(said),
                    Unmeasured::Skip => report.gate.skipped.push(said),
                }
            }
            (None, true) => report.gate.breaches.push(breach(row, &gate_name, limit)),
            (None, false) => {}
        }
    }
    report.baseline = Some(Comparison {
        baseline: baseline.from.clone(),
        cases: in_both.len(),
        notes,
        rows,
    });
    report.settle();
    Ok(())
}

/// The relative gates when there is no baseline to compare with: not
/// evaluated (`Fail`: the run is an error) or skipped and counted.
pub fn without_baseline(report: &mut Report, gate: &RunGate, why: &str, policy: Unmeasured) {
    let m = &gate.max_increase;
    let gated = [
        ("maxIncrease.cost", m.cost.is_some()),
        ("maxIncrease.latencySeconds", m.latency_seconds.is_some()),
        ("maxIncrease.tokens", m.tokens.is_some()),
        ("maxPassRateDrop", gate.max_pass_rate_drop.is_some()),
    ];
    for (name, _) in gated.iter().filter(|(_, set)| *set) {
        let said = format!("{name} not evaluated: {why}");
        match policy {
            Unmeasured::Fail => report.gate.errors.push(said),
            Unmeasured::Skip => report.gate.skipped.push(said),
        }
    }
    report.settle();
}

/// The breach in words, with its numbers.
fn breach(row: &ComparisonRow, gate: &str, limit: f64) -> String {
    let (before, now) = (row.baseline.unwrap_or(0.0), row.current.unwrap_or(0.0));
    match row.measure.as_str() {
        "passRate" => format!(
            "the pass rate fell {:.1} points ({:.1}% -> {:.1}%), more than the {:.1} {gate} allows",
            (before - now) * 100.0,
            before * 100.0,
            now * 100.0,
            limit * 100.0
        ),
        measure => {
            let rise = match row.change {
                Some(change) => format!("{:.1}%", change * 100.0),
                None => "from nothing".to_string(),
            };
            format!(
                "mean {} rose {rise} ({} -> {}), more than the {:.1}% {gate} allows",
                words(measure),
                shown(measure, before),
                shown(measure, now),
                limit * 100.0
            )
        }
    }
}

/// A measure's name as a sentence says it.
pub fn words(measure: &str) -> &'static str {
    match measure {
        "passRate" => "pass rate",
        "cost" => "cost per session",
        "latencySeconds" => "latency per session",
        _ => "tokens per session",
    }
}

/// A value as the report shows it.
pub fn shown(measure: &str, value: f64) -> String {
    match measure {
        "passRate" => format!("{:.1}%", value * 100.0),
        "cost" => format!("{value:.4}"),
        "latencySeconds" => format!("{value:.2}s"),
        _ => format!("{value:.0}"),
    }
}

fn pass_rate_row(in_both: &[(&CaseReport, &BaselineCase)], limit: Option<f64>) -> ComparisonRow {
    let rate = |decided: Vec<bool>| {
        (!decided.is_empty())
            .then(|| decided.iter().filter(|p| **p).count() as f64 / decided.len() as f64)
    };
    let now = rate(
        in_both
            .iter()
            .filter(|(c, _)| c.outcome != Outcome::Error)
            .map(|(c, _)| c.passed)
            .collect(),
    );
    let then = rate(in_both.iter().filter_map(|(_, b)| b.passed).collect());
    let mut row = ComparisonRow {
        measure: "passRate".into(),
        baseline: then,
        current: now,
        limit,
        ..ComparisonRow::default()
    };
    match (then, now) {
        (Some(then), Some(now)) => {
            row.change = Some(then - now);
            row.breached = limit.is_some_and(|l| then - now > l + 1e-12);
        }
        _ => row.unmeasured = Some("no case in common was decided in both runs".into()),
    }
    row
}

fn mean_row(measure: &str, limit: Option<f64>, now: &Stat, then: &Stat) -> ComparisonRow {
    let mut row = ComparisonRow {
        measure: measure.into(),
        baseline: then.mean,
        current: now.mean,
        limit,
        ..ComparisonRow::default()
    };
    let unmeasured = |stat: &Stat, run: &str| -> Option<String> {
        match (stat.measured, stat.unmeasured) {
            (0, 0) => Some(format!("{run} scored no session")),
            (0, _) => Some(format!("{run} measured it on no session")),
            (n, missing) if missing > 0 => Some(format!(
                "{run} measured it on {n} of {} sessions",
                n + missing
            )),
            _ => None,
        }
    };
    row.unmeasured = unmeasured(now, "this run").or_else(|| unmeasured(then, "the baseline"));
    if row.unmeasured.is_some() {
        return row;
    }
    let (then, now) = (then.mean.unwrap_or(0.0), now.mean.unwrap_or(0.0));
    row.change = (then != 0.0).then(|| (now - then) / then);
    row.breached = limit.is_some_and(|l| match row.change {
        Some(change) => change > l + 1e-12,
        None => now > 0.0,
    });
    row
}

/// Statistics of several cases as one: the weighted mean, the counts
/// added (percentiles are not kept).
fn pooled(means: impl Iterator<Item = Means>) -> Means {
    let mut all = Vec::new();
    for m in means {
        all.push(m);
    }
    let pool = |get: fn(&Means) -> &Stat| {
        let (mut sum, mut measured, mut unmeasured) = (0.0, 0, 0);
        for m in &all {
            let stat = get(m);
            sum += stat.mean.unwrap_or(0.0) * stat.measured as f64;
            measured += stat.measured;
            unmeasured += stat.unmeasured;
        }
        Stat {
            mean: (measured > 0).then(|| sum / measured as f64),
            p50: None,
            p95: None,
            measured,
            unmeasured,
        }
    };
    Means {
        cost: pool(|m| &m.cost),
        latency_seconds: pool(|m| &m.latency_seconds),
        total_tokens: pool(|m| &m.total_tokens),
    }
}

#[cfg(test)]
mod tests;
