//! What an agent writes into its records never steers the terminal that
//! shows it: the text outputs (`extract --summary`, `run` as a table,
//! Markdown or JUnit; `sessions` in the integration tests) and stderr show
//! an ESC, BEL, CR or U+202E as an escape, not raw; so does the HTML page.
//! JSON keeps them as data, in its own escaping.

use std::path::Path;
use std::process::{Command, Output};

const ESC: char = '\u{1b}';

fn kagent_evals(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// A session whose tool name sets the window title and whose texts and
/// arguments clear the screen, return the carriage and reverse what
/// follows.
fn hostile_session(dir: &Path) -> String {
    let tool = format!("get_weather{ESC}]0;pwned\u{7}");
    let events = [
        serde_json::json!({"author": "user", "invocation_id": "i1", "content": {"role": "user",
            "parts": [{"text": format!("weather in Paris?{ESC}[2J")}]}}),
        serde_json::json!({"author": "weather-agent", "invocation_id": "i1", "content": {"role": "model",
            "parts": [{"function_call": {"id": "c1", "name": tool, "args": {"city": "Paris\u{202e}"}}}]}}),
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

    // `run` of the suite on the session as `format`: the tool is not the
    // one expected.
    let run = |format: &str, more: &[&str]| {
        let suite = suite.to_str().unwrap();
        let mut args = vec!["run", suite, "--fixture", &fixture, "--format", format];
        args.extend(more);
        let run = kagent_evals(&args);
        assert_eq!(run.status.code(), Some(1), "{format}");
        run
    };
    for format in ["table", "markdown", "junit"] {
        assert_shown_not_sent(&run(format, &[]), format);
    }
    // JSON keeps the names as they were, escaped by JSON itself.
    let json = kagent_evals(&["extract", "s", "--fixture", &fixture]);
    let text = String::from_utf8_lossy(&json.stdout);
    assert!(text.contains(r"get_weather\u001b]0;pwned\u0007"), "{text}");

    // The report as JSON holds the texts as data, U+202E included; its
    // page shows them escaped (JUnit, read by CI tools, held none above).
    let report = dir.path().join("report.json");
    run(
        "json",
        &["--include-trajectories", "-o", report.to_str().unwrap()],
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let answer = &json["cases"][0]["sessions"][0]["trajectory"][3]["content"];
    assert_eq!(answer, "It is sunny\r\u{202e}ynnus\u{8}", "{json}");
    let page = dir.path().join("report.html");
    let shown = kagent_evals(&[
        "report",
        report.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]);
    assert!(shown.status.success());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        steering(&html).iter().all(|c| *c == '\t'),
        "{:?}",
        steering(&html)
    );
    assert!(html.contains(r"get_weather\u{1b}]0;pwned\u{7}"), "{html}");
    assert!(html.contains(r"Paris\u{202e}"), "{html}");
}
