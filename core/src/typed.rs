//! ADK event JSON read straight into an [`Event`], without first building a
//! `serde_json::Value` of the whole event: keys are borrowed, fields the
//! converter does not use are checked and dropped as they stream past, and
//! only tool arguments and responses are built as values.
//!
//! It reads the plain shape only. Whatever the general reader
//! ([`Event::from_json`]) would report, note or have to choose between (a
//! field of the wrong type, a key given twice, two spellings of one field,
//! an invalid time, an API row, a task record, a number beyond a float's
//! range, nesting past serde_json's limit) makes it give up, and the caller
//! reads the event the general way. So on every input both give the same
//! event and the same issues; `tests/typed_reader.rs` holds them to it.

use crate::event::{Content, Event, Part, Usage, is_go_zero_time};
use crate::pyjson;
use jiff::Timestamp;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// The event in `text`, or `None` when it is not the plain shape.
pub fn read_event(text: &str) -> Option<Event> {
    let mut json = serde_json::Deserializer::from_str(text);
    let event = json.deserialize_map(EventVisitor).ok()?;
    json.end().ok()?;
    Some(event)
}

/// Why the typed reader gave up; never shown, the general reader says it.
fn give_up<E: de::Error>() -> E {
    E::custom("not the plain shape")
}

/// One field's value from whichever spelling carried it; a second
/// non-null spelling is a choice the general reader makes, not this one.
fn put<T, E: de::Error>(slot: &mut Option<T>, value: Option<T>) -> Result<(), E> {
    match (value, slot.is_some()) {
        (None, _) => Ok(()),
        (Some(_), true) => Err(give_up()),
        (Some(value), false) => {
            *slot = Some(value);
            Ok(())
        }
    }
}

/// Keys seen in one object, one bit a spelling: a key given twice keeps
/// its last value in the general reader, so it is left to that reader.
#[derive(Default)]
struct Seen(u64);

impl Seen {
    fn first<E: de::Error>(&mut self, bit: u32) -> Result<(), E> {
        let mask = 1u64 << bit;
        if self.0 & mask != 0 {
            return Err(give_up());
        }
        self.0 |= mask;
        Ok(())
    }
}

macro_rules! expecting {
    ($what:literal) => {
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str($what)
        }
    };
}

/// Any JSON value, parsed as the general reader parses it (numbers in a
/// float's range, nesting within the limit) and dropped.
struct Skip;

impl<'de> de::Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(json: D) -> Result<Skip, D::Error> {
        json.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;
    expecting!("any JSON value");
    fn visit_bool<E>(self, _: bool) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_str<E>(self, _: &str) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_unit<E>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
        while map.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Skip)
    }
}

/// A scalar field: `None` for JSON null, any other type gives up.
macro_rules! nullable {
    ($name:ident, $visitor:ident, $ty:ty, $what:literal, $($method:ident($arg:ty) => $body:expr),+ $(,)?) => {
        struct $name(Option<$ty>);

        impl<'de> de::Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(json: D) -> Result<$name, D::Error> {
                json.deserialize_any($visitor)
            }
        }

        struct $visitor;

        #[allow(clippy::redundant_closure_call)]
        impl<'de> Visitor<'de> for $visitor {
            type Value = $name;
            expecting!($what);
            fn visit_unit<E>(self) -> Result<$name, E> {
                Ok($name(None))
            }
            $(fn $method<E: de::Error>(self, v: $arg) -> Result<$name, E> {
                ($body)(v).map(|value| $name(Some(value)))
            })+
        }
    };
}

nullable!(Text, TextVisitor, String, "a string or null",
    visit_str(&str) => |v: &str| Ok(v.to_owned()),
);
nullable!(Flag, FlagVisitor, bool, "a boolean or null",
    visit_bool(bool) => |v| Ok(v),
);
nullable!(Count, CountVisitor, u64, "a non-negative integer or null",
    visit_u64(u64) => |v| Ok(v),
);
nullable!(Time, TimeVisitor, Option<Timestamp>, "a time or null",
    visit_u64(u64) => |v| epoch(v as f64),
    visit_i64(i64) => |v| epoch(v as f64),
    visit_f64(f64) => epoch,
    visit_str(&str) => |v: &str| v.parse::<Timestamp>().map_err(|_| give_up()).map(unset_if_zero),
);

