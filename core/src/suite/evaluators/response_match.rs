//! ADK's `response_match_score`: ROUGE-1 of the final responses.

use super::{CompileContext, Scorer, Settings};
use crate::score::adk::average;
use crate::score::{Verdict, rouge};
use crate::suite::bounds;
use crate::suite::compile::{SuiteError, error, unit};
use crate::suite::evaluate::SessionView;
use crate::suite::rules::{Rule, Ruled, Validation, attach, pair};
use crate::suite::spec::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = attach::<Self>)]
pub struct ResponseMatchSpec {
    /// The expected final response of the last invocation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The expected final response of each invocation, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocations: Option<Vec<ExpectedResponse>>,
    /// Passing ROUGE-1 F-measure (default 0.8, as ADK).
    #[serde(default = "eight_tenths")]
    #[schemars(range(min = bounds::UNIT.min, max = bounds::UNIT.max))]
    pub threshold: f64,
}

impl Ruled for ResponseMatchSpec {
    fn rules() -> Vec<Validation> {
        vec![Validation::new(
            Rule::ExactlyOneOf {
                fields: pair("reference", "invocations"),
            },
            "responseMatch needs exactly one of reference or invocations",
        )]
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExpectedResponse {
    pub final_response: String,
}

/// What the final responses are compared with.
#[derive(Clone, Debug, PartialEq)]
pub enum ResponseReference {
    /// The last invocation's response only.
    Last(String),
    /// Each invocation's, in order.
    PerInvocation(Vec<String>),
}

#[derive(Clone, Debug)]
pub struct ResponseMatch {
    reference: ResponseReference,
    threshold: f64,
}

impl Settings for ResponseMatchSpec {
    type Scorer = ResponseMatch;

    fn compile(&self, c: &CompileContext<'_>) -> Result<ResponseMatch, SuiteError> {
        let reference = match (&self.reference, &self.invocations) {
            (Some(text), None) => ResponseReference::Last(text.clone()),
            (None, Some(each)) => ResponseReference::PerInvocation(
                each.iter().map(|r| r.final_response.clone()).collect(),
            ),
            _ => {
                return Err(error(
                    c.settings(),
                    "responseMatch needs exactly one of reference or invocations",
                ));
            }
        };
        Ok(ResponseMatch {
            reference,
            threshold: unit(self.threshold, &c.here("threshold"))?,
        })
    }
}

impl Scorer for ResponseMatch {
    fn score(&self, view: &SessionView<'_>) -> Result<Verdict, String> {
        const KEY: &str = "response_match_score";
        let threshold = self.threshold;
        let pairs: Vec<(&str, &str)> = match &self.reference {
            ResponseReference::Last(text) => match view.invocations.last() {
                Some(last) => vec![(last.final_response.as_str(), text.as_str())],
                None => {
                    return Ok(Verdict::threshold(
                        KEY,
                        0.0,
                        threshold,
                        Some("the session has no invocation".into()),
                    ));
                }
            },
            ResponseReference::PerInvocation(texts) => {
                if texts.len() != view.invocations.len() {
                    return Ok(Verdict::threshold(
                        KEY,
                        0.0,
                        threshold,
                        Some(format!(
                            "{} invocation(s) in the session, {} expected",
                            view.invocations.len(),
                            texts.len()
                        )),
                    ));
                }
                view.invocations
                    .iter()
                    .map(|i| i.final_response.as_str())
                    .zip(texts.iter().map(String::as_str))
                    .collect()
            }
        };
        let score = average(
            pairs
                .iter()
                .map(|(c, r)| rouge::rouge1(c, r).fmeasure)
                .collect(),
        );
        Ok(Verdict::threshold(
            KEY,
            score.overall,
            threshold,
            Some(format!(
                "ROUGE-1 F-measure {:.3} is below {threshold}",
                score.overall
            )),
        ))
    }

    fn expected_invocations(&self) -> Option<usize> {
        match &self.reference {
            ResponseReference::PerInvocation(texts) => Some(texts.len()),
            ResponseReference::Last(_) => None,
        }
    }
}
