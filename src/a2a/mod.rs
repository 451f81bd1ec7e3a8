//! Probes over A2A: a golden task sent to an Agent as it runs, through the
//! A2A endpoint kagent serves for it, in the version the Agent speaks:
//! A2A 0.3 for kagent 0.10 (`message/send`, `tasks/get`) or A2A 1.0 for
//! kagent 1.0 (`SendMessage`, `GetTask`). The A2A `contextId` is the id of
//! the session the Agent records, so the run that follows reads exactly
//! that session; an answer in another conversation is refused.
//!
//! A probe acts as its own user (`X-User-Id`) and carries no credential:
//! whatever identity runs kagent-evals is never lent to the Agent, whose
//! runtime records request headers in the session. Redirects are not
//! followed and answers are read up to a bound.

pub mod card;
pub mod dialect;

use crate::core::judge::simulate::{self, Exchange, Next, Speaker};
use crate::core::judge::{Judge, JudgeError, JudgeUsage};
use crate::core::suite::compile::{Probe, Turns};
use crate::core::suite::spec::{A2aProtocol, Approvals};
use crate::http_client::{self, HttpError, Retry};
use dialect::{Answer, Content, State, TaskView};
use serde_json::{Value, json};
use std::time::Duration;
use tokio::time::Instant;

/// How a probe run ended, when the Agent could be asked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ProbeEnd {
    /// Every turn was answered: the session is there to score.
    #[default]
    Completed,
    /// The run ended before its last answer (the task failed, timed out,
    /// or waited for an approval the case does not give): a failed run.
    Failed(String),
    /// The Agent answered in another conversation than the probe's: no
    /// session can be scored as this run's, an error of the run.
    Refused(String),
}

/// What one probe run did: how it ended and, for a simulated user, the
/// conversation it held, why it ended and the simulator's calls.
#[derive(Debug, Default)]
pub struct ProbeRun {
    pub end: ProbeEnd,
    pub transcript: Vec<Exchange>,
    pub ended: Option<String>,
    pub usage: JudgeUsage,
}

/// Why a probe run could not be done: the Agent, or the simulated user's
/// model.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(transparent)]
    Agent(#[from] AgentUnavailable),
    #[error(transparent)]
    Simulator(#[from] JudgeError),
}

/// The Agent's endpoint is down or answered an error: the run itself
/// cannot be done.
#[derive(Debug, thiserror::Error)]
#[error("the Agent's A2A endpoint {url} {detail}")]
pub struct AgentUnavailable {
    pub url: String,
    pub detail: String,
}

/// How the A2A version of an Agent is to be chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolChoice {
    /// Decided before asking the Agent, and by what.
    Given { protocol: A2aProtocol, by: String },
    /// From the Agent's card.
    FromCard,
}

/// The version spoken with an Agent, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Negotiated {
    pub protocol: A2aProtocol,
    pub why: String,
}

impl Negotiated {
    /// `A2A 1.0, from the agent card (it offers 1.0, 0.3)`, for reports.
    pub fn describe(&self) -> String {
        format!("{}, {}", self.protocol.words(), self.why)
    }
}

/// The A2A endpoint of one Agent.
#[derive(Debug)]
pub struct A2aClient {
    url: String,
    client: reqwest::Client,
    choice: ProtocolChoice,
    negotiated: tokio::sync::OnceCell<Negotiated>,
}

/// Pause between polls of a task that is still working.
const POLL: Duration = Duration::from_millis(500);

/// Pause before sending again a message kagent 1.0 did not accept because
/// the session was busy (`-32004`, §7 of the 1.0 contract).
const BUSY_PAUSE: Duration = Duration::from_secs(1);

/// JSON-RPC error kagent 1.0 answers while a session cannot take input.
const SESSION_BUSY: i64 = -32004;

/// JSON-RPC's "method not found": what an Agent of the other version says.
const METHOD_NOT_FOUND: i64 = -32601;

/// The largest answer read from an Agent, and the largest card.
const MAX_ANSWER_BYTES: usize = 16 << 20;
const MAX_CARD_BYTES: usize = 1 << 20;

