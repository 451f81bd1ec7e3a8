//! What a session cost: tokens, model and tool calls, latency and price,
//! per session and per invocation (one user turn). Every value is either
//! measured or explicitly unmeasured with the reason, never a zero that
//! stands for "the record did not say": a budget or a gate on a value
//! nothing measured must not pass.
//!
//! Where the numbers come from: usage metadata on the agent's final
//! (non-partial) events, and event timestamps; A2A task records carry the
//! usage the runtime stamped and their status times, read into the same
//! events. Cost is tokens times the suite's prices.

use crate::convert::{HEADER_UPDATE_INVOCATION, split_by_invocation};
use crate::event::{Content, Event, Part};
use serde::{Deserialize, Serialize};

/// A value measured, or why it was not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Measure<T> {
    Measured(T),
    Unmeasured { unmeasured: String },
}

impl<T: Copy> Measure<T> {
    pub fn unmeasured(why: impl Into<String>) -> Self {
        Measure::Unmeasured {
            unmeasured: why.into(),
        }
    }

    pub fn value(&self) -> Option<T> {
        match self {
            Measure::Measured(v) => Some(*v),
            Measure::Unmeasured { .. } => None,
        }
    }

    /// The value, or why there is none.
    pub fn get(&self) -> Result<T, &str> {
        match self {
            Measure::Measured(v) => Ok(*v),
            Measure::Unmeasured { unmeasured } => Err(unmeasured),
        }
    }
}

/// Prices per million tokens for one model, or for any model when `model`
/// is `None`.
#[derive(Clone, Debug, PartialEq)]
pub struct Price {
    pub model: Option<String>,
    pub prompt_per_million: f64,
    pub completion_per_million: f64,
}

/// What one invocation (a user turn, to the agent's last answer) used.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvocationEfficiency {
    pub invocation_id: String,
    pub total_tokens: Measure<u64>,
    pub model_calls: u64,
    pub tool_calls: u64,
    pub latency_seconds: Measure<f64>,
    pub cost: Measure<f64>,
}

/// What a session used.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Efficiency {
    pub prompt_tokens: Measure<u64>,
    pub completion_tokens: Measure<u64>,
    pub total_tokens: Measure<u64>,
    /// The agent's recorded model responses.
    pub model_calls: u64,
    /// Tool calls, the runtime's own `adk_*` tools left out.
    pub tool_calls: u64,
    /// From the session's first event to its last.
    pub latency_seconds: Measure<f64>,
    pub cost: Measure<f64>,
    /// The prober's own clock around each A2A call of a probe run: a
    /// witness that does not depend on what the agent recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_latency_seconds: Option<f64>,
    pub invocations: Vec<InvocationEfficiency>,
}

/// What the record holds without usage, in the words reports use.
pub const NO_USAGE: &str = "the record holds no usage metadata";
/// What a record without prices cannot say.
pub const NO_PRICES: &str = "the suite sets no prices";

/// Measure `events` (a session, or part of one), pricing with `prices`.
pub fn measure(events: &[&Event], prices: &[Price]) -> Efficiency {
    let invocations: Vec<(String, Tally)> = split_by_invocation(events.iter().copied())
        .into_iter()
        .filter(|(id, _)| id != HEADER_UPDATE_INVOCATION)
        .map(|(id, group)| (id, Tally::of(&group, prices)))
        .collect();
    let numbered = invocations.len() > 1;
    let sum_u64 = |get: fn(&Tally) -> &Measure<u64>| {
        sum(
            invocations.iter().map(|(_, t)| get(t)),
            numbered,
            |a, b| a.saturating_add(b),
            0,
        )
    };
    let prompt_tokens = sum_u64(|t| &t.prompt);
    let completion_tokens = sum_u64(|t| &t.completion);
    let total_tokens = sum_u64(|t| &t.total);
    let cost = sum(
        invocations.iter().map(|(_, t)| &t.cost),
        numbered,
        |a, b| a + b,
        0.0,
    );
    Efficiency {
        prompt_tokens,
        completion_tokens,
        total_tokens,
        model_calls: invocations.iter().map(|(_, t)| t.model_calls).sum(),
        tool_calls: invocations.iter().map(|(_, t)| t.tool_calls).sum(),
        latency_seconds: span(events),
        cost,
        probe_latency_seconds: None,
        invocations: invocations
            .into_iter()
            .map(|(invocation_id, t)| InvocationEfficiency {
                latency_seconds: t.latency,
                total_tokens: t.total,
                model_calls: t.model_calls,
                tool_calls: t.tool_calls,
                cost: t.cost,
                invocation_id,
            })
            .collect(),
    }
}

