//! A kagent 1.0 Session on disk: its decoded rows, one JSON object per
//! line, as `capture` writes them and a fixture source reads them back.
//!
//! ```text
//! {"table":"session_task","id":"…","created":"2026-11-20T09:00:00.000123Z","data":{…Task…}}
//! {"table":"session_task_event","sequence":1,"taskId":"…","messageId":null,"created":"…","data":{…StreamResponse…}}
//! ```
//!
//! `data` is the row's protobuf as proto3 JSON; `created` the row's
//! `created_at`. Rows are kept, not their conversion, so a fixture is read
//! by the same timeline merge as the database.

use super::json::whole_numbers;
use super::timeline::{EventRow, TaskRow};
use serde_json::{Value, json};

const TASK: &str = "session_task";
const EVENT: &str = "session_task_event";

/// Whether a line is one of these rows rather than an ADK event or task.
pub fn is_row(value: &Value) -> bool {
    matches!(
        value.get("table").and_then(Value::as_str),
        Some(TASK | EVENT)
    )
}

/// The lines of a Session's rows, tasks first.
pub fn lines(tasks: &[TaskRow], events: &[EventRow]) -> Vec<Value> {
    let time = |t: &Option<jiff::Timestamp>| t.map(|t| t.to_string());
    tasks
        .iter()
        .map(|t| json!({"table": TASK, "id": t.id, "created": time(&t.created), "data": t.task}))
        .chain(events.iter().map(|e| {
            json!({
                "table": EVENT, "sequence": e.sequence, "taskId": e.task_id,
                "messageId": e.message_id, "created": time(&e.created), "data": e.response,
            })
        }))
        .collect()
}

/// The rows of fixture lines (numbered from 1), or what line and field is
/// wrong. Events are put in `sequence` order, as the database gives them.
pub fn rows(lines: Vec<Value>) -> Result<(Vec<TaskRow>, Vec<EventRow>), String> {
    let (mut tasks, mut events) = (Vec::new(), Vec::new());
    for (index, mut line) in lines.into_iter().enumerate() {
        let wrong = |field: &str, what: &str| format!("line {}: `{field}` {what}", index + 1);
        let text = |line: &Value, field: &str| -> Result<String, String> {
            line.get(field)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| wrong(field, "is missing or not a string"))
        };
        let created = match line.get("created") {
            None | Some(Value::Null) => None,
            Some(Value::String(t)) => Some(
                t.parse()
                    .map_err(|e| wrong("created", &format!("is not a time: {e}")))?,
            ),
            Some(_) => return Err(wrong("created", "is not a string")),
        };
        let mut data = match line.get_mut("data").map(Value::take) {
            Some(data @ Value::Object(_)) => data,
            _ => return Err(wrong("data", "is missing or not an object")),
        };
        whole_numbers(&mut data);
        match line.get("table").and_then(Value::as_str) {
            Some(TASK) => tasks.push(TaskRow {
                id: text(&line, "id")?,
                task: data,
                created,
            }),
            Some(EVENT) => events.push(EventRow {
                sequence: line
                    .get("sequence")
                    .and_then(Value::as_i64)
                    .ok_or_else(|| wrong("sequence", "is missing or not an integer"))?,
                task_id: text(&line, "taskId")?,
                message_id: match line.get("messageId") {
                    None | Some(Value::Null) => None,
                    Some(_) => Some(text(&line, "messageId")?),
                },
                response: data,
                created,
            }),
            _ => {
                return Err(wrong(
                    "table",
                    "is neither session_task nor session_task_event",
                ));
            }
        }
    }
    events.sort_by_key(|e| e.sequence);
    Ok((tasks, events))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_written_as_lines_read_back_the_same() {
        let tasks = vec![TaskRow {
            id: "t1".into(),
            task: json!({"id": "t1", "status": {"state": "TASK_STATE_COMPLETED"}}),
            created: Some("2026-11-20T09:00:00.000123Z".parse().unwrap()),
        }];
        let events = vec![
            EventRow {
                sequence: 2,
                task_id: "t1".into(),
                message_id: None,
                response: json!({"statusUpdate": {"taskId": "t1"}}),
                created: None,
            },
            EventRow {
                sequence: 1,
                task_id: "t1".into(),
                message_id: Some("m1".into()),
                response: json!({"message": {"messageId": "m1"}}),
                created: None,
            },
        ];
        let written = lines(&tasks, &events);
        assert!(written.iter().all(is_row));
        let (read_tasks, read_events) = rows(written).unwrap();
        assert_eq!(read_tasks, tasks);
        assert_eq!(
            read_events.iter().map(|e| e.sequence).collect::<Vec<_>>(),
            [1, 2]
        );
        assert_eq!(read_events[1], events[0]);
    }

    #[test]
    fn a_wrong_line_is_named_with_its_field() {
        let bad = vec![
            json!({"table": "session_task", "id": "t", "data": {}}),
            json!({"table": "session_task_event", "taskId": "t", "data": {}}),
        ];
        assert_eq!(
            rows(bad).unwrap_err(),
            "line 2: `sequence` is missing or not an integer"
        );
        let bad = vec![json!({"table": "session_task", "id": "t", "data": {}, "created": "noon"})];
        assert!(
            rows(bad)
                .unwrap_err()
                .starts_with("line 1: `created` is not a time")
        );
    }
}
