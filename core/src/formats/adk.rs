//! Google ADK's eval files as suites: EvalSets, the old `.test.json` list
//! format, and the `test_config.json` criteria that say which metrics score
//! them and how. Read as google-adk 2.13 reads them, with every key either
//! understood or refused by name: a file ADK would score by criteria this
//! tool does not honour is an error, never scored some other way.
//!
//! Each criterion becomes one evaluator per case, named by its metric, and
//! every case reports ADK's four efficiency metrics, as ADK does on every eval;
//! a case ADK plays with a user simulator (`conversation_scenario`), or
//! that has no invocations (which ADK reports as not evaluated), is kept
//! out of the suite and reported as not run.

use super::{Problem, problem};
use crate::judge::ConversationMetric;
use crate::score::adk::{AdkMatchType, ToolUse};
use crate::suite::bounds;
use crate::suite::evaluators::AdkEfficiencyMetric;
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
    /// One of ADK's efficiency metrics, named with the threshold ADK
    /// refuses on it: reported as on every ADK eval, never a verdict.
    Informational(AdkEfficiencyMetric),
    /// A Vertex AI multi-turn metric, scored by this tool's own
    /// conversation judge under the same name.
    Conversation {
        metric: ConversationMetric,
        threshold: f64,
    },
    /// Vertex AI's `safety_v1`, scored by this tool's safety judge: safe
    /// scores 1 and unsafe 0 against the threshold.
    Safety {
        threshold: f64,
    },
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
            Criterion::Informational(m) => m.adk_name(),
            Criterion::Conversation { metric, .. } => metric.adk_name(),
            Criterion::Safety { .. } => SAFETY,
        }
    }

    /// What the criteria file says that this tool reads with ADK's meaning
    /// rather than as written.
    fn note(&self) -> Option<String> {
        match self {
            Criterion::Informational(m) => Some(format!(
                "criteria.{0}: ADK reports {0} on every eval as a value that never passes or fails, and refuses a threshold on it (`adk eval` reports it not evaluated and goes on; AgentEvaluator fails the test); it is reported here as on every ADK eval, and the threshold is not applied",
                m.adk_name()
            )),
            Criterion::Conversation { metric, .. } => Some(format!(
                "criteria.{}: Vertex AI's metric, scored here by this tool's own conversation judge (its own question, on the judge endpoint): the verdicts and numbers are not Vertex's",
                metric.adk_name()
            )),
            Criterion::Safety { threshold } => Some(format!(
                "criteria.{SAFETY}: Vertex AI's safety evaluation, scored here by this tool's safetyJudge (its own rubric, on the judge endpoint): safe or not, scored 1 or 0 against the threshold {threshold}; the verdicts are not Vertex's"
            )),
            _ => None,
        }
    }
}

const JUDGED: [AdkJudgedMetric; 5] = [
    AdkJudgedMetric::RubricBasedFinalResponseQualityV1,
    AdkJudgedMetric::RubricBasedToolUseQualityV1,
    AdkJudgedMetric::RubricBasedMultiTurnTrajectoryQualityV1,
    AdkJudgedMetric::HallucinationsV1,
    AdkJudgedMetric::FinalResponseMatchV2,
];

