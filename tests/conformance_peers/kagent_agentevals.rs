//! kagent-agentevals' converter, runner and suites, and its own suite
//! files run on the captured sessions: the same trajectories, the same
//! verdicts, or a listed difference with its reason.

use super::vectors;
use kagent_evals::core::convert::{ConvertOptions, convert, split_by_invocation};
use kagent_evals::core::formats::load::load_compiled;
use kagent_evals::core::ingest::{KeepJson, read_jsonl};
use kagent_evals::core::session::{Session, SessionKey};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn session_of_lines(text: &str) -> Session {
    let raw = read_jsonl(text.as_bytes(), "events.jsonl", KeepJson::No).unwrap();
    Session::from_raw(SessionKey::new("s", None), None, raw)
}

fn events_text(events: &[Value]) -> String {
    events.iter().map(|e| format!("{e}\n")).collect()
}

/// kagent-agentevals' converter options as this tool's, with the two
/// settings on which it reads events differently set its way (thoughts
/// kept, MCP envelopes with a third key left whole), as a kagent-agentevals
/// suite sets them.
fn options(options: &Value) -> ConvertOptions {
    let flag = |key: &str, default: bool| options[key].as_bool().unwrap_or(default);
    ConvertOptions {
        drop_internal_tools: flag("drop_internal_tools", true),
        deny_tools: serde_json::from_value(options["extra_tool_denylist"].clone())
            .unwrap_or_default(),
        include_partial: flag("include_partial", false),
        unwrap_tool_output: flag("unwrap_tool_output", true),
        include_thoughts: true,
        unwrap_structured_content: false,
    }
}

#[test]
fn the_converter_gives_kagent_agentevals_trajectories() {
    let mut differences = Vec::new();
    let mut checked = 0;
    for row in vectors("kagent_agentevals/converter.jsonl") {
        let name = row["name"].as_str().unwrap();
        let expected = &row["expected"];
        let text = match (row["fixture"].as_str(), row["events"].as_array()) {
            (Some(fixture), _) => std::fs::read_to_string(root().join(fixture)).unwrap(),
            (None, Some(events)) => events_text(events),
            (None, None) => continue,
        };
        let session = session_of_lines(&text);
        if let Some(split) = expected.get("split") {
            let ours: Vec<Value> = split_by_invocation(&session.events)
                .into_iter()
                .map(|(id, group)| json!([id, group.len()]))
                .collect();
            if &Value::Array(ours.clone()) != split {
                differences.push(format!("{name}: split {ours:?} vs {split}"));
            }
            checked += 1;
            continue;
        }
        let Some(trajectory) = expected.get("trajectory") else {
            continue;
        };
        let events: Vec<_> = match row["invocation_id"].as_str() {
            None => session.events.iter().collect(),
            Some(id) => split_by_invocation(&session.events)
                .into_iter()
                .find(|(group, _)| group == id)
                .map(|(_, events)| events)
                .unwrap_or_default(),
        };
        let conversion = convert(events, &options(&row["options"]));
        let ours = serde_json::to_value(&conversion.messages).unwrap();
        if &ours != trajectory {
            differences.push(format!("{name}:\n  ours   {ours}\n  theirs {trajectory}"));
        }
        checked += 1;
    }
    assert!(
        differences.is_empty(),
        "{checked} checked\n{}",
        differences.join("\n")
    );
}

