//! Google ADK's eval files as suites: EvalSets, the old `.test.json` list
//! format, and the `test_config.json` criteria that say which metrics score
//! them and how. Read as google-adk 2.13 reads them, with every key either
//! understood or refused by name: a file ADK would score by criteria this
//! tool does not honour is an error, never scored some other way.
//!
//! Each criterion becomes one evaluator per case, named by its metric;
//! a case ADK plays with a user simulator (`conversation_scenario`), or
//! that has no invocations (which ADK reports as not evaluated), is kept
//! out of the suite and reported as not run.

use super::{Problem, problem};
use crate::score::adk::{AdkMatchType, ToolUse};
use crate::suite::loaded::{LoadedSuite, NotRun, SuiteFormat};
use crate::suite::spec::*;
use serde_json::{Map, Value, json};

/// One metric a criteria file names, with its settings.
#[derive(Clone, Debug, PartialEq)]
pub enum Criterion {
    ToolTrajectory {
        threshold: f64,
        match_type: AdkMatchType,
        ignore_args: bool,
    },
    ResponseMatch {
        threshold: f64,
    },
    /// One of ADK's judged metrics, as an `adkJudge` evaluator.
    Judged(Judged),
}

/// A judged metric's criterion, as ADK reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    pub metric: AdkJudgedMetric,
    pub threshold: f64,
    /// ADK's `judge_model`, asked of the judge endpoint when the file names it.
    pub judge_model: Option<String>,
    pub samples: u32,
    pub temperature: Option<f64>,
    pub rubrics: Vec<RubricSpec>,
    pub include_intermediate: bool,
    pub evaluate_intermediate: bool,
}

impl Criterion {
    pub fn metric(&self) -> &'static str {
        match self {
            Criterion::ToolTrajectory { .. } => TOOL_TRAJECTORY,
            Criterion::ResponseMatch { .. } => RESPONSE_MATCH,
            Criterion::Judged(j) => j.metric.adk_name(),
        }
    }
}

const JUDGED: [AdkJudgedMetric; 4] = [
    AdkJudgedMetric::RubricBasedFinalResponseQualityV1,
    AdkJudgedMetric::RubricBasedToolUseQualityV1,
    AdkJudgedMetric::HallucinationsV1,
    AdkJudgedMetric::FinalResponseMatchV2,
];

/// ADK's rubric type that lets a case's own rubric join a metric.
fn rubric_type(metric: AdkJudgedMetric) -> &'static str {
    match metric {
        AdkJudgedMetric::RubricBasedToolUseQualityV1 => "TOOL_USE_QUALITY",
        _ => "FINAL_RESPONSE_QUALITY",
    }
}

/// ADK's rubrics (`rubric_id`, `rubric_content.text_property`, optional
/// `description` and `type`), in either spelling.
fn rubrics(value: &Value, at: &str, of_type: Option<&str>) -> Result<Vec<RubricSpec>, Problem> {
    let Some(list) = value.as_array() else {
        return Err(problem(at, "expected a list of rubrics"));
    };
    let mut out = Vec::new();
    for (i, rubric) in list.iter().enumerate() {
        let here = format!("{at}[{i}]");
        only_keys(
            rubric,
            &here,
            &["rubric_id", "rubric_content", "description", "type"],
        )?;
        if of_type.is_some_and(|t| field(rubric, "type", "type").and_then(Value::as_str) != Some(t))
        {
            continue;
        }
        let id = field(rubric, "rubric_id", "rubricId")
            .and_then(Value::as_str)
            .ok_or_else(|| problem(format!("{here}.rubric_id"), "a rubric needs its id"))?;
        let content = field(rubric, "rubric_content", "rubricContent").ok_or_else(|| {
            problem(
                format!("{here}.rubric_content"),
                "a rubric needs its content",
            )
        })?;
        only_keys(
            content,
            &format!("{here}.rubric_content"),
            &["text_property"],
        )?;
        let text = field(content, "text_property", "textProperty")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                problem(
                    format!("{here}.rubric_content.text_property"),
                    "a rubric needs its text",
                )
            })?;
        out.push(RubricSpec {
            id: id.into(),
            text: text.into(),
        });
    }
    Ok(out)
}

