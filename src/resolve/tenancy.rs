//! Which Agents a suite may evaluate.
//!
//! A suite evaluates Agents of its own namespace. Another namespace's Agent
//! only when the operator was started allowing the pair of namespaces, or
//! when the Agent itself allows the suite's namespace in its
//! `spec.allowedNamespaces`, kagent's own field for who may use an Agent:
//! `{from: All}`, `{from: Same}` (the default), or `{from: Selector,
//! selector: <label selector>}` matched against the suite namespace's
//! labels, with kagent's semantics (an empty selector matches every
//! namespace). The check comes before any session is read.

use crate::core::session::AgentRef;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// Pairs of (suite namespace, agent namespace) the operator allows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Allowed(pub BTreeSet<(String, String)>);

impl std::str::FromStr for Allowed {
    type Err = String;

    /// `suites-ns=agents-ns`, comma-separated.
    fn from_str(text: &str) -> Result<Self, String> {
        let mut pairs = BTreeSet::new();
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (suite, agent) = pair
                .split_once('=')
                .filter(|(a, b)| !a.is_empty() && !b.is_empty())
                .ok_or_else(|| format!("`{pair}` is not SUITE_NAMESPACE=AGENT_NAMESPACE"))?;
            pairs.insert((suite.to_string(), agent.to_string()));
        }
        Ok(Allowed(pairs))
    }
}

impl Allowed {
    pub fn extend(&mut self, other: Allowed) {
        self.0.extend(other.0);
    }
}

/// What is known of the suite's namespace: its labels, or why they could
/// not be read.
pub type NamespaceLabels = Result<BTreeMap<String, String>, String>;

/// Whether a suite in `suite_namespace` may evaluate `agent`, whose spec
/// (when it could be read) is `agent_spec`; `labels` are the suite
/// namespace's, needed only for a `Selector`.
pub fn may_evaluate(
    suite_namespace: &str,
    agent: &AgentRef,
    allowed: &Allowed,
    agent_spec: Option<&Value>,
    labels: Option<&NamespaceLabels>,
) -> Result<(), String> {
    if agent.namespace == suite_namespace
        || allowed
            .0
            .contains(&(suite_namespace.to_string(), agent.namespace.clone()))
    {
        return Ok(());
    }
    let refused = |why: &str| {
        format!(
            "an EvalSuite in namespace {suite_namespace} may not evaluate Agent {agent}: {why}; the operator may allow {suite_namespace}={} (--allow-cross-namespace), or the Agent's owner may set spec.allowedNamespaces to {{from: All}} or to a Selector matching namespace {suite_namespace}",
            agent.namespace
        )
    };
    let rule = agent_spec.and_then(|s| s.get("allowedNamespaces"));
    let from = rule
        .and_then(|r| r.get("from"))
        .and_then(Value::as_str)
        .unwrap_or("Same");
    match from {
        "All" => Ok(()),
        "Same" => Err(refused(match agent_spec {
            Some(_) => "the Agent allows only its own namespace",
            None => "the Agent could not be read",
        })),
        "Selector" => {
            let Some(selector) = rule.and_then(|r| r.get("selector")) else {
                return Err(refused("the Agent's allowedNamespaces selector is missing"));
            };
            match labels {
                Some(Ok(labels)) => match selector_matches(selector, labels) {
                    Ok(true) => Ok(()),
                    Ok(false) => Err(refused(
                        "the Agent's allowedNamespaces selector does not match the namespace's labels",
                    )),
                    Err(e) => Err(refused(&format!(
                        "the Agent's allowedNamespaces selector cannot be read ({e})"
                    ))),
                },
                Some(Err(e)) => Err(refused(&format!(
                    "the namespace's labels, which the Agent's selector needs, could not be read ({e})"
                ))),
                None => Err(refused("the namespace's labels were not read")),
            }
        }
        other => Err(refused(&format!(
            "allowedNamespaces.from is `{other}`, not All, Same or Selector"
        ))),
    }
}

