//! A golden case made from a real session: its input, its tool calls in
//! order as the reference, its final answer, and budgets at what it used
//! with headroom. What a person should review before committing it is
//! listed beside it: arguments that look volatile, measures missing.

use crate::convert::ConvertOptions;
use crate::efficiency::{self, Measure};
use crate::score::trajectory_match::MatchMode;
use crate::session::Session;
use crate::suite::evaluate::SessionView;
use crate::suite::spec::Case;
use crate::trajectory::Message;
use regex::Regex;
use serde_json::{Value, json};
use std::sync::LazyLock;

/// How a case is made.
#[derive(Clone, Debug)]
pub struct HarvestOptions {
    pub name: String,
    /// A probe case (its user turns sent to the Agent) instead of one that
    /// scores the recent sessions asking what this one asked.
    pub probe: bool,
    /// How the trajectory is compared with the reference.
    pub mode: MatchMode,
    /// Budgets are what the session used times this.
    pub headroom: f64,
}

/// The case, and what to review in it.
#[derive(Clone, Debug)]
pub struct Harvest {
    pub case: Case,
    /// What a person should check before trusting the case.
    pub review: Vec<String>,
    /// What makes the case weaker than it looks.
    pub warnings: Vec<String>,
}

/// Tool results in the reference: the calls are compared, never the
/// results, and a placeholder keeps a tool's output (content) out of the
/// suite file.
fn result_placeholder(tool: &str) -> String {
    format!("(result of {tool})")
}

/// Make a case from `session`. `Err` when the session has nothing a case
/// could hold (no user message, nothing to score).
pub fn harvest(session: &Session, options: &HarvestOptions) -> Result<Harvest, String> {
    let convert = ConvertOptions::default();
    let view = SessionView::new(session, None, &convert)?;
    let turns: Vec<String> = view
        .messages
        .iter()
        .filter(|m| m.role == "user")
        .filter_map(|m| m.content.as_str().map(str::to_string))
        .collect();
    let first = turns
        .first()
        .cloned()
        .ok_or("the session has no user message to make the case's input from")?;
    let mut review = Vec::new();
    let mut warnings = Vec::new();

    let reference = reference(&view.messages);
    let calls = view.calls();
    // Each tool once, in the order first called.
    let mut distinct: Vec<&str> = Vec::new();
    for call in &calls {
        if !distinct.contains(&call.name.as_str()) {
            distinct.push(&call.name);
        }
    }
    for (i, call) in calls.iter().enumerate() {
        let args = call.args.to_object();
        volatile(&args, &mut String::new(), &mut |path, value, kind| {
            review.push(format!(
                "call {} `{}`: argument `{path}` = `{value}` looks like {kind}, which changes from run to run: compare the other arguments only (`overrides: [{{tool: {}, keys: [...]}}]`) or use argsMode `ignore`",
                i + 1,
                call.name,
                call.name
            ));
        });
    }
    if calls.is_empty() {
        warnings.push(
            "the session calls no tool: the reference trajectory is empty, and a subset check alone then proves nothing (an agent that calls nothing passes it)".into(),
        );
    }

    let mut evaluators = vec![json!({
        "name": "trajectory",
        "type": "trajectoryMatch",
        "trajectoryMatch": {"mode": options.mode, "argsMode": "exact", "reference": reference},
    })];
    if !distinct.is_empty() {
        evaluators.push(json!({
            "name": "tools-used", "type": "toolsUsed",
            "toolsUsed": {"mode": "superset", "expected": distinct},
        }));
        evaluators.push(json!({
            "name": "forbidden-tools", "type": "safety",
            "safety": {"required": distinct, "forbidden": []},
        }));
        review.push(
            "forbidden-tools: list the tools this agent must never call under `forbidden`".into(),
        );
    }
    let answer = view
        .invocations
        .last()
        .map(|i| i.final_response.clone())
        .unwrap_or_default();
    if answer.is_empty() {
        warnings.push("the session has no final answer: no response is compared".into());
    } else {
        evaluators.push(json!({
            "name": "final-response", "type": "responseMatch",
            "responseMatch": {"reference": answer},
        }));
    }
    evaluators.push(budget(
        session,
        calls.len() as u64,
        options.headroom,
        &mut review,
    ));

    let mut case = json!({"name": options.name, "tags": ["harvested"], "evaluators": evaluators});
    if options.probe {
        case["probe"] = match turns.as_slice() {
            [one] => json!({"input": one}),
            many => json!({"conversation": many}),
        };
    } else {
        case["match"] = json!({"contains": first});
        if turns.len() > 1 {
            review.push(format!(
                "the session has {} user turns; the case scores recent sessions whose first message contains the first (pass --probe to send every turn to the Agent instead)",
                turns.len()
            ));
        }
    }
    let case: Case = serde_json::from_value(case).map_err(|e| format!("the case: {e}"))?;
    Ok(Harvest {
        case,
        review,
        warnings,
    })
}

