//! ADK's `tool_trajectory_avg_score`: each invocation's calls against the expected ones.

use super::{CompileContext, Scorer, Settings};
use crate::score::adk::{AdkMatchType, Comparison, ToolUse, tool_trajectory};
use crate::score::{ConfigError, Verdict};
use crate::suite::bounds;
use crate::suite::compile::{SuiteError, error, unit};
use crate::suite::evaluate::SessionView;
use crate::suite::report::ReferenceCall;
use crate::suite::spec::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Expected tool calls of one invocation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExpectedInvocation {
    #[serde(default)]
    pub tool_uses: Vec<crate::score::adk::ToolUse>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolTrajectorySpec {
    /// One entry per invocation (user turn) of the session, in order.
    #[schemars(length(min = 1))]
    pub invocations: Vec<ExpectedInvocation>,
    /// EXACT (default), IN_ORDER or ANY_ORDER; ADK's spellings and 0, 1, 2 are accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "int_or_string")]
    pub match_type: Option<Value>,
    /// Compare tool names only, not arguments (ADK's `ignore_args`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_args: bool,
    /// Passing mean score (default 1.0, as ADK).
    #[serde(default = "one")]
    #[schemars(range(min = bounds::UNIT.min, max = bounds::UNIT.max))]
    pub threshold: f64,
}

#[derive(Clone, Debug)]
pub struct ToolTrajectory {
    expected: Vec<Vec<ToolUse>>,
    comparison: Comparison,
    threshold: f64,
}

impl Settings for ToolTrajectorySpec {
    type Scorer = ToolTrajectory;

    fn compile(&self, c: &CompileContext<'_>) -> Result<ToolTrajectory, SuiteError> {
        let match_type = match &self.match_type {
            None => AdkMatchType::Exact,
            Some(v) => {
                AdkMatchType::parse(v).map_err(|ConfigError(m)| error(c.here("matchType"), m))?
            }
        };
        Ok(ToolTrajectory {
            expected: self
                .invocations
                .iter()
                .map(|i| i.tool_uses.clone())
                .collect(),
            comparison: Comparison {
                match_type,
                ignore_args: self.ignore_args,
            },
            threshold: unit(self.threshold, &c.here("threshold"))?,
        })
    }
}

impl Scorer for ToolTrajectory {
    fn score(&self, view: &SessionView<'_>) -> Result<Verdict, String> {
        if self.expected.is_empty() && view.invocations.is_empty() {
            // ADK scores nothing here and reports the metric not evaluated.
            return Err("no invocation to score (ADK reports this as not evaluated)".into());
        }
        let actual: Vec<Vec<ToolUse>> = view
            .invocations
            .iter()
            .map(|i| i.tool_uses.clone())
            .collect();
        Ok(
            match tool_trajectory(&actual, &self.expected, self.comparison) {
                Err(mismatch) => Verdict::threshold(
                    "tool_trajectory_avg_score",
                    0.0,
                    self.threshold,
                    Some(mismatch),
                ),
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
                        self.threshold,
                        Some(format!(
                            "invocation(s) {} do not match ({}{})",
                            failed.join(", "),
                            self.comparison.match_type,
                            if self.comparison.ignore_args {
                                ", names only"
                            } else {
                                ""
                            }
                        )),
                    )
                }
            },
        )
    }

    fn reference_calls(&self) -> Option<Vec<ReferenceCall>> {
        Some(
            self.expected
                .iter()
                .flatten()
                .map(|u| ReferenceCall {
                    name: u.name.clone().unwrap_or_default(),
                    args: if self.comparison.ignore_args {
                        Value::Null
                    } else {
                        u.args.clone()
                    },
                })
                .collect(),
        )
    }

    fn expected_invocations(&self) -> Option<usize> {
        Some(self.expected.len())
    }
}
