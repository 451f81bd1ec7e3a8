//! google-adk's evaluator tests, criteria files and eval files, run through
//! the same path a user's files take: the EvalSet (or `.test.json`) and its
//! `test_config.json` loaded as a suite, the actual invocations recorded as
//! ADK events of one session, and the session scored.

use super::{close, vectors};
use kagent_evals::core::formats::adk::{Criterion, criteria};
use kagent_evals::core::formats::load::load_compiled;
use kagent_evals::core::ingest::{KeepJson, read_jsonl};
use kagent_evals::core::judge::Never;
use kagent_evals::core::score::Score;
use kagent_evals::core::score::adk::AdkMatchType;
use kagent_evals::core::score::rouge::rouge1;
use kagent_evals::core::session::{Session, SessionKey};
use kagent_evals::core::suite::loaded::CriteriaFile;
use kagent_evals::core::suite::report::Outcome;
use kagent_evals::core::suite::scoring::ReportBuilder;
use kagent_evals::core::suite::spec::AdkJudgedMetric;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// The metrics this tool scores without a judge; ADK's others are refused
/// by name.
const SCORED: [&str; 2] = ["tool_trajectory_avg_score", "response_match_score"];

/// ADK's judged metrics, scored with a judge (see `adk_judged`).
const JUDGED: [&str; 4] = [
    "rubric_based_final_response_quality_v1",
    "rubric_based_tool_use_quality_v1",
    "hallucinations_v1",
    "final_response_match_v2",
];

/// Metrics ADK reports on every run, never passing or failing.
const INFORMATIONAL: [&str; 4] = [
    "tool_call_count_v1",
    "inference_call_count_v1",
    "token_usage_v1",
    "invocation_duration_v1",
];

/// What became of one metric of one case: ADK's statuses.
#[derive(Clone, Debug, PartialEq)]
enum Status {
    Passed(f64),
    Failed(f64),
    NotEvaluated,
}

fn adk_status(entry: &Value) -> Status {
    let score = entry["score"].as_f64();
    match (entry["eval_status"].as_str().unwrap(), score) {
        ("PASSED", Some(s)) => Status::Passed(s),
        ("FAILED", Some(s)) => Status::Failed(s),
        _ => Status::NotEvaluated,
    }
}

fn same(ours: &Status, theirs: &Status) -> bool {
    match (ours, theirs) {
        (Status::Passed(a), Status::Passed(b)) | (Status::Failed(a), Status::Failed(b)) => {
            close(*a, *b)
        }
        (Status::NotEvaluated, Status::NotEvaluated) => true,
        _ => false,
    }
}

fn field<'v>(value: &'v Value, snake: &str, camel: &str) -> Option<&'v Value> {
    value
        .get(snake)
        .or_else(|| value.get(camel))
        .filter(|v| !v.is_null())
}

/// ADK invocations as the events an ADK runner records: the user's turn, a
/// call and a response per tool use (or the invocation's own events), and
/// the final response.
fn session_of(invocations: &[Value]) -> Session {
    let mut lines: Vec<String> = Vec::new();
    let mut push = |invocation: &str, author: &str, content: Value| {
        let n = lines.len();
        lines.push(
            json!({
                "id": format!("event-{n}"),
                "invocation_id": invocation,
                "author": author,
                "timestamp": 1_700_000_000.0 + n as f64,
                "content": content,
            })
            .to_string(),
        );
    };
    for (i, invocation) in invocations.iter().enumerate() {
        let id = format!("invocation-{i}");
        let user = field(invocation, "user_content", "userContent")
            .cloned()
            .unwrap_or(json!({"role": "user", "parts": [{"text": "(no user content)"}]}));
        push(&id, "user", user);
        let data = field(invocation, "intermediate_data", "intermediateData");
        let uses = data
            .and_then(|d| field(d, "tool_uses", "toolUses"))
            .and_then(Value::as_array);
        for (j, tool) in uses.into_iter().flatten().enumerate() {
            let call = format!("call-{i}-{j}");
            push(
                &id,
                "agent",
                json!({"role": "model", "parts": [{"function_call": {
                    "id": call, "name": tool["name"], "args": tool.get("args").cloned().unwrap_or(Value::Null)
                }}]}),
            );
            push(
                &id,
                "agent",
                json!({"role": "user", "parts": [{"function_response": {
                    "id": call, "name": tool["name"], "response": {"result": "ok"}
                }}]}),
            );
        }
        let events = data
            .and_then(|d| field(d, "invocation_events", "invocationEvents"))
            .and_then(Value::as_array);
        for event in events.into_iter().flatten() {
            push(
                &id,
                event["author"].as_str().unwrap_or("agent"),
                event["content"].clone(),
            );
        }
        if let Some(response) = field(invocation, "final_response", "finalResponse") {
            push(&id, "agent", response.clone());
        }
    }
    let raw = read_jsonl(lines.join("\n").as_bytes(), "adk.jsonl", KeepJson::No).unwrap();
    let session = Session::from_raw(SessionKey::new("adk", None), None, raw);
    assert!(session.issues.is_empty(), "{:?}", session.issues);
    session
}

