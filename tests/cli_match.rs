//! `kagent-evals match` through the binary: output line and exit codes.

use serde_json::{Value, json};
use std::process::Command;

fn run_match(outputs: &Value, reference: &str, extra: &[&str]) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("outputs.json");
    let reference_path = dir.path().join("reference.yaml");
    std::fs::write(&out, outputs.to_string()).unwrap();
    std::fs::write(&reference_path, reference).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args([
            "match",
            "--outputs",
            out.to_str().unwrap(),
            "--reference",
            reference_path.to_str().unwrap(),
        ])
        .args(extra)
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn paris() -> Value {
    json!([
        {"role": "user", "content": "weather in London?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"Paris\", \"units\": \"c\"}"}}
        ]}
    ])
}

const LONDON: &str = r#"
- role: user
  content: weather in London?
- role: assistant
  tool_calls:
    - function: {name: weather, arguments: {city: London}}
"#;

#[test]
fn prints_the_agentevals_result_line_and_exits_by_score() {
    let (code, stdout, _) = run_match(&paris(), LONDON, &["--mode", "strict"]);
    assert_eq!(code, Some(1));
    let line: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(line["key"], "trajectory_strict_match");
    assert_eq!(line["score"], false);
    assert_eq!(
        line["comment"],
        "message 2: output call 1 `weather` has no partner: reference call 1 of that name: `city` differs (output: a string of 5 characters, reference: a string of 6 characters)"
    );

    let (code, stdout, _) = run_match(
        &paris(),
        LONDON,
        &["--mode", "superset", "--override", "weather=ignore"],
    );
    assert_eq!(code, Some(0));
    assert_eq!(
        serde_json::from_str::<Value>(&stdout).unwrap(),
        json!({"key": "trajectory_superset_match", "score": true, "comment": null})
    );

    let london_in_celsius = LONDON.replace("{city: London}", "{city: London, units: c}");
    let (code, _, _) = run_match(
        &paris(),
        &london_in_celsius,
        &["--mode", "superset", "--override", "weather=units,"],
    );
    assert_eq!(code, Some(0), "only `units` is compared");
    let (code, stdout, _) = run_match(
        &paris(),
        LONDON,
        &["--mode", "superset", "--override", "weather=units,"],
    );
    assert_eq!(code, Some(1), "a key missing on one side differs");
    assert!(
        stdout.contains("`units` is missing in the reference"),
        "{stdout}"
    );
}

#[test]
fn errors_exit_two_with_a_message() {
    let (code, _, stderr) = run_match(&paris(), LONDON, &["--mode", "sometimes"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("unknown trajectory match mode `sometimes`"),
        "{stderr}"
    );

    let bad = json!([{"role": "assistant", "tool_calls": [{"function": {"name": "weather", "arguments": "{nope"}}]}]);
    let (code, stdout, stderr) = run_match(&bad, LONDON, &[]);
    assert_eq!(code, Some(2));
    assert!(stdout.is_empty());
    assert!(
        stderr.contains(
            "outputs.json: message 1, tool call 1 (`weather`): arguments are not valid JSON"
        ),
        "{stderr}"
    );

    let (code, _, stderr) = run_match(&paris(), "- role: [unclosed", &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("reference.yaml"), "{stderr}");
}

fn run_cases(lines: &[Value], extra: &[&str]) -> (Option<i32>, Vec<Value>, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cases.jsonl");
    let text: Vec<String> = lines
        .iter()
        .map(|l| match l {
            Value::String(raw) => raw.clone(),
            other => other.to_string(),
        })
        .collect();
    std::fs::write(&path, text.join("\n")).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args(["match", "--cases", path.to_str().unwrap()])
        .args(extra)
        .output()
        .unwrap();
    let results = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (
        output.status.code(),
        results,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_cases_file_scores_every_line_and_reports_bad_ones_by_number() {
    let london: Value = json!([
        {"role": "user", "content": "weather in London?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"London\"}"}}
        ]}
    ]);
    let agrees = json!({"name": "same", "outputs": london, "reference": london});
    let differs = json!({"name": "paris", "outputs": paris(), "reference": london});
    let forgiven =
        json!({"name": "ignored", "args_mode": "ignore", "outputs": paris(), "reference": london});

    let (code, results, stderr) = run_cases(&[agrees.clone(), differs.clone()], &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["name"], "same");
    assert_eq!(results[0]["score"], true);
    assert_eq!(results[1]["score"], false);
    assert!(
        stderr.contains("1 passed, 1 failed, 0 could not be scored"),
        "{stderr}"
    );

    let (code, results, _) = run_cases(&[agrees.clone(), forgiven], &["--mode", "superset"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        results[1]["key"], "trajectory_superset_match",
        "the flag is the default"
    );

    let (code, results, stderr) = run_cases(
        &[
            agrees,
            Value::String(String::new()),
            Value::String("{not json".into()),
            differs,
        ],
        &[],
    );
    assert_eq!(
        code,
        Some(2),
        "a case that could not be scored makes the run an error"
    );
    assert_eq!(
        results.len(),
        3,
        "the blank line is skipped, the rest scored"
    );
    assert_eq!(results[1]["line"], 3);
    assert!(
        results[1]["error"]
            .as_str()
            .unwrap()
            .contains("cases.jsonl:3: "),
        "{}",
        results[1]
    );
    assert_eq!(results[2]["name"], "paris");
    assert!(
        stderr.contains("1 passed, 1 failed, 1 could not be scored"),
        "{stderr}"
    );
}

#[test]
fn cases_past_a_chunk_and_a_long_blank_run_are_all_scored_in_file_order() {
    let london: Value = json!([
        {"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"London\"}"}}
        ]}
    ]);
    let mut lines: Vec<Value> = (0..1500)
        .map(|n| {
            let outputs = if n % 3 == 0 { paris() } else { london.clone() };
            json!({"name": format!("case-{n}"), "outputs": outputs, "reference": london})
        })
        .collect();
    // More blank lines than a chunk holds, then one last case.
    lines.extend(std::iter::repeat_n(Value::String(String::new()), 2100));
    lines.push(Value::String("{not json".into()));

    let (code, results, stderr) = run_cases(&lines, &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(results.len(), 1501, "{stderr}");
    for (n, result) in results[..1500].iter().enumerate() {
        assert_eq!(result["name"], format!("case-{n}"));
        assert_eq!(result["score"], n % 3 != 0, "{result}");
    }
    assert_eq!(results[1500]["line"], 3601, "{}", results[1500]);
    assert!(
        stderr.contains("1000 passed, 500 failed, 1 could not be scored"),
        "{stderr}"
    );
}