/// Why one JSON-RPC call gave no result.
enum CallError {
    Unavailable(AgentUnavailable),
    /// The Agent answered a JSON-RPC error.
    Rpc {
        code: i64,
        message: String,
    },
}

impl A2aClient {
    pub fn new(url: &str, choice: ProtocolChoice) -> Result<Self, String> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(format!("the A2A URL {url} is not an http(s) URL"));
        }
        // Each request may wait for the Agent's whole turn; the probe's own
        // timeout bounds the run.
        let client = http_client::client(Duration::from_secs(3600))?;
        Ok(A2aClient {
            url: url.to_string(),
            client,
            choice,
            negotiated: tokio::sync::OnceCell::new(),
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// The version to speak, decided once: as given, else from the card.
    pub async fn protocol(&self) -> Result<&Negotiated, AgentUnavailable> {
        self.negotiated
            .get_or_try_init(|| async {
                match &self.choice {
                    ProtocolChoice::Given { protocol, by } => Ok(Negotiated {
                        protocol: *protocol,
                        why: format!("set by {by}"),
                    }),
                    ProtocolChoice::FromCard => self.read_card().await,
                }
            })
            .await
    }

    /// The version the Agent's card offers. An Agent without a card (as
    /// kagent 0.10's controller may serve none) is spoken to in 0.3.
    async fn read_card(&self) -> Result<Negotiated, AgentUnavailable> {
        for name in ["agent-card.json", "agent.json"] {
            let url = http_client::endpoint(&self.url, &[".well-known", name])
                .map_err(|e| self.unavailable(e))?;
            let response =
                http_client::send(|| self.client.get(url.clone()), Retry::default()).await;
            let response = match response {
                Err(HttpError::Status { status, .. })
                    if status == reqwest::StatusCode::NOT_FOUND =>
                {
                    continue;
                }
                other => other.map_err(|e| self.unavailable(format!("card {url}: {e}")))?,
            };
            let body = http_client::read_bounded(response, MAX_CARD_BYTES)
                .await
                .map_err(|e| self.unavailable(format!("card {url}: {e}")))?;
            let card: Value = serde_json::from_slice(&body)
                .map_err(|e| self.unavailable(format!("card {url} is not JSON: {e}")))?;
            let offered = card::offered(&card);
            let protocol =
                card::choose(&offered).map_err(|e| self.unavailable(format!("card {url}: {e}")))?;
            return Ok(Negotiated {
                protocol,
                why: format!("from the agent card (it offers {})", offered.join(", ")),
            });
        }
        Ok(Negotiated {
            protocol: A2aProtocol::V0_3,
            why: "assumed: the Agent serves no card (.well-known/agent-card.json or agent.json), as kagent 0.10's controller may not".into(),
        })
    }

    /// Run one probe in the conversation `context`: every turn in order
    /// (a script's, or those `simulator` writes as the scenario's user),
    /// approvals answered as the case says, within the probe's timeout.
    pub async fn run(
        &self,
        probe: &Probe,
        context: &str,
        simulator: &impl Judge,
    ) -> Result<ProbeRun, ProbeError> {
        let protocol = self.protocol().await?.protocol;
        let deadline = Instant::now() + probe.timeout;
        let mut run = ProbeRun::default();
        let turns = self.turns(protocol, probe, context, deadline, simulator, &mut run);
        run.end = match tokio::time::timeout_at(deadline, turns).await {
            Ok(ended) => ended?,
            Err(_) => ProbeEnd::Failed(format!("no answer within {}s", probe.timeout.as_secs())),
        };
        Ok(run)
    }

    async fn turns(
        &self,
        protocol: A2aProtocol,
        probe: &Probe,
        context: &str,
        deadline: Instant,
        simulator: &impl Judge,
        run: &mut ProbeRun,
    ) -> Result<ProbeEnd, ProbeError> {
        let user = probe.user_id.as_str();
        let mut next = match &probe.turns {
            Turns::Script(turns) => turns.first().cloned(),
            Turns::Scenario(scenario) => Some(scenario.starting_prompt.clone()),
        };
        // The task a question of the Agent's left open, which the
        // simulated user's answer continues.
        let mut open_task: Option<String> = None;
        let mut turn = 0;
        while let Some(text) = next.take() {
            turn += 1;
            let mut message = dialect::user_message(
                protocol,
                context,
                open_task.as_deref(),
                Content::Text(&text),
            );
            open_task = None;
            run.transcript.push(Exchange {
                speaker: Speaker::User,
                text,
            });
            let reply = loop {
                let answer = self.send(protocol, user, &message).await?;
                if let Some(refused) = elsewhere(turn, answer.context(), context) {
                    return Ok(refused);
                }
                let task = match answer {
                    Answer::Message { reply, .. } => break reply,
                    Answer::Task(task) => self.settle(protocol, user, task, deadline).await?,
                };
                if let Some(refused) = elsewhere(turn, task.context.as_deref(), context) {
                    return Ok(refused);
                }
                match task.state {
                    State::Completed => break task.reply,
                    State::InputRequired => {
                        let Some(tool) = task.approval_of else {
                            if matches!(probe.turns, Turns::Scenario(_)) {
                                // A question for the user: theirs to answer.
                                open_task = task.id.clone();
                                break task.reply;
                            }
                            return Ok(ProbeEnd::Failed(format!(
                                "turn {turn}: the Agent asked the user a question; a probe only answers approvals"
                            )));
                        };
                        let decision = match probe.approvals {
                            Approvals::Fail => {
                                return Ok(ProbeEnd::Failed(format!(
                                    "turn {turn}: the Agent asked to approve a call to {tool}, and the probe's approvals are `fail`"
                                )));
                            }
                            Approvals::Approve => json!({"decision_type": "approve"}),
                            Approvals::Reject => json!({
                                "decision_type": "reject",
                                "rejection_reason": "rejected by the kagent-evals probe"
                            }),
                        };
                        message = dialect::user_message(
                            protocol,
                            context,
                            task.id.as_deref(),
                            Content::Data(decision),
                        );
                    }
                    // The status message may quote the conversation: not said.
                    other => {
                        return Ok(ProbeEnd::Failed(format!(
                            "turn {turn}: the task ended {}",
                            other.words()
                        )));
                    }
                }
            };
            run.transcript.push(Exchange {
                speaker: Speaker::Agent,
                text: reply,
            });
            next = match &probe.turns {
                Turns::Script(turns) => turns.get(turn).cloned(),
                Turns::Scenario(scenario) => {
                    let said =
                        simulate::next_turn(scenario, &run.transcript, simulator, &mut run.usage)
                            .await?;
                    match said {
                        Next::Finished => {
                            run.ended = Some(format!(
                                "the simulated user finished its plan after {turn} turn(s)"
                            ));
                            None
                        }
                        Next::Say(_) if turn >= scenario.max_turns as usize => {
                            let why = format!(
                                "the simulated user had not finished its plan after maxTurns {} turns",
                                scenario.max_turns
                            );
                            run.ended = Some(why.clone());
                            return Ok(ProbeEnd::Failed(why));
                        }
                        Next::Say(text) => Some(text),
                    }
                }
            };
        }
        Ok(ProbeEnd::Completed)
    }

    /// Send one message (never twice, but once more after kagent 1.0 said
    /// the session was busy and did not take it), and read the answer,
    /// checking it is in the probe's conversation.
    async fn send(
        &self,
        protocol: A2aProtocol,
        user: &str,
        message: &Value,
    ) -> Result<Answer, AgentUnavailable> {
        let method = dialect::send_method(protocol);
        let params = json!({"message": message});
        let mut result = self.call(protocol, user, method, &params, 1).await;
        if protocol == A2aProtocol::V1_0
            && matches!(
                result,
                Err(CallError::Rpc {
                    code: SESSION_BUSY,
                    ..
                })
            )
        {
            tokio::time::sleep(BUSY_PAUSE).await;
            result = self.call(protocol, user, method, &params, 1).await;
        }
        let result = result.map_err(|e| self.failed_call(protocol, method, e))?;
        let answer = dialect::read_send(protocol, &result)
            .map_err(|e| self.unavailable(format!("{method}: {e}")))?;
        Ok(answer)
    }

    /// Wait for a task that is still working to settle.
    async fn settle(
        &self,
        protocol: A2aProtocol,
        user: &str,
        mut task: TaskView,
        deadline: Instant,
    ) -> Result<TaskView, AgentUnavailable> {
        let method = dialect::get_method(protocol);
        while !task.state.is_settled() {
            let Some(id) = task.id.clone() else {
                return Err(self.unavailable(format!(
                    "answered a task without an id in state {:?}",
                    task.state.words()
                )));
            };
            tokio::time::sleep_until((Instant::now() + POLL).min(deadline)).await;
            let result = self
                .call(
                    protocol,
                    user,
                    method,
                    &json!({"id": id}),
                    Retry::default().attempts,
                )
                .await
                .map_err(|e| self.failed_call(protocol, method, e))?;
            task = dialect::read_get(protocol, &result)
                .map_err(|e| self.unavailable(format!("{method}: {e}")))?;
        }
        Ok(task)
    }

    /// One JSON-RPC call; `attempts` > 1 only for calls that are safe to
    /// repeat (a message must not be sent twice).
    async fn call(
        &self,
        protocol: A2aProtocol,
        user: &str,
        method: &str,
        params: &Value,
        attempts: u32,
    ) -> Result<Value, CallError> {
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
        let unavailable = |detail: String| CallError::Unavailable(self.unavailable(detail));
        let response = http_client::send(
            || {
                let mut request = self.client.post(&self.url).header("X-User-Id", user);
                for (name, value) in dialect::headers(protocol) {
                    request = request.header(*name, *value);
                }
                request.json(&body)
            },
            retry,
        )
        .await
        .map_err(|e| match e {
            HttpError::Status { status, message } => {
                unavailable(format!("answered {method} with {status}: {message}"))
            }
            HttpError::Transport(detail) => unavailable(format!("{method}: {detail}")),
        })?;
        let bytes = http_client::read_bounded(response, MAX_ANSWER_BYTES)
            .await
            .map_err(|e| unavailable(format!("answered {method}: {e}")))?;
        let answer: Value = serde_json::from_slice(&bytes)
            .map_err(|e| unavailable(format!("answered {method} with something not JSON: {e}")))?;
        if let Some(error) = answer.get("error").filter(|e| !e.is_null()) {
            return Err(CallError::Rpc {
                code: error["code"].as_i64().unwrap_or(0),
                message: error["message"].as_str().unwrap_or("an error").to_string(),
            });
        }
        answer
            .get("result")
            .cloned()
            .ok_or_else(|| unavailable(format!("answered {method} without a result")))
    }

    fn failed_call(
        &self,
        protocol: A2aProtocol,
        method: &str,
        error: CallError,
    ) -> AgentUnavailable {
        match error {
            CallError::Unavailable(e) => e,
            CallError::Rpc { code, message } => {
                let hint = match code {
                    METHOD_NOT_FOUND => format!(
                        " (the Agent does not serve {method}: it may not speak {}; set probes.protocol, or --a2a-protocol)",
                        protocol.words()
                    ),
                    _ => String::new(),
                };
                self.unavailable(format!(
                    "answered {method} with error {code}: {message}{hint}"
                ))
            }
        }
    }

    fn unavailable(&self, detail: impl Into<String>) -> AgentUnavailable {
        AgentUnavailable {
            url: self.url.clone(),
            detail: detail.into(),
        }
    }
}

/// A run refused because the Agent answered in a conversation other than
/// the probe's: scoring that session would score someone else's.
fn elsewhere(turn: usize, answered: Option<&str>, context: &str) -> Option<ProbeEnd> {
    let other = answered.filter(|c| *c != context)?;
    Some(ProbeEnd::Refused(format!(
        "turn {turn}: the Agent answered in conversation {other}, not {context}, the one the probe opened: its session is not the probe's"
    )))
}
