//! One compiled evaluator on one session, as a case sees it.

use super::compile::{CompiledCase, Evaluator, ResponseReference};
use super::spec::SelectionMetric;
use crate::core::convert::{self, HEADER_UPDATE_INVOCATION};
use crate::core::event::{Content, Event, Part};
use crate::core::judge::adk;
use crate::core::judge::{Judge, JudgeUsage, judge_trajectory};
use crate::core::score::adk::{ToolUse, average, tool_trajectory};
use crate::core::score::golden::{self, consumption, over_budget};
use crate::core::score::trajectory_match::{
    MAX_CALL_PAIRS, check_size, tools_used, trajectory_match,
};
use crate::core::score::{Score, Verdict, rouge};
use crate::core::session::Session;
use crate::core::trajectory::{Call, Message, Step, calls, steps};

/// A session converted with a case's options.
pub struct SessionView<'s> {
    pub messages: Vec<Message>,
    pub steps: Vec<Step>,
    pub invocations: Vec<InvocationView<'s>>,
    pub events: Vec<&'s Event>,
}

/// One user turn: its events, its calls as ADK compares them, its answer.
pub struct InvocationView<'s> {
    pub id: String,
    pub events: Vec<&'s Event>,
    /// The invocation converted with the case's options.
    pub messages: Vec<Message>,
    pub tool_uses: Vec<ToolUse>,
    pub final_response: String,
    pub steps: usize,
}

