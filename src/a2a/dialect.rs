//! What differs between the A2A versions a probe speaks, as pure functions
//! over JSON: the method names and headers, a user message, and how an
//! answer reads. A body of the other version is named as such, never
//! half-read.
//!
//! - A2A 0.3 (kagent 0.10): `message/send` and `tasks/get`; objects carry
//!   `kind` (`task`, `message`, `text`, `data`); states are lower-case
//!   (`completed`, `input-required`).
//! - A2A 1.0 (kagent 1.0, §7 of the 1.0 contract): `SendMessage` and
//!   `GetTask` with the `A2A-Version: 1.0` header; proto3 JSON, so parts are
//!   told apart by the field they set and states are enum names
//!   (`TASK_STATE_COMPLETED`); `SendMessage` answers `{"task": …}` or
//!   `{"message": …}`.

pub use crate::core::a2a_v1::timeline::HITL_EXTENSION;
use crate::core::suite::spec::A2aProtocol;
use serde_json::{Value, json};

/// The header A2A 1.0 clients name their version in.
pub const VERSION_HEADER: &str = "A2A-Version";

/// kagent's extensions a probe activates on every A2A 1.0 request: usage
/// on the status update that ends an execution, and human-in-the-loop
/// pauses as structured requests.
const ACTIVATED: &str =
    "https://kagent.dev/extensions/usage/v1,https://kagent.dev/extensions/hitl/v1";

/// A task's state, whichever version spelt it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum State {
    Submitted,
    Working,
    Completed,
    Failed,
    Canceled,
    Rejected,
    InputRequired,
    AuthRequired,
    /// A state this tool does not know (A2A 0.3's `unknown`, a newer one).
    Other(String),
}

impl State {
    /// Whether the task has stopped, for good or until someone answers it.
    pub fn is_settled(&self) -> bool {
        !matches!(self, State::Submitted | State::Working | State::Other(_))
    }

    fn read(protocol: A2aProtocol, text: &str) -> Result<State, String> {
        let v1 = text.strip_prefix("TASK_STATE_");
        let name = match (protocol, v1) {
            (A2aProtocol::V1_0, Some(name)) => name.to_ascii_lowercase().replace('_', "-"),
            (A2aProtocol::V0_3, None) => text.to_string(),
            (A2aProtocol::V0_3, Some(_)) => {
                return Err(format!("a task state of A2A 1.0 ({text:?})"));
            }
            (A2aProtocol::V1_0, None) => {
                return Err(format!("a task state of A2A 0.3 ({text:?})"));
            }
        };
        Ok(match name.as_str() {
            "submitted" => State::Submitted,
            "working" => State::Working,
            "completed" => State::Completed,
            "failed" => State::Failed,
            "canceled" => State::Canceled,
            "rejected" => State::Rejected,
            "input-required" => State::InputRequired,
            "auth-required" => State::AuthRequired,
            _ => State::Other(text.to_string()),
        })
    }

    /// The state in words, for a failed run's reason.
    pub fn words(&self) -> &str {
        match self {
            State::Submitted => "submitted",
            State::Working => "working",
            State::Completed => "completed",
            State::Failed => "failed",
            State::Canceled => "canceled",
            State::Rejected => "rejected",
            State::InputRequired => "input-required",
            State::AuthRequired => "auth-required",
            State::Other(text) => text,
        }
    }
}

/// A task as far as a probe needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskView {
    pub id: Option<String>,
    pub context: Option<String>,
    pub state: State,
    /// What an input-required task waits for, when it says so in a way a
    /// probe can answer.
    pub pause: Option<Pause>,
    /// What the Agent said to the user, as a user would read it: the text
    /// of its artifacts, else of its status message, else of its last
    /// message. Only a simulated user reads it.
    pub reply: String,
}

/// What a paused task asks of its user.
#[derive(Clone, Debug, PartialEq)]
pub enum Pause {
    /// ADK's `adk_request_confirmation` call (kagent 0.10): the tool.
    Confirmation { tool: String },
    /// kagent's HITL extension: tool calls to approve, each by the opaque
    /// id its answer must return, and the tool's name.
    Approvals { tools: Vec<(String, String)> },
    /// kagent's HITL extension: questions for the user, answered by the
    /// request's id (a nested question's, the child's).
    Questions { id: String, questions: Vec<String> },
}

/// What the Agent answered a message with.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// A message: the turn is over.
    Message {
        context: Option<String>,
        /// Its text parts.
        reply: String,
    },
    Task(TaskView),
}

impl Answer {
    pub fn context(&self) -> Option<&str> {
        match self {
            Answer::Message { context, .. } => context.as_deref(),
            Answer::Task(task) => task.context.as_deref(),
        }
    }
}

