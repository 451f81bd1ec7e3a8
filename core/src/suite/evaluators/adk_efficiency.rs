//! google-adk's efficiency metrics (2.10 to 2.13): `tool_call_count_v1`,
//! `inference_call_count_v1`, `token_usage_v1` and
//! `invocation_duration_v1`. ADK reports them on every eval as
//! informational values that never pass or fail a case; so do these, with
//! ADK's arithmetic:
//!
//! - per invocation: the function calls of its events; the events that
//!   carry usage metadata or a model version; the tokens of every usage
//!   (prompt + tool-use prompt + candidates + thoughts, ADK's
//!   `total_token_count` ignored), none when no event carries usage;
//! - over the session: the mean per invocation, leaving out invocations
//!   without a value, except for tokens, whose mean counts an invocation
//!   without usage as 0 (ADK divides by every invocation);
//! - the duration is ADK's wall clock around running the agent, which a
//!   stored session does not hold: not available, as ADK reports it for
//!   one (the prober's own clock is in the session's efficiency).

use super::{CompileContext, Scorer, Settings};
use crate::event::{Content, Event, Part};
use crate::score::Verdict;
use crate::suite::compile::SuiteError;
use crate::suite::evaluate::SessionView;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum AdkEfficiencyMetric {
    ToolCallCountV1,
    InferenceCallCountV1,
    TokenUsageV1,
    InvocationDurationV1,
}

impl AdkEfficiencyMetric {
    pub const ALL: [AdkEfficiencyMetric; 4] = [
        AdkEfficiencyMetric::ToolCallCountV1,
        AdkEfficiencyMetric::InferenceCallCountV1,
        AdkEfficiencyMetric::TokenUsageV1,
        AdkEfficiencyMetric::InvocationDurationV1,
    ];

