//! `kagent-evals run`, `score` and `suite convert` end to end: the weather
//! demo, the three suite formats, reports, exit codes and suite errors.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn path(relative: &str) -> String {
    root().join(relative).display().to_string()
}

fn kagent_evals(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn json_report(args: &[&str]) -> (Option<i32>, Value) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let output = kagent_evals(&all);
    let report = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}\n{}", stdout(&output), stderr(&output)));
    (output.status.code(), report)
}

const DEMO: &str = "examples/weather/suite.yaml";

fn demo(session: &str) -> (Option<i32>, Value) {
    json_report(&[
        "run",
        &path(DEMO),
        "--fixture",
        &path(&format!("examples/weather/sessions/{session}.jsonl")),
    ])
}

fn case_results(report: &Value) -> Vec<(String, bool)> {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["passed"].as_bool().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_demo_passes_the_grounded_session_three_of_three() {
    let (code, report) = demo("weather-grounded");
    assert_eq!(code, Some(0));
    assert_eq!(
        report["summary"],
        json!({"cases": 3, "passed": 3, "failed": 0, "errors": 0, "noSessions": 0, "sessions": 1, "unreadableSessions": 0})
    );
}

#[test]
fn the_ungrounded_session_passes_only_the_trivially_true_subset_check() {
    let (code, report) = demo("weather-ungrounded");
    assert_eq!(code, Some(1));
    assert_eq!(report["summary"]["passed"], 1);
    // The lesson of the demo: an agent that called no tool at all still
    // "used no tool outside its budget". Only the superset check catches it.
    assert_eq!(
        case_results(&report),
        [
            ("answer-comes-from-the-weather-tool".to_string(), false),
            ("uses-no-tool-outside-its-budget".to_string(), true),
            ("looks-up-the-city-the-user-asked-about".to_string(), false),
        ]
    );
    assert_eq!(report["cases"][1]["sessions"][0]["tools"], json!([]));
}

#[test]
fn the_wrong_city_session_passes_two_of_three_and_says_why() {
    let (code, report) = demo("weather-wrong-city");
    assert_eq!(code, Some(1));
    assert_eq!(report["summary"]["passed"], 2);
    let strict = &report["cases"][2]["sessions"][0]["evaluations"][0];
    assert_eq!(strict["key"], "trajectory_strict_match");
    assert_eq!(strict["score"], false);
    assert!(
        strict["comment"].as_str().unwrap().ends_with(
            "`city` differs (output: a string of 5 characters, reference: a string of 6 characters)"
        ),
        "{strict}"
    );
    assert!(
        !strict["comment"].as_str().unwrap().contains("Paris"),
        "diagnostics quote no argument values"
    );
}

#[test]
fn the_json_report_has_the_documented_shape() {
    let (_, report) = demo("weather-grounded");
    for key in ["suite", "passed", "summary", "cases"] {
        assert!(report.get(key).is_some(), "{key}");
    }
    let case = &report["cases"][0];
    for key in [
        "name",
        "passed",
        "outcome",
        "passRate",
        "minPassRate",
        "sessions",
    ] {
        assert!(case.get(key).is_some(), "case.{key}");
    }
    let session = &case["sessions"][0];
    for key in [
        "sessionId",
        "passed",
        "error",
        "messages",
        "tools",
        "evaluations",
    ] {
        assert!(session.get(key).is_some(), "session.{key}");
    }
    let evaluation = &session["evaluations"][0];
    for key in ["name", "type", "key", "score", "passed", "comment"] {
        assert!(evaluation.get(key).is_some(), "evaluation.{key}");
    }
    assert_eq!(session["messages"], 4);
    assert_eq!(evaluation["type"], "toolsUsed");
}

#[test]
fn table_junit_and_markdown_reports() {
    let fixture = path("examples/weather/sessions/weather-wrong-city.jsonl");
    let table = stdout(&kagent_evals(&["run", &path(DEMO), "--fixture", &fixture]));
    assert!(table.starts_with("CASE"), "{table}");
    let strict = table
        .lines()
        .find(|l| l.contains("strict-with-args"))
        .unwrap();
    assert!(
        strict.contains("trajectory_strict_match") && strict.ends_with("false   FAIL"),
        "{table}"
    );
    assert!(
        table.trim_end().ends_with("2/3 cases passed, 1 failed"),
        "{table}"
    );

    let junit = stdout(&kagent_evals(&[
        "run",
        &path(DEMO),
        "--fixture",
        &fixture,
        "--format",
        "junit",
    ]));
    assert!(junit.starts_with("<?xml"));
    assert!(
        junit.contains(
            r#"<testsuites name="kagent-evals" tests="3" skipped="0" failures="1" errors="0">"#
        ),
        "{junit}"
    );
    assert_eq!(junit.matches("<testcase ").count(), 3);
    assert!(
        junit.contains(r#"<property name="tokens.mean" value="2597"/>"#),
        "{junit}"
    );

    let markdown = stdout(&kagent_evals(&[
        "run",
        &path(DEMO),
        "--fixture",
        &fixture,
        "--format",
        "markdown",
    ]));
    // A pull-request comment opens with what the harness's comment shows.
    let opening: Vec<&str> = markdown.lines().take(4).collect();
    assert_eq!(
        opening,
        [
            "**Pass rate:** 66.7% (2 of 3 cases)  ",
            "**Mean cost per run:** 0.0012  ",
            "**Mean latency:** 4.31s  ",
            "**Safety failures:** none"
        ],
        "{markdown}"
    );
    assert!(
        markdown.contains("\n### ❌ weather-agent: 2/3 cases passed, 1 failed\n"),
        "{markdown}"
    );
    assert!(markdown.contains("| Case | Session | Evaluator | Key | Score | Result |"));

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.xml");
    let output = kagent_evals(&[
        "run",
        &path(DEMO),
        "--fixture",
        &fixture,
        "--format",
        "junit",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        std::fs::read_to_string(out)
            .unwrap()
            .contains("<testsuites")
    );
}

#[test]
fn a_kagent_agentevals_suite_gives_the_same_verdicts() {
    let suite = path("tests/data/suites/weather-agentevals.yaml");
    for (session, expected) in [
        ("weather-grounded", 0),
        ("weather-ungrounded", 1),
        ("weather-wrong-city", 1),
    ] {
        let fixture = path(&format!("examples/weather/sessions/{session}.jsonl"));
        let (code, theirs) = json_report(&["run", &suite, "--fixture", &fixture]);
        let (_, ours) = demo(session);
        assert_eq!(code, Some(expected), "{session}");
        assert_eq!(case_results(&theirs), case_results(&ours), "{session}");
    }
    // Without --fixture the suite's own fixture source is used, relative to the
    // working directory as kagent-agentevals reads it.
    assert_eq!(kagent_evals(&["run", &suite]).status.code(), Some(0));
}

#[test]
fn suite_convert_prints_an_equivalent_eval_suite() {
    let output = kagent_evals(&[
        "suite",
        "convert",
        &path("tests/data/suites/weather-agentevals.yaml"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let converted = stdout(&output);
    assert!(
        converted.starts_with("apiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\n"),
        "{converted}"
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("converted.yaml");
    std::fs::write(&file, &converted).unwrap();
    let fixture = path("examples/weather/sessions/weather-wrong-city.jsonl");
    let (code, report) = json_report(&["run", file.to_str().unwrap(), "--fixture", &fixture]);
    assert_eq!(code, Some(1));
    assert_eq!(
        case_results(&report),
        case_results(&demo("weather-wrong-city").1)
    );

    let output = kagent_evals(&[
        "suite",
        "convert",
        &path("tests/data/suites/weather.evalset.json"),
    ]);
    let converted = stdout(&output);
    assert!(
        converted.contains("type: toolTrajectory") && converted.contains("type: responseMatch"),
        "{converted}"
    );
    assert!(
        converted.contains("contains: current weather in London"),
        "{converted}"
    );
}

#[test]
fn an_adk_eval_set_runs_with_the_criteria_beside_it() {
    // Cases in camelCase, ADK's default criteria (no test_config.json);
    // snake_case, with a test_config.json that names the trajectory only.
    for evalset in [
        "weather.evalset.json",
        "adk-trajectory-only/weather.evalset.json",
    ] {
        let suite = path(&format!("tests/data/suites/{evalset}"));
        let (code, report) = json_report(&[
            "run",
            &suite,
            "--fixture",
            &path("examples/weather/sessions/weather-grounded.jsonl"),
        ]);
        assert_eq!(code, Some(0), "{evalset}: {report}");
        let evaluations = &report["cases"][0]["sessions"][0]["evaluations"];
        assert_eq!(evaluations[0]["key"], "tool_trajectory_avg_score");
        assert_eq!(evaluations[0]["score"], 1.0);
        if evalset == "weather.evalset.json" {
            assert_eq!(evaluations[1]["key"], "response_match_score");
            assert!(
                evaluations[1]["score"].as_f64().unwrap() >= 0.8,
                "{}",
                evaluations[1]
            );
        } else {
            let scored: Vec<&Value> = evaluations
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["informational"] != true)
                .collect();
            assert_eq!(scored.len(), 1, "the criteria name the trajectory only");
        }
        let (code, report) = json_report(&[
            "run",
            &suite,
            "--fixture",
            &path("examples/weather/sessions/weather-wrong-city.jsonl"),
        ]);
        assert_eq!(code, Some(1));
        let trajectory = &report["cases"][0]["sessions"][0]["evaluations"][0];
        assert_eq!(trajectory["score"], 0.0);
        assert_eq!(
            trajectory["comment"],
            "invocation(s) 1 do not match (EXACT)"
        );
    }
}

#[test]
fn adk_criteria_named_on_the_command_line_win_and_a_missing_response_is_empty() {
    // ADK's default criteria, named explicitly, on an EvalSet whose case has
    // no final response: ADK scores the response against "", so the case
    // fails where the trajectory alone passes.
    let dir = tempfile::tempdir().unwrap();
    let criteria = dir.path().join("criteria.json");
    std::fs::write(
        &criteria,
        r#"{"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": {"threshold": 0.8}}}"#,
    )
    .unwrap();
    let (code, report) = json_report(&[
        "run",
        &path("tests/data/suites/adk-trajectory-only/weather.evalset.json"),
        "--criteria",
        criteria.to_str().unwrap(),
        "--fixture",
        &path("examples/weather/sessions/weather-grounded.jsonl"),
    ]);
    assert_eq!(code, Some(1), "{report}");
    let response = &report["cases"][0]["sessions"][0]["evaluations"][1];
    assert_eq!(response["key"], "response_match_score");
    assert_eq!(response["score"], 0.0);

    // A criteria file for a file that is not ADK's is refused.
    let output = kagent_evals(&[
        "run",
        &path("tests/data/suites/weather-agentevals.yaml"),
        "--criteria",
        criteria.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("a criteria file goes with ADK eval files only"),
        "{}",
        stderr(&output)
    );
}

fn write_suite(dir: &Path, body: &str) -> PathBuf {
    let file = dir.join("suite.yaml");
    std::fs::write(&file, format!("apiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata:\n  name: t\nspec:\n{body}")).unwrap();
    file
}

#[test]
fn suite_errors_exit_two_naming_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = path("examples/weather/sessions");
    for (body, expected) in [
        (
            "  cases:\n    - name: a\n      evaluators:\n        - name: e\n          type: toolUsed\n",
            ":10:17: spec.cases[0].evaluators[0].type: unknown variant `toolUsed`",
        ),
        (
            "  cases:\n    - name: a\n      evaluators:\n        - name: e\n          type: toolsUsed\n",
            ":9:11: spec.cases[0].evaluators[0].toolsUsed: an evaluator of type toolsUsed needs its settings in the `toolsUsed` field",
        ),
        (
            "  schedule: 61 * * * *\n  cases:\n    - name: a\n      evaluators:\n        - {name: e, type: loops, loops: {}}\n",
            ":6:13: spec.schedule: `61 * * * *` is not a cron schedule",
        ),
        (
            "  cases:\n    - name: a\n      minPassRate: lots\n      evaluators: []\n",
            ":8:20: spec.cases[0].minPassRate: invalid floating point",
        ),
        (
            "  cases:\n    - name: a\n      match: {regex: \"(\"}\n      evaluators:\n        - {name: e, type: loops, loops: {}}\n",
            ":8:22: spec.cases[0].match.regex: not a regular expression",
        ),
    ] {
        let file = write_suite(dir.path(), body);
        let output = kagent_evals(&["run", file.to_str().unwrap(), "--fixture", &sessions]);
        assert_eq!(output.status.code(), Some(2), "{body}");
        let message = stderr(&output);
        let expected = format!("error: {}{expected}", file.display());
        assert!(
            message.starts_with(&expected),
            "expected {expected:?}, got {message:?}"
        );
    }
    let output = kagent_evals(&["run", "/nonexistent/suite.yaml", "--fixture", &sessions]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("cannot read /nonexistent/suite.yaml"));
}

#[test]
fn a_case_that_matches_no_session_fails_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = path("examples/weather/sessions");
    let body = "  cases:\n    - name: paris\n      match: {contains: Paris}\n      evaluators:\n        - {name: e, type: loops, loops: {}}\n";
    let file = write_suite(dir.path(), body);
    let (code, report) = json_report(&["run", file.to_str().unwrap(), "--fixture", &sessions]);
    assert_eq!(code, Some(1));
    assert_eq!(report["cases"][0]["outcome"], "NoSessions");
    assert_eq!(report["summary"]["noSessions"], 1);
    let allowed = body.replace(
        "match: {contains: Paris}",
        "match: {contains: Paris}\n      allowNoSessions: true",
    );
    let file = write_suite(dir.path(), &allowed);
    let (code, report) = json_report(&["run", file.to_str().unwrap(), "--fixture", &sessions]);
    assert_eq!(code, Some(0));
    assert_eq!(report["cases"][0]["outcome"], "NoSessions");

    let named = "  cases:\n    - name: named\n      sessionId: not-there\n      evaluators:\n        - {name: e, type: loops, loops: {}}\n";
    let file = write_suite(dir.path(), named);
    let (code, report) = json_report(&["run", file.to_str().unwrap(), "--fixture", &sessions]);
    assert_eq!(code, Some(1));
    assert_eq!(
        report["cases"][0]["notes"][0],
        format!("session not-there not found in fixture {sessions}")
    );
}

#[test]
fn min_pass_rate_is_over_the_sessions_a_case_scored() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = path("examples/weather/sessions");
    let body = |rate: &str| {
        format!(
            "  cases:\n    - name: grounded\n      minPassRate: {rate}\n      evaluators:\n        - name: tool\n          type: toolsUsed\n          toolsUsed: {{expected: [get-weather-by-city_get-weather-by-city]}}\n"
        )
    };
    let file = write_suite(dir.path(), &body("0.6"));
    let (code, report) = json_report(&["run", file.to_str().unwrap(), "--fixture", &sessions]);
    assert_eq!(code, Some(0));
    assert_eq!(report["cases"][0]["passRate"], 2.0 / 3.0);
    assert_eq!(
        report["cases"][0]["sessions"][0]["passed"], false,
        "failing sessions first"
    );
    let file = write_suite(dir.path(), &body("1.0"));
    assert_eq!(
        json_report(&["run", file.to_str().unwrap(), "--fixture", &sessions]).0,
        Some(1)
    );
}

#[test]
fn golden_case_evaluators_on_a_captured_session() {
    let dir = tempfile::tempdir().unwrap();
    let weather = "get-weather-by-city_get-weather-by-city";
    let body = format!(
        r#"  cases:
    - name: golden
      evaluators:
        - {{name: selection, type: toolSelection, toolSelection: {{expected: [{weather}, other_tool], metric: recall, threshold: 0.5}}}}
        - {{name: args, type: argumentCorrectness, argumentCorrectness: {{calls: [{{name: {weather}, args: {{city: London}}}}]}}}}
        - {{name: drift, type: trajectoryDrift, trajectoryDrift: {{reference: [{weather}], threshold: 1.0}}}}
        - {{name: loops, type: loops, loops: {{}}}}
        - {{name: safety, type: safety, safety: {{required: [{weather}], forbidden: [shell]}}}}
        - {{name: budget, type: budget, budget: {{maxSteps: 1, maxTokens: 2000, maxLatencySeconds: 60}}}}
"#
    );
    let file = write_suite(dir.path(), &body);
    let (_, report) = json_report(&[
        "run",
        file.to_str().unwrap(),
        "--fixture",
        &path("examples/weather/sessions/weather-grounded.jsonl"),
    ]);
    let evaluations = report["cases"][0]["sessions"][0]["evaluations"]
        .as_array()
        .unwrap()
        .clone();
    let by_name = |n: &str| evaluations.iter().find(|e| e["name"] == n).unwrap().clone();
    assert_eq!(by_name("selection")["score"], 0.5);
    assert_eq!(by_name("selection")["passed"], true);
    assert_eq!(by_name("args")["score"], 1.0);
    assert_eq!(by_name("drift")["score"], 1.0);
    assert_eq!(by_name("loops")["passed"], true);
    assert_eq!(by_name("safety")["passed"], true);
    // Two model calls of 1253 and 1344 tokens: over a 2000-token budget.
    assert_eq!(by_name("budget")["passed"], false);
    assert_eq!(by_name("budget")["comment"], "2597 tokens > 2000");

    let (_, report) = json_report(&[
        "run",
        file.to_str().unwrap(),
        "--fixture",
        &path("examples/weather/sessions/weather-wrong-city.jsonl"),
    ]);
    let args = &report["cases"][0]["sessions"][0]["evaluations"][1];
    assert_eq!(args["score"], 0.0);
    assert_eq!(args["comment"], format!("`city` of `{weather}` differs"));
}

#[test]
fn an_evaluator_that_cannot_judge_is_an_error_not_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let body = "  cases:\n    - name: cost\n      evaluators:\n        - name: cost\n          type: budget\n          budget:\n            maxCost: 1\n            prices: [{model: gpt-4o, promptPerMillionTokens: 2.5, completionPerMillionTokens: 10}]\n";
    let file = write_suite(dir.path(), body);
    let (code, report) = json_report(&[
        "run",
        file.to_str().unwrap(),
        "--fixture",
        &path("examples/weather/sessions/weather-grounded.jsonl"),
    ]);
    assert_eq!(code, Some(2));
    assert_eq!(report["cases"][0]["outcome"], "Error");
    assert_eq!(report["summary"]["errors"], 1);
    assert_eq!(
        report["cases"][0]["sessions"][0]["evaluations"][0]["error"],
        "no price for model `(unnamed model)` among the prices"
    );
}

#[test]
fn score_runs_one_evaluator_on_events_or_messages() {
    let dir = tempfile::tempdir().unwrap();
    let evaluator = dir.path().join("evaluator.yaml");
    std::fs::write(
        &evaluator,
        "name: city\ntype: toolTrajectory\ntoolTrajectory:\n  matchType: in-order\n  invocations:\n    - toolUses: [{name: get-weather-by-city_get-weather-by-city, args: {city: London}}]\n",
    )
    .unwrap();
    let evaluator = evaluator.to_str().unwrap();
    let grounded = path("examples/weather/sessions/weather-grounded.jsonl");
    let output = kagent_evals(&["score", "--evaluator", evaluator, "--trajectory", &grounded]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        serde_json::from_slice::<Value>(&output.stdout).unwrap(),
        json!({"key": "tool_trajectory_avg_score", "score": 1.0, "passed": true, "comment": null})
    );
    let output = kagent_evals(&[
        "score",
        "--evaluator",
        evaluator,
        "--trajectory",
        &path("examples/weather/sessions/weather-wrong-city.jsonl"),
    ]);
    assert_eq!(output.status.code(), Some(1));

    let messages = dir.path().join("messages.json");
    let extracted = kagent_evals(&["extract", "s", "--fixture", &grounded]);
    std::fs::write(&messages, &extracted.stdout).unwrap();
    let output = kagent_evals(&[
        "score",
        "--evaluator",
        evaluator,
        "--trajectory",
        messages.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));

    let broken = dir.path().join("broken.yaml");
    std::fs::write(&broken, "name: x\ntype: toolTrajectory\n").unwrap();
    let output = kagent_evals(&[
        "score",
        "--evaluator",
        broken.to_str().unwrap(),
        "--trajectory",
        &grounded,
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("needs its settings in the `toolTrajectory` field"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn every_committed_suite_compiles() {
    for file in [
        "examples/weather/suite.yaml",
        "config/samples/weather-agent.yaml",
        "config/samples/k8s-agent.yaml",
    ] {
        let output = kagent_evals(&["suite", "convert", &path(file)]);
        assert_eq!(output.status.code(), Some(0), "{file}: {}", stderr(&output));
    }
}
