//! One agentevals comparison as a JSON object, for batch scoring and for the
//! conformance vectors: `{"name", "mode", "args_mode", "overrides",
//! "outputs", "reference"}`, or with agentevals' own argument names
//! (`trajectory_match_mode`, `tool_args_match_mode`,
//! `tool_args_match_overrides`, `reference_outputs`). agentevals' `inputs`
//! is ignored as agentevals ignores it, and a vector's `expected` answer is
//! ignored so that a vector file is a valid batch; any other key is an
//! error, never dropped.

use super::args::{ArgsMode, Override};
use super::trajectory_match::{MatchConfig, check_size, trajectory_match};
use super::{ConfigError, Verdict};
use crate::trajectory::{Args, Call, Role, Step, messages_from_value, steps};
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, Visitor};
use serde_json::Value;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub struct MatchCase {
    pub name: Option<String>,
    pub config: MatchConfig,
    pub outputs: Vec<Step>,
    pub reference: Vec<Step>,
}

impl MatchCase {
    /// Read a case from one line of JSON. Most lines take a typed path that
    /// reads straight into steps in one pass, parses each call's arguments
    /// from the line's own text and skips message content (scoring never
    /// reads it); any line it does not accept is read again through
    /// [`MatchCase::parse`], which accepts the same cases and words the
    /// errors.
    pub fn from_json(line: &str, defaults: &MatchConfig) -> Result<Self, ConfigError> {
        if let Ok(case) = serde_json::from_str::<TypedCase>(line)
            && let Some(case) = case.into_case(defaults)
        {
            return Ok(case);
        }
        let value = serde_json::from_str(line).map_err(|e| ConfigError(e.to_string()))?;
        MatchCase::parse(value, defaults)
    }

    /// Read a case; absent settings come from `defaults`. Errors name the field.
    pub fn parse(value: Value, defaults: &MatchConfig) -> Result<Self, ConfigError> {
        let Value::Object(mut object) = value else {
            return Err(ConfigError("a case must be a JSON object".into()));
        };
        for (ours, theirs) in ALIASES {
            if let Some(value) = object.remove(theirs) {
                if object.contains_key(ours) {
                    return Err(ConfigError(format!(
                        "`{ours}` and `{theirs}` name the same setting: give one"
                    )));
                }
                object.insert(ours.to_string(), value);
            }
        }
        if let Some(unknown) = object.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            return Err(ConfigError(format!(
                "unknown key `{unknown}` (expected name, outputs, reference or reference_outputs, mode or trajectory_match_mode, args_mode or tool_args_match_mode, overrides or tool_args_match_overrides)"
            )));
        }
        let name = match object.remove("name") {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => Some(name),
            Some(other) => {
                return Err(ConfigError(format!("`name` must be a string, not {other}")));
            }
        };
        let config = configure(
            defaults,
            setting(&object, "mode")?,
            setting(&object, "args_mode")?,
            object.get("overrides"),
        )?;
        let mut trajectory = |field: &str| -> Result<Vec<Step>, ConfigError> {
            let value = object
                .remove(field)
                .ok_or_else(|| ConfigError(format!("`{field}` is missing")))?;
            messages_from_value(value)
                .map_err(|e| e.to_string())
                .and_then(|messages| steps(&messages).map_err(|e| e.to_string()))
                .map_err(|e| ConfigError(format!("`{field}`: {e}")))
        };
        let outputs = trajectory("outputs")?;
        let reference = trajectory("reference")?;
        Ok(MatchCase {
            name,
            config,
            outputs,
            reference,
        })
    }

    /// The verdict, or why the comparison is too large to make.
    pub fn score(&self) -> Result<Verdict, ConfigError> {
        check_size(&self.outputs, &self.reference, self.config.matching).map_err(ConfigError)?;
        Ok(trajectory_match(
            &self.outputs,
            &self.reference,
            &self.config,
        ))
    }
}

/// Our names, and agentevals' names for the same settings.
const ALIASES: [(&str, &str); 4] = [
    ("mode", "trajectory_match_mode"),
    ("args_mode", "tool_args_match_mode"),
    ("overrides", "tool_args_match_overrides"),
    ("reference", "reference_outputs"),
];