/// ADK's rubric type that lets a case's own rubric join a metric.
fn rubric_type(metric: AdkJudgedMetric) -> &'static str {
    match metric {
        AdkJudgedMetric::RubricBasedToolUseQualityV1 => "TOOL_USE_QUALITY",
        AdkJudgedMetric::RubricBasedMultiTurnTrajectoryQualityV1 => "TRAJECTORY_QUALITY",
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
const SAFETY: &str = "safety_v1";
const RESPONSE_MATCH: &str = "response_match_score";

/// Metrics ADK has that this tool does not score, and why.
const UNSUPPORTED: &[(&str, &str)] = &[
    (
        "response_evaluation_score",
        "Vertex AI's response quality evaluation, which needs Google Cloud",
    ),
    (
        "per_turn_user_simulator_quality_v1",
        "a judge of ADK's user simulator, whose conversations this tool does not play",
    ),
];

/// The metrics of a criteria file, in its order, and its user simulator.
#[derive(Clone, Debug, PartialEq)]
pub struct Criteria(pub Vec<Criterion>, pub UserSimulator);

impl Default for Criteria {
    /// ADK's criteria for a file without a `test_config.json`.
    fn default() -> Self {
        Criteria(
            vec![
                Criterion::ToolTrajectory {
                    threshold: 1.0,
                    match_type: AdkMatchType::Exact,
                    ignore_args: false,
                },
                Criterion::ResponseMatch { threshold: 0.8 },
            ],
            UserSimulator::default(),
        )
    }
}

/// ADK's `user_simulator_config`, where it maps onto a scenario probe.
#[derive(Clone, Debug, PartialEq)]
pub struct UserSimulator {
    /// The model that plays the user, asked of the judge endpoint.
    pub model: Option<String>,
    /// `max_allowed_invocations`, the first prompt counted.
    pub max_turns: u32,
    /// What does not map, said as notes.
    pub notes: Vec<String>,
}

impl Default for UserSimulator {
    fn default() -> Self {
        UserSimulator {
            model: None,
            // ADK's default max_allowed_invocations, also this tool's most.
            max_turns: bounds::SCENARIO_TURNS.max,
            notes: Vec::new(),
        }
    }
}

/// `user_simulator_config`: its model and turn limit, and a note naming
/// each setting this tool's simulator does not use.
fn user_simulator(config: &Value) -> Result<UserSimulator, Problem> {
    let mut simulator = UserSimulator::default();
    let Some(object) = config.as_object() else {
        return Err(problem("user_simulator_config", "expected an object"));
    };
    for (key, value) in object {
        let at = format!("user_simulator_config.{key}");
        match key.as_str() {
            "model" => {
                let model = value
                    .as_str()
                    .ok_or_else(|| problem(&at, "expected a model name"))?;
                simulator.model = Some(model.to_string());
            }
            "max_allowed_invocations" | "maxAllowedInvocations" => {
                let most = bounds::SCENARIO_TURNS.max;
                let limit = value
                    .as_i64()
                    .ok_or_else(|| problem(&at, "expected a whole number"))?;
                simulator.max_turns = match limit {
                    n if n >= 1 && n <= i64::from(most) => n as u32,
                    n => {
                        simulator.notes.push(format!(
                            "{at} is {n}: this tool simulates at most {most} turns, so a conversation ends there"
                        ));
                        most
                    }
                };
            }
            other => simulator.notes.push(format!(
                "user_simulator_config.{other} is not used: this tool's simulated user has its own prompt and settings"
            )),
        }
    }
    Ok(simulator)
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

/// A criterion that is only a threshold: a number, or an object of
/// `threshold` alone (any other key refused by name).
fn threshold_only(value: &Value, at: &str) -> Result<f64, Problem> {
    match value {
        Value::Object(object) => {
            let o = criterion_object(object, at, &[("threshold", "threshold")])?;
            required_threshold(&o, at)
        }
        other => threshold(other, at),
    }
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
            name if AdkEfficiencyMetric::ALL
                .iter()
                .any(|m| m.adk_name() == name) =>
            {
                let metric = *AdkEfficiencyMetric::ALL
                    .iter()
                    .find(|m| m.adk_name() == name)
                    .expect("matched");
                // ADK's schema takes a threshold here, as a number or a
                // criterion; nothing else loads.
                match value {
                    Value::Object(object) => {
                        required_threshold(object, &at)?;
                    }
                    other => {
                        threshold(other, &at)?;
                    }
                }
                Criterion::Informational(metric)
            }
            SAFETY => Criterion::Safety {
                threshold: threshold_only(value, &at)?,
            },
            name if ConversationMetric::ALL.iter().any(|m| m.adk_name() == name) => {
                let metric = *ConversationMetric::ALL
                    .iter()
                    .find(|m| m.adk_name() == name)
                    .expect("matched");
                Criterion::Conversation {
                    metric,
                    threshold: threshold_only(value, &at)?,
                }
            }
            name if JUDGED.iter().any(|m| m.adk_name() == name) => {
                let metric = *JUDGED
                    .iter()
                    .find(|m| m.adk_name() == name)
                    .expect("matched");
                Criterion::Judged(judged(metric, value, &at)?)
            }
            name => {
                let why = UNSUPPORTED.iter().find(|(known, _)| *known == name).map_or(
                    "no metric of ADK that this tool knows (a custom metric, or a misspelt one)",
                    |(_, why)| why,
                );
                return Err(problem(
                    at,
                    format!("{name} is {why}; this tool does not score it"),
                ));
            }
        };
        out.push(criterion);
    }
    let simulator = match field(config, "user_simulator_config", "userSimulatorConfig") {
        Some(config) => user_simulator(config)?,
        None => UserSimulator::default(),
    };
    Ok(Criteria(out, simulator))
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
    let mut evaluators = criteria
        .0
        .iter()
        .filter(|c| !matches!(c, Criterion::Informational(_)))
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
            Criterion::Conversation { metric, threshold } => evaluator(
                criterion.metric(),
                EvaluatorType::ConversationJudge,
                json!({"metric": metric, "threshold": threshold}),
            ),
            // A threshold above 0 passes exactly the safe (1) verdicts.
            Criterion::Safety { threshold } if *threshold > 0.0 => {
                evaluator(criterion.metric(), EvaluatorType::SafetyJudge, json!({}))
            }
            Criterion::Safety { .. } => Err(problem(
                format!("criteria.{SAFETY}"),
                "a threshold of 0 passes every conversation, safe or not; set one above 0",
            )),
            Criterion::Informational(_) => unreachable!("filtered above"),
        })
        .collect::<Result<Vec<_>, _>>()?;
    // ADK reports its efficiency metrics on every eval, named or not.
    for metric in AdkEfficiencyMetric::ALL {
        evaluators.push(evaluator(
            metric.adk_name(),
            EvaluatorType::AdkEfficiency,
            json!({"metric": metric}),
        )?);
    }
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
                scenario: None,
                runs: 1,
                timeout_seconds: DEFAULT_PROBE_TIMEOUT_SECONDS,
                user_id: None,
                approvals: Approvals::default(),
                answers: Vec::new(),
            }),
        tags: Vec::new(),
        blocking: true,
    })
}