/// What a user message holds.
pub enum Content<'a> {
    Text(&'a str),
    Data(Value),
    /// A HITL extension answer: its payload and the words shown beside it.
    Hitl {
        payload: Value,
        text: &'a str,
    },
}

pub fn send_method(protocol: A2aProtocol) -> &'static str {
    match protocol {
        A2aProtocol::V0_3 => "message/send",
        A2aProtocol::V1_0 => "SendMessage",
    }
}

pub fn get_method(protocol: A2aProtocol) -> &'static str {
    match protocol {
        A2aProtocol::V0_3 => "tasks/get",
        A2aProtocol::V1_0 => "GetTask",
    }
}

/// Headers every request of this version carries.
pub fn headers(protocol: A2aProtocol) -> &'static [(&'static str, &'static str)] {
    match protocol {
        A2aProtocol::V0_3 => &[],
        A2aProtocol::V1_0 => &[(VERSION_HEADER, "1.0"), ("A2A-Extensions", ACTIVATED)],
    }
}

/// A user message `id` in the conversation `context`, continuing `task`
/// when it answers one. In A2A 1.0 a first message names no conversation:
/// kagent opens the Session and answers with its id.
pub fn user_message(
    protocol: A2aProtocol,
    id: &str,
    context: Option<&str>,
    task: Option<&str>,
    content: Content<'_>,
) -> Value {
    let mut message = match protocol {
        A2aProtocol::V0_3 => {
            let part = match content {
                Content::Text(text) => json!({"kind": "text", "text": text}),
                Content::Data(data) | Content::Hitl { payload: data, .. } => {
                    json!({"kind": "data", "data": data})
                }
            };
            json!({"kind": "message", "role": "user", "messageId": id, "parts": [part]})
        }
        A2aProtocol::V1_0 => {
            let (part, hitl) = match content {
                Content::Text(text) => (json!({"text": text}), None),
                Content::Data(data) => (json!({"data": data}), None),
                Content::Hitl { payload, text } => (json!({"text": text}), Some(payload)),
            };
            let mut message = json!({"role": "ROLE_USER", "messageId": id, "parts": [part]});
            // kagent reads an answer only from a message that declares the
            // extension and carries its payload under the extension's URI.
            if let Some(payload) = hitl {
                message["extensions"] = json!([HITL_EXTENSION]);
                message["metadata"] = json!({HITL_EXTENSION: payload});
            }
            message
        }
    };
    if let Some(context) = context {
        message["contextId"] = json!(context);
    }
    if let Some(task) = task {
        message["taskId"] = json!(task);
    }
    message
}

/// What a `send_method` result says, or which version's body it is instead.
pub fn read_send(protocol: A2aProtocol, result: &Value) -> Result<Answer, String> {
    match protocol {
        A2aProtocol::V0_3 => {
            if result.get("task").is_some() || result.get("message").is_some() {
                return Err(mismatch(
                    protocol,
                    "a SendMessageResponse of A2A 1.0 (`task`/`message`, no `kind`)",
                ));
            }
            match result.get("kind").and_then(Value::as_str) {
                Some("message") => Ok(Answer::Message {
                    context: text(&result["contextId"]),
                    reply: texts(&result["parts"]),
                }),
                Some("task") => read_task(protocol, result).map(Answer::Task),
                Some(other) => Err(format!(
                    "answered with a {other:?}, not a task or a message"
                )),
                None => Err(mismatch(protocol, "an object without `kind`")),
            }
        }
        A2aProtocol::V1_0 => {
            if let Some(kind) = result.get("kind") {
                return Err(mismatch(
                    protocol,
                    &format!("a body of A2A 0.3 (`kind`: {kind})"),
                ));
            }
            match (result.get("task"), result.get("message")) {
                (Some(task), None) => read_task(protocol, task).map(Answer::Task),
                (None, Some(message)) => Ok(Answer::Message {
                    context: text(&message["contextId"]),
                    reply: texts(&message["parts"]),
                }),
                _ => Err(mismatch(
                    protocol,
                    "an object with neither or both of `task` and `message`",
                )),
            }
        }
    }
}

/// What a `get_method` result (a task) says.
pub fn read_get(protocol: A2aProtocol, result: &Value) -> Result<TaskView, String> {
    if protocol == A2aProtocol::V1_0 && result.get("kind").is_some() {
        return Err(mismatch(protocol, "a task of A2A 0.3 (`kind`)"));
    }
    read_task(protocol, result)
}

fn read_task(protocol: A2aProtocol, task: &Value) -> Result<TaskView, String> {
    let state = match task["status"]["state"].as_str() {
        Some(state) => State::read(protocol, state).map_err(|e| mismatch(protocol, &e))?,
        None => State::Other(String::new()),
    };
    Ok(TaskView {
        id: text(&task["id"]),
        context: text(&task["contextId"]),
        pause: (state == State::InputRequired)
            .then(|| hitl_request(&task["status"]["message"]).or_else(|| confirmation(task)))
            .flatten(),
        reply: reply_of(task),
        state,
    })
}

