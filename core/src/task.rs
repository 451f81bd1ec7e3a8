//! kagent's stored A2A tasks as the events of a session.
//!
//! Every kagent runtime (ADK, LangGraph, CrewAI, the OpenAI Agents SDK)
//! saves its A2A tasks in kagent's `task` table; only ADK also writes
//! events. Each message of a task's history becomes one event in the shape
//! ADK stores, so one converter, with one set of rules and one per-event
//! account, serves both records. Tool calls and results are the data parts
//! whose metadata type (kagent 1.0's canonical `kagent.dev/a2a/part-type`,
//! else `kagent_type`, else the older `adk_type`) says `function_call` or
//! `function_response`.
//!
//! Three things runtimes record that are not the agent's trajectory are
//! read as such: the OpenAI Agents SDK runtime's handoff to its own agent
//! (message metadata `kagent_event_type: agent_handoff`) and CrewAI's
//! progress lines ("Task started: ...", "Agent ... started working on task:
//! ...", "Task completed: ...") contribute nothing; and a result whose id
//! answers no call (the OpenAI runtime gives each result a fresh id, CrewAI
//! names it after its tool class) answers the oldest call still unanswered.

use crate::a2a_v1::timeline::{ARTIFACT, HITL_EXTENSION, PART_TYPE, TIME, USAGE};
use crate::ingest::{Issue, KeepJson, Origin, RawEvent};
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The A2A protocol a stored task is written in: kagent's `protocol_version`
/// column, NULL (or empty) for the legacy 0.3 JSON every released kagent
/// writes, `1.0` for the newer shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Legacy,
    V1,
}

impl Protocol {
    pub fn from_column(value: Option<&str>) -> Result<Self, String> {
        match value.map(str::trim) {
            None | Some("") => Ok(Protocol::Legacy),
            Some("1.0") => Ok(Protocol::V1),
            Some(other) => Err(format!(
                "unknown A2A protocol_version {other:?} (kagent writes none, for 0.3, or 1.0)"
            )),
        }
    }
}

/// The record a session was read from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Record {
    /// ADK's events.
    #[default]
    Events,
    /// kagent's A2A task records.
    Tasks,
}

/// Which record a suite reads sessions from.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum RecordChoice {
    /// ADK's events, or the A2A tasks of a session that has no events
    /// (agents on kagent's LangGraph, CrewAI and OpenAI runtimes).
    #[default]
    Auto,
    /// ADK's events only.
    Events,
    /// The A2A tasks, even of a session that has events.
    Tasks,
}

impl RecordChoice {
    /// Whether tasks are wanted for a session with this many events.
    pub fn wants_tasks(self, events: usize) -> bool {
        match self {
            RecordChoice::Auto => events == 0,
            RecordChoice::Events => false,
            RecordChoice::Tasks => true,
        }
    }
}

/// Where a task came from, for messages: `SOURCE: task ID`.
pub fn task_origin(source: &Arc<str>, task_id: &str, message: usize) -> Origin {
    Origin::Row {
        source: source.clone(),
        event_id: format!("task {task_id} message {message}"),
    }
}