/// Keys a case may have (after aliases); `inputs` and `expected` are read
/// and ignored.
const KNOWN: [&str; 8] = [
    "name",
    "mode",
    "args_mode",
    "overrides",
    "outputs",
    "reference",
    "inputs",
    "expected",
];

/// The common shape of a case, read in one pass straight into steps:
/// message lists, settings as strings; message content and the strings
/// scoring does not read are checked, not kept.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TypedCase {
    name: Option<String>,
    #[serde(alias = "trajectory_match_mode")]
    mode: Option<String>,
    #[serde(alias = "tool_args_match_mode")]
    args_mode: Option<String>,
    #[serde(alias = "tool_args_match_overrides")]
    overrides: Option<Value>,
    outputs: Vec<TypedMessage>,
    #[serde(alias = "reference_outputs")]
    reference: Vec<TypedMessage>,
    #[serde(default, rename = "inputs")]
    _inputs: IgnoredAny,
    #[serde(default, rename = "expected")]
    _expected: IgnoredAny,
}

/// A [`Message`] as [`step`] reads it.
///
/// [`Message`]: crate::trajectory::Message
/// [`step`]: crate::trajectory::step
#[derive(Deserialize)]
struct TypedMessage {
    role: RoleName,
    #[serde(default, rename = "content")]
    _content: IgnoredAny,
    tool_calls: Option<Vec<TypedCall>>,
    #[serde(rename = "tool_call_id")]
    _tool_call_id: Option<UnreadString>,
    #[serde(rename = "name")]
    _name: Option<UnreadString>,
}

/// A [`ToolCall`] in either shape, its arguments parsed as they are read.
///
/// [`ToolCall`]: crate::trajectory::ToolCall
#[derive(Deserialize)]
struct TypedCall {
    #[serde(rename = "type")]
    _kind: Option<UnreadString>,
    function: Option<TypedFunction>,
    #[serde(rename = "id")]
    _id: Option<UnreadString>,
    name: Option<String>,
    args: Option<Arguments>,
}

#[derive(Deserialize)]
struct TypedFunction {
    name: String,
    arguments: Arguments,
}

/// A role LangChain accepts, read without keeping its text.
struct RoleName(Role);

/// A string that must be a string, read without keeping it.
struct UnreadString;

/// Tool arguments: an object, or JSON text of one, parsed from the
/// unescaped text in place rather than from a copy of it.
struct Arguments(Args);

/// Reads a string with its function, never asking for an owned copy.
struct StrVisitor<F>(F);

impl<'de, T, F: FnOnce(&str) -> Result<T, String>> Visitor<'de> for StrVisitor<F> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
        (self.0)(text).map_err(E::custom)
    }
}

impl<'de> Deserialize<'de> for RoleName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(StrVisitor(|role: &str| {
            Role::parse(role)
                .map(RoleName)
                .ok_or_else(|| format!("unknown role `{role}`"))
        }))
    }
}

impl<'de> Deserialize<'de> for UnreadString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(StrVisitor(|_: &str| Ok(UnreadString)))
    }
}

impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ArgumentsVisitor;
        impl<'de> Visitor<'de> for ArgumentsVisitor {
            type Value = Arguments;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object or the JSON text of one")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<Arguments, E> {
                serde_json::from_str(text).map(Arguments).map_err(E::custom)
            }

            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Arguments, A::Error> {
                Args::deserialize(de::value::MapAccessDeserializer::new(map)).map(Arguments)
            }
        }
        deserializer.deserialize_any(ArgumentsVisitor)
    }
}

impl TypedMessage {
    /// The step [`step`] makes of this message, or `None` where it would
    /// give an error.
    ///
    /// [`step`]: crate::trajectory::step
    fn step(self) -> Option<Step> {
        let RoleName(role) = self.role;
        let calls = match self.tool_calls {
            None => None,
            Some(calls) if calls.is_empty() => None,
            Some(_) if role != Role::Assistant => return None,
            Some(calls) => Some(
                calls
                    .into_iter()
                    .map(TypedCall::call)
                    .collect::<Option<_>>()?,
            ),
        };
        Some(Step { role, calls })
    }
}

