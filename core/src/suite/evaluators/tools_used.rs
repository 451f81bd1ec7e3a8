//! Which tools were called, by name: agentevals' superset/subset/unordered match on names.

use super::{CompileContext, Scorer, Settings};
use crate::score::Verdict;
use crate::score::trajectory_match::{MAX_CALL_PAIRS, MatchMode, Matching, tools_used};
use crate::suite::compile::{SuiteError, error, non_empty};
use crate::suite::evaluate::SessionView;
use crate::suite::report::ReferenceCall;
use crate::suite::rules::{Rule, Ruled, Validation, attach};
use crate::suite::spec::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = attach::<Self>)]
pub struct ToolsUsedSpec {
    /// Tool names; arguments are ignored.
    #[schemars(length(min = 1))]
    pub expected: Vec<String>,
    /// superset (default: every expected tool was called), subset (no other tool was), unordered, or inOrder.
    #[serde(default = "superset")]
    pub mode: MatchMode,
    #[serde(default, skip_serializing_if = "is_greedy")]
    pub matching: Matching,
}

impl Ruled for ToolsUsedSpec {
    fn rules() -> Vec<Validation> {
        vec![
            Validation::new(
                Rule::NotEqual {
                    field: "mode".into(),
                    value: "strict".into(),
                },
                "toolsUsed cannot be strict: a list of tool names has no messages",
            )
            .at("mode"),
        ]
    }
}

fn superset() -> MatchMode {
    MatchMode::Superset
}

#[derive(Clone, Debug)]
pub struct ToolsUsed {
    expected: Vec<String>,
    mode: MatchMode,
    matching: Matching,
}

impl Settings for ToolsUsedSpec {
    type Scorer = ToolsUsed;

    fn compile(&self, c: &CompileContext<'_>) -> Result<ToolsUsed, SuiteError> {
        if self.mode == MatchMode::Strict {
            return Err(error(
                c.here("mode"),
                "toolsUsed cannot be strict: a list of tool names has no messages",
            ));
        }
        non_empty(&self.expected, &c.here("expected"))?;
        Ok(ToolsUsed {
            expected: self.expected.clone(),
            mode: self.mode,
            matching: self.matching,
        })
    }
}

impl Scorer for ToolsUsed {
    fn score(&self, view: &SessionView<'_>) -> Result<Verdict, String> {
        let calls = view.calls().len();
        if calls.saturating_mul(self.expected.len()) > MAX_CALL_PAIRS {
            return Err(format!(
                "{calls} tool calls against {} expected tools: a comparison weighs at most {MAX_CALL_PAIRS} pairs",
                self.expected.len()
            ));
        }
        tools_used(&view.steps, &self.expected, self.mode, self.matching).map_err(|e| e.0)
    }

    fn reference_calls(&self) -> Option<Vec<ReferenceCall>> {
        Some(
            self.expected
                .iter()
                .map(|name| ReferenceCall {
                    name: name.clone(),
                    args: serde_json::Value::Null,
                })
                .collect(),
        )
    }
}