/// ADK's final response of an invocation: its last event that is a final
/// response (the agent's, complete, with parts and no function call or
/// response), every non-empty text part joined by newlines, thoughts
/// included, as ADK's response metrics read it.
fn adk_final_response(group: &[&Event]) -> String {
    group
        .iter()
        .rev()
        .filter(|e| !e.partial && e.author.as_deref() != Some("user"))
        .find_map(|e| match &e.content {
            Content::Parts { parts, .. }
                if !parts.iter().any(|p| {
                    matches!(p, Part::FunctionCall { .. } | Part::FunctionResponse { .. })
                }) =>
            {
                Some(parts)
            }
            _ => None,
        })
        .map(|parts| {
            parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text { text, .. } if !text.is_empty() => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

impl<'s> SessionView<'s> {
    /// `Err` when the session cannot be scored under this case.
    pub fn new(session: &'s Session, case: &CompiledCase) -> Result<Self, String> {
        let groups = convert::split_by_invocation(&session.events);
        let events: Vec<&Event> = match &case.invocation_id {
            None => session.events.iter().collect(),
            Some(id) => groups
                .iter()
                .find(|(key, _)| key == id)
                .map(|(_, g)| g.clone())
                .ok_or_else(|| format!("invocation {id} is not in the session"))?,
        };
        let conversion = convert::convert(events.iter().copied(), &case.convert);
        if conversion.messages.is_empty() {
            return Err(
                "no scorable messages after conversion (every event was empty or filtered)".into(),
            );
        }
        let steps =
            steps(&conversion.messages).map_err(|e| format!("trajectory cannot be scored: {e}"))?;
        let invocations = convert::split_by_invocation(events.iter().copied())
            .into_iter()
            .filter(|(id, _)| id != HEADER_UPDATE_INVOCATION)
            .map(|(id, group)| {
                let final_response = adk_final_response(&group);
                let messages = convert::convert(group.iter().copied(), &case.convert).messages;
                let tool_uses: Vec<ToolUse> = group
                    .iter()
                    .filter(|e| case.convert.include_partial || !e.partial)
                    .flat_map(|e| match &e.content {
                        Content::Parts { parts, .. } => parts.as_slice(),
                        _ => &[],
                    })
                    .filter_map(|p| match p {
                        Part::FunctionCall { name, args, .. }
                            if !case.convert.is_dropped_tool(name) =>
                        {
                            Some(ToolUse {
                                name: Some(name.clone()),
                                args: args.clone(),
                            })
                        }
                        _ => None,
                    })
                    .collect();
                InvocationView {
                    id,
                    steps: tool_uses.len(),
                    messages,
                    events: group,
                    tool_uses,
                    final_response,
                }
            })
            .collect();
        Ok(SessionView {
            messages: conversion.messages,
            steps,
            invocations,
            events,
        })
    }

    /// A view of a bare message list (no events): each user message starts
    /// an invocation; there are no token counts or timestamps.
    pub fn from_messages(messages: Vec<Message>) -> Result<SessionView<'static>, String> {
        let steps = steps(&messages).map_err(|e| format!("trajectory cannot be scored: {e}"))?;
        let mut invocations: Vec<InvocationView<'static>> = Vec::new();
        for (message, step) in messages.iter().zip(&steps) {
            if message.role == "user" || message.role == "human" || invocations.is_empty() {
                invocations.push(InvocationView {
                    id: format!("turn-{}", invocations.len() + 1),
                    events: Vec::new(),
                    messages: Vec::new(),
                    tool_uses: Vec::new(),
                    final_response: String::new(),
                    steps: 0,
                });
            }
            let current = invocations.last_mut().expect("pushed above");
            current.messages.push(message.clone());
            match &step.calls {
                Some(calls) => {
                    current.steps += calls.len();
                    current.tool_uses.extend(calls.iter().map(|c| ToolUse {
                        name: Some(c.name.clone()),
                        args: serde_json::Value::Object(c.args.clone()),
                    }));
                }
                None if step.role == crate::core::trajectory::Role::Assistant
                    && !message.content_text().is_empty() =>
                {
                    current.final_response = message.content_text();
                }
                None => {}
            }
        }
        Ok(SessionView {
            messages,
            steps,
            invocations,
            events: Vec::new(),
        })
    }

    pub fn calls(&self) -> Vec<&Call> {
        calls(&self.steps).collect()
    }

    pub fn tool_names(&self) -> Vec<&str> {
        calls(&self.steps).map(|c| c.name.as_str()).collect()
    }
}

/// The verdict, or `Err` when the evaluator could not judge this session
/// (an error of the suite, not a failure of the agent).
pub fn evaluate(evaluator: &Evaluator, view: &SessionView<'_>) -> Result<Verdict, String> {
    Ok(match evaluator {
        Evaluator::ToolsUsed {
            expected,
            mode,
            matching,
        } => {
            let calls = view.calls().len();
            if calls.saturating_mul(expected.len()) > MAX_CALL_PAIRS {
                return Err(format!(
                    "{calls} tool calls against {} expected tools: a comparison weighs at most {MAX_CALL_PAIRS} pairs",
                    expected.len()
                ));
            }
            tools_used(&view.steps, expected, *mode, *matching).map_err(|e| e.0)?
        }
        Evaluator::TrajectoryMatch { reference, config } => {
            check_size(&view.steps, reference, config.matching)?;
            trajectory_match(&view.steps, reference, config)
        }
        Evaluator::ToolTrajectory {
            expected,
            comparison,
            threshold,
        } => {
            if expected.is_empty() && view.invocations.is_empty() {
                // ADK scores nothing here and reports the metric not evaluated.
                return Err("no invocation to score (ADK reports this as not evaluated)".into());
            }
            let actual: Vec<Vec<ToolUse>> = view
                .invocations
                .iter()
                .map(|i| i.tool_uses.clone())
                .collect();
            match tool_trajectory(&actual, expected, *comparison) {
                Err(mismatch) => {
                    Verdict::threshold("tool_trajectory_avg_score", 0.0, *threshold, Some(mismatch))
                }
                Ok(score) => {
                    let failed: Vec<String> = score
                        .per_invocation
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| **s < 1.0)
                        .map(|(i, _)| (i + 1).to_string())
                        .collect();
                    Verdict::threshold(
                        "tool_trajectory_avg_score",
                        score.overall,
                        *threshold,
                        Some(format!(
                            "invocation(s) {} do not match ({}{})",
                            failed.join(", "),
                            comparison.match_type,
                            if comparison.ignore_args {
                                ", names only"
                            } else {
                                ""
                            }
                        )),
                    )
                }
            }
        }
        Evaluator::ResponseMatch {
            reference,
            threshold,
        } => response_match(view, reference, *threshold),
        Evaluator::ToolSelection {
            expected,
            metric,
            threshold,
        } => {
            let used = view.tool_names();
            let wanted: Vec<&str> = expected.iter().map(String::as_str).collect();
            let s = golden::tool_selection(&used, &wanted);
            let (key, score) = match metric {
                SelectionMetric::Precision => ("tool_selection_precision", s.precision),
                SelectionMetric::Recall => ("tool_selection_recall", s.recall),
                SelectionMetric::F1 => ("tool_selection_f1", s.f1),
            };
            let missing: Vec<&str> = wanted
                .iter()
                .filter(|w| !used.contains(w))
                .copied()
                .collect();
            let mut extra: Vec<&str> = used
                .iter()
                .filter(|u| !wanted.contains(u))
                .copied()
                .collect();
            extra.dedup();
            Verdict::threshold(
                key,
                score,
                *threshold,
                Some(describe_sets(&missing, &extra)),
            )
        }
        Evaluator::ArgumentCorrectness { calls, threshold } => {
            let c = golden::argument_correctness(&view.calls(), calls);
            Verdict::threshold("argument_correctness", c.score, *threshold, c.first_wrong)
        }
        Evaluator::TrajectoryDrift {
            reference,
            threshold,
        } => {
            let reference: Vec<&str> = reference.iter().map(String::as_str).collect();
            let ratio = golden::drift(&view.tool_names(), &reference);
            Verdict::threshold(
                "trajectory_drift",
                ratio,
                *threshold,
                Some(format!(
                    "tool sequence similarity {ratio:.3} is below {threshold}"
                )),
            )
        }
        Evaluator::Loops {
            window,
            min_repeats,
        } => {
            let loops = golden::loops(&view.calls(), *window, *min_repeats);
            let within = match window {
                0 => "all calls before it".to_string(),
                w => format!("the {w} calls before it"),
            };
            let comment = loops
                .iter()
                .map(|l| {
                    format!(
                        "call {} `{}` repeats its arguments ({} times among it and {within})",
                        l.at_call, l.tool, l.occurrences
                    )
                })
                .collect::<Vec<_>>()
                .join("; ");
            Verdict {
                key: "loops".into(),
                score: Score::Number(loops.len() as f64),
                passed: loops.is_empty(),
                comment: (!loops.is_empty()).then_some(comment),
            }
        }
        Evaluator::Safety {
            required,
            forbidden,
        } => {
            let violations = golden::safety_violations(&view.tool_names(), required, forbidden);
            let listed: Vec<String> = violations.iter().map(ToString::to_string).collect();
            Verdict::boolean("safety", violations.is_empty(), Some(listed.join("; ")))
        }
        Evaluator::Budget {
            budget,
            prices,
            per_invocation,
        } => {
            let scopes: Vec<(Option<usize>, golden::Consumption)> = if *per_invocation {
                view.invocations
                    .iter()
                    .enumerate()
                    .map(|(i, inv)| (Some(i + 1), consumption(&inv.events, inv.steps, prices)))
                    .collect()
            } else {
                vec![(None, consumption(&view.events, view.calls().len(), prices))]
            };
            let mut over = Vec::new();
            for (invocation, used) in scopes {
                for exceeded in over_budget(&used, budget)? {
                    over.push(match invocation {
                        Some(i) => format!("invocation {i}: {exceeded}"),
                        None => exceeded,
                    });
                }
            }
            Verdict::boolean("budget", over.is_empty(), Some(over.join("; ")))
        }
        Evaluator::Judged { .. } | Evaluator::AdkJudge(_) => {
            return Err(
                "an LLM-judged evaluator needs a judge: score it with evaluate_judged".into(),
            );
        }
    })
}

/// A judged evaluator's answer beyond its verdict.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Judgement {
    /// The judge's reasoning, which may quote the conversation.
    pub reasoning: Option<String>,
    /// ADK's metrics: each invocation's score, pooled over a probe's runs.
    pub invocation_scores: Vec<Option<f64>>,
}