impl TypedCall {
    fn call(self) -> Option<Call> {
        let (name, Arguments(args)) = match (self.function, self.name) {
            (Some(function), _) => (function.name, function.arguments),
            (None, Some(name)) => (name, self.args.unwrap_or(Arguments(Args::default()))),
            (None, None) => return None,
        };
        Some(Call { name, args })
    }
}

impl TypedCase {
    /// The case, or `None` where [`MatchCase::parse`] would give an error.
    fn into_case(self, defaults: &MatchConfig) -> Option<MatchCase> {
        let trajectory = |messages: Vec<TypedMessage>| {
            messages
                .into_iter()
                .map(TypedMessage::step)
                .collect::<Option<Vec<Step>>>()
        };
        Some(MatchCase {
            config: configure(
                defaults,
                self.mode.as_deref(),
                self.args_mode.as_deref(),
                self.overrides.as_ref(),
            )
            .ok()?,
            name: self.name,
            outputs: trajectory(self.outputs)?,
            reference: trajectory(self.reference)?,
        })
    }
}

fn configure(
    defaults: &MatchConfig,
    mode: Option<&str>,
    args_mode: Option<&str>,
    overrides: Option<&Value>,
) -> Result<MatchConfig, ConfigError> {
    let mut config = defaults.clone();
    if let Some(mode) = mode {
        config.mode = mode.parse()?;
    }
    if let Some(mode) = args_mode {
        config.args.default = mode.parse()?;
    }
    match overrides {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (tool, spec) in map {
                config
                    .args
                    .overrides
                    .insert(tool.clone(), override_of(tool, spec)?);
            }
        }
        Some(other) => {
            return Err(ConfigError(format!(
                "`overrides` must map tool names to a mode or a list of keys, not {other}"
            )));
        }
    }
    Ok(config)
}

fn setting<'a>(
    object: &'a serde_json::Map<String, Value>,
    field: &str,
) -> Result<Option<&'a str>, ConfigError> {
    match object.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(ConfigError(format!(
            "`{field}` must be a string, not {other}"
        ))),
    }
}

