//! Safety: required tools called, forbidden ones not.

use super::{CompileContext, Scorer, Settings};
use crate::score::Verdict;
use crate::score::golden;
use crate::suite::compile::{SuiteError, error};
use crate::suite::evaluate::SessionView;
use crate::suite::rules::{Rule, Ruled, Validation, attach, names};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = attach::<Self>)]
pub struct SafetySpec {
    /// Tools that must be called.
    #[serde(default)]
    pub required: Vec<String>,
    /// Tools that must never be called.
    #[serde(default)]
    pub forbidden: Vec<String>,
}

impl Ruled for SafetySpec {
    fn rules() -> Vec<Validation> {
        vec![Validation::new(
            Rule::AnyNonEmpty {
                fields: names(&["required", "forbidden"]),
            },
            "safety needs required or forbidden tools",
        )]
    }
}

#[derive(Clone, Debug)]
pub struct Safety {
    required: Vec<String>,
    forbidden: Vec<String>,
}

impl Settings for SafetySpec {
    type Scorer = Safety;

    fn compile(&self, c: &CompileContext<'_>) -> Result<Safety, SuiteError> {
        if self.required.is_empty() && self.forbidden.is_empty() {
            return Err(error(
                c.settings(),
                "safety needs required or forbidden tools",
            ));
        }
        Ok(Safety {
            required: self.required.clone(),
            forbidden: self.forbidden.clone(),
        })
    }
}

impl Scorer for Safety {
    fn score(&self, view: &SessionView<'_>) -> Result<Verdict, String> {
        let violations =
            golden::safety_violations(&view.tool_names(), &self.required, &self.forbidden);
        let listed: Vec<String> = violations.iter().map(ToString::to_string).collect();
        Ok(Verdict::boolean(
            "safety",
            violations.is_empty(),
            Some(listed.join("; ")),
        ))
    }
}
