//! An LLM judge of the trajectory (agentevals' trajectory accuracy).

use super::{Context, Scorer, Settings};
use crate::core::judge::{Judge, JudgeTask, JudgeUsage, Sampling, judge_trajectory, prompt};
use crate::core::score::Verdict;
use crate::core::suite::compile::{SuiteError, error, unit};
use crate::core::suite::evaluate::{Judgement, SessionView};
use crate::core::suite::spec::*;
use crate::core::trajectory::{messages_from_value, steps};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An LLM judge asked whether the trajectory is logical, progressing and
/// efficient (and, with a reference, equivalent to it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TrajectoryJudgeSpec {
    /// A good trajectory to compare with: OpenAI-format messages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "messages")]
    pub reference: Vec<Value>,
    /// Score from 0 to 1 and pass at `threshold`, instead of yes or no.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub continuous: bool,
    /// Passing score of a continuous judgement (default 0.8).
    #[serde(default = "eight_tenths")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub threshold: f64,
    /// Answers to ask for; the verdict is their majority (default 1).
    #[serde(default = "one_sample")]
    #[schemars(range(min = 1, max = 9))]
    pub num_samples: u32,
    /// Sampling temperature; the endpoint's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 2.0))]
    pub temperature: Option<f64>,
    /// A prompt template in place of the built-in one; see docs/judges.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

/// An LLM judge's task and how it is sampled: the trajectory judge's and
/// the outcome judge's.
#[derive(Clone, Debug)]
pub struct LlmJudge {
    pub(super) task: JudgeTask,
    pub(super) sampling: Sampling,
}

/// Samples, temperature and prompt template, checked.
pub(super) fn sampling(
    samples: u32,
    temperature: Option<f64>,
    template: &Option<String>,
    c: &Context<'_>,
) -> Result<Sampling, SuiteError> {
    if !(1..=9).contains(&samples) {
        return Err(error(c.here("numSamples"), "must be from 1 to 9"));
    }
    if temperature.is_some_and(|t| !(0.0..=2.0).contains(&t)) {
        return Err(error(c.here("temperature"), "must be from 0 to 2"));
    }
    if let Some(template) = template {
        prompt::check_template(template).map_err(|e| error(c.here("prompt"), e))?;
    }
    Ok(Sampling {
        samples,
        temperature,
        template: template.clone(),
    })
}

impl Settings for TrajectoryJudgeSpec {
    type Scorer = LlmJudge;

    fn compile(&self, c: &Context<'_>) -> Result<LlmJudge, SuiteError> {
        let reference = if self.reference.is_empty() {
            None
        } else {
            let messages = messages_from_value(Value::Array(self.reference.clone()))
                .map_err(|err| error(c.here("reference"), err))?;
            steps(&messages).map_err(|err| error(c.here("reference"), err))?;
            Some(messages)
        };
        Ok(LlmJudge {
            task: JudgeTask::Trajectory {
                reference,
                continuous: self.continuous,
                threshold: unit(self.threshold, &c.here("threshold"))?,
            },
            sampling: sampling(self.num_samples, self.temperature, &self.prompt, c)?,
        })
    }
}

impl Scorer for LlmJudge {
    fn score(&self, _: &SessionView<'_>) -> Result<Verdict, String> {
        Err("an LLM-judged evaluator needs a judge: score it with evaluate_judged".into())
    }

    async fn score_judged(
        &self,
        view: &SessionView<'_>,
        judge: &impl Judge,
        usage: &mut JudgeUsage,
    ) -> Result<(Verdict, Judgement), String> {
        let judged = judge_trajectory(&self.task, &self.sampling, &view.messages, judge, usage)
            .await
            .map_err(|e| e.to_string())?;
        let judgement = Judgement {
            reasoning: Some(judged.reasoning),
            ..Judgement::default()
        };
        Ok((judged.verdict, judgement))
    }

    fn sampling(&self) -> Option<(u32, Option<f64>)> {
        Some((self.sampling.samples, self.sampling.temperature))
    }
}
