use super::*;
use crate::efficiency::Stat;
use crate::suite::report::{CaseReport, FORMAT_VERSION, Summary};
use crate::suite::spec::MaxIncrease;

fn stat(mean: f64, measured: usize, unmeasured: usize) -> Stat {
    Stat {
        mean: Some(mean),
        p50: Some(mean),
        p95: Some(mean),
        measured,
        unmeasured,
    }
}

fn case(name: &str, passed: bool, blocking: bool, cost: f64) -> CaseReport {
    CaseReport {
        name: name.into(),
        passed,
        outcome: if passed {
            Outcome::Passed
        } else {
            Outcome::Failed
        },
        pass_rate: Some(if passed { 1.0 } else { 0.0 }),
        min_pass_rate: 1.0,
        session_count: 2,
        failed_sessions: usize::from(!passed) * 2,
        notes: vec![],
        sessions: vec![],
        sessions_omitted: 0,
        probe: None,
        pooled: vec![],
        references: vec![],
        efficiency: EfficiencyStats {
            cost: stat(cost, 2, 0),
            latency_seconds: stat(3.0, 2, 0),
            total_tokens: stat(1000.0, 2, 0),
            ..EfficiencyStats::default()
        },
        blocking,
        tags: vec![],
    }
}

fn report(cases: Vec<CaseReport>, gate: &RunGate) -> Report {
    let passed = cases.iter().filter(|c| c.passed).count();
    let mut report = Report {
        format_version: FORMAT_VERSION,
        suite: "weather".into(),
        passed: false,
        summary: Summary {
            cases: cases.len(),
            passed,
            failed: cases.len() - passed,
            sessions: cases.len() * 2,
            ..Summary::default()
        },
        efficiency: EfficiencyStats {
            cost: stat(
                cases
                    .iter()
                    .map(|c| c.efficiency.cost.mean.unwrap())
                    .sum::<f64>()
                    / cases.len() as f64,
                cases.len() * 2,
                0,
            ),
            latency_seconds: stat(3.0, cases.len() * 2, 0),
            total_tokens: stat(1000.0, cases.len() * 2, 0),
            ..EfficiencyStats::default()
        },
        gate: judge(&cases, gate),
        baseline: None,
        source: None,
        probed_with: None,
        judge: None,
        judge_calibration: None,
        selection: None,
        cases,
    };
    report.settle();
    report
}

#[test]
fn failures_block_beyond_the_allowed_rate_and_not_blocking_ones_never() {
    let strict = RunGate::default();
    let one_failed = report(
        vec![case("a", true, true, 0.01), case("b", false, true, 0.01)],
        &strict,
    );
    assert!(one_failed.gate.blocked());
    assert_eq!(one_failed.exit_code(), 1);
    assert_eq!(one_failed.gate.fail_rate, Some(0.5));

    let lenient = RunGate {
        max_fail_rate: 0.5,
        ..RunGate::default()
    };
    let within = report(
        vec![case("a", true, true, 0.01), case("b", false, true, 0.01)],
        &lenient,
    );
    assert!(!within.gate.blocked() && within.passed);
    assert_eq!(within.exit_code(), 0);

    let new_case = report(
        vec![case("a", true, true, 0.01), case("b", false, false, 0.01)],
        &strict,
    );
    assert!(new_case.passed, "{:?}", new_case.gate);
    assert_eq!(new_case.gate.non_blocking_failures, ["b"]);
    assert_eq!(new_case.exit_code(), 0);

    let signal = RunGate {
        mode: GateMode::Signal,
        ..RunGate::default()
    };
    let signalled = report(vec![case("a", false, true, 0.01)], &signal);
    assert!(signalled.passed);
    assert_eq!(signalled.gate.non_blocking_failures, ["a"]);
}

fn costs_gate(cost: f64) -> RunGate {
    RunGate {
        max_increase: MaxIncrease {
            cost: Some(cost),
            ..MaxIncrease::default()
        },
        ..RunGate::default()
    }
}

