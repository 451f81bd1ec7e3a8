//! ADK's `tool_trajectory_avg_score`: per invocation 1.0 when the calls
//! match, else 0.0; the score is the mean over invocations.

use super::ConfigError;
use crate::pyjson;
use serde_json::Value;
use std::fmt;

/// A function call as ADK compares it: name and arguments, where `null`
/// arguments differ from `{}` (pydantic keeps `None`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct ToolUse {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub args: Value,
}

impl ToolUse {
    fn same_as(&self, other: &ToolUse, ignore_args: bool) -> bool {
        self.name == other.name && (ignore_args || pyjson::eq(&self.args, &other.args))
    }
}

/// How one invocation's calls are compared: ADK's `match_type` and
/// `ignore_args` (names only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    pub match_type: AdkMatchType,
    pub ignore_args: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AdkMatchType {
    /// Same calls, same order, nothing extra.
    #[default]
    Exact,
    /// Expected calls appear in order; extra calls allowed.
    InOrder,
    /// Every expected call consumes an equal actual call; extra calls allowed.
    AnyOrder,
}

impl AdkMatchType {
    /// ADK's coercion (pydantic's for an int enum): a name in any case with
    /// `-` or space for `_`, or 0/1/2, also written `1.0` or `true`.
    pub fn parse(value: &Value) -> Result<Self, ConfigError> {
        let from_index = |i: u64| match i {
            0 => Some(AdkMatchType::Exact),
            1 => Some(AdkMatchType::InOrder),
            2 => Some(AdkMatchType::AnyOrder),
            _ => None,
        };
        let parsed = match value {
            Value::String(s) => match s.trim().to_uppercase().replace(['-', ' '], "_").as_str() {
                "EXACT" => Some(AdkMatchType::Exact),
                "IN_ORDER" => Some(AdkMatchType::InOrder),
                "ANY_ORDER" => Some(AdkMatchType::AnyOrder),
                _ => None,
            },
            Value::Number(n) => n
                .as_u64()
                .or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                        .map(|f| f as u64)
                })
                .and_then(from_index),
            Value::Bool(b) => from_index(u64::from(*b)),
            _ => None,
        };
        parsed.ok_or_else(|| {
            ConfigError(format!(
                "unknown match type {value} (expected EXACT, IN_ORDER, ANY_ORDER or 0, 1, 2)"
            ))
        })
    }
}

impl fmt::Display for AdkMatchType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AdkMatchType::Exact => "EXACT",
            AdkMatchType::InOrder => "IN_ORDER",
            AdkMatchType::AnyOrder => "ANY_ORDER",
        })
    }
}

/// Whether one invocation's calls match the expected ones.
pub fn invocation_matches(actual: &[ToolUse], expected: &[ToolUse], how: Comparison) -> bool {
    let same = |a: &ToolUse, e: &ToolUse| a.same_as(e, how.ignore_args);
    match how.match_type {
        AdkMatchType::Exact => {
            actual.len() == expected.len() && actual.iter().zip(expected).all(|(a, e)| same(a, e))
        }
        AdkMatchType::InOrder => {
            let mut remaining = actual.iter();
            expected
                .iter()
                .all(|e| remaining.by_ref().any(|a| same(a, e)))
        }
        AdkMatchType::AnyOrder => {
            let mut pool: Vec<&ToolUse> = actual.iter().collect();
            expected
                .iter()
                .all(|e| match pool.iter().position(|a| same(a, e)) {
                    Some(i) => {
                        pool.remove(i);
                        true
                    }
                    None => false,
                })
        }
    }
}

/// Per-invocation scores and their mean, as ADK adds them up.
#[derive(Clone, Debug, PartialEq)]
pub struct AverageScore {
    pub per_invocation: Vec<f64>,
    pub overall: f64,
}

/// ADK averages `total / count`, accumulated in invocation order.
pub fn average(per_invocation: Vec<f64>) -> AverageScore {
    let total = per_invocation.iter().fold(0.0, |sum, s| sum + s);
    let overall = if per_invocation.is_empty() {
        0.0
    } else {
        total / per_invocation.len() as f64
    };
    AverageScore {
        per_invocation,
        overall,
    }
}

