//! The golden case's argument correctness: the keys of expected calls.

use super::{CompileContext, Scorer, Settings};
use crate::score::Verdict;
use crate::score::golden::{self, ExpectedCall};
use crate::suite::bounds;
use crate::suite::compile::{SuiteError, non_empty, unit};
use crate::suite::evaluate::SessionView;
use crate::suite::spec::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExpectedCallSpec {
    pub name: String,
    #[serde(default)]
    #[schemars(schema_with = "any_object")]
    pub args: serde_json::Map<String, Value>,
    /// The load-bearing keys (dotted paths); all keys of `args` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<String>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArgumentCorrectnessSpec {
    #[schemars(length(min = 1))]
    pub calls: Vec<ExpectedCallSpec>,
    #[serde(default = "one")]
    #[schemars(range(min = bounds::UNIT.min, max = bounds::UNIT.max))]
    pub threshold: f64,
}

#[derive(Clone, Debug)]
pub struct ArgumentCorrectness {
    calls: Vec<ExpectedCall>,
    threshold: f64,
}

impl Settings for ArgumentCorrectnessSpec {
    type Scorer = ArgumentCorrectness;

    fn compile(&self, c: &CompileContext<'_>) -> Result<ArgumentCorrectness, SuiteError> {
        non_empty(&self.calls, &c.here("calls"))?;
        Ok(ArgumentCorrectness {
            calls: self
                .calls
                .iter()
                .map(|call| ExpectedCall {
                    name: call.name.clone(),
                    args: call.args.clone().into(),
                    keys: call.keys.clone(),
                })
                .collect(),
            threshold: unit(self.threshold, &c.here("threshold"))?,
        })
    }
}

impl Scorer for ArgumentCorrectness {
    fn score(&self, view: &SessionView<'_>) -> Result<Verdict, String> {
        let c = golden::argument_correctness(&view.calls(), &self.calls);
        Ok(Verdict::threshold(
            "argument_correctness",
            c.score,
            self.threshold,
            c.first_wrong,
        ))
    }
}