/// Any evaluator, asking `judge` for the judged ones: the verdict and the
/// judge's reasoning, if a judge gave it. `Err` for an error of the run: an
/// evaluator that could not judge, or a judge that could not answer.
pub async fn evaluate_judged(
    evaluator: &Evaluator,
    view: &SessionView<'_>,
    judge: &impl Judge,
    usage: &mut JudgeUsage,
) -> Result<(Verdict, Judgement), String> {
    match evaluator {
        Evaluator::Judged { task, sampling } => {
            let judged = judge_trajectory(task, sampling, &view.messages, judge, usage)
                .await
                .map_err(|e| e.to_string())?;
            let judgement = Judgement {
                reasoning: Some(judged.reasoning),
                ..Judgement::default()
            };
            Ok((judged.verdict, judgement))
        }
        Evaluator::AdkJudge(j) => {
            let turns: Vec<adk::Turn> = view
                .invocations
                .iter()
                .map(|i| adk::Turn {
                    messages: i.messages.clone(),
                })
                .collect();
            let run = adk::judge_run(j, &turns, judge, usage).await;
            let judged = run.invocations.iter().filter(|s| s.is_some()).count();
            let Some((score, passed)) = adk::verdict(j, &[&run]) else {
                return Err(format!(
                    "not evaluated: none of the {} invocation(s) could be judged",
                    run.invocations.len()
                ));
            };
            let rubrics: Vec<String> = run
                .rubrics
                .iter()
                .map(|(id, s)| match s {
                    Some(s) if *s >= 1.0 => format!("{id} yes"),
                    Some(s) if *s <= 0.0 => format!("{id} no"),
                    Some(s) => format!("{id} {s:.2}"),
                    None => format!("{id} unread"),
                })
                .collect();
            let mut comment = format!("{judged}/{} invocation(s) judged", run.invocations.len());
            if !rubrics.is_empty() {
                comment = format!("rubrics: {}; {comment}", rubrics.join(", "));
            }
            // The rubric verdicts are said either way: ids, never the conversation.
            let verdict = Verdict {
                key: j.metric.adk_name().to_string(),
                score: Score::Number(score),
                passed,
                comment: Some(comment),
            };
            Ok((
                verdict,
                Judgement {
                    reasoning: None,
                    invocation_scores: run.invocations,
                },
            ))
        }
        other => evaluate(other, view).map(|verdict| (verdict, Judgement::default())),
    }
}

