//! The kagent Agent a suite evaluates, as the run saw it. kagent 0.10's
//! `kagent.dev/v1alpha2` Agent is one object; kagent 1.0's
//! `api.kagent.dev/v1alpha3` Agent pairs an AgentTemplate and a Harness,
//! each inline (`spec.template`, `spec.harness`) or named
//! (`spec.templateRef.name`, `spec.harnessRef.name`), as the 1.0 contract's
//! corrections say. These functions are pure:
//! the run reconciler reads the objects and hands them here. What they keep
//! is configuration, never a prompt's text or an environment value.

use crate::core::pyjson::{Layout, dumps_sorted};
use crate::core::suite::rules::NameKind;
use crate::core::suite::spec::AgentApiVersion;
use crate::k8s::crd::{AgentSnapshot, HarnessSnapshot, TemplateSnapshot};
use crate::k8s::names::short_hash;
use serde_json::{Value, json};

/// The two halves of a kagent 1.0 Agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Half {
    Template,
    Harness,
}

impl Half {
    /// The field of the Agent's spec that holds it inline.
    pub fn field(self) -> &'static str {
        match self {
            Half::Template => "template",
            Half::Harness => "harness",
        }
    }

    /// The field of the Agent's spec that names it (`.name`).
    pub fn reference_field(self) -> &'static str {
        match self {
            Half::Template => "templateRef",
            Half::Harness => "harnessRef",
        }
    }

    /// The kind of the object a reference names.
    pub fn kind(self) -> &'static str {
        match self {
            Half::Template => "AgentTemplate",
            Half::Harness => "Harness",
        }
    }
}

/// Where a half is: in the Agent, or in a local object of its kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Placement {
    Inline(Value),
    Named(String),
}

/// Where the Agent spec keeps `half`: exactly one of `template` (inline)
/// and `templateRef.name`, and of `harness` and `harnessRef.name`.
pub fn placement(agent_spec: &Value, half: Half) -> Result<Placement, String> {
    let (field, reference) = (half.field(), half.reference_field());
    let inline = agent_spec.get(field).filter(|v| !v.is_null());
    let named = agent_spec
        .get(reference)
        .and_then(|r| r.get("name"))
        .and_then(Value::as_str);
    match (inline, named) {
        (Some(spec), None) => Ok(Placement::Inline(spec.clone())),
        // The Agent is the tenant's: its reference goes into an API path
        // only when it is an object name.
        (None, Some(name)) if NameKind::Object.allows(name) => {
            Ok(Placement::Named(name.to_string()))
        }
        (None, Some(name)) if !name.is_empty() => Err(format!(
            "spec.{reference}.name {name:?} {}",
            NameKind::Object.message()
        )),
        (Some(_), Some(_)) => Err(format!(
            "spec sets both {field} and {reference}, where kagent allows one"
        )),
        _ => Err(format!(
            "spec has neither {field} nor {reference}.name, so its {} cannot be read",
            half.kind()
        )),
    }
}

/// A half as resolved: where it came from, and its spec.
#[derive(Clone, Debug, PartialEq)]
pub struct Resolved {
    pub from: String,
    pub spec: Value,
}

impl Resolved {
    pub fn new(half: Half, placement: &Placement, spec: Value) -> Resolved {
        let from = match placement {
            Placement::Inline(_) => "inline".to_string(),
            Placement::Named(name) => format!("{} {name}", half.kind()),
        };
        Resolved { from, spec }
    }
}

/// The snapshot of a kagent 0.10 Agent: its spec's generation and digest.
pub fn v1alpha2_snapshot(
    name: String,
    generation: Option<i64>,
    spec: Option<&Value>,
) -> AgentSnapshot {
    AgentSnapshot {
        name,
        generation,
        fingerprint: spec.map(fingerprint),
        ..AgentSnapshot::default()
    }
}

/// The snapshot of a kagent 1.0 Agent (`object` whole, as read) with its
/// template and harness resolved. The fingerprint covers all three, since
/// a referenced template can change the revision without the Agent's
/// generation changing.
pub fn v1alpha3_snapshot(
    name: String,
    generation: Option<i64>,
    object: &Value,
    template: &Resolved,
    harness: &Resolved,
) -> AgentSnapshot {
    let status = &object["status"];
    let text = |v: &Value| v.as_str().filter(|s| !s.is_empty()).map(str::to_string);
    AgentSnapshot {
        name,
        api_version: Some(AgentApiVersion::V1Alpha3),
        generation,
        fingerprint: Some(fingerprint(&json!({
            "agent": object["spec"],
            "template": template.spec,
            "harness": harness.spec,
        }))),
        observed_generation: status["observedGeneration"].as_i64(),
        latest_successful_revision: text(&status["latestSuccessfulRevision"]),
        template: Some(TemplateSnapshot {
            from: template.from.clone(),
            model_config: text(&template.spec["modelConfig"]["name"]),
            prompt: prompt(&template.spec),
            tools: template.spec["tools"]
                .as_array()
                .map(|tools| tools.iter().map(tool).collect())
                .unwrap_or_default(),
        }),
        harness: Some(HarnessSnapshot {
            from: harness.from.clone(),
            kind: harness_kind(&harness.spec),
        }),
    }
}

