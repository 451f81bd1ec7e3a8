//! One compiled evaluator on one session, as a case sees it.

use super::compile::Evaluator;
use crate::convert::{self, ConvertOptions, HEADER_UPDATE_INVOCATION};
use crate::event::{Content, Event, Part};
use crate::judge::{Judge, JudgeUsage};
use crate::score::Verdict;
use crate::score::adk::ToolUse;
use crate::session::Session;
use crate::trajectory::{Call, Message, Step, calls, steps};
use std::sync::OnceLock;

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
    /// The invocation converted with `convert`, when first asked for: only
    /// the judges read a turn's messages. Given for a bare message list.
    messages: OnceLock<Vec<Message>>,
    convert: Option<&'s ConvertOptions>,
    pub tool_uses: Vec<ToolUse>,
    pub final_response: String,
    pub steps: usize,
}

impl InvocationView<'_> {
    /// The turn's messages.
    pub fn messages(&self) -> &[Message] {
        self.messages.get_or_init(|| match self.convert {
            Some(options) => convert::convert(self.events.iter().copied(), options).messages,
            None => Vec::new(),
        })
    }
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
    /// The session (or its `invocation` alone) converted with `options`;
    /// `Err` when it cannot be scored so.
    pub fn new(
        session: &'s Session,
        invocation: Option<&str>,
        options: &'s ConvertOptions,
    ) -> Result<Self, String> {
        let events: Vec<&Event> = match invocation {
            None => session.events.iter().collect(),
            Some(id) => convert::split_by_invocation(&session.events)
                .into_iter()
                .find(|(key, _)| key == id)
                .map(|(_, g)| g)
                .ok_or_else(|| format!("invocation {id} is not in the session"))?,
        };
        let conversion = convert::convert(events.iter().copied(), options);
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
                let tool_uses: Vec<ToolUse> = group
                    .iter()
                    .filter(|e| options.include_partial || !e.partial)
                    .flat_map(|e| match &e.content {
                        Content::Parts { parts, .. } => parts.as_slice(),
                        _ => &[],
                    })
                    .filter_map(|p| match p {
                        Part::FunctionCall { name, args, .. } if !options.is_dropped_tool(name) => {
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
                    messages: OnceLock::new(),
                    convert: Some(options),
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
        let mut turns: Vec<Vec<Message>> = Vec::new();
        for (message, step) in messages.iter().zip(&steps) {
            if message.role == "user" || message.role == "human" || invocations.is_empty() {
                invocations.push(InvocationView {
                    id: format!("turn-{}", invocations.len() + 1),
                    events: Vec::new(),
                    messages: OnceLock::new(),
                    convert: None,
                    tool_uses: Vec::new(),
                    final_response: String::new(),
                    steps: 0,
                });
                turns.push(Vec::new());
            }
            let current = invocations.last_mut().expect("pushed above");
            turns
                .last_mut()
                .expect("pushed above")
                .push(message.clone());
            match &step.calls {
                Some(calls) => {
                    current.steps += calls.len();
                    current.tool_uses.extend(calls.iter().map(|c| ToolUse {
                        name: Some(c.name.clone()),
                        args: c.args.to_object(),
                    }));
                }
                None if step.role == crate::trajectory::Role::Assistant
                    && !message.content_text().is_empty() =>
                {
                    current.final_response = message.content_text();
                }
                None => {}
            }
        }
        for (invocation, turn) in invocations.iter_mut().zip(turns) {
            invocation.messages = OnceLock::from(turn);
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
    evaluator.scorer().score(view)
}

/// A judged evaluator's answer beyond its verdict.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Judgement {
    /// The judge's reasoning, which may quote the conversation.
    pub reasoning: Option<String>,
    /// ADK's metrics: each invocation's score, pooled over a probe's runs.
    pub invocation_scores: Vec<Option<f64>>,
    /// A panel's members, each with its verdict and reasoning.
    pub panel: Vec<crate::judge::panel::PanelVote>,
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
    evaluator.score_judged(view, judge, usage).await
}
