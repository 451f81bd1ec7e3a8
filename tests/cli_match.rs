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
