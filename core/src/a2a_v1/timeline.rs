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
use std::collections::{HashMap, HashSet};
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

/// The tasks of a conversation, ready to read, what is worth saying about
/// how they were read, and the rows that could not be.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conversation {
    pub tasks: Vec<Value>,
    pub notes: Vec<String>,
    pub unread: Vec<Unread>,
}

/// A row that could not be read, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Unread {
    pub row: String,
    pub why: String,
}

pub const TIMELINE_POSITION: &str = "kagent.dev/a2a/timeline-position";
pub const PART_TYPE: &str = "kagent.dev/a2a/part-type";
pub const USAGE: &str = "kagent.dev/a2a/usage";
pub const USAGE_EXTENSION: &str = "https://kagent.dev/extensions/usage/v1";
pub const HITL_EXTENSION: &str = "https://kagent.dev/extensions/hitl/v1";
pub const USAGE_TOTAL: &str = "kagent_usage_total";

/// The field this reader adds to a history message: when it happened
/// (RFC 3339), from its timeline position or, without one, its row.
pub const TIME: &str = "time";

/// The field this reader gives the message it makes of an artifact: the
/// artifact's id.
pub const ARTIFACT: &str = "kagentEvalsArtifact";

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

/// The artifacts a Session's task projections hold, by task id: their
/// update rows need give the timeline only their place.
pub type Projected<'a> = HashMap<&'a str, HashSet<&'a str>>;

pub fn projected(tasks: &[TaskRow]) -> Projected<'_> {
    tasks
        .iter()
        .map(|row| {
            let ids = row
                .task
                .get("artifacts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|a| a.get("artifactId").and_then(Value::as_str))
                .collect();
            (row.id.as_str(), ids)
        })
        .collect()
}

/// A Session's rows read as its events, into `raw`: a task or row that
/// cannot be read is an issue naming it, and what the merge noticed a note.
pub fn read_rows(
    tasks: Vec<TaskRow>,
    events: &[EventRow],
    source: &Arc<str>,
    keep: KeepJson,
    raw: &mut RawEvents,
) {
    let conversation = conversation(tasks, events);
    let origin = |row: String| Origin::Row {
        source: source.clone(),
        event_id: row,
    };
    for note in conversation.notes {
        raw.notes.push(Issue::new(origin("tasks".into()), note));
    }
    for unread in conversation.unread {
        raw.issues.push(Issue::new(origin(unread.row), unread.why));
    }
    for task in conversation.tasks {
        match task_events(task, Protocol::V1, source, keep) {
            Ok(read) => raw.events.extend(read),
            Err(issue) => raw.issues.push(issue),
        }
    }
}

