//! Any bytes, read as a JSONL session, redacted, and converted with every
//! option on and off, must come back as events, issues and messages, never
//! as a panic; redaction must leave nothing it would redact again; and
//! wherever the typed reader reads a line, the general reader reads the
//! same event from it without an issue.
#![no_main]

use kagent_evals::core::convert::{ConvertOptions, convert, split_by_invocation};
use kagent_evals::core::event::Event;
use kagent_evals::core::typed::read_event;
use kagent_evals::core::ingest::{KeepJson, read_jsonl};
use kagent_evals::core::redact::{find_secrets, redact};
use kagent_evals::core::session::{Session, SessionKey};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for line in data.split(|b| *b == b'\n') {
        let Some(typed) = std::str::from_utf8(line).ok().and_then(read_event) else {
            continue;
        };
        let value: serde_json::Value = serde_json::from_slice(line).expect("typed read it");
        assert_eq!(Event::from_json(&value), (typed, Vec::new()));
    }
    let Ok(raw) = read_jsonl(data, "fuzz.jsonl", KeepJson::Yes) else { return };
    for row in &raw.events {
        let mut value = row.value().expect("the JSON was kept");
        redact(&mut value);
        assert!(find_secrets(&value).is_empty());
    }
    let session = Session::from_raw(SessionKey::new("fuzz", None), None, raw);
    let everything = ConvertOptions {
        drop_internal_tools: false,
        include_partial: true,
        include_thoughts: true,
        unwrap_tool_output: false,
        unwrap_structured_content: false,
        deny_tools: vec!["search_users".into()],
    };
    for options in [ConvertOptions::default(), everything] {
        let conversion = convert(&session.events, &options);
        assert_eq!(conversion.account.len(), session.events.len());
        let _ = conversion.footer();
        for (_, group) in split_by_invocation(&session.events) {
            let _ = convert(group, &options);
        }
    }
});