#[test]
fn a_rise_in_mean_cost_past_the_threshold_fails_the_run_with_its_numbers() {
    let gate = costs_gate(0.02);
    let before = report(vec![case("a", true, true, 0.0100)], &gate);
    let baseline = Baseline::of_report(&before, "before.json");

    let mut slight = report(vec![case("a", true, true, 0.0101)], &gate);
    apply_baseline(&mut slight, &baseline, &gate, Unmeasured::Fail).unwrap();
    assert!(slight.passed, "{:?}", slight.gate);
    let row = &slight.baseline.as_ref().unwrap().rows[1];
    assert_eq!((row.measure.as_str(), row.breached), ("cost", false));
    assert!((row.change.unwrap() - 0.01).abs() < 1e-9);

    let mut dearer = report(vec![case("a", true, true, 0.0103)], &gate);
    apply_baseline(&mut dearer, &baseline, &gate, Unmeasured::Fail).unwrap();
    assert!(!dearer.passed);
    assert_eq!(dearer.exit_code(), 1);
    assert_eq!(
        dearer.gate.breaches,
        [
            "mean cost per session rose 3.0% (0.0100 -> 0.0103), more than the 2.0% maxIncrease.cost allows"
        ]
    );
}

#[test]
fn another_suite_or_no_case_in_common_is_refused_and_other_cases_are_named() {
    let gate = costs_gate(0.02);
    let before = report(
        vec![case("a", true, true, 0.01), case("old", true, true, 0.01)],
        &gate,
    );
    let baseline = Baseline::of_report(&before, "before.json");
    let mut other = report(vec![case("a", true, true, 0.01)], &gate);
    other.suite = "other".into();
    let refused = apply_baseline(&mut other, &baseline, &gate, Unmeasured::Fail).unwrap_err();
    assert_eq!(
        refused.0,
        "the baseline before.json is a run of suite weather, not other"
    );

    let mut disjoint = report(vec![case("z", true, true, 0.01)], &gate);
    assert!(apply_baseline(&mut disjoint, &baseline, &gate, Unmeasured::Fail).is_err());

    let mut grown = report(
        vec![case("a", true, true, 0.01), case("new", true, true, 0.05)],
        &gate,
    );
    apply_baseline(&mut grown, &baseline, &gate, Unmeasured::Fail).unwrap();
    let comparison = grown.baseline.unwrap();
    assert_eq!(comparison.cases, 1);
    assert_eq!(
        comparison.notes,
        [
            "not in the baseline, left out: new",
            "only in the baseline, left out: old"
        ]
    );
    // Over case a alone: the new, dearer case does not count.
    assert!(!comparison.rows[1].breached);
}

#[test]
fn a_gate_on_a_mean_not_measured_on_every_session_is_not_evaluated_or_skipped_and_counted() {
    let gate = costs_gate(0.02);
    let before = report(vec![case("a", true, true, 0.01)], &gate);
    let baseline = Baseline::of_report(&before, "before.json");
    let mut partial = report(vec![case("a", true, true, 0.01)], &gate);
    partial.efficiency.cost = stat(0.01, 1, 1);
    let mut skipped = partial.clone();
    apply_baseline(&mut partial, &baseline, &gate, Unmeasured::Fail).unwrap();
    assert_eq!(
        partial.gate.errors,
        ["maxIncrease.cost not evaluated: this run measured it on 1 of 2 sessions"]
    );
    assert!(!partial.passed);
    assert_eq!(
        partial.exit_code(),
        2,
        "an error, never folded into a failure"
    );
    apply_baseline(&mut skipped, &baseline, &gate, Unmeasured::Skip).unwrap();
    assert!(skipped.passed);
    assert_eq!(skipped.gate.skipped.len(), 1);
}

#[test]
fn a_drop_in_pass_rate_past_the_limit_fails_the_run() {
    let gate = RunGate {
        mode: GateMode::Blocking,
        max_fail_rate: 1.0,
        max_pass_rate_drop: Some(0.25),
        ..RunGate::default()
    };
    let before = report(
        vec![case("a", true, true, 0.01), case("b", true, true, 0.01)],
        &gate,
    );
    let baseline = Baseline::of_report(&before, "before.json");
    let mut after = report(
        vec![case("a", true, true, 0.01), case("b", false, true, 0.01)],
        &gate,
    );
    assert!(after.passed, "within maxFailRate before the comparison");
    apply_baseline(&mut after, &baseline, &gate, Unmeasured::Fail).unwrap();
    assert!(!after.passed);
    assert_eq!(
        after.gate.breaches,
        [
            "the pass rate fell 50.0 points (100.0% -> 50.0%), more than the 25.0 maxPassRateDrop allows"
        ]
    );
}
