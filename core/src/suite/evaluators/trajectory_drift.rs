//! The golden case's drift: difflib's similarity of the tool sequences.

use super::{CompileContext, Scorer, Settings};
use crate::score::Verdict;
use crate::score::golden;
use crate::suite::bounds;
use crate::suite::compile::{SuiteError, unit};
use crate::suite::evaluate::SessionView;
use crate::suite::spec::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TrajectoryDriftSpec {
    /// The expected sequence of tool names.
    pub reference: Vec<String>,
    /// Passing similarity (difflib ratio, default 0.8).
    #[serde(default = "eight_tenths")]
    #[schemars(range(min = bounds::UNIT.min, max = bounds::UNIT.max))]
    pub threshold: f64,
}

#[derive(Clone, Debug)]
pub struct TrajectoryDrift {
    reference: Vec<String>,
    threshold: f64,
}

impl Settings for TrajectoryDriftSpec {
    type Scorer = TrajectoryDrift;

    fn compile(&self, c: &CompileContext<'_>) -> Result<TrajectoryDrift, SuiteError> {
        Ok(TrajectoryDrift {
            reference: self.reference.clone(),
            threshold: unit(self.threshold, &c.here("threshold"))?,
        })
    }
}

impl Scorer for TrajectoryDrift {
    fn score(&self, view: &SessionView<'_>) -> Result<Verdict, String> {
        let reference: Vec<&str> = self.reference.iter().map(String::as_str).collect();
        let ratio = golden::drift(&view.tool_names(), &reference);
        Ok(Verdict::threshold(
            "trajectory_drift",
            ratio,
            self.threshold,
            Some(format!(
                "tool sequence similarity {ratio:.3} is below {}",
                self.threshold
            )),
        ))
    }
}
