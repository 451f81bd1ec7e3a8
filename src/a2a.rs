//! Probes over A2A: a golden task sent to an Agent as it runs, through the
//! A2A endpoint kagent serves for it (JSON-RPC 2.0, A2A 0.3 `message/send`,
//! `tasks/get`). The A2A `contextId` is the id of the session the Agent
//! records, so the run that follows reads exactly that session.
//!
//! A probe acts as its own user (`X-User-Id`) and carries no credential:
//! whatever identity runs kagent-evals is never lent to the Agent, whose
//! runtime records request headers in the session.

use crate::core::suite::compile::Probe;
use crate::core::suite::spec::Approvals;
use crate::http_client::{self, HttpError, Retry};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::time::Instant;

/// How a probe run ended, when the Agent could be asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProbeEnd {
    /// Every turn was answered: the session is there to score.
    Completed,
    /// The run ended before its last answer (the task failed, timed out,
    /// or waited for an approval the case does not give): a failed run.
    Failed(String),
}

/// The Agent's endpoint is down or answered an error: the run itself
/// cannot be done.
#[derive(Debug, thiserror::Error)]
#[error("the Agent's A2A endpoint {url} {detail}")]
pub struct AgentUnavailable {
    pub url: String,
    pub detail: String,
}

/// The A2A endpoint of one Agent.
#[derive(Clone, Debug)]
pub struct A2aClient {
    url: String,
    client: reqwest::Client,
}

/// Pause between `tasks/get` polls of a task that is still working.
const POLL: Duration = Duration::from_millis(500);

/// Terminal and interrupted task states, as A2A 0.3 spells them.
fn is_settled(state: &str) -> bool {
    matches!(
        state,
        "completed" | "failed" | "canceled" | "rejected" | "input-required" | "auth-required"
    )
}

impl A2aClient {
    pub fn new(url: &str) -> Result<Self, String> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(format!("the A2A URL {url} is not an http(s) URL"));
        }
        // Each request may wait for the Agent's whole turn; the probe's own
        // timeout bounds the run.
        let client = http_client::client(Duration::from_secs(3600))?;
        Ok(A2aClient {
            url: url.to_string(),
            client,
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Run one probe in the conversation `context`: every turn in order,
    /// approvals answered as the case says, within the probe's timeout.
    pub async fn run(&self, probe: &Probe, context: &str) -> Result<ProbeEnd, AgentUnavailable> {
        let deadline = Instant::now() + probe.timeout;
        match tokio::time::timeout_at(deadline, self.turns(probe, context, deadline)).await {
            Ok(ended) => ended,
            Err(_) => Ok(ProbeEnd::Failed(format!(
                "no answer within {}s",
                probe.timeout.as_secs()
            ))),
        }
    }

    async fn turns(
        &self,
        probe: &Probe,
        context: &str,
        deadline: Instant,
    ) -> Result<ProbeEnd, AgentUnavailable> {
        for (number, text) in probe.turns.iter().enumerate() {
            let mut message = user_message(context, None, json!([{"kind": "text", "text": text}]));
            loop {
                let result = self
                    .call(
                        &probe.user_id,
                        "message/send",
                        json!({"message": message}),
                        1,
                    )
                    .await?;
                let task = self.settle(&probe.user_id, result, deadline).await?;
                let state = task["status"]["state"].as_str().unwrap_or("");
                match state {
                    "completed" | "" => break,
                    "input-required" => {
                        let Some(tool) = confirmation(&task) else {
                            return Ok(ProbeEnd::Failed(format!(
                                "turn {}: the Agent asked the user a question; a probe only answers approvals",
                                number + 1
                            )));
                        };
                        let decision = match probe.approvals {
                            Approvals::Fail => {
                                return Ok(ProbeEnd::Failed(format!(
                                    "turn {}: the Agent asked to approve a call to {tool}, and the probe's approvals are `fail`",
                                    number + 1
                                )));
                            }
                            Approvals::Approve => json!({"decision_type": "approve"}),
                            Approvals::Reject => json!({
                                "decision_type": "reject",
                                "rejection_reason": "rejected by the kagent-evals probe"
                            }),
                        };
                        message = user_message(
                            context,
                            task["id"].as_str(),
                            json!([{"kind": "data", "data": decision}]),
                        );
                    }
                    // The status message may quote the conversation: not said.
                    other => {
                        return Ok(ProbeEnd::Failed(format!(
                            "turn {}: the task ended {other}",
                            number + 1
                        )));
                    }
                }
            }
        }
        Ok(ProbeEnd::Completed)
    }

    /// Wait for a task that is still working to settle; a message answer
    /// is a completed turn.
    async fn settle(
        &self,
        user: &str,
        mut result: Value,
        deadline: Instant,
    ) -> Result<Value, AgentUnavailable> {
        loop {
            if result["kind"] == "message" {
                return Ok(json!({"status": {"state": "completed"}}));
            }
            let state = result["status"]["state"].as_str().unwrap_or("");
            if is_settled(state) {
                return Ok(result);
            }
            let Some(id) = result["id"].as_str().map(String::from) else {
                return Err(
                    self.unavailable(format!("answered a task without an id in state {state:?}"))
                );
            };
            tokio::time::sleep_until((Instant::now() + POLL).min(deadline)).await;
            result = self
                .call(
                    user,
                    "tasks/get",
                    json!({"id": id}),
                    Retry::default().attempts,
                )
                .await?;
        }
    }

    /// One JSON-RPC call; `attempts` > 1 only for calls that are safe to
    /// repeat (a message must not be sent twice).
    async fn call(
        &self,
        user: &str,
        method: &str,
        params: Value,
        attempts: u32,
    ) -> Result<Value, AgentUnavailable> {
        let body = json!({
            "jsonrpc": "2.0",
            "id": uuid::Uuid::new_v4().to_string(),
            "method": method,
            "params": params,
        });
        let retry = Retry {
            attempts,
            ..Retry::default()
        };
        let response = http_client::send(
            || {
                self.client
                    .post(&self.url)
                    .header("X-User-Id", user)
                    .json(&body)
            },
            retry,
        )
        .await
        .map_err(|e| match e {
            HttpError::Status { status, message } => {
                self.unavailable(format!("answered {method} with {status}: {message}"))
            }
            HttpError::Transport(detail) => self.unavailable(format!("{method}: {detail}")),
        })?;
        let answer: Value = response.json().await.map_err(|e| {
            self.unavailable(format!("answered {method} with something not JSON: {e}"))
        })?;
        if let Some(error) = answer.get("error").filter(|e| !e.is_null()) {
            let message = error["message"].as_str().unwrap_or("an error");
            return Err(self.unavailable(format!("answered {method} with an error: {message}")));
        }
        answer
            .get("result")
            .cloned()
            .ok_or_else(|| self.unavailable(format!("answered {method} without a result")))
    }

    fn unavailable(&self, detail: String) -> AgentUnavailable {
        AgentUnavailable {
            url: self.url.clone(),
            detail,
        }
    }
}

fn user_message(context: &str, task: Option<&str>, parts: Value) -> Value {
    let mut message = json!({
        "kind": "message",
        "role": "user",
        "messageId": uuid::Uuid::new_v4().to_string(),
        "contextId": context,
        "parts": parts,
    });
    if let Some(task) = task {
        message["taskId"] = json!(task);
    }
    message
}

/// The tool an `input-required` task asks to approve: kagent's
/// `adk_request_confirmation` call, in the status message or the history.
fn confirmation(task: &Value) -> Option<String> {
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
            call["name"].as_str().unwrap_or("a tool").to_string()
        })
}
