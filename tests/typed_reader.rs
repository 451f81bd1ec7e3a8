//! The typed event reader gives exactly what the general reader gives, on
//! every captured session, conformance vector and generated event, and
//! leaves to the general reader everything it would report or note.

use kagent_evals::core::event::Event;
use kagent_evals::core::ingest::{KeepJson, Origin, parse_event};
use kagent_evals::core::typed::read_event;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Where the typed reader reads an event, the general reader reads the same
/// event from it without an issue; says whether the typed reader read it.
fn agrees(text: &str) -> bool {
    let Some(typed) = read_event(text) else {
        return false;
    };
    let value: Value = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("typed read what serde_json refuses ({e}): {text}"));
    let (general, issues) = Event::from_json(&value);
    assert!(
        issues.is_empty(),
        "typed read what has issues {issues:?}: {text}"
    );
    assert_eq!(typed, general, "{text}");
    let parsed = parse_event(
        text.as_bytes(),
        Origin::Line {
            file: "t.jsonl".into(),
            line: 1,
        },
        KeepJson::Yes,
    )
    .unwrap();
    assert_eq!(*parsed.event.event, general);
    assert!(parsed.note.is_none());
    assert_eq!(parsed.event.value(), Some(value));
    true
}

fn jsonl_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            jsonl_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            found.push(path);
        }
    }
}

/// Every object inside `value` that looks like an ADK event.
fn events_within(value: &Value, found: &mut Vec<Value>) {
    match value {
        Value::Object(obj) => {
            let keys = [
                "author",
                "Author",
                "invocation_id",
                "InvocationID",
                "invocationId",
            ];
            if keys.iter().any(|k| obj.contains_key(*k)) {
                found.push(value.clone());
            }
            obj.values().for_each(|v| events_within(v, found));
        }
        Value::Array(items) => items.iter().for_each(|v| events_within(v, found)),
        _ => {}
    }
}

#[test]
fn every_captured_line_reads_alike_and_almost_all_take_the_typed_path() {
    let mut files = Vec::new();
    jsonl_files(Path::new("tests/data"), &mut files);
    assert!(files.len() >= 10, "{files:?}");
    let (mut lines, mut typed) = (0usize, 0usize);
    for file in &files {
        for line in std::fs::read_to_string(file).unwrap().lines() {
            if line.trim().is_empty() {
                continue;
            }
            lines += 1;
            typed += usize::from(agrees(line));
        }
    }
    // Task records and API rows are the general reader's; events are not.
    assert!(
        typed * 10 >= lines * 7,
        "{typed} of {lines} lines read typed"
    );
}

#[test]
fn every_event_in_the_conformance_vectors_reads_alike() {
    let mut files = Vec::new();
    jsonl_files(Path::new("tests/conformance"), &mut files);
    let mut events = Vec::new();
    for file in &files {
        for line in std::fs::read_to_string(file).unwrap().lines() {
            if let Ok(value) = serde_json::from_str::<Value>(line) {
                events_within(&value, &mut events);
            }
        }
    }
    assert!(events.len() > 500, "{} events", events.len());
    let typed = events
        .iter()
        .filter(|event| agrees(&event.to_string()))
        .count();
    assert!(
        typed * 2 > events.len(),
        "{typed} of {} read typed",
        events.len()
    );
}

/// Inputs the general reader reports, notes or chooses in, which the typed
/// reader must leave to it.
#[test]
fn what_the_general_reader_would_report_or_choose_is_left_to_it() {
    let left = [
        r#"{"author": 7}"#,
        r#"{"id": "a", "id": null}"#,
        r#"{"invocation_id": "a", "invocationId": "b"}"#,
        r#"{"author": "a", "grounding": 1e400}"#,
        r#"{"author": "a", "timestamp": "yesterday"}"#,
        r#"{"author": "a", "timestamp": 1e300}"#,
        r#"{"data": "{\"author\": \"user\"}"}"#,
        r#"{"kind": "task", "id": "t"}"#,
        r#"{"history": [], "status": {}}"#,
        r#"{"content": {"parts": ["text"]}}"#,
        r#"{"content": {"parts": [{"function_call": "x", "function_response": {"name": "f"}}]}}"#,
        r#"{"content": {"parts": [{"text": "hi", "thought": "yes"}]}}"#,
        r#"{"usage_metadata": {"total_token_count": -1}}"#,
        r#"{"usage_metadata": {"total_token_count": 1.0}}"#,
        r#"{"actions": {"end_of_agent": 1}}"#,
        r#"{"error_code": []}"#,
        r#"[{"author": "a"}]"#,
        r#"{"author": "a"} trailing"#,
    ];
    for text in left {
        assert_eq!(read_event(text), None, "{text}");
    }
    let deep = format!(
        r#"{{"author": "a", "x": {}1{}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    assert_eq!(read_event(&deep), None);
    // Null is absent, in the typed reader as in the general one.
    assert!(agrees(
        r#"{"id": null, "ID": "x", "partial": null, "content": null}"#
    ));
    assert!(agrees(
        r#"{"content": {"parts": [{"function_call": null, "functionCall": {"name": "f", "args": {"b": 1, "a": [1.5, "x"]}}}]}}"#
    ));
    assert!(agrees(
        r#"{"error_code": 5, "ErrorMessage": "m", "timestamp": 0.5, "Timestamp": null}"#
    ));
    assert!(agrees(
        r#"{"Timestamp": "0001-01-01T00:00:00Z", "Actions": {"EndOfAgent": true}}"#
    ));
}

#[test]
fn argument_key_order_is_kept() {
    let text = r#"{"content": {"parts": [{"function_call": {"name": "f", "args": {"z": 1, "a": {"y": 2, "b": 3}}}}]}}"#;
    let event = read_event(text).unwrap();
    let kagent_evals::core::event::Content::Parts { parts, .. } = event.content else {
        panic!()
    };
    let kagent_evals::core::event::Part::FunctionCall { args, .. } = &parts[0] else {
        panic!()
    };
    assert_eq!(args.to_string(), r#"{"z":1,"a":{"y":2,"b":3}}"#);
}

/// JSON shaped like an event in each spelling, with fields of every type.
fn event_like() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "id",
        "ID",
        "author",
        "Author",
        "invocation_id",
        "InvocationID",
        "invocationId",
        "timestamp",
        "Timestamp",
        "partial",
        "Partial",
        "content",
        "Content",
        "parts",
        "Parts",
        "role",
        "text",
        "Text",
        "thought",
        "function_call",
        "functionCall",
        "FunctionCall",
        "function_response",
        "functionResponse",
        "name",
        "args",
        "Args",
        "response",
        "usage_metadata",
        "usageMetadata",
        "total_token_count",
        "promptTokenCount",
        "actions",
        "end_of_agent",
        "EndOfAgent",
        "error_code",
        "errorMessage",
        "model_version",
        "other",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (0u64..1_000_000).prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        prop::sample::select(vec!["user", " ", "2026-09-03T20:04:56Z", "x"]).prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6).prop_map(|entries| {
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect(),
                )
            }),
        ]
    })
}

proptest! {
    #[test]
    fn generated_events_read_alike(value in event_like()) {
        agrees(&value.to_string());
    }

    #[test]
    fn generated_contents_read_alike(content in event_like(), role in "[a-z]{0,5}") {
        let event = json!({"author": "a", "content": {"role": role, "parts": [content]}});
        agrees(&event.to_string());
    }
}
