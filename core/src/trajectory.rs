//! OpenAI-format chat messages: what the converter produces and what
//! reference trajectories are written in.
//!
//! Reading follows agentevals, which passes every message through LangChain's
//! OpenAI conversion first: `human`/`ai` are aliases, an unknown role is an
//! error, an empty `tool_calls` list is no tool calls, tool calls belong to
//! assistant messages only, and `arguments` may be JSON text or an object.

use crate::event::kind;
use either::Either;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: String,
    #[serde(default)]
    pub content: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// An OpenAI tool call; LangChain's `{name, args, id}` shape is read too.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ToolCallInput")]
pub struct ToolCall {
    #[serde(rename = "type")]
    pub kind: String,
    pub function: Function,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Function {
    pub name: String,
    /// JSON text, as OpenAI sends it; an object is accepted on input.
    pub arguments: Value,
}

#[derive(Deserialize)]
struct ToolCallInput {
    #[serde(rename = "type")]
    kind: Option<String>,
    function: Option<Function>,
    id: Option<String>,
    name: Option<String>,
    args: Option<Value>,
}

impl TryFrom<ToolCallInput> for ToolCall {
    type Error = String;

    fn try_from(input: ToolCallInput) -> Result<Self, String> {
        let function = match (input.function, input.name) {
            (Some(function), _) => function,
            (None, Some(name)) => Function {
                name,
                arguments: input.args.unwrap_or_else(|| Value::Object(Map::new())),
            },
            (None, None) => {
                return Err("a tool call needs `function` (or `name` and `args`)".into());
            }
        };
        Ok(ToolCall {
            kind: input.kind.unwrap_or_else(|| "function".into()),
            function,
            id: input.id,
        })
    }
}

impl Message {
    pub fn text(role: &str, content: String) -> Self {
        Message {
            role: role.into(),
            content: Value::String(content),
            tool_calls: None,
            tool_call_id: None,
            name: None,
        }
    }

    /// The message's text: a string content, or the text parts of a list.
    pub fn content_text(&self) -> String {
        match &self.content {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }
}

/// Why a trajectory could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TrajectoryError {
    #[error(
        "message {message}: unknown role `{role}` (expected user, assistant, system, developer, tool or function)"
    )]
    UnknownRole { message: usize, role: String },
    #[error(
        "message {message}: tool calls are allowed on assistant messages only, not on `{role}`"
    )]
    CallsOutsideAssistant { message: usize, role: String },
    #[error("message {message}, tool call {call} (`{name}`): {problem}")]
    BadArguments {
        message: usize,
        call: usize,
        name: String,
        problem: String,
    },
    #[error("{0}")]
    Shape(String),
}

impl TrajectoryError {
    /// The 1-based message the error is in, when it is in one.
    pub fn message(&self) -> Option<usize> {
        match self {
            TrajectoryError::UnknownRole { message, .. }
            | TrajectoryError::CallsOutsideAssistant { message, .. }
            | TrajectoryError::BadArguments { message, .. } => Some(*message),
            TrajectoryError::Shape(_) => None,
        }
    }
}

/// The roles after LangChain's aliasing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    System,
    Developer,
    Tool,
    Function,
}

impl Role {
    pub fn parse(role: &str) -> Option<Self> {
        Some(match role {
            "user" | "human" => Role::User,
            "assistant" | "ai" => Role::Assistant,
            "system" => Role::System,
            "developer" => Role::Developer,
            "tool" => Role::Tool,
            "function" => Role::Function,
            _ => return None,
        })
    }
}

/// One tool call as the scorers compare it.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub name: String,
    pub args: Args,
}

/// A call's arguments, keys in the order they were given. A call carries a
/// handful of keys, found by a scan of a list where a hashed map would
/// hash each key on the way in and on every lookup; past [`Args::FEW`]
/// keys they are a map. Nested objects stay JSON objects.
#[derive(Clone, Debug)]
pub enum Args {
    Few(Vec<(String, Value)>),
    Many(Map<String, Value>),
}

impl Default for Args {
    fn default() -> Self {
        Args::Few(Vec::new())
    }
}

impl Args {
    /// The most keys kept in a list.
    pub const FEW: usize = 16;

    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Args::Few(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            Args::Many(map) => map.get(key),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Args::Few(entries) => entries.len(),
            Args::Many(map) => map.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        match self {
            Args::Few(entries) => Either::Left(entries.iter().map(|(k, v)| (k, v))),
            Args::Many(map) => Either::Right(map.iter()),
        }
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.iter().map(|(k, _)| k)
    }

