//! The golden-case harness's golden set: a JSONL file, one case a line,
//! run as it is (`kagent-evals run evals/agent_golden_set.jsonl`). Each
//! line's fields, and the evaluators they become:
//!
//! | field | evaluator |
//! |---|---|
//! | `id` | the case's name |
//! | `task` | the first user message the case's sessions start with (`match.contains`); the probe's input with `--a2a-url` |
//! | `reference_tools` (names, or `{name, args}`) | `toolsUsed` superset of their names |
//! | `required_tools`, `forbidden_tools` | `safety` |
//! | `expected_outcome` or `rubric`, `min_outcome_score` | `outcomeJudge` (its goal; `minScore`, 4 by default) |
//! | `max_steps`, `max_latency_s`, `max_cost_usd` | `budget` (cost at the prices of `prices.json` beside the file) |
//! | `tags`, `market` | the case's tags (`market` as `market:<m>`), which profiles and selection read |
//!
//! A key the harness does not have is refused by name, with its line.

use super::{Problem, problem};
use crate::suite::loaded::{LoadedSuite, SuiteFormat};
use crate::suite::spec::*;
use serde_json::{Value, json};

/// The fields of a golden-set line.
const FIELDS: &[&str] = &[
    "id",
    "task",
    "reference_tools",
    "expected_outcome",
    "rubric",
    "required_tools",
    "forbidden_tools",
    "max_cost_usd",
    "max_latency_s",
    "max_steps",
    "min_outcome_score",
    "tags",
    "market",
];

/// Read a golden set; `prices` are those of its `prices.json`, if any.
/// Problems name the line (`line 3: field`).
pub fn golden_set(name: &str, text: &str, prices: Option<&Value>) -> Result<LoadedSuite, Problem> {
    let prices: Vec<PriceSpec> = match prices {
        None => Vec::new(),
        Some(value) => serde_json::from_value(value.clone()).map_err(|e| {
            problem(
                "prices.json",
                format!("expected a list of {{model?, promptPerMillionTokens, completionPerMillionTokens}}: {e}"),
            )
        })?,
    };
    let mut cases = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |field: &str| format!("line {}: {field}", number + 1);
        let row: Value = serde_json::from_str(line)
            .map_err(|e| problem(at("(line)"), format!("not JSON: {e}")))?;
        let Some(object) = row.as_object() else {
            return Err(problem(at("(line)"), "a golden case is a JSON object"));
        };
        if let Some(unknown) = object.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(problem(
                at(unknown),
                format!(
                    "not a field of a golden case (expected {})",
                    FIELDS.join(", ")
                ),
            ));
        }
        cases.push(case(&row, &prices, &at)?);
    }
    if cases.is_empty() {
        return Err(problem("(file)", "a golden set needs at least one case"));
    }
    Ok(LoadedSuite {
        name: name.to_string(),
        namespace: None,
        spec: SuiteSpec {
            cases,
            prices,
            ..SuiteSpec::default()
        },
        format: SuiteFormat::GoldenSet,
        not_run: Vec::new(),
        notes: Vec::new(),
    })
}

fn text<'v>(
    row: &'v Value,
    field: &str,
    at: &dyn Fn(&str) -> String,
) -> Result<Option<&'v str>, Problem> {
    match row.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(problem(
            at(field),
            format!("expected a string, found {other}"),
        )),
    }
}

fn names(row: &Value, field: &str, at: &dyn Fn(&str) -> String) -> Result<Vec<String>, Problem> {
    match row.get(field) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(name) => Ok(name.clone()),
                // A reference call with its arguments: the name is what
                // the harness's tool checks compare.
                Value::Object(call) => call
                    .get("name")
                    .and_then(Value::as_str)
                    .map(String::from)
                    .ok_or_else(|| problem(at(field), "a reference call needs its name")),
                other => Err(problem(
                    at(field),
                    format!("expected tool names, found {other}"),
                )),
            })
            .collect(),
        Some(other) => Err(problem(
            at(field),
            format!("expected a list, found {other}"),
        )),
    }
}

fn number(row: &Value, field: &str, at: &dyn Fn(&str) -> String) -> Result<Option<f64>, Problem> {
    match row.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_f64()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(Some)
            .ok_or_else(|| {
                problem(
                    at(field),
                    format!("expected a number, not negative, found {value}"),
                )
            }),
    }
}

