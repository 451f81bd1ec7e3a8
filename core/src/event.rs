//! ADK events as kagent stores them.
//!
//! Three spellings reach us: the Python runtime's `model_dump_json()` (snake
//! case, every optional field present as `null`, float epoch timestamps), the
//! Go runtime's `json.Marshal` of untagged structs (PascalCase at the top,
//! camelCase inside `Content`, RFC 3339 timestamps) and adk-go 2.2's tagged
//! structs (camelCase throughout). [`Event::from_json`] reads all three into
//! one model. A field of the wrong type is reported and treated as absent, so
//! one odd field never costs the rest of the event, let alone the session.

use crate::pyjson;
use jiff::Timestamp;
use serde_json::{Map, Value};
use std::fmt;

/// One ADK event, normalised.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Event {
    pub id: Option<String>,
    pub invocation_id: Option<String>,
    pub author: Option<String>,
    pub timestamp: Option<Timestamp>,
    /// A streaming delta; the final event of the step repeats its content.
    pub partial: bool,
    pub content: Content,
    pub usage: Option<Usage>,
    /// Why the usage metadata could not be read (a negative or fractional
    /// count, say): the tokens are then unmeasured, not the event unread.
    pub usage_problem: Option<String>,
    /// Why the timestamp could not be read: the latency is then unmeasured.
    pub time_problem: Option<String>,
    /// The model that produced the event, for pricing.
    pub model: Option<String>,
    pub end_of_agent: bool,
    pub error_code: Option<String>,
    pub error_message: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub enum Content {
    /// `content` is absent, null or not an object.
    #[default]
    Missing,
    /// `content.parts` is absent or not a non-empty list.
    NoParts { role: Option<String> },
    Parts {
        role: Option<String>,
        parts: Vec<Part>,
    },
}

impl Content {
    pub fn role(&self) -> Option<&str> {
        match self {
            Content::Missing => None,
            Content::NoParts { role } | Content::Parts { role, .. } => role.as_deref(),
        }
    }
}

/// One part of an event's content, classified the way the converter reads it:
/// a function response wins over a function call, which wins over text.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    FunctionResponse {
        id: Option<String>,
        name: String,
        response: Value,
    },
    FunctionCall {
        id: Option<String>,
        name: String,
        args: Value,
    },
    Text {
        text: String,
        thought: bool,
    },
    /// Nothing the converter reads: blank text, inline data, a non-object.
    Other,
}

/// Token counts from `usage_metadata`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub prompt_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    pub total_tokens: Option<u64>,
    /// The model's reasoning (Gemini's thoughts), for ADK's token metric.
    pub thoughts_tokens: Option<u64>,
    /// A tool's prompt, for ADK's token metric.
    pub tool_use_prompt_tokens: Option<u64>,
}

impl Usage {
    /// The total, or prompt plus completion where the runtime left it out.
    pub fn total(&self) -> u64 {
        self.total_tokens.unwrap_or_else(|| {
            self.prompt_tokens.unwrap_or(0) + self.completion_tokens.unwrap_or(0)
        })
    }
}

/// A field that was present with a type we could not use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldIssue {
    /// Dotted path as spelled in the input, e.g. `content.parts[0].text`.
    pub path: String,
    pub problem: String,
}

impl fmt::Display for FieldIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field `{}`: {}", self.path, self.problem)
    }
}

