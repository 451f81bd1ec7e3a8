//! The simulated user of a scenario probe: the project's own prompt
//! (`prompts/user_simulator.txt`), each turn written from the plan, the
//! persona and the conversation so far, and the word that the plan is
//! done. It sees what a user would see: the Agent's replies, never its
//! tool calls. What it writes is only ever sent as a user message.

use super::{
    ANSWER_ATTEMPTS, ChatMessage, Judge, JudgeError, JudgeRequest, JudgeUsage, parse, prompt,
};
use crate::suite::compile::Scenario;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub const PROMPT: &str = include_str!("prompts/user_simulator.txt");

/// Who said a line of a simulated conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Speaker {
    User,
    Agent,
}

/// One line of a simulated conversation, for the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Exchange {
    pub speaker: Speaker,
    pub text: String,
}

/// What the simulated user does next.
#[derive(Clone, Debug, PartialEq)]
pub enum Next {
    Say(String),
    /// The plan is done (or the Agent said it cannot do it).
    Finished,
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "finished": {"type": "boolean", "description": "true when the plan is done"},
            "message": {"type": "string", "description": "the user's next message; empty when finished"}
        },
        "required": ["finished", "message"],
        "additionalProperties": false
    })
}

/// The request for the user's next turn: the prompt, then the
/// conversation with the roles turned about (the model plays the user).
pub fn request(scenario: &Scenario, transcript: &[Exchange]) -> JudgeRequest {
    let persona = scenario
        .persona
        .as_deref()
        .map(|p| format!("\nWho you are: {p}\n"))
        .unwrap_or_default();
    let schema = schema();
    let system = PROMPT
        .replace("{{plan}}", scenario.plan.trim())
        .replace("{{persona}}", &persona);
    let mut messages = vec![ChatMessage {
        role: "system",
        content: format!(
            "{}\n\n{}",
            system.trim_end(),
            prompt::output_format(&schema)
        ),
    }];
    messages.extend(transcript.iter().map(|line| ChatMessage {
        role: match line.speaker {
            Speaker::Agent => "user",
            Speaker::User => "assistant",
        },
        content: line.text.clone(),
    }));
    JudgeRequest {
        messages,
        schema_name: "simulated_user_turn",
        schema,
        temperature: scenario.temperature,
        model: scenario.model.clone(),
    }
}

/// Ask `judge` for the simulated user's next turn, asking again when the
/// answer cannot be read.
pub async fn next_turn(
    scenario: &Scenario,
    transcript: &[Exchange],
    judge: &impl Judge,
    usage: &mut JudgeUsage,
) -> Result<Next, JudgeError> {
    let request = request(scenario, transcript);
    let mut problem = String::new();
    for _ in 0..ANSWER_ATTEMPTS {
        let answer = judge.ask(&request).await?;
        usage.add(&answer);
        match parse::json_object(&answer.content).and_then(|o| read(&o)) {
            Ok(next) => return Ok(next),
            Err(why) => problem = why,
        }
    }
    Err(JudgeError(format!(
        "the simulated user gave no readable turn in {ANSWER_ATTEMPTS} attempts: {problem}"
    )))
}

fn read(object: &serde_json::Map<String, Value>) -> Result<Next, String> {
    if parse::boolean(object, "finished")? {
        return Ok(Next::Finished);
    }
    match object.get("message").and_then(Value::as_str).map(str::trim) {
        Some(text) if !text.is_empty() => Ok(Next::Say(text.to_string())),
        _ => Err("not finished, and no message".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario() -> Scenario {
        Scenario {
            starting_prompt: "I need the weather".into(),
            plan: "Ask for the weather in London.".into(),
            persona: Some("a terse commuter".into()),
            max_turns: 3,
            model: None,
            temperature: Some(0.2),
        }
    }

    #[test]
    fn the_simulator_reads_the_agents_replies_as_the_user_turns() {
        let transcript = [
            Exchange {
                speaker: Speaker::User,
                text: "I need the weather".into(),
            },
            Exchange {
                speaker: Speaker::Agent,
                text: "Which city?".into(),
            },
        ];
        let request = request(&scenario(), &transcript);
        assert_eq!(request.temperature, Some(0.2));
        let roles: Vec<&str> = request.messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, ["system", "assistant", "user"]);
        let system = &request.messages[0].content;
        assert!(
            system.contains("Ask for the weather in London.")
                && system.contains("a terse commuter"),
            "{system}"
        );
        assert!(!system.contains("{{"), "{system}");
        assert_eq!(request.messages[2].content, "Which city?");
    }

    #[test]
    fn finished_or_a_message_and_nothing_else() {
        let object = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(
            read(&object(json!({"finished": true, "message": ""}))),
            Ok(Next::Finished)
        );
        assert_eq!(
            read(&object(json!({"finished": false, "message": " London "}))),
            Ok(Next::Say("London".into()))
        );
        assert!(read(&object(json!({"finished": false, "message": ""}))).is_err());
    }
}