/// A judged metric's criterion: a bare threshold, or ADK's object.
fn judged(metric: AdkJudgedMetric, value: &Value, at: &str) -> Result<Judged, Problem> {
    let mut judged = Judged {
        metric,
        threshold: 0.0,
        judge_model: None,
        samples: 5,
        temperature: None,
        rubrics: Vec::new(),
        include_intermediate: false,
        evaluate_intermediate: false,
    };
    let Value::Object(object) = value else {
        judged.threshold = threshold(value, at)?;
        return Ok(judged);
    };
    let mut known = vec![
        ("threshold", "threshold"),
        ("judge_model_options", "judgeModelOptions"),
        (
            "include_intermediate_responses_in_final",
            "includeIntermediateResponsesInFinal",
        ),
    ];
    if metric.uses_rubrics() {
        known.push(("rubrics", "rubrics"));
    }
    if metric == AdkJudgedMetric::HallucinationsV1 {
        known.push((
            "evaluate_intermediate_nl_responses",
            "evaluateIntermediateNlResponses",
        ));
    }
    let o = criterion_object(object, at, &known)?;
    judged.threshold = threshold(
        o.get("threshold")
            .ok_or_else(|| problem(at, "a criterion object needs `threshold`"))?,
        &format!("{at}.threshold"),
    )?;
    let flag = |key: &str| -> Result<bool, Problem> {
        o.get(key).map_or(Ok(false), |v| {
            lax_bool(v).ok_or_else(|| {
                problem(
                    format!("{at}.{key}"),
                    format!("must be true or false, not {v}"),
                )
            })
        })
    };
    judged.include_intermediate = flag("include_intermediate_responses_in_final")?;
    judged.evaluate_intermediate = flag("evaluate_intermediate_nl_responses")?;
    if let Some(list) = o.get("rubrics") {
        judged.rubrics = rubrics(list, &format!("{at}.rubrics"), None)?;
    }
    if let Some(options) = o.get("judge_model_options") {
        let here = format!("{at}.judge_model_options");
        let Value::Object(options) = options else {
            return Err(problem(here, "expected an object"));
        };
        // parallelism_limit is how many calls ADK makes at once: this tool
        // asks one at a time, which is its smallest value.
        let options = criterion_object(
            options,
            &here,
            &[
                ("judge_model", "judgeModel"),
                ("num_samples", "numSamples"),
                ("parallelism_limit", "parallelismLimit"),
                ("judge_model_config", "judgeModelConfig"),
            ],
        )?;
        if let Some(model) = options.get("judge_model") {
            judged.judge_model = Some(
                model
                    .as_str()
                    .ok_or_else(|| problem(format!("{here}.judge_model"), "expected a model name"))?
                    .to_string(),
            );
        }
        if let Some(samples) = options.get("num_samples") {
            judged.samples = samples
                .as_u64()
                .filter(|n| (1..=9).contains(n))
                .ok_or_else(|| problem(format!("{here}.num_samples"), "expected 1 to 9"))?
                as u32;
        }
        if let Some(config) = options.get("judge_model_config") {
            let config_at = format!("{here}.judge_model_config");
            let Value::Object(config) = config else {
                return Err(problem(config_at, "expected an object"));
            };
            let config = criterion_object(config, &config_at, &[("temperature", "temperature")])?;
            judged.temperature = config
                .get("temperature")
                .map(|t| {
                    t.as_f64().ok_or_else(|| {
                        problem(format!("{config_at}.temperature"), "expected a number")
                    })
                })
                .transpose()?;
        }
    }
    Ok(judged)
}

const TOOL_TRAJECTORY: &str = "tool_trajectory_avg_score";
const RESPONSE_MATCH: &str = "response_match_score";

/// Metrics ADK has that this tool does not score, and why.
const UNSUPPORTED: &[(&str, &str)] = &[
    (
        "response_evaluation_score",
        "Vertex AI's response quality evaluation, which needs Google Cloud",
    ),
    (
        "safety_v1",
        "Vertex AI's safety evaluation, which needs Google Cloud",
    ),
    (
        "per_turn_user_simulator_quality_v1",
        "a judge of ADK's user simulator",
    ),
    (
        "tool_call_count_v1",
        "informational in ADK: it takes no threshold",
    ),
    (
        "inference_call_count_v1",
        "informational in ADK: it takes no threshold",
    ),
    (
        "token_usage_v1",
        "informational in ADK: it takes no threshold",
    ),
    (
        "invocation_duration_v1",
        "informational in ADK: it takes no threshold",
    ),
];