/// Accepted spellings of each field, Python first.
mod names {
    pub const ID: &[&str] = &["id", "ID"];
    pub const INVOCATION_ID: &[&str] = &["invocation_id", "InvocationID", "invocationId"];
    pub const AUTHOR: &[&str] = &["author", "Author"];
    pub const TIMESTAMP: &[&str] = &["timestamp", "Timestamp"];
    pub const PARTIAL: &[&str] = &["partial", "Partial"];
    pub const CONTENT: &[&str] = &["content", "Content"];
    pub const USAGE: &[&str] = &["usage_metadata", "UsageMetadata", "usageMetadata"];
    pub const MODEL: &[&str] = &["model_version", "ModelVersion", "modelVersion"];
    pub const ACTIONS: &[&str] = &["actions", "Actions"];
    pub const END_OF_AGENT: &[&str] = &["end_of_agent", "EndOfAgent", "endOfAgent"];
    pub const ERROR_CODE: &[&str] = &["error_code", "ErrorCode", "errorCode"];
    pub const ERROR_MESSAGE: &[&str] = &["error_message", "ErrorMessage", "errorMessage"];
    pub const PARTS: &[&str] = &["parts", "Parts"];
    pub const ROLE: &[&str] = &["role", "Role"];
    pub const FUNCTION_CALL: &[&str] = &["function_call", "functionCall", "FunctionCall"];
    pub const FUNCTION_RESPONSE: &[&str] =
        &["function_response", "functionResponse", "FunctionResponse"];
    pub const TEXT: &[&str] = &["text", "Text"];
    pub const THOUGHT: &[&str] = &["thought", "Thought"];
    pub const NAME: &[&str] = &["name", "Name"];
    pub const ARGS: &[&str] = &["args", "Args"];
    pub const RESPONSE: &[&str] = &["response", "Response"];
    pub const PROMPT_TOKENS: &[&str] =
        &["prompt_token_count", "promptTokenCount", "PromptTokenCount"];
    pub const COMPLETION_TOKENS: &[&str] = &[
        "candidates_token_count",
        "candidatesTokenCount",
        "CandidatesTokenCount",
    ];
    pub const TOTAL_TOKENS: &[&str] = &["total_token_count", "totalTokenCount", "TotalTokenCount"];
    pub const THOUGHTS_TOKENS: &[&str] = &[
        "thoughts_token_count",
        "thoughtsTokenCount",
        "ThoughtsTokenCount",
    ];
    pub const TOOL_USE_PROMPT_TOKENS: &[&str] = &[
        "tool_use_prompt_token_count",
        "toolUsePromptTokenCount",
        "ToolUsePromptTokenCount",
    ];
}

impl Event {
    /// Read one event. Never fails: what cannot be used is reported.
    pub fn from_json(value: &Value) -> (Event, Vec<FieldIssue>) {
        let mut reader = Reader::default();
        let event = match value.as_object() {
            Some(obj) => reader.event(obj),
            None => {
                reader.issue(&EVENT, format!("expected an object, found {}", kind(value)));
                Event::default()
            }
        };
        (event, reader.issues)
    }

    /// The invocation this event belongs to, `""` when it names none.
    pub fn invocation(&self) -> &str {
        self.invocation_id.as_deref().unwrap_or("")
    }
}

/// Go's zero `time.Time` (0001-01-01T00:00:00Z, or before) means "unset".
pub(crate) fn is_go_zero_time(time: Timestamp) -> bool {
    const GO_ZERO_TIME: i64 = -62_135_596_800;
    time.as_second() <= GO_ZERO_TIME
}

#[derive(Default)]
struct Reader {
    issues: Vec<FieldIssue>,
}

/// Where in an event a field is, spelled only when an issue names it (a
/// run reads millions of fields and reports few).
#[derive(Clone, Copy)]
enum At<'p> {
    Event,
    Field(&'p At<'p>, &'static str),
    Item(&'p At<'p>, usize),
}

const EVENT: At<'static> = At::Event;

impl fmt::Display for At<'_> {
    /// Dotted as spelled in the input, e.g. `content.parts[0].text`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            At::Event => Ok(()),
            At::Field(At::Event, name) => f.write_str(name),
            At::Field(parent, name) => write!(f, "{parent}.{name}"),
            At::Item(parent, index) => write!(f, "{parent}[{index}]"),
        }
    }
}

