//! agentevals' trajectory match against a reference trajectory.

use super::{CompileContext, Scorer, Settings};
use crate::score::Verdict;
use crate::score::args::{ArgsConfig, ArgsMode, Override};
use crate::score::trajectory_match::{
    MatchConfig, MatchMode, Matching, check_size, trajectory_match,
};
use crate::suite::compile::{SuiteError, error};
use crate::suite::evaluate::SessionView;
use crate::suite::report::ReferenceCall;
use crate::suite::rules::{Rule, Ruled, Validation, attach, pair};
use crate::suite::spec::*;
use crate::trajectory::{Step, messages_from_value, steps};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TrajectoryMatchSpec {
    /// The reference trajectory: OpenAI-format messages.
    #[schemars(schema_with = "messages")]
    pub reference: Vec<Value>,
    /// strict (default), unordered, subset, superset or inOrder.
    #[serde(default)]
    pub mode: MatchMode,
    /// Defaults to the suite's `defaults.argsMode`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args_mode: Option<ArgsMode>,
    /// Per-tool argument matching.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<ArgsOverride>,
    #[serde(default, skip_serializing_if = "is_greedy")]
    pub matching: Matching,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = attach::<Self>)]
pub struct ArgsOverride {
    pub tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ArgsMode>,
    /// Dotted key paths that must agree; others are not compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<String>>,
}

impl Ruled for ArgsOverride {
    fn rules() -> Vec<Validation> {
        vec![Validation::new(
            Rule::ExactlyOneOf {
                fields: pair("mode", "keys"),
            },
            "an override sets exactly one of mode or keys",
        )]
    }
}

#[derive(Clone, Debug)]
pub struct TrajectoryMatch {
    reference: Vec<Step>,
    config: MatchConfig,
}

impl Settings for TrajectoryMatchSpec {
    type Scorer = TrajectoryMatch;

    fn compile(&self, c: &CompileContext<'_>) -> Result<TrajectoryMatch, SuiteError> {
        let messages = messages_from_value(Value::Array(self.reference.clone()))
            .map_err(|err| error(c.here("reference"), err))?;
        let reference = steps(&messages).map_err(|err| {
            let at = match err.message() {
                Some(n) => format!("{}[{}]", c.here("reference"), n - 1),
                None => c.here("reference"),
            };
            error(at, err)
        })?;
        let mut args = ArgsConfig {
            default: self.args_mode.unwrap_or(c.suite.defaults.args_mode),
            overrides: Default::default(),
        };
        for (k, o) in self.overrides.iter().enumerate() {
            let parsed = match (o.mode, &o.keys) {
                (Some(mode), None) => Override::Mode(mode),
                (None, Some(keys)) => Override::Keys(keys.clone()),
                _ => {
                    return Err(error(
                        format!("{}[{k}]", c.here("overrides")),
                        "an override sets exactly one of mode or keys",
                    ));
                }
            };
            args.overrides.insert(o.tool.clone(), parsed);
        }
        Ok(TrajectoryMatch {
            reference,
            config: MatchConfig {
                mode: self.mode,
                args,
                matching: self.matching,
            },
        })
    }
}

impl Scorer for TrajectoryMatch {
    fn score(&self, view: &SessionView<'_>) -> Result<Verdict, String> {
        check_size(&view.steps, &self.reference, self.config.matching)?;
        Ok(trajectory_match(&view.steps, &self.reference, &self.config))
    }

    fn reference_calls(&self) -> Option<Vec<ReferenceCall>> {
        Some(
            self.reference
                .iter()
                .flat_map(|s| s.calls.iter().flatten())
                .map(|c| ReferenceCall {
                    name: c.name.clone(),
                    args: c.args.to_object(),
                })
                .collect(),
        )
    }
}