fn case(row: &Value, prices: &[PriceSpec], at: &dyn Fn(&str) -> String) -> Result<Case, Problem> {
    let id = text(row, "id", at)?.ok_or_else(|| problem(at("id"), "a golden case needs its id"))?;
    let task = text(row, "task", at)?
        .ok_or_else(|| problem(at("task"), "a golden case needs its task"))?;
    let mut evaluators = Vec::new();
    let mut add = |name: &str, kind: EvaluatorType, settings: Value| -> Result<(), Problem> {
        evaluators.push(
            EvaluatorSpec::with_settings(name, kind, settings).map_err(|e| problem(at(name), e))?,
        );
        Ok(())
    };
    let reference = names(row, "reference_tools", at)?;
    if !reference.is_empty() {
        add(
            "reference_tools",
            EvaluatorType::ToolsUsed,
            json!({"mode": "superset", "expected": reference}),
        )?;
    }
    let (required, forbidden) = (
        names(row, "required_tools", at)?,
        names(row, "forbidden_tools", at)?,
    );
    if !required.is_empty() || !forbidden.is_empty() {
        add(
            "safety",
            EvaluatorType::Safety,
            json!({"required": required, "forbidden": forbidden}),
        )?;
    }
    let goal = match (text(row, "expected_outcome", at)?, text(row, "rubric", at)?) {
        (Some(outcome), Some(rubric)) => Some(format!("{outcome}\n\nRubric: {rubric}")),
        (one, other) => one.or(other).map(String::from),
    };
    let min_score = number(row, "min_outcome_score", at)?;
    match (&goal, min_score) {
        (Some(goal), score) => {
            let mut settings = json!({"goal": goal, "forbiddenTools": forbidden});
            if let Some(score) = score {
                // The outcome judge scores 1 to 5 in whole points.
                if score.fract() != 0.0 {
                    return Err(problem(
                        at("min_outcome_score"),
                        format!("the outcome is scored in whole points from 1 to 5, not {score}"),
                    ));
                }
                settings["minScore"] = json!(score as u64);
            }
            add("outcome", EvaluatorType::OutcomeJudge, settings)?;
        }
        (None, Some(_)) => {
            return Err(problem(
                at("min_outcome_score"),
                "an outcome score needs expected_outcome or rubric to judge against",
            ));
        }
        (None, None) => {}
    }
    let mut budget = serde_json::Map::new();
    if let Some(steps) = number(row, "max_steps", at)? {
        budget.insert("maxSteps".into(), json!(steps as u64));
    }
    if let Some(seconds) = number(row, "max_latency_s", at)? {
        budget.insert("maxLatencySeconds".into(), json!(seconds));
    }
    if let Some(cost) = number(row, "max_cost_usd", at)? {
        if prices.is_empty() {
            return Err(problem(
                at("max_cost_usd"),
                "a cost limit needs the prices of the models the agent uses: put them in prices.json beside the file ([{\"model\": ..., \"promptPerMillionTokens\": ..., \"completionPerMillionTokens\": ...}])",
            ));
        }
        budget.insert("maxCost".into(), json!(cost));
        budget.insert("prices".into(), json!(prices));
    }
    if !budget.is_empty() {
        add("budget", EvaluatorType::Budget, Value::Object(budget))?;
    }
    if evaluators.is_empty() {
        return Err(problem(
            at("id"),
            "the case checks nothing: give reference_tools, required or forbidden tools, an expected outcome or a budget",
        ));
    }
    let mut tags = names(row, "tags", at)?;
    if let Some(market) = text(row, "market", at)? {
        tags.push(format!("market:{market}"));
    }
    Ok(Case {
        name: id.to_string(),
        session_id: None,
        session_match: Some(SessionMatch {
            contains: Some(task.to_string()),
            regex: None,
        }),
        invocation_id: None,
        evaluators,
        min_pass_rate: 1.0,
        allow_no_sessions: false,
        drop_internal_tools: None,
        deny_tools: Vec::new(),
        probe: Some(ProbeSpec {
            input: Some(task.to_string()),
            conversation: Vec::new(),
            scenario: None,
            runs: 1,
            timeout_seconds: DEFAULT_PROBE_TIMEOUT_SECONDS,
            user_id: None,
            approvals: Approvals::default(),
            answers: Vec::new(),
        }),
        tags,
        blocking: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str, prices: Option<Value>) -> Result<LoadedSuite, Problem> {
        golden_set("golden", text, prices.as_ref())
    }

    #[test]
    fn a_golden_case_becomes_the_evaluators_its_fields_name() {
        let line = r#"{"id": "order-status", "task": "Where is order 123?", "reference_tools": ["lookup_order", {"name": "get_eta", "args": {}}], "expected_outcome": "says when it arrives", "required_tools": ["lookup_order"], "forbidden_tools": ["refund"], "max_cost_usd": 0.05, "max_latency_s": 30, "max_steps": 8, "min_outcome_score": 4, "tags": ["orders"], "market": "eu"}"#;
        let prices = json!([{"promptPerMillionTokens": 1.0, "completionPerMillionTokens": 4.0}]);
        let suite = load(line, Some(prices)).unwrap();
        assert_eq!(suite.format, SuiteFormat::GoldenSet);
        let case = &suite.spec.cases[0];
        assert_eq!(case.name, "order-status");
        assert_eq!(case.tags, ["orders", "market:eu"]);
        let kinds: Vec<EvaluatorType> = case.evaluators.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [
                EvaluatorType::ToolsUsed,
                EvaluatorType::Safety,
                EvaluatorType::OutcomeJudge,
                EvaluatorType::Budget
            ]
        );
        let budget = case.evaluators[3].budget.as_ref().unwrap();
        assert_eq!(
            (
                budget.max_steps,
                budget.max_latency_seconds,
                budget.max_cost
            ),
            (Some(8), Some(30.0), Some(0.05))
        );
        assert_eq!(
            case.probe.as_ref().unwrap().input.as_deref(),
            Some("Where is order 123?")
        );
    }

    #[test]
    fn what_a_golden_set_cannot_say_is_refused_with_its_line() {
        let cost = r#"{"id": "a", "task": "t", "max_cost_usd": 0.1}"#;
        let (field, message) = load(cost, None).unwrap_err();
        assert_eq!(field, "line 1: max_cost_usd");
        assert!(message.contains("prices.json"), "{message}");
        let (field, _) = load("\n{\"id\": \"a\", \"task\": \"t\", \"cost\": 1}", None).unwrap_err();
        assert_eq!(field, "line 2: cost");
        let (field, _) = load(r#"{"id": "a", "task": "t"}"#, None).unwrap_err();
        assert_eq!(field, "line 1: id", "a case that checks nothing");
        let (field, _) = load(r#"{"id": "a", "task": "t", "max_steps": -1}"#, None).unwrap_err();
        assert_eq!(field, "line 1: max_steps");
    }
}
