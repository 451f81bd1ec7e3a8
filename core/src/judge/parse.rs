//! Reading a judge's answer. Endpoints that honour the JSON schema answer
//! with the object alone; others wrap it in a Markdown fence or in prose, so
//! the first JSON object found in the text is taken. Errors never quote
//! the answer.

use crate::event::kind;
use serde_json::{Map, Value};

/// The JSON object the answer holds.
pub fn json_object(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.trim();
    if let Ok(Value::Object(object)) = serde_json::from_str(text) {
        return Ok(object);
    }
    for fenced in fenced_blocks(text) {
        if let Ok(Value::Object(object)) = serde_json::from_str(fenced) {
            return Ok(object);
        }
    }
    for (start, _) in text.match_indices('{') {
        let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        if let Some(Ok(Value::Object(object))) = values.next() {
            return Ok(object);
        }
    }
    Err(format!("no JSON object in the answer ({})", describe(text)))
}

/// The bodies of ```-fenced blocks, language tag removed.
fn fenced_blocks(text: &str) -> impl Iterator<Item = &str> {
    text.split("```").skip(1).step_by(2).map(|block| {
        let body = block.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
        body.trim()
    })
}

/// A broken answer by its size only: the judge's words may quote the
/// conversation, and this message reaches the run's status.
fn describe(text: &str) -> String {
    if text.is_empty() {
        "it was empty".into()
    } else {
        format!("{} characters", text.chars().count())
    }
}

/// A yes/no judgement: `true`/`false`, their strings, or 0/1.
pub fn boolean(object: &Map<String, Value>, field: &str) -> Result<bool, String> {
    match object.get(field) {
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => Ok(true),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => Ok(false),
        Some(Value::Number(n)) if n.as_f64() == Some(1.0) => Ok(true),
        Some(Value::Number(n)) if n.as_f64() == Some(0.0) => Ok(false),
        Some(other) => Err(format!(
            "`{field}` must be true or false, not {}",
            kind(other)
        )),
        None => Err(format!("`{field}` is missing")),
    }
}

/// A number in `low..=high`, also when written as a string or a boolean
/// (`true` is `high`).
pub fn number(
    object: &Map<String, Value>,
    field: &str,
    low: f64,
    high: f64,
) -> Result<f64, String> {
    let value = match object.get(field) {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        Some(Value::Bool(b)) => Some(if *b { high } else { low }),
        Some(_) => None,
        None => return Err(format!("`{field}` is missing")),
    };
    value
        .filter(|v| (low..=high).contains(v))
        .ok_or_else(|| format!("`{field}` must be a number from {low} to {high}"))
}

/// The judge's reasoning; an answer without it is still usable.
pub fn reasoning(object: &Map<String, Value>) -> String {
    match object.get("reasoning") {
        Some(Value::String(s)) => s.trim().to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_bare_object_a_fenced_one_and_one_inside_prose_are_read() {
        let expected = json!({"reasoning": "ok", "score": true});
        for text in [
            r#"{"reasoning": "ok", "score": true}"#,
            "```json\n{\"reasoning\": \"ok\", \"score\": true}\n```",
            "```\n{\"reasoning\": \"ok\", \"score\": true}\n```",
            "Here is my verdict: {\"reasoning\": \"ok\", \"score\": true} Hope it helps {",
            "Step {1} first.\n{\"reasoning\": \"ok\", \"score\": true}",
        ] {
            assert_eq!(
                Value::Object(json_object(text).unwrap()),
                expected,
                "{text}"
            );
        }
    }

    #[test]
    fn an_answer_without_an_object_is_an_error_that_does_not_quote_it() {
        let error = json_object("I think the agent did well.").unwrap_err();
        assert!(
            error.contains("no JSON object") && error.contains("27 characters"),
            "{error}"
        );
        assert!(!error.contains("agent"), "{error}");
        assert!(json_object("").unwrap_err().contains("empty"));
        assert!(json_object("[1, 2]").is_err());
    }

    #[test]
    fn scores_are_read_leniently_but_checked() {
        let object = |v: Value| v.as_object().unwrap().clone();
        assert!(boolean(&object(json!({"s": "TRUE"})), "s").unwrap());
        assert!(!boolean(&object(json!({"s": 0})), "s").unwrap());
        assert!(boolean(&object(json!({"s": "maybe"})), "s").is_err());
        assert!(
            boolean(&object(json!({})), "s")
                .unwrap_err()
                .contains("missing")
        );
        assert_eq!(number(&object(json!({"s": "4"})), "s", 1.0, 5.0), Ok(4.0));
        assert_eq!(number(&object(json!({"s": true})), "s", 0.0, 1.0), Ok(1.0));
        assert!(number(&object(json!({"s": 7})), "s", 1.0, 5.0).is_err());
        assert_eq!(reasoning(&object(json!({"reasoning": " why "}))), "why");
        assert_eq!(reasoning(&object(json!({"reasoning": 3}))), "");
    }
}