/// The events of one stored task, in history order, each message once.
/// A failed task's error, which is not in its history, becomes an event of
/// its own. `Err` names why the task cannot be read at all.
pub fn task_events(
    task: Value,
    protocol: Protocol,
    source: &Arc<str>,
    keep: KeepJson,
) -> Result<Vec<RawEvent>, Issue> {
    // The task is taken apart: its messages, and their calls' arguments
    // and results, are moved into the events rather than copied.
    let task_id = task
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    let whole = || task_origin(source, &task_id, 0);
    let Value::Object(mut task) = task else {
        return Err(Issue::new(whole(), "a task is a JSON object"));
    };
    let history = match task.remove("history") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(messages)) => messages,
        Some(_) => return Err(Issue::new(whole(), "`history` is not a list")),
    };
    let messages = history.len();
    // The turn a message belongs to. A kagent 1.0 task is one user turn
    // with its human-in-the-loop continuations, whatever `adk_*` keys an
    // older alpha left on its parts; a 0.3 message may name its ADK
    // invocation, else the task is the turn.
    let task_invocation = match protocol {
        Protocol::V1 => task_id.as_str(),
        Protocol::Legacy => metadata_str(task.get("metadata"), &INVOCATION_ID).unwrap_or(&task_id),
    }
    .to_string();
    let mut seen = HashSet::new();
    let mut calls = Calls::new(protocol);
    let mut events = Vec::new();
    for (index, message) in history.into_iter().enumerate() {
        let origin = task_origin(source, &task_id, index);
        let Value::Object(message) = message else {
            return Err(Issue::new(
                origin,
                "a history entry is not a message object",
            ));
        };
        // Runtimes save the user's message, and an approval request, twice.
        if let Some(id) = message
            .get("messageId")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            && !seen.insert(id.to_string())
        {
            continue;
        }
        let value = message_event(
            message,
            protocol,
            &task_invocation,
            index,
            &task_id,
            &mut calls,
        )
        .map_err(|why| Issue::new(origin.clone(), why))?;
        events.push(RawEvent::from_value(origin, value, keep));
    }
    if let Some(error) = failure(&task, protocol) {
        events.push(RawEvent::from_value(
            task_origin(source, &task_id, messages),
            json!({
                "id": format!("{task_id}-status"),
                "invocation_id": task_invocation,
                "author": "agent",
                "error_code": "TASK_FAILED",
                "error_message": error,
            }),
            keep,
        ));
    }
    Ok(events)
}

/// The value of `object`'s field `name`, taken out of it (null when
/// absent, or when `object` is no object).
fn taken(object: &mut Value, name: &str) -> Value {
    object.get_mut(name).map_or(Value::Null, Value::take)
}

/// A JSON object of `fields`, each value moved in (`json!` would copy a
/// value it is given whole, through serde).
fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    Value::Object(
        fields
            .into_iter()
            .map(|(key, value)| (key.to_string(), value))
            .collect(),
    )
}

/// A metadata key as kagent 1.0 names it where it has its own, as kagent
/// spells it (`kagent_`) and as older runtimes did (`adk_`).
struct Key {
    canonical: Option<&'static str>,
    kagent: &'static str,
    adk: &'static str,
}

macro_rules! key {
    ($name:literal) => {
        key!($name, None)
    };
    ($name:literal, $canonical:expr) => {
        Key {
            canonical: $canonical,
            kagent: concat!("kagent_", $name),
            adk: concat!("adk_", $name),
        }
    };
}

const INVOCATION_ID: Key = key!("invocation_id");
const EVENT_TYPE: Key = key!("event_type");
const AUTHOR: Key = key!("author");
const TYPE: Key = key!("type", Some(PART_TYPE));
const THOUGHT: Key = key!("thought");

/// A metadata string, by kagent 1.0's own name first, then the prefixed.
fn metadata_str<'v>(metadata: Option<&'v Value>, key: &Key) -> Option<&'v str> {
    let metadata = metadata?;
    key.canonical
        .iter()
        .chain([&key.kagent, &key.adk])
        .find_map(|name| metadata.get(*name)?.as_str())
}

fn metadata_flag(metadata: Option<&Value>, key: &Key) -> bool {
    metadata.is_some_and(|m| {
        [key.kagent, key.adk]
            .iter()
            .any(|name| m.get(*name) == Some(&Value::Bool(true)))
    })
}