fn kagent_evals(args: &[&str], cwd: &Path) -> (Option<i32>, Value, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (
        output.status.code(),
        report,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn its_own_suites_give_its_verdicts_on_the_captured_sessions() {
    for row in vectors("kagent_agentevals/suite_runs.jsonl") {
        let name = row["name"].as_str().unwrap();
        let suite = root().join(row["suite_file"].as_str().unwrap());
        let fixture = root().join(row["fixture"].as_str().unwrap());
        let (code, report, stderr) = kagent_evals(
            &[
                "run",
                suite.to_str().unwrap(),
                "--fixture",
                fixture.to_str().unwrap(),
                "--format",
                "json",
            ],
            root(),
        );
        assert_eq!(
            code,
            row["exit_code"].as_i64().map(|c| c as i32),
            "{name}: {stderr}"
        );
        for theirs in row["results"].as_array().unwrap() {
            let case = theirs["case"].as_str().unwrap();
            let ours = report["cases"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["name"] == case)
                .unwrap_or_else(|| panic!("{name}: no case {case}"));
            assert_eq!(ours["passed"], theirs["passed"], "{name} {case}: {ours}");
        }
    }
}

/// A case of the runner's vectors as a suite file would write it: the
/// peer's dump lists every field with its default.
fn case_yaml(case: &Value) -> Value {
    let evaluators: Vec<Value> = case["evaluators"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let kind = e["type"].as_str().unwrap();
            let mut out = json!({"type": kind});
            for key in ["name", "model", "prompt"] {
                if e[key].as_str().is_some_and(|v| !v.is_empty()) {
                    out[key] = e[key].clone();
                }
            }
            for key in ["reference", "expected"] {
                if e[key].as_array().is_some_and(|v| !v.is_empty()) {
                    out[key] = e[key].clone();
                }
            }
            if !e["threshold"].is_null() {
                out["threshold"] = e["threshold"].clone();
            }
            if e["continuous"] == true {
                out["continuous"] = json!(true);
            }
            if kind != "llm_judge" {
                out["mode"] = e["mode"].clone();
            }
            if kind == "trajectory_match" {
                out["tool_args_match_mode"] = e["tool_args_match_mode"].clone();
            }
            out
        })
        .collect();
    let mut out = json!({
        "name": case["name"],
        "session_id": case["session_id"],
        "evaluators": evaluators,
        "drop_internal_tools": case["drop_internal_tools"],
        "extra_tool_denylist": case["extra_tool_denylist"],
    });
    if !case["invocation_id"].is_null() {
        out["invocation_id"] = case["invocation_id"].clone();
    }
    out
}

/// Runner rows this tool answers differently on purpose, and why.
const RUNNER_DIFFERENCES: &[(&str, &str)] = &[
    (
        "load-failure",
        "a source that cannot be read stops the run (exit 2) rather than failing one case",
    ),
    (
        "trajectory-match-empty-reference-at-runtime",
        "refused when the suite loads, as kagent-agentevals' own loader refuses it",
    ),
    (
        "trajectory-match-bad-reference-arguments",
        "a reference call whose arguments are not JSON is refused when the suite loads",
    ),
    (
        "evaluator-construction-failure",
        "a judged suite without a judge endpoint stops before any session is read",
    ),
    (
        "continuous-score-threshold-unused-for-bool",
        "a threshold on tools_used, which never reads one, is refused by name",
    ),
    (
        "no-evaluators",
        "refused when the suite loads, as kagent-agentevals' own loader refuses it",
    ),
];

#[test]
fn the_runner_gives_kagent_agentevals_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let mut checked = 0;
    for row in vectors("kagent_agentevals/runner.jsonl") {
        let name = row["name"].as_str().unwrap();
        if row["kind"] != "run_case" {
            continue;
        }
        let case = &row["case"];
        // The runner's fake source: "missing" has no events, "boom" raises.
        let fixture: PathBuf = match (case["session_id"].as_str(), &row["session"]) {
            (Some("missing"), _) => empty.clone(),
            (Some("boom"), _) => dir.path().join("no-such-file.jsonl"),
            (_, session) if session["fixture"].is_string() => {
                root().join(session["fixture"].as_str().unwrap())
            }
            (_, session) => {
                let file = dir.path().join(format!("{name}.jsonl"));
                std::fs::write(&file, events_text(session["events"].as_array().unwrap())).unwrap();
                file
            }
        };
        let suite = dir.path().join(format!("{name}.yaml"));
        let body = json!({"name": name, "cases": [case_yaml(case)]});
        std::fs::write(&suite, serde_json::to_string_pretty(&body).unwrap()).unwrap();
        let (code, report, stderr) = kagent_evals(
            &[
                "run",
                suite.to_str().unwrap(),
                "--fixture",
                fixture.to_str().unwrap(),
                "--format",
                "json",
            ],
            root(),
        );
        let theirs = &row["result"];
        if let Some((_, why)) = RUNNER_DIFFERENCES.iter().find(|(n, _)| *n == name) {
            assert_eq!(code, Some(2), "{name}: {why}; {stderr}");
            checked += 1;
            continue;
        }
        let ours = &report["cases"][0];
        assert_eq!(ours["passed"], theirs["passed"], "{name}: {ours} {stderr}");
        // The peer's case error (a session it cannot score) is a session
        // that says why here; neither passes.
        if theirs["error"].as_str().is_some_and(|e| !e.is_empty()) {
            assert!(
                ours["sessions"][0]["error"].is_string() || ours["outcome"] == "Error",
                "{name}: {ours}"
            );
        }
        let evaluations = ours["sessions"][0]["evaluations"].as_array();
        for (index, outcome) in theirs["outcomes"].as_array().unwrap().iter().enumerate() {
            let ours = &evaluations.unwrap()[index];
            if outcome["error"].as_str().is_some_and(|e| !e.is_empty()) {
                assert!(ours["error"].is_string(), "{name}: {ours}");
            } else {
                assert_eq!(ours["key"], outcome["key"], "{name}");
                assert_eq!(ours["passed"], outcome["passed"], "{name}: {ours}");
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 27);
}

/// Suite rows whose files this tool reads differently on purpose: each a
/// setting the peer would read as something other than what is written.
const SUITE_DIFFERENCES: &[(&str, &str)] = &[
    (
        "unknown-keys-ignored",
        "an unknown key is refused by name, never ignored",
    ),
    (
        "tools-used-expected-a-string",
        "a string is not a list of tool names",
    ),
    (
        "reference-a-mapping",
        "a mapping is not a reference trajectory",
    ),
    ("llm-judge-bad-mode-not-checked", "llm_judge has no mode"),
    (
        "bad-args-mode-from-defaults",
        "a default is checked even when no evaluator inherits it",
    ),
    (
        "tools-used-unordered-and-subset",
        "tools_used compares names only; an args mode there is refused",
    ),
    (
        "source-block-kept-raw",
        "a source key the kind does not read is refused",
    ),
    (
        "defaults-applied",
        "tools_used compares names only; an args mode there is refused",
    ),
];

#[test]
fn its_suite_files_load_as_it_loads_them() {
    let mut checked = 0;
    for row in vectors("kagent_agentevals/suites.jsonl") {
        let name = row["name"].as_str().unwrap();
        let yaml = match row["yaml"].as_str() {
            Some(yaml) => yaml.to_string(),
            None => std::fs::read_to_string(
                root().join(
                    row["suite_file"]
                        .as_str()
                        .unwrap_or_else(|| panic!("{name}: no yaml or file")),
                ),
            )
            .unwrap(),
        };
        let ours = load_compiled("suite.yaml", &yaml, None);
        let theirs = &row["result"];
        if name == "truthy-strings" {
            // A quoted 'no' is read as no and '0.7' as 0.7, where the peer
            // takes any non-empty string for true and then fails to compare
            // the string threshold.
            let suites = ours.unwrap();
            let case = &suites[0].0.spec.cases[0];
            assert_eq!(case.drop_internal_tools, Some(false));
            let judge = serde_json::to_value(&case.evaluators[0]).unwrap();
            assert_eq!(judge["trajectoryJudge"]["continuous"], Value::Null);
            assert_eq!(judge["trajectoryJudge"]["threshold"], 0.7);
            checked += 1;
            continue;
        }
        if let Some((_, why)) = SUITE_DIFFERENCES.iter().find(|(n, _)| *n == name) {
            assert!(ours.is_err(), "{name}: {why}");
            checked += 1;
            continue;
        }
        match theirs.get("error") {
            Some(error) => {
                assert!(
                    ours.is_err(),
                    "{name}: the peer refuses ({error}); ours {ours:?}"
                )
            }
            None => {
                let suites = ours.unwrap_or_else(|e| panic!("{name}: {e}"));
                let (loaded, _) = &suites[0];
                // The judge model, asked of the judge endpoint without its
                // LangChain provider prefix.
                let models: Vec<&str> = theirs["cases"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|c| c["evaluators"].as_array().unwrap())
                    .filter(|e| e["type"] == "llm_judge")
                    .map(|e| e["model"].as_str().unwrap())
                    .collect();
                let model = loaded.spec.judge.as_ref().and_then(|j| j.model.as_deref());
                let bare = models.first().map(|m| m.rsplit(':').next().unwrap());
                assert_eq!(model, bare, "{name}");
                let cases = theirs["cases"].as_array().unwrap();
                assert_eq!(loaded.spec.cases.len(), cases.len(), "{name}");
                for (ours, theirs) in loaded.spec.cases.iter().zip(cases) {
                    assert_eq!(ours.name, theirs["name"].as_str().unwrap(), "{name}");
                    assert_eq!(
                        ours.session_id.as_deref(),
                        theirs["session_id"].as_str(),
                        "{name}"
                    );
                    // A YAML scalar is read as the string it is written as:
                    // `invocation_id: 7` is invocation "7", where the peer
                    // keeps the number 7 and then matches no invocation.
                    let invocation = match &theirs["invocation_id"] {
                        Value::Number(n) => Some(n.to_string()),
                        other => other.as_str().map(String::from),
                    };
                    assert_eq!(ours.invocation_id, invocation, "{name}");
                    assert_eq!(
                        ours.evaluators.len(),
                        theirs["evaluators"].as_array().unwrap().len()
                    );
                    for (e, t) in ours
                        .evaluators
                        .iter()
                        .zip(theirs["evaluators"].as_array().unwrap())
                    {
                        let label = t["name"]
                            .as_str()
                            .filter(|n| !n.is_empty())
                            .or(t["type"].as_str());
                        assert_eq!(Some(e.name.as_str()), label, "{name}");
                        let ours = serde_json::to_value(e).unwrap();
                        match t["type"].as_str().unwrap() {
                            "tools_used" => {
                                assert_eq!(ours["toolsUsed"]["expected"], t["expected"], "{name}");
                                assert_eq!(ours["toolsUsed"]["mode"], t["mode"], "{name}");
                            }
                            "trajectory_match" => {
                                assert_eq!(
                                    ours["trajectoryMatch"]["reference"], t["reference"],
                                    "{name}"
                                );
                                assert_eq!(ours["trajectoryMatch"]["mode"], t["mode"], "{name}");
                            }
                            "llm_judge" => {
                                let judge = &ours["trajectoryJudge"];
                                assert_eq!(
                                    judge["continuous"].as_bool().unwrap_or(false),
                                    t["continuous"],
                                    "{name}"
                                );
                                let threshold = t["threshold"].as_f64().unwrap_or(0.5);
                                assert_eq!(judge["threshold"].as_f64(), Some(threshold), "{name}");
                            }
                            other => panic!("{name}: {other}"),
                        }
                    }
                }
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 36);
}

#[test]
fn a_continuous_judgement_passes_at_the_peers_default_threshold() {
    // A kagent-agentevals judge without a threshold passes at 0.5, not at
    // this tool's 0.8.
    let yaml =
        "cases: [{session_id: s, evaluators: [{type: llm_judge, model: m, continuous: true}]}]\n";
    let suites = load_compiled("suite.yaml", yaml, None).unwrap();
    let judge = serde_json::to_value(&suites[0].0.spec.cases[0].evaluators[0]).unwrap();
    assert_eq!(judge["trajectoryJudge"]["threshold"], 0.5);
    for row in vectors("kagent_agentevals/runner.jsonl") {
        if row["kind"] != "score_passed" || !row["score"].is_f64() {
            continue;
        }
        let threshold = row["threshold"].as_f64().unwrap_or(0.5);
        let verdict = kagent_evals::core::score::Verdict::threshold(
            "score",
            row["score"].as_f64().unwrap(),
            threshold,
            None,
        );
        assert_eq!(
            Value::Bool(verdict.passed),
            row["passed"],
            "{}",
            row["name"]
        );
    }
}

/// The peer's checkout as its CLI tests see it: suites, the demo and the
/// fixtures at the paths its suites name, relative to the working directory.
fn peer_checkout(dir: &Path) {
    let suites = root().join("tests/conformance/peers/kagent_agentevals/suites");
    let captured = root().join("tests/data/kagent-captured");
    let files = [
        (suites.join("quickstart.yaml"), "suites/quickstart.yaml"),
        (suites.join("live-cluster.yaml"), "suites/live-cluster.yaml"),
        (suites.join("demo-suite.yaml"), "demo/suite.yaml"),
        (
            captured.join("github-assistant-session.jsonl"),
            "tests/fixtures/github-assistant-session.jsonl",
        ),
    ];
    let weather = [
        "weather-grounded",
        "weather-ungrounded",
        "weather-wrong-city",
    ]
    .map(|w| {
        (
            captured.join(format!("{w}.jsonl")),
            format!("demo/fixtures/{w}.jsonl"),
        )
    });
    for (from, to) in files
        .iter()
        .map(|(f, t)| (f.clone(), t.to_string()))
        .chain(weather)
    {
        let to = dir.join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap();
    }
}

/// Exit codes this tool gives on purpose: 1 says a case failed, 2 that
/// the command could not be done.
const CLI_DIFFERENCES: &[(&str, i32, &str)] = &[(
    "extract-unknown-invocation",
    2,
    "nothing was extracted: the command could not be done",
)];

#[test]
fn its_command_lines_exit_as_it_exits_from_its_checkout() {
    let dir = tempfile::tempdir().unwrap();
    peer_checkout(dir.path());
    for row in vectors("kagent_agentevals/cli.jsonl") {
        let name = row["name"].as_str().unwrap();
        let argv: Vec<&str> = row["argv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            // Its flag for printing the trajectory is this tool's JSON report option.
            .map(|a| {
                if a == "--show-trajectory" {
                    "--include-trajectories"
                } else {
                    a
                }
            })
            .collect();
        let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
            .args(&argv)
            .current_dir(dir.path())
            .env_remove("KAGENT_EVALS_DATABASE_URL")
            .output()
            .unwrap();
        let expected = CLI_DIFFERENCES
            .iter()
            .find(|(n, ..)| *n == name)
            .map(|(_, code, _)| *code)
            .or(row["exit_code"].as_i64().map(|c| c as i32));
        assert_eq!(
            output.status.code(),
            expected,
            "{name}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn a_kubectl_source_reads_kagents_database_and_says_so() {
    let file = root().join("tests/conformance/peers/kagent_agentevals/suites/live-cluster.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    let suites = load_compiled("live-cluster.yaml", &text, None).unwrap();
    let (loaded, _) = &suites[0];
    let source = serde_json::to_value(&loaded.spec.source).unwrap();
    assert_eq!(source["type"], "kagentPostgres");
    assert!(
        loaded.notes[0].contains("not through kubectl exec"),
        "{:?}",
        loaded.notes
    );
    let with_password = text.replace(
        "  namespace: kagent",
        "  namespace: kagent\n  password: hunter2",
    );
    let error = load_compiled("live-cluster.yaml", &with_password, None).unwrap_err();
    assert_eq!(error.field.as_deref(), Some("source.password"));
    assert!(!error.to_string().contains("hunter2"), "{error}");
}