/// `tool_trajectory_avg_score` over paired invocations. ADK raises when the
/// counts differ; so do we, and the caller decides whether that is an error
/// of the suite or a failure of the session.
pub fn tool_trajectory(
    actual: &[Vec<ToolUse>],
    expected: &[Vec<ToolUse>],
    how: Comparison,
) -> Result<AverageScore, String> {
    if actual.len() != expected.len() {
        return Err(format!(
            "{} invocation(s) in the session, {} expected",
            actual.len(),
            expected.len()
        ));
    }
    Ok(average(
        actual
            .iter()
            .zip(expected)
            .map(|(a, e)| {
                if invocation_matches(a, e, how) {
                    1.0
                } else {
                    0.0
                }
            })
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn how(match_type: AdkMatchType) -> Comparison {
        Comparison {
            match_type,
            ignore_args: false,
        }
    }

    fn uses(names: &[&str]) -> Vec<ToolUse> {
        names
            .iter()
            .map(|n| ToolUse {
                name: Some(n.to_string()),
                args: json!({}),
            })
            .collect()
    }

    #[test]
    fn match_types_follow_adk() {
        let actual = uses(&["t1", "x", "t2", "t3"]);
        assert!(invocation_matches(
            &actual,
            &uses(&["t1", "t2", "t3"]),
            how(AdkMatchType::InOrder)
        ));
        assert!(!invocation_matches(
            &actual,
            &uses(&["t2", "t1"]),
            how(AdkMatchType::InOrder)
        ));
        assert!(invocation_matches(
            &actual,
            &uses(&["t2", "t1"]),
            how(AdkMatchType::AnyOrder)
        ));
        assert!(!invocation_matches(
            &actual,
            &uses(&["t1", "t1"]),
            how(AdkMatchType::AnyOrder)
        ));
        assert!(!invocation_matches(
            &actual,
            &uses(&["t1", "t2", "t3"]),
            how(AdkMatchType::Exact)
        ));
        assert!(invocation_matches(&[], &[], how(AdkMatchType::Exact)));
        assert!(invocation_matches(&actual, &[], how(AdkMatchType::InOrder)));
        let null_args = ToolUse {
            name: Some("t".into()),
            args: Value::Null,
        };
        assert!(!invocation_matches(
            std::slice::from_ref(&null_args),
            &uses(&["t"]),
            how(AdkMatchType::Exact)
        ));
        let names_only = Comparison {
            match_type: AdkMatchType::Exact,
            ignore_args: true,
        };
        assert!(invocation_matches(&[null_args], &uses(&["t"]), names_only));
    }

    #[test]
    fn match_type_coerces_like_adk() {
        for (v, t) in [
            (json!("in-order"), AdkMatchType::InOrder),
            (json!(" any order "), AdkMatchType::AnyOrder),
            (json!("Exact"), AdkMatchType::Exact),
            (json!(2), AdkMatchType::AnyOrder),
            (json!(1.0), AdkMatchType::InOrder),
            (json!(true), AdkMatchType::InOrder),
            (json!(false), AdkMatchType::Exact),
        ] {
            assert_eq!(AdkMatchType::parse(&v).unwrap(), t);
        }
        assert!(AdkMatchType::parse(&json!("sometimes")).is_err());
        assert!(AdkMatchType::parse(&json!(3)).is_err());
        assert!(AdkMatchType::parse(&json!("2")).is_err());
        assert!(AdkMatchType::parse(&json!(1.5)).is_err());
    }

    #[test]
    fn the_score_is_the_mean_and_counts_must_agree() {
        let score = tool_trajectory(
            &[uses(&["a"]), uses(&["b"]), uses(&["c"])],
            &[uses(&["a"]), uses(&["x"]), uses(&["c"])],
            how(AdkMatchType::Exact),
        )
        .unwrap();
        assert_eq!(score.per_invocation, [1.0, 0.0, 1.0]);
        assert_eq!(score.overall, 2.0 / 3.0);
        assert!(tool_trajectory(&[uses(&["a"])], &[], how(AdkMatchType::Exact)).is_err());
    }
}
