//! kagent's A2A task records, as each of its Python runtimes stored them
//! (tests/data/kagent-tasks/, see SOURCE.md there), read as sessions: the
//! trajectories written here by hand from the conversion rules, the same
//! trajectory from an ADK session's events as from its tasks, and a task
//! that cannot be read failing its session closed.

use kagent_evals::core::convert::{ConvertOptions, convert};
use kagent_evals::core::session::Session;
use kagent_evals::core::session::SessionKey;
use kagent_evals::core::task::{Record, RecordChoice};
use kagent_evals::core::trajectory::Message;
use kagent_evals::source::fixture::FixtureSource;
use kagent_evals::source::{SessionSource, SourceError};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/kagent-tasks")
        .join(path)
}

/// The task store as kagent keeps it, one line per task: the last body the
/// runtime saved under each id, in the order the tasks were created.
fn stored_tasks(runtime_case: &str) -> String {
    let bodies: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(data(&format!("{runtime_case}.json"))).unwrap(),
    )
    .unwrap();
    let mut order: Vec<&str> = Vec::new();
    for body in &bodies {
        let id = body["id"].as_str().unwrap();
        if !order.contains(&id) {
            order.push(id);
        }
    }
    order
        .iter()
        .map(|id| {
            let last = bodies.iter().rev().find(|b| b["id"] == *id).unwrap();
            format!("{last}\n")
        })
        .collect()
}

/// An ADK session's events as kagent-adk posted them.
fn stored_events(runtime_case: &str) -> String {
    let rows: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(data(&format!("{runtime_case}.session-events.json"))).unwrap(),
    )
    .unwrap();
    rows.iter()
        .map(|row| {
            let event: Value = serde_json::from_str(row["data"].as_str().unwrap()).unwrap();
            format!("{event}\n")
        })
        .collect()
}

fn session_of(text: &str, record: RecordChoice) -> Result<Session, SourceError> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("session.jsonl");
    std::fs::write(&file, text).unwrap();
    let source = FixtureSource::open(&file)?;
    let found = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(source.fetch(&[SessionKey::new("s", None)], None, record))?;
    Ok(found.into_iter().next().unwrap().normalise())
}

fn messages(session: &Session) -> Vec<Message> {
    convert(&session.events, &ConvertOptions::default()).messages
}

/// A trajectory written as lines: `user: TEXT`, `assistant: TEXT`,
/// `call NAME ARGS`, `tool NAME: CONTENT`.
fn lines(messages: &[Message]) -> Vec<String> {
    let mut out = Vec::new();
    for m in messages {
        match (m.role.as_str(), &m.tool_calls) {
            ("assistant", Some(calls)) => {
                for call in calls {
                    out.push(format!(
                        "call {} {}",
                        call.function.name,
                        call.function.arguments.as_str().unwrap()
                    ));
                }
            }
            ("tool", _) => out.push(format!(
                "tool {}: {}",
                m.name.as_deref().unwrap_or("?"),
                m.content_text()
            )),
            (role, _) => out.push(format!("{role}: {}", m.content_text())),
        }
    }
    out
}

const WEATHER: &[&str] = &[
    "user: What is the weather in London?",
    r#"call get_weather {"city": "London"}"#,
    "tool get_weather: Sunny, 21 degrees Celsius in London.",
    "assistant: It is sunny and 21 degrees Celsius in London.",
];

#[test]
fn each_runtimes_tasks_read_as_the_trajectory_the_rules_give() {
    let approve = [
        "user: Please delete /tmp/old.log",
        r#"call delete_file {"path": "/tmp/old.log"}"#,
        "tool delete_file: Deleted /tmp/old.log.",
        "assistant: Done: /tmp/old.log is deleted.",
    ];
    let cases: &[(&str, &[&str])] = &[
        ("adk/tool-call", WEATHER),
        ("adk/tool-call-stream", WEATHER),
        ("adk/user-header", WEATHER),
        (
            "adk/no-tool",
            &[
                "user: What is the weather in Paris?",
                "assistant: Paris is usually mild in spring; I did not look it up.",
            ],
        ),
        // The approval request is the runtime's (adk_*); the decision is a
        // data part of no tool type.
        ("adk/hitl-approve", &approve),
        (
            "adk/hitl-reject",
            &[
                "user: Please delete /tmp/keep.log",
                r#"call delete_file {"path": "/tmp/keep.log"}"#,
                "tool delete_file: Tool call was rejected by user. Reason: I still need that file",
                "assistant: I did not delete /tmp/keep.log, as you declined.",
            ],
        ),
        // The tool raised: the call stands without a result, the task failed.
        (
            "adk/tool-error",
            &[
                "user: Where is my order A-17?",
                r#"call lookup_order {"order_id": "A-17"}"#,
            ],
        ),
        // LangGraph records a bare result, read as ADK's {"result": ...}.
        ("langgraph/tool-call", WEATHER),
        ("langgraph/tool-call-stream", WEATHER),
        ("langgraph/hitl-approve", &approve),
        (
            "langgraph/tool-error",
            &[
                "user: Where is my order A-17?",
                r#"call lookup_order {"order_id": "A-17"}"#,
                "tool lookup_order: Error: ValueError('order A-17 does not exist')\n Please fix your mistakes.",
                "assistant: I could not find order A-17.",
            ],
        ),
        // CrewAI: arguments as JSON text, a result named after its tool
        // class, progress lines that are not the agent's words.
        ("crewai/tool-call", WEATHER),
        (
            "crewai/tool-error",
            &[
                "user: Where is my order A-17?",
                r#"call lookup_order {"order_id": "A-17"}"#,
                r#"call lookup_order {"order_id": "A-17"}"#,
                r#"call lookup_order {"order_id": "A-17"}"#,
                "assistant: I could not find order A-17.",
            ],
        ),
        // OpenAI Agents SDK: a handoff to its own agent first, and results
        // with fresh ids.
        ("openai/tool-call", WEATHER),
        (
            "openai/tool-error",
            &[
                "user: Where is my order A-17?",
                r#"call lookup_order {"order_id": "A-17"}"#,
                "tool lookup_order: An error occurred while running the tool. Please try again.",
                "assistant: I could not find order A-17.",
            ],
        ),
    ];
    for (case, expected) in cases {
        let session = session_of(&stored_tasks(case), RecordChoice::Auto).unwrap();
        assert_eq!(session.record, Record::Tasks, "{case}");
        assert!(session.issues.is_empty(), "{case}: {:?}", session.issues);
        assert_eq!(lines(&messages(&session)), *expected, "{case}");
    }
}

