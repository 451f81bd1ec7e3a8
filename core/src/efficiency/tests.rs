use super::*;
use serde_json::{Value, json};

fn events(values: &[Value]) -> Vec<Event> {
    values
        .iter()
        .map(|v| {
            let (event, issues) = Event::from_json(v);
            assert!(issues.is_empty(), "{issues:?}");
            event
        })
        .collect()
}

fn user(invocation: &str, at: f64, text: &str) -> Value {
    json!({"invocation_id": invocation, "author": "user", "timestamp": at,
           "content": {"role": "user", "parts": [{"text": text}]}})
}

fn model(invocation: &str, at: f64, usage: Option<(u64, u64)>, call: Option<&str>) -> Value {
    let part = match call {
        Some(name) => json!({"function_call": {"id": "c", "name": name, "args": {}}}),
        None => json!({"text": "answer"}),
    };
    let mut event = json!({"invocation_id": invocation, "author": "agent", "timestamp": at,
                           "model_version": "gpt-4.1", "content": {"role": "model", "parts": [part]}});
    if let Some((prompt, completion)) = usage {
        event["usage_metadata"] = json!({"prompt_token_count": prompt, "candidates_token_count": completion,
                                         "total_token_count": prompt + completion});
    }
    event
}

fn tool_result(invocation: &str, at: f64) -> Value {
    json!({"invocation_id": invocation, "author": "agent", "timestamp": at,
           "content": {"role": "user", "parts": [{"function_response": {"id": "c", "name": "get_weather", "response": {}}}]}})
}

fn prices() -> Vec<Price> {
    vec![Price {
        model: Some("gpt-4.1".into()),
        prompt_per_million: 2.0,
        completion_per_million: 8.0,
    }]
}

fn of(values: &[Value], prices: &[Price]) -> Efficiency {
    let events = events(values);
    let refs: Vec<&Event> = events.iter().collect();
    measure(&refs, prices)
}

#[test]
fn a_session_with_usage_and_times_is_measured_whole() {
    let e = of(
        &[
            user("i1", 100.0, "weather?"),
            model("i1", 101.0, Some((100, 20)), Some("get_weather")),
            tool_result("i1", 101.5),
            model("i1", 103.0, Some((200, 40)), None),
            user("i2", 110.0, "and tomorrow?"),
            model("i2", 112.5, Some((300, 10)), None),
        ],
        &prices(),
    );
    assert_eq!(e.prompt_tokens, Measure::Measured(600));
    assert_eq!(e.completion_tokens, Measure::Measured(70));
    assert_eq!(e.total_tokens, Measure::Measured(670));
    assert_eq!((e.model_calls, e.tool_calls), (3, 1));
    assert_eq!(e.latency_seconds, Measure::Measured(12.5));
    let cost = e.cost.value().unwrap();
    assert!(
        (cost - (600.0 * 2.0 + 70.0 * 8.0) / 1e6).abs() < 1e-12,
        "{cost}"
    );
    assert_eq!(e.invocations.len(), 2);
    assert_eq!(e.invocations[0].latency_seconds, Measure::Measured(3.0));
    assert_eq!(e.invocations[1].total_tokens, Measure::Measured(310));
    let json = serde_json::to_value(&e).unwrap();
    assert_eq!(json["totalTokens"], 670);
}