/// One invocation's numbers.
struct Tally {
    prompt: Measure<u64>,
    completion: Measure<u64>,
    total: Measure<u64>,
    model_calls: u64,
    tool_calls: u64,
    latency: Measure<f64>,
    cost: Measure<f64>,
}

impl Tally {
    fn of(group: &[&Event], prices: &[Price]) -> Tally {
        let finals = || group.iter().copied().filter(|e| !e.partial);
        let model_calls = finals().filter(|e| is_model_response(e)).count() as u64;
        let tool_calls = finals()
            .flat_map(parts)
            .filter(|p| matches!(p, Part::FunctionCall { name, .. } if !name.starts_with("adk_")))
            .count() as u64;
        let usages: Vec<&Event> = finals().filter(|e| e.usage.is_some()).collect();
        let problem = finals().find_map(|e| e.usage_problem.as_deref());
        let tokens = |count: fn(&Event) -> Option<u64>, missing: &str| -> Measure<u64> {
            if let Some(problem) = problem {
                return Measure::unmeasured(format!("unreadable usage metadata ({problem})"));
            }
            if usages.is_empty() {
                return match model_calls {
                    0 => Measure::Measured(0),
                    _ => Measure::unmeasured(NO_USAGE),
                };
            }
            usages
                .iter()
                .try_fold(0u64, |sum, e| count(e).map(|n| sum.saturating_add(n)))
                .map_or_else(|| Measure::unmeasured(missing), Measure::Measured)
        };
        let prompt = tokens(
            |e| e.usage.as_ref()?.prompt_tokens,
            "the usage metadata holds no prompt token counts",
        );
        let completion = tokens(
            |e| e.usage.as_ref()?.completion_tokens,
            "the usage metadata holds no completion token counts",
        );
        let total = tokens(|e| e.usage.as_ref().map(|u| u.total()), NO_USAGE);
        let cost = match (&prompt, &completion) {
            _ if prices.is_empty() => Measure::unmeasured(NO_PRICES),
            (Measure::Measured(_), Measure::Measured(_)) => price(&usages, prices),
            (Measure::Unmeasured { unmeasured }, _) | (_, Measure::Unmeasured { unmeasured }) => {
                Measure::unmeasured(unmeasured.clone())
            }
        };
        Tally {
            prompt,
            completion,
            total,
            model_calls,
            tool_calls,
            latency: span(group),
            cost,
        }
    }
}

/// The cost of every usage record, each priced by its model.
fn price(usages: &[&Event], prices: &[Price]) -> Measure<f64> {
    let mut cost = 0.0;
    for event in usages {
        let Some(usage) = &event.usage else { continue };
        let Some(p) = price_of(prices, event.model.as_deref()) else {
            return Measure::unmeasured(no_price(event.model.as_deref()));
        };
        cost += usage.prompt_tokens.unwrap_or(0) as f64 * p.prompt_per_million / 1e6
            + usage.completion_tokens.unwrap_or(0) as f64 * p.completion_per_million / 1e6;
    }
    if cost.is_finite() {
        Measure::Measured(cost)
    } else {
        Measure::unmeasured("the cost is beyond a float's range")
    }
}

/// The price of `model`: its own, else the one for every model.
pub fn price_of<'p>(prices: &'p [Price], model: Option<&str>) -> Option<&'p Price> {
    prices
        .iter()
        .find(|p| p.model.is_some() && p.model.as_deref() == model)
        .or_else(|| prices.iter().find(|p| p.model.is_none()))
}

/// Why a model's tokens have no cost.
pub fn no_price(model: Option<&str>) -> String {
    format!(
        "no price for model `{}` among the prices",
        model.unwrap_or("(unnamed model)")
    )
}

/// Seconds from the first event to the last, which both need a time.
fn span(events: &[&Event]) -> Measure<f64> {
    if let Some(problem) = events.iter().find_map(|e| e.time_problem.as_deref()) {
        return Measure::unmeasured(format!("an unreadable timestamp ({problem})"));
    }
    let (Some(first), Some(last)) = (events.first(), events.last()) else {
        return Measure::unmeasured("no events");
    };
    let (Some(start), Some(end)) = (first.timestamp, last.timestamp) else {
        return Measure::unmeasured("the record holds no timestamps");
    };
    // The span of every time recorded: rows are in the order they were
    // written, and a streamed event may be stamped before the one it ends.
    let times = events.iter().filter_map(|e| e.timestamp);
    let (earliest, latest) = times.fold((start.min(end), start.max(end)), |(lo, hi), t| {
        (lo.min(t), hi.max(t))
    });
    Measure::Measured(latest.duration_since(earliest).as_secs_f64())
}

