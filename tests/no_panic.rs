//! No input, however malformed, makes ingest or conversion panic.

use kagent_evals::core::convert::{ConvertOptions, convert, split_by_invocation};
use kagent_evals::core::ingest::read_jsonl;
use kagent_evals::core::session::{Session, SessionKey};
use proptest::prelude::*;
use serde_json::{Map, Value};

/// JSON shaped like ADK events often enough to reach deep into the converter.
fn event_like() -> impl Strategy<Value = Value> {
    let keys = prop::sample::select(vec![
        "author",
        "Author",
        "content",
        "Content",
        "parts",
        "text",
        "thought",
        "function_call",
        "functionCall",
        "function_response",
        "name",
        "args",
        "response",
        "id",
        "invocation_id",
        "InvocationID",
        "partial",
        "timestamp",
        "Timestamp",
        "usage_metadata",
        "total_token_count",
        "actions",
        "end_of_agent",
        "isError",
        "result",
        "type",
        "role",
        "data",
    ]);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        prop::sample::select(vec![
            "user",
            "text",
            "adk_x",
            "",
            " ",
            "2026-01-01T00:00:00Z",
            "header_update"
        ])
        .prop_map(Value::from),
        ".*".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((keys.clone(), inner), 0..6).prop_map(|entries| Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect::<Map<_, _>>()
            )),
        ]
    })
}

fn exercise(bytes: &[u8]) {
    let raw = read_jsonl(bytes, "fuzz.jsonl").expect("reading from memory cannot fail");
    let session = Session::from_raw(SessionKey::new("s", None), None, raw);
    for options in [
        ConvertOptions::default(),
        ConvertOptions {
            drop_internal_tools: false,
            include_partial: true,
            include_thoughts: true,
            unwrap_tool_output: false,
            ..ConvertOptions::default()
        },
    ] {
        let conversion = convert(&session.events, &options);
        let _ = conversion.footer();
        assert_eq!(conversion.account.len(), session.events.len());
        for (_, group) in split_by_invocation(&session.events) {
            let _ = convert(group, &options);
        }
    }
    let _ = session.first_user_text();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        exercise(&bytes);
    }

    #[test]
    fn event_shaped_json_never_panics(events in prop::collection::vec(event_like(), 0..8)) {
        let text: String = events.iter().map(|e| format!("{e}\n")).collect();
        exercise(text.as_bytes());
    }
}
