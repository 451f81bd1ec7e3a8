//! `kagent-evals sessions` and `capture` through the binary, on ADK's own
//! SQLite database (tests/data/adk-database, written by google-adk).

use std::process::{Command, Output};

fn kagent_evals(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn database() -> String {
    format!(
        "sqlite://{}/tests/data/adk-database/sessions.db",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn sessions_lists_id_user_agent_events_and_update() {
    let db = database();
    let output = kagent_evals(&[
        "sessions",
        "--source",
        "adk-database",
        "--database-url",
        &db,
        "--adk-app",
        "weather_app",
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        ["SESSION", "USER", "AGENT", "EVENTS", "UPDATED"]
    );
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines.iter().any(|l| l.split_whitespace().take(4).eq([
            "grounded",
            "bob",
            "weather_app",
            "6"
        ])),
        "{text}"
    );
    let output = kagent_evals(&[
        "sessions",
        "--source",
        "adk-database",
        "--database-url",
        &db,
        "--adk-app",
        "weather_app",
        "--limit",
        "1",
    ]);
    assert_eq!(String::from_utf8_lossy(&output.stdout).lines().count(), 2);
}

#[test]
fn capture_writes_a_redacted_fixture_that_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bob.jsonl");
    let db = database();
    let output = kagent_evals(&[
        "capture",
        "grounded",
        "--user",
        "bob",
        "--source",
        "adk-database",
        "--database-url",
        &db,
        "--adk-app",
        "weather_app",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("wrote 6 events to"));
    let suite = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/weather/suite.yaml");
    let output = kagent_evals(&["run", suite, "--fixture", out.to_str().unwrap()]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "bob's session is the wrong-city one"
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("2/3 cases passed"));

    let output = kagent_evals(&[
        "capture",
        "grounded",
        "--source",
        "adk-database",
        "--database-url",
        &db,
        "--adk-app",
        "weather_app",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("belongs to 2 users"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
