//! Which Agents a suite may evaluate. A suite evaluates Agents of its own
//! namespace; another namespace's Agent only when the operator was started
//! allowing that pair, or when the Agent itself lists the suite's namespace
//! in `spec.allowedNamespaces`. The check comes before any session is read.

use crate::core::session::AgentRef;
use serde_json::Value;
use std::collections::BTreeSet;

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

/// Whether a suite in `suite_namespace` may evaluate `agent`, whose spec
/// (when it could be read) is `agent_spec`.
pub fn may_evaluate(
    suite_namespace: &str,
    agent: &AgentRef,
    allowed: &Allowed,
    agent_spec: Option<&Value>,
) -> Result<(), String> {
    if agent.namespace == suite_namespace
        || allowed
            .0
            .contains(&(suite_namespace.to_string(), agent.namespace.clone()))
        || agent_allows(agent_spec, suite_namespace)
    {
        return Ok(());
    }
    Err(format!(
        "an EvalSuite in namespace {suite_namespace} may not evaluate Agent {agent}: Agents are evaluated from their own namespace, unless the operator allows {suite_namespace}={} or the Agent lists {suite_namespace} in spec.allowedNamespaces",
        agent.namespace
    ))
}

/// `spec.allowedNamespaces` as a list of names, or `{from: All}`.
fn agent_allows(spec: Option<&Value>, namespace: &str) -> bool {
    match spec.and_then(|s| s.get("allowedNamespaces")) {
        Some(Value::Array(names)) => names.iter().any(|n| n.as_str() == Some(namespace)),
        Some(Value::Object(rule)) => rule.get("from").and_then(Value::as_str) == Some("All"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn own_namespace_allowed_pairs_and_agent_opt_in() {
        let agent: AgentRef = "team-a/weather".parse().unwrap();
        let none = Allowed::default();
        assert!(may_evaluate("team-a", &agent, &none, None).is_ok());
        let refused = may_evaluate("team-b", &agent, &none, None).unwrap_err();
        assert!(
            refused.contains("namespace team-b may not evaluate Agent team-a/weather"),
            "{refused}"
        );
        let pairs: Allowed = "team-b=team-a, qa=team-c".parse().unwrap();
        assert!(may_evaluate("team-b", &agent, &pairs, None).is_ok());
        assert!(may_evaluate("qa", &agent, &pairs, None).is_err());
        for (allowed, may) in [
            (json!(["team-b"]), true),
            (json!({"from": "All"}), true),
            (json!({"from": "Same"}), false),
        ] {
            let spec = json!({"allowedNamespaces": allowed});
            let result = may_evaluate("team-b", &agent, &none, Some(&spec));
            assert_eq!(result.is_ok(), may, "{spec}");
        }
        assert!("nonsense".parse::<Allowed>().is_err());
    }
}
