//! One kagent 1.0 Session's rows as the A2A v1 tasks of a conversation,
//! each with the whole of its history in the order it happened (§4.4 of
//! the 1.0 contract): the archived history messages, the artifacts (where
//! the kagent harness puts every model output and tool result) and the
//! current status message (where other harnesses put some), merged by
//! `kagent.dev/a2a/timeline-position`, ties and rows without one broken by
//! the order the rows were appended. The tasks then read as any A2A v1
//! task does ([`crate::task::task_events`]).
//!
//! Token usage is taken from one place per task, in the contract's order:
//! the usage extension (which covers the task's lifetime), else each
//! artifact's own usage, else the older `kagent_usage_total`; which one is
//! said in the session's notes.

use crate::ingest::{Issue, KeepJson, Origin, RawEvents};
use crate::task::{Protocol, task_events};
use jiff::Timestamp;
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// `session_task`: one task's projection, in `position` order.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskRow {
    pub id: String,
    /// The projection as proto3 JSON.
    pub task: Value,
    pub created: Option<Timestamp>,
}

/// `session_task_event`: one published update, in `sequence` order.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRow {
    pub sequence: i64,
    pub task_id: String,
    /// Set on an archived history message.
    pub message_id: Option<String>,
    /// The `StreamResponse` as proto3 JSON.
    pub response: Value,
    pub created: Option<Timestamp>,
}

/// The tasks of a conversation, ready to read, and what is worth saying
/// about how they were read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conversation {
    pub tasks: Vec<Value>,
    pub notes: Vec<String>,
}

pub const TIMELINE_POSITION: &str = "kagent.dev/a2a/timeline-position";
pub const PART_TYPE: &str = "kagent.dev/a2a/part-type";
pub const USAGE: &str = "kagent.dev/a2a/usage";
pub const USAGE_EXTENSION: &str = "https://kagent.dev/extensions/usage/v1";
pub const USAGE_TOTAL: &str = "kagent_usage_total";

/// The field this reader adds to a history message: when it happened
/// (RFC 3339), from its timeline position or, without one, its row.
pub const TIME: &str = "time";

/// Where a task's token usage was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum UsageSource {
    Extension,
    Artifacts,
    Total,
    None,
}

impl UsageSource {
    fn words(self) -> &'static str {
        match self {
            UsageSource::Extension => "the usage extension",
            UsageSource::Artifacts => "each artifact's usage",
            UsageSource::Total => "kagent_usage_total",
            UsageSource::None => "nowhere (the record holds no usage)",
        }
    }
}

struct Item {
    time: Option<Timestamp>,
    sequence: i64,
    message: Value,
}

fn timeline_position(metadata: Option<&Value>) -> Option<Timestamp> {
    metadata?.get(TIMELINE_POSITION)?.as_str()?.parse().ok()
}

/// A Session's rows read as its events, into `raw`: a task that cannot
/// be read is an issue naming it, and what the merge noticed a note.
pub fn read_rows(
    tasks: &[TaskRow],
    events: &[EventRow],
    source: &Arc<str>,
    keep: KeepJson,
    raw: &mut RawEvents,
) {
    let conversation = conversation(tasks, events);
    for note in conversation.notes {
        raw.notes.push(Issue::new(
            Origin::Row {
                source: source.clone(),
                event_id: "tasks".into(),
            },
            note,
        ));
    }
    for task in &conversation.tasks {
        match task_events(task, Protocol::V1, source, keep) {
            Ok(read) => raw.events.extend(read),
            Err(issue) => raw.issues.push(issue),
        }
    }
}

pub fn conversation(tasks: &[TaskRow], events: &[EventRow]) -> Conversation {
    let mut out = Conversation::default();
    let mut sources: Vec<UsageSource> = Vec::new();
    for row in tasks {
        let (task, source) = task_with_history(row, events);
        out.tasks.push(task);
        sources.push(source);
    }
    for source in [
        UsageSource::Extension,
        UsageSource::Artifacts,
        UsageSource::Total,
        UsageSource::None,
    ] {
        let count = sources.iter().filter(|s| **s == source).count();
        if count > 0 {
            out.notes.push(format!(
                "token usage of {count} task(s) read from {}",
                source.words()
            ));
        }
    }
    out
}

