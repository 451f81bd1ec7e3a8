//! Growing the golden set through the binary: cases harvested from
//! sessions and reports, selected by tag and name, suites validated
//! offline and run by the folder.

use serde_json::Value;
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

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const SESSIONS: &str = "examples/weather/sessions";

fn session(name: &str) -> String {
    path(&format!("{SESSIONS}/{name}.jsonl"))
}

/// A suite of one case, for cases to be added to.
fn seed_suite(dir: &Path) -> PathBuf {
    let file = dir.join("suite.yaml");
    std::fs::write(
        &file,
        "# The weather agent's golden set.\napiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata:\n  name: golden\nspec:\n  cases:\n    # Kept as it was.\n    - name: calls-a-tool\n      tags: [fast]\n      evaluators:\n        - name: any-tool\n          type: toolsUsed\n          toolsUsed: {mode: superset, expected: [get-weather-by-city_get-weather-by-city]}\n  # The nightly.\n  schedule: \"0 2 * * *\"\n",
    )
    .unwrap();
    file
}

fn json_run(args: &[&str]) -> (Option<i32>, Value, String) {
    let mut all = vec!["run"];
    all.extend(args);
    all.extend(["--format", "json"]);
    let output = kagent_evals(&all);
    let report = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output.status.code(), report, text(&output.stderr))
}

fn case_passed(report: &Value, name: &str) -> bool {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no case {name} in {report}"))["passed"]
        .as_bool()
        .unwrap()
}

