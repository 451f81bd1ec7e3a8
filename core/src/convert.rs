//! ADK events to OpenAI-format messages, with an account of every event.
//!
//! The rules are kagent-agentevals': the speaker is decided by the part type
//! (tool calls recorded under `role: user` during a human-in-the-loop
//! confirmation are still the agent's), only plain text consults `author`,
//! `content.role` is never read, and runtime-injected `adk_` tools are dropped.
//! Two deliberate differences, each an option: model reasoning (`thought`
//! parts) is left out, and an MCP result carrying `structuredContent` is
//! unwrapped to its text like any other MCP result.

use crate::event::{Content, Event, Part};
use crate::pyjson::{self, Layout};
use crate::trajectory::{Function, Message, ToolCall};
use serde_json::Value;
use std::fmt;

/// The prefix of tools the ADK runtime injects (HITL confirmation and the like).
pub const INTERNAL_TOOL_PREFIX: &str = "adk_";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvertOptions {
    /// Drop `adk_*` tool calls and results.
    pub drop_internal_tools: bool,
    /// Further tool names to drop.
    pub deny_tools: Vec<String>,
    /// Keep streaming partial events (they duplicate the final event).
    pub include_partial: bool,
    /// Unwrap `{"result": ...}` and MCP envelopes in tool messages.
    pub unwrap_tool_output: bool,
    /// Keep `thought: true` text parts (model reasoning).
    pub include_thoughts: bool,
    /// Unwrap MCP envelopes that also carry `structuredContent`.
    pub unwrap_structured_content: bool,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        ConvertOptions {
            drop_internal_tools: true,
            deny_tools: Vec::new(),
            include_partial: false,
            unwrap_tool_output: true,
            include_thoughts: false,
            unwrap_structured_content: true,
        }
    }
}

impl ConvertOptions {
    pub fn is_dropped_tool(&self, name: &str) -> bool {
        self.deny_tools.iter().any(|d| d == name)
            || (self.drop_internal_tools && name.starts_with(INTERNAL_TOOL_PREFIX))
    }
}

/// What one event contributed to the trajectory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contribution<'e> {
    Call(&'e str),
    Result(&'e str),
    /// The whole text; shown as a snippet.
    Text(&'e str),
    Thought(&'e str),
}

impl fmt::Display for Contribution<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Contribution::Call(name) => write!(f, "call {name}"),
            Contribution::Result(name) => write!(f, "result {name}"),
            Contribution::Text(text) => write!(f, "text \"{}\"", snippet(text)),
            Contribution::Thought(text) => write!(f, "thought \"{}\"", snippet(text)),
        }
    }
}

/// Why an event contributed nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkipReason {
    StreamingPartial,
    NoContent,
    NoParts,
    /// Every readable part was dropped: these tools, or `(thought)`.
    Filtered(Vec<String>),
    NothingScorable,
    /// An error in place of content (kagent's failed task, a model error):
    /// no message of the trajectory, as the reference converter reads it,
    /// and named here so that it is seen.
    AgentError {
        code: String,
        message: String,
    },
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::StreamingPartial => f.write_str("streaming partial"),
            SkipReason::NoContent => f.write_str("no content"),
            SkipReason::NoParts => f.write_str("no parts"),
            SkipReason::Filtered(names) => write!(f, "filtered: {}", names.join(", ")),
            SkipReason::NothingScorable => f.write_str("nothing scorable"),
            SkipReason::AgentError { code, message } if message.is_empty() => {
                write!(f, "error {code}")
            }
            SkipReason::AgentError { code, message } => write!(f, "error {code}: {message}"),
        }
    }
}

/// Contributions of one event the account lists by name.
const CONTRIBUTIONS_LISTED: usize = 20;

/// One row of the account: every event gets one. It borrows from the
/// event: accounting costs a conversion little.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventAccount<'e> {
    pub index: usize,
    pub event_id: &'e str,
    pub author: &'e str,
    pub role: &'e str,
    pub invocation_id: &'e str,
    pub contributed: Vec<Contribution<'e>>,
    /// Tools (or `(thought)`) dropped from an event that still contributed.
    pub dropped: Vec<String>,
    pub skipped: Option<SkipReason>,
}