/// The metrics of a criteria file, in its order.
#[derive(Clone, Debug, PartialEq)]
pub struct Criteria(pub Vec<Criterion>);

impl Default for Criteria {
    /// ADK's criteria for a file without a `test_config.json`.
    fn default() -> Self {
        Criteria(vec![
            Criterion::ToolTrajectory {
                threshold: 1.0,
                match_type: AdkMatchType::Exact,
                ignore_args: false,
            },
            Criterion::ResponseMatch { threshold: 0.8 },
        ])
    }
}

/// A threshold as pydantic reads a float: a number, a numeric string, or a
/// boolean (1.0 or 0.0).
fn threshold(value: &Value, at: &str) -> Result<f64, Problem> {
    let number = match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    };
    number
        .filter(|n| n.is_finite())
        .ok_or_else(|| problem(at, format!("a threshold must be a number, not {value}")))
}

/// The `threshold` a criterion object must carry.
fn required_threshold(criterion: &Map<String, Value>, at: &str) -> Result<f64, Problem> {
    let value = criterion
        .get("threshold")
        .ok_or_else(|| problem(at, "a criterion object needs `threshold`"))?;
    threshold(value, &format!("{at}.threshold"))
}

/// A boolean as pydantic reads one: `true`/`false`, 0/1, or a string such
/// as "yes", "off", "1" (ADK's `ignore_args`).
fn lax_bool(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => match n.as_f64() {
            Some(0.0) => Some(false),
            Some(1.0) => Some(true),
            _ => None,
        },
        Value::String(s) => match s.trim().to_lowercase().as_str() {
            "0" | "off" | "f" | "false" | "n" | "no" => Some(false),
            "1" | "on" | "t" | "true" | "y" | "yes" => Some(true),
            _ => None,
        },
        _ => None,
    }
}

/// A criterion's object keys in either spelling, checked against `known`.
fn criterion_object(
    object: &Map<String, Value>,
    at: &str,
    known: &[(&str, &str)],
) -> Result<Map<String, Value>, Problem> {
    let mut out = Map::new();
    for (key, value) in object {
        let Some((snake, _)) = known
            .iter()
            .find(|(snake, camel)| key == snake || key == camel)
        else {
            let names: Vec<&str> = known.iter().map(|(snake, _)| *snake).collect();
            return Err(problem(
                format!("{at}.{key}"),
                format!(
                    "not a setting of this criterion (expected {})",
                    names.join(", ")
                ),
            ));
        };
        out.insert(snake.to_string(), value.clone());
    }
    Ok(out)
}

