//! google-adk 2.13's judged metrics, replayed from the judge answers ADK's
//! own evaluators got from a scripted judge (tests/conformance/adk_judged/):
//! every answer read, every sample voted, every invocation, run and case
//! scored here as ADK scored it, verdict for verdict.

use kagent_evals::core::judge::adk::{
    Rubric, effective_threshold, exact_mean, label_score, mean_of_scored, response_match_answer,
    rubric_answer, sentences, validations, vote_response_match, vote_rubrics,
};
use serde_json::Value;
use std::path::Path;

fn vectors(name: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance/adk_judged/vectors")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A judge call's text: `None` when the call raised or yielded nothing.
fn answer_text(answer: &Value) -> Option<String> {
    if answer.get("error").is_some() || answer.get("no_response").is_some() {
        return None;
    }
    if answer.get("empty").is_some() {
        return Some(String::new());
    }
    if let Some(parts) = answer["parts"].as_array() {
        let texts: Vec<&str> = parts
            .iter()
            .filter_map(|p| p.as_str().or_else(|| p["text"].as_str()))
            .collect();
        return Some(texts.join("\n"));
    }
    answer["text"].as_str().map(String::from)
}

fn same(ours: Option<f64>, theirs: &Value) -> bool {
    match (ours, theirs.as_f64()) {
        (None, None) => true,
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

fn rubrics_of(list: &Value, metric_type: Option<&str>) -> Vec<Rubric> {
    list.as_array()
        .into_iter()
        .flatten()
        // Case and invocation rubrics join only when typed for the metric.
        .filter(|r| metric_type.is_none_or(|t| r["type"].as_str() == Some(t)))
        .map(|r| Rubric {
            id: r["rubric_id"].as_str().unwrap().to_string(),
            text: r["rubric_content"]["text_property"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        })
        .collect()
}

/// Per run: its per-invocation scores and its overall score.
type RunScores = (Vec<Option<f64>>, Option<f64>);

fn rubric_run(row: &Value, run: &Value, criterion: &Value) -> RunScores {
    let metric_type = if row["metric"] == "rubric_based_tool_use_quality_v1" {
        "TOOL_USE_QUALITY"
    } else {
        "FINAL_RESPONSE_QUALITY"
    };
    let invocations = run["actual"].as_array().unwrap().len();
    // The rubrics in effect when the answers are read: the last turn's.
    let mut rubrics = rubrics_of(&criterion["rubrics"], None);
    rubrics.extend(rubrics_of(&row["case_rubrics"], Some(metric_type)));
    if let Some(last) = row["expected"].as_array().unwrap().get(invocations - 1) {
        rubrics.extend(rubrics_of(&last["rubrics"], Some(metric_type)));
    }
    let mut ids: Vec<&str> = rubrics.iter().map(|r| r.id.as_str()).collect();
    ids.sort();
    let duplicate = ids.windows(2).any(|w| w[0] == w[1]);
    if rubrics.is_empty() || duplicate {
        // The metric raises: the run is not evaluated.
        return (vec![None; invocations], None);
    }
    let mut voted_all = Vec::new();
    let scores = (0..invocations)
        .map(|i| {
            let calls: Vec<&Value> = run["calls"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["invocation"] == i)
                .collect();
            let mut samples = Vec::new();
            for call in calls {
                let text = answer_text(&call["answer"])?;
                samples.push(rubric_answer(&text, &rubrics));
            }
            let voted = vote_rubrics(&samples);
            voted_all.extend(voted.iter().map(|(_, s)| *s));
            mean_of_scored(voted.iter().map(|(_, s)| *s))
        })
        .collect();
    (scores, mean_of_scored(voted_all))
}

fn response_match_run(run: &Value) -> RunScores {
    let invocations = run["actual"].as_array().unwrap().len();
    let scores: Vec<Option<f64>> = (0..invocations)
        .map(|i| {
            let mut samples = Vec::new();
            for call in run["calls"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["invocation"] == i)
            {
                let text = answer_text(&call["answer"])?;
                samples.push(if text.is_empty() {
                    None
                } else {
                    response_match_answer(&text)
                });
            }
            vote_response_match(&samples)
        })
        .collect();
    let evaluated: Vec<f64> = scores.iter().flatten().copied().collect();
    let valid = evaluated.iter().filter(|s| **s == 1.0).count();
    let overall = (!evaluated.is_empty()).then(|| valid as f64 / evaluated.len() as f64);
    (scores, overall)
}

fn hallucination_run(run: &Value) -> RunScores {
    let invocations = run["actual"].as_array().unwrap().len();
    let calls = run["calls"].as_array().unwrap();
    let scores: Vec<Option<f64>> = (0..invocations)
        .map(|i| {
            let mut steps: Vec<u64> = calls
                .iter()
                .filter(|c| c["invocation"] == i)
                .map(|c| c["step"].as_u64().unwrap())
                .collect();
            steps.dedup();
            mean_of_scored(steps.into_iter().map(|step| {
                let of = |kind: &str| {
                    calls
                        .iter()
                        .find(|c| c["invocation"] == i && c["step"] == step && c["kind"] == kind)
                };
                let segmented =
                    answer_text(&of("segmenter")?["answer"]).filter(|t| !t.is_empty())?;
                if sentences(&segmented).is_empty() {
                    return None;
                }
                let validated =
                    answer_text(&of("validator")?["answer"]).filter(|t| !t.is_empty())?;
                mean_of_scored(
                    validations(&validated)
                        .iter()
                        .map(|(_, label)| label_score(label)),
                )
            }))
        })
        .collect();
    let overall = mean_of_scored(scores.iter().copied());
    (scores, overall)
}

#[test]
fn adk_judged_metrics_score_as_adk_scores_them() {
    let mut checked = 0;
    for metric in [
        "rubric_based_final_response_quality_v1",
        "rubric_based_tool_use_quality_v1",
        "final_response_match_v2",
        "hallucinations_v1",
    ] {
        for row in vectors(&format!("{metric}.jsonl")) {
            let name = row["name"].as_str().unwrap();
            let criterion = &row["eval_config"]["criteria"][metric];
            let mut case_scores = Vec::new();
            for (r, run) in row["runs"].as_array().unwrap().iter().enumerate() {
                let (invocations, overall) = match metric {
                    "final_response_match_v2" => response_match_run(run),
                    "hallucinations_v1" => hallucination_run(run),
                    _ => rubric_run(&row, run, criterion),
                };
                for (i, (ours, theirs)) in invocations
                    .iter()
                    .zip(run["invocations"].as_array().unwrap())
                    .enumerate()
                {
                    assert!(
                        same(*ours, &theirs["score"]),
                        "{name} run {r} invocation {i}: ours {ours:?}, ADK {}",
                        theirs["score"]
                    );
                }
                assert!(
                    same(overall, &run["overall"]["score"]),
                    "{name} run {r}: ours {overall:?}, ADK {}",
                    run["overall"]["score"]
                );
                case_scores.extend(invocations.into_iter().flatten());
            }
            let case = &row["case"];
            let score = exact_mean(&case_scores);
            assert!(
                same(score, &case["score"]),
                "{name}: case ours {score:?}, ADK {}",
                case["score"]
            );
            let threshold = case["threshold"].as_f64().unwrap();
            if let Some(passed) = case["passed"].as_bool() {
                assert_eq!(score.is_some_and(|s| s >= threshold), passed, "{name}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 320, "{checked}");
}

#[test]
fn effective_thresholds_are_adks() {
    for row in vectors("effective_thresholds.jsonl") {
        let slots = (row["rubrics"].as_u64().unwrap()
            * row["runs"].as_u64().unwrap()
            * row["invocations"].as_u64().unwrap()) as u32;
        for (threshold, expected) in row["thresholds"].as_object().unwrap() {
            let stated: f64 = threshold.parse().unwrap();
            let ours = effective_threshold(stated, slots);
            assert_eq!(
                ours,
                expected["exact_effective"].as_f64().unwrap(),
                "{slots} slots at {threshold}"
            );
            // ADK's own pipeline at the fewest passing verdicts, and one fewer.
            for check in expected["pipeline_checks"].as_array().unwrap() {
                let per_invocation: Vec<u64> = check["per_invocation_yes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_u64().unwrap())
                    .collect();
                let rubrics = row["rubrics"].as_u64().unwrap() as f64;
                let scores: Vec<f64> = per_invocation
                    .iter()
                    .map(|yes| *yes as f64 / rubrics)
                    .collect();
                let score = exact_mean(&scores).unwrap();
                assert_eq!(
                    score,
                    check["score"].as_f64().unwrap(),
                    "{slots} slots, {check}"
                );
                assert_eq!(
                    score >= stated,
                    check["passed"].as_bool().unwrap(),
                    "{slots} slots, {check}"
                );
            }
        }
    }
}

#[test]
fn a_stated_threshold_is_said_with_what_it_really_asks() {
    use kagent_evals::core::formats::load::load_compiled;
    // The template's table: 1 rubric x 2 runs asks 1.0 of 0.7; 1 x 5 asks
    // 0.8; 2 x 5 asks 0.7 itself. Three invocations ask 2/3 of 0.5.
    for (rubrics, runs, invocations, threshold, note) in [
        (
            1,
            2,
            1,
            0.7,
            Some("threshold 0.7 is effectively 1.0: 1 rubric x 2 runs x 1 invocation"),
        ),
        (
            1,
            5,
            1,
            0.7,
            Some("threshold 0.7 is effectively 0.8: 1 rubric x 5 runs x 1 invocation"),
        ),
        (2, 5, 1, 0.7, None),
        (
            1,
            1,
            3,
            0.5,
            Some("threshold 0.5 is effectively 0.667: 1 rubric x 1 run x 3 invocations"),
        ),
    ] {
        let rubric_list: Vec<Value> = (0..rubrics)
            .map(|i| serde_json::json!({"id": format!("r{i}"), "text": format!("property {i}")}))
            .collect();
        let turns: Vec<Value> = (0..invocations)
            .map(|i| serde_json::json!(format!("turn {i}")))
            .collect();
        let expected: Vec<Value> = (0..invocations)
            .map(|_| serde_json::json!({"toolUses": []}))
            .collect();
        let suite = serde_json::json!({
            "apiVersion": "evals.kagent.dev/v1alpha1", "kind": "EvalSuite", "metadata": {"name": "t"},
            "spec": {"probes": {"enabled": true, "maxRuns": 20}, "cases": [{
                "name": "c",
                "probe": {"conversation": turns, "runs": runs},
                "evaluators": [
                    {"name": "calls", "type": "toolTrajectory", "toolTrajectory": {"invocations": expected}},
                    {"name": "quality", "type": "adkJudge", "adkJudge": {
                        "metric": "rubricBasedFinalResponseQualityV1", "threshold": threshold, "numSamples": 1, "rubrics": rubric_list}}
                ]}]}
        });
        let suites = load_compiled("suite.yaml", &suite.to_string(), None).unwrap();
        let warnings: Vec<&str> = suites[0].1.warnings().collect();
        match note {
            Some(note) => assert!(warnings.iter().any(|w| w.ends_with(note)), "{warnings:?}"),
            None => assert!(
                warnings.iter().all(|w| !w.contains("effectively")),
                "{warnings:?}"
            ),
        }
    }
}