/// Epoch seconds; a negative one is left to the general reader, which
/// says the latency is unmeasured.
fn epoch<E: de::Error>(secs: f64) -> Result<Option<Timestamp>, E> {
    (secs >= 0.0)
        .then(|| jiff::SignedDuration::try_from_secs_f64(secs).ok())
        .flatten()
        .and_then(|d| Timestamp::from_duration(d).ok())
        .map(unset_if_zero)
        .ok_or_else(give_up)
}

fn unset_if_zero(time: Timestamp) -> Option<Timestamp> {
    (!is_go_zero_time(time)).then_some(time)
}

/// A value kept whole (arguments, responses, error codes); null is absent.
fn nullable_value<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<Value>, A::Error> {
    let value: Value = map.next_value()?;
    Ok((!value.is_null()).then_some(value))
}

/// A nested object read by `seed`; null is absent, anything else gives up.
struct Nullable<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Nullable<S> {
    type Value = Option<S::Value>;
    fn deserialize<D: Deserializer<'de>>(self, json: D) -> Result<Self::Value, D::Error> {
        json.deserialize_option(self)
    }
}

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for Nullable<S> {
    type Value = Option<S::Value>;
    expecting!("an object or null");
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, json: D) -> Result<Self::Value, D::Error> {
        self.0.deserialize(json).map(Some)
    }
}

/// A visitor of one object is also the seed that reads it.
macro_rules! object_seed {
    ($($visitor:ty),+) => {$(
        impl<'de> DeserializeSeed<'de> for $visitor {
            type Value = <$visitor as Visitor<'de>>::Value;
            fn deserialize<D: Deserializer<'de>>(self, json: D) -> Result<Self::Value, D::Error> {
                json.deserialize_map(self)
            }
        }
    )+};
}

object_seed!(
    ContentVisitor,
    PartVisitor,
    CallVisitor,
    UsageVisitor,
    ActionsVisitor
);

fn key<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<Cow<'de, str>>, A::Error> {
    map.next_key_seed(KeySeed)
}

/// A key borrowed from the input, copied only when it had escapes to undo:
/// serde's own `Cow<str>` always copies, and keys are most of what is read.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, json: D) -> Result<Self::Value, D::Error> {
        json.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;
    expecting!("a key");
    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(key))
    }
    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(key.to_owned()))
    }
}

struct EventVisitor;