impl EventAccount<'_> {
    /// The account column: contributions, or why there were none.
    pub fn describe(&self) -> String {
        if let Some(reason) = &self.skipped {
            return reason.to_string();
        }
        // An event of thousands of parts is summed up, not listed whole.
        let mut text = self
            .contributed
            .iter()
            .take(CONTRIBUTIONS_LISTED)
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        if let Some(more) = self.contributed.len().checked_sub(CONTRIBUTIONS_LISTED)
            && more > 0
        {
            text.push_str(&format!("; and {more} more part(s)"));
        }
        if !self.dropped.is_empty() {
            text.push_str(&format!("; dropped {}", self.dropped.join(", ")));
        }
        text
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conversion<'e> {
    pub messages: Vec<Message>,
    pub account: Vec<EventAccount<'e>>,
}

impl Conversion<'_> {
    /// `N events, K contributed -> M messages, tools: a, b`.
    pub fn footer(&self) -> String {
        let contributed = self.account.iter().filter(|a| a.skipped.is_none()).count();
        let tools = tool_names(&self.messages);
        let mut unique: Vec<&str> = Vec::new();
        for name in tools {
            if !unique.contains(&name) {
                unique.push(name);
            }
        }
        format!(
            "{} events, {} contributed -> {} messages, tools: {}",
            self.account.len(),
            contributed,
            self.messages.len(),
            if unique.is_empty() {
                "(none)".to_string()
            } else {
                unique.join(", ")
            }
        )
    }
}

/// The tool-call names of a trajectory, in order.
pub fn tool_names(messages: &[Message]) -> impl Iterator<Item = &str> {
    messages
        .iter()
        .flat_map(|m| m.tool_calls.iter().flatten())
        .map(|c| c.function.name.as_str())
}

/// Convert events, oldest first, into messages and their account.
pub fn convert<'e>(
    events: impl IntoIterator<Item = &'e Event>,
    options: &ConvertOptions,
) -> Conversion<'e> {
    let mut out = Conversion::default();
    for (index, event) in events.into_iter().enumerate() {
        let account = convert_event(index, event, options, &mut out.messages);
        out.account.push(account);
    }
    out
}

/// The messages of [`convert`], each event's made as the iterator reaches
/// it: a large session's trajectory need not be held whole.
pub fn messages_by_event<'e>(
    events: impl IntoIterator<Item = &'e Event>,
    options: &ConvertOptions,
) -> impl Iterator<Item = Message> {
    events.into_iter().enumerate().flat_map(|(index, event)| {
        let mut messages = Vec::new();
        convert_event(index, event, options, &mut messages);
        messages
    })
}

/// Text and tool calls of one event gather into one assistant message.
#[derive(Default)]
struct AssistantBuffer {
    texts: Vec<String>,
    calls: Vec<ToolCall>,
}

impl AssistantBuffer {
    fn flush_into(&mut self, messages: &mut Vec<Message>) {
        if self.texts.is_empty() && self.calls.is_empty() {
            return;
        }
        let mut message = Message::text("assistant", self.texts.join("\n"));
        if !self.calls.is_empty() {
            message.tool_calls = Some(std::mem::take(&mut self.calls));
        }
        self.texts.clear();
        messages.push(message);
    }
}

