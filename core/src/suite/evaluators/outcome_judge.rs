//! An LLM judge of the outcome on a 1-5 rubric.

use super::trajectory_judge::{LlmJudge, panel, sampling};
use super::{CompileContext, Settings};
use crate::judge::JudgeTask;
use crate::judge::panel::PanelSpec;
use crate::suite::bounds;
use crate::suite::compile::SuiteError;
use crate::suite::spec::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An LLM judge scoring the outcome on a 1-5 rubric: was the goal met, by
/// a sound and safe path?
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OutcomeJudgeSpec {
    /// The user's goal; the session's first user message when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    /// Tools whose use caps the score at 2, however good the answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forbidden_tools: Vec<String>,
    /// Passing rubric score (default 4).
    #[serde(default = "four_of_five")]
    #[schemars(range(min = bounds::OUTCOME_SCORE.min, max = bounds::OUTCOME_SCORE.max))]
    pub min_score: u8,
    /// Also require the judge's `goal_met` (default true).
    #[serde(default = "default_true")]
    pub require_goal_met: bool,
    /// Answers to ask for; the verdict is their median (default 1).
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

fn four_of_five() -> u8 {
    4
}

impl Settings for OutcomeJudgeSpec {
    type Scorer = LlmJudge;

    fn compile(&self, c: &CompileContext<'_>) -> Result<LlmJudge, SuiteError> {
        bounds::OUTCOME_SCORE.check(self.min_score, c.here("minScore"))?;
        Ok(LlmJudge {
            task: JudgeTask::Outcome {
                goal: self.goal.clone(),
                forbidden: self.forbidden_tools.clone(),
                min_score: self.min_score,
                require_goal_met: self.require_goal_met,
            },
            sampling: sampling(self.num_samples, self.temperature, &self.prompt, c)?,
            panel: panel(&self.panel, c)?,
        })
    }
}