pub fn conversation(tasks: Vec<TaskRow>, events: &[EventRow]) -> Conversation {
    let mut out = Conversation::default();
    // Each task's rows, gathered in one pass: the merge stays linear in
    // the rows however many tasks and artifacts a Session has.
    let mut by_task: HashMap<&str, Vec<&EventRow>> = HashMap::new();
    for event in events {
        by_task.entry(&event.task_id).or_default().push(event);
    }
    let held: HashSet<String> = tasks.iter().map(|t| t.id.clone()).collect();
    let mut sources: Vec<UsageSource> = Vec::new();
    let mut rebuilt = 0;
    for row in tasks {
        let own = by_task.get(row.id.as_str()).map_or(&[][..], Vec::as_slice);
        let merged = task_with_history(row, own, &mut out.unread);
        rebuilt += merged.rebuilt;
        out.tasks.push(merged.task);
        sources.push(merged.usage);
    }
    let mut orphans: Vec<(&str, &Vec<&EventRow>)> = by_task
        .iter()
        .filter(|(task, _)| !held.contains(**task))
        .map(|(task, rows)| (*task, rows))
        .collect();
    orphans.sort_by_key(|(_, rows)| rows[0].sequence);
    for (task, rows) in orphans {
        out.unread.push(Unread {
            row: format!("session_task_event row {}", rows[0].sequence),
            why: format!(
                "{} row(s) of task {task}, which the Session holds no task row for, could not be placed",
                rows.len()
            ),
        });
    }
    if rebuilt > 0 {
        out.notes.push(format!(
            "{rebuilt} artifact(s) read from their update rows: the task projection does not hold them"
        ));
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

/// A task with its whole history, and how it was read.
struct Merged {
    task: Value,
    usage: UsageSource,
    /// Artifacts rebuilt from update rows, the projection lacking them.
    rebuilt: usize,
}

/// A message's id; an empty one is no id, and dedupes nothing.
fn message_id(message: &Value) -> Option<&str> {
    message
        .get("messageId")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
}

/// Whether a message is met for the first time: one without an id
/// always is.
fn first_time(id: Option<&str>, seen: &mut HashSet<String>) -> bool {
    id.is_none_or(|id| !seen.contains(id) && seen.insert(id.to_owned()))
}

/// An artifact's update rows, in order.
#[derive(Default)]
struct Updates<'r> {
    rows: Vec<&'r EventRow>,
    /// Streamed in chunks (`append`).
    streamed: bool,
    /// Whether the task's projection holds the artifact.
    projected: bool,
}

fn task_with_history(row: TaskRow, own: &[&EventRow], unread: &mut Vec<Unread>) -> Merged {
    // The row's task is taken apart, its messages and artifacts moved into
    // the history rather than copied.
    let TaskRow { task, created, .. } = row;
    let mut task = match task {
        Value::Object(task) => task,
        _ => Map::new(),
    };
    let mut taken = |key: &str| match task.shift_remove(key) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    let (inline, artifacts) = (taken("history"), taken("artifacts"));
    let mut items: Vec<Item> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for event in own {
        if event.message_id.is_none() {
            continue;
        }
        match event.response.get("message").filter(|m| m.is_object()) {
            Some(message) => {
                if first_time(message_id(message), &mut seen) {
                    items.push(Item {
                        time: timeline_position(message.get("metadata")).or(event.created),
                        sequence: event.sequence,
                        message: message.clone(),
                    });
                }
            }
            None => unread.push(Unread {
                row: format!("session_task_event row {}", event.sequence),
                why: "an archived history row that holds no message".into(),
            }),
        }
    }
    // A history kept inline in the projection (open question 7): whatever
    // the archived rows do not already hold.
    for message in inline {
        if first_time(message_id(&message), &mut seen) {
            items.push(Item {
                time: timeline_position(message.get("metadata")).or(created),
                sequence: i64::MIN,
                message,
            });
        }
    }
    // Each artifact's update rows: one pass over the rows, not one per
    // artifact.
    let mut updates: HashMap<&str, Updates> = HashMap::new();
    for event in own {
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
        let entry = updates.entry(id).or_default();
        entry.rows.push(event);
        entry.streamed |= update.get("append") == Some(&Value::Bool(true));
    }
    for artifact in artifacts {
        let mut artifact = match artifact {
            Value::Object(artifact) => artifact,
            _ => Map::new(),
        };
        let id = match artifact.shift_remove("artifactId") {
            Some(Value::String(id)) => id,
            _ => String::new(),
        };
        let (first, streamed) = match updates.get_mut(id.as_str()) {
            Some(u) => {
                u.projected = true;
                (u.rows.first().copied(), u.streamed)
            }
            None => (None, false),
        };
        let parts = artifact.shift_remove("parts").unwrap_or(json!([]));
        let metadata = artifact.shift_remove("metadata");
        items.push(artifact_item(&id, parts, metadata, first, streamed));
    }
    // Artifacts whose updates were published but that the projection does
    // not hold (an empty `data`, say): rebuilt from the updates, as a
    // client following the stream would have.
    let mut missing: Vec<(&str, &Updates)> = updates
        .iter()
        .filter(|(_, u)| !u.projected)
        .map(|(id, u)| (*id, u))
        .collect();
    missing.sort_by_key(|(_, u)| u.rows[0].sequence);
    let rebuilt = missing.len();
    for (id, u) in missing {
        let (parts, metadata) = replayed(&u.rows);
        items.push(artifact_item(
            id,
            Value::Array(parts),
            metadata.cloned(),
            u.rows.first().copied(),
            u.streamed,
        ));
    }
    let status = task.get("status");
    let state = status.and_then(|s| s.get("state")).and_then(Value::as_str);
    // A failed task's status message is its error, which the task's status
    // says once; any other current status message is part of the history.
    if let Some(message) = status.and_then(|s| s.get("message"))
        && state != Some("TASK_STATE_FAILED")
    {
        let id = message_id(message);
        if first_time(id, &mut seen) {
            let update = own.iter().rev().find(|e| {
                id.is_some()
                    && e.response
                        .pointer("/statusUpdate/status/message/messageId")
                        .and_then(Value::as_str)
                        == id
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
    let usage = attribute_usage(&mut history, task.get("metadata").unwrap_or(&Value::Null));
    task.insert("history".into(), Value::Array(history));
    Merged {
        task: Value::Object(task),
        usage,
        rebuilt,
    }
}

/// An artifact as an agent message of the history. Its id is the
/// reader's own field, not a `messageId`, so that no message a runtime
/// wrote can share it.
fn artifact_item(
    id: &str,
    parts: Value,
    metadata: Option<Value>,
    first: Option<&EventRow>,
    streamed: bool,
) -> Item {
    let mut message = Map::new();
    message.insert(ARTIFACT.into(), json!(id));
    message.insert("role".into(), json!("ROLE_AGENT"));
    message.insert(
        "parts".into(),
        if streamed {
            joined_chunks(parts)
        } else {
            parts
        },
    );
    let time = timeline_position(metadata.as_ref()).or(first.and_then(|e| e.created));
    if let Some(metadata) = metadata {
        message.insert("metadata".into(), metadata);
    }
    Item {
        time,
        sequence: first.map_or(i64::MAX, |e| e.sequence),
        message: Value::Object(message),
    }
}

/// An artifact's parts and metadata as its updates leave it: an update
/// with `append` adds its parts, one without replaces them.
fn replayed<'r>(rows: &[&'r EventRow]) -> (Vec<Value>, Option<&'r Value>) {
    let mut parts = Vec::new();
    let mut metadata = None;
    for row in rows {
        let update = &row.response["artifactUpdate"];
        let artifact = &update["artifact"];
        if update.get("append") != Some(&Value::Bool(true)) {
            parts.clear();
        }
        parts.extend(artifact["parts"].as_array().into_iter().flatten().cloned());
        metadata = artifact.get("metadata").or(metadata);
    }
    (parts, metadata)
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

    /// A history message's id, or the artifact it was made of.
    fn ids(task: &Value) -> Vec<String> {
        task["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| match m.get(ARTIFACT) {
                Some(artifact) => format!("artifact {}", artifact.as_str().unwrap()),
                None => m["messageId"].as_str().unwrap_or("").to_string(),
            })
            .collect()
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
        let conversation = conversation(vec![task], &events);
        let history = conversation.tasks[0]["history"].as_array().unwrap();
        assert_eq!(
            ids(&conversation.tasks[0]),
            ["u", "artifact call", "artifact answer", "s"]
        );
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
        let conversation = conversation(vec![task], &events);
        let history = conversation.tasks[0]["history"].as_array().unwrap();
        assert_eq!(
            ids(&conversation.tasks[0]),
            ["artifact a", "artifact b"],
            "the failed status message is the error"
        );
        assert_eq!(history[1]["metadata"][USAGE]["promptTokenCount"], 5);
        assert!(conversation.notes[0].contains("kagent_usage_total"));
    }

    #[test]
    fn nothing_a_row_holds_is_lost_in_silence() {
        let text = |id: &str, role: &str, text: &str| json!({"message": {"messageId": id, "role": role, "parts": [{"text": text}]}});
        // An empty projection (a valid, empty Task): its artifacts are
        // rebuilt from their updates, chunks joined.
        let task = TaskRow {
            id: "t".into(),
            created: None,
            task: json!({}),
        };
        let update = |id: &str, text: &str, append: bool| {
            json!({"artifactUpdate": {"append": append,
                "artifact": {"artifactId": id, "parts": [{"text": text}]}}})
        };
        let events = [
            row(1, "t", Some(""), text("", "ROLE_USER", "first question")),
            row(2, "t", Some(""), text("", "ROLE_USER", "second question")),
            row(
                3,
                "t",
                Some("artifact a"),
                text("artifact a", "ROLE_AGENT", "a real message"),
            ),
            row(4, "t", None, update("a", "sun", false)),
            row(5, "t", None, update("a", "ny", true)),
            row(6, "t", Some("m"), json!({"statusUpdate": {}})),
            row(7, "elsewhere", None, update("b", "lost?", false)),
        ];
        let conversation = conversation(vec![task], &events);
        assert_eq!(
            ids(&conversation.tasks[0]),
            ["", "", "artifact a", "artifact a"],
            "empty ids dedupe nothing; an artifact cannot hide a message"
        );
        let history = conversation.tasks[0]["history"].as_array().unwrap();
        assert_eq!(history[2]["parts"][0]["text"], "a real message");
        assert_eq!(history[3]["parts"], json!([{"text": "sunny"}]));
        assert!(
            conversation.notes[0].starts_with("1 artifact(s) read from their update rows"),
            "{:?}",
            conversation.notes
        );
        let unread: Vec<String> = conversation
            .unread
            .iter()
            .map(|u| format!("{}: {}", u.row, u.why))
            .collect();
        assert_eq!(
            unread,
            [
                "session_task_event row 6: an archived history row that holds no message",
                "session_task_event row 7: 1 row(s) of task elsewhere, which the Session holds no task row for, could not be placed"
            ]
        );
    }
}
