//! The regression gate from the command line: cost, latency and tokens
//! measured on every session, budgets that never pass on what the record
//! does not hold, a baseline report and relative gates, non-blocking cases
//! and the signal mode.

use serde_json::{Value, json};
use std::path::Path;
use std::process::Command;

fn path(relative: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(relative)
        .display()
        .to_string()
}

/// `run` with JSON output: the exit code, the report, stderr.
fn run(args: &[&str]) -> (Option<i32>, Value, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .arg("run")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    (
        output.status.code(),
        serde_json::from_slice(&output.stdout).unwrap_or(Value::Null),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn suite(dir: &Path, name: &str, spec: Value) -> String {
    let file = dir.join(format!("{name}.json"));
    let body = json!({"apiVersion": "evals.kagent.dev/v1alpha1", "kind": "EvalSuite",
                      "metadata": {"name": "weather"}, "spec": spec});
    std::fs::write(&file, body.to_string()).unwrap();
    file.display().to_string()
}

const GROUNDED: &str = "examples/weather/sessions/weather-grounded.jsonl";
const WRONG_CITY: &str = "examples/weather/sessions/weather-wrong-city.jsonl";

/// The LangGraph runtime's task record of a tool call, as one JSONL
/// fixture: A2A tasks carry no usage metadata.
fn task_record(dir: &Path) -> String {
    let tasks: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(path("tests/data/kagent-tasks/langgraph/tool-call.json")).unwrap(),
    )
    .unwrap();
    let file = dir.join("langgraph.jsonl");
    let lines: Vec<String> = tasks.iter().map(Value::to_string).collect();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    file.display().to_string()
}

fn budget_case() -> Value {
    json!({"name": "within-budget", "evaluators": [
        {"name": "budget", "type": "budget", "budget": {"maxTokens": 5000}}]})
}

#[test]
fn a_budget_on_a_session_without_usage_is_not_passed() {
    let dir = tempfile::tempdir().unwrap();
    let file = suite(dir.path(), "budget", json!({"cases": [budget_case()]}));
    let (code, report, _) = run(&[&file, "--fixture", &path(GROUNDED)]);
    assert_eq!(code, Some(0), "{report}");
    let session = &report["cases"][0]["sessions"][0];
    assert_eq!(session["efficiency"]["totalTokens"], 2597);

    let tasks = task_record(dir.path());
    let (code, report, _) = run(&[&file, "--fixture", &tasks]);
    assert_eq!(
        code,
        Some(2),
        "not evaluated is an error, not a pass: {report}"
    );
    let case = &report["cases"][0];
    assert_eq!(case["outcome"], "Error");
    let session = &case["sessions"][0];
    assert_eq!(session["record"], "tasks");
    assert_eq!(
        session["efficiency"]["totalTokens"],
        json!({"unmeasured": "the record holds no usage metadata"})
    );
    let error = session["evaluations"][0]["error"].as_str().unwrap();
    assert!(
        error.starts_with("not evaluated: maxTokens: the record holds no usage metadata"),
        "{error}"
    );
    assert_eq!(report["efficiency"]["totalTokens"]["unmeasured"], 1);

    // Opting out is explicit, and counted.
    let skip = suite(
        dir.path(),
        "skip",
        json!({"unmeasured": "skip", "cases": [budget_case()]}),
    );
    let (code, report, _) = run(&[&skip, "--fixture", &tasks]);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["summary"]["unmeasuredSkipped"], 1);
    let evaluation = &report["cases"][0]["sessions"][0]["evaluations"][0];
    assert_eq!(
        evaluation["unmeasured"],
        json!(["maxTokens: the record holds no usage metadata"])
    );
}