fn parts(event: &Event) -> &[Part] {
    match &event.content {
        Content::Parts { parts, .. } => parts,
        _ => &[],
    }
}

/// An answer of the model: the agent's, with text or a tool call (a tool's
/// result is not one).
fn is_model_response(event: &Event) -> bool {
    event.author.as_deref() != Some("user")
        && parts(event)
            .iter()
            .any(|p| matches!(p, Part::FunctionCall { .. } | Part::Text { .. }))
}

/// The sum of per-invocation measures, or the first reason one was not
/// measured (naming its invocation when there are several).
fn sum<'m, T: Copy + 'm>(
    measures: impl Iterator<Item = &'m Measure<T>>,
    numbered: bool,
    add: fn(T, T) -> T,
    zero: T,
) -> Measure<T> {
    let mut total = zero;
    for (i, measure) in measures.enumerate() {
        match measure {
            Measure::Measured(v) => total = add(total, *v),
            Measure::Unmeasured { unmeasured } if numbered => {
                return Measure::unmeasured(format!("invocation {}: {unmeasured}", i + 1));
            }
            Measure::Unmeasured { unmeasured } => return Measure::unmeasured(unmeasured.clone()),
        }
    }
    Measure::Measured(total)
}

/// The mean, median and 95th percentile of what was measured, and how
/// many were and were not.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Stat {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p95: Option<f64>,
    pub measured: usize,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unmeasured: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Stat {
    /// Over `values`: `None` for a session that did not measure it.
    /// Percentiles by nearest rank.
    pub fn of(values: &[Option<f64>]) -> Stat {
        let mut measured: Vec<f64> = values.iter().flatten().copied().collect();
        let unmeasured = values.len() - measured.len();
        measured.sort_by(f64::total_cmp);
        let rank = |p: f64| {
            let n = measured.len();
            measured[((p * n as f64).ceil() as usize).clamp(1, n) - 1]
        };
        match measured.len() {
            0 => Stat {
                unmeasured,
                ..Stat::default()
            },
            n => Stat {
                mean: Some(measured.iter().sum::<f64>() / n as f64),
                p50: Some(rank(0.5)),
                p95: Some(rank(0.95)),
                measured: n,
                unmeasured,
            },
        }
    }
}

/// The run's (or a case's) efficiency over its sessions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EfficiencyStats {
    pub cost: Stat,
    pub latency_seconds: Stat,
    pub total_tokens: Stat,
    pub prompt_tokens: Stat,
    pub completion_tokens: Stat,
    pub model_calls: Stat,
    pub tool_calls: Stat,
    /// Probe runs only: the prober's own clock.
    #[serde(default, skip_serializing_if = "Stat::is_empty")]
    pub probe_latency_seconds: Stat,
}

impl Stat {
    fn is_empty(&self) -> bool {
        self.measured == 0 && self.unmeasured == 0
    }
}

/// Sessions' efficiencies, gathered for their statistics.
#[derive(Clone, Debug, Default)]
pub struct Samples {
    cost: Vec<Option<f64>>,
    latency: Vec<Option<f64>>,
    total: Vec<Option<f64>>,
    prompt: Vec<Option<f64>>,
    completion: Vec<Option<f64>>,
    model_calls: Vec<Option<f64>>,
    tool_calls: Vec<Option<f64>>,
    probe_latency: Vec<Option<f64>>,
}

impl Samples {
    pub fn add(&mut self, e: &Efficiency) {
        let count = |m: &Measure<u64>| m.value().map(|v| v as f64);
        self.cost.push(e.cost.value());
        self.latency.push(e.latency_seconds.value());
        self.total.push(count(&e.total_tokens));
        self.prompt.push(count(&e.prompt_tokens));
        self.completion.push(count(&e.completion_tokens));
        self.model_calls.push(Some(e.model_calls as f64));
        self.tool_calls.push(Some(e.tool_calls as f64));
        if e.probe_latency_seconds.is_some() {
            self.probe_latency.push(e.probe_latency_seconds);
        }
    }

    pub fn stats(&self) -> EfficiencyStats {
        EfficiencyStats {
            cost: Stat::of(&self.cost),
            latency_seconds: Stat::of(&self.latency),
            total_tokens: Stat::of(&self.total),
            prompt_tokens: Stat::of(&self.prompt),
            completion_tokens: Stat::of(&self.completion),
            model_calls: Stat::of(&self.model_calls),
            tool_calls: Stat::of(&self.tool_calls),
            probe_latency_seconds: Stat::of(&self.probe_latency),
        }
    }
}

#[cfg(test)]
mod tests;