/// The text parts of a list of parts, one a line: a text part is
/// `{"kind": "text", "text": …}` in 0.3 and `{"text": …}` in 1.0.
fn texts(parts: &Value) -> String {
    let lines: Vec<&str> = parts
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["text"].as_str())
        .filter(|t| !t.trim().is_empty())
        .collect();
    lines.join("\n")
}

/// What a task says to the user: its artifacts, else its status message,
/// else the last message of its history from the Agent (`agent` in 0.3,
/// `ROLE_AGENT` in 1.0).
fn reply_of(task: &Value) -> String {
    let artifacts: Vec<String> = task["artifacts"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|a| texts(&a["parts"]))
        .filter(|t| !t.is_empty())
        .collect();
    if !artifacts.is_empty() {
        return artifacts.join("\n");
    }
    let status = texts(&task["status"]["message"]["parts"]);
    if !status.is_empty() {
        return status;
    }
    task["history"]
        .as_array()
        .into_iter()
        .flatten()
        .rev()
        .find(|m| matches!(m["role"].as_str(), Some("agent" | "ROLE_AGENT")))
        .map(|m| texts(&m["parts"]))
        .unwrap_or_default()
}

fn mismatch(protocol: A2aProtocol, found: &str) -> String {
    format!(
        "answered an {} request with {found}: the Agent speaks another A2A version (set probes.protocol, or --a2a-protocol)",
        protocol.words()
    )
}

fn text(value: &Value) -> Option<String> {
    value.as_str().map(str::to_string)
}

/// The tool an `input-required` task asks to approve: ADK's
/// `adk_request_confirmation` call, in the status message or the last
/// history message. A data part is `{"kind": "data", "data": …}` in 0.3
/// and `{"data": …}` in 1.0; both have `data`.
fn confirmation(task: &Value) -> Option<Pause> {
    let status = task["status"]["message"]["parts"].as_array();
    let history = task["history"]
        .as_array()
        .and_then(|h| h.last())
        .and_then(|m| m["parts"].as_array());
    status
        .into_iter()
        .chain(history)
        .flatten()
        .find(|p| p["data"]["name"] == "adk_request_confirmation")
        .map(|p| {
            let call = &p["data"]["args"]["originalFunctionCall"];
            Pause::Confirmation {
                tool: call["name"].as_str().unwrap_or("a tool").to_string(),
            }
        })
}

/// A HITL extension request in a pause's status message: only from a
/// message that declares the extension, never guessed from its text. The
/// tools of a nested request are the ones being authorised.
fn hitl_request(message: &Value) -> Option<Pause> {
    let declared = message["extensions"]
        .as_array()
        .is_some_and(|e| e.iter().any(|u| u == HITL_EXTENSION));
    let request = declared.then(|| &message["metadata"][HITL_EXTENSION])?;
    let tools = request["nested"]["tools"]
        .as_array()
        .or(request["tools"].as_array());
    match request["type"].as_str()? {
        "tool_approval_request" => Some(Pause::Approvals {
            tools: tools
                .into_iter()
                .flatten()
                .map(|t| {
                    let id = t["id"].as_str().unwrap_or_default().to_string();
                    (id, t["name"].as_str().unwrap_or("a tool").to_string())
                })
                .collect(),
        }),
        "ask_user_request" => Some(Pause::Questions {
            id: tools.and_then(|t| t.first()).unwrap_or(request)["id"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            questions: request["questions"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|q| q["question"].as_str().unwrap_or_default().to_string())
                .collect(),
        }),
        _ => None,
    }
}

/// The HITL answer to approvals: every id exactly once, each approved or
/// rejected with `reason`.
pub fn approvals_response(tools: &[(String, String)], reason: Option<&str>) -> Value {
    let approvals: Vec<Value> = tools
        .iter()
        .map(|(id, _)| match reason {
            None => json!({"id": id, "approved": true}),
            Some(reason) => json!({"id": id, "approved": false, "rejection_reason": reason}),
        })
        .collect();
    json!({"type": "tool_approval_response", "approvals": approvals})
}

/// The HITL answer to questions: one `{answer: [...]}` per question, in
/// order, as kagent's runtimes read it (its architecture document's shape;
/// the contract's `[[string]]` is not what they parse).
pub fn questions_response(id: &str, answers: &[Vec<String>]) -> Value {
    let answers: Vec<Value> = answers.iter().map(|a| json!({"answer": a})).collect();
    json!({"type": "ask_user_response", "id": id, "answers": answers})
}

#[cfg(test)]
mod tests;
