//! agentevals' trajectory match (strict, unordered, subset, superset), with
//! our additions: an `inOrder` mode, an optimal matching beside agentevals'
//! greedy one, and a diagnostic on every failure.
//!
//! agentevals matches greedily, first fit: with args modes other than exact
//! that can miss a matching that exists (reference `[a(x), a(x,y)]` against
//! output `[a(x,y), a(x)]` under superset args). Greedy is the default so
//! verdicts agree with agentevals; `Matching::Optimal` finds a maximum
//! bipartite matching instead.

use super::args::{ArgsConfig, ArgsMatcher};
use super::{ConfigError, Verdict};
use crate::trajectory::{Call, Step, calls};
use std::fmt;
use std::str::FromStr;

#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum MatchMode {
    /// Same messages in the same order, same calls per message.
    #[default]
    Strict,
    /// Superset and subset both.
    Unordered,
    /// Every output call is in the reference.
    Subset,
    /// Every reference call is in the output.
    Superset,
    /// The reference calls appear in the output in order, others between.
    InOrder,
}

impl MatchMode {
    /// The agentevals feedback key.
    pub fn key(self) -> String {
        let name = match self {
            MatchMode::Strict => "strict",
            MatchMode::Unordered => "unordered",
            MatchMode::Subset => "subset",
            MatchMode::Superset => "superset",
            MatchMode::InOrder => "in_order",
        };
        format!("trajectory_{name}_match")
    }
}

impl FromStr for MatchMode {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, ConfigError> {
        match s {
            "strict" => Ok(MatchMode::Strict),
            "unordered" => Ok(MatchMode::Unordered),
            "subset" => Ok(MatchMode::Subset),
            "superset" => Ok(MatchMode::Superset),
            "inOrder" | "in_order" | "in-order" => Ok(MatchMode::InOrder),
            other => Err(ConfigError(format!(
                "unknown trajectory match mode `{other}` (expected strict, unordered, subset, superset or inOrder)"
            ))),
        }
    }
}

impl fmt::Display for MatchMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MatchMode::Strict => "strict",
            MatchMode::Unordered => "unordered",
            MatchMode::Subset => "subset",
            MatchMode::Superset => "superset",
            MatchMode::InOrder => "inOrder",
        })
    }
}

#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum Matching {
    /// agentevals' first-fit matching.
    #[default]
    Greedy,
    /// A maximum bipartite matching: passes whenever any assignment exists.
    Optimal,
}