fn convert_event<'e>(
    index: usize,
    event: &'e Event,
    options: &ConvertOptions,
    messages: &mut Vec<Message>,
) -> EventAccount<'e> {
    let mut account = EventAccount {
        index,
        event_id: event.id.as_deref().unwrap_or_default(),
        author: event.author.as_deref().unwrap_or_default(),
        role: event.content.role().unwrap_or_default(),
        invocation_id: event.invocation(),
        contributed: Vec::new(),
        dropped: Vec::new(),
        skipped: None,
    };
    let parts = match &event.content {
        _ if event.partial && !options.include_partial => {
            account.skipped = Some(SkipReason::StreamingPartial);
            return account;
        }
        Content::Missing | Content::NoParts { .. } if event.error_code.is_some() => {
            account.skipped = Some(SkipReason::AgentError {
                code: event.error_code.clone().unwrap_or_default(),
                message: event.error_message.clone().unwrap_or_default(),
            });
            return account;
        }
        Content::Missing => {
            account.skipped = Some(SkipReason::NoContent);
            return account;
        }
        Content::NoParts { .. } => {
            account.skipped = Some(SkipReason::NoParts);
            return account;
        }
        Content::Parts { parts, .. } => parts,
    };
    let from_user = event.author.as_deref() == Some("user");
    let mut buffer = AssistantBuffer::default();
    for part in parts {
        match part {
            Part::FunctionResponse { id, name, response } => {
                if options.is_dropped_tool(name) {
                    account.dropped.push(name.clone());
                    continue;
                }
                // A call that waits for approval first gets this placeholder
                // from kagent's approval callback; its result follows once
                // the user decides. One call, one result: the real one.
                if is_awaiting_approval(response) {
                    account
                        .dropped
                        .push(format!("{} (awaiting approval)", name_or_unknown(name)));
                    continue;
                }
                buffer.flush_into(messages);
                messages.push(Message {
                    role: "tool".into(),
                    content: Value::String(stringify_tool_output(response, options)),
                    tool_calls: None,
                    tool_call_id: id.clone().filter(|i| !i.is_empty()),
                    name: Some(name.clone()).filter(|n| !n.is_empty()),
                });
                account
                    .contributed
                    .push(Contribution::Result(name_or_unknown(name)));
            }
            Part::FunctionCall { id, name, args } => {
                if options.is_dropped_tool(name) {
                    account.dropped.push(name.clone());
                    continue;
                }
                // Python's `args or {}`: any falsy args become an empty object.
                let arguments = if pyjson::truthy(args) {
                    pyjson::dumps_sorted(args, Layout::Spaced)
                } else {
                    "{}".to_string()
                };
                buffer.calls.push(ToolCall {
                    kind: "function".into(),
                    function: Function {
                        name: name.clone(),
                        arguments: Value::String(arguments),
                    },
                    id: id.clone().filter(|i| !i.is_empty()),
                });
                account
                    .contributed
                    .push(Contribution::Call(name_or_unknown(name)));
            }
            Part::Text { thought: true, .. } if !options.include_thoughts => {
                account.dropped.push("(thought)".into());
            }
            Part::Text { text, thought } => {
                if from_user {
                    buffer.flush_into(messages);
                    messages.push(Message::text("user", text.clone()));
                } else {
                    buffer.texts.push(text.clone());
                }
                account.contributed.push(if *thought {
                    Contribution::Thought(text)
                } else {
                    Contribution::Text(text)
                });
            }
            Part::Other => {}
        }
    }
    buffer.flush_into(messages);
    if account.contributed.is_empty() {
        let mut dropped = std::mem::take(&mut account.dropped);
        account.skipped = Some(if dropped.is_empty() {
            SkipReason::NothingScorable
        } else {
            dropped.sort();
            dropped.dedup();
            SkipReason::Filtered(dropped)
        });
    }
    account
}

/// kagent's `{"status": "confirmation_requested", "tool": NAME}`.
fn is_awaiting_approval(response: &Value) -> bool {
    response.get("status").and_then(Value::as_str) == Some("confirmation_requested")
        && response.as_object().is_some_and(|o| o.len() <= 2)
}

fn name_or_unknown(name: &str) -> &str {
    if name.is_empty() { "?" } else { name }
}

/// Whitespace collapsed, at most 44 characters.
fn snippet(text: &str) -> String {
    let collapsed = pyjson::split_whitespace(text).collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() > 44 {
        let mut short: String = collapsed.chars().take(43).collect();
        short.push('…');
        short
    } else {
        collapsed
    }
}

const ENVELOPE_KEYS: [&str; 4] = ["result", "response", "output", "content"];
const TOOL_ERROR_PREFIX: &str = "[tool error] ";

/// A tool's result as text: MCP envelopes become their text (flagged when
/// `isError`), a one-key `{"result": ...}`-style wrapper is opened one level,
/// text-block lists are joined, strings stay, anything else is compact JSON.
pub fn stringify_tool_output(response: &Value, options: &ConvertOptions) -> String {
    let unwrap = options.unwrap_tool_output;
    let mut prefix = "";
    let mut value = response;
    let joined_envelope;
    let is_envelope_key = |k: &String| {
        k == "content"
            || k == "isError"
            || (options.unwrap_structured_content && k == "structuredContent")
    };
    if unwrap
        && let Value::Object(obj) = value
        && let Some(Value::Array(blocks)) = obj.get("content")
        && obj.keys().all(is_envelope_key)
        && let Some(joined) = join_text_blocks(blocks)
    {
        if obj.get("isError").is_some_and(pyjson::truthy) {
            prefix = TOOL_ERROR_PREFIX;
        }
        joined_envelope = Value::String(joined);
        value = &joined_envelope;
    }
    if unwrap
        && let Value::Object(obj) = value
        && obj.len() == 1
        && let Some((key, inner)) = obj.iter().next()
        && ENVELOPE_KEYS.contains(&key.as_str())
    {
        value = inner;
    }
    let joined_list;
    if unwrap
        && let Value::Array(blocks) = value
        && let Some(joined) = join_text_blocks(blocks)
    {
        joined_list = Value::String(joined);
        value = &joined_list;
    }
    match value {
        Value::String(s) => format!("{prefix}{s}"),
        other => format!("{prefix}{}", pyjson::dumps_sorted(other, Layout::Compact)),
    }
}

