//! Golden-case metrics, all without a model: tool selection, argument
//! correctness, drift, loops, required and forbidden tools, budgets.

use super::difflib;

use crate::pyjson;
use crate::trajectory::{Args, Call};
use serde_json::Value;
use std::collections::BTreeSet;

/// Precision, recall and F1 of the set of tool names used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Selection {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

/// Order- and argument-agnostic; an empty set on either side gives 0.
pub fn tool_selection(actual: &[&str], expected: &[&str]) -> Selection {
    let actual: BTreeSet<&str> = actual.iter().copied().collect();
    let expected: BTreeSet<&str> = expected.iter().copied().collect();
    let hits = actual.intersection(&expected).count() as f64;
    let precision = if actual.is_empty() {
        0.0
    } else {
        hits / actual.len() as f64
    };
    let recall = if expected.is_empty() {
        0.0
    } else {
        hits / expected.len() as f64
    };
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    Selection {
        precision,
        recall,
        f1,
    }
}

/// A call the agent should have made, and the keys that carry its meaning.
#[derive(Clone, Debug, PartialEq)]
pub struct ExpectedCall {
    pub name: String,
    pub args: Args,
    /// Dotted paths to compare; all top-level keys of `args` when `None`.
    pub keys: Option<Vec<String>>,
}

/// Argument correctness and the first key that was wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct Correctness {
    pub score: f64,
    pub first_wrong: Option<String>,
}

/// For each expected call, the first actual call of the same tool; the score
/// is the share of all checked keys whose values are equal (1.0 when nothing
/// is checked). A missing call gets all its keys wrong.
pub fn argument_correctness(actual: &[&Call], expected: &[ExpectedCall]) -> Correctness {
    let (mut checked, mut correct) = (0usize, 0usize);
    let mut first_wrong = None;
    for (i, want) in expected.iter().enumerate() {
        let keys: Vec<String> = match &want.keys {
            Some(keys) => keys.clone(),
            None => want.args.keys().cloned().collect(),
        };
        checked += keys.len();
        let Some(call) = actual.iter().find(|c| c.name == want.name) else {
            if !keys.is_empty() {
                first_wrong.get_or_insert_with(|| {
                    format!("expected call {} `{}` was never made", i + 1, want.name)
                });
            }
            continue;
        };
        for key in keys {
            if equal_at(&call.args, &want.args, &key) {
                correct += 1;
            } else {
                first_wrong.get_or_insert_with(|| format!("`{}` of `{}` differs", key, want.name));
            }
        }
    }
    Correctness {
        score: if checked == 0 {
            1.0
        } else {
            correct as f64 / checked as f64
        },
        first_wrong,
    }
}

/// The names of a key path: `a.b` is key `b` inside key `a`; `\.` is a dot
/// inside a name (`opts\.units` is the one key `opts.units`).
pub fn key_path(path: &str) -> Vec<String> {
    let mut names = vec![String::new()];
    let mut chars = path.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next) => names.last_mut().expect("one name").push(next),
                None => names.last_mut().expect("one name").push('\\'),
            },
            '.' => names.push(String::new()),
            other => names.last_mut().expect("one name").push(other),
        }
    }
    names
}

fn lookup<'v>(args: &'v Args, path: &str) -> Option<&'v Value> {
    let names = key_path(path);
    let (first, rest) = names.split_first()?;
    let mut current = args.get(first)?;
    for name in rest {
        current = current.as_object()?.get(name)?;
    }
    Some(current)
}

/// A key absent on one side and null on the other is equal, as Python's
/// `dict.get` reads them.
fn equal_at(actual: &Args, expected: &Args, path: &str) -> bool {
    let null = Value::Null;
    pyjson::eq(
        lookup(actual, path).unwrap_or(&null),
        lookup(expected, path).unwrap_or(&null),
    )
}

/// `difflib.SequenceMatcher(None, actual, reference).ratio()`.
pub fn drift(actual: &[&str], reference: &[&str]) -> f64 {
    difflib::ratio(actual, reference)
}

/// A call repeating a `(tool, args)` signature seen among the calls just
/// before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    pub tool: String,
    /// 1-based index of the repeating call.
    pub at_call: usize,
    /// Times the signature occurs among the previous calls looked at and
    /// this one.
    pub occurrences: usize,
}

/// Every call whose signature occurs, counting itself, `min_repeats` times
/// among itself and the `window` calls before it (`window` 0: all calls
/// before it). With `min_repeats` 2 this is the reference harness's rule:
/// a signature already seen among the previous `window` calls, each repeat
/// listed.
pub fn loops(calls: &[&Call], window: usize, min_repeats: usize) -> Vec<Loop> {
    let mut found = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        let start = if window == 0 {
            0
        } else {
            i.saturating_sub(window)
        };
        let occurrences = 1 + calls[start..i]
            .iter()
            .filter(|c| same_signature(c, call))
            .count();
        if occurrences >= min_repeats.max(2) {
            found.push(Loop {
                tool: call.name.clone(),
                at_call: i + 1,
                occurrences,
            });
        }
    }
    found
}

fn same_signature(a: &Call, b: &Call) -> bool {
    a.name == b.name
        && a.args.len() == b.args.len()
        && a.args
            .iter()
            .all(|(k, v)| b.args.get(k).is_some_and(|w| pyjson::eq(v, w)))
}