    /// A repeated key keeps its first place and takes the last value, as
    /// in a JSON object read by serde_json (and Python's `json.loads`).
    pub fn insert(&mut self, key: String, value: Value) {
        match self {
            Args::Few(entries) => match entries.iter().position(|(k, _)| *k == key) {
                Some(at) => entries[at].1 = value,
                None if entries.len() < Self::FEW => entries.push((key, value)),
                None => {
                    let mut map: Map<String, Value> = std::mem::take(entries).into_iter().collect();
                    map.insert(key, value);
                    *self = Args::Many(map);
                }
            },
            Args::Many(map) => {
                map.insert(key, value);
            }
        }
    }

    /// The arguments as a JSON object, in their order.
    pub fn to_object(&self) -> Value {
        Value::Object(self.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
    }
}

/// Equal when the same keys hold equal values, in any order.
impl PartialEq for Args {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl From<Map<String, Value>> for Args {
    fn from(map: Map<String, Value>) -> Self {
        if map.len() > Self::FEW {
            return Args::Many(map);
        }
        Args::Few(map.into_iter().collect())
    }
}

impl<'de> Deserialize<'de> for Args {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ArgsVisitor;
        impl<'de> serde::de::Visitor<'de> for ArgsVisitor {
            type Value = Args;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Args, A::Error> {
                let mut args = Args::default();
                while let Some((key, value)) = map.next_entry()? {
                    args.insert(key, value);
                }
                Ok(args)
            }
        }
        deserializer.deserialize_map(ArgsVisitor)
    }
}

/// A message reduced to what trajectory matching reads: its role and its
/// tool calls (`None` when it carries none).
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub role: Role,
    pub calls: Option<Vec<Call>>,
}

/// Parse messages into steps, rejecting what agentevals rejects.
pub fn steps(messages: &[Message]) -> Result<Vec<Step>, TrajectoryError> {
    messages
        .iter()
        .enumerate()
        .map(|(index, message)| step(message, index + 1))
        .collect()
}