    /// The name ADK gives it.
    pub fn adk_name(self) -> &'static str {
        match self {
            AdkEfficiencyMetric::ToolCallCountV1 => "tool_call_count_v1",
            AdkEfficiencyMetric::InferenceCallCountV1 => "inference_call_count_v1",
            AdkEfficiencyMetric::TokenUsageV1 => "token_usage_v1",
            AdkEfficiencyMetric::InvocationDurationV1 => "invocation_duration_v1",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AdkEfficiencySpec {
    pub metric: AdkEfficiencyMetric,
}

#[derive(Clone, Debug)]
pub struct AdkEfficiency {
    metric: AdkEfficiencyMetric,
}

impl Settings for AdkEfficiencySpec {
    type Scorer = AdkEfficiency;

    fn compile(&self, _: &CompileContext<'_>) -> Result<AdkEfficiency, SuiteError> {
        Ok(AdkEfficiency {
            metric: self.metric,
        })
    }
}

impl Scorer for AdkEfficiency {
    fn score(&self, view: &SessionView<'_>) -> Result<Verdict, String> {
        let per_invocation: Vec<Option<f64>> = view
            .invocations
            .iter()
            .map(|i| self.per_invocation(&i.events))
            .collect();
        let present: Vec<f64> = per_invocation.iter().flatten().copied().collect();
        let value = match (self.metric, present.is_empty()) {
            (_, true) => None,
            (AdkEfficiencyMetric::TokenUsageV1, false) => {
                Some(present.iter().sum::<f64>() / per_invocation.len() as f64)
            }
            (_, false) => Some(present.iter().sum::<f64>() / present.len() as f64),
        };
        Ok(Verdict::informational(self.metric.adk_name(), value))
    }
}

impl AdkEfficiency {
    /// One invocation's value, ADK's way; `None` where ADK has none.
    fn per_invocation(&self, events: &[&Event]) -> Option<f64> {
        // ADK keeps the agent's events with a part it can read; the user's
        // message is the invocation's input, not one of its events.
        let kept = || {
            events.iter().filter(|e| {
                !e.partial
                    && e.author.as_deref() != Some("user")
                    && parts(e).iter().any(|p| {
                        matches!(
                            p,
                            Part::FunctionCall { .. }
                                | Part::FunctionResponse { .. }
                                | Part::Text { .. }
                        )
                    })
            })
        };
        match self.metric {
            AdkEfficiencyMetric::ToolCallCountV1 => Some(
                kept()
                    .flat_map(|e| parts(e))
                    .filter(|p| matches!(p, Part::FunctionCall { .. }))
                    .count() as f64,
            ),
            AdkEfficiencyMetric::InferenceCallCountV1 => Some(
                kept()
                    .filter(|e| e.usage.is_some() || e.model.is_some())
                    .count() as f64,
            ),
            AdkEfficiencyMetric::TokenUsageV1 => {
                let counts: Vec<Option<u64>> = kept()
                    .filter_map(|e| e.usage.as_ref())
                    .flat_map(|u| {
                        [
                            u.prompt_tokens,
                            u.tool_use_prompt_tokens,
                            u.completion_tokens,
                            u.thoughts_tokens,
                        ]
                    })
                    .collect();
                counts
                    .iter()
                    .any(Option::is_some)
                    .then(|| counts.iter().flatten().sum::<u64>() as f64)
            }
            AdkEfficiencyMetric::InvocationDurationV1 => None,
        }
    }
}

fn parts(event: &Event) -> &[Part] {
    match &event.content {
        Content::Parts { parts, .. } => parts,
        _ => &[],
    }
}

/// The vectors of adk-python's own `test_efficiency_evaluators.py` (run
/// against google-adk 2.13.0), as sessions: each ADK invocation a user
/// turn, each usage an agent event.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::ConvertOptions;
    use crate::event::Event;
    use crate::score::Score;
    use crate::session::{Session, SessionKey};
    use serde_json::{Value, json};

    /// ADK's `_usage(prompt, candidates, cached, thoughts, tool_use_prompt)`.
    fn usage(prompt: u64, candidates: u64, thoughts: u64, tool_use: u64) -> Value {
        json!({"prompt_token_count": prompt, "candidates_token_count": candidates,
               "thoughts_token_count": thoughts, "tool_use_prompt_token_count": tool_use,
               "total_token_count": 9999})
    }

    /// A session of invocations, each a user turn then agent events with
    /// these usages (`null`: none) and these function calls.
    fn session(invocations: &[(&[Value], usize)]) -> Session {
        let mut events = Vec::new();
        for (i, (usages, calls)) in invocations.iter().enumerate() {
            let id = format!("i{i}");
            events.push(json!({"invocation_id": id, "author": "user",
                               "content": {"role": "user", "parts": [{"text": "q"}]}}));
            for (j, u) in usages.iter().enumerate() {
                let mut event = json!({"invocation_id": id, "author": "agent",
                                       "content": {"role": "model", "parts": [{"text": "a"}]}});
                if j == 0 && *calls > 0 {
                    event["content"]["parts"] = Value::Array(
                        (0..*calls)
                            .map(|c| json!({"function_call": {"id": format!("c{c}"), "name": "t", "args": {}}}))
                            .collect(),
                    );
                }
                if !u.is_null() {
                    event["usage_metadata"] = u.clone();
                }
                events.push(event);
            }
        }
        Session {
            key: SessionKey::new("s", None),
            events: events.iter().map(|e| Event::from_json(e).0).collect(),
            ..Session::default()
        }
    }

    fn score(metric: AdkEfficiencyMetric, session: &Session) -> Score {
        let options = ConvertOptions::default();
        let view = SessionView::new(session, None, &options).unwrap();
        let verdict = AdkEfficiency { metric }.score(&view).unwrap();
        assert!(
            verdict.passed && verdict.informational,
            "never passes or fails"
        );
        assert_eq!(verdict.key, metric.adk_name());
        verdict.score
    }

    #[test]
    fn tokens_sum_every_type_but_the_reported_total_and_average_over_every_invocation() {
        use AdkEfficiencyMetric::TokenUsageV1 as Tokens;
        // test_token_usage_sums_total_tokens_across_model_calls: 350.
        let two_calls = session(&[(&[usage(60, 40, 0, 0), usage(200, 50, 0, 0)], 0)]);
        assert_eq!(score(Tokens, &two_calls), Score::Number(350.0));
        // ..._total_is_derived_not_the_backend_reported_total: 125.
        let derived = session(&[(&[usage(100, 20, 5, 0)], 0)]);
        assert_eq!(score(Tokens, &derived), Score::Number(125.0));
        // ..._counts_tool_use_tokens: input 1000 (470+30, 488+12).
        let tool_use = session(&[(&[usage(470, 0, 0, 30), usage(488, 0, 0, 12)], 0)]);
        assert_eq!(score(Tokens, &tool_use), Score::Number(1000.0));
        // ..._averages_an_unreported_count_as_zero_for_that_turn: (100+300)/2.
        let two_turns = session(&[
            (&[usage(50, 10, 40, 0)], 0),
            (
                &[json!({"prompt_token_count": 200, "candidates_token_count": 100})],
                0,
            ),
        ]);
        assert_eq!(score(Tokens, &two_turns), Score::Number(200.0));
        // An invocation without usage counts as 0 over all of them: 55 / 4.
        let sparse = session(&[
            (&[usage(50, 5, 0, 0)], 0),
            (&[Value::Null], 0),
            (&[Value::Null], 0),
            (&[Value::Null], 0),
        ]);
        assert_eq!(score(Tokens, &sparse), Score::Number(13.75));
        // ..._none_when_no_usage_present.
        let none = session(&[(&[Value::Null], 0)]);
        assert_eq!(score(Tokens, &none), Score::NotAvailable);
    }

    #[test]
    fn calls_are_counted_per_invocation_and_averaged() {
        // test_tool_call_count_counts_calls_and_averages: [2, 1] -> 1.5.
        let calls = session(&[(&[Value::Null], 2), (&[Value::Null], 1)]);
        assert_eq!(
            score(AdkEfficiencyMetric::ToolCallCountV1, &calls),
            Score::Number(1.5)
        );
        // test_inference_call_count_counts_model_calls: 2.
        let inferences = session(&[(&[usage(0, 0, 0, 0), usage(0, 0, 0, 0)], 0)]);
        assert_eq!(
            score(AdkEfficiencyMetric::InferenceCallCountV1, &inferences),
            Score::Number(2.0)
        );
        // A stored session holds no wall clock: n/a, as ADK reports it.
        assert_eq!(
            score(AdkEfficiencyMetric::InvocationDurationV1, &inferences),
            Score::NotAvailable
        );
    }
}