fn describe_sets(missing: &[&str], extra: &[&str]) -> String {
    let list = |names: &[&str]| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (missing.is_empty(), extra.is_empty()) {
        (false, false) => format!(
            "not called: {}; not expected: {}",
            list(missing),
            list(extra)
        ),
        (false, true) => format!("not called: {}", list(missing)),
        (true, false) => format!("not expected: {}", list(extra)),
        (true, true) => "no tools called".into(),
    }
}

fn response_match(
    view: &SessionView<'_>,
    reference: &ResponseReference,
    threshold: f64,
) -> Verdict {
    const KEY: &str = "response_match_score";
    let pairs: Vec<(&str, &str)> = match reference {
        ResponseReference::Last(text) => match view.invocations.last() {
            Some(last) => vec![(last.final_response.as_str(), text.as_str())],
            None => {
                return Verdict::threshold(
                    KEY,
                    0.0,
                    threshold,
                    Some("the session has no invocation".into()),
                );
            }
        },
        ResponseReference::PerInvocation(texts) => {
            if texts.len() != view.invocations.len() {
                return Verdict::threshold(
                    KEY,
                    0.0,
                    threshold,
                    Some(format!(
                        "{} invocation(s) in the session, {} expected",
                        view.invocations.len(),
                        texts.len()
                    )),
                );
            }
            view.invocations
                .iter()
                .map(|i| i.final_response.as_str())
                .zip(texts.iter().map(String::as_str))
                .collect()
        }
    };
    let score = average(
        pairs
            .iter()
            .map(|(c, r)| rouge::rouge1(c, r).fmeasure)
            .collect(),
    );
    Verdict::threshold(
        KEY,
        score.overall,
        threshold,
        Some(format!(
            "ROUGE-1 F-measure {:.3} is below {threshold}",
            score.overall
        )),
    )
}
