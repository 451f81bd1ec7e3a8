//! The captured kagent sessions convert to exactly the messages the rules
//! give, whichever runtime serialised them. The expected trajectories are
//! written out by hand from the rules of docs/scoring-semantics section 1.

use kagent_evals::core::convert::{ConvertOptions, convert};
use kagent_evals::core::ingest::{KeepJson, read_jsonl};
use kagent_evals::core::session::{Session, SessionKey};
use serde_json::{Value, json};
use std::path::Path;

fn load(path: &str) -> Session {
    let full = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path);
    let bytes = std::fs::read(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()));
    let raw = read_jsonl(bytes.as_slice(), path, KeepJson::No).unwrap();
    let session = Session::from_raw(SessionKey::new("s", None), None, raw);
    assert!(session.issues.is_empty(), "{path}: {:?}", session.issues);
    session
}

fn messages(path: &str) -> Value {
    let session = load(path);
    serde_json::to_value(convert(&session.events, &ConvertOptions::default()).messages).unwrap()
}

const WEATHER_TOOL: &str = "get-weather-by-city_get-weather-by-city";
const GROUNDED_ANSWER: &str = "Currently in **London**, it's a pleasant **73.2°F** with **63% humidity** and a light breeze at **9.2 mph** — clear skies make for a lovely day! ☀️";

fn weather(city: &str) -> Value {
    json!([
        {"role": "user", "content": "current weather in London"},
        {"role": "assistant", "content": "", "tool_calls": [{
            "type": "function",
            "function": {"name": WEATHER_TOOL, "arguments": format!("{{\"city\": \"{city}\"}}")},
            "id": "toolu_017JDdjaJNimRyUWBwdYwAmF"
        }]},
        {"role": "tool",
         "content": "Weather in London: Temperature: 73.2 F, Humidity: 63%, Wind: 9.2 mph",
         "tool_call_id": "toolu_017JDdjaJNimRyUWBwdYwAmF",
         "name": WEATHER_TOOL},
        {"role": "assistant", "content": GROUNDED_ANSWER}
    ])
}

fn ungrounded() -> Value {
    json!([
        {"role": "user", "content": "current weather in London"},
        {"role": "assistant", "content": "Currently in **London**, it's around **68°F** with light cloud and a gentle breeze. Typical for this time of year!"}
    ])
}

fn github_assistant() -> Value {
    json!([
        {"role": "user", "content": "Who is themsquared?"},
        // The ask_user call; the adk_request_confirmation call recorded under
        // role "user" in the next event is the runtime's, and is gone.
        {"role": "assistant", "content": "", "tool_calls": [{
            "type": "function",
            "function": {
                "name": "ask_user",
                "arguments": "{\"questions\": [{\"choices\": [\"Yes, look up their GitHub profile\", \"No, something else\"], \"question\": \"Are you asking about a GitHub user with the username 'themsquared'?\"}]}"
            },
            "id": "toolu_017F88JXFptHt8AG1RtCK8ai"
        }]},
        // A builtin tool's {"result": ...} envelope, opened one level.
        {"role": "tool",
         "content": "[{\"question\": \"Are you asking about a GitHub user with the username 'themsquared'?\", \"answer\": [\"Yes, look up their GitHub profile\"]}]",
         "tool_call_id": "toolu_017F88JXFptHt8AG1RtCK8ai",
         "name": "ask_user"},
        {"role": "assistant", "content": "I don't currently have a tool to look up a specific GitHub user's profile by username directly. However, I can help you **search for GitHub users** or assist with other GitHub-related tasks like exploring repositories, issues, or pull requests.\n\nWould you like me to search for the user **\"themsquared\"** via a user search? Or is there something else I can help you with?"},
        {"role": "user", "content": "Try again"},
        {"role": "assistant", "content": "", "tool_calls": [{
            "type": "function",
            "function": {"name": "search_users", "arguments": "{\"query\": \"themsquared\"}"},
            "id": "toolu_01UEPZTRU87pE171Cw6hesqo"
        }]},
        // An MCP envelope: the text of its one text block.
        {"role": "tool",
         "content": "{\"total_count\":1,\"incomplete_results\":false,\"items\":[{\"login\":\"themsquared\",\"id\":5358781,\"profile_url\":\"https://github.com/themsquared\",\"avatar_url\":\"https://avatars.githubusercontent.com/u/5358781?v=4\"}]}",
         "tool_call_id": "toolu_01UEPZTRU87pE171Cw6hesqo",
         "name": "search_users"},
        {"role": "assistant", "content": "Here's what I found for **themsquared** on GitHub:\n\n- **Username:** themsquared\n- **Profile URL:** [github.com/themsquared](https://github.com/themsquared)\n- **GitHub User ID:** 5358781\n\nWould you like me to explore their repositories or anything else?"}
    ])
}

