//! The judge prompts (texts under `prompts/`, documented in docs/judges.md)
//! and the rendering of a trajectory into them.

use crate::trajectory::Message;
use serde_json::{Value, json};

pub const SYSTEM: &str = include_str!("prompts/system.txt");
pub const TRAJECTORY: &str = include_str!("prompts/trajectory.txt");
pub const REFERENCE: &str = include_str!("prompts/reference.txt");
pub const OUTCOME: &str = include_str!("prompts/outcome.txt");
pub const SAFETY: &str = include_str!("prompts/safety.txt");
pub const CONVERSATION: &str = include_str!("prompts/conversation.txt");

/// Placeholders a template may use; `{{trajectory}}` is required.
pub const PLACEHOLDERS: [&str; 7] = [
    "trajectory",
    "reference",
    "reference_instructions",
    "goal",
    "forbidden_tools",
    "rubric",
    "question",
];

/// Tool output beyond this many characters is cut: a judge needs the gist,
/// and a context window is finite.
const TOOL_OUTPUT_LIMIT: usize = 4000;

/// A custom template's problem, if it has one.
pub fn check_template(template: &str) -> Result<(), String> {
    if !template.contains("{{trajectory}}") {
        return Err("a judge prompt template must contain {{trajectory}}".into());
    }
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            return Err("`{{` without a closing `}}`".into());
        };
        let name = after[..end].trim();
        if !PLACEHOLDERS.contains(&name) && name != "output_format" {
            return Err(format!(
                "unknown placeholder {{{{{name}}}}}; known: {}",
                PLACEHOLDERS.join(", ")
            ));
        }
        rest = &after[end + 2..];
    }
    Ok(())
}

/// `template` with each `{{name}}` replaced; the output format is appended
/// when the template does not place it.
pub fn fill(template: &str, values: &[(&str, &str)], output_format: &str) -> String {
    let mut text = template.to_string();
    for (name, value) in values {
        text = text.replace(&format!("{{{{{name}}}}}"), value);
    }
    for name in PLACEHOLDERS {
        text = text.replace(&format!("{{{{{name}}}}}"), "");
    }
    if text.contains("{{output_format}}") {
        text.replace("{{output_format}}", output_format)
    } else {
        format!("{}\n\n{output_format}", text.trim_end())
    }
}

/// The instruction that states the answer's shape, with its schema.
pub fn output_format(schema: &Value) -> String {
    format!(
        "Answer with a JSON object matching this JSON schema, and nothing else:\n{}",
        serde_json::to_string_pretty(schema).unwrap_or_default()
    )
}

/// One line per step: who spoke, which tool was called with which
/// arguments, what it returned.
pub fn render_trajectory(messages: &[Message]) -> String {
    let mut lines = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        let number = index + 1;
        let text = message.content_text();
        match message.role.as_str() {
            "tool" => {
                let tool = message.name.as_deref().unwrap_or("tool");
                lines.push(format!("[{number}] {tool} returned: {}", cut(&text)));
            }
            role => {
                if !text.trim().is_empty() {
                    lines.push(format!("[{number}] {role}: {}", text.trim()));
                }
                for call in message.tool_calls.iter().flatten() {
                    let args = match &call.function.arguments {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    lines.push(format!(
                        "[{number}] {role} called {}({args})",
                        call.function.name
                    ));
                }
            }
        }
    }
    if lines.is_empty() {
        "(the session has no messages)".into()
    } else {
        lines.join("\n")
    }
}

fn cut(text: &str) -> String {
    if text.chars().count() <= TOOL_OUTPUT_LIMIT {
        return text.to_string();
    }
    let kept: String = text.chars().take(TOOL_OUTPUT_LIMIT).collect();
    format!("{kept} … (cut at {TOOL_OUTPUT_LIMIT} characters)")
}

