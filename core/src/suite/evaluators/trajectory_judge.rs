//! An LLM judge of the trajectory (agentevals' trajectory accuracy).

use super::{CompileContext, Scorer, Settings};
use crate::judge::panel::{Member, PanelSpec};
use crate::judge::{Judge, JudgeTask, JudgeUsage, Sampling, judge_trajectory, prompt};
use crate::score::Verdict;
use crate::suite::bounds;
use crate::suite::compile::{SuiteError, error, unit};
use crate::suite::evaluate::{Judgement, SessionView};
use crate::suite::spec::*;
use crate::trajectory::{messages_from_value, steps};
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
    #[schemars(range(min = bounds::UNIT.min, max = bounds::UNIT.max))]
    pub threshold: f64,
    /// Answers to ask for; the verdict is their majority (default 1).
    #[serde(default = "one_sample")]
    #[schemars(range(min = bounds::SAMPLES.min, max = bounds::SAMPLES.max))]
    pub num_samples: u32,
    /// Sampling temperature; the endpoint's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = bounds::TEMPERATURE.min, max = bounds::TEMPERATURE.max))]
    pub temperature: Option<f64>,
    /// A prompt template in place of the built-in one; see docs/judges.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Ask several models of the judge endpoint and combine their verdicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panel: Option<PanelSpec>,
}

/// An LLM judge's task and how it is sampled: the trajectory, outcome and
/// safety judges'.
#[derive(Clone, Debug)]
pub struct LlmJudge {
    pub(super) task: JudgeTask,
    pub(super) sampling: Sampling,
    pub(super) panel: Option<PanelSpec>,
}

/// A panel, checked.
pub(super) fn panel(
    panel: &Option<PanelSpec>,
    c: &CompileContext<'_>,
) -> Result<Option<PanelSpec>, SuiteError> {
    if let Some(spec) = panel {
        spec.check()
            .map_err(|(field, message)| error(format!("{}.{field}", c.here("panel")), message))?;
    }
    Ok(panel.clone())
}

/// Samples, temperature and prompt template, checked.
pub(super) fn sampling(
    samples: u32,
    temperature: Option<f64>,
    template: &Option<String>,
    c: &CompileContext<'_>,
) -> Result<Sampling, SuiteError> {
    bounds::SAMPLES.check(samples, c.here("numSamples"))?;
    if let Some(temperature) = temperature {
        bounds::TEMPERATURE.check(temperature, c.here("temperature"))?;
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

    fn compile(&self, c: &CompileContext<'_>) -> Result<LlmJudge, SuiteError> {
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
            panel: panel(&self.panel, c)?,
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
        if let Some(verdict) = self.task.settled(&view.messages) {
            return Ok((verdict, Judgement::default()));
        }
        let Some(panel) = &self.panel else {
            let judged = judge_trajectory(&self.task, &self.sampling, &view.messages, judge, usage)
                .await
                .map_err(|e| e.to_string())?;
            let judgement = Judgement {
                reasoning: Some(judged.reasoning),
                ..Judgement::default()
            };
            return Ok((judged.verdict, judgement));
        };
        let mut votes = Vec::with_capacity(panel.models.len());
        for model in &panel.models {
            let member = Member { judge, model };
            let judged =
                judge_trajectory(&self.task, &self.sampling, &view.messages, &member, usage).await;
            votes.push((model.clone(), judged));
        }
        let (verdict, members) = panel.combine(votes, self.task.pass_threshold())?;
        let judgement = Judgement {
            panel: members,
            ..Judgement::default()
        };
        Ok((verdict, judgement))
    }

    fn sampling(&self) -> Option<(u32, Option<f64>)> {
        Some((self.sampling.samples, self.sampling.temperature))
    }

    fn pass_threshold(&self) -> Option<f64> {
        self.task.pass_threshold()
    }
}