#[test]
fn what_the_record_does_not_hold_is_unmeasured_with_the_reason() {
    let bare = of(
        &[user("i1", 1.0, "hi"), model("i1", 2.0, None, None)],
        &prices(),
    );
    assert_eq!(bare.total_tokens, Measure::unmeasured(NO_USAGE));
    assert_eq!(bare.cost, Measure::unmeasured(NO_USAGE));
    assert_eq!(bare.model_calls, 1, "calls are counted from the record");
    let json = serde_json::to_value(&bare).unwrap();
    assert_eq!(json["totalTokens"], json!({"unmeasured": NO_USAGE}));

    let unpriced = of(
        &[user("i1", 1.0, "hi"), model("i1", 2.0, Some((1, 1)), None)],
        &[],
    );
    assert_eq!(unpriced.cost, Measure::unmeasured(NO_PRICES));
    let other_model = Price {
        model: Some("other".into()),
        ..prices()[0].clone()
    };
    let priced_elsewhere = of(
        &[user("i1", 1.0, "hi"), model("i1", 2.0, Some((1, 1)), None)],
        &[other_model],
    );
    assert_eq!(
        priced_elsewhere.cost,
        Measure::unmeasured("no price for model `gpt-4.1` among the prices")
    );

    let mut untimed = model("i1", 2.0, Some((1, 1)), None);
    untimed.as_object_mut().unwrap().remove("timestamp");
    let no_time = of(&[user("i1", 1.0, "hi"), untimed], &prices());
    assert_eq!(
        no_time.latency_seconds,
        Measure::unmeasured("the record holds no timestamps")
    );

    // Nothing asked of the model: nothing used.
    let silent = of(&[user("i1", 1.0, "hi")], &prices());
    assert_eq!(silent.total_tokens, Measure::Measured(0));
}

#[test]
fn one_invocation_without_usage_leaves_the_session_unmeasured_and_names_it() {
    let e = of(
        &[
            user("i1", 1.0, "a"),
            model("i1", 2.0, Some((1, 1)), None),
            user("i2", 3.0, "b"),
            model("i2", 4.0, None, None),
        ],
        &prices(),
    );
    assert_eq!(e.invocations[0].total_tokens, Measure::Measured(2));
    assert_eq!(
        e.total_tokens,
        Measure::unmeasured(format!("invocation 2: {NO_USAGE}"))
    );
}

#[test]
fn negative_or_overflowing_counts_and_times_leave_the_event_readable_and_the_measure_unmeasured() {
    let mut negative = model("i1", 2.0, None, None);
    negative["usage_metadata"] = json!({"prompt_token_count": -5, "candidates_token_count": 1});
    let mut huge = model("i1", 3.0, None, None);
    huge["usage_metadata"] = json!({"prompt_token_count": 1e300, "candidates_token_count": 1});
    for bad in [negative, huge] {
        let e = of(&[user("i1", 1.0, "hi"), bad], &prices());
        let why = e.total_tokens.get().unwrap_err();
        assert!(
            why.starts_with("unreadable usage metadata (field `usage_metadata.prompt_token_count`"),
            "{why}"
        );
        assert!(e.cost.value().is_none());
        assert!(
            e.latency_seconds.value().is_some(),
            "the times still measure"
        );
    }
    for bad_time in [json!(-30.0), json!(1e300), json!("yesterday")] {
        let mut event = model("i1", 2.0, Some((1, 1)), None);
        event["timestamp"] = bad_time.clone();
        let e = of(&[user("i1", 1.0, "hi"), event], &prices());
        let why = e.latency_seconds.get().unwrap_err();
        assert!(
            why.starts_with("an unreadable timestamp (field `timestamp`"),
            "{bad_time}: {why}"
        );
        assert_eq!(e.total_tokens, Measure::Measured(2), "{bad_time}");
    }
}

#[test]
fn statistics_are_over_what_was_measured_by_nearest_rank() {
    let values: Vec<Option<f64>> = (1..=20)
        .map(|v| Some(v as f64))
        .chain([None, None])
        .collect();
    let stat = Stat::of(&values);
    assert_eq!(stat.measured, 20);
    assert_eq!(stat.unmeasured, 2);
    assert_eq!(stat.mean, Some(10.5));
    assert_eq!(stat.p50, Some(10.0));
    assert_eq!(stat.p95, Some(19.0));
    let none = Stat::of(&[None]);
    assert_eq!((none.mean, none.measured, none.unmeasured), (None, 0, 1));
    assert_eq!(Stat::of(&[Some(3.0)]).p95, Some(3.0));
}
