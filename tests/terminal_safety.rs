//! What an agent writes into its records never steers the terminal that
//! shows it: the text outputs (`extract --summary`, `run` as a table or
//! Markdown) and stderr show an ESC, BEL, CR or U+202E as an escape, not
//! raw. JSON is left to its own escaping.

use std::path::Path;
use std::process::{Command, Output};

const ESC: char = '\u{1b}';

fn kagent_evals(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// A session whose tool name sets the window title and whose texts clear
/// the screen, return the carriage and reverse what follows.
fn hostile_session(dir: &Path) -> String {
    let tool = format!("get_weather{ESC}]0;pwned\u{7}");
    let events = [
        serde_json::json!({"author": "user", "invocation_id": "i1", "content": {"role": "user",
            "parts": [{"text": format!("weather in Paris?{ESC}[2J")}]}}),
        serde_json::json!({"author": "weather-agent", "invocation_id": "i1", "content": {"role": "model",
            "parts": [{"function_call": {"id": "c1", "name": tool, "args": {"city": "Paris"}}}]}}),
        serde_json::json!({"author": "weather-agent", "invocation_id": "i1", "content": {"role": "user",
            "parts": [{"function_response": {"id": "c1", "name": tool, "response": {"result": "sunny"}}}]}}),
        serde_json::json!({"author": "weather-agent", "invocation_id": "i1", "content": {"role": "model",
            "parts": [{"text": "It is sunny\r\u{202e}ynnus\u{8}"}]}}),
    ];
    let path = dir.join("hostile.jsonl");
    let lines: Vec<String> = events.iter().map(|e| e.to_string()).collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path.display().to_string()
}

/// Every character that would steer a terminal, in `text`.
fn steering(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| (c.is_control() && *c != '\n') || ('\u{202a}'..='\u{202e}').contains(c))
        .collect()
}

fn assert_shown_not_sent(output: &Output, what: &str) {
    for (stream, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            steering(&text).is_empty(),
            "{what} {stream}: {:?}\n{text}",
            steering(&text)
        );
    }
}

#[test]
fn a_hostile_record_is_shown_escaped_in_every_text_output() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = hostile_session(dir.path());
    let suite = dir.path().join("suite.yaml");
    std::fs::write(
        &suite,
        "apiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata: {name: hostile}\nspec:\n  cases:\n  - name: uses-the-tool\n    evaluators:\n    - {name: tools, type: toolsUsed, toolsUsed: {expected: [get_weather]}}\n",
    )
    .unwrap();
    let summary = kagent_evals(&["extract", "s", "--fixture", &fixture, "--summary"]);
    assert_eq!(summary.status.code(), Some(0));
    assert_shown_not_sent(&summary, "extract --summary");
    let shown = String::from_utf8_lossy(&summary.stdout);
    assert!(
        shown.contains(r"call get_weather\u{1b}]0;pwned\u{7}"),
        "{shown}"
    );
    assert!(shown.contains(r"\u{202e}ynnus"), "{shown}");
    // One row per event: nothing a field held drew a row of its own.
    assert_eq!(shown.lines().count(), 6, "{shown}");

    for format in ["table", "markdown"] {
        let run = kagent_evals(&[
            "run",
            suite.to_str().unwrap(),
            "--fixture",
            &fixture,
            "--format",
            format,
        ]);
        assert_eq!(
            run.status.code(),
            Some(1),
            "the tool was not the one expected"
        );
        assert_shown_not_sent(&run, format);
    }
    // JSON keeps the names as they were, escaped by JSON itself.
    let json = kagent_evals(&["extract", "s", "--fixture", &fixture]);
    let text = String::from_utf8_lossy(&json.stdout);
    assert!(text.contains(r"get_weather\u001b]0;pwned\u0007"), "{text}");
}