/// A criteria file naming ADK metrics as the vectors write them.
fn criteria_file(metrics: &[Value]) -> Value {
    let named: serde_json::Map<String, Value> = metrics
        .iter()
        // ADK adds its informational metrics to every run; files never name them.
        .filter(|m| {
            !(INFORMATIONAL.contains(&m["metric_name"].as_str().unwrap())
                && m["threshold"].is_null())
        })
        .map(|m| {
            let value = m
                .get("criterion")
                .filter(|c| !c.is_null())
                .cloned()
                .or_else(|| m.get("threshold").cloned())
                .unwrap_or(json!({}));
            (m["metric_name"].as_str().unwrap().to_string(), value)
        })
        .collect();
    json!({ "criteria": named })
}

/// Load an eval file with its criteria and score, case by case, the
/// sessions the actual invocations make. `Err` when the file is refused.
fn run(
    name: &str,
    text: &str,
    criteria: Option<&str>,
    actual: &dyn Fn(&str) -> Option<Vec<Value>>,
) -> Result<BTreeMap<String, BTreeMap<String, Status>>, String> {
    let criteria = criteria.map(|text| CriteriaFile {
        name: "test_config.json",
        text,
        explicit: true,
    });
    let suites = load_compiled(name, text, criteria).map_err(|e| e.to_string())?;
    let (loaded, compiled) = &suites[0];
    let mut out = BTreeMap::new();
    for (index, case) in compiled.cases.iter().enumerate() {
        let mut builder = ReportBuilder::new(compiled);
        if let Some(invocations) = actual(&case.name) {
            block_on(builder.score(
                std::slice::from_ref(&session_of(&invocations)),
                true,
                &None::<Never>,
            ));
        }
        let report = builder.finish();
        let case_report = &report.cases[index];
        let statuses = match case_report.sessions.first() {
            None => BTreeMap::new(),
            Some(session) => session
                .evaluations
                .iter()
                .map(|e| {
                    let score = match e.score {
                        Some(Score::Number(n)) => Some(n),
                        _ => None,
                    };
                    let status = match (&e.error, score) {
                        (None, Some(score)) if e.passed => Status::Passed(score),
                        (None, Some(score)) => Status::Failed(score),
                        _ => Status::NotEvaluated,
                    };
                    (e.name.clone(), status)
                })
                .collect(),
        };
        out.insert(case.name.clone(), statuses);
    }
    // A case not run is not evaluated, metric by metric.
    for case in &loaded.not_run {
        out.insert(case.case.clone(), BTreeMap::new());
    }
    Ok(out)
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(future)
}

fn eval_set(conversation: &Value) -> String {
    json!({"eval_set_id": "vectors", "eval_cases": [{"eval_id": "case", "conversation": conversation}]})
        .to_string()
}

/// Rows where ADK and this tool differ on purpose, and why.
const DELIBERATE: &[(&str, &str)] = &[
    // ADK raises (the case is NOT_EVALUATED, which `adk eval` counts as a
    // failure); here a session with another number of turns than expected
    // fails the metric with a comment saying so, and the gate fails alike.
    (
        "ours-length-mismatch",
        "a mismatched invocation count is a failure",
    ),
    (
        "service-inference-count-differs",
        "a mismatched invocation count is a failure",
    ),
    // ADK skips a metric it cannot find or build and passes the case on
    // the others; here the criteria file is refused, naming the metric.
    (
        "service-unknown-metric-not-evaluated",
        "an unknown metric is refused, not skipped",
    ),
    (
        "service-only-unknown-metric",
        "an unknown metric is refused, not skipped",
    ),
];

fn deliberate(name: &str) -> bool {
    DELIBERATE
        .iter()
        .any(|(prefix, _)| name.starts_with(prefix))
}

