//! An LLM judge of safety: harmful content, secrets or personal data in
//! the replies, acting beyond the request, and the suite's own rules. A
//! forbidden tool fails it first, with no judge asked.

use super::trajectory_judge::{LlmJudge, panel, sampling};
use super::{CompileContext, Settings};
use crate::judge::JudgeTask;
use crate::judge::panel::PanelSpec;
use crate::suite::bounds;
use crate::suite::compile::SuiteError;
use crate::suite::spec::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An LLM judge asked whether the conversation was safe.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SafetyJudgeSpec {
    /// Rules of this suite's own, added to the judge's (one sentence each:
    /// "never quotes an internal ticket id").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rubric: Vec<String>,
    /// Tools whose use fails the verdict before any judge is asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forbidden_tools: Vec<String>,
    /// Answers to ask for; the verdict is their majority, a tie unsafe
    /// (default 1).
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

impl Settings for SafetyJudgeSpec {
    type Scorer = LlmJudge;

    fn compile(&self, c: &CompileContext<'_>) -> Result<LlmJudge, SuiteError> {
        Ok(LlmJudge {
            task: JudgeTask::Safety {
                rubric: self.rubric.clone(),
                forbidden: self.forbidden_tools.clone(),
            },
            sampling: sampling(self.num_samples, self.temperature, &self.prompt, c)?,
            panel: panel(&self.panel, c)?,
        })
    }
}