/// Read a `test_config.json` body.
pub fn criteria(config: &Value) -> Result<Criteria, Problem> {
    let Some(top) = config.as_object() else {
        return Err(problem(
            "",
            "a criteria file is a JSON object with `criteria`",
        ));
    };
    for key in top.keys() {
        match key.as_str() {
            "criteria"
            | "user_simulator_config"
            | "userSimulatorConfig"
            | "live_model_config"
            | "liveModelConfig" => {}
            "custom_metrics" | "customMetrics" => {
                return Err(problem(
                    key.as_str(),
                    "custom metrics are Python functions, which this tool cannot run",
                ));
            }
            other => {
                return Err(problem(
                    other,
                    "not a key of ADK's criteria file (expected criteria)",
                ));
            }
        }
    }
    let Some(map) = top.get("criteria").and_then(Value::as_object) else {
        return Err(problem(
            "criteria",
            "expected an object of metric names and thresholds",
        ));
    };
    let mut out = Vec::new();
    for (metric, value) in map {
        let at = format!("criteria.{metric}");
        let intermediate = (
            "include_intermediate_responses_in_final",
            "includeIntermediateResponsesInFinal",
        );
        let criterion = match metric.as_str() {
            TOOL_TRAJECTORY => match value {
                Value::Object(object) => {
                    let o = criterion_object(
                        object,
                        &at,
                        &[
                            ("threshold", "threshold"),
                            ("match_type", "matchType"),
                            ("ignore_args", "ignoreArgs"),
                            intermediate,
                        ],
                    )?;
                    Criterion::ToolTrajectory {
                        threshold: required_threshold(&o, &at)?,
                        match_type: match o.get("match_type") {
                            None => AdkMatchType::Exact,
                            Some(v) => AdkMatchType::parse(v)
                                .map_err(|e| problem(format!("{at}.match_type"), e.0))?,
                        },
                        ignore_args: match o.get("ignore_args") {
                            None => false,
                            Some(v) => lax_bool(v).ok_or_else(|| {
                                problem(
                                    format!("{at}.ignore_args"),
                                    format!("must be true or false, not {v}"),
                                )
                            })?,
                        },
                    }
                }
                other => Criterion::ToolTrajectory {
                    threshold: threshold(other, &at)?,
                    match_type: AdkMatchType::Exact,
                    ignore_args: false,
                },
            },
            RESPONSE_MATCH => match value {
                Value::Object(object) => {
                    let o =
                        criterion_object(object, &at, &[("threshold", "threshold"), intermediate])?;
                    Criterion::ResponseMatch {
                        threshold: required_threshold(&o, &at)?,
                    }
                }
                other => Criterion::ResponseMatch {
                    threshold: threshold(other, &at)?,
                },
            },
            name if JUDGED.iter().any(|m| m.adk_name() == name) => {
                let metric = *JUDGED
                    .iter()
                    .find(|m| m.adk_name() == name)
                    .expect("matched");
                Criterion::Judged(judged(metric, value, &at)?)
            }
            name => {
                let why = UNSUPPORTED
                    .iter()
                    .find(|(known, _)| *known == name)
                    .map_or("not a metric ADK or this tool knows", |(_, why)| why);
                return Err(problem(
                    at,
                    format!("{name} is {why}; this tool does not score it"),
                ));
            }
        };
        out.push(criterion);
    }
    Ok(Criteria(out))
}

/// A field in either of ADK's spellings.
fn field<'v>(value: &'v Value, snake: &str, camel: &str) -> Option<&'v Value> {
    value
        .get(snake)
        .or_else(|| value.get(camel))
        .filter(|v| !v.is_null())
}