/// The error text of a failed task, from its status message.
fn failure(task: &Map<String, Value>, protocol: Protocol) -> Option<String> {
    let status = task.get("status")?;
    let state = status.get("state")?.as_str()?;
    if !matches!(state, "failed" | "TASK_STATE_FAILED") {
        return None;
    }
    let text = status
        .get("message")
        .and_then(|m| m.get("parts"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| part_text(p, protocol))
        .collect::<Vec<_>>()
        .join("\n");
    Some(if text.is_empty() {
        "the task failed".into()
    } else {
        text
    })
}

fn part_text(part: &Value, protocol: Protocol) -> Option<&str> {
    let is_text = match protocol {
        Protocol::Legacy => part.get("kind").and_then(Value::as_str) == Some("text"),
        Protocol::V1 => part.get("text").is_some(),
    };
    is_text.then(|| part.get("text")?.as_str()).flatten()
}

/// A data part's object, taken out of it: `{"kind": "data", "data":
/// {...}}` in 0.3, `{"data": {"data": {...}}}` in 1.0.
fn take_part_data(part: &mut Value, protocol: Protocol) -> Option<Value> {
    match protocol {
        Protocol::Legacy => (part.get("kind").and_then(Value::as_str) == Some("data"))
            .then(|| part.get_mut("data").map(Value::take))
            .flatten(),
        Protocol::V1 => {
            let data = part.get_mut("data")?;
            Some(match data.get_mut("data") {
                Some(inner) => inner.take(),
                None => data.take(),
            })
        }
    }
}

fn is_user(role: Option<&str>) -> bool {
    matches!(role, Some("user" | "ROLE_USER"))
}

/// The calls of a task so far, for results that do not name theirs.
struct Calls {
    made: Vec<(Value, Value)>,
    /// The first call of each id (as JSON text), for pairing in constant time.
    by_id: HashMap<String, usize>,
    answered: Vec<bool>,
    /// No call before this one is unanswered.
    oldest_open: usize,
    /// kagent 1.0 gives every result its call's id: one that answers no
    /// call is not guessed at.
    ids_are_kept: bool,
}

impl Calls {
    fn new(protocol: Protocol) -> Self {
        Calls {
            made: Vec::new(),
            by_id: HashMap::new(),
            answered: Vec::new(),
            oldest_open: 0,
            ids_are_kept: protocol == Protocol::V1,
        }
    }

    fn make(&mut self, id: Value, name: Value) {
        self.by_id.entry(id.to_string()).or_insert(self.made.len());
        self.made.push((id, name));
        self.answered.push(false);
    }

    /// The id and name a result answers: its own when a call has that id,
    /// else (where runtimes give results fresh ids) the oldest call still
    /// unanswered. `Err` where ids are kept and none answers: the result's
    /// call is not in the record, and is not guessed.
    fn answer(&mut self, id: &Value, name: &Value) -> Result<(Value, Value), String> {
        let own = self.by_id.get(&id.to_string()).copied();
        if own.is_none() && self.ids_are_kept && id.as_str().is_some_and(|i| !i.is_empty()) {
            return Err(format!(
                "a result of {name} answers call {id}, which no call of this task makes"
            ));
        }
        let index = own.or_else(|| {
            while self.answered.get(self.oldest_open) == Some(&true) {
                self.oldest_open += 1;
            }
            (self.oldest_open < self.made.len()).then_some(self.oldest_open)
        });
        Ok(match index {
            Some(i) => {
                self.answered[i] = true;
                self.made[i].clone()
            }
            None => (id.clone(), name.clone()),
        })
    }
}

/// kagent's HITL extension asking to approve tool calls, or the answer:
/// the pause and the decision, not words of the conversation (the call and
/// its result, or its rejection, are). Questions and their answers are.
fn is_approval_exchange(metadata: Option<&Value>) -> bool {
    let kind = metadata
        .and_then(|m| m.get(HITL_EXTENSION))
        .and_then(|hitl| hitl.get("type"))
        .and_then(Value::as_str);
    matches!(
        kind,
        Some("tool_approval_request" | "tool_approval_response")
    )
}

/// Progress lines kagent's CrewAI runtime records as agent text.
fn is_crewai_progress(text: &str) -> bool {
    text.starts_with("Task started: ")
        || text.starts_with("Task completed: ")
        || text
            .strip_prefix("Agent ")
            .and_then(|rest| rest.split_once(' '))
            .is_some_and(|(_, rest)| rest.starts_with("started working on task: "))
}

/// One history message as the event ADK would have stored for it.
fn message_event(
    mut message: Map<String, Value>,
    protocol: Protocol,
    task_invocation: &str,
    index: usize,
    task_id: &str,
    calls: &mut Calls,
) -> Result<Value, String> {
    let role = message.get("role").and_then(Value::as_str);
    // A 1.0 message is the user's or the agent's; any other role is not
    // guessed to be either.
    if protocol == Protocol::V1 && !matches!(role, Some("ROLE_USER" | "ROLE_AGENT")) {
        return Err(format!(
            "a message of role {} (neither ROLE_USER nor ROLE_AGENT)",
            role.unwrap_or("(none)")
        ));
    }
    let user = is_user(role);
    let parts = match message.remove("parts") {
        Some(Value::Array(parts)) => parts,
        _ => return Err("a message without a list of parts".into()),
    };
    let metadata = message.get("metadata").filter(|m| !m.is_null());
    let runtime_only = metadata_str(metadata, &EVENT_TYPE) == Some("agent_handoff")
        || is_approval_exchange(metadata)
        || (!user
            && parts.len() == 1
            && part_text(&parts[0], protocol).is_some_and(is_crewai_progress));
    let parts: Vec<Value> = if runtime_only {
        vec![json!({"a2a_part": "runtime"})]
    } else {
        parts
            .into_iter()
            .map(|part| event_part(part, protocol, calls))
            .collect::<Result<_, _>>()?
    };
    let author = metadata_str(metadata, &AUTHOR).unwrap_or(if user { "user" } else { "agent" });
    let id = match (
        message.get("messageId").and_then(Value::as_str),
        message.get(ARTIFACT),
    ) {
        (Some(id), _) if !id.is_empty() => id.to_string(),
        (_, Some(Value::String(artifact))) => format!("artifact {artifact}"),
        _ => format!("{task_id}-{index}"),
    };
    let invocation = match protocol {
        Protocol::V1 => task_invocation,
        Protocol::Legacy => metadata_str(metadata, &INVOCATION_ID).unwrap_or(task_invocation),
    };
    let mut event = Map::new();
    event.insert("id".into(), Value::String(id));
    event.insert("invocation_id".into(), json!(invocation));
    event.insert("author".into(), json!(author));
    event.insert(
        "content".into(),
        object([
            ("role", json!(if user { "user" } else { "model" })),
            ("parts", Value::Array(parts)),
        ]),
    );
    if let Some(usage) = metadata.and_then(|m| {
        m.get(USAGE)
            .or_else(|| m.get("kagent_usage_metadata"))
            .or_else(|| m.get("adk_usage_metadata"))
    }) {
        event.insert("usage_metadata".into(), usage.clone());
    }
    // kagent 1.0's history carries when each message happened.
    if let Some(time) = message
        .get(TIME)
        .and_then(Value::as_str)
        .and_then(|t| t.parse::<jiff::Timestamp>().ok())
    {
        event.insert(
            "timestamp".into(),
            json!(time.as_microsecond() as f64 / 1e6),
        );
    }
    Ok(Value::Object(event))
}

/// A part in ADK's shape: text (a thought when its metadata says so), a
/// function call or response, or something no trajectory holds.
fn event_part(mut part: Value, protocol: Protocol, calls: &mut Calls) -> Result<Value, String> {
    let metadata = taken(&mut part, "metadata");
    let metadata = Some(&metadata).filter(|m| !m.is_null());
    if part_text(&part, protocol).is_some() {
        let thought = metadata_flag(metadata, &THOUGHT);
        let text = taken(&mut part, "text");
        return Ok(object([("text", text), ("thought", Value::Bool(thought))]));
    }
    let data = take_part_data(&mut part, protocol);
    match (data, metadata_str(metadata, &TYPE)) {
        (Some(mut data), Some("function_call")) => {
            let mut args = taken(&mut data, "args");
            // CrewAI records a call's arguments as JSON text.
            if let Value::String(text) = &args
                && let Ok(object @ Value::Object(_)) = serde_json::from_str::<Value>(text)
            {
                args = object;
            }
            let (id, name) = (taken(&mut data, "id"), taken(&mut data, "name"));
            calls.make(id.clone(), name.clone());
            Ok(object([(
                "function_call",
                object([("id", id), ("name", name), ("args", args)]),
            )]))
        }
        (Some(mut data), Some("function_response")) => {
            // ADK's responses are objects; other runtimes record the bare
            // result, which ADK would have wrapped as {"result": ...}.
            let response = match data.get_mut("response").map(Value::take) {
                Some(object @ Value::Object(_)) => object,
                Some(other) => object([("result", other)]),
                None => Value::Null,
            };
            let (id, name) = calls.answer(&taken(&mut data, "id"), &taken(&mut data, "name"))?;
            Ok(object([(
                "function_response",
                object([("id", id), ("name", name), ("response", response)]),
            )]))
        }
        (Some(_), Some(other)) => Err(format!(
            "a data part of unknown type {other:?} (expected function_call or function_response)"
        )),
        // An approval decision, a file, a data part of the runtime's own.
        _ => Ok(json!({"a2a_part": part.get("kind").cloned().unwrap_or(Value::Null)})),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source() -> Arc<str> {
        "tasks".into()
    }

    #[test]
    fn both_protocols_give_the_same_events() {
        let legacy = json!({"id": "t", "history": [
            {"kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]},
            {"kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]},
            {"kind": "message", "messageId": "m2", "role": "agent",
             "parts": [{"kind": "data", "data": {"id": "c", "name": "f", "args": "{\"x\": 1}"},
                        "metadata": {"kagent_type": "function_call"}}]},
            {"kind": "message", "messageId": "m3", "role": "agent",
             "parts": [{"kind": "data", "data": {"id": "c", "name": "f", "response": "ok"},
                        "metadata": {"adk_type": "function_response"}}]}
        ]});
        let v1 = json!({"id": "t", "history": [
            {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}]},
            {"messageId": "m2", "role": "ROLE_AGENT",
             "parts": [{"data": {"data": {"id": "c", "name": "f", "args": "{\"x\": 1}"}},
                        "metadata": {"kagent_type": "function_call"}}]},
            {"messageId": "m3", "role": "ROLE_AGENT",
             "parts": [{"data": {"data": {"id": "c", "name": "f", "response": "ok"}},
                        "metadata": {"adk_type": "function_response"}}]}
        ]});
        let values = |task: &Value, protocol| -> Vec<Value> {
            task_events(task.clone(), protocol, &source(), KeepJson::Yes)
                .unwrap()
                .into_iter()
                .map(|e| e.value().unwrap())
                .collect()
        };
        let legacy = values(&legacy, Protocol::Legacy);
        assert_eq!(legacy, values(&v1, Protocol::V1));
        assert_eq!(legacy.len(), 3, "the repeated user message is read once");
        assert_eq!(
            legacy[1]["content"]["parts"][0]["function_call"]["args"],
            json!({"x": 1})
        );
        assert_eq!(
            legacy[2]["content"]["parts"][0]["function_response"]["response"],
            json!({"result": "ok"})
        );
        assert_eq!(legacy[0]["invocation_id"], "t");
    }

    #[test]
    fn a_kagent_1_task_is_one_turn_whatever_invocation_ids_it_carries() {
        let leftover = |id: &str| json!({"adk_invocation_id": id});
        let task = json!({"id": "t", "metadata": leftover("e-0"), "history": [
            {"messageId": "u", "role": "ROLE_USER", "parts": [{"text": "restart web"}]},
            {"messageId": "a1", "role": "ROLE_AGENT", "metadata": leftover("e-1"),
             "parts": [{"data": {"data": {"id": "c", "name": "restart", "args": {}}},
                        "metadata": {"kagent.dev/a2a/part-type": "function_call"}}]},
            {"messageId": "a2", "role": "ROLE_AGENT", "metadata": leftover("e-2"),
             "parts": [{"text": "restarted"}]}
        ]});
        let invocations: Vec<Value> =
            task_events(task.clone(), Protocol::V1, &source(), KeepJson::Yes)
                .unwrap()
                .iter()
                .map(|e| e.value().unwrap()["invocation_id"].clone())
                .collect();
        assert_eq!(invocations, ["t", "t", "t"]);
        let legacy = task_events(task.clone(), Protocol::Legacy, &source(), KeepJson::Yes).unwrap();
        assert_eq!(
            legacy[1].value().unwrap()["invocation_id"],
            "e-1",
            "a 0.3 message names its ADK invocation"
        );
    }

    #[test]
    fn a_failed_task_says_why_and_bad_tasks_are_named() {
        let failed = json!({"id": "t", "history": [], "status": {"state": "failed",
            "message": {"parts": [{"kind": "text", "text": "order A-17 does not exist"}]}}});
        let events =
            task_events(failed.clone(), Protocol::Legacy, &source(), KeepJson::Yes).unwrap();
        assert_eq!(
            events[0].value().unwrap()["error_message"],
            "order A-17 does not exist"
        );
        let odd = json!({"id": "t", "history": [{"role": "agent", "parts": [
            {"kind": "data", "data": {}, "metadata": {"kagent_type": "mystery"}}]}]});
        let issue =
            task_events(odd.clone(), Protocol::Legacy, &source(), KeepJson::No).unwrap_err();
        assert!(issue.to_string().contains("task t message 0"), "{issue}");
        assert!(Protocol::from_column(Some("0.3")).is_err());
        assert_eq!(Protocol::from_column(None), Ok(Protocol::Legacy));
    }

    #[test]
    fn a_kagent_1_result_answers_its_own_call_or_none_and_roles_are_not_guessed() {
        let call = |id: &str| {
            json!({"messageId": format!("c{id}"), "role": "ROLE_AGENT",
                "parts": [{"data": {"data": {"id": id, "name": "f", "args": {}}},
                           "metadata": {"kagent.dev/a2a/part-type": "function_call"}}]})
        };
        let result = |id: &str| {
            json!({"messageId": format!("r{id}"), "role": "ROLE_AGENT",
                "parts": [{"data": {"data": {"id": id, "name": "f", "response": {}}},
                           "metadata": {"kagent.dev/a2a/part-type": "function_response"}}]})
        };
        let paired =
            json!({"id": "t", "history": [call("1"), call("2"), result("2"), result("1")]});
        let answered: Vec<Value> =
            task_events(paired.clone(), Protocol::V1, &source(), KeepJson::Yes)
                .unwrap()
                .iter()
                .filter_map(|e| {
                    let value = e.value().unwrap();
                    Some(value["content"]["parts"][0].get("function_response")?["id"].clone())
                })
                .collect();
        assert_eq!(answered, ["2", "1"]);
        let orphan = json!({"id": "t", "history": [call("1"), result("9")]});
        let issue = task_events(orphan.clone(), Protocol::V1, &source(), KeepJson::No).unwrap_err();
        assert!(
            issue
                .to_string()
                .contains("answers call \"9\", which no call of this task makes"),
            "9 is no call's, and not paired with call 1: {issue}"
        );

        let unspecified = json!({"id": "t", "history": [
            {"messageId": "u", "role": "ROLE_UNSPECIFIED", "parts": [{"text": "hello"}]}]});
        let issue =
            task_events(unspecified.clone(), Protocol::V1, &source(), KeepJson::No).unwrap_err();
        assert!(
            issue.to_string().contains("role ROLE_UNSPECIFIED"),
            "{issue}"
        );
    }

    #[test]
    fn a_hitl_approval_request_and_its_answer_are_no_words_of_the_conversation() {
        let hitl = |kind: &str| json!({HITL_EXTENSION: {"type": kind}});
        let task = json!({"id": "t", "history": [
            {"messageId": "p", "role": "ROLE_AGENT", "metadata": hitl("tool_approval_request"),
             "parts": [{"text": "Approval is required for tool(s): delete_file"}]},
            {"messageId": "a", "role": "ROLE_USER", "metadata": hitl("tool_approval_response"),
             "parts": [{"text": "Approved"}]},
            {"messageId": "q", "role": "ROLE_AGENT", "metadata": hitl("ask_user_request"),
             "parts": [{"text": "Which database?"}]}
        ]});
        let texts: Vec<Value> = task_events(task.clone(), Protocol::V1, &source(), KeepJson::Yes)
            .unwrap()
            .iter()
            .map(|e| e.value().unwrap()["content"]["parts"][0]["text"].clone())
            .collect();
        assert_eq!(texts, [Value::Null, Value::Null, json!("Which database?")]);
    }
}