/// A short, stable digest of a JSON value (keys sorted).
pub fn fingerprint(value: &Value) -> String {
    short_hash(&dumps_sorted(value, Layout::Compact), 16)
}

/// Where the system prompt comes from; an inline prompt by its digest, so
/// that a changed prompt shows without its text.
fn prompt(template: &Value) -> Option<String> {
    if let Some(text) = template["systemPrompt"].as_str() {
        return Some(format!("inline (sha256 {})", short_hash(text, 16)));
    }
    let from = template.get("systemPromptFrom")?;
    let name = from["name"].as_str().unwrap_or("?");
    let kind = from["type"]
        .as_str()
        .or(from["kind"].as_str())
        .unwrap_or("ConfigMap");
    Some(match from["key"].as_str() {
        Some(key) => format!("{kind} {name} key {key}"),
        None => format!("{kind} {name}"),
    })
}

/// One tool binding in a line: an MCP server and its tools (those that
/// need approval marked), or a sub-agent; a form this does not know is
/// named by its keys rather than left out.
fn tool(binding: &Value) -> String {
    if let Some(mcp) = binding.get("mcp") {
        let server = &mcp["server"];
        let kind = server["kind"].as_str().unwrap_or("RemoteMCPServer");
        let name = server["name"].as_str().unwrap_or("?");
        let approval: Vec<&str> = strings(&mcp["requireApproval"]);
        let tools: Vec<String> = strings(&mcp["tools"])
            .into_iter()
            .map(|t| {
                if approval.contains(&t) {
                    format!("{t} (approval)")
                } else {
                    t.to_string()
                }
            })
            .collect();
        return match tools.is_empty() {
            true => format!("mcp {kind}/{name}: every tool"),
            false => format!("mcp {kind}/{name}: {}", tools.join(", ")),
        };
    }
    if let Some(sub) = binding.get("subAgent") {
        return format!("subAgent {}", sub["name"].as_str().unwrap_or("?"));
    }
    let keys: Vec<&str> = binding
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    format!("unknown binding ({})", keys.join(", "))
}

fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// kagent, claude, codex or byo: the one the spec sets.
fn harness_kind(harness: &Value) -> String {
    let set: Vec<&str> = ["kagent", "claude", "codex", "byo"]
        .into_iter()
        .filter(|kind| harness.get(*kind).is_some_and(|v| !v.is_null()))
        .collect();
    match set.as_slice() {
        [kind] => kind.to_string(),
        [] => "unknown (none of kagent, claude, codex, byo)".into(),
        many => format!("unknown (sets {})", many.join(", ")),
    }
}

/// What differs between two snapshots of one Agent, in words, for a
/// regression's cause; empty when nothing read differs.
pub fn changes(before: &AgentSnapshot, after: &AgentSnapshot) -> Vec<String> {
    let mut said = Vec::new();
    let mut differ = |what: &str, a: String, b: String| {
        if a != b {
            said.push(format!("{what} {a} -> {b}"));
        }
    };
    let or_unknown = |v: &Option<String>| v.clone().unwrap_or_else(|| "unknown".into());
    differ(
        "revision",
        or_unknown(&before.latest_successful_revision),
        or_unknown(&after.latest_successful_revision),
    );
    let template = |s: &AgentSnapshot| s.template.clone().unwrap_or_default();
    let (t0, t1) = (template(before), template(after));
    differ("template", t0.from, t1.from);
    differ(
        "model config",
        or_unknown(&t0.model_config),
        or_unknown(&t1.model_config),
    );
    differ("prompt", or_unknown(&t0.prompt), or_unknown(&t1.prompt));
    differ(
        "tools",
        format!("[{}]", t0.tools.join("; ")),
        format!("[{}]", t1.tools.join("; ")),
    );
    let harness = |s: &AgentSnapshot| s.harness.clone().unwrap_or_default();
    let (h0, h1) = (harness(before), harness(after));
    differ(
        "harness",
        format!("{} {}", h0.kind, h0.from),
        format!("{} {}", h1.kind, h1.from),
    );
    said
}

#[cfg(test)]
mod tests;