#[test]
fn an_adk_session_reads_the_same_from_its_events_and_its_tasks() {
    for case in [
        "tool-call",
        "tool-call-stream",
        "user-header",
        "no-tool",
        "hitl-approve",
        "hitl-reject",
        "tool-error",
    ] {
        let case = format!("adk/{case}");
        let from_events = session_of(&stored_events(&case), RecordChoice::Auto).unwrap();
        let from_tasks = session_of(&stored_tasks(&case), RecordChoice::Auto).unwrap();
        assert_eq!(from_events.record, Record::Events);
        assert_eq!(messages(&from_events), messages(&from_tasks), "{case}");
    }
    // A record the file does not hold is an error, not an empty session.
    let error = session_of(&stored_tasks("adk/tool-call"), RecordChoice::Events).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("holds A2A tasks, not ADK events"),
        "{error}"
    );
}

#[test]
fn a_task_that_cannot_be_read_fails_its_session_closed() {
    let good = stored_tasks("langgraph/tool-call");
    let broken = good.replacen(
        "\"kagent_type\": \"function_call\"",
        "\"kagent_type\": \"function_cal\"",
        1,
    );
    let broken = if broken == good {
        good.replacen(
            "\"kagent_type\":\"function_call\"",
            "\"kagent_type\":\"function_cal\"",
            1,
        )
    } else {
        broken
    };
    assert_ne!(broken, good);
    let session = session_of(&broken, RecordChoice::Auto).unwrap();
    assert_eq!(session.issues.len(), 1);
    assert!(
        session.issues[0]
            .message
            .contains("unknown type \"function_cal\""),
        "{:?}",
        session.issues
    );

    // Run as a suite, the session is not scored: the gate cannot pass.
    let dir = tempfile::tempdir().unwrap();
    let fixture = dir.path().join("lg.jsonl");
    std::fs::write(&fixture, &broken).unwrap();
    let suite = dir.path().join("suite.yaml");
    std::fs::write(
        &suite,
        "apiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata: {name: t}\nspec:\n  cases:\n    - name: weather\n      sessionId: lg\n      evaluators:\n        - {name: tools, type: toolsUsed, toolsUsed: {expected: [get_weather], mode: subset}}\n",
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args([
            "run",
            suite.to_str().unwrap(),
            "--fixture",
            fixture.to_str().unwrap(),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_ne!(output.status.code(), Some(0));
    let session = &report["cases"][0]["sessions"][0];
    assert_eq!(session["unreadable"], true, "{report}");
    assert_eq!(session["record"], "tasks");

    std::fs::write(&fixture, &good).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
        .args([
            "run",
            suite.to_str().unwrap(),
            "--fixture",
            fixture.to_str().unwrap(),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

#[test]
fn a_session_whose_last_task_failed_fails_its_case_unless_the_suite_scores_it() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = dir.path().join("order.jsonl");
    std::fs::write(&fixture, stored_tasks("adk/tool-error")).unwrap();
    // The agent called the right tool, which raised: the evaluator alone
    // would pass the case.
    let run = |extra: &str, format: &str| {
        let suite = dir.path().join("suite.yaml");
        std::fs::write(
            &suite,
            format!("apiVersion: evals.kagent.dev/v1alpha1\nkind: EvalSuite\nmetadata: {{name: t}}\nspec:\n{extra}  cases:\n    - name: order\n      sessionId: order\n      evaluators:\n        - {{name: tools, type: toolsUsed, toolsUsed: {{expected: [lookup_order], mode: subset}}}}\n"),
        )
        .unwrap();
        Command::new(env!("CARGO_BIN_EXE_kagent-evals"))
            .args(["run", suite.to_str().unwrap(), "--fixture"])
            .arg(&fixture)
            .args(["--format", format])
            .output()
            .unwrap()
    };
    let output = run("", "json");
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let session = &report["cases"][0]["sessions"][0];
    assert_eq!(session["evaluations"][0]["passed"], true);
    assert_eq!(session["passed"], false);
    let error = session["failedTask"]["error"].as_str().unwrap();
    assert!(
        error.ends_with("failed (TASK_FAILED): order A-17 does not exist"),
        "{error}"
    );
    assert_eq!(report["summary"]["failedTasks"], 1);
    assert_eq!(report["summary"].get("failedTasksScored"), None);

    let table = String::from_utf8(run("", "table").stdout).unwrap();
    assert!(table.contains("(last turn)"), "{table}");
    assert!(
        table.contains("1 session(s) ended in a failed task"),
        "{table}"
    );

    // Opting out is explicit and counted.
    let output = run("  failedTasks: score\n", "json");
    assert_eq!(output.status.code(), Some(0));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        report["cases"][0]["sessions"][0]["failedTask"]["failsCase"],
        false
    );
    assert_eq!(report["summary"]["failedTasksScored"], 1);
    assert_eq!(
        run("  failedTasks: ignore\n", "json").status.code(),
        Some(2)
    );
}