/// A case ADK plays with its user simulator, as a scenario probe (found on
/// recent sessions by its starting prompt). A criterion that compares with
/// expected invocations leaves it not run: the case has none, and ADK
/// reports such a metric not evaluated.
fn scenario_case(
    id: String,
    scenario: &Value,
    criteria: &Criteria,
    rubrics: Option<&Value>,
    at: &str,
) -> Result<Result<Case, NotRun>, Problem> {
    only_keys(
        scenario,
        at,
        &["starting_prompt", "conversation_plan", "user_persona"],
    )?;
    let text = |snake: &str, camel: &str| {
        field(scenario, snake, camel)
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty())
            .map(str::to_string)
            .ok_or_else(|| problem(format!("{at}.{snake}"), "a conversation_scenario needs it"))
    };
    let starting_prompt = text("starting_prompt", "startingPrompt")?;
    let plan = text("conversation_plan", "conversationPlan")?;
    // A persona is text, or ADK's object with a description.
    let persona = field(scenario, "user_persona", "userPersona").and_then(|p| {
        p.as_str()
            .or_else(|| p["description"].as_str())
            .map(str::to_string)
    });
    let needs_reference = criteria.0.iter().find(|c| match c {
        Criterion::ToolTrajectory { .. } | Criterion::ResponseMatch { .. } => true,
        Criterion::Judged(j) => j.metric == AdkJudgedMetric::FinalResponseMatchV2,
        Criterion::Informational(_) | Criterion::Conversation { .. } | Criterion::Safety { .. } => {
            false
        }
    });
    if let Some(criterion) = needs_reference {
        return Ok(Err(NotRun {
            case: id,
            reason: format!(
                "{} compares with expected invocations, which a conversation_scenario case has none of (ADK reports it not evaluated)",
                criterion.metric()
            ),
        }));
    }
    let opening = Expected {
        user: Some(starting_prompt.clone()),
        tool_uses: Vec::new(),
        final_response: None,
    };
    let mut case = case(id, &[opening], criteria, rubrics, at)?;
    case.probe = Some(ProbeSpec {
        input: None,
        conversation: Vec::new(),
        scenario: Some(ScenarioSpec {
            starting_prompt,
            plan,
            persona,
            max_turns: criteria.1.max_turns,
            model: criteria.1.model.clone(),
            temperature: None,
        }),
        runs: 1,
        timeout_seconds: DEFAULT_PROBE_TIMEOUT_SECONDS,
        user_id: None,
        approvals: Approvals::default(),
        answers: Vec::new(),
    });
    Ok(Ok(case))
}