/// Prices that make the grounded session's cost `scale` times the base.
fn priced(scale: f64, gates: Value) -> Value {
    json!({
        "prices": [{"promptPerMillionTokens": 1.0 * scale, "completionPerMillionTokens": 4.0 * scale}],
        "gates": gates,
        "cases": [{"name": "calls-the-tool", "evaluators": [
            {"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["get-weather-by-city_get-weather-by-city"]}}]}]
    })
}

#[test]
fn a_baseline_passes_within_the_threshold_and_fails_on_a_three_percent_cost_rise() {
    let dir = tempfile::tempdir().unwrap();
    let gates = json!({"maxIncrease": {"cost": 0.02}});
    let base = suite(dir.path(), "base", priced(1.0, gates.clone()));
    // The baseline run itself has none to compare with: said, exit 2.
    let (code, _, stderr) = run(&[&base, "--fixture", &path(GROUNDED)]);
    assert_eq!(code, Some(2), "{stderr}");
    let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args([
            "run",
            &base,
            "--fixture",
            &path(GROUNDED),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let baseline = dir.path().join("baseline.json");
    std::fs::write(&baseline, &output.stdout).unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["gate"]["errors"],
        json!([
            "maxIncrease.cost not evaluated: no baseline was given (pass --baseline REPORT.json)"
        ])
    );
    let baseline = baseline.display().to_string();

    let slightly = suite(dir.path(), "slightly", priced(1.01, gates.clone()));
    let (code, report, stderr) = run(&[
        &slightly,
        "--fixture",
        &path(GROUNDED),
        "--baseline",
        &baseline,
    ]);
    assert_eq!(code, Some(0), "{report} {stderr}");
    let cost = &report["baseline"]["rows"][1];
    assert_eq!(cost["measure"], "cost");
    assert!(
        (cost["change"].as_f64().unwrap() - 0.01).abs() < 1e-9,
        "{cost}"
    );
    assert_eq!(cost["limit"], 0.02);

    let dearer = suite(dir.path(), "dearer", priced(1.03, gates));
    let (code, report, _) = run(&[
        &dearer,
        "--fixture",
        &path(GROUNDED),
        "--baseline",
        &baseline,
    ]);
    assert_eq!(code, Some(1), "a breach fails the run: {report}");
    let breach = report["gate"]["breaches"][0].as_str().unwrap();
    assert!(
        breach.starts_with("mean cost per session rose 3.0% ("),
        "{breach}"
    );
    assert!(
        breach.ends_with("more than the 2.0% maxIncrease.cost allows"),
        "{breach}"
    );
    assert_eq!(report["cases"][0]["passed"], true, "quality unchanged");
}

#[test]
fn a_baseline_that_cannot_be_read_or_is_of_another_suite_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = suite(
        dir.path(),
        "s",
        priced(1.0, json!({"maxIncrease": {"cost": 0.02}})),
    );
    let refused = |baseline: &str, contents: &str, said: &str| {
        let at = dir.path().join(baseline);
        std::fs::write(&at, contents).unwrap();
        let (code, _, stderr) = run(&[
            &file,
            "--fixture",
            &path(GROUNDED),
            "--baseline",
            at.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("--baseline {}", at.display())),
            "{stderr}"
        );
        assert!(stderr.contains(said), "{said} in {stderr}");
    };
    refused("broken.json", "{", "not JSON");
    refused(
        "newer.json",
        r#"{"formatVersion": 99, "suite": "weather"}"#,
        "report 0 is of format version 99, newer than the 2 this kagent-evals reads",
    );
    refused(
        "odd.json",
        r#"{"suite": "weather"}"#,
        "is not a kagent-evals JSON report",
    );
    let (_, other, _) = run(&[&file, "--fixture", &path(GROUNDED)]);
    let mut other = other;
    other["suite"] = json!("another-suite");
    refused(
        "other.json",
        &other.to_string(),
        "no run of suite weather (it holds another-suite)",
    );
}

fn two_cases(blocking_second: bool) -> Value {
    json!([
        {"name": "calls-the-tool", "evaluators": [
            {"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["get-weather-by-city_get-weather-by-city"]}}]},
        {"name": "london-reference", "blocking": blocking_second, "match": {"regex": "(?i)london"}, "evaluators": [
            {"name": "args", "type": "argumentCorrectness", "argumentCorrectness": {"calls": [
                {"name": "get-weather-by-city_get-weather-by-city", "args": {"city": "London"}, "keys": ["city"]}]}}]}
    ])
}

#[test]
fn a_non_blocking_case_and_a_signal_gate_report_failures_and_pass_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let blocking = suite(dir.path(), "blocking", json!({"cases": two_cases(true)}));
    let (code, _, _) = run(&[&blocking, "--fixture", &path(WRONG_CITY)]);
    assert_eq!(code, Some(1));

    let new_case = suite(dir.path(), "new-case", json!({"cases": two_cases(false)}));
    let (code, report, _) = run(&[&new_case, "--fixture", &path(WRONG_CITY)]);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["passed"], true);
    assert_eq!(report["summary"]["failed"], 1, "still reported");
    assert_eq!(
        report["gate"]["nonBlockingFailures"],
        json!(["london-reference"])
    );

    let signal = suite(
        dir.path(),
        "signal",
        json!({"gate": "signal", "cases": two_cases(true)}),
    );
    let (code, report, _) = run(&[&signal, "--fixture", &path(WRONG_CITY)]);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["gate"]["mode"], "signal");
    assert_eq!(
        report["gate"]["nonBlockingFailures"],
        json!(["london-reference"])
    );

    // A fail rate within the allowed one passes the run too.
    let lenient = suite(
        dir.path(),
        "lenient",
        json!({"gates": {"maxFailRate": 0.5}, "cases": two_cases(true)}),
    );
    let (code, report, _) = run(&[&lenient, "--fixture", &path(WRONG_CITY)]);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["gate"]["failRate"], 0.5);
}

/// google-adk reports its four efficiency metrics on every eval, as values
/// that never pass or fail; a criteria file naming one with a threshold
/// (which ADK refuses) is said to be read ADK's way.
#[test]
fn an_adk_evalset_reports_adks_efficiency_metrics_as_values_only() {
    let dir = tempfile::tempdir().unwrap();
    let evalset = dir.path().join("weather.evalset.json");
    std::fs::write(
        &evalset,
        json!({"eval_set_id": "weather", "eval_cases": [{"eval_id": "london", "conversation": [{
            "user_content": {"role": "user", "parts": [{"text": "current weather in London"}]},
            "intermediate_data": {"tool_uses": [{"name": "get-weather-by-city_get-weather-by-city", "args": {"city": "London"}}]}
        }]}]})
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("test_config.json"),
        r#"{"criteria": {"tool_trajectory_avg_score": 1.0, "token_usage_v1": 100}}"#,
    )
    .unwrap();
    let (code, report, stderr) = run(&[evalset.to_str().unwrap(), "--fixture", &path(GROUNDED)]);
    assert_eq!(code, Some(0), "{report} {stderr}");
    assert!(
        stderr.contains("note: criteria.token_usage_v1: ADK reports token_usage_v1 on every eval as a value that never passes or fails"),
        "{stderr}"
    );
    let evaluations = report["cases"][0]["sessions"][0]["evaluations"]
        .as_array()
        .unwrap();
    let by_key = |key: &str| {
        evaluations
            .iter()
            .find(|e| e["key"] == key)
            .unwrap()
            .clone()
    };
    let tokens = by_key("token_usage_v1");
    assert_eq!(tokens["informational"], true);
    assert_eq!(
        tokens["passed"], true,
        "far over the refused threshold of 100"
    );
    assert_eq!(tokens["score"], 2597.0);
    assert_eq!(by_key("tool_call_count_v1")["score"], 1.0);
    assert_eq!(by_key("inference_call_count_v1")["score"], 2.0);
    assert_eq!(
        by_key("invocation_duration_v1")["score"],
        Value::Null,
        "n/a for a stored session"
    );
}

/// The harness's JSONL golden set runs as it is, with the prices beside it;
/// an EvalSuite holds two markets' profiles, each case held to its own.
#[test]
fn the_harness_golden_set_runs_as_it_is_and_profiles_budget_by_tag() {
    let golden = path("tests/data/suites/golden/agent_golden_set.jsonl");
    let (code, report, stderr) = run(&[&golden, "--fixture", &path(GROUNDED)]);
    assert_eq!(code, Some(1), "{report} {stderr}");
    assert_eq!(report["suite"], "agent_golden_set");
    let case = |name: &str| {
        report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(case("london-weather")["passed"], true, "{report}");
    assert_eq!(
        case("london-weather")["tags"],
        json!(["weather", "market:uk"])
    );
    let tight = case("london-weather-tight-cost");
    assert_eq!(tight["passed"], false);
    let comment = tight["sessions"][0]["evaluations"][1]["comment"]
        .as_str()
        .unwrap();
    assert!(comment.starts_with("cost 0.0012 > 0.0001"), "{comment}");

    // Without its prices, a cost limit is refused naming the line.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("agent_golden_set.jsonl");
    std::fs::copy(&golden, &copy).unwrap();
    let (code, _, stderr) = run(&[copy.to_str().unwrap(), "--fixture", &path(GROUNDED)]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains(
            "agent_golden_set.jsonl: line 1: max_cost_usd: a cost limit needs the prices"
        ),
        "{stderr}"
    );

    let profiles = suite(
        dir.path(),
        "profiles",
        json!({
            "profiles": [
                {"name": "tight-cost", "tags": ["market:us"], "budget": {"maxCost": 0.0001,
                    "prices": [{"promptPerMillionTokens": 0.4, "completionPerMillionTokens": 1.6}]}},
                {"name": "strict-steps", "tags": ["market:uk"], "budget": {"maxSteps": 3}}
            ],
            "cases": [
                {"name": "uk", "tags": ["market:uk"], "evaluators": [
                    {"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["get-weather-by-city_get-weather-by-city"]}}]},
                {"name": "us", "tags": ["market:us"], "evaluators": [
                    {"name": "tool", "type": "toolsUsed", "toolsUsed": {"expected": ["get-weather-by-city_get-weather-by-city"]}}]}
            ]
        }),
    );
    let (code, report, _) = run(&[&profiles, "--fixture", &path(GROUNDED)]);
    assert_eq!(code, Some(1), "{report}");
    let names = |case: &Value| -> Vec<String> {
        case["sessions"][0]["evaluations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap().to_string())
            .collect()
    };
    let uk = &report["cases"][0];
    assert_eq!(names(uk), ["tool", "strict-steps budget"]);
    assert_eq!(uk["passed"], true);
    let us = &report["cases"][1];
    assert_eq!(names(us), ["tool", "tight-cost budget"]);
    assert_eq!(us["passed"], false);
}

/// One run's JSON gives every report a CI job keeps, the same as `run`
/// writes them.
#[test]
fn report_renders_a_json_report_in_each_format() {
    let dir = tempfile::tempdir().unwrap();
    let demo = path("examples/weather/suite.yaml");
    let kagent_evals = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
            .args(args)
            .output()
            .unwrap();
        String::from_utf8(output.stdout).unwrap()
    };
    let json = dir.path().join("report.json");
    kagent_evals(&[
        "run",
        &demo,
        "--fixture",
        &path(WRONG_CITY),
        "--format",
        "json",
        "-o",
        json.to_str().unwrap(),
    ]);
    for format in ["markdown", "junit", "table"] {
        let direct = kagent_evals(&[
            "run",
            &demo,
            "--fixture",
            &path(WRONG_CITY),
            "--format",
            format,
        ]);
        let rendered = kagent_evals(&["report", json.to_str().unwrap(), "--format", format]);
        assert_eq!(rendered, direct, "{format}");
    }
}