fn task_with_history(row: &TaskRow, events: &[EventRow]) -> (Value, UsageSource) {
    let task = &row.task;
    let own: Vec<&EventRow> = events.iter().filter(|e| e.task_id == row.id).collect();
    let mut items: Vec<Item> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for event in &own {
        if event.message_id.is_none() {
            continue;
        }
        if let Some(message) = event.response.get("message") {
            let id = message
                .get("messageId")
                .and_then(Value::as_str)
                .unwrap_or("");
            if seen.insert(id.to_string()) {
                items.push(Item {
                    time: timeline_position(message.get("metadata")).or(event.created),
                    sequence: event.sequence,
                    message: message.clone(),
                });
            }
        }
    }
    // A history kept inline in the projection (open question 7): whatever
    // the archived rows do not already hold.
    for message in task
        .get("history")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let id = message
            .get("messageId")
            .and_then(Value::as_str)
            .unwrap_or("");
        if seen.insert(id.to_string()) {
            items.push(Item {
                time: timeline_position(message.get("metadata")).or(row.created),
                sequence: i64::MIN,
                message: message.clone(),
            });
        }
    }
    // Each artifact's first update row, and whether it was streamed in
    // chunks (`append`): one pass over the rows, not one per artifact.
    let mut updates: std::collections::HashMap<&str, (&EventRow, bool)> =
        std::collections::HashMap::new();
    for event in &own {
        let Some(update) = event.response.get("artifactUpdate") else {
            continue;
        };
        let Some(id) = update
            .get("artifact")
            .and_then(|a| a.get("artifactId"))
            .and_then(Value::as_str)
        else {
            continue;
        };
        let append = update.get("append") == Some(&Value::Bool(true));
        updates
            .entry(id)
            .and_modify(|(_, streamed)| *streamed |= append)
            .or_insert((event, append));
    }
    for artifact in task
        .get("artifacts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let id = artifact
            .get("artifactId")
            .and_then(Value::as_str)
            .unwrap_or("");
        let (first, streamed) = match updates.get(id) {
            Some((event, streamed)) => (Some(*event), *streamed),
            None => (None, false),
        };
        let parts = artifact.get("parts").cloned().unwrap_or(json!([]));
        let mut message = Map::new();
        message.insert("messageId".into(), json!(format!("artifact {id}")));
        message.insert("role".into(), json!("ROLE_AGENT"));
        message.insert(
            "parts".into(),
            if streamed {
                joined_chunks(parts)
            } else {
                parts
            },
        );
        if let Some(metadata) = artifact.get("metadata") {
            message.insert("metadata".into(), metadata.clone());
        }
        items.push(Item {
            time: timeline_position(artifact.get("metadata")).or(first.and_then(|e| e.created)),
            sequence: first.map_or(i64::MAX, |e| e.sequence),
            message: Value::Object(message),
        });
    }
    let state = task.pointer("/status/state").and_then(Value::as_str);
    // A failed task's status message is its error, which the task's status
    // says once; any other current status message is part of the history.
    if let Some(message) = task.pointer("/status/message")
        && state != Some("TASK_STATE_FAILED")
    {
        let id = message
            .get("messageId")
            .and_then(Value::as_str)
            .unwrap_or("");
        if seen.insert(id.to_string()) {
            let update = own.iter().rev().find(|e| {
                e.response
                    .pointer("/statusUpdate/status/message/messageId")
                    .and_then(Value::as_str)
                    == Some(id)
            });
            items.push(Item {
                time: timeline_position(message.get("metadata")).or(update.and_then(|e| e.created)),
                sequence: update.map_or(i64::MAX, |e| e.sequence),
                message: message.clone(),
            });
        }
    }
    // Rows without a time at all keep the order they were written in.
    items.sort_by_key(|item| (item.time, item.sequence));
    let mut history: Vec<Value> = items
        .into_iter()
        .map(|item| {
            let mut message = item.message;
            if let (Some(time), Some(object)) = (item.time, message.as_object_mut()) {
                object.insert(TIME.into(), json!(time.to_string()));
            }
            message
        })
        .collect();
    let metadata = task.get("metadata").cloned().unwrap_or(json!({}));
    let source = attribute_usage(&mut history, &metadata);
    // The task without its artifacts (now history), not copied whole first.
    let mut merged: Map<String, Value> = task
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(key, _)| !matches!(key.as_str(), "artifacts" | "history"))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    merged.insert("history".into(), Value::Array(history));
    (Value::Object(merged), source)
}