#[test]
fn a_harvested_case_passes_on_its_session_and_fails_on_the_wrong_city() {
    let dir = tempfile::tempdir().unwrap();
    let suite = seed_suite(dir.path());
    let grounded = session("weather-grounded");
    let output = kagent_evals(&[
        "case",
        "from-session",
        "weather-grounded",
        "--fixture",
        &grounded,
        "--name",
        "london-from-the-tool",
        "--suite",
        suite.to_str().unwrap(),
    ]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("added 1 case(s)"), "{stderr}");
    assert!(
        stderr.contains("review: london-from-the-tool: budget: the session used 1 tool calls"),
        "{stderr}"
    );
    let written = std::fs::read_to_string(&suite).unwrap();
    assert!(
        written.starts_with("# The weather agent's golden set.\n"),
        "{written}"
    );
    assert!(
        written.contains("    # Kept as it was.\n    - name: calls-a-tool\n"),
        "{written}"
    );
    assert!(
        written.trim_end().ends_with("schedule: \"0 2 * * *\""),
        "{written}"
    );
    assert!(
        written.contains("- name: london-from-the-tool"),
        "{written}"
    );

    let suite = suite.to_str().unwrap();
    let (code, report, stderr) = json_run(&[suite, "--fixture", &grounded]);
    assert_eq!(code, Some(0), "{stderr}\n{report}");
    assert!(case_passed(&report, "london-from-the-tool"));
    let (code, report, _) = json_run(&[suite, "--fixture", &session("weather-wrong-city")]);
    assert_eq!(code, Some(1));
    assert!(!case_passed(&report, "london-from-the-tool"));
    let trajectory = &report["cases"][1]["sessions"][0]["evaluations"][0];
    assert_eq!(
        (trajectory["name"].as_str(), trajectory["passed"].as_bool()),
        (Some("trajectory"), Some(false))
    );

    // The same name again: refused, the file as it was.
    let output = kagent_evals(&[
        "case",
        "from-session",
        "weather-grounded",
        "--fixture",
        &grounded,
        "--name",
        "london-from-the-tool",
        "--suite",
        suite,
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("names two cases"),
        "{}",
        text(&output.stderr)
    );
    assert_eq!(std::fs::read_to_string(suite).unwrap(), written);
}

#[test]
fn a_session_without_tool_calls_makes_a_case_with_a_warning_and_a_missing_one_exits_2() {
    let ungrounded = session("weather-ungrounded");
    let output = kagent_evals(&[
        "case",
        "from-session",
        "weather-ungrounded",
        "--fixture",
        &ungrounded,
    ]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("a subset check alone then proves nothing"),
        "{stderr}"
    );
    let printed = text(&output.stdout);
    assert!(printed.contains("- name: harvested-weather"), "{printed}");
    assert!(
        printed.contains("# - the session calls no tool"),
        "{printed}"
    );

    // A folder of fixtures is searched by id (one file serves any id).
    let output = kagent_evals(&[
        "case",
        "from-session",
        "no-such-session",
        "--fixture",
        &path(SESSIONS),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("no-such-session not found in") && stderr.contains("sessions"),
        "{stderr}"
    );

    let dir = tempfile::tempdir().unwrap();
    let not_a_suite = dir.path().join("values.yaml");
    std::fs::write(
        &not_a_suite,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
    )
    .unwrap();
    let output = kagent_evals(&[
        "case",
        "from-session",
        "weather-ungrounded",
        "--fixture",
        &ungrounded,
        "--suite",
        not_a_suite.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(&not_a_suite).unwrap(),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
    );
}

#[test]
fn the_failing_sessions_of_a_report_become_cases() {
    let dir = tempfile::tempdir().unwrap();
    let report_file = dir.path().join("report.json");
    let wrong = session("weather-wrong-city");
    let output = kagent_evals(&[
        "run",
        &path("examples/weather/suite.yaml"),
        "--fixture",
        &wrong,
        "--format",
        "json",
        "-o",
        report_file.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let output = kagent_evals(&[
        "case",
        "from-session",
        "--from-report",
        report_file.to_str().unwrap(),
        "--fixture",
        &wrong,
    ]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let printed = text(&output.stdout);
    assert!(
        printed.contains("- name: looks-up-the-city-the-user-asked-about-weather"),
        "{printed}"
    );
    assert!(
        printed.contains("Paris"),
        "the failing session's own call: {printed}"
    );
    assert_eq!(
        printed.matches("\n- name: ").count() + usize::from(printed.starts_with("- name: ")),
        1,
        "{printed}"
    );
    let output = kagent_evals(&[
        "case",
        "from-session",
        "--from-report",
        report_file.to_str().unwrap(),
        "--passing",
        "--fixture",
        &wrong,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
}

#[test]
fn a_secret_is_masked_wherever_it_recurs_in_a_capture_and_a_harvested_case() {
    let dir = tempfile::tempdir().unwrap();
    let original = std::fs::read_to_string(session("weather-grounded")).unwrap();
    let mut lines: Vec<Value> = original
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let user = lines.iter_mut().find(|e| e["author"] == "user").unwrap();
    user["custom_metadata"] = serde_json::json!({"password": "hunter2-horse"});
    user["content"]["parts"][0]["text"] =
        Value::String("current weather in London; my password is hunter2-horse".into());
    let last = lines.last_mut().unwrap();
    last["custom_metadata"] = serde_json::json!({"note": "user gave hunter2-horse"});
    let fixture = dir.path().join("leaky.jsonl");
    let body: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&fixture, body.join("\n") + "\n").unwrap();
    let fixture = fixture.to_str().unwrap();

    let output = kagent_evals(&["capture", "leaky", "--fixture", fixture]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let captured = text(&output.stdout);
    assert!(!captured.contains("hunter2-horse"), "{captured}");
    assert!(captured.contains("user gave REDACTED"), "{captured}");

    let output = kagent_evals(&["case", "from-session", "leaky", "--fixture", fixture]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let case = text(&output.stdout);
    assert!(
        !case.contains("hunter2-horse") && case.contains("my password is REDACTED"),
        "{case}"
    );
}

fn tagged_suite(dir: &Path) -> String {
    let file = dir.join("tagged.yaml");
    std::fs::write(
        &file,
        "apiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata:\n  name: tagged\nspec:\n  select: {excludeTags: [slow]}\n  cases:\n    - name: fast-tool\n      tags: [fast]\n      evaluators: [{name: t, type: toolsUsed, toolsUsed: {mode: superset, expected: [get-weather-by-city_get-weather-by-city]}}]\n    - name: slow-strict\n      tags: [slow]\n      evaluators: [{name: t, type: toolsUsed, toolsUsed: {mode: superset, expected: [book_flight]}}]\n    - name: fast-budget\n      tags: [fast, budget]\n      evaluators: [{name: b, type: budget, budget: {maxSteps: 5}}]\n",
    )
    .unwrap();
    file.display().to_string()
}

#[test]
fn tags_and_names_select_the_cases_and_the_report_says_what_was_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let suite = tagged_suite(dir.path());
    let grounded = session("weather-grounded");
    // The suite's own select leaves out the slow, failing case.
    let (code, report, stderr) = json_run(&[&suite, "--fixture", &grounded]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        report["selection"]["leftOut"],
        serde_json::json!(["slow-strict"])
    );
    // The command line replaces it.
    let (code, report, _) = json_run(&[&suite, "--fixture", &grounded, "--tag", "slow"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        report["selection"]["selected"],
        serde_json::json!(["slow-strict"])
    );
    let (code, report, _) = json_run(&[
        &suite,
        "--fixture",
        &grounded,
        "--case",
        "fast-*",
        "--exclude-tag",
        "budget",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(
        report["selection"]["selected"],
        serde_json::json!(["fast-tool"])
    );
    let table = kagent_evals(&["run", &suite, "--fixture", &grounded, "--tag", "budget"]);
    assert!(
        text(&table.stdout).contains("1/1 cases passed; selected 1 of 3 cases (tags budget); left out: fast-tool, slow-strict"),
        "{}",
        text(&table.stdout)
    );
    // Nothing selected: an error, never a green run of nothing.
    let output = kagent_evals(&["run", &suite, "--fixture", &grounded, "--tag", "smoke"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("no case selected by tags smoke")
            && stderr.contains("the cases' tags: budget, fast, slow"),
        "{stderr}"
    );
}

#[test]
fn suite_validate_names_file_line_and_field_and_passes_the_examples_and_the_readme() {
    let output = kagent_evals(&["suite", "validate", &path("examples")]);
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        text(&output.stderr)
    );
    assert!(
        stdout.contains("weather-agent is valid (3 cases)"),
        "{stdout}"
    );
    assert!(text(&output.stderr).contains("gitlab-ci.yml is not a suite file; left out"));

    // Every suite fragment the README shows (`spec:` or one of its
    // fields), made a whole EvalSuite: a case added where it shows none.
    let readme = std::fs::read_to_string(path("README.md")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut snippets = 0;
    for (i, block) in readme.split("```yaml\n").skip(1).enumerate() {
        let yaml = block.split("```").next().unwrap();
        let mut spec = if yaml.starts_with("spec:\n") {
            yaml.to_string()
        } else if ["judge:", "select:", "cases:"]
            .iter()
            .any(|f| yaml.starts_with(f))
        {
            let indented: Vec<String> = yaml.lines().map(|l| format!("  {l}")).collect();
            format!("spec:\n{}\n", indented.join("\n"))
        } else {
            continue;
        };
        if !spec.contains("\n  cases:") {
            spec.push_str("  cases:\n    - {name: shown-elsewhere, evaluators: [{name: t, type: toolsUsed, toolsUsed: {expected: [a]}}]}\n");
        }
        let manifest = format!(
            "apiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata: {{name: readme-{i}}}\n{spec}"
        );
        std::fs::write(dir.path().join(format!("readme-{i}.yaml")), manifest).unwrap();
        snippets += 1;
    }
    assert!(snippets >= 3, "the README's suite fragments: {snippets}");
    let output = kagent_evals(&["suite", "validate", dir.path().to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));

    // A rule the API server states in CEL, said at its line and field.
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        "apiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata:\n  name: bad\nspec:\n  cases:\n    - name: a\n      match: {contains: x, regex: y}\n      evaluators: [{name: t, type: toolsUsed, toolsUsed: {mode: superset, expected: [a]}}]\n",
    )
    .unwrap();
    let output = kagent_evals(&["suite", "validate", bad.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let said = text(&output.stdout);
    assert!(
        said.contains("bad.yaml:8:")
            && said.contains("spec.cases[0].match: match needs exactly one of contains or regex"),
        "{said}"
    );
}

#[test]
fn run_over_a_folder_runs_every_suite_in_it_with_one_exit_code() {
    let grounded = session("weather-grounded");
    let (code, report, stderr) = json_run(&[&path("examples"), "--fixture", &grounded]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(report["suite"], "weather-agent");
    assert!(
        stderr.contains("weather-grounded.jsonl is not a suite file; left out"),
        "{stderr}"
    );

    let dir = tempfile::tempdir().unwrap();
    tagged_suite(dir.path());
    std::fs::create_dir(dir.path().join("more")).unwrap();
    std::fs::copy(
        path("examples/weather/suite.yaml"),
        dir.path().join("more/weather.yaml"),
    )
    .unwrap();
    let (code, report, stderr) = json_run(&[
        dir.path().to_str().unwrap(),
        "--fixture",
        &session("weather-wrong-city"),
    ]);
    assert_eq!(code, Some(1), "the worst of the two: {stderr}");
    let suites: Vec<&str> = report
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["suite"].as_str().unwrap())
        .collect();
    assert_eq!(
        suites,
        ["weather-agent", "tagged"],
        "in path order: more/weather.yaml, tagged.yaml"
    );
}

#[test]
fn sessions_preview_shows_each_first_user_message_only_when_asked() {
    let plain = text(&kagent_evals(&["sessions", "--fixture", &path(SESSIONS)]).stdout);
    assert!(
        !plain.contains("London"),
        "content only on request: {plain}"
    );
    let output = kagent_evals(&["sessions", "--fixture", &path(SESSIONS), "--preview"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let listed = text(&output.stdout);
    let header: Vec<&str> = listed.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header[header.len() - 3..], ["FIRST", "USER", "MESSAGE"]);
    assert_eq!(
        listed.matches("current weather in London").count(),
        3,
        "{listed}"
    );
}