/// A Kubernetes label selector (`matchLabels`, `matchExpressions`) against
/// a set of labels, as `metav1.LabelSelectorAsSelector` reads it.
pub fn selector_matches(
    selector: &Value,
    labels: &BTreeMap<String, String>,
) -> Result<bool, String> {
    let Some(selector) = selector.as_object() else {
        return Err("the selector is not an object".into());
    };
    if let Some(match_labels) = selector.get("matchLabels") {
        let Some(match_labels) = match_labels.as_object() else {
            return Err("matchLabels is not an object".into());
        };
        for (key, want) in match_labels {
            let want = want
                .as_str()
                .ok_or_else(|| format!("matchLabels.{key} is not a string"))?;
            if labels.get(key).map(String::as_str) != Some(want) {
                return Ok(false);
            }
        }
    }
    let expressions = match selector.get("matchExpressions") {
        None | Some(Value::Null) => return Ok(true),
        Some(Value::Array(items)) => items,
        Some(_) => return Err("matchExpressions is not a list".into()),
    };
    for expression in expressions {
        let key = expression
            .get("key")
            .and_then(Value::as_str)
            .ok_or("a matchExpression has no key")?;
        let values: Vec<&str> = match expression.get("values") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(values)) => values
                .iter()
                .map(|v| v.as_str().ok_or("a matchExpression value is not a string"))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(format!("values of `{key}` is not a list")),
        };
        let value = labels.get(key).map(String::as_str);
        let matched = match expression.get("operator").and_then(Value::as_str) {
            Some("In") => value.is_some_and(|v| values.contains(&v)),
            Some("NotIn") => value.is_none_or(|v| !values.contains(&v)),
            Some("Exists") => value.is_some(),
            Some("DoesNotExist") => value.is_none(),
            other => {
                return Err(format!(
                    "operator {other:?} of `{key}` is not In, NotIn, Exists or DoesNotExist"
                ));
            }
        };
        if !matched {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(pairs: &[(&str, &str)]) -> NamespaceLabels {
        Ok(pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect())
    }

    #[test]
    fn own_namespace_and_operator_pairs_are_allowed_without_the_agent() {
        let agent: AgentRef = "team-a/weather".parse().unwrap();
        let none = Allowed::default();
        assert!(may_evaluate("team-a", &agent, &none, None, None).is_ok());
        let refused = may_evaluate("team-b", &agent, &none, None, None).unwrap_err();
        assert!(
            refused.contains("namespace team-b may not evaluate Agent team-a/weather: the Agent could not be read"),
            "{refused}"
        );
        let pairs: Allowed = "team-b=team-a, qa=team-c".parse().unwrap();
        assert!(may_evaluate("team-b", &agent, &pairs, None, None).is_ok());
        assert!(may_evaluate("qa", &agent, &pairs, None, None).is_err());
        assert!("nonsense".parse::<Allowed>().is_err());
    }

    #[test]
    fn the_agents_allowed_namespaces_decide_as_kagent_does() {
        let agent: AgentRef = "team-a/weather".parse().unwrap();
        let none = Allowed::default();
        let qa = labels(&[("team", "qa"), ("env", "staging")]);
        let cases = [
            (json!({}), false),
            (json!({"allowedNamespaces": {"from": "Same"}}), false),
            (json!({"allowedNamespaces": {}}), false),
            (json!({"allowedNamespaces": {"from": "All"}}), true),
            (
                json!({"allowedNamespaces": {"from": "Selector", "selector": {"matchLabels": {"team": "qa"}}}}),
                true,
            ),
            (
                json!({"allowedNamespaces": {"from": "Selector", "selector": {"matchLabels": {"team": "ops"}}}}),
                false,
            ),
            (
                json!({"allowedNamespaces": {"from": "Selector", "selector": {}}}),
                true,
            ),
            (json!({"allowedNamespaces": {"from": "Selector"}}), false),
            (
                json!({"allowedNamespaces": {"from": "Selector", "selector": {"matchExpressions": [
                {"key": "env", "operator": "In", "values": ["staging", "prod"]},
                {"key": "locked", "operator": "DoesNotExist"}]}}}),
                true,
            ),
            (
                json!({"allowedNamespaces": {"from": "Selector", "selector": {"matchExpressions": [
                {"key": "env", "operator": "NotIn", "values": ["staging"]}]}}}),
                false,
            ),
            (
                json!({"allowedNamespaces": {"from": "Selector", "selector": {"matchExpressions": [
                {"key": "team", "operator": "Exists"}]}}}),
                true,
            ),
            (
                json!({"allowedNamespaces": {"from": "Selector", "selector": {"matchExpressions": [
                {"key": "team", "operator": "Gt", "values": ["1"]}]}}}),
                false,
            ),
            (json!({"allowedNamespaces": {"from": "Everyone"}}), false),
        ];
        for (spec, may) in cases {
            let result = may_evaluate("qa-ns", &agent, &none, Some(&spec), Some(&qa));
            assert_eq!(result.is_ok(), may, "{spec}: {result:?}");
        }
    }

    #[test]
    fn a_selector_without_readable_labels_refuses_and_says_why() {
        let agent: AgentRef = "team-a/weather".parse().unwrap();
        let spec = json!({"allowedNamespaces": {"from": "Selector", "selector": {"matchLabels": {"team": "qa"}}}});
        let unreadable: NamespaceLabels = Err("forbidden".into());
        let why = may_evaluate(
            "qa",
            &agent,
            &Allowed::default(),
            Some(&spec),
            Some(&unreadable),
        )
        .unwrap_err();
        assert!(why.contains("could not be read (forbidden)"), "{why}");
    }
}