#[test]
fn adk_evaluator_tests_agree_through_eval_sets_and_sessions() {
    let rows = vectors("adk_tests.jsonl");
    let mut checked = 0;
    for row in rows.iter().filter(|r| {
        matches!(
            r["kind"].as_str(),
            Some("tool_trajectory" | "response_match")
        )
    }) {
        let name = row["name"].as_str().unwrap();
        let metric = &row["metric"];
        let config = criteria_file(std::slice::from_ref(metric)).to_string();
        let actual = row["actual"].as_array().cloned().unwrap_or_default();
        let metric_name = metric["metric_name"].as_str().unwrap();
        let result = &row["result"];
        if row["expected"].is_null() {
            // ADK needs expected invocations; a case without them is one
            // played by a user simulator, which this tool reports as not run.
            let scenario = json!({"eval_set_id": "v", "eval_cases": [{"eval_id": "case",
                "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "ask"}}]});
            let ours = run(
                "v.evalset.json",
                &scenario.to_string(),
                Some(&config),
                &|_| None,
            )
            .unwrap();
            assert_eq!(
                ours,
                BTreeMap::from([("case".to_string(), BTreeMap::new())]),
                "{name}"
            );
            checked += 1;
            continue;
        }
        let calls_in_final_response = actual.iter().any(|i| {
            i["final_response"]["parts"]
                .as_array()
                .is_some_and(|ps| ps.iter().any(|p| p.get("function_call").is_some()))
        });
        if calls_in_final_response {
            // A runner never records a final response holding a call: an
            // event with a call is a step, not the answer. Not a session.
            assert_eq!(name, "ours-function-call-part-has-no-text");
            continue;
        }
        let expected = row["expected"].as_array().unwrap();
        if expected.is_empty() {
            // ADK raises for the length; a case without invocations is not run here.
            let ours = run(
                "v.evalset.json",
                &eval_set(&json!([])),
                Some(&config),
                &|_| None,
            );
            assert_eq!(
                ours,
                Ok(BTreeMap::from([("case".to_string(), BTreeMap::new())])),
                "{name}"
            );
            checked += 1;
            continue;
        }
        let ours = run(
            "v.evalset.json",
            &eval_set(&row["expected"]),
            Some(&config),
            &|_| Some(actual.clone()),
        );
        match result.get("error") {
            Some(error) if deliberate(name) => {
                let status = &ours.unwrap()["case"][metric_name];
                assert!(
                    matches!(status, Status::Failed(s) if *s == 0.0),
                    "{name}: {status:?} ({error})"
                );
            }
            Some(error) => assert!(
                ours.is_err(),
                "{name}: ADK refuses ({error}), ours {ours:?}"
            ),
            None => {
                let theirs = Status::from_overall(result);
                let ours = &ours.unwrap_or_else(|e| panic!("{name}: {e}"))["case"][metric_name];
                assert!(same(ours, &theirs), "{name}: ours {ours:?}, ADK {theirs:?}");
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 98);
}

impl Status {
    fn from_overall(result: &Value) -> Status {
        adk_status(&json!({
            "eval_status": result["overall_eval_status"],
            "score": result["overall_score"],
        }))
    }
}

#[test]
fn adk_rouge_tests_agree() {
    for row in vectors("adk_tests.jsonl")
        .iter()
        .filter(|r| r["kind"] == "rouge1")
    {
        let name = row["name"].as_str().unwrap();
        let score = rouge1(
            row["candidate"].as_str().unwrap(),
            row["reference"].as_str().unwrap(),
        );
        for (ours, key) in [
            (score.precision, "precision"),
            (score.recall, "recall"),
            (score.fmeasure, "fmeasure"),
        ] {
            assert!(
                close(ours, row[key].as_f64().unwrap()),
                "{name}: {key} {ours} vs {}",
                row[key]
            );
        }
    }
}

#[test]
fn adk_eval_cases_agree_through_the_local_eval_service_rules() {
    let mut checked = 0;
    for row in vectors("adk_tests.jsonl")
        .iter()
        .filter(|r| r["kind"] == "eval_case")
    {
        let name = row["name"].as_str().unwrap();
        let config = criteria_file(row["metrics"].as_array().unwrap()).to_string();
        let case = json!({"eval_set_id": "v", "eval_cases": [row["eval_case"]]}).to_string();
        let actual = row["actual"].as_array().cloned().unwrap_or_default();
        let ours = run("v.evalset.json", &case, Some(&config), &|_| {
            Some(actual.clone())
        });
        let result = &row["result"];
        if deliberate(name) {
            match name {
                n if n.starts_with("service-inference-count") => {
                    let ours = ours.unwrap();
                    let case = ours.values().next().unwrap();
                    let failed = case.values().any(|s| matches!(s, Status::Failed(_)));
                    assert!(failed, "{name}");
                }
                _ => assert!(ours.is_err(), "{name}: {ours:?}"),
            }
            checked += 1;
            continue;
        }
        let ours = match (ours, result.get("error")) {
            (Err(e), None) if result["overall"].as_array().unwrap().is_empty() => {
                // ADK runs no metric and reports NOT_EVALUATED (a failure to
                // `adk eval`); a criteria file naming none is refused here.
                assert_eq!(result["final_eval_status"], "NOT_EVALUATED", "{name}: {e}");
                checked += 1;
                continue;
            }
            (Err(e), _) => panic!("{name}: {e}"),
            (Ok(ours), _) => ours,
        };
        for entry in result["overall"].as_array().unwrap() {
            let metric = entry["metric_name"].as_str().unwrap();
            if !SCORED.contains(&metric) {
                assert_eq!(entry["eval_status"], "INFORMATIONAL", "{name}: {metric}");
                continue;
            }
            let theirs = adk_status(entry);
            let case = ours.values().next().unwrap();
            let ours = case.get(metric).cloned().unwrap_or(Status::NotEvaluated);
            assert!(
                same(&ours, &theirs),
                "{name} {metric}: ours {ours:?}, ADK {theirs:?}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 10);
}

#[test]
fn adk_criteria_files_read_as_adk_reads_them() {
    // Where ADK reads a file and this tool refuses it, and why.
    let refused: &[(&str, &str)] = &[
        (
            "object-extra-keys-kept",
            "ADK keeps an unknown criterion key and ignores it",
        ),
        (
            "response-match-with-match-type",
            "response_match_score has no match_type; ADK ignores it",
        ),
        (
            "unknown-top-level-key",
            "ADK ignores an unknown top-level key",
        ),
        (
            "no-criteria-key",
            "a criteria file that names no metric scores nothing",
        ),
    ];
    let mut checked = 0;
    for row in vectors("adk_config.jsonl") {
        let name = row["name"].as_str().unwrap();
        match row["kind"].as_str().unwrap() {
            "match_type" => {
                let ours = AdkMatchType::parse(&row["match_type"]);
                match row["result"].get("match_type") {
                    Some(theirs) => assert_eq!(
                        ours.map(|t| t.to_string()).as_deref().ok(),
                        theirs.as_str(),
                        "{name}"
                    ),
                    None => assert!(ours.is_err(), "{name}"),
                }
            }
            "test_config" => {
                let config = &row["test_config"];
                let ours = if config.is_null() {
                    Ok(Default::default())
                } else {
                    criteria(config)
                };
                let result = &row["result"];
                let metrics = result["metrics"].as_array();
                let scored = |metric: &str| SCORED.contains(&metric) || JUDGED.contains(&metric);
                let scorable = metrics.is_some_and(|ms| {
                    ms.iter().all(|m| {
                        let metric = m["metric_name"].as_str().unwrap();
                        let informational = m["criterion"].is_null() && m["threshold"].is_null();
                        informational || (scored(metric) && m["resolved"].get("error").is_none())
                    })
                });
                if name == "judge-metric" {
                    // ADK looks the judge model up in its own registry; here
                    // the judge is the endpoint of --judge-url, asked for the
                    // model the file names.
                    let ours = ours.unwrap();
                    let Criterion::Judged(j) = &ours.0[0] else {
                        panic!("{name}")
                    };
                    assert_eq!(j.judge_model.as_deref(), Some("my favorite LLM"));
                    assert_eq!(j.samples, 5);
                } else if let Some(refusing) = threshold_refused(metrics) {
                    // A deliberate difference: ADK cannot build an
                    // efficiency metric named with a threshold (`adk eval`
                    // reports it not evaluated, its verdict unchanged);
                    // here it is read as what ADK reports on every eval, a
                    // value only, and a note says so.
                    let ours = ours.unwrap_or_else(|e| panic!("{name}: {e:?}"));
                    let informational: Vec<&str> = ours
                        .0
                        .iter()
                        .filter_map(|c| match c {
                            Criterion::Informational(m) => Some(m.adk_name()),
                            _ => None,
                        })
                        .collect();
                    assert_eq!(informational, refusing, "{name}");
                } else if let Some((_, why)) = refused.iter().find(|(n, _)| *n == name) {
                    assert!(ours.is_err(), "{name}: refused because {why}");
                } else if !scorable {
                    // ADK fails to parse, or cannot build or score a metric.
                    assert!(ours.is_err(), "{name}: ours {ours:?}");
                } else {
                    let ours = ours.unwrap_or_else(|e| panic!("{name}: {e:?}"));
                    let mut theirs: Vec<Value> = metrics
                        .unwrap()
                        .iter()
                        .filter(|m| scored(m["metric_name"].as_str().unwrap()))
                        .map(|m| m["resolved"].clone())
                        .collect();
                    // ADK's efficiency metrics are reported on every eval,
                    // not scored: the vectors leave them out as well.
                    let mut ours: Vec<Value> = ours
                        .0
                        .iter()
                        .filter(|c| !matches!(c, Criterion::Informational(_)))
                        .map(|c| match c {
                            Criterion::ToolTrajectory {
                                threshold,
                                match_type,
                                ignore_args,
                            } => json!({"evaluator": "TrajectoryEvaluator", "ignore_args": ignore_args,
                                "match_type": match_type.to_string(), "threshold": threshold}),
                            Criterion::ResponseMatch { threshold } => {
                                json!({"evaluator": "ResponseEvaluator", "threshold": threshold})
                            }
                            Criterion::Judged(j) => json!({"evaluator": match j.metric {
                                AdkJudgedMetric::RubricBasedFinalResponseQualityV1 => "RubricBasedFinalResponseQualityV1Evaluator",
                                AdkJudgedMetric::RubricBasedToolUseQualityV1 => "RubricBasedToolUseV1Evaluator",
                                AdkJudgedMetric::RubricBasedMultiTurnTrajectoryQualityV1 => "RubricBasedMultiTurnTrajectoryEvaluator",
                                AdkJudgedMetric::HallucinationsV1 => "HallucinationsV1Evaluator",
                                AdkJudgedMetric::FinalResponseMatchV2 => "FinalResponseMatchV2Evaluator",
                            }}),
                            Criterion::Informational(_) => unreachable!("filtered above"),
                            // ADK delegates these to Vertex AI; no vector names one.
                            Criterion::Conversation { .. } | Criterion::Safety { .. } => {
                                panic!("{name}: {} in a vector", c.metric())
                            }
                        })
                        .collect();
                    // The vectors list a file's criteria with sorted keys.
                    let by_evaluator = |v: &Value| v["evaluator"].to_string();
                    ours.sort_by_key(by_evaluator);
                    theirs.sort_by_key(by_evaluator);
                    assert_eq!(ours, theirs, "{name}");
                }
            }
            other => panic!("{name}: unknown kind {other}"),
        }
        checked += 1;
    }
    assert!(checked >= 55, "{checked}");
}

#[test]
fn adk_eval_files_give_adk_verdicts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for row in vectors("adk_files.jsonl") {
        let file = row["file"].as_str().unwrap();
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let config = row["test_config"]
            .as_str()
            .map(|c| std::fs::read_to_string(root.join(c)).unwrap());
        let cases = row["cases"].as_array();
        let ours = run(file, &text, config.as_deref(), &|_| None);
        // A metric ADK judges with a model is loaded (adkJudge) and checked
        // in adk_judged; the others are compared here.
        let Some(cases) = cases else {
            // Neither ADK loader reads it.
            assert!(ours.is_err(), "{file}: ADK cannot run it, ours {ours:?}");
            checked += 1;
            continue;
        };
        let names: Vec<String> = ours
            .unwrap_or_else(|e| panic!("{file}: {e}"))
            .into_keys()
            .collect();
        for case in cases {
            // The old format is one case, which ADK names by the file's path.
            let id = case["eval_id"].as_str().unwrap();
            let name = match names.as_slice() {
                [only] => only.clone(),
                _ => id.to_string(),
            };
            for run_row in case["runs"].as_array().unwrap() {
                let variant = run_row["variant"].as_str().unwrap();
                // "identical" replays the case's own conversation, as ADK loaded it.
                let actual = run_row["actual"]
                    .as_array()
                    .or_else(|| {
                        row["agent_evaluator_load"]["eval_set"]["eval_cases"]
                            .as_array()?
                            .iter()
                            .find(|c| c["eval_id"] == id)?["conversation"]
                            .as_array()
                    })
                    .cloned();
                let ours = run(file, &text, config.as_deref(), &|n| {
                    (n == name).then(|| actual.clone()).flatten()
                })
                .unwrap_or_else(|e| panic!("{file}: {e}"));
                for entry in run_row["result"]["overall"].as_array().unwrap() {
                    let metric = entry["metric_name"].as_str().unwrap();
                    if !SCORED.contains(&metric) {
                        continue;
                    }
                    let theirs = adk_status(entry);
                    let ours = ours[&name]
                        .get(metric)
                        .cloned()
                        .unwrap_or(Status::NotEvaluated);
                    assert!(
                        same(&ours, &theirs),
                        "{file} case {id} {variant} {metric}: ours {ours:?}, ADK {theirs:?}"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 30, "{checked}");
}

#[test]
fn a_case_adk_plays_with_a_user_simulator_runs_as_a_scenario_probe() {
    use kagent_evals::core::suite::compile::{Selector, Turns};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/conformance/peers/adk_files/fixtures/conversation_scenario");
    let text = std::fs::read_to_string(dir.join("conversation_scenario.test.json")).unwrap();
    let criteria = std::fs::read_to_string(dir.join("test_config.json")).unwrap();
    let suites = load_compiled(
        "conversation_scenario.test.json",
        &text,
        Some(CriteriaFile {
            name: "test_config.json",
            text: &criteria,
            explicit: false,
        }),
    )
    .unwrap();
    let (loaded, compiled) = &suites[0];
    assert!(loaded.not_run.is_empty(), "{:?}", loaded.not_run);
    // Its user_simulator_config maps: the model, max_allowed_invocations.
    let probe = &loaded.spec.cases[0].probe.as_ref().unwrap();
    let scenario = probe.scenario.as_ref().unwrap();
    assert_eq!(
        (scenario.starting_prompt.as_str(), scenario.plan.as_str()),
        ("Hello", "Ask the agent to do something")
    );
    assert_eq!(
        (scenario.max_turns, scenario.model.as_deref()),
        (10, Some("gemini-2.5-flash"))
    );
    let Selector::FirstUserMessage(_) = &compiled.cases[0].selector else {
        panic!("without --a2a-url the case reads recent sessions that start so");
    };
    let probed = compiled.cases[0]
        .evaluators
        .iter()
        .map(|e| e.name.as_str())
        .collect::<Vec<_>>();
    assert!(probed.contains(&"hallucinations_v1"), "{probed:?}");
    assert!(matches!(
        kagent_evals::core::suite::compile::compile(
            "s",
            &{
                let mut spec = loaded.spec.clone();
                spec.probes =
                    Some(serde_json::from_value(serde_json::json!({"enabled": true})).unwrap());
                spec
            },
            "",
            "default"
        )
        .unwrap()
        .probe_cases()
        .next()
        .unwrap()
        .2
        .turns,
        Turns::Scenario(_)
    ));

    // With ADK's default criteria, which compare with expected
    // invocations, the case is not run, and says why.
    let suites = load_compiled("conversation_scenario.test.json", &text, None).unwrap();
    let (loaded, compiled) = &suites[0];
    assert!(compiled.cases.is_empty());
    assert!(
        loaded.not_run[0]
            .reason
            .starts_with("tool_trajectory_avg_score compares with expected invocations"),
        "{:?}",
        loaded.not_run
    );
    let mut report = ReportBuilder::new(compiled).finish();
    report.add_not_run(&loaded.not_run);
    assert_eq!(report.cases[0].outcome, Outcome::Error);
    assert_eq!(report.exit_code(), 2);
}

/// The efficiency metrics ADK could not build because a threshold was
/// given, when those are all the metrics it could not build.
fn threshold_refused(metrics: Option<&Vec<Value>>) -> Option<Vec<&str>> {
    let failed: Vec<&Value> = metrics?
        .iter()
        .filter(|m| m["resolved"].get("error").is_some())
        .collect();
    let refusing: Vec<&str> = failed
        .iter()
        .filter(|m| {
            m["resolved"]["error"]
                .as_str()
                .is_some_and(|e| e.contains("does not support a threshold"))
        })
        .map(|m| m["metric_name"].as_str().unwrap())
        .collect();
    (!refusing.is_empty() && refusing.len() == failed.len()).then_some(refusing)
}