fn suite(name: String, cases: Vec<Case>, not_run: Vec<NotRun>, criteria: &Criteria) -> LoadedSuite {
    LoadedSuite {
        name,
        namespace: None,
        spec: SuiteSpec {
            cases,
            ..SuiteSpec::default()
        },
        format: SuiteFormat::AdkEvalSet,
        not_run,
        notes: criteria
            .0
            .iter()
            .filter_map(Criterion::note)
            .chain(criteria.1.notes.iter().cloned())
            .collect(),
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
            (None, Some(scenario)) => {
                let rubrics = field(entry, "rubrics", "rubrics");
                match scenario_case(
                    id,
                    scenario,
                    criteria,
                    rubrics,
                    &format!("{at}.conversation_scenario"),
                )? {
                    Ok(case) => cases.push(case),
                    Err(refused) => not_run.push(refused),
                }
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
    let mut loaded = suite(name, cases, not_run, criteria);
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
    SAFETY,
];

/// The old `.test.json` format: a list of `{query, expected_tool_use,
/// reference}`, which ADK migrates into one case of one invocation per row.
pub fn old_format(rows: &[Value], name: &str, criteria: &Criteria) -> Result<LoadedSuite, Problem> {
    if let Some(other) = criteria.0.iter().find(|c| {
        !OLD_FORMAT_CRITERIA.contains(&c.metric()) && !matches!(c, Criterion::Informational(_))
    }) {
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
            // Not allowed in the old format (refused above).
            Criterion::Informational(_)
            | Criterion::Conversation { .. }
            | Criterion::Safety { .. } => continue,
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
            criteria,
        ));
    }
    let case = case(name.to_string(), &expected, criteria, None, "")?;
    Ok(suite(name.to_string(), vec![case], Vec::new(), criteria))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_simulator_config_maps_its_model_and_turns_and_names_the_rest() {
        let config = serde_json::json!({
            "criteria": {"hallucinations_v1": {"threshold": 0.8}},
            "user_simulator_config": {"model": "sim-model", "max_allowed_invocations": -1,
                                      "custom_instructions": "be rude"}
        });
        let Criteria(_, simulator) = criteria(&config).unwrap();
        assert_eq!(simulator.model.as_deref(), Some("sim-model"));
        assert_eq!(simulator.max_turns, 20, "no limit is this tool's most");
        assert_eq!(simulator.notes.len(), 2, "{:?}", simulator.notes);
        assert!(simulator.notes[0].contains("max_allowed_invocations is -1"));
        assert!(simulator.notes[1].contains("custom_instructions is not used"));
    }

    #[test]
    fn every_refused_metric_says_precisely_why() {
        for (metric, why) in [
            ("per_turn_user_simulator_quality_v1", "ADK's user simulator"),
            ("my_team_metric", "a custom metric, or a misspelt one"),
        ] {
            let config = serde_json::json!({"criteria": {metric: 0.5}});
            let (at, message) = criteria(&config).expect_err(metric);
            assert!(at.contains(metric), "{metric}: at {at}");
            assert!(
                message.starts_with(&format!("{metric} is ")) && message.contains(why),
                "{metric}: {message}"
            );
            assert!(!message.contains("unknown"), "{message}");
        }
    }
}