fn expected(file: &str) -> Value {
    match file {
        "weather-grounded.jsonl" => weather("London"),
        "weather-wrong-city.jsonl" => weather("Paris"),
        "weather-ungrounded.jsonl" => ungrounded(),
        "github-assistant-session.jsonl" => github_assistant(),
        other => panic!("no expectation for {other}"),
    }
}

const FILES: [&str; 4] = [
    "weather-grounded.jsonl",
    "weather-ungrounded.jsonl",
    "weather-wrong-city.jsonl",
    "github-assistant-session.jsonl",
];

#[test]
fn captured_python_sessions_convert_to_the_rules_messages() {
    for file in FILES {
        assert_eq!(
            messages(&format!("kagent-captured/{file}")),
            expected(file),
            "{file}"
        );
    }
}

#[test]
fn go_runtime_renderings_convert_to_the_same_messages() {
    for spelling in ["pascal", "camel"] {
        for file in FILES {
            assert_eq!(
                messages(&format!("go-runtime/{spelling}/{file}")),
                expected(file),
                "{spelling}/{file}"
            );
        }
    }
}

#[test]
fn human_in_the_loop_calls_stay_the_agents_and_the_confirmation_is_dropped() {
    let session = load("kagent-captured/github-assistant-session.jsonl");
    // The ask_user result is recorded with content.role "user".
    let result_event = &session.events[5];
    assert_eq!(result_event.content.role(), Some("user"));
    let conversion = convert(&session.events, &ConvertOptions::default());
    let tools: Vec<_> = kagent_evals::core::convert::tool_names(&conversion.messages).collect();
    assert_eq!(tools, ["ask_user", "search_users"]);
    assert!(
        conversion
            .messages
            .iter()
            .all(|m| m.role != "user" || m.tool_calls.is_none())
    );

    let kept = convert(
        &session.events,
        &ConvertOptions {
            drop_internal_tools: false,
            ..ConvertOptions::default()
        },
    );
    let tools: Vec<_> = kagent_evals::core::convert::tool_names(&kept.messages).collect();
    assert_eq!(
        tools,
        ["ask_user", "adk_request_confirmation", "search_users"]
    );
}

#[test]
fn the_summary_accounts_for_every_event() {
    let session = load("kagent-captured/github-assistant-session.jsonl");
    let conversion = convert(&session.events, &ConvertOptions::default());
    let rows: Vec<String> = conversion.account.iter().map(|a| a.describe()).collect();
    assert_eq!(
        rows,
        [
            "no content",
            "text \"Who is themsquared?\"",
            "call ask_user",
            "filtered: adk_request_confirmation",
            "filtered: adk_request_confirmation",
            "result ask_user",
            "text \"I don't currently have a tool to look up a …\"",
            "no content",
            "no content",
            "text \"Try again\"",
            "call search_users",
            "result search_users",
            "text \"Here's what I found for **themsquared** on …\"",
            "no content",
        ]
    );
    assert_eq!(
        conversion.footer(),
        "14 events, 8 contributed -> 8 messages, tools: ask_user, search_users"
    );
    for file in FILES {
        for dir in ["kagent-captured", "go-runtime/pascal", "go-runtime/camel"] {
            let path = format!("{dir}/{file}");
            let session = load(&path);
            let conversion = convert(&session.events, &ConvertOptions::default());
            assert_eq!(conversion.account.len(), session.events.len(), "{path}");
            let indexes: Vec<_> = conversion.account.iter().map(|a| a.index).collect();
            assert_eq!(
                indexes,
                (0..session.events.len()).collect::<Vec<_>>(),
                "{path}"
            );
        }
    }
}
