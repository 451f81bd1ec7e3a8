//! Budgets: steps, tokens, latency and cost.

use super::{CompileContext, Scorer, Settings};
use crate::score::Verdict;
use crate::score::golden::{self, Budget, Price, consumption, over_budget};
use crate::suite::compile::{SuiteError, error};
use crate::suite::evaluate::SessionView;
use crate::suite::rules::{Rule, Ruled, Validation, attach, names};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = attach::<Self>)]
pub struct BudgetSpec {
    /// Tool calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u64>,
    /// Total tokens from usage metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Seconds from the first to the last event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub max_latency_seconds: Option<f64>,
    /// In the currency of `prices`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub max_cost: Option<f64>,
    /// Per model; an entry without `model` prices every other model.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prices: Vec<PriceSpec>,
    /// Apply the limits to each invocation instead of the whole session.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_invocation: bool,
}

impl Ruled for BudgetSpec {
    fn rules() -> Vec<Validation> {
        vec![
            Validation::new(
                Rule::AnySet {
                    fields: names(&["maxSteps", "maxTokens", "maxLatencySeconds", "maxCost"]),
                },
                "budget needs at least one limit",
            ),
            Validation::new(
                Rule::NonEmptyWhenSet {
                    when: "maxCost".into(),
                    list: "prices".into(),
                },
                "maxCost needs prices",
            )
            .at("prices"),
        ]
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PriceSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub prompt_per_million_tokens: f64,
    pub completion_per_million_tokens: f64,
}

#[derive(Clone, Debug)]
pub struct BudgetLimits {
    budget: Budget,
    prices: Vec<Price>,
    per_invocation: bool,
}

impl Settings for BudgetSpec {
    type Scorer = BudgetLimits;

    fn compile(&self, c: &CompileContext<'_>) -> Result<BudgetLimits, SuiteError> {
        if self.max_steps.is_none()
            && self.max_tokens.is_none()
            && self.max_latency_seconds.is_none()
            && self.max_cost.is_none()
        {
            return Err(error(c.settings(), "budget needs at least one limit"));
        }
        if self.max_cost.is_some() && self.prices.is_empty() {
            return Err(error(c.here("prices"), "maxCost needs prices"));
        }
        for (field, value) in [
            ("maxLatencySeconds", self.max_latency_seconds),
            ("maxCost", self.max_cost),
        ] {
            if value.is_some_and(|v| v.is_nan() || v < 0.0) {
                return Err(error(c.here(field), "must not be negative"));
            }
        }
        Ok(BudgetLimits {
            budget: Budget {
                max_steps: self.max_steps,
                max_tokens: self.max_tokens,
                max_latency_seconds: self.max_latency_seconds,
                max_cost: self.max_cost,
            },
            prices: self
                .prices
                .iter()
                .map(|p| Price {
                    model: p.model.clone(),
                    prompt_per_million: p.prompt_per_million_tokens,
                    completion_per_million: p.completion_per_million_tokens,
                })
                .collect(),
            per_invocation: self.per_invocation,
        })
    }
}

impl Scorer for BudgetLimits {
    fn score(&self, view: &SessionView<'_>) -> Result<Verdict, String> {
        let scopes: Vec<(Option<usize>, golden::Consumption)> = if self.per_invocation {
            view.invocations
                .iter()
                .enumerate()
                .map(|(i, inv)| {
                    (
                        Some(i + 1),
                        consumption(&inv.events, inv.steps, &self.prices),
                    )
                })
                .collect()
        } else {
            vec![(
                None,
                consumption(&view.events, view.calls().len(), &self.prices),
            )]
        };
        let mut over = Vec::new();
        for (invocation, used) in scopes {
            for exceeded in over_budget(&used, &self.budget)? {
                over.push(match invocation {
                    Some(i) => format!("invocation {i}: {exceeded}"),
                    None => exceeded,
                });
            }
        }
        Ok(Verdict::boolean(
            "budget",
            over.is_empty(),
            Some(over.join("; ")),
        ))
    }
}