/// One message as [`steps`] reads it; `number` (from 1) names it in errors.
pub fn step(message: &Message, number: usize) -> Result<Step, TrajectoryError> {
    let role = Role::parse(&message.role).ok_or_else(|| TrajectoryError::UnknownRole {
        message: number,
        role: message.role.clone(),
    })?;
    let calls = match message.tool_calls.as_deref() {
        None | Some([]) => None,
        Some(_) if role != Role::Assistant => {
            return Err(TrajectoryError::CallsOutsideAssistant {
                message: number,
                role: message.role.clone(),
            });
        }
        Some(calls) => Some(
            calls
                .iter()
                .enumerate()
                .map(|(i, call)| parse_call(call, number, i + 1))
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    Ok(Step { role, calls })
}

/// Every tool call of the trajectory, in message order.
pub fn calls(steps: &[Step]) -> impl Iterator<Item = &Call> {
    steps.iter().flat_map(|s| s.calls.iter().flatten())
}

fn parse_call(call: &ToolCall, message: usize, index: usize) -> Result<Call, TrajectoryError> {
    let name = &call.function.name;
    let bad = |problem: String| TrajectoryError::BadArguments {
        message,
        call: index,
        name: name.clone(),
        problem,
    };
    let args = match &call.function.arguments {
        // Most arguments are the text of an object: read straight into
        // `Args`; anything else is read again to say what it is.
        Value::String(text) => match serde_json::from_str::<Args>(text) {
            Ok(args) => {
                return Ok(Call {
                    name: name.clone(),
                    args,
                });
            }
            Err(_) => serde_json::from_str::<Value>(text)
                .map_err(|e| bad(format!("arguments are not valid JSON: {e}")))?,
        },
        other => other.clone(),
    };
    match args {
        Value::Object(args) => Ok(Call {
            name: name.clone(),
            args: args.into(),
        }),
        other => Err(bad(format!(
            "arguments must be a JSON object, found {}",
            kind(&other)
        ))),
    }
}

/// Read a message list as agentevals accepts it: a list, a `{"messages": [...]}`
/// object, or one message object.
pub fn messages_from_value(value: Value) -> Result<Vec<Message>, TrajectoryError> {
    let list = match value {
        Value::Array(items) => items,
        Value::Object(ref obj) if obj.contains_key("role") => vec![value],
        Value::Object(mut obj) => match obj.remove("messages") {
            Some(Value::Array(items)) => items,
            _ => {
                return Err(TrajectoryError::Shape(
                    "expected a list of messages or an object with a `messages` list".into(),
                ));
            }
        },
        other => {
            return Err(TrajectoryError::Shape(format!(
                "expected a list of messages, found {}",
                kind(&other)
            )));
        }
    };
    list.into_iter()
        .enumerate()
        .map(|(i, item)| {
            serde_json::from_value(item)
                .map_err(|e| TrajectoryError::Shape(format!("message {}: {e}", i + 1)))
        })
        .collect()
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::System => "system",
            Role::Developer => "developer",
            Role::Tool => "tool",
            Role::Function => "function",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<Vec<Step>, TrajectoryError> {
        steps(&messages_from_value(v).unwrap())
    }

    #[test]
    fn aliases_empty_call_lists_and_object_arguments() {
        let s = parse(json!([
            {"role": "human", "content": "hi"},
            {"role": "ai", "content": null, "tool_calls": []},
            {"role": "assistant", "tool_calls": [
                {"type": "function", "function": {"name": "a", "arguments": "{\"x\": 1}"}},
                {"function": {"name": "b", "arguments": {"y": 2}}},
                {"name": "c", "args": {"z": 3}, "id": "q"}
            ]}
        ]))
        .unwrap();
        assert_eq!(s[0].role, Role::User);
        assert_eq!(s[1].calls, None);
        let names: Vec<_> = calls(&s).map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert_eq!(calls(&s).nth(1).unwrap().args.get("y"), Some(&json!(2)));
    }

    #[test]
    fn arguments_keep_their_order_and_read_repeats_as_serde_json_does() {
        for count in [3, Args::FEW + 5] {
            let mut text: Vec<String> = (0..count).map(|i| format!("\"k{i}\": {i}")).collect();
            text.push("\"k1\": \"last\"".into());
            let text = format!("{{{}}}", text.join(", "));
            let args: Args = serde_json::from_str(&text).unwrap();
            let object: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(args.to_object(), object, "{text}");
            assert_eq!(
                serde_json::to_string(&args.to_object()).unwrap(),
                serde_json::to_string(&object).unwrap()
            );
            assert_eq!(args.len(), count);
            assert_eq!(args.get("k1"), Some(&json!("last")));
            assert_eq!(matches!(args, Args::Many(_)), count > Args::FEW);
        }
        let (a, b): (Args, Args) = (
            serde_json::from_str(r#"{"x": 1, "y": 2}"#).unwrap(),
            serde_json::from_str(r#"{"y": 2, "x": 1}"#).unwrap(),
        );
        assert_eq!(a, b);
        assert!(serde_json::from_str::<Args>("[1]").is_err());
    }

    #[test]
    fn what_agentevals_rejects_is_an_error() {
        let err = parse(json!([{"role": "bogus", "content": ""}])).unwrap_err();
        assert!(err.to_string().contains("unknown role `bogus`"));
        let err = parse(json!([{"role": "user", "tool_calls": [{"function": {"name": "a", "arguments": "{}"}}]}]))
            .unwrap_err();
        assert!(matches!(
            err,
            TrajectoryError::CallsOutsideAssistant { message: 1, .. }
        ));
        let err = parse(json!([{"role": "assistant", "tool_calls": [{"function": {"name": "a", "arguments": "{bad"}}]}]))
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("message 1, tool call 1 (`a`): arguments are not valid JSON")
        );
        let err = parse(json!([{"role": "assistant", "tool_calls": [{"function": {"name": "a", "arguments": "[1]"}}]}]))
            .unwrap_err();
        assert!(
            err.to_string()
                .ends_with("arguments must be a JSON object, found a list")
        );
    }

    #[test]
    fn message_lists_come_in_three_shapes() {
        assert_eq!(
            messages_from_value(json!({"role": "user", "content": "x"}))
                .unwrap()
                .len(),
            1
        );
        assert_eq!(
            messages_from_value(json!({"messages": [{"role": "user"}]}))
                .unwrap()
                .len(),
            1
        );
        assert!(messages_from_value(json!({"other": 1})).is_err());
        assert!(messages_from_value(json!("x")).is_err());
    }

    #[test]
    fn serialises_in_the_reference_key_order() {
        let m = Message {
            role: "assistant".into(),
            content: json!(""),
            tool_calls: Some(vec![ToolCall {
                kind: "function".into(),
                function: Function {
                    name: "a".into(),
                    arguments: json!("{}"),
                },
                id: Some("c1".into()),
            }]),
            tool_call_id: None,
            name: None,
        };
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            r#"{"role":"assistant","content":"","tool_calls":[{"type":"function","function":{"name":"a","arguments":"{}"},"id":"c1"}]}"#
        );
    }
}
