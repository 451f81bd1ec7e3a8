//! `match --cases` reads most lines in one typed pass; any line that pass
//! does not accept is read again by the general reader. On every generated
//! case the two give the same case (so the same verdict) or the same error.

use kagent_evals::core::score::ConfigError;
use kagent_evals::core::score::match_case::MatchCase;
use kagent_evals::core::score::trajectory_match::MatchConfig;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::{Value, json};

fn text() -> BoxedStrategy<Value> {
    prop::sample::select(vec!["a", "city", "London", "x.y", "é", "k"])
        .prop_map(Value::from)
        .boxed()
}

/// Scalars and the odd shape: what arguments and settings hold.
fn scalar() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..3).prop_map(Value::from),
        Just(json!(1.0)),
        Just(json!(2.5)),
        text(),
        Just(json!([1, "a"])),
        Just(json!({"nested": {"k": 1}})),
    ]
    .boxed()
}

/// The JSON text of arguments, written by hand so that it can repeat a
/// key, hold an escape, or not be an object or JSON at all.
fn arguments_text() -> BoxedStrategy<Value> {
    let entry = (
        prop::sample::select(vec!["city", "k", "units", "x\\u0079"]),
        scalar(),
    )
        .prop_map(|(key, value)| format!("\"{key}\": {value}"));
    prop_oneof![
        9 => prop::collection::vec(entry, 0..4).prop_map(|e| format!("{{{}}}", e.join(", "))),
        1 => prop::sample::select(vec!["null", "[1]", "3", "\"s\"", "{bad", "{} x", ""])
            .prop_map(String::from),
    ]
    .prop_map(Value::from)
    .boxed()
}

fn arguments() -> BoxedStrategy<Value> {
    prop_oneof![
        12 => arguments_text(),
        2 => prop::collection::btree_map("[a-c]", scalar(), 0..3)
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        1 => scalar(),
    ]
    .boxed()
}

fn maybe(
    present: f64,
    key: &'static str,
    value: impl Strategy<Value = Value>,
) -> impl Strategy<Value = Option<(String, Value)>> {
    prop::option::weighted(present, value.prop_map(move |v| (key.to_string(), v)))
}

fn object(entries: Vec<Option<(String, Value)>>) -> Value {
    Value::Object(entries.into_iter().flatten().collect())
}

fn tool_call() -> BoxedStrategy<Value> {
    let function = (
        maybe(0.95, "name", prop_oneof![12 => text(), 1 => scalar()]),
        maybe(0.95, "arguments", arguments()),
    )
        .prop_map(|(a, b)| object(vec![a, b]));
    (
        maybe(0.9, "function", prop_oneof![12 => function, 1 => scalar()]),
        maybe(
            0.5,
            "type",
            prop_oneof![6 => Just(json!("function")), 1 => scalar()],
        ),
        maybe(
            0.5,
            "id",
            prop_oneof![6 => Just(json!("c1")), 1 => scalar()],
        ),
        maybe(0.1, "name", text()),
        maybe(0.1, "args", arguments()),
    )
        .prop_map(|(a, b, c, d, e)| object(vec![a, b, c, d, e]))
        .boxed()
}

/// A message; tool calls mostly on the assistant's, where they belong.
fn message() -> BoxedStrategy<Value> {
    let role = prop_oneof![
        20 => prop::sample::select(vec!["user", "human", "assistant", "ai", "tool", "system"]),
        1 => Just("robot"),
    ]
    .prop_map(Value::from);
    let calls = prop_oneof![
        12 => prop::collection::vec(tool_call(), 0..3).prop_map(Value::from),
        1 => scalar(),
    ];
    let assistant = prop_oneof![Just(json!("assistant")), Just(json!("ai"))];
    (
        prop_oneof![
            1 => (maybe(0.97, "role", prop_oneof![20 => role, 1 => scalar()]), maybe(0.03, "tool_calls", calls.clone())),
            1 => (assistant.prop_map(|role| Some(("role".to_string(), role))), maybe(0.9, "tool_calls", calls)),
        ],
        maybe(0.5, "content", scalar()),
        maybe(
            0.2,
            "tool_call_id",
            prop_oneof![6 => Just(json!("c1")), 1 => scalar()],
        ),
        maybe(0.1, "name", prop_oneof![6 => text(), 1 => scalar()]),
    )
        .prop_map(|((a, b), c, d, e)| object(vec![a, b, c, d, e]))
        .boxed()
}

fn trajectory() -> BoxedStrategy<Value> {
    prop_oneof![
        8 => prop::collection::vec(message(), 0..4).prop_map(Value::from),
        1 => message(),
        1 => prop::collection::vec(message(), 0..2).prop_map(|m| json!({"messages": m})),
    ]
    .boxed()
}

fn case() -> BoxedStrategy<Value> {
    let mode = prop_oneof![
        20 => prop::sample::select(vec!["strict", "unordered", "subset", "superset"]),
        1 => Just("bogus"),
    ]
    .prop_map(Value::from);
    let args_mode =
        prop::sample::select(vec!["exact", "ignore", "subset", "superset"]).prop_map(Value::from);
    let overrides = prop_oneof![
        4 => Just(json!({"city": "ignore"})),
        4 => Just(json!({"a": ["city", "x.y"]})),
        4 => Just(Value::Null),
        1 => Just(json!({"a": [1]})),
        1 => scalar(),
    ];
    (
        (
            maybe(0.5, "name", prop_oneof![12 => text(), 1 => scalar()]),
            maybe(0.5, "mode", mode.clone()),
            maybe(0.1, "trajectory_match_mode", mode),
            maybe(0.5, "args_mode", args_mode),
            maybe(0.3, "overrides", overrides),
        ),
        (
            maybe(0.97, "outputs", trajectory()),
            maybe(0.9, "reference", trajectory()),
            maybe(0.1, "reference_outputs", trajectory()),
            maybe(0.1, "inputs", scalar()),
            maybe(0.03, "bogus", scalar()),
        ),
    )
        .prop_map(|((a, b, c, d, e), (f, g, h, i, j))| object(vec![a, b, c, d, e, f, g, h, i, j]))
        .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn both_readers_give_the_same_case_or_the_same_error(case in case()) {
        // Unicode escapes as written, not as serde_json would write them.
        let line = case.to_string().replace("\\\\u", "\\u");
        let defaults = MatchConfig::default();
        let general = serde_json::from_str(&line)
            .map_err(|e: serde_json::Error| ConfigError(e.to_string()))
            .and_then(|value| MatchCase::parse(value, &defaults));
        prop_assert_eq!(MatchCase::from_json(&line, &defaults), general, "{}", line);
    }
}

/// The generator reaches both outcomes, so the property above is not
/// comparing errors only.
#[test]
fn generated_cases_are_read_and_refused() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = case();
    let (mut read, mut refused) = (0, 0);
    for _ in 0..2000 {
        let line = strategy
            .new_tree(&mut runner)
            .unwrap()
            .current()
            .to_string()
            .replace("\\\\u", "\\u");
        match MatchCase::from_json(&line, &MatchConfig::default()) {
            Ok(case) if case.outputs.iter().any(|s| s.calls.is_some()) => read += 1,
            Ok(_) => {}
            Err(e) => {
                if refused < 15 {
                    eprintln!("{e}");
                }
                refused += 1
            }
        }
    }
    assert!(read > 50 && refused > 50, "read {read}, refused {refused}");
}
