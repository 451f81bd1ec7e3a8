//! An LLM judge of a whole multi-turn conversation, on one question scored
//! 0 to 1: the open counterparts of Vertex AI's multi-turn metrics, under
//! ADK's names, with this project's own questions (not Vertex's numbers).

use super::trajectory_judge::{LlmJudge, panel, sampling};
use super::{CompileContext, Settings};
use crate::judge::panel::PanelSpec;
use crate::judge::{ConversationMetric, JudgeTask};
use crate::suite::bounds;
use crate::suite::compile::{SuiteError, unit};
use crate::suite::spec::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An LLM judge asked one question of the whole conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConversationJudgeSpec {
    /// taskSuccess (`multi_turn_task_success_v1`), trajectoryQuality
    /// (`multi_turn_trajectory_quality_v1`) or toolUseQuality
    /// (`multi_turn_tool_use_quality_v1`).
    pub metric: ConversationMetric,
    /// Passing score (default 0.8).
    #[serde(default = "eight_tenths")]
    #[schemars(range(min = bounds::UNIT.min, max = bounds::UNIT.max))]
    pub threshold: f64,
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

impl Settings for ConversationJudgeSpec {
    type Scorer = LlmJudge;

    fn compile(&self, c: &CompileContext<'_>) -> Result<LlmJudge, SuiteError> {
        Ok(LlmJudge {
            task: JudgeTask::Conversation {
                metric: self.metric,
                threshold: unit(self.threshold, &c.here("threshold"))?,
            },
            sampling: sampling(self.num_samples, self.temperature, &self.prompt, c)?,
            panel: panel(&self.panel, c)?,
        })
    }
}