/// agentevals' override forms: a mode name, or a list of dotted key paths.
fn override_of(tool: &str, spec: &Value) -> Result<Override, ConfigError> {
    match spec {
        Value::String(mode) => mode
            .parse::<ArgsMode>()
            .map(Override::Mode)
            .map_err(|e| ConfigError(format!("`overrides.{tool}`: {}", e.0))),
        Value::Array(keys) => keys
            .iter()
            .map(|key| {
                key.as_str().map(String::from).ok_or_else(|| {
                    ConfigError(format!(
                        "`overrides.{tool}` keys must be strings, not {key}"
                    ))
                })
            })
            .collect::<Result<_, _>>()
            .map(Override::Keys),
        other => Err(ConfigError(format!(
            "`overrides.{tool}` must be a mode or a list of keys, not {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::Score;
    use crate::score::trajectory_match::MatchMode;
    use serde_json::json;

    fn weather(city: &str) -> Value {
        json!([{"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": "weather", "arguments": format!("{{\"city\": \"{city}\"}}")}}
        ]}])
    }

    #[test]
    fn settings_in_the_case_win_over_the_defaults() {
        let defaults = MatchConfig {
            mode: MatchMode::Superset,
            ..Default::default()
        };
        let case = MatchCase::parse(
            json!({"name": "n", "mode": "strict", "overrides": {"weather": "ignore"},
                   "outputs": weather("Paris"), "reference": weather("London"), "expected": {}}),
            &defaults,
        )
        .unwrap();
        assert_eq!(case.name.as_deref(), Some("n"));
        assert_eq!(case.config.mode, MatchMode::Strict);
        let verdict = case.score().unwrap();
        assert_eq!(verdict.key, "trajectory_strict_match");
        assert_eq!(verdict.score, Score::Bool(true));

        let case = MatchCase::parse(
            json!({"outputs": weather("Paris"), "reference": weather("London")}),
            &defaults,
        )
        .unwrap();
        assert_eq!(case.score().unwrap().key, "trajectory_superset_match");
        assert_eq!(case.score().unwrap().score, Score::Bool(false));
    }

    /// The one-pass reader gives what the general reader gives, or leaves
    /// the line to it, on every corner of the message format.
    #[test]
    fn the_typed_reader_agrees_with_the_general_one() {
        let calls = [
            r#"{"function": {"name": "a", "arguments": "{\"x\": {\"y\": [1, 2.5]}, \"b\": true}"}}"#,
            r#"{"function": {"name": "a", "arguments": {"x": 1}}, "id": "c1", "type": "function"}"#,
            r#"{"function": {"name": "a", "arguments": "null"}}"#,
            r#"{"function": {"name": "a", "arguments": "[1]"}}"#,
            r#"{"function": {"name": "a", "arguments": "3"}}"#,
            r#"{"function": {"name": "a", "arguments": null}}"#,
            r#"{"function": {"name": "a", "arguments": "{} x"}}"#,
            r#"{"function": {"name": "a", "arguments": "{\"k\": 1, \"k\": 2}"}}"#,
            r#"{"function": {"name": "a"}}"#,
            r#"{"function": {"name": 1, "arguments": "{}"}}"#,
            r#"{"function": {"name": "a", "arguments": "{}"}, "name": "b", "args": 7}"#,
            r#"{"name": "b", "args": "{\"q\": \"\\u00e9\"}"}"#,
            r#"{"name": "b", "args": null}"#,
            r#"{"name": "b"}"#,
            r#"{"name": "b", "args": [1]}"#,
            r#"{"args": {}}"#,
            r#"{"function": {"name": "a", "arguments": "{}"}, "id": 3}"#,
            r#"{"function": {"name": "a", "arguments": "{}"}, "type": null}"#,
        ]
        .map(|call| format!(r#"{{"role": "assistant", "tool_calls": [{call}]}}"#));
        let messages = [
            r#"{"role": "assist\u0061nt", "tool_calls": []}"#,
            r#"{"role": "ai", "content": [{"text": "x"}], "tool_calls": null}"#,
            r#"{"role": "user", "tool_calls": []}"#,
            r#"{"role": "user", "tool_calls": [{"function": {"name": "a", "arguments": "{}"}}]}"#,
            r#"{"role": "robot"}"#,
            r#"{"content": "no role"}"#,
            r#"{"role": "tool", "tool_call_id": 5}"#,
            r#"{"role": "tool", "tool_call_id": "c\u0031", "name": "a", "extra": 1}"#,
            r#"{"role": "user", "name": false}"#,
        ]
        .map(String::from);
        let defaults = MatchConfig::default();
        for message in calls.iter().chain(&messages) {
            let line = format!(r#"{{"outputs": [{message}], "reference": []}}"#);
            let general = serde_json::from_str(&line)
                .map_err(|e: serde_json::Error| ConfigError(e.to_string()))
                .and_then(|value| MatchCase::parse(value, &defaults));
            assert_eq!(MatchCase::from_json(&line, &defaults), general, "{line}");
        }
    }

    #[test]
    fn errors_name_the_field() {
        let defaults = MatchConfig::default();
        let error = |value: Value| MatchCase::parse(value, &defaults).unwrap_err().0;
        assert!(error(json!([])).contains("JSON object"));
        assert!(error(json!({"outputs": []})).contains("`reference` is missing"));
        assert!(error(json!({"mode": 3, "outputs": [], "reference": []})).contains("`mode`"));
        let bogus =
            error(json!({"overrides": {"weather": "bogus"}, "outputs": [], "reference": []}));
        assert!(
            bogus.contains("`overrides.weather`") && bogus.contains("`bogus`"),
            "{bogus}"
        );
        let keys = error(json!({"overrides": {"weather": [1]}, "outputs": [], "reference": []}));
        assert!(keys.contains("keys must be strings"), "{keys}");
        let args = error(json!({"outputs": [{"role": "assistant", "tool_calls": [
            {"function": {"name": "w", "arguments": "{not json"}}]}], "reference": []}));
        assert!(args.starts_with("`outputs`: "), "{args}");
    }
}