impl FromStr for Matching {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, ConfigError> {
        match s {
            "greedy" => Ok(Matching::Greedy),
            "optimal" => Ok(Matching::Optimal),
            other => Err(ConfigError(format!(
                "unknown matching `{other}` (expected greedy or optimal)"
            ))),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchConfig {
    pub mode: MatchMode,
    pub args: ArgsConfig,
    pub matching: Matching,
}

/// Pairs of calls a comparison may weigh (output calls times reference
/// calls) before it is refused instead of taking minutes: about 25 million
/// argument comparisons, a few seconds.
pub const MAX_CALL_PAIRS: usize = 25_000_000;
/// Calls on either side optimal matching takes: its augmenting paths are
/// about cubic in the calls.
pub const MAX_OPTIMAL_CALLS: usize = 1_000;

/// Whether a comparison is small enough to do; why not, when it is not.
pub fn check_size(output: &[Step], reference: &[Step], matching: Matching) -> Result<(), String> {
    let (o, r) = (calls(output).count(), calls(reference).count());
    if matching == Matching::Optimal && o.max(r) > MAX_OPTIMAL_CALLS {
        return Err(format!(
            "{o} output and {r} reference tool calls: optimal matching takes at most {MAX_OPTIMAL_CALLS} a side (use greedy matching)"
        ));
    }
    if o.saturating_mul(r) > MAX_CALL_PAIRS {
        return Err(format!(
            "{o} output and {r} reference tool calls: a comparison weighs at most {MAX_CALL_PAIRS} pairs of calls"
        ));
    }
    Ok(())
}

/// Compare an output trajectory with a reference one.
pub fn trajectory_match(output: &[Step], reference: &[Step], config: &MatchConfig) -> Verdict {
    let failure = match config.mode {
        MatchMode::Strict => strict(output, reference, config),
        MatchMode::Superset => superset(output, reference, config),
        MatchMode::Subset => subset(output, reference, config),
        MatchMode::Unordered => {
            superset(output, reference, config).or_else(|| subset(output, reference, config))
        }
        MatchMode::InOrder => in_order(output, reference, &config.args),
    };
    Verdict::boolean(config.mode.key(), failure.is_none(), failure)
}

/// Compare tool calls only, as kagent-agentevals' `tools_used` does: the
/// reference is one call per expected name with empty arguments, and
/// arguments are ignored. Strict is refused: a list of names has no messages.
pub fn tools_used(
    output: &[Step],
    expected: &[String],
    mode: MatchMode,
    matching: Matching,
) -> Result<Verdict, ConfigError> {
    if mode == MatchMode::Strict {
        return Err(ConfigError(
            "toolsUsed cannot be strict: a list of tool names has no messages to compare (use superset, subset, unordered or inOrder)".into(),
        ));
    }
    let reference: Vec<Step> = expected
        .iter()
        .map(|name| Step {
            role: crate::trajectory::Role::Assistant,
            calls: Some(vec![Call {
                name: name.clone(),
                args: Default::default(),
            }]),
        })
        .collect();
    let config = MatchConfig {
        mode,
        args: ArgsConfig {
            default: super::args::ArgsMode::Ignore,
            overrides: Default::default(),
        },
        matching,
    };
    Ok(trajectory_match(output, &reference, &config))
}

/// Which trajectory a call belongs to, for diagnostics.
#[derive(Clone, Copy)]
struct Sides {
    target: &'static str,
    pool: &'static str,
}

const OUTPUT_IN_REFERENCE: Sides = Sides {
    target: "output",
    pool: "reference",
};
const REFERENCE_IN_OUTPUT: Sides = Sides {
    target: "reference",
    pool: "output",
};

fn superset(output: &[Step], reference: &[Step], config: &MatchConfig) -> Option<String> {
    let targets: Vec<&Call> = calls(reference).collect();
    let pool: Vec<&Call> = calls(output).collect();
    // agentevals calls matcher(output_args, reference_args).
    cover(
        &targets,
        &pool,
        config,
        REFERENCE_IN_OUTPUT,
        ArgOrder::PoolFirst,
    )
}

fn subset(output: &[Step], reference: &[Step], config: &MatchConfig) -> Option<String> {
    let targets: Vec<&Call> = calls(output).collect();
    let pool: Vec<&Call> = calls(reference).collect();
    // The same routine with the trajectories swapped: matcher(reference_args, output_args).
    cover(
        &targets,
        &pool,
        config,
        OUTPUT_IN_REFERENCE,
        ArgOrder::PoolFirst,
    )
}

/// Which call's arguments the matcher gets first; agentevals is not uniform.
#[derive(Clone, Copy)]
enum ArgOrder {
    PoolFirst,
    TargetFirst,
}

impl ArgOrder {
    fn arrange<'c>(self, target: &'c Call, candidate: &'c Call) -> (&'c Call, &'c Call) {
        match self {
            ArgOrder::PoolFirst => (candidate, target),
            ArgOrder::TargetFirst => (target, candidate),
        }
    }

    fn accepts(self, matcher: &ArgsMatcher<'_>, target: &Call, candidate: &Call) -> bool {
        let (first, second) = self.arrange(target, candidate);
        matcher.matches(&first.args, &second.args)
    }

    fn sides(self, sides: Sides) -> [&'static str; 2] {
        match self {
            ArgOrder::PoolFirst => [sides.pool, sides.target],
            ArgOrder::TargetFirst => [sides.target, sides.pool],
        }
    }
}

/// Give every target call a distinct pool call of the same name whose
/// arguments the matcher accepts; `None` when that succeeds, else why not.
fn cover(
    targets: &[&Call],
    pool: &[&Call],
    config: &MatchConfig,
    sides: Sides,
    order: ArgOrder,
) -> Option<String> {
    let edge = |t: usize, p: usize| {
        targets[t].name == pool[p].name
            && order.accepts(&config.args.matcher(&targets[t].name), targets[t], pool[p])
    };
    let assignment = match config.matching {
        Matching::Greedy => greedy(targets.len(), pool.len(), edge),
        Matching::Optimal => optimal(targets.len(), pool.len(), edge),
    };
    let unmatched = assignment.iter().position(Option::is_none)?;
    let used: Vec<bool> = (0..pool.len())
        .map(|p| assignment.contains(&Some(p)))
        .collect();
    Some(explain_unmatched(
        targets, pool, unmatched, &used, config, sides, order,
    ))
}

/// agentevals' first fit: targets in order, each takes the first free pool
/// call it accepts. `result[t]` is the pool index target `t` took.
fn greedy(targets: usize, pool: usize, edge: impl Fn(usize, usize) -> bool) -> Vec<Option<usize>> {
    let mut used = vec![false; pool];
    (0..targets)
        .map(|t| {
            let p = (0..pool).find(|&p| !used[p] && edge(t, p))?;
            used[p] = true;
            Some(p)
        })
        .collect()
}

/// A maximum bipartite matching (Kuhn's augmenting paths).
fn optimal(targets: usize, pool: usize, edge: impl Fn(usize, usize) -> bool) -> Vec<Option<usize>> {
    let adjacency: Vec<Vec<usize>> = (0..targets)
        .map(|t| (0..pool).filter(|&p| edge(t, p)).collect())
        .collect();
    let mut owner: Vec<Option<usize>> = vec![None; pool];
    fn augment(
        t: usize,
        adjacency: &[Vec<usize>],
        owner: &mut [Option<usize>],
        seen: &mut [bool],
    ) -> bool {
        for &p in &adjacency[t] {
            if seen[p] {
                continue;
            }
            seen[p] = true;
            if owner[p].is_none_or(|other| augment(other, adjacency, owner, seen)) {
                owner[p] = Some(t);
                return true;
            }
        }
        false
    }
    for t in 0..targets {
        let mut seen = vec![false; pool];
        augment(t, &adjacency, &mut owner, &mut seen);
    }
    let mut assignment = vec![None; targets];
    for (p, t) in owner.iter().enumerate() {
        if let Some(t) = t {
            assignment[*t] = Some(p);
        }
    }
    assignment
}

fn explain_unmatched(
    targets: &[&Call],
    pool: &[&Call],
    index: usize,
    used: &[bool],
    config: &MatchConfig,
    sides: Sides,
    order: ArgOrder,
) -> String {
    let target = targets[index];
    let head = format!(
        "{} call {} `{}` has no partner",
        sides.target,
        index + 1,
        target.name
    );
    let same_name: Vec<usize> = (0..pool.len())
        .filter(|&p| pool[p].name == target.name)
        .collect();
    if same_name.is_empty() {
        return format!("{head}: no {} call is named `{}`", sides.pool, target.name);
    }
    let matcher = config.args.matcher(&target.name);
    match same_name.iter().find(|&&p| !used[p]) {
        None => format!(
            "{head}: {} {} call(s) of that name, all matched to other {} calls",
            same_name.len(),
            sides.pool,
            sides.target
        ),
        Some(&p) if order.accepts(&matcher, target, pool[p]) => {
            // Free and acceptable, yet greedy order left it for another.
            format!(
                "{head}: greedy matching gave {} call {} to another call (try matching: optimal)",
                sides.pool,
                p + 1
            )
        }
        Some(&p) => {
            // Diagnose in the matcher's own argument order.
            let (first, second) = order.arrange(target, pool[p]);
            let why = matcher.mismatch(&first.args, &second.args, order.sides(sides));
            format!("{head}: {} call {} of that name: {why}", sides.pool, p + 1)
        }
    }
}

fn strict(output: &[Step], reference: &[Step], config: &MatchConfig) -> Option<String> {
    if output.len() != reference.len() {
        return Some(format!(
            "{} messages in the output, {} in the reference",
            output.len(),
            reference.len()
        ));
    }
    for (i, (out, reference)) in output.iter().zip(reference).enumerate() {
        let number = i + 1;
        if out.role != reference.role {
            return Some(format!(
                "message {number}: role `{}` in the output, `{}` in the reference",
                out.role, reference.role
            ));
        }
        match (&out.calls, &reference.calls) {
            (None, None) => {}
            (Some(_), None) => {
                return Some(format!(
                    "message {number}: the output has tool calls, the reference has none"
                ));
            }
            (None, Some(_)) => {
                return Some(format!(
                    "message {number}: the reference has tool calls, the output has none"
                ));
            }
            (Some(out_calls), Some(ref_calls)) => {
                if out_calls.len() != ref_calls.len() {
                    return Some(format!(
                        "message {number}: {} tool call(s) in the output, {} in the reference",
                        out_calls.len(),
                        ref_calls.len()
                    ));
                }
                let targets: Vec<&Call> = out_calls.iter().collect();
                let pool: Vec<&Call> = ref_calls.iter().collect();
                // Within a message agentevals calls matcher(output_args, reference_args).
                if let Some(why) = cover(
                    &targets,
                    &pool,
                    config,
                    OUTPUT_IN_REFERENCE,
                    ArgOrder::TargetFirst,
                ) {
                    return Some(format!("message {number}: {why}"));
                }
            }
        }
    }
    None
}

fn in_order(output: &[Step], reference: &[Step], args: &ArgsConfig) -> Option<String> {
    let mut out_calls = calls(output).enumerate();
    for (i, target) in calls(reference).enumerate() {
        let matcher = args.matcher(&target.name);
        let found = out_calls.by_ref().find(|(_, call)| {
            call.name == target.name && matcher.matches(&call.args, &target.args)
        });
        if found.is_none() {
            return Some(format!(
                "reference call {} `{}` has no partner in order: no later output call of that name matches",
                i + 1,
                target.name
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::args::ArgsMode;
    use crate::trajectory::{messages_from_value, steps};
    use serde_json::{Value, json};

    fn traj(calls: &[(&str, Value)]) -> Vec<Step> {
        let messages =
            json!(
            calls
                .iter()
                .map(|(n, a)| json!({"role": "assistant", "content": "", "tool_calls": [
                    {"type": "function", "function": {"name": n, "arguments": a.to_string()}}
                ]}))
                .collect::<Vec<_>>()
        );
        steps(&messages_from_value(messages).unwrap()).unwrap()
    }

    fn config(mode: MatchMode, args: ArgsMode, matching: Matching) -> MatchConfig {
        MatchConfig {
            mode,
            args: ArgsConfig {
                default: args,
                overrides: Default::default(),
            },
            matching,
        }
    }

    #[test]
    fn calls_are_a_multiset() {
        let one = traj(&[("a", json!({}))]);
        let two = traj(&[("a", json!({})), ("a", json!({}))]);
        let c = config(MatchMode::Superset, ArgsMode::Exact, Matching::Greedy);
        let v = trajectory_match(&one, &two, &c);
        assert!(!v.passed);
        assert_eq!(
            v.comment.as_deref(),
            Some(
                "reference call 2 `a` has no partner: 1 output call(s) of that name, all matched to other reference calls"
            )
        );
        assert!(trajectory_match(&two, &one, &c).passed);
    }

    #[test]
    fn an_empty_output_is_a_subset_of_anything() {
        let c = config(MatchMode::Subset, ArgsMode::Exact, Matching::Greedy);
        assert!(trajectory_match(&[], &traj(&[("a", json!({}))]), &c).passed);
    }

    #[test]
    fn greedy_misses_a_matching_that_optimal_finds() {
        let reference = traj(&[("a", json!({"x": 1})), ("a", json!({"x": 1, "y": 2}))]);
        let output = traj(&[("a", json!({"x": 1, "y": 2})), ("a", json!({"x": 1}))]);
        let greedy = config(MatchMode::Superset, ArgsMode::Superset, Matching::Greedy);
        let v = trajectory_match(&output, &reference, &greedy);
        assert!(!v.passed);
        assert_eq!(
            v.comment.as_deref(),
            Some(
                "reference call 2 `a` has no partner: output call 2 of that name: `y` is missing in the output"
            )
        );
        let optimal = MatchConfig {
            matching: Matching::Optimal,
            ..greedy
        };
        assert!(trajectory_match(&output, &reference, &optimal).passed);
    }

    #[test]
    fn strict_explains_the_first_difference() {
        let c = config(MatchMode::Strict, ArgsMode::Exact, Matching::Greedy);
        let v = trajectory_match(
            &traj(&[("w", json!({"city": "Paris"}))]),
            &traj(&[("w", json!({"city": "London"}))]),
            &c,
        );
        assert_eq!(
            v.comment.as_deref(),
            Some(
                "message 1: output call 1 `w` has no partner: reference call 1 of that name: `city` differs (output: a string of 5 characters, reference: a string of 6 characters)"
            )
        );
        let v = trajectory_match(&traj(&[]), &traj(&[("w", json!({}))]), &c);
        assert_eq!(
            v.comment.as_deref(),
            Some("0 messages in the output, 1 in the reference")
        );
    }

    #[test]
    fn in_order_needs_the_reference_as_a_subsequence() {
        let output = traj(&[("a", json!({})), ("x", json!({})), ("b", json!({}))]);
        let c = config(MatchMode::InOrder, ArgsMode::Exact, Matching::Greedy);
        assert!(trajectory_match(&output, &traj(&[("a", json!({})), ("b", json!({}))]), &c).passed);
        let v = trajectory_match(&output, &traj(&[("b", json!({})), ("a", json!({}))]), &c);
        assert!(!v.passed);
        assert_eq!(v.key, "trajectory_in_order_match");
    }

    #[test]
    fn tools_used_ignores_arguments_and_refuses_strict() {
        let output = traj(&[("w", json!({"city": "London"}))]);
        let v = tools_used(
            &output,
            &["w".into()],
            MatchMode::Superset,
            Matching::Greedy,
        )
        .unwrap();
        assert!(v.passed);
        assert_eq!(v.key, "trajectory_superset_match");
        assert!(tools_used(&output, &["w".into()], MatchMode::Strict, Matching::Greedy).is_err());
        let none = tools_used(&[], &["w".into()], MatchMode::Subset, Matching::Greedy).unwrap();
        assert!(
            none.passed,
            "an agent that did nothing passes a subset check"
        );
    }
}
