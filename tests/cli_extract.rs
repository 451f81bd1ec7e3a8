//! `kagent-evals extract` end to end, through the binary.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn extract(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .arg("extract")
        .args(args)
        .output()
        .expect("binary runs")
}

fn captured(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/kagent-captured")
        .join(name)
        .display()
        .to_string()
}

fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)))
}

#[test]
fn malformed_lines_are_each_reported_and_the_good_events_survive() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.jsonl");
    let user =
        r#"{"author": "user", "invocation_id": "i", "content": {"parts": [{"text": "hello"}]}}"#;
    let reply = r#"{"author": "agent", "invocation_id": "i", "content": {"parts": [{"text": "hi there"}]}}"#;
    let mut bytes = Vec::new();
    bytes.extend_from_slice(user.as_bytes());
    bytes.extend_from_slice(b"\n{\"author\": \"agent\", oops\n");
    bytes.extend_from_slice(b"\"just a string\"\n");
    bytes.extend_from_slice(
        b"{\"author\": \"agent\", \"content\": {\"parts\": [{\"text\": \"\xc3\x28\"}]}}\n",
    );
    bytes.extend_from_slice(
        format!("{{\"a\": {}{}}}\n", "[".repeat(300), "]".repeat(300)).as_bytes(),
    );
    bytes.extend_from_slice(&vec![b' '; 17 << 20]);
    bytes.extend_from_slice(b"x\n");
    bytes.extend_from_slice(
        br#"{"author": "agent", "timestamp": "yesterday", "content": {"parts": [{"text": 5}]}}"#,
    );
    bytes.push(b'\n');
    bytes.extend_from_slice(reply.as_bytes());
    std::fs::write(&path, bytes).unwrap();

    let output = extract(&["s", "--fixture", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let file = path.display();
    for expected in [
        format!("warning: {file}:2: not JSON"),
        format!("warning: {file}:3: expected a JSON object, found a string"),
        format!("warning: {file}:4: not UTF-8"),
        format!("warning: {file}:5: nested deeper than 128 levels"),
        format!(
            "warning: {file}:6: line is {} bytes, over the 16 MiB limit",
            (17 << 20) + 1
        ),
        format!("note: {file}:7: field `timestamp`: not a valid time: its latency unmeasured"),
        format!(
            "warning: {file}:7: field `content.parts[0].text`: expected a string, found a number"
        ),
    ] {
        assert!(
            stderr.contains(&expected),
            "missing {expected:?} in:\n{stderr}"
        );
    }
    assert_eq!(output.status.code(), Some(1), "a partial read exits 1");
    assert_eq!(
        stdout_json(&output),
        serde_json::json!([
            {"role": "user", "content": "hello"},
            {"role": "assistant", "content": "hi there"}
        ])
    );
}

#[test]
fn a_clean_read_exits_zero_and_a_missing_file_exits_two() {
    let output = extract(&["s", "--fixture", &captured("weather-grounded.jsonl")]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stderr.is_empty());
    let output = extract(&["s", "--fixture", "/nonexistent/session.jsonl"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("error: fixture /nonexistent/session.jsonl is unavailable")
    );
}

#[test]
fn summary_invocations_and_filters() {
    let github = captured("github-assistant-session.jsonl");
    let output = extract(&["s", "--fixture", &github, "--summary"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.lines().next().unwrap().starts_with("#"));
    assert_eq!(
        text.lines().count(),
        16,
        "header, 14 events, footer:\n{text}"
    );
    assert!(
        text.ends_with("14 events, 8 contributed -> 8 messages, tools: ask_user, search_users\n")
    );

    let output = extract(&["s", "--fixture", &github, "--list-invocations"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("header_update"));
    assert!(
        text.contains("e-c51ee408-e4c2-4bee-91aa-feb52996931c   5        4          search_users"),
        "{text}"
    );

    let output = extract(&[
        "s",
        "--fixture",
        &github,
        "--invocation-id",
        "e-c51ee408-e4c2-4bee-91aa-feb52996931c",
    ]);
    let messages = stdout_json(&output);
    assert_eq!(messages.as_array().unwrap().len(), 4);
    assert_eq!(messages[0]["content"], "Try again");

    let output = extract(&[
        "s",
        "--fixture",
        &github,
        "--include-internal",
        "--drop-tool",
        "search_users",
        "--summary",
    ]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("call adk_request_confirmation"), "{text}");
    assert!(text.contains("filtered: search_users"), "{text}");

    let output = extract(&["s", "--fixture", &github, "--invocation-id", "nope"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn raw_output_is_redacted_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("in.jsonl");
    let token = [
        "eyJhbGciOiJSUzI1NiJ9",
        "eyJzdWIiOiJhbGljZSJ9",
        "c2lnbmF0dXJlLXNpZ25hdHVyZQ",
    ]
    .join(".");
    let header = serde_json::json!({
        "invocation_id": "header_update", "author": "system", "content": null,
        "actions": {"state_delta": {"headers": {
            "authorization": format!("Bearer {token}"),
            "x-user-id": "alice@example.com",
            "accept": "*/*"
        }}}
    });
    let user = serde_json::json!({"invocation_id": "i", "author": "user", "content": {"parts": [{"text": "hi"}]}});
    std::fs::write(&source, format!("{header}\n{user}\n")).unwrap();
    let out = dir.path().join("out.jsonl");
    let output = extract(&[
        "s",
        "--fixture",
        source.to_str().unwrap(),
        "--raw",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("wrote 2 events to"), "{stderr}");
    assert!(stderr.contains("redacted 2 secret(s) to REDACTED, at actions.state_delta.headers.authorization, actions.state_delta.headers.x-user-id"), "{stderr}");
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(!written.contains(&token) && !written.contains("alice@example.com"));
    let first: Value = serde_json::from_str(written.lines().next().unwrap()).unwrap();
    assert_eq!(
        first["actions"]["state_delta"]["headers"]["authorization"],
        "REDACTED"
    );
    assert_eq!(first["actions"]["state_delta"]["headers"]["accept"], "*/*");
    // Keys keep their order, so a captured fixture diffs cleanly against the source.
    assert!(
        written
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("{\"invocation_id\":\"i\",\"author\":\"user\"")
    );
}

#[test]
fn arguments_the_scorers_cannot_read_are_written_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    let events = [
        r#"{"id":"e1","invocation_id":"i1","author":"user","content":{"role":"user","parts":[{"text":"restart it"}]}}"#,
        r#"{"id":"e2","invocation_id":"i1","author":"agent","content":{"role":"model","parts":[{"function_call":{"id":"c1","name":"restart","args":["web"]}}]}}"#,
        r#"{"id":"e3","invocation_id":"i1","author":"agent","content":{"role":"model","parts":[{"text":"done"}]}}"#,
    ];
    std::fs::write(&path, events.join("\n")).unwrap();
    let output = extract(&["s", "--fixture", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "warning: the trajectory cannot be scored: message 2, tool call 1 (`restart`)"
        ),
        "{stderr}"
    );
    let messages = stdout_json(&output);
    let roles: Vec<&str> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "assistant"]);
}