/// An artifact streamed in chunks (updates with `append`) holds one text
/// part per chunk: the text is theirs joined, as the model wrote it.
fn joined_chunks(parts: Value) -> Value {
    let Value::Array(parts) = parts else {
        return parts;
    };
    let mut joined: Vec<Value> = Vec::with_capacity(parts.len());
    for part in parts {
        let text = part.get("text").and_then(Value::as_str);
        let plain = part.as_object().is_some_and(|o| o.len() == 1);
        match (joined.last_mut(), text) {
            (Some(last), Some(text)) if plain && last.as_object().is_some_and(|o| o.len() == 1) => {
                if let Some(Value::String(before)) = last.get_mut("text") {
                    before.push_str(text);
                    continue;
                }
                joined.push(part);
            }
            _ => joined.push(part),
        }
    }
    Value::Array(joined)
}

/// Keep one place of a task's usage: the extension over the per-artifact
/// usage (it covers them), either over the older total. The task's usage
/// is put on its last agent message, where it is counted once.
fn attribute_usage(history: &mut [Value], metadata: &Value) -> UsageSource {
    let genai = |input: &Value, output: &Value, total: &Value| {
        let mut usage = Map::new();
        for (key, value) in [
            ("promptTokenCount", input),
            ("candidatesTokenCount", output),
            ("totalTokenCount", total),
        ] {
            if !value.is_null() {
                usage.insert(key.into(), value.clone());
            }
        }
        Value::Object(usage)
    };
    let per_message = |m: &Value| {
        let metadata = m.get("metadata");
        [USAGE, "adk_usage_metadata", "kagent_usage_metadata"]
            .iter()
            .any(|k| metadata.and_then(|md| md.get(*k)).is_some())
    };
    let task_level = if let Some(ext) = metadata.get(USAGE_EXTENSION).filter(|v| v.is_object()) {
        Some((
            UsageSource::Extension,
            genai(
                &ext["inputTokens"],
                &ext["outputTokens"],
                &ext["totalTokens"],
            ),
        ))
    } else if history.iter().any(per_message) {
        return UsageSource::Artifacts;
    } else if let Some(total) = metadata.get(USAGE_TOTAL).filter(|v| v.is_object()) {
        let pick = |a: &str, b: &str| {
            total
                .get(a)
                .or_else(|| total.get(b))
                .cloned()
                .unwrap_or(Value::Null)
        };
        Some((
            UsageSource::Total,
            genai(
                &pick("prompt_tokens", "promptTokenCount"),
                &pick("completion_tokens", "candidatesTokenCount"),
                &pick("total_tokens", "totalTokenCount"),
            ),
        ))
    } else {
        None
    };
    let Some((source, usage)) = task_level else {
        return UsageSource::None;
    };
    for message in history.iter_mut() {
        if let Some(metadata) = message.get_mut("metadata").and_then(Value::as_object_mut) {
            for key in [USAGE, "adk_usage_metadata", "kagent_usage_metadata"] {
                metadata.remove(key);
            }
        }
    }
    let last_agent = history
        .iter_mut()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("ROLE_AGENT"));
    match last_agent.and_then(Value::as_object_mut) {
        Some(object) => {
            let metadata = object.entry("metadata").or_insert_with(|| json!({}));
            metadata[USAGE] = usage;
            source
        }
        None => UsageSource::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Option<Timestamp> {
        Some(s.parse().unwrap())
    }

    fn row(sequence: i64, task: &str, message_id: Option<&str>, response: Value) -> EventRow {
        EventRow {
            sequence,
            task_id: task.into(),
            message_id: message_id.map(String::from),
            response,
            created: t("2026-11-20T09:00:00Z")
                .map(|c| c + jiff::SignedDuration::from_secs(sequence)),
        }
    }

    #[test]
    fn messages_artifacts_and_the_status_message_merge_in_timeline_order() {
        let pos = |s: &str| json!({TIMELINE_POSITION: s});
        let task = TaskRow {
            id: "t1".into(),
            created: t("2026-11-20T09:00:00Z"),
            task: json!({
                "id": "t1",
                "status": {"state": "TASK_STATE_COMPLETED",
                           "message": {"messageId": "s", "role": "ROLE_AGENT", "parts": [{"text": "done"}],
                                       "metadata": pos("2026-11-20T09:00:04.5Z")}},
                "artifacts": [
                    {"artifactId": "answer", "parts": [{"text": "sunny"}], "metadata": pos("2026-11-20T09:00:04Z")},
                    {"artifactId": "call", "parts": [{"data": {"id": "c", "name": "get_weather", "args": {}}}],
                     "metadata": pos("2026-11-20T09:00:02Z")}
                ],
                "metadata": {USAGE_EXTENSION: {"inputTokens": 10, "outputTokens": 2, "totalTokens": 12}}
            }),
        };
        let events = [
            row(
                1,
                "t1",
                Some("u"),
                json!({"message": {"messageId": "u", "role": "ROLE_USER",
                "parts": [{"text": "weather?"}], "metadata": pos("2026-11-20T09:00:01Z")}}),
            ),
            row(
                2,
                "t1",
                None,
                json!({"artifactUpdate": {"artifact": {"artifactId": "call"}}}),
            ),
            row(
                3,
                "t2",
                Some("x"),
                json!({"message": {"messageId": "x", "role": "ROLE_USER", "parts": []}}),
            ),
        ];
        let conversation = conversation(&[task], &events);
        let history = conversation.tasks[0]["history"].as_array().unwrap();
        let ids: Vec<&str> = history
            .iter()
            .map(|m| m["messageId"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["u", "artifact call", "artifact answer", "s"]);
        assert_eq!(history[0][TIME], "2026-11-20T09:00:01Z");
        // The extension's usage, once, on the last agent message.
        assert_eq!(history[3]["metadata"][USAGE]["totalTokenCount"], 12);
        assert_eq!(
            conversation.notes,
            ["token usage of 1 task(s) read from the usage extension"]
        );
    }

    #[test]
    fn without_timeline_positions_rows_keep_their_order() {
        let task = TaskRow {
            id: "t".into(),
            created: None,
            task: json!({"id": "t", "status": {"state": "TASK_STATE_FAILED",
                "message": {"messageId": "e", "role": "ROLE_AGENT", "parts": [{"text": "llm error"}]}},
                "artifacts": [{"artifactId": "b", "parts": []}, {"artifactId": "a", "parts": []}],
                "metadata": {USAGE_TOTAL: {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}}}),
        };
        let mut events = vec![
            row(
                7,
                "t",
                None,
                json!({"artifactUpdate": {"artifact": {"artifactId": "a"}}}),
            ),
            row(
                9,
                "t",
                None,
                json!({"artifactUpdate": {"artifact": {"artifactId": "b"}}}),
            ),
        ];
        for e in &mut events {
            e.created = None;
        }
        let conversation = conversation(&[task], &events);
        let history = conversation.tasks[0]["history"].as_array().unwrap();
        let ids: Vec<&str> = history
            .iter()
            .map(|m| m["messageId"].as_str().unwrap())
            .collect();
        assert_eq!(
            ids,
            ["artifact a", "artifact b"],
            "the failed status message is the error"
        );
        assert_eq!(history[1]["metadata"][USAGE]["promptTokenCount"], 5);
        assert!(conversation.notes[0].contains("kagent_usage_total"));
    }
}