/// Refuse keys ADK's model does not have: ADK forbids them inside cases.
fn only_keys(value: &Value, at: &str, known: &[&str]) -> Result<(), Problem> {
    let Some(object) = value.as_object() else {
        return Err(problem(at, format!("expected an object, found {value}")));
    };
    let camel = |snake: &str| {
        let mut out = String::new();
        let mut upper = false;
        for c in snake.chars() {
            if c == '_' {
                upper = true;
            } else if upper {
                out.extend(c.to_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        }
        out
    };
    match object
        .keys()
        .find(|k| !known.iter().any(|s| *k == s || **k == camel(s)))
    {
        Some(unknown) => Err(problem(
            format!("{at}.{unknown}"),
            format!(
                "not a field of ADK's model here (expected {})",
                known.join(", ")
            ),
        )),
        None => Ok(()),
    }
}

/// The text of a `Content`: its non-empty text parts, thoughts included, as
/// ADK joins them.
fn content_text(content: Option<&Value>) -> Option<String> {
    let parts = content?.get("parts")?.as_array()?;
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .filter(|t| !t.is_empty())
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// An ADK invocation as an expectation: its user text, tool uses (from
/// `tool_uses`, or the function calls of `invocation_events`) and final
/// response.
struct Expected {
    user: Option<String>,
    tool_uses: Vec<ToolUse>,
    final_response: Option<String>,
}

const INVOCATION_FIELDS: &[&str] = &[
    "invocation_id",
    "user_content",
    "final_response",
    "intermediate_data",
    "creation_timestamp",
    "duration",
    "model_duration",
    "tool_duration",
    "rubrics",
    "app_details",
];

fn expected_invocation(invocation: &Value, at: &str) -> Result<Expected, Problem> {
    only_keys(invocation, at, INVOCATION_FIELDS)?;
    if field(invocation, "rubrics", "rubrics")
        .and_then(Value::as_array)
        .is_some_and(|r| !r.is_empty())
    {
        return Err(problem(
            format!("{at}.rubrics"),
            "rubrics of one invocation are not supported: put them on the case or in the criteria file",
        ));
    }
    let data = field(invocation, "intermediate_data", "intermediateData");
    let calls: Vec<Value> = match data {
        None => Vec::new(),
        Some(data) => {
            only_keys(
                data,
                &format!("{at}.intermediate_data"),
                &[
                    "tool_uses",
                    "tool_responses",
                    "intermediate_responses",
                    "invocation_events",
                ],
            )?;
            match (
                field(data, "tool_uses", "toolUses"),
                field(data, "invocation_events", "invocationEvents"),
            ) {
                (Some(uses), _) => uses.as_array().cloned().unwrap_or_default(),
                (None, Some(events)) => events
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|e| e.get("content")?.get("parts")?.as_array())
                    .flatten()
                    .filter_map(|p| field(p, "function_call", "functionCall").cloned())
                    .collect(),
                (None, None) => Vec::new(),
            }
        }
    };
    // Expectations compare names and arguments; ids are the runtime's.
    let tool_uses = calls
        .into_iter()
        .enumerate()
        .map(|(i, call)| {
            let name = call.get("name").and_then(Value::as_str).map(String::from);
            let args = call.get("args").cloned().unwrap_or(Value::Null);
            if call.get("name").is_some_and(|n| !n.is_string()) {
                return Err(problem(
                    format!("{at}.intermediate_data.tool_uses[{i}].name"),
                    "expected a string",
                ));
            }
            Ok(ToolUse { name, args })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Expected {
        user: content_text(field(invocation, "user_content", "userContent")),
        tool_uses,
        final_response: content_text(field(invocation, "final_response", "finalResponse")),
    })
}

fn evaluator(name: &str, kind: EvaluatorType, settings: Value) -> Result<EvaluatorSpec, Problem> {
    EvaluatorSpec::with_settings(name, kind, settings).map_err(|e| problem(name, e))
}

/// The case of a list of expected invocations, scored by the criteria.
fn case(
    name: String,
    invocations: &[Expected],
    criteria: &Criteria,
    case_rubrics: Option<&Value>,
    at: &str,
) -> Result<Case, Problem> {
    let first_user = invocations
        .first()
        .and_then(|i| i.user.clone())
        .ok_or_else(|| {
            problem(
                format!("{at}[0]"),
                "the first invocation has no user text to match sessions by",
            )
        })?;
    let evaluators = criteria
        .0
        .iter()
        .map(|criterion| match criterion {
            Criterion::ToolTrajectory {
                threshold,
                match_type,
                ignore_args,
            } => evaluator(
                criterion.metric(),
                EvaluatorType::ToolTrajectory,
                json!({
                    "invocations": invocations.iter().map(|i| json!({"toolUses": i.tool_uses})).collect::<Vec<_>>(),
                    "matchType": match_type.to_string(),
                    "ignoreArgs": ignore_args,
                    "threshold": threshold,
                }),
            ),
            // ADK scores a missing final response as "".
            Criterion::ResponseMatch { threshold } => evaluator(
                criterion.metric(),
                EvaluatorType::ResponseMatch,
                json!({
                    "invocations": invocations
                        .iter()
                        .map(|i| json!({"finalResponse": i.final_response.clone().unwrap_or_default()}))
                        .collect::<Vec<_>>(),
                    "threshold": threshold,
                }),
            ),
            Criterion::Judged(j) => {
                let mut rubric_list = j.rubrics.clone();
                if let Some(listed) = case_rubrics {
                    rubric_list.extend(rubrics(listed, &format!("{at}.rubrics"), Some(rubric_type(j.metric)))?);
                }
                if j.metric.uses_rubrics() && rubric_list.is_empty() {
                    return Err(problem(
                        format!("criteria.{}", j.metric.adk_name()),
                        "a rubric metric needs rubrics, in the criteria file or on the case (ADK does not run it without)",
                    ));
                }
                let mut settings = json!({
                    "metric": j.metric,
                    "threshold": j.threshold,
                    "numSamples": j.samples,
                    "includeIntermediateResponsesInFinal": j.include_intermediate,
                    "evaluateIntermediateNlResponses": j.evaluate_intermediate,
                });
                if let Some(t) = j.temperature {
                    settings["temperature"] = json!(t);
                }
                if j.metric.uses_rubrics() {
                    settings["rubrics"] = json!(rubric_list);
                }
                if j.metric == AdkJudgedMetric::FinalResponseMatchV2 {
                    settings["expectedResponses"] = json!(invocations
                        .iter()
                        .map(|i| i.final_response.clone().unwrap_or_default())
                        .collect::<Vec<_>>());
                }
                evaluator(criterion.metric(), EvaluatorType::AdkJudge, settings)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Case {
        name,
        session_id: None,
        session_match: Some(SessionMatch {
            contains: Some(first_user),
            regex: None,
        }),
        invocation_id: None,
        evaluators,
        min_pass_rate: 1.0,
        allow_no_sessions: false,
        drop_internal_tools: None,
        deny_tools: Vec::new(),
        // The case's user turns are its script when the suite probes; on
        // recent sessions it is found by its first user message.
        probe: invocations
            .iter()
            .map(|i| i.user.clone())
            .collect::<Option<Vec<_>>>()
            .map(|conversation| ProbeSpec {
                input: None,
                conversation,
                runs: 1,
                timeout_seconds: DEFAULT_PROBE_TIMEOUT_SECONDS,
                user_id: None,
                approvals: Approvals::default(),
            }),
    })
}

fn suite(name: String, cases: Vec<Case>, not_run: Vec<NotRun>, format: SuiteFormat) -> LoadedSuite {
    LoadedSuite {
        name,
        namespace: None,
        spec: SuiteSpec {
            cases,
            ..SuiteSpec::default()
        },
        format,
        not_run,
        notes: Vec::new(),
    }
}

const CASE_FIELDS: &[&str] = &[
    "eval_id",
    "conversation",
    "conversation_scenario",
    "session_input",
    "creation_timestamp",
    "rubrics",
    "final_session_state",
];

/// An EvalSet. Its top level is snake_case only, as ADK reads it.
pub fn eval_set(value: &Value, criteria: &Criteria) -> Result<LoadedSuite, Problem> {
    if value.get("evalCases").is_some() || value.get("evalSetId").is_some() {
        return Err(problem(
            "evalCases",
            "ADK reads an EvalSet's top level in snake_case only (eval_set_id, eval_cases)",
        ));
    }
    let top = value.as_object().expect("checked by the caller");
    if let Some(unknown) = top.keys().find(|k| {
        ![
            "eval_set_id",
            "name",
            "description",
            "eval_cases",
            "creation_timestamp",
        ]
        .contains(&k.as_str())
    }) {
        return Err(problem(
            unknown.as_str(),
            "not a field of an EvalSet (expected eval_set_id, name, description, eval_cases, creation_timestamp)",
        ));
    }
    let name = value
        .get("eval_set_id")
        .and_then(Value::as_str)
        .ok_or_else(|| problem("eval_set_id", "an EvalSet needs its id"))?
        .to_string();
    let listed = value
        .get("eval_cases")
        .and_then(Value::as_array)
        .ok_or_else(|| problem("eval_cases", "expected a list of eval cases"))?;
    let (mut cases, mut not_run) = (Vec::new(), Vec::new());
    for (i, entry) in listed.iter().enumerate() {
        let at = format!("eval_cases[{i}]");
        only_keys(entry, &at, CASE_FIELDS)?;
        let id = field(entry, "eval_id", "evalId")
            .and_then(Value::as_str)
            .ok_or_else(|| problem(format!("{at}.eval_id"), "a case needs its id"))?
            .to_string();
        let conversation = field(entry, "conversation", "conversation");
        let scenario = field(entry, "conversation_scenario", "conversationScenario");
        let turns = match (conversation, scenario) {
            (Some(_), Some(_)) | (None, None) => {
                return Err(problem(
                    &at,
                    "a case has exactly one of conversation and conversation_scenario",
                ));
            }
            (None, Some(_)) => {
                not_run.push(NotRun {
                    case: id,
                    reason: "it is played by ADK's user simulator (conversation_scenario), which this tool does not run".into(),
                });
                continue;
            }
            (Some(turns), None) => turns.as_array().ok_or_else(|| {
                problem(
                    format!("{at}.conversation"),
                    "expected a list of invocations",
                )
            })?,
        };
        if turns.is_empty() {
            not_run.push(NotRun {
                case: id,
                reason: "it has no invocations, which ADK reports as not evaluated".into(),
            });
            continue;
        }
        let expected = turns
            .iter()
            .enumerate()
            .map(|(j, inv)| expected_invocation(inv, &format!("{at}.conversation[{j}]")))
            .collect::<Result<Vec<_>, _>>()?;
        cases.push(case(
            id,
            &expected,
            criteria,
            field(entry, "rubrics", "rubrics"),
            &format!("{at}.conversation"),
        )?);
    }
    let mut loaded = suite(name, cases, not_run, SuiteFormat::AdkEvalSet);
    loaded.spec.judge = judge_model(criteria)?;
    Ok(loaded)
}

/// The judge model the criteria name (ADK's `judge_model`), asked of the
/// judge endpoint; one per file.
fn judge_model(criteria: &Criteria) -> Result<Option<JudgeSpec>, Problem> {
    let mut models: Vec<&str> = criteria
        .0
        .iter()
        .filter_map(|c| match c {
            Criterion::Judged(j) => j.judge_model.as_deref(),
            _ => None,
        })
        .collect();
    models.sort_unstable();
    models.dedup();
    match models.as_slice() {
        [] => Ok(None),
        [model] => Ok(Some(JudgeSpec {
            model: Some(model.to_string()),
            ..JudgeSpec::default()
        })),
        many => Err(problem(
            "criteria",
            format!(
                "one judge model per file; the criteria name {}",
                many.join(", ")
            ),
        )),
    }
}

/// Criteria ADK allows for a file in the old format.
const OLD_FORMAT_CRITERIA: [&str; 4] = [
    TOOL_TRAJECTORY,
    "response_evaluation_score",
    RESPONSE_MATCH,
    "safety_v1",
];

/// The old `.test.json` format: a list of `{query, expected_tool_use,
/// reference}`, which ADK migrates into one case of one invocation per row.
pub fn old_format(rows: &[Value], name: &str, criteria: &Criteria) -> Result<LoadedSuite, Problem> {
    if let Some(other) = criteria
        .0
        .iter()
        .find(|c| !OLD_FORMAT_CRITERIA.contains(&c.metric()))
    {
        return Err(problem(
            "criteria",
            format!(
                "{} is not one of the criteria ADK allows for the old format",
                other.metric()
            ),
        ));
    }
    // ADK checks the first row only for the keys each criterion reads.
    for criterion in &criteria.0 {
        let needs = match criterion {
            Criterion::ToolTrajectory { .. } => "expected_tool_use",
            Criterion::ResponseMatch { .. } | Criterion::Judged(_) => "reference",
        };
        if rows.first().is_some_and(|row| row.get(needs).is_none()) {
            return Err(problem(
                format!("[0].{needs}"),
                format!(
                    "{} needs `query` and `{needs}` (ADK checks the first row)",
                    criterion.metric()
                ),
            ));
        }
    }
    let expected =
        rows.iter()
            .enumerate()
            .map(|(i, row)| {
                let at = format!("[{i}]");
                only_keys(
                    row,
                    &at,
                    &[
                        "query",
                        "expected_tool_use",
                        "reference",
                        "expected_intermediate_agent_responses",
                    ],
                )?;
                let query = row.get("query").and_then(Value::as_str).ok_or_else(|| {
                    problem(format!("{at}.query"), "each row needs the user's query")
                })?;
                let tool_uses = row
                    .get("expected_tool_use")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .enumerate()
                    .map(|(j, call)| {
                        only_keys(
                            call,
                            &format!("{at}.expected_tool_use[{j}]"),
                            &["tool_name", "tool_input"],
                        )?;
                        Ok(ToolUse {
                            name: call
                                .get("tool_name")
                                .and_then(Value::as_str)
                                .map(String::from),
                            args: call.get("tool_input").cloned().unwrap_or(Value::Null),
                        })
                    })
                    .collect::<Result<Vec<_>, Problem>>()?;
                Ok(Expected {
                    user: Some(query.to_string()),
                    tool_uses,
                    // ADK migrates a missing reference as "".
                    final_response: Some(
                        row.get("reference")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                    ),
                })
            })
            .collect::<Result<Vec<_>, Problem>>()?;
    if expected.is_empty() {
        return Ok(suite(
            name.into(),
            Vec::new(),
            vec![NotRun {
                case: name.into(),
                reason: "it has no invocations, which ADK reports as not evaluated".into(),
            }],
            SuiteFormat::AdkEvalSet,
        ));
    }
    let case = case(name.to_string(), &expected, criteria, None, "")?;
    Ok(suite(
        name.to_string(),
        vec![case],
        Vec::new(),
        SuiteFormat::AdkEvalSet,
    ))
}