/// The session's messages as a reference: user turns and tool calls as
/// they were (ids left out), tool results and answers as placeholders.
fn reference(messages: &[Message]) -> Vec<Value> {
    messages
        .iter()
        .map(|m| match (m.role.as_str(), &m.tool_calls) {
            ("assistant", Some(calls)) if !calls.is_empty() => json!({
                "role": "assistant",
                "content": "",
                "tool_calls": calls.iter().map(|c| json!({
                    "type": "function",
                    "function": {"name": c.function.name, "arguments": c.function.arguments},
                })).collect::<Vec<_>>(),
            }),
            ("tool", _) => json!({
                "role": "tool",
                "content": result_placeholder(m.name.as_deref().unwrap_or("the tool")),
            }),
            ("assistant", _) => json!({"role": "assistant", "content": "(the answer)"}),
            (role, _) => json!({"role": role, "content": m.content}),
        })
        .collect()
}

/// A budget at what the session used times `headroom`, each measure the
/// record lacks named for review.
fn budget(session: &Session, tool_calls: u64, headroom: f64, review: &mut Vec<String>) -> Value {
    let events: Vec<&crate::event::Event> = session.events.iter().collect();
    let used = efficiency::measure(&events, &[]);
    let mut budget = json!({"maxSteps": (tool_calls as f64 * headroom).ceil() as u64});
    let mut measured = vec![format!("{tool_calls} tool calls")];
    match used.total_tokens {
        Measure::Measured(tokens) => {
            budget["maxTokens"] = json!((tokens as f64 * headroom).ceil() as u64);
            measured.push(format!("{tokens} tokens"));
        }
        Measure::Unmeasured { unmeasured } => review.push(format!("no token budget: {unmeasured}")),
    }
    match used.latency_seconds {
        Measure::Measured(seconds) => {
            budget["maxLatencySeconds"] = json!(((seconds * headroom) * 10.0).ceil() / 10.0);
            measured.push(format!("{seconds:.1} s"));
        }
        Measure::Unmeasured { unmeasured } => {
            review.push(format!("no latency budget: {unmeasured}"))
        }
    }
    review.push(format!(
        "budget: the session used {}; the limits are {headroom}x that",
        measured.join(", ")
    ));
    json!({"name": "budget", "type": "budget", "budget": budget})
}

/// Values that differ between runs of one task.
static VOLATILE: LazyLock<[(Regex, &'static str); 4]> = LazyLock::new(|| {
    let re = |p: &str| Regex::new(p).expect("valid regex");
    [
        (
            re(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"),
            "an id (a UUID)",
        ),
        (
            re(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$"),
            "a date or timestamp",
        ),
        (re(r"^[0-9a-fA-F]{16,}$"), "an id (hex)"),
        (re(r"^\d{10,13}$"), "a Unix timestamp or an id"),
    ]
});

/// Call `found` for every volatile-looking string or number beneath `value`.
fn volatile(value: &Value, path: &mut String, found: &mut impl FnMut(&str, &str, &str)) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                volatile(item, path, found);
                path.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                volatile(item, path, found);
                path.truncate(len);
            }
        }
        Value::String(_) | Value::Number(_) => {
            let text = match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if let Some((_, kind)) = VOLATILE.iter().find(|(re, _)| re.is_match(&text)) {
                found(path, &text, kind);
            }
        }
        _ => {}
    }
}
