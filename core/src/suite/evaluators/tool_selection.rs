//! The golden case's tool selection: precision, recall or F1 of the tool names.

use super::{CompileContext, Scorer, Settings};
use crate::score::Verdict;
use crate::score::golden;
use crate::suite::bounds;
use crate::suite::compile::{SuiteError, non_empty, unit};
use crate::suite::evaluate::SessionView;
use crate::suite::spec::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum SelectionMetric {
    Precision,
    Recall,
    #[default]
    F1,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolSelectionSpec {
    /// The tools the agent should use.
    #[schemars(length(min = 1))]
    pub expected: Vec<String>,
    /// f1 (default), precision or recall.
    #[serde(default)]
    pub metric: SelectionMetric,
    #[serde(default = "one")]
    #[schemars(range(min = bounds::UNIT.min, max = bounds::UNIT.max))]
    pub threshold: f64,
}

#[derive(Clone, Debug)]
pub struct ToolSelection {
    expected: Vec<String>,
    metric: SelectionMetric,
    threshold: f64,
}

impl Settings for ToolSelectionSpec {
    type Scorer = ToolSelection;

    fn compile(&self, c: &CompileContext<'_>) -> Result<ToolSelection, SuiteError> {
        non_empty(&self.expected, &c.here("expected"))?;
        Ok(ToolSelection {
            expected: self.expected.clone(),
            metric: self.metric,
            threshold: unit(self.threshold, &c.here("threshold"))?,
        })
    }
}

impl Scorer for ToolSelection {
    fn score(&self, view: &SessionView<'_>) -> Result<Verdict, String> {
        let used = view.tool_names();
        let wanted: Vec<&str> = self.expected.iter().map(String::as_str).collect();
        let s = golden::tool_selection(&used, &wanted);
        let (key, score) = match self.metric {
            SelectionMetric::Precision => ("tool_selection_precision", s.precision),
            SelectionMetric::Recall => ("tool_selection_recall", s.recall),
            SelectionMetric::F1 => ("tool_selection_f1", s.f1),
        };
        let missing: Vec<&str> = wanted
            .iter()
            .filter(|w| !used.contains(w))
            .copied()
            .collect();
        let mut extra: Vec<&str> = used
            .iter()
            .filter(|u| !wanted.contains(u))
            .copied()
            .collect();
        extra.dedup();
        Ok(Verdict::threshold(
            key,
            score,
            self.threshold,
            Some(describe_sets(&missing, &extra)),
        ))
    }
}

fn describe_sets(missing: &[&str], extra: &[&str]) -> String {
    let list = |names: &[&str]| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (missing.is_empty(), extra.is_empty()) {
        (false, false) => format!(
            "not called: {}; not expected: {}",
            list(missing),
            list(extra)
        ),
        (false, true) => format!("not called: {}", list(missing)),
        (true, false) => format!("not expected: {}", list(extra)),
        (true, true) => "no tools called".into(),
    }
}