impl<'de> Visitor<'de> for EventVisitor {
    type Value = Event;
    expecting!("an event object");
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Event, A::Error> {
        let mut seen = Seen::default();
        let (mut id, mut invocation_id, mut author, mut timestamp) = (None, None, None, None);
        let (mut partial, mut content, mut usage, mut model) = (None, None, None, None);
        let (mut end_of_agent, mut error_code, mut error_message) = (None, None, None);
        while let Some(name) = key(&mut map)? {
            match &*name {
                "id" | "ID" => {
                    seen.first(u32::from(name == "ID"))?;
                    put(&mut id, map.next_value::<Text>()?.0)?;
                }
                "invocation_id" | "InvocationID" | "invocationId" => {
                    seen.first(2 + spelling(&name, "invocation_id", "InvocationID"))?;
                    put(&mut invocation_id, map.next_value::<Text>()?.0)?;
                }
                "author" | "Author" => {
                    seen.first(5 + u32::from(name == "Author"))?;
                    put(&mut author, map.next_value::<Text>()?.0)?;
                }
                "timestamp" | "Timestamp" => {
                    seen.first(7 + u32::from(name == "Timestamp"))?;
                    put(&mut timestamp, map.next_value::<Time>()?.0)?;
                }
                "partial" | "Partial" => {
                    seen.first(9 + u32::from(name == "Partial"))?;
                    put(&mut partial, map.next_value::<Flag>()?.0)?;
                }
                "content" | "Content" => {
                    seen.first(11 + u32::from(name == "Content"))?;
                    put(&mut content, map.next_value_seed(Nullable(ContentVisitor))?)?;
                }
                "usage_metadata" | "UsageMetadata" | "usageMetadata" => {
                    seen.first(13 + spelling(&name, "usage_metadata", "UsageMetadata"))?;
                    put(&mut usage, map.next_value_seed(Nullable(UsageVisitor))?)?;
                }
                "model_version" | "ModelVersion" | "modelVersion" => {
                    seen.first(16 + spelling(&name, "model_version", "ModelVersion"))?;
                    put(&mut model, map.next_value::<Text>()?.0)?;
                }
                "actions" | "Actions" => {
                    seen.first(19 + u32::from(name == "Actions"))?;
                    put(
                        &mut end_of_agent,
                        map.next_value_seed(Nullable(ActionsVisitor))?,
                    )?;
                }
                "error_code" | "ErrorCode" | "errorCode" => {
                    seen.first(21 + spelling(&name, "error_code", "ErrorCode"))?;
                    let code = match nullable_value(&mut map)? {
                        None => None,
                        Some(Value::String(code)) => Some(code),
                        Some(Value::Number(code)) => Some(code.to_string()),
                        Some(_) => return Err(give_up()),
                    };
                    put(&mut error_code, code)?;
                }
                "error_message" | "ErrorMessage" | "errorMessage" => {
                    seen.first(24 + spelling(&name, "error_message", "ErrorMessage"))?;
                    put(&mut error_message, map.next_value::<Text>()?.0)?;
                }
                // API rows and task records are read the general way.
                "data" | "kind" | "history" => return Err(give_up()),
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(Event {
            id,
            invocation_id,
            author,
            timestamp: timestamp.flatten(),
            partial: partial.unwrap_or(false),
            content: content.unwrap_or_default(),
            usage,
            usage_problem: None,
            time_problem: None,
            model,
            end_of_agent: end_of_agent.flatten().unwrap_or(false),
            error_code,
            error_message,
        })
    }
}

/// Which of a field's three spellings `name` is: 0, 1 or 2.
fn spelling(name: &str, first: &str, second: &str) -> u32 {
    if name == first {
        0
    } else if name == second {
        1
    } else {
        2
    }
}

struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = Content;
    expecting!("a content object");
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Content, A::Error> {
        let mut seen = Seen::default();
        let (mut role, mut parts) = (None, None);
        while let Some(name) = key(&mut map)? {
            match &*name {
                "role" | "Role" => {
                    seen.first(u32::from(name == "Role"))?;
                    put(&mut role, map.next_value::<Text>()?.0)?;
                }
                "parts" | "Parts" => {
                    seen.first(2 + u32::from(name == "Parts"))?;
                    put(&mut parts, map.next_value_seed(Nullable(PartsSeed))?)?;
                }
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(match parts {
            Some(parts) if !parts.is_empty() => Content::Parts { role, parts },
            _ => Content::NoParts { role },
        })
    }
}

struct PartsSeed;

impl<'de> DeserializeSeed<'de> for PartsSeed {
    type Value = Vec<Part>;
    fn deserialize<D: Deserializer<'de>>(self, json: D) -> Result<Vec<Part>, D::Error> {
        json.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for PartsSeed {
    type Value = Vec<Part>;
    expecting!("a list of parts");
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Part>, A::Error> {
        let mut parts = Vec::with_capacity(seq.size_hint().unwrap_or(1));
        while let Some(part) = seq.next_element_seed(PartVisitor)? {
            parts.push(part);
        }
        Ok(parts)
    }
}

struct PartVisitor;

impl<'de> Visitor<'de> for PartVisitor {
    type Value = Part;
    expecting!("a part object");
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Part, A::Error> {
        let mut seen = Seen::default();
        let (mut response, mut call, mut text, mut thought) = (None, None, None, None);
        while let Some(name) = key(&mut map)? {
            match &*name {
                "function_response" | "functionResponse" | "FunctionResponse" => {
                    seen.first(spelling(&name, "function_response", "functionResponse"))?;
                    let seed = Nullable(CallVisitor(Payload::Response));
                    put(&mut response, map.next_value_seed(seed)?)?;
                }
                "function_call" | "functionCall" | "FunctionCall" => {
                    seen.first(3 + spelling(&name, "function_call", "functionCall"))?;
                    let seed = Nullable(CallVisitor(Payload::Args));
                    put(&mut call, map.next_value_seed(seed)?)?;
                }
                "text" | "Text" => {
                    seen.first(6 + u32::from(name == "Text"))?;
                    put(&mut text, map.next_value::<Text>()?.0)?;
                }
                "thought" | "Thought" => {
                    seen.first(8 + u32::from(name == "Thought"))?;
                    put(&mut thought, map.next_value::<Flag>()?.0)?;
                }
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(match (response, call, text) {
            (Some(Call { id, name, payload }), _, _) => Part::FunctionResponse {
                id,
                name,
                response: payload,
            },
            (None, Some(Call { id, name, payload }), _) => Part::FunctionCall {
                id,
                name,
                args: payload,
            },
            (None, None, Some(text)) if !pyjson::strip(&text).is_empty() => Part::Text {
                text,
                thought: thought.unwrap_or(false),
            },
            _ => Part::Other,
        })
    }
}

#[derive(Clone, Copy)]
enum Payload {
    Args,
    Response,
}

struct Call {
    id: Option<String>,
    name: String,
    payload: Value,
}

struct CallVisitor(Payload);

impl<'de> Visitor<'de> for CallVisitor {
    type Value = Call;
    expecting!("a function call or response object");
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Call, A::Error> {
        let mut seen = Seen::default();
        let (mut id, mut name, mut payload) = (None, None, None);
        while let Some(key_name) = key(&mut map)? {
            match (&*key_name, self.0) {
                ("id" | "ID", _) => {
                    seen.first(u32::from(key_name == "ID"))?;
                    put(&mut id, map.next_value::<Text>()?.0)?;
                }
                ("name" | "Name", _) => {
                    seen.first(2 + u32::from(key_name == "Name"))?;
                    put(&mut name, map.next_value::<Text>()?.0)?;
                }
                ("args" | "Args", Payload::Args) | ("response" | "Response", Payload::Response) => {
                    let capitalised = key_name.starts_with(char::is_uppercase);
                    seen.first(4 + u32::from(capitalised))?;
                    put(&mut payload, nullable_value(&mut map)?)?;
                }
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(Call {
            id,
            name: name.unwrap_or_default(),
            payload: payload.unwrap_or(Value::Null),
        })
    }
}

struct UsageVisitor;

impl<'de> Visitor<'de> for UsageVisitor {
    type Value = Usage;
    expecting!("a usage object");
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Usage, A::Error> {
        let mut seen = Seen::default();
        let mut usage = Usage::default();
        while let Some(name) = key(&mut map)? {
            let (bit, slot) = match &*name {
                "prompt_token_count" | "promptTokenCount" | "PromptTokenCount" => (
                    spelling(&name, "prompt_token_count", "promptTokenCount"),
                    &mut usage.prompt_tokens,
                ),
                "candidates_token_count" | "candidatesTokenCount" | "CandidatesTokenCount" => (
                    3 + spelling(&name, "candidates_token_count", "candidatesTokenCount"),
                    &mut usage.completion_tokens,
                ),
                "total_token_count" | "totalTokenCount" | "TotalTokenCount" => (
                    6 + spelling(&name, "total_token_count", "totalTokenCount"),
                    &mut usage.total_tokens,
                ),
                "thoughts_token_count" | "thoughtsTokenCount" | "ThoughtsTokenCount" => (
                    9 + spelling(&name, "thoughts_token_count", "thoughtsTokenCount"),
                    &mut usage.thoughts_tokens,
                ),
                "tool_use_prompt_token_count"
                | "toolUsePromptTokenCount"
                | "ToolUsePromptTokenCount" => (
                    12 + spelling(
                        &name,
                        "tool_use_prompt_token_count",
                        "toolUsePromptTokenCount",
                    ),
                    &mut usage.tool_use_prompt_tokens,
                ),
                _ => {
                    map.next_value::<Skip>()?;
                    continue;
                }
            };
            seen.first(bit)?;
            put(slot, map.next_value::<Count>()?.0)?;
        }
        Ok(usage)
    }
}

/// An event's `actions`, of which the converter reads `end_of_agent`.
struct ActionsVisitor;

impl<'de> Visitor<'de> for ActionsVisitor {
    type Value = Option<bool>;
    expecting!("an actions object");
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<bool>, A::Error> {
        let mut seen = Seen::default();
        let mut end_of_agent = None;
        while let Some(name) = key(&mut map)? {
            match &*name {
                "end_of_agent" | "EndOfAgent" | "endOfAgent" => {
                    seen.first(spelling(&name, "end_of_agent", "EndOfAgent"))?;
                    put(&mut end_of_agent, map.next_value::<Flag>()?.0)?;
                }
                _ => {
                    map.next_value::<Skip>()?;
                }
            }
        }
        Ok(end_of_agent)
    }
}
