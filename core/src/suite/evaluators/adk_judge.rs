//! google-adk's judged metrics, scored with ADK's arithmetic (`core::judge::adk`).

use super::{CompileContext, Scorer, Settings};
use crate::judge::adk::{self, AdkJudge, Rubric};
use crate::judge::{Judge, JudgeUsage};
use crate::score::{Score, Verdict};
use crate::suite::bounds;
use crate::suite::compile::{SuiteError, error, unit};
use crate::suite::evaluate::{Judgement, SessionView};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::future::Future;

/// One of google-adk's judged metrics, scored with ADK's arithmetic: per
/// invocation `numSamples` judge answers, a majority per rubric (or per
/// answer), the mean over the session's invocations, and, for a probe's
/// runs, the mean over every invocation of every run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AdkJudgeSpec {
    pub metric: AdkJudgedMetric,
    /// Passing score (ADK has no default).
    #[schemars(range(min = bounds::UNIT.min, max = bounds::UNIT.max))]
    pub threshold: f64,
    /// Judge answers per invocation (ADK's default 5; hallucinations asks once).
    #[serde(default = "five_samples")]
    #[schemars(range(min = bounds::SAMPLES.min, max = bounds::SAMPLES.max))]
    pub num_samples: u32,
    /// Sampling temperature; the endpoint's default when absent, as in ADK.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = bounds::TEMPERATURE.min, max = bounds::TEMPERATURE.max))]
    pub temperature: Option<f64>,
    /// The properties a rubric metric checks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = bounds::RUBRICS.max))]
    pub rubrics: Vec<RubricSpec>,
    /// Judge the text before the final response with it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub include_intermediate_responses_in_final: bool,
    /// Hallucinations: judge every text the agent wrote, not only the last.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub evaluate_intermediate_nl_responses: bool,
    /// finalResponseMatchV2: the expected final response of each invocation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expected_responses: Vec<String>,
}

fn five_samples() -> u32 {
    5
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum AdkJudgedMetric {
    /// `rubric_based_final_response_quality_v1`
    RubricBasedFinalResponseQualityV1,
    /// `rubric_based_tool_use_quality_v1`
    RubricBasedToolUseQualityV1,
    /// `rubric_based_multi_turn_trajectory_quality_v1`: the whole
    /// conversation judged once against the rubrics.
    RubricBasedMultiTurnTrajectoryQualityV1,
    /// `hallucinations_v1`: is every sentence grounded in what the tools said?
    HallucinationsV1,
    /// `final_response_match_v2`: a judge comparing the response with the expected one.
    FinalResponseMatchV2,
}

impl AdkJudgedMetric {
    /// The metric the judge arithmetic scores.
    pub fn judged(self) -> adk::Metric {
        match self {
            AdkJudgedMetric::RubricBasedFinalResponseQualityV1 => {
                adk::Metric::RubricBasedFinalResponseQuality
            }
            AdkJudgedMetric::RubricBasedToolUseQualityV1 => adk::Metric::RubricBasedToolUseQuality,
            AdkJudgedMetric::RubricBasedMultiTurnTrajectoryQualityV1 => {
                adk::Metric::RubricBasedMultiTurnTrajectoryQuality
            }
            AdkJudgedMetric::HallucinationsV1 => adk::Metric::Hallucinations,
            AdkJudgedMetric::FinalResponseMatchV2 => adk::Metric::FinalResponseMatch,
        }
    }

    /// ADK's metric name, the key of its verdicts.
    pub fn adk_name(self) -> &'static str {
        self.judged().adk_name()
    }

    pub fn uses_rubrics(self) -> bool {
        self.judged().uses_rubrics()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RubricSpec {
    #[schemars(length(min = 1))]
    pub id: String,
    #[schemars(length(min = 1))]
    pub text: String,
}

impl Settings for AdkJudgeSpec {
    type Scorer = AdkJudge;

    fn compile(&self, c: &CompileContext<'_>) -> Result<AdkJudge, SuiteError> {
        if self.metric.uses_rubrics() == self.rubrics.is_empty() {
            return Err(error(
                c.here("rubrics"),
                if self.metric.uses_rubrics() {
                    "a rubric metric needs its rubrics"
                } else {
                    "only the rubric metrics read rubrics"
                },
            ));
        }
        let mut ids: Vec<&str> = self.rubrics.iter().map(|r| r.id.as_str()).collect();
        ids.sort_unstable();
        if let Some(twice) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(error(
                c.here("rubrics"),
                format!("rubric id `{}` is used twice", twice[0]),
            ));
        }
        if (self.metric == AdkJudgedMetric::FinalResponseMatchV2)
            == self.expected_responses.is_empty()
        {
            return Err(error(
                c.here("expectedResponses"),
                if self.expected_responses.is_empty() {
                    "finalResponseMatchV2 compares with the expected responses"
                } else {
                    "only finalResponseMatchV2 reads expected responses"
                },
            ));
        }
        bounds::SAMPLES.check(self.num_samples, c.here("numSamples"))?;
        if let Some(temperature) = self.temperature {
            bounds::TEMPERATURE.check(temperature, c.here("temperature"))?;
        }
        if self.rubrics.len() > bounds::RUBRICS.max {
            return Err(error(
                c.here("rubrics"),
                format!("at most {} rubrics", bounds::RUBRICS.max),
            ));
        }
        Ok(AdkJudge {
            metric: self.metric.judged(),
            threshold: unit(self.threshold, &c.here("threshold"))?,
            samples: self.num_samples,
            temperature: self.temperature,
            rubrics: self
                .rubrics
                .iter()
                .map(|r| Rubric {
                    id: r.id.clone(),
                    text: r.text.clone(),
                })
                .collect(),
            include_intermediate: self.include_intermediate_responses_in_final,
            evaluate_intermediate: self.evaluate_intermediate_nl_responses,
            expected: self.expected_responses.clone(),
        })
    }
}

impl Scorer for AdkJudge {
    fn score(&self, _: &SessionView<'_>) -> Result<Verdict, String> {
        Err("an LLM-judged evaluator needs a judge: score it with evaluate_judged".into())
    }

    fn score_judged(
        &self,
        view: &SessionView<'_>,
        judge: &impl Judge,
        usage: &mut JudgeUsage,
    ) -> impl Future<Output = Result<(Verdict, Judgement), String>> + Send {
        let turns: Vec<adk::Turn> = view
            .invocations
            .iter()
            .map(|i| adk::Turn {
                messages: i.messages().to_vec(),
            })
            .collect();
        async move {
            let run = adk::judge_run(self, &turns, judge, usage).await;
            let judged = run.invocations.iter().filter(|s| s.is_some()).count();
            let Some((score, passed)) = adk::verdict(self, &[&run]) else {
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
                key: self.metric.adk_name().to_string(),
                score: Score::Number(score),
                passed,
                comment: Some(comment),
                skipped: Vec::new(),
                informational: false,
            };
            Ok((
                verdict,
                Judgement {
                    invocation_scores: run.invocations,
                    ..Judgement::default()
                },
            ))
        }
    }

    fn sampling(&self) -> Option<(u32, Option<f64>)> {
        Some((self.samples, self.temperature))
    }

    fn expected_invocations(&self) -> Option<usize> {
        (!self.expected.is_empty()).then_some(self.expected.len())
    }

    fn adk_judge(&self) -> Option<&AdkJudge> {
        Some(self)
    }

    fn pass_threshold(&self) -> Option<f64> {
        Some(self.threshold)
    }
}
