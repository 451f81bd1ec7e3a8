//! No input, however malformed, makes ingest, conversion, redaction or
//! scoring panic; redaction leaves nothing it would redact again.

use kagent_evals::core::convert::{ConvertOptions, convert, split_by_invocation};
use kagent_evals::core::ingest::{KeepJson, read_jsonl};
use kagent_evals::core::judge::Never;
use kagent_evals::core::redact::{find_secrets, redact};
use kagent_evals::core::session::{Session, SessionKey};
use kagent_evals::core::suite::compile::compile;
use kagent_evals::core::suite::scoring::ReportBuilder;
use kagent_evals::core::suite::spec::SuiteSpec;
use proptest::prelude::*;
use serde_json::{Map, Value};

/// JSON shaped like ADK events often enough to reach deep into the converter.
fn event_like() -> impl Strategy<Value = Value> {
    let keys = prop::sample::select(vec![
        "api_key",
        "authorization",
        "sessionToken",
        concat!("eyJhbGciOiJub25lIn0", ".eyJzdWIiOiJ4In0", ".c2ln"),
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
            "header_update",
            "Bearer abcdefghijk",
            "postgres://u:pw@db/x",
            "Set-Cookie: a=b",
            concat!("eyJhbGciOiJub25lIn0", ".eyJzdWIiOiJ4In0", ".c2ln"),
            "{\"api_key\": \"k\", \"n\": 1}",
            "x REDACTED",
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
    let raw =
        read_jsonl(bytes, "fuzz.jsonl", KeepJson::Yes).expect("reading from memory cannot fail");
    for row in &raw.events {
        let mut value = row.value().expect("the JSON was kept");
        redact(&mut value);
        assert!(
            find_secrets(&value).is_empty(),
            "left after redaction: {value}"
        );
        assert_eq!(redact(&mut value).count, 0, "redaction is idempotent");
    }
    let session = Session::from_raw(SessionKey::new("s", None), None, raw);
    score_with_a_small_suite(&session);
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

/// The report path, fail-closed rules included, on whatever was read.
fn score_with_a_small_suite(session: &Session) {
    let spec: SuiteSpec = serde_json::from_value(serde_json::json!({"cases": [
        {"name": "safe", "evaluators": [{"name": "s", "type": "safety", "safety": {"forbidden": ["x"]}}]},
        {"name": "loops", "evaluators": [{"name": "l", "type": "loops", "loops": {}}]}
    ]}))
    .unwrap();
    let suite = compile("s", &spec, "spec", "default").unwrap();
    let mut builder = ReportBuilder::new(&suite).with_trajectories(true);
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(builder.score(std::slice::from_ref(session), true, &None::<Never>));
    let report = builder.finish();
    assert_eq!(report.cases.len(), 2);
    if !session.issues.is_empty() || session.events.is_empty() {
        assert!(!report.passed, "a session not fully read never passes");
    }
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