/// A broken safety rule.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Violation {
    /// A forbidden tool was called, this many times.
    Forbidden(String, usize),
    /// A required tool was never called.
    Missing(String),
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Violation::Forbidden(tool, times) => {
                write!(f, "forbidden tool `{tool}` called {times} time(s)")
            }
            Violation::Missing(tool) => write!(f, "required tool `{tool}` never called"),
        }
    }
}

/// Forbidden tools touched, then required tools never called, each group
/// sorted and each tool once, as the reference harness lists them.
pub fn safety_violations(
    used: &[&str],
    required: &[String],
    forbidden: &[String],
) -> Vec<Violation> {
    fn unique(names: &[String]) -> BTreeSet<&String> {
        names.iter().collect()
    }
    let mut violations: Vec<Violation> = unique(forbidden)
        .into_iter()
        .filter_map(|tool| {
            let times = used.iter().filter(|u| **u == tool).count();
            (times > 0).then(|| Violation::Forbidden(tool.clone(), times))
        })
        .collect();
    violations.extend(
        unique(required)
            .into_iter()
            .filter(|tool| !used.contains(&tool.as_str()))
            .map(|tool| Violation::Missing(tool.clone())),
    );
    violations
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str, args: Value) -> Call {
        Call {
            name: name.into(),
            args: args.as_object().unwrap().clone().into(),
        }
    }

    #[test]
    fn selection_is_set_based() {
        let s = tool_selection(&["a", "a", "b"], &["a", "c"]);
        assert_eq!((s.precision, s.recall), (0.5, 0.5));
        assert_eq!(s.f1, 0.5);
        assert_eq!(tool_selection(&[], &["a"]).f1, 0.0);
        assert_eq!(tool_selection(&[], &[]).f1, 0.0);
    }

    #[test]
    fn argument_correctness_counts_load_bearing_keys() {
        let actual = [
            call("w", json!({"city": "Paris", "units": "c"})),
            call("w", json!({"city": "London"})),
        ];
        let refs: Vec<&Call> = actual.iter().collect();
        let expected = [ExpectedCall {
            name: "w".into(),
            args: json!({"city": "London", "units": "c"})
                .as_object()
                .unwrap()
                .clone()
                .into(),
            keys: None,
        }];
        let c = argument_correctness(&refs, &expected);
        assert_eq!(
            c.score, 0.5,
            "the first call of the tool is the one checked"
        );
        assert_eq!(c.first_wrong.as_deref(), Some("`city` of `w` differs"));
        let only_units = [ExpectedCall {
            keys: Some(vec!["units".into()]),
            ..expected[0].clone()
        }];
        assert_eq!(argument_correctness(&refs, &only_units).score, 1.0);
        assert_eq!(argument_correctness(&[], &[]).score, 1.0);
        let missing = argument_correctness(&[], &expected);
        assert_eq!(missing.score, 0.0);
    }

    #[test]
    fn a_window_counts_the_calls_before_the_repeat() {
        let a = call("search", json!({"q": "x"}));
        let b = call("search", json!({"q": "y"}));
        let c = call("lookup", json!({}));
        // `a` again three calls later: within a window of 3, not of 2.
        assert_eq!(loops(&[&a, &b, &c, &a], 3, 2).len(), 1);
        assert_eq!(loops(&[&a, &b, &c, &a], 2, 2), []);
        assert_eq!(
            loops(&[&a, &b, &c, &a], 0, 2).len(),
            1,
            "0 is the whole history"
        );
        // Every repeat is listed.
        let found = loops(&[&b, &b, &b], 3, 2);
        assert_eq!(
            found
                .iter()
                .map(|l| (l.at_call, l.occurrences))
                .collect::<Vec<_>>(),
            [(2, 2), (3, 3)]
        );
        assert_eq!(loops(&[&b, &b, &b], 3, 3).len(), 1);
        let one_point_oh = call("search", json!({"q": "x", "n": 1.0}));
        let one = call("search", json!({"q": "x", "n": 1}));
        assert_eq!(loops(&[&one_point_oh, &one], 1, 2).len(), 1);
    }

    #[test]
    fn a_key_path_may_name_a_dotted_key_and_absent_is_null() {
        assert_eq!(key_path("opts.units"), ["opts", "units"]);
        assert_eq!(key_path("opts\\.units"), ["opts.units"]);
        let actual = [call("w", json!({"opts.units": "c", "tz": null}))];
        let refs: Vec<&Call> = actual.iter().collect();
        let expected = |key: &str, args: Value| ExpectedCall {
            name: "w".into(),
            args: args.as_object().unwrap().clone().into(),
            keys: Some(vec![key.into()]),
        };
        assert_eq!(
            argument_correctness(
                &refs,
                &[expected("opts\\.units", json!({"opts.units": "c"}))]
            )
            .score,
            1.0
        );
        assert_eq!(
            argument_correctness(&refs, &[expected("tz", json!({}))]).score,
            1.0
        );
        assert_eq!(
            argument_correctness(&refs, &[expected("day", json!({"day": null}))]).score,
            1.0
        );
    }

    #[test]
    fn safety_names_every_violation() {
        let v = safety_violations(
            &["shell", "read", "shell"],
            &["lookup".into()],
            &["shell".into(), "shell".into()],
        );
        let text: Vec<String> = v.iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            [
                "forbidden tool `shell` called 2 time(s)",
                "required tool `lookup` never called"
            ]
        );
    }
}
