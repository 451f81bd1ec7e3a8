//! Budgets: steps, tokens, latency and cost.

use super::{CompileContext, Scorer, Settings};
use crate::efficiency::{Measure, Price, measure, no_price, price_of};
use crate::score::Verdict;
use crate::suite::compile::{SuiteError, error};
use crate::suite::evaluate::SessionView;
use crate::suite::rules::{Rule, Ruled, Validation, attach, names};
use crate::suite::spec::Unmeasured;
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
            // Its own: a rule the API server checks sees this object alone.
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

impl PriceSpec {
    pub fn price(&self) -> Price {
        Price {
            model: self.model.clone(),
            prompt_per_million: self.prompt_per_million_tokens,
            completion_per_million: self.completion_per_million_tokens,
        }
    }
}

#[derive(Clone, Debug)]
pub struct BudgetLimits {
    max_steps: Option<u64>,
    max_tokens: Option<u64>,
    max_latency_seconds: Option<f64>,
    max_cost: Option<f64>,
    prices: Vec<Price>,
    per_invocation: bool,
    unmeasured: Unmeasured,
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
            max_steps: self.max_steps,
            max_tokens: self.max_tokens,
            max_latency_seconds: self.max_latency_seconds,
            max_cost: self.max_cost,
            prices: self.prices.iter().map(PriceSpec::price).collect(),
            per_invocation: self.per_invocation,
            unmeasured: c.suite.unmeasured,
        })
    }
}

/// One scope's use against the limits: what was exceeded, and which
/// limits could not be checked and why.
struct Checked {
    over: Vec<String>,
    unmeasured: Vec<String>,
}

impl BudgetLimits {
    fn check(
        &self,
        steps: usize,
        tokens: &Measure<u64>,
        latency: &Measure<f64>,
        cost: &Measure<f64>,
    ) -> Checked {
        let mut checked = Checked {
            over: Vec::new(),
            unmeasured: Vec::new(),
        };
        if let Some(max) = self.max_steps.filter(|m| steps as u64 > *m) {
            checked.over.push(format!("{steps} tool calls > {max}"));
        }
        let mut limit = |name: &str,
                         max: Option<f64>,
                         used: Result<f64, &str>,
                         over: &dyn Fn(f64, f64) -> String| {
            let Some(max) = max else { return };
            match used {
                Ok(value) if value > max => checked.over.push(over(value, max)),
                Ok(_) => {}
                Err(why) => checked.unmeasured.push(format!("{name}: {why}")),
            }
        };
        limit(
            "maxTokens",
            self.max_tokens.map(|m| m as f64),
            tokens.get().map(|t| t as f64),
            &|t, max| format!("{t} tokens > {max}"),
        );
        limit(
            "maxLatencySeconds",
            self.max_latency_seconds,
            latency.get(),
            &|s, max| format!("{s:.1}s > {max}s"),
        );
        limit("maxCost", self.max_cost, cost.get(), &|c, max| {
            format!("cost {c:.4} > {max}")
        });
        checked
    }
}

impl Scorer for BudgetLimits {
    fn score(&self, view: &SessionView<'_>) -> Result<Verdict, String> {
        // A model without a price is the suite's mistake, not something the
        // record lacks: never skipped.
        if self.max_cost.is_some()
            && let Some(unpriced) = view
                .events
                .iter()
                .filter(|e| !e.partial && e.usage.is_some())
                .find(|e| price_of(&self.prices, e.model.as_deref()).is_none())
        {
            return Err(no_price(unpriced.model.as_deref()));
        }
        let used = measure(&view.events, &self.prices);
        let scopes: Vec<(Option<usize>, Checked)> = if self.per_invocation {
            used.invocations
                .iter()
                .zip(&view.invocations)
                .enumerate()
                .map(|(i, (u, inv))| {
                    let checked =
                        self.check(inv.steps, &u.total_tokens, &u.latency_seconds, &u.cost);
                    (Some(i + 1), checked)
                })
                .collect()
        } else {
            let checked = self.check(
                view.calls().len(),
                &used.total_tokens,
                &used.latency_seconds,
                &used.cost,
            );
            vec![(None, checked)]
        };
        let scoped = |invocation: Option<usize>, what: &str| match invocation {
            Some(i) => format!("invocation {i}: {what}"),
            None => what.to_string(),
        };
        let (mut over, mut unmeasured) = (Vec::new(), Vec::new());
        for (invocation, checked) in scopes {
            over.extend(checked.over.iter().map(|o| scoped(invocation, o)));
            unmeasured.extend(checked.unmeasured.iter().map(|u| scoped(invocation, u)));
        }
        // A limit exceeded is a verdict whatever could not be measured; a
        // limit that could not be checked is never a pass.
        if over.is_empty() && !unmeasured.is_empty() && self.unmeasured == Unmeasured::Fail {
            return Err(format!(
                "not evaluated: {} (set unmeasured: skip to leave such limits out)",
                unmeasured.join("; ")
            ));
        }
        let mut verdict = Verdict::boolean("budget", over.is_empty(), Some(over.join("; ")));
        if self.unmeasured == Unmeasured::Skip {
            verdict.skipped = unmeasured;
        }
        Ok(verdict)
    }
}