/// The text of a non-empty list of `{"type": "text"}` blocks, else `None`.
fn join_text_blocks(blocks: &[Value]) -> Option<String> {
    let all_text = !blocks.is_empty()
        && blocks
            .iter()
            .all(|b| b.get("type").and_then(Value::as_str) == Some("text"));
    all_text.then(|| {
        blocks
            .iter()
            .map(|b| b.get("text").map(pyjson::py_str).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// Events grouped by invocation, groups in first-seen order. kagent's
/// `header_update` pseudo-invocation is a group like any other.
pub fn split_by_invocation<'e>(
    events: impl IntoIterator<Item = &'e Event>,
) -> Vec<(String, Vec<&'e Event>)> {
    let mut groups: Vec<(String, Vec<&Event>)> = Vec::new();
    for event in events {
        let id = event.invocation();
        match groups.iter_mut().find(|(key, _)| key == id) {
            Some((_, group)) => group.push(event),
            None => groups.push((id.to_string(), vec![event])),
        }
    }
    groups
}

/// The synthetic invocation kagent uses for request-header events.
pub const HEADER_UPDATE_INVOCATION: &str = "header_update";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn events(values: &[Value]) -> Vec<Event> {
        values.iter().map(|v| Event::from_json(v).0).collect()
    }

    #[test]
    fn stringify_follows_the_reference_rules() {
        let o = ConvertOptions::default();
        let s = |v: Value| stringify_tool_output(&v, &o);
        assert_eq!(s(json!({"result": "sunny"})), "sunny");
        assert_eq!(
            s(
                json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "isError": false})
            ),
            "a\nb"
        );
        assert_eq!(
            s(json!({"content": [{"type": "text", "text": "boom"}], "isError": true})),
            "[tool error] boom"
        );
        assert_eq!(s(json!({"result": [{"type": "text", "text": "x"}]})), "x");
        assert_eq!(
            s(json!({"result": {"b": 1, "a": [1.0, "é"]}})),
            r#"{"a":[1.0,"é"],"b":1}"#
        );
        assert_eq!(
            s(json!({"content": [{"type": "image"}]})),
            r#"[{"type":"image"}]"#
        );
        assert_eq!(
            s(json!({"content": [{"type": "text", "text": "t"}], "extra": 1})),
            r#"{"content":[{"text":"t","type":"text"}],"extra":1}"#
        );
        assert_eq!(s(json!(null)), "null");
        assert_eq!(s(json!(5)), "5");
        assert_eq!(s(json!({"content": [{"type": "text"}]})), "");
        let structured =
            json!({"content": [{"type": "text", "text": "t"}], "structuredContent": {"t": 1}});
        assert_eq!(s(structured.clone()), "t");
        let reference = ConvertOptions {
            unwrap_structured_content: false,
            ..o.clone()
        };
        assert_eq!(
            stringify_tool_output(&structured, &reference),
            r#"{"content":[{"text":"t","type":"text"}],"structuredContent":{"t":1}}"#
        );
        let raw = ConvertOptions {
            unwrap_tool_output: false,
            ..o
        };
        assert_eq!(
            stringify_tool_output(&json!({"result": "x"}), &raw),
            r#"{"result":"x"}"#
        );
        assert_eq!(stringify_tool_output(&json!("plain"), &raw), "plain");
    }

    #[test]
    fn one_event_makes_one_assistant_message_and_flushes_around_results() {
        let evs = events(&[json!({
            "author": "agent",
            "content": {"role": "model", "parts": [
                {"text": "thinking aloud"},
                {"function_call": {"id": "c1", "name": "a", "args": {"z": 1, "y": {"b": 2, "a": 1}}}},
                {"function_response": {"id": "c1", "name": "a", "response": {"result": "ok"}}},
                {"function_call": {"name": "b", "args": null}}
            ]}
        })]);
        let c = convert(&evs, &ConvertOptions::default());
        let json = serde_json::to_value(&c.messages).unwrap();
        assert_eq!(
            json,
            json!([
                {"role": "assistant", "content": "thinking aloud", "tool_calls": [
                    {"type": "function", "function": {"name": "a", "arguments": "{\"y\": {\"a\": 1, \"b\": 2}, \"z\": 1}"}, "id": "c1"}
                ]},
                {"role": "tool", "content": "ok", "tool_call_id": "c1", "name": "a"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"type": "function", "function": {"name": "b", "arguments": "{}"}}
                ]}
            ])
        );
    }

    #[test]
    fn thoughts_are_excluded_unless_asked_for() {
        let evs = events(&[json!({
            "author": "agent",
            "content": {"parts": [{"text": "secret plan", "thought": true}]}
        })]);
        let c = convert(&evs, &ConvertOptions::default());
        assert!(c.messages.is_empty());
        assert_eq!(c.account[0].describe(), "filtered: (thought)");
        let with = ConvertOptions {
            include_thoughts: true,
            ..Default::default()
        };
        let c = convert(&evs, &with);
        assert_eq!(c.messages[0].content, json!("secret plan"));
        assert_eq!(c.account[0].describe(), "thought \"secret plan\"");
    }

    #[test]
    fn an_error_in_place_of_content_is_named_in_the_account_not_the_messages() {
        let events = events(&[
            json!({"author": "agent", "error_code": "TASK_FAILED", "error_message": "llm error"}),
            json!({"author": "agent", "error_code": "MALFORMED_FUNCTION_CALL"}),
        ]);
        let conversion = convert(&events, &ConvertOptions::default());
        assert!(conversion.messages.is_empty());
        let said: Vec<String> = conversion.account.iter().map(|a| a.describe()).collect();
        assert_eq!(
            said,
            [
                "error TASK_FAILED: llm error",
                "error MALFORMED_FUNCTION_CALL"
            ]
        );
    }

    #[test]
    fn an_event_of_many_parts_is_summed_up_in_its_account_row() {
        let parts: Vec<Value> = (0..25).map(|i| json!({"text": format!("t{i}")})).collect();
        let events = events(&[json!({"author": "agent", "content": {"parts": parts}})]);
        let conversion = convert(&events, &ConvertOptions::default());
        let said = conversion.account[0].describe();
        assert!(said.ends_with("; and 5 more part(s)"), "{said}");
        assert_eq!(said.matches("; ").count(), 20, "{said}");
    }

    #[test]
    fn every_event_gets_an_account_row() {
        let evs = events(&[
            json!({"partial": true, "content": {"parts": [{"text": "x"}]}}),
            json!({"content": null}),
            json!({"content": {"parts": []}}),
            json!({"content": {"parts": [{"function_call": {"name": "adk_request_confirmation"}}]}}),
            json!({"content": {"parts": [{"text": "  "}]}}),
            json!({"author": "user", "content": {"parts": [{"text": "a long question that will not fit in one snippet at all"}]}}),
        ]);
        let c = convert(&evs, &ConvertOptions::default());
        let rows: Vec<String> = c.account.iter().map(EventAccount::describe).collect();
        assert_eq!(
            rows,
            [
                "streaming partial",
                "no content",
                "no parts",
                "filtered: adk_request_confirmation",
                "nothing scorable",
                "text \"a long question that will not fit in one sn…\"",
            ]
        );
        assert_eq!(
            c.footer(),
            "6 events, 1 contributed -> 1 messages, tools: (none)"
        );
    }

    #[test]
    fn invocations_group_in_first_seen_order() {
        let evs = events(&[
            json!({"invocation_id": "header_update"}),
            json!({"invocation_id": "a"}),
            json!({"invocation_id": "header_update"}),
            json!({"invocation_id": "b"}),
            json!({}),
        ]);
        let groups = split_by_invocation(&evs);
        let shape: Vec<(&str, usize)> = groups.iter().map(|(k, g)| (k.as_str(), g.len())).collect();
        assert_eq!(shape, [("header_update", 2), ("a", 1), ("b", 1), ("", 1)]);
    }
}