/// The first spelling present with a non-null value, and where it is.
/// One pass over the object's few keys: most fields are looked up in
/// three spellings and are absent, and hashing each spelling to learn so
/// cost more than the rest of the reading.
fn lookup<'v, 'p>(
    obj: &'v Map<String, Value>,
    spellings: &[&'static str],
    at: &'p At<'p>,
) -> Option<(At<'p>, &'v Value)> {
    let mut first: Option<(usize, &'v Value)> = None;
    for (key, value) in obj {
        if value.is_null() {
            continue;
        }
        if let Some(rank) = spellings.iter().position(|name| name == key)
            && first.is_none_or(|(best, _)| rank < best)
        {
            first = Some((rank, value));
        }
    }
    first.map(|(rank, value)| (At::Field(at, spellings[rank]), value))
}

/// How a JSON value is described in messages ("a list", "a string").
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

impl Reader {
    fn issue(&mut self, at: &At<'_>, problem: impl Into<String>) {
        self.issues.push(FieldIssue {
            path: match at {
                At::Event => "(event)".into(),
                at => at.to_string(),
            },
            problem: problem.into(),
        });
    }

    fn mismatch(&mut self, path: &At<'_>, expected: &str, found: &Value) {
        self.issue(path, format!("expected {expected}, found {}", kind(found)));
    }

    fn string(
        &mut self,
        obj: &Map<String, Value>,
        spellings: &[&'static str],
        at: &At<'_>,
    ) -> Option<String> {
        let (path, value) = lookup(obj, spellings, at)?;
        match value {
            Value::String(s) => Some(s.clone()),
            other => {
                self.mismatch(&path, "a string", other);
                None
            }
        }
    }

    /// A flag read with Python truthiness (the reference tests `if event.get(...)`),
    /// reported when it is not a boolean.
    fn flag(&mut self, obj: &Map<String, Value>, spellings: &[&'static str], at: &At<'_>) -> bool {
        match lookup(obj, spellings, at) {
            None => false,
            Some((_, Value::Bool(b))) => *b,
            Some((path, other)) => {
                self.mismatch(&path, "a boolean", other);
                pyjson::truthy(other)
            }
        }
    }

    fn count(
        &mut self,
        obj: &Map<String, Value>,
        spellings: &[&'static str],
        at: &At<'_>,
    ) -> Option<u64> {
        let (path, value) = lookup(obj, spellings, at)?;
        match value.as_u64() {
            Some(n) => Some(n),
            None => {
                self.mismatch(&path, "a non-negative integer", value);
                None
            }
        }
    }

    fn object<'v, 'p>(
        &mut self,
        obj: &'v Map<String, Value>,
        spellings: &[&'static str],
        at: &'p At<'p>,
    ) -> Option<(At<'p>, &'v Map<String, Value>)> {
        let (path, value) = lookup(obj, spellings, at)?;
        match value {
            Value::Object(inner) => Some((path, inner)),
            other => {
                self.mismatch(&path, "an object", other);
                None
            }
        }
    }

    /// A field that only measures (a time, token counts): what of it could
    /// not be read leaves that measure unmeasured, with the reason, and the
    /// event readable.
    fn measured<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Option<T>,
    ) -> (Option<T>, Option<String>) {
        let before = self.issues.len();
        let value = read(self);
        let problems: Vec<String> = self.issues.drain(before..).map(|i| i.to_string()).collect();
        (value, (!problems.is_empty()).then(|| problems.join("; ")))
    }

    fn event(&mut self, obj: &Map<String, Value>) -> Event {
        let actions = self.object(obj, names::ACTIONS, &EVENT);
        let end_of_agent = match actions {
            Some((path, actions)) => self.flag(actions, names::END_OF_AGENT, &path),
            None => false,
        };
        let (timestamp, time_problem) = self.measured(|r| r.timestamp(obj));
        let (usage, usage_problem) = self.measured(|r| r.usage(obj));
        Event {
            id: self.string(obj, names::ID, &EVENT),
            invocation_id: self.string(obj, names::INVOCATION_ID, &EVENT),
            author: self.string(obj, names::AUTHOR, &EVENT),
            timestamp,
            time_problem,
            partial: self.flag(obj, names::PARTIAL, &EVENT),
            content: self.content(obj),
            usage,
            usage_problem,
            model: self.string(obj, names::MODEL, &EVENT),
            end_of_agent,
            error_code: self.scalar_text(obj, names::ERROR_CODE),
            error_message: self.string(obj, names::ERROR_MESSAGE, &EVENT),
        }
    }

    /// Error codes are strings in Python and sometimes numbers elsewhere.
    fn scalar_text(
        &mut self,
        obj: &Map<String, Value>,
        spellings: &[&'static str],
    ) -> Option<String> {
        let (path, value) = lookup(obj, spellings, &EVENT)?;
        match value {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            other => {
                self.mismatch(&path, "a string", other);
                None
            }
        }
    }

    fn timestamp(&mut self, obj: &Map<String, Value>) -> Option<Timestamp> {
        let (path, value) = lookup(obj, names::TIMESTAMP, &EVENT)?;
        let parsed = match value {
            Value::Number(n) => n
                .as_f64()
                .filter(|secs| *secs >= 0.0)
                .and_then(|secs| jiff::SignedDuration::try_from_secs_f64(secs).ok())
                .and_then(|d| Timestamp::from_duration(d).ok()),
            Value::String(s) => s.parse::<Timestamp>().ok(),
            other => {
                self.mismatch(&path, "epoch seconds or an RFC 3339 time", other);
                return None;
            }
        };
        if parsed.is_none() {
            self.issue(&path, "not a valid time");
        }
        parsed.filter(|t| !is_go_zero_time(*t))
    }

    fn usage(&mut self, obj: &Map<String, Value>) -> Option<Usage> {
        let (path, usage) = self.object(obj, names::USAGE, &EVENT)?;
        Some(Usage {
            prompt_tokens: self.count(usage, names::PROMPT_TOKENS, &path),
            completion_tokens: self.count(usage, names::COMPLETION_TOKENS, &path),
            total_tokens: self.count(usage, names::TOTAL_TOKENS, &path),
            thoughts_tokens: self.count(usage, names::THOUGHTS_TOKENS, &path),
            tool_use_prompt_tokens: self.count(usage, names::TOOL_USE_PROMPT_TOKENS, &path),
        })
    }

    fn content(&mut self, obj: &Map<String, Value>) -> Content {
        let Some((path, content)) = self.object(obj, names::CONTENT, &EVENT) else {
            return Content::Missing;
        };
        let role = self.string(content, names::ROLE, &path);
        let (parts_path, parts) = match lookup(content, names::PARTS, &path) {
            Some((parts_path, Value::Array(parts))) if !parts.is_empty() => (parts_path, parts),
            Some((_, Value::Array(_))) | None => return Content::NoParts { role },
            Some((parts_path, other)) => {
                self.mismatch(&parts_path, "a list", other);
                return Content::NoParts { role };
            }
        };
        let parts = parts
            .iter()
            .enumerate()
            .map(|(i, part)| self.part(part, &At::Item(&parts_path, i)))
            .collect();
        Content::Parts { role, parts }
    }

    fn part(&mut self, part: &Value, path: &At<'_>) -> Part {
        let Some(obj) = part.as_object() else {
            self.mismatch(path, "an object", part);
            return Part::Other;
        };
        if let Some((response_path, response)) = self.object(obj, names::FUNCTION_RESPONSE, path) {
            return Part::FunctionResponse {
                id: self.string(response, names::ID, &response_path),
                name: self
                    .string(response, names::NAME, &response_path)
                    .unwrap_or_default(),
                response: lookup(response, names::RESPONSE, &response_path)
                    .map_or(Value::Null, |(_, v)| v.clone()),
            };
        }
        if let Some((call_path, call)) = self.object(obj, names::FUNCTION_CALL, path) {
            return Part::FunctionCall {
                id: self.string(call, names::ID, &call_path),
                name: self
                    .string(call, names::NAME, &call_path)
                    .unwrap_or_default(),
                args: lookup(call, names::ARGS, &call_path).map_or(Value::Null, |(_, v)| v.clone()),
            };
        }
        match self.string(obj, names::TEXT, path) {
            Some(text) if !pyjson::strip(&text).is_empty() => Part::Text {
                thought: self.flag(obj, names::THOUGHT, path),
                text,
            },
            _ => Part::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_first_spelling_with_a_value_wins_wherever_it_is_in_the_object() {
        let (event, issues) = Event::from_json(&json!({
            "ID": "go", "invocationId": "tagged", "id": "python",
            "Author": "go", "author": null,
            "InvocationID": "go", "invocation_id": null,
        }));
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(
            event.id.as_deref(),
            Some("python"),
            "Python's spelling first"
        );
        assert_eq!(event.author.as_deref(), Some("go"), "a null is absent");
        assert_eq!(
            event.invocation_id.as_deref(),
            Some("go"),
            "Go's before the tagged, whatever the order of the keys"
        );
    }

    #[test]
    fn reads_python_go_and_tagged_go_spellings_alike() {
        let python = json!({
            "id": "e1", "invocation_id": "inv", "author": "agent", "partial": null,
            "timestamp": 1788465896.5,
            "content": {"role": "model", "parts": [
                {"text": null, "function_call": {"id": "c1", "name": "get", "args": {"city": "London"}}, "function_response": null}
            ]},
            "usage_metadata": {"prompt_token_count": 10, "candidates_token_count": 5, "total_token_count": 15},
            "actions": {"end_of_agent": null}
        });
        let go = json!({
            "ID": "e1", "InvocationID": "inv", "Author": "agent", "Partial": false,
            "Timestamp": "2026-09-03T20:04:56.5Z",
            "Content": {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "get", "args": {"city": "London"}}}]},
            "UsageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "Actions": {"StateDelta": {}}
        });
        let tagged = json!({
            "id": "e1", "invocationId": "inv", "author": "agent",
            "timestamp": "2026-09-03T20:04:56.5Z",
            "content": {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "get", "args": {"city": "London"}}}]},
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
        });
        let (a, ia) = Event::from_json(&python);
        let (b, ib) = Event::from_json(&go);
        let (c, ic) = Event::from_json(&tagged);
        assert!(
            ia.is_empty() && ib.is_empty() && ic.is_empty(),
            "{ia:?} {ib:?} {ic:?}"
        );
        assert_eq!(a, b);
        assert_eq!(b, c);
        assert_eq!(a.usage.unwrap().total(), 15);
        assert_eq!(a.timestamp.unwrap().as_millisecond(), 1788465896500);
    }

    #[test]
    fn a_field_of_the_wrong_type_is_reported_and_the_rest_is_kept() {
        let value = json!({
            "author": 7, "invocation_id": "inv", "timestamp": true,
            "content": {"parts": [{"text": "hello"}, "junk", {"function_call": "not an object", "text": " "}]}
        });
        let (event, issues) = Event::from_json(&value);
        assert_eq!(event.invocation_id.as_deref(), Some("inv"));
        assert_eq!(event.author, None);
        let Content::Parts { parts, .. } = &event.content else {
            panic!("{:?}", event.content)
        };
        assert_eq!(
            parts[0],
            Part::Text {
                text: "hello".into(),
                thought: false
            }
        );
        assert_eq!(parts[1], Part::Other);
        assert_eq!(parts[2], Part::Other);
        let paths: Vec<_> = issues.iter().map(|i| i.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "author",
                "content.parts[1]",
                "content.parts[2].function_call"
            ]
        );
        // A time only measures: the event stays readable, its latency not.
        assert_eq!(
            event.time_problem.as_deref(),
            Some("field `timestamp`: expected epoch seconds or an RFC 3339 time, found a boolean")
        );
    }

    #[test]
    fn a_response_part_wins_over_a_call_in_the_same_part() {
        let value = json!({"content": {"parts": [{
            "function_call": {"name": "a", "args": {}},
            "function_response": {"name": "b", "response": {"result": 1}}
        }]}});
        let (event, _) = Event::from_json(&value);
        let Content::Parts { parts, .. } = event.content else {
            panic!()
        };
        assert!(matches!(&parts[0], Part::FunctionResponse { name, .. } if name == "b"));
    }

    #[test]
    fn content_shapes_are_told_apart() {
        assert_eq!(
            Event::from_json(&json!({"content": null})).0.content,
            Content::Missing
        );
        assert_eq!(
            Event::from_json(&json!({"content": {"role": "model", "parts": []}}))
                .0
                .content,
            Content::NoParts {
                role: Some("model".into())
            }
        );
        let (event, issues) = Event::from_json(&json!({"content": "text"}));
        assert_eq!(event.content, Content::Missing);
        assert_eq!(issues.len(), 1);
        let (_, issues) = Event::from_json(&json!([1]));
        assert_eq!(issues[0].path, "(event)");
    }
}