/// The answer schema of the trajectory judge.
pub fn trajectory_schema(continuous: bool) -> Value {
    let score = if continuous {
        json!({"type": "number", "description": "0 (poor) to 1 (excellent)"})
    } else {
        json!({"type": "boolean", "description": "true if the trajectory is good"})
    };
    json!({
        "type": "object",
        "properties": {
            "reasoning": {"type": "string", "description": "why, in a few sentences"},
            "score": score
        },
        "required": ["reasoning", "score"],
        "additionalProperties": false
    })
}

/// The answer schema of the outcome judge.
pub fn outcome_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "reasoning": {"type": "string", "description": "why, in a few sentences"},
            "score": {"type": "integer", "description": "the rubric score, 1 to 5"},
            "goal_met": {"type": "boolean"}
        },
        "required": ["reasoning", "score", "goal_met"],
        "additionalProperties": false
    })
}

/// The kinds of unsafe behaviour the safety judge names; `rubric` for a
/// rule of the suite's own.
pub const SAFETY_VIOLATIONS: [&str; 4] = [
    "harmful_content",
    "leaked_secret",
    "beyond_request",
    "rubric",
];

pub fn conversation_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "reasoning": {"type": "string", "description": "why, in a few sentences"},
            "score": {"type": "number", "description": "from 0 (no) to 1 (fully yes)"}
        },
        "required": ["reasoning", "score"],
        "additionalProperties": false
    })
}

pub fn safety_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "reasoning": {"type": "string", "description": "why, in a few sentences, quoting nothing secret"},
            "safe": {"type": "boolean"},
            "violations": {"type": "array", "items": {"type": "string", "enum": SAFETY_VIOLATIONS}}
        },
        "required": ["reasoning", "safe", "violations"],
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trajectory::{Function, ToolCall};

    #[test]
    fn a_trajectory_renders_calls_arguments_and_results_in_order() {
        let mut call = Message::text("assistant", String::new());
        call.tool_calls = Some(vec![ToolCall {
            kind: "function".into(),
            function: Function {
                name: "get_weather".into(),
                arguments: Value::String(r#"{"city": "Paris"}"#.into()),
            },
            id: None,
        }]);
        let mut result = Message::text("tool", "x".repeat(TOOL_OUTPUT_LIMIT + 10));
        result.name = Some("get_weather".into());
        let text = render_trajectory(&[
            Message::text("user", "Weather in Paris?".into()),
            call,
            result,
            Message::text("assistant", "Sunny.".into()),
        ]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "[1] user: Weather in Paris?");
        assert_eq!(
            lines[1],
            r#"[2] assistant called get_weather({"city": "Paris"})"#
        );
        assert!(lines[2].starts_with("[3] get_weather returned: xxx"));
        assert!(lines[2].ends_with("(cut at 4000 characters)"));
        assert_eq!(lines[3], "[4] assistant: Sunny.");
    }

    #[test]
    fn templates_are_checked_and_filled() {
        assert!(check_template("Judge {{trajectory}} for {{goal}}.").is_ok());
        assert!(
            check_template("Judge it.")
                .unwrap_err()
                .contains("{{trajectory}}")
        );
        assert!(
            check_template("{{trajectory}} {{colour}}")
                .unwrap_err()
                .contains("colour")
        );
        assert!(
            check_template("{{trajectory}} {{goal")
                .unwrap_err()
                .contains("closing")
        );
        let filled = fill(
            "A {{trajectory}} B {{goal}}",
            &[("trajectory", "T")],
            "FORMAT",
        );
        assert_eq!(filled, "A T B\n\nFORMAT");
        let placed = fill(
            "{{output_format}}\n{{trajectory}}",
            &[("trajectory", "T")],
            "F",
        );
        assert_eq!(placed, "F\nT");
    }

    #[test]
    fn the_built_in_prompts_use_only_known_placeholders() {
        for template in [TRAJECTORY, OUTCOME] {
            check_template(template).unwrap();
        }
    }
}
